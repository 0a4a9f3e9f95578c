# Quit When You Can (Wang, Gupta & You 2018) vs Fan et al. (2002); protocol:
# docs/papers/qwyc.md. Library: ensemble_repro.qwyc; the paper's slice: ensemble_repro.papers.qwyc
# (cells, figures / tables in its report module, names, rule keys, claims, cost).
# Jobs per data set: 1 model job (per carve-out of qwyc.n_splits: learning-rate search; the GBT
# of every rate refitted on all training rows), 1 sweep job per method (all splits, alphas /
# gammas / random seeds inside, group "qwyc_grid"; each also keeps the per-test-row outcomes of
# the main fit), 1 figure job, 1 refit job (qwyc.n_refits bootstrap refits of ordering and
# thresholds, the GBT held fixed), 1 timing job (every distinct fit), 1 approximation job (QWYC's
# greedy ordering against all orderings of small ensembles); then 1 paper-vs-ours job.
# About 14 jobs per data set.
# Resources: mem_mb is about 2x the max_rss and runtime about 3-5x the wall time that the
# benchmark files of the quick config (T = 500, Adult and Nomao; results/benchmarks/qwyc/)
# record on a loaded 2-core machine. Sweep and sensitivity jobs hold QWYC*'s alive x
# candidates matrix.

from ensemble_repro.papers.qwyc.names import (
    REFIT_METHODS,
    SMALLER_SAME_LR,
    TIMING_METHODS,
    qwyc_method_names,
)

QWYC = config["qwyc"]
QWYC_MEM_MB = 2000  # sweeps and sensitivity jobs (measured <= 0.96 GB)
QWYC_SWEEP_MIN = 15  # QWYC* sweep wall time (measured <= 3.5 min under load)
# prepared tables of each data set (adult -> adult_train, adult_test): ensemble_repro.data
QWYC_TABLES = {d: prepared_names_for([d]) for d in QWYC["datasets"]}
QWYC_DATASETS = (
    [d for d in QWYC["datasets"] if len(available(QWYC_TABLES[d])) == len(QWYC_TABLES[d])]
    if experiment_on("qwyc")
    else []
)
# sweep methods (one job each): ensemble_repro.papers.qwyc.names; Fan* among them (config.py)
QWYC_METHODS = qwyc_method_names(QWYC)
# sensitivity settings (ensemble_repro.papers.qwyc.cells.SENSITIVITY): one [I] switch changed
QWYC_SENS = list(QWYC["sensitivity"])
QR = "results/qwyc"
QWYC_CAT = PAPERS["qwyc"].category
QWYC_TARGETS = (
    [f"{QR}/paper_vs_ours.md"]
    + [
        f"{QR}/{d}/{name}"
        for d in QWYC_DATASETS
        for name in (
            "figure1.pdf",
            "figure1.png",
            "figure1.csv",
            "timing.csv",
            "timing.md",
            "refits.csv",
            "approximation.csv",
        )
        + (("sensitivity.pdf", "sensitivity.png") if QWYC_SENS else ())
        + tuple(f"sensitivity_{s}.csv" for s in QWYC_SENS)
    ]
    if QWYC_DATASETS
    else []
)
# the paper's final outputs (common.smk's paper_targets)
PAPER_TARGETS["qwyc"] = lambda: QWYC_TARGETS
TABLE_CAPTIONS.update({f"qwyc/{d}/timing": "tables/qwyc_timing" for d in QWYC_DATASETS})


wildcard_constraints:
    qwyc_data=regex_choice(QWYC["datasets"]),
    qwyc_method=regex_choice(QWYC_METHODS),
    qwyc_setting=regex_choice(QWYC_SENS or ["none"]),


rule qwyc_model:
    """Carve-outs, GBT learning-rate search on each, the GBTs refitted on all training rows."""
    input:
        unpack(lambda wc: {n: prepared(n) for n in QWYC_TABLES[wc.qwyc_data]}),
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
        search=f"{QR}/{{qwyc_data}}/gbt_search.csv",
        search_md=f"{QR}/{{qwyc_data}}/gbt_search.md",
        smaller=f"{QR}/{{qwyc_data}}/smaller_ensembles.csv",
        smaller_md=f"{QR}/{{qwyc_data}}/smaller_ensembles.md",
    log:
        LOGS["qwyc_model"],
    benchmark:
        BENCHMARKS["qwyc_model"]
    conda:
        LIB_ENV
    threads: 1  # GBTs are trained single-threaded so results do not depend on --cores
    resources:
        mem_mb=1000,
        runtime=8 * (QWYC["n_splits"] + 1),  # (n_splits + 1) x learning rates GBT fits
    params:
        cfg=rule_params("qwyc_model"),
    script:
        "../scripts/qwyc_model.py"


rule qwyc_sweep:
    """One method (QWYC* / fixed ordering + Algorithm 2 / Fan) over its whole parameter grid."""
    input:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
    output:
        csv=f"{QR}/{{qwyc_data}}/sweeps/{{qwyc_method}}.csv",
        rows=f"{QR}/{{qwyc_data}}/rows/{{qwyc_method}}.parquet",
    log:
        LOGS["qwyc_sweep"],
    benchmark:
        BENCHMARKS["qwyc_sweep"]
    group:
        "qwyc_grid"
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=QWYC_MEM_MB,
        runtime=lambda wc: QWYC["n_splits"]
        * (QWYC_SWEEP_MIN if wc.qwyc_method in ("qwyc_joint", "qwyc_crossfit") else 10),
    params:
        cfg=rule_params("qwyc_sweep"),
    script:
        "../scripts/qwyc_sweep.py"


rule qwyc_figure:
    """Figure 1 for one data set: test accuracy and % differences vs mean # base models."""
    input:
        sweeps=lambda wc: [f"{QR}/{wc.qwyc_data}/sweeps/{m}.csv" for m in QWYC_METHODS],
        smaller=f"{QR}/{{qwyc_data}}/smaller_ensembles.csv",
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        pdf=f"{QR}/{{qwyc_data}}/figure1.pdf",
        png=report(
            f"{QR}/{{qwyc_data}}/figure1.png",
            caption="../report/qwyc_figure1.rst",
            category=QWYC_CAT,
            labels={"figure": "Figure 1", "data set": "{qwyc_data}"},
        ),
        csv=f"{QR}/{{qwyc_data}}/figure1.csv",
        md=f"{QR}/{{qwyc_data}}/figure1.md",
    log:
        LOGS["qwyc_figure"],
    benchmark:
        BENCHMARKS["qwyc_figure"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=rule_params("qwyc_figure"),
    script:
        "../scripts/qwyc_figure.py"


rule qwyc_sensitivity:
    """QWYC*, natural order and Fan* over their grids with one [I] switch changed."""
    input:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        csv=f"{QR}/{{qwyc_data}}/sensitivity_{{qwyc_setting}}.csv",
        md=f"{QR}/{{qwyc_data}}/sensitivity_{{qwyc_setting}}.md",
        rows=f"{QR}/{{qwyc_data}}/rows/sensitivity_{{qwyc_setting}}.parquet",
    log:
        LOGS["qwyc_sensitivity"],
    benchmark:
        BENCHMARKS["qwyc_sensitivity"]
    group:
        "qwyc_grid"
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=QWYC_MEM_MB,
        runtime=QWYC["n_splits"] * (QWYC_SWEEP_MIN + 10),  # QWYC*, natural, Fan* per split
    params:
        cfg=rule_params("qwyc_sensitivity"),
    script:
        "../scripts/qwyc_sensitivity.py"


rule qwyc_sensitivity_figure:
    """Main setting vs sensitivity settings: trade-off and fitting-set vs test differences."""
    input:
        points=f"{QR}/{{qwyc_data}}/figure1.csv",
        sensitivity=lambda wc: [f"{QR}/{wc.qwyc_data}/sensitivity_{s}.csv" for s in QWYC_SENS],
    output:
        pdf=f"{QR}/{{qwyc_data}}/sensitivity.pdf",
        png=report(
            f"{QR}/{{qwyc_data}}/sensitivity.png",
            caption="../report/qwyc_sensitivity.rst",
            category=QWYC_CAT,
            labels={"figure": "sensitivity (beyond the paper)", "data set": "{qwyc_data}"},
        ),
    log:
        LOGS["qwyc_sensitivity_figure"],
    benchmark:
        BENCHMARKS["qwyc_sensitivity_figure"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=rule_params("qwyc_sensitivity_figure"),
    script:
        "../scripts/qwyc_sensitivity_figure.py"


rule qwyc_timing:
    """Per-example evaluation time, full ensemble vs Fan* vs QWYC* at ~0.5% and ~1% differences."""
    input:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
        sweeps=[f"{QR}/{{qwyc_data}}/sweeps/{m}.csv" for m in TIMING_METHODS],
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        csv=f"{QR}/{{qwyc_data}}/timing.csv",  # in the report as HTML (table_html)
        md=f"{QR}/{{qwyc_data}}/timing.md",
        runs=f"{QR}/{{qwyc_data}}/timing_runs.csv",
        runs_md=f"{QR}/{{qwyc_data}}/timing_runs.md",
    log:
        LOGS["qwyc_timing"],
    benchmark:
        BENCHMARKS["qwyc_timing"]
    conda:
        LIB_ENV
    threads: 1  # one core: per-example times of the three methods are measured side by side
    resources:
        mem_mb=2500,
        runtime=10 * len(QWYC["gbt"]["learning_rates"]),  # per distinct fit: 100 passes at
        # paper scale, ~2.5 min at load ~6
    params:
        cfg=rule_params("qwyc_timing"),
    script:
        "../scripts/qwyc_timing.py"


rule qwyc_refits:
    """Bootstrap refits of QWYC*, natural-order Algorithm 2 and Fan* on the main fit's fitting
    rows (the GBT held fixed), each evaluated on the test rows; the main fit's smaller GBTs per
    test row."""
    input:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
        sweeps=[f"{QR}/{{qwyc_data}}/sweeps/{m}.csv" for m in REFIT_METHODS if m in QWYC_METHODS],
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        csv=f"{QR}/{{qwyc_data}}/refits.csv",
        md=f"{QR}/{{qwyc_data}}/refits.md",
        smaller_rows=f"{QR}/{{qwyc_data}}/rows/smaller_same_lr.parquet",
    log:
        LOGS["qwyc_refits"],
    benchmark:
        BENCHMARKS["qwyc_refits"]
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=QWYC_MEM_MB,
        runtime=5 + QWYC["n_refits"] * 5,  # per refit ~30 s CPU at quick scale (x3-4 under load)
    params:
        cfg=rule_params("qwyc_refits"),
    script:
        "../scripts/qwyc_refits.py"


rule qwyc_approximation:
    """QWYC's greedy ordering (alpha = 0) against the best of all orderings on small ensembles
    of sub-ensembles of the main fit (the paper's 4-approximation)."""
    input:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        csv=f"{QR}/{{qwyc_data}}/approximation.csv",
        md=f"{QR}/{{qwyc_data}}/approximation.md",
    log:
        LOGS["qwyc_approximation"],
    benchmark:
        BENCHMARKS["qwyc_approximation"]
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=QWYC_MEM_MB,
        runtime=5 + QWYC["approximation"]["n_ensembles"],  # <= 1 min per 8-model search
    params:
        cfg=rule_params("qwyc_approximation"),
    script:
        "../scripts/qwyc_approximation.py"


rule qwyc_paper_vs_ours:
    """The paper's claims next to the measured numbers, its verdicts copied from claims.csv."""
    input:
        points=[f"{QR}/{d}/figure1.csv" for d in QWYC_DATASETS],
        smaller=[f"{QR}/{d}/smaller_ensembles.csv" for d in QWYC_DATASETS],
        timing=[f"{QR}/{d}/timing.csv" for d in QWYC_DATASETS],
        sensitivity=[f"{QR}/{d}/sensitivity_{s}.csv" for d in QWYC_DATASETS for s in QWYC_SENS],
        claims=PAPERS["qwyc"].claims_csv,
    output:
        f"{QR}/paper_vs_ours.md",  # the report shows the verdict page built from claims.csv
    log:
        LOGS["qwyc_paper_vs_ours"],
    benchmark:
        BENCHMARKS["qwyc_paper_vs_ours"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        cfg=rule_params("qwyc_paper_vs_ours"),
    script:
        "../scripts/qwyc_paper_vs_ours.py"


# Its verdicts: results/qwyc/claims.csv (merged by report.smk's paper_vs_ours).
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
