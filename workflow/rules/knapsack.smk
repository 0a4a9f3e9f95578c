# Knapsack-constrained ensemble selection (Hajdu et al. 2020); protocol: docs/papers/knapsack.md.
# Library: ensemble_repro.knapsack; the paper's slice: ensemble_repro.papers.knapsack (cells,
# figures, measured costs, names, rule keys, claims, cost).
# Jobs: 1 examples job, 1 pool job per UCI set, 1 selection job per pool (all budgets and
# seeds inside), 1 summary job. Resources measured on the smoke/quick configs (2-core box
# shared, load 5-10): pool builds take 25-60 s and < 1 GB; a selection job runs budgets x
# seeds x (1 + stopping rules) x 3 searches of at most MAXSTEP evaluations (the estimator's
# ensemble_repro.papers.knapsack.cost.selection_evaluations), SA being most of it, in < 1 GB; the summary takes
# seconds.

from ensemble_repro.papers.knapsack.names import (
    KNAPSACK_EXAMPLE_MD,
    KNAPSACK_EXAMPLE_TABLES,
    KNAPSACK_MEASURED_COSTS,
    KNAPSACK_PAGE_TABLES,
    KNAPSACK_TABLE_CAPTIONS,
    KNAPSACK_TABLES,
    SYNTHETIC_PREFIX,
)

KNAPSACK_DATASETS = available(config["knapsack"]["datasets"]) if experiment_on("knapsack") else []
KNAPSACK_POOLS = (
    KNAPSACK_DATASETS + [f"{SYNTHETIC_PREFIX}{n}" for n in config["knapsack"]["synthetic"]["sizes"]]
    if experiment_on("knapsack")
    else []
)
KN = "results/knapsack"


# Measured training-time costs: committed under the repository (KNAPSACK_COSTS), read by
# every pool job and written only by the deliberate knapsack_costs target (make knapsack-costs).
KN_COSTS_ROOT = REPO
KN_COSTS_NEEDED = "measured" in [
    config["knapsack"]["cost"],
    *config["knapsack"]["cost_sensitivity"],
]
# Missing measured costs stop the run here, before any job. Raised only by the pool job's input
# function, the error is dropped by Snakemake when an earlier pool file exists: it keeps that
# pool, made with another seed or split. The knapsack_costs target, which measures them, runs.
KN_TARGETS = cli_targets()
if KN_TARGETS is not None and "knapsack_costs" not in KN_TARGETS:
    for _data in KNAPSACK_DATASETS:
        knapsack_costs_input(_data, KN_COSTS_ROOT, needed=KN_COSTS_NEEDED)
KN_CAT = PAPERS["knapsack"].category
# Summary tables (names, file stems: ensemble_repro.papers.knapsack.names); the report shows them as
# HTML (claims.smk's table_html), these with their own captions.
KN_TABLE_FILES = {
    name + suffix: f"{KN}/{stem}.{ext}"
    for name, (stem, _title) in KNAPSACK_TABLES.items()
    for suffix, ext in (("", "csv"), ("_md", "md"))
}
# The examples job's tables (sections II-IV), read by the summary and the claims.
KN_EXAMPLE_FILES = {
    name + suffix: f"{KN}/{stem}.{ext}"
    for name, stem in KNAPSACK_EXAMPLE_TABLES.items()
    for suffix, ext in (("", "csv"), ("_md", "md"))
    if not suffix or name in KNAPSACK_EXAMPLE_MD
}
TABLE_CAPTIONS.update(
    {f"knapsack/{stem}": f"tables/{caption}" for stem, caption in KNAPSACK_TABLE_CAPTIONS.items()}
)


wildcard_constraints:
    kn_data=(
        regex_choice(config["knapsack"]["datasets"]) if config["knapsack"]["datasets"] else "NONE"
    ),
    kn_pool=regex_choice(KNAPSACK_POOLS) if KNAPSACK_POOLS else "NONE",


rule knapsack_examples:
    """Worked example and Propositions II.1-4 (section II), the adversarial pool, MC vs SA
    (section III), Fig. 1 and the size estimates of eqs. (22) / (33) (section IV)."""
    output:
        **KN_EXAMPLE_FILES,
        fig1_pdf=f"{KN}/figures/fig1_lemma_iv1.pdf",
        fig1_png=report(
            f"{KN}/figures/fig1_lemma_iv1.png",
            caption="../report/knapsack_fig1.rst",
            category=KN_CAT,
            labels={"figure": "Fig. 1 (Lemma IV.1)"},
        ),
    log:
        LOGS["knapsack_examples"],
    benchmark:
        BENCHMARKS["knapsack_examples"]
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=10,
    params:
        cfg=rule_params("knapsack_examples"),
    script:
        "../scripts/knapsack_examples.py"


rule knapsack_pool:
    """~30 scikit-learn classifiers on one UCI set: p_i, FLOP cost, test votes, and the
    committed measured training seconds (a run whose pool has none stops at start)."""
    input:
        table=lambda wc: prepared(wc.kn_data),
        meta=lambda wc: prepared_meta(wc.kn_data),
        costs=lambda wc: knapsack_costs_input(wc.kn_data, KN_COSTS_ROOT, needed=KN_COSTS_NEEDED),
    output:
        pool=f"{KN}/pools/{{kn_data}}.csv",
        votes=f"{KN}/pools/{{kn_data}}_votes.parquet",
    log:
        LOGS["knapsack_pool"],
    benchmark:
        BENCHMARKS["knapsack_pool"]
    group:
        "knapsack_grid"
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=1500,
        runtime=20,
    params:
        cfg=rule_params("knapsack_pool"),
    script:
        "../scripts/knapsack_pool.py"


rule knapsack_measure_costs:
    """Training wall time of each member of one UCI pool: median of pool_timing_repeats fits.
    Only the knapsack_costs target asks for it (a run never re-measures)."""
    input:
        table=lambda wc: prepared(wc.kn_data),
    output:
        KNAPSACK_MEASURED_COSTS,
    log:
        LOGS["knapsack_measure_costs"],
    benchmark:
        BENCHMARKS["knapsack_measure_costs"]
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=1500,
        runtime=60,
    params:
        cfg=rule_params("knapsack_measure_costs"),
    script:
        "../scripts/knapsack_measure_costs.py"


rule knapsack_costs:
    """Target: measure every configured UCI pool's costs and write them into the committed
    files (KNAPSACK_COSTS); `make knapsack-costs` forces the measurement."""
    input:
        expand(KNAPSACK_MEASURED_COSTS, kn_data=KNAPSACK_DATASETS),
    log:
        LOGS["knapsack_costs"],
    benchmark:
        BENCHMARKS["knapsack_costs"]
    localrule: True
    conda:
        LIB_ENV
    params:
        root=KN_COSTS_ROOT,
    script:
        "../scripts/knapsack_costs_install.py"


rule knapsack_select:
    """Exhaustive, greedy, MC, SA and stochastic search (with/without stopping rule) on one pool."""
    input:
        # synthetic pools need no input; a UCI pool needs its classifier table and test votes
        unpack(
            lambda wc: (
                {}
                if wc.kn_pool.startswith(SYNTHETIC_PREFIX)
                else {
                    "pool": f"{KN}/pools/{wc.kn_pool}.csv",
                    "votes": f"{KN}/pools/{wc.kn_pool}_votes.parquet",
                    "meta": prepared_meta(wc.kn_pool),
                }
            )
        ),
    output:
        runs=f"{KN}/runs/{{kn_pool}}.csv",
        traces=f"{KN}/runs/{{kn_pool}}_traces.parquet",
    log:
        LOGS["knapsack_select"],
    benchmark:
        BENCHMARKS["knapsack_select"]
    group:
        "knapsack_grid"
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=60,
    params:
        cfg=rule_params("knapsack_select"),
    script:
        "../scripts/knapsack_select.py"


rule knapsack_summary:
    """Tables and figures of the knapsack paper (its paper_vs_ours.md: knapsack_claims)."""
    input:
        runs=expand(f"{KN}/runs/{{kn_pool}}.csv", kn_pool=KNAPSACK_POOLS),
        traces=expand(f"{KN}/runs/{{kn_pool}}_traces.parquet", kn_pool=KNAPSACK_POOLS),
        pools=expand(f"{KN}/pools/{{kn_data}}.csv", kn_data=KNAPSACK_DATASETS),
        worked=KN_EXAMPLE_FILES["worked"],
        rates=KN_EXAMPLE_FILES["rates"],
    output:
        **KN_TABLE_FILES,  # in the report as HTML (table_html)
        convergence_pdf=expand(f"{KN}/figures/convergence_{{kn_pool}}.pdf", kn_pool=KNAPSACK_POOLS),
        convergence_png=[
            report(
                p,
                caption="../report/knapsack_convergence.rst",
                category=KN_CAT,
                labels={
                    "figure": "convergence (Section V)",
                    "pool": p.split("convergence_")[-1].removesuffix(".png"),
                },
            )
            for p in expand(f"{KN}/figures/convergence_{{kn_pool}}.png", kn_pool=KNAPSACK_POOLS)
        ],
        savings_csv=f"{KN}/figures/stopping_savings.csv",  # every point of the figure
        savings_pdf=f"{KN}/figures/stopping_savings.pdf",
        savings_png=report(
            f"{KN}/figures/stopping_savings.png",
            caption="../report/knapsack_savings.rst",
            category=KN_CAT,
            labels={"figure": "stopping-rule savings (Section VI)"},
        ),
        empirical_pdf=f"{KN}/figures/model_vs_empirical.pdf",
        empirical_png=report(
            f"{KN}/figures/model_vs_empirical.png",
            caption="../report/knapsack_empirical.rst",
            category=KN_CAT,
            labels={"figure": "independence model vs held-out vote (Section VI)"},
        ),
    log:
        LOGS["knapsack_summary"],
    benchmark:
        BENCHMARKS["knapsack_summary"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        cfg=rule_params("knapsack_summary"),
    script:
        "../scripts/knapsack_summary.py"


# the paper's final outputs (common.smk's paper_targets); a lambda: they are its rules' outputs
PAPER_TARGETS["knapsack"] = lambda: (
    list(rules.knapsack_summary.output)
    + list(rules.knapsack_examples.output)
    + [f"{KN}/paper_vs_ours.md"]
    if experiment_on("knapsack")
    else []
)


# Its verdicts: results/knapsack/claims.csv (merged by report.smk's paper_vs_ours).
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
