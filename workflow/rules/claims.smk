# Claims stage, shared part: each paper's claims rule (in its own rules file) judges its claims
# from its result tables into results/<paper>/claims.csv (its registry and evaluator in its
# package, the shared rules in ensemble_repro.claims); here each paper's forest plot and the
# result tables' HTML renderings; report.smk's paper_vs_ours rule then merges the claims files
# into results/claims.csv and the verdict pages. A paper switched off keeps its earlier claims file,
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
from ensemble_repro.config import with_plugin_defaults
from ensemble_repro.rule_keys import verdict_keys

# The scale each paper's claims rows were made at (smoke / quick / paper / custom), told from
# the config values its verdicts rest on; read by the claims scripts from the environment, not
# from params, so that a config file changing none of those values reruns no claims job.
SHIPPED_SCALES = {
    scale: with_plugin_defaults(cfg) for scale, cfg in shipped_scales(REPO / "config").items()
}
os.environ[SCALE_ENV] = json.dumps(
    {p: scale_label(config, verdict_keys(p, config), SHIPPED_SCALES) for p in PAPERS}
)


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
