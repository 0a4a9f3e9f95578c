# Claims stage: each paper's claims judged from its result tables (results/<paper>/claims.csv;
# each paper's registry and evaluator in ensemble_repro.papers.<paper>, the shared rules in
# ensemble_repro.claims), then merged by report.smk's paper_vs_ours rule into
# results/claims.csv and the verdict pages. A paper switched off keeps its earlier claims file,
# whose rows carry the scale and date they were made at.

from ensemble_repro.claims.forest import FOREST_FIGURE
from ensemble_repro.claims.claim import (
    CLAIMS_CSV,
    SCALE_ENV,
    TABLE_HTML,
    VERDICT_HTML,
    VERDICT_MD,
    VERDICT_SUMMARY_RST,
    scale_label,
    shipped_scales,
)
from ensemble_repro.rule_keys import verdict_keys

# The scale each paper's claims rows were made at (smoke / quick / paper / custom), told from
# the config values its verdicts rest on; read by the claims scripts from the environment, not
# from params, so that a config file changing none of those values reruns no claims job.
SHIPPED_SCALES = shipped_scales(REPO / "config")
os.environ[SCALE_ENV] = json.dumps(
    {p: scale_label(config, verdict_keys(p, config), SHIPPED_SCALES) for p in PAPERS}
)


rule jab_claims:
    """Verdicts on the J+aB claims (coverage, widths, fixed vs random B, cost) over the trials,
    each with its robustness to the aggregation and to sampling without replacement."""
    input:
        main=f"{JR}/main.csv",
        jplus=f"{JR}/jplus.csv",
        fvr=f"{JR}/fixed_vs_random.csv",
        wor=f"{JR}/without_replacement.csv",
    output:
        claims=PAPERS["jab"].claims_csv,
        page=f"{JR}/paper_vs_ours.md",
    log:
        LOGS["jab_claims"],
    benchmark:
        BENCHMARKS["jab_claims"]
    localrule: True
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=rule_params("jab_claims"),
        missing=JAB_MISSING,
    script:
        "../scripts/claims_jab.py"


rule qwyc_claims:
    """Verdicts on the QWYC claims from each data set's per-test-row tables, bootstrap refits,
    timing runs and sensitivity settings."""
    input:
        rows=[
            f"{QR}/{d}/rows/{m}.parquet"
            for d in QWYC_DATASETS
            for m in QWYC_METHODS + [SMALLER_SAME_LR]
        ],
        refits=[f"{QR}/{d}/refits.csv" for d in QWYC_DATASETS],
        approximation=[f"{QR}/{d}/approximation.csv" for d in QWYC_DATASETS],
        timing=[f"{QR}/{d}/timing.csv" for d in QWYC_DATASETS],
        timing_runs=[f"{QR}/{d}/timing_runs.csv" for d in QWYC_DATASETS],
        sensitivity=[
            f"{QR}/{d}/rows/sensitivity_{s}.parquet" for d in QWYC_DATASETS for s in QWYC_SENS
        ],
    output:
        PAPERS["qwyc"].claims_csv,
    log:
        LOGS["qwyc_claims"],
    benchmark:
        BENCHMARKS["qwyc_claims"]
    localrule: True
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=5,
    params:
        cfg=rule_params("qwyc_claims"),
    script:
        "../scripts/claims_qwyc.py"


rule knapsack_claims:
    """Verdicts on the knapsack claims from the worked example, the greedy worst cases, the
    adversarial pool, the Beta-model tables, every pool's selection runs and the UCI test votes,
    and the paper's numbers page below them."""
    input:
        **{k: KN_EXAMPLE_FILES[k] for k in ("worked", "rates", "lemma", "greedy", "sizes", "small")},
        **{k: KN_TABLE_FILES[k] for k in KNAPSACK_PAGE_TABLES},
        beta_fit=KN_TABLE_FILES["beta_fit"],
        runs=expand(f"{KN}/runs/{{kn_pool}}.csv", kn_pool=KNAPSACK_POOLS),
        votes=expand(f"{KN}/pools/{{kn_data}}_votes.parquet", kn_data=KNAPSACK_DATASETS),
    output:
        claims=PAPERS["knapsack"].claims_csv,
        page=f"{KN}/paper_vs_ours.md",
    log:
        LOGS["knapsack_claims"],
    benchmark:
        BENCHMARKS["knapsack_claims"]
    localrule: True
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=rule_params("knapsack_claims"),
    script:
        "../scripts/claims_knapsack.py"


rule verdict_forest:
    """Forest plot of one paper's verdicts: each claim's effect and interval against its margin."""
    input:
        lambda wc: PAPERS[wc.paper].claims_csv,
    output:
        pdf=FOREST_FIGURE.replace("{ext}", "pdf"),
        png=report(
            FOREST_FIGURE.replace("{ext}", "png"),
            caption="../report/verdict_forest.rst",
            category="Overview",
            labels=lambda wc: {"page": f"forest plot: {wc.paper}"},
        ),
    log:
        LOGS["verdict_forest"],
    benchmark:
        BENCHMARKS["verdict_forest"]
    wildcard_constraints:
        paper=regex_choice(list(PAPERS)),
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/verdict_forest.py"


# forest plots of the papers run (the verdict pages embed them)
forest_targets = lambda: [
    FOREST_FIGURE.format(paper=p, ext="png") for p in PAPERS if experiment_on(p)
]


# Result tables shown as rendered HTML inside the Snakemake report (a CSV would only download).
REPORT_TABLES = sorted(
    p.removeprefix("results/").removesuffix(".csv") for p in paper_targets() if p.endswith(".csv")
)
# the report stage's targets (common.smk's report_targets) include these renderings
report_table_targets = lambda: [TABLE_HTML.format(table=t) for t in REPORT_TABLES]


rule table_html:
    """Every result table rendered as HTML for the report, each with its own caption."""
    input:
        [f"results/{t}.csv" for t in REPORT_TABLES],
    output:
        [
            report(
                TABLE_HTML.format(table=t),
                caption=table_caption(t),
                category=PAPERS[t.split("/")[0]].category,
                labels={"table": t},
            )
            for t in REPORT_TABLES
        ],
    log:
        LOGS["table_html"],
    benchmark:
        BENCHMARKS["table_html"]
    localrule: True
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../scripts/table_html.py"
