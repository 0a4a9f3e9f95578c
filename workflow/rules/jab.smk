# Jackknife+-after-bootstrap (Kim, Xu & Barber 2020); protocol: docs/papers/jab.md.
# Library: ensemble_repro.conformal; the paper's slice: ensemble_repro.papers.jab (cells,
# figures / tables in its report module, names, rule keys, claims, cost).
# Jobs: one per (grid, data set, learner, m/n) with all trials inside (main grid: 45 jobs at
# paper scale, fixed-vs-random: 90, J+non-ensemble: 9, without replacement: 9), grouped as
# "jab_grid" for a cluster,
# then one collect, one figures and one tables job. MEPS is left out (with a warning from
# common.smk) when its AHRQ file is absent; its panels and Table S1 then say so.
# Resources, measured on the 2-core shared box (smoke/quick configs, results/benchmarks/jab/):
# a main-grid job holds n * B fitted models and (n, B, 4096) prediction chunks: < 1 GB even for
# Blog; runtime per trial ~1 s (ridge), ~30 s (RF), minutes (NN) on Communities, more on Blog.

from ensemble_repro.papers.jab.names import (
    jab_figure_ids,
    jab_figure_labels,
    jab_figure_name,
    jab_table_name,
)

JAB = config["jab"]
JAB_ALL = JAB["datasets"]
JAB_DATASETS = available(JAB_ALL) if experiment_on("jab") else []
JAB_MISSING = [d for d in JAB_ALL if d not in JAB_DATASETS]
JAB_LEARNERS = JAB["learners"]
JAB_MAIN_M = [f"{r:g}" for r in JAB["main"]["m_ratios"]]
JAB_FVR_ON = JAB["fixed_vs_random"]["enabled"]
JAB_FVR_M = [f"{r:g}" for r in JAB["fixed_vs_random"]["m_ratios"]] if JAB_FVR_ON else []
# sampling sensitivity setting (robust_to of the claims): main grid subsampling without replacement
JAB_WOR = JAB["without_replacement"]
JAB_WOR_M = [f"{r:g}" for r in JAB_WOR["m_ratios"]] if JAB_WOR["enabled"] else []
JR = "results/jab"
# Figure and table ids and file names: ensemble_repro.papers.jab.names (one definition).
JAB_FIGS = jab_figure_ids(JAB["aggregations"], JAB_FVR_ON)
# one job draws every figure; each PNG is its own report entry, labelled with its paper figure
JAB_FIG_FILES = {
    f"{jab_figure_name(f)}_{ext}": f"{JR}/figures/{jab_figure_name(f)}.{ext}"
    for f in JAB_FIGS
    for ext in ("pdf", "png")
}
JAB_FIG_LABELS = {f"{jab_figure_name(f)}_png": jab_figure_labels(f) for f in JAB_FIGS}
JAB_TABLE_FILES = {
    f"{jab_table_name(d)}_{ext}": f"{JR}/tables/{jab_table_name(d)}.{ext}"
    for d in JAB_ALL
    for ext in ("csv", "md")
}
JAB_TARGETS = (
    (list(JAB_FIG_FILES.values()) + list(JAB_TABLE_FILES.values()) + [f"{JR}/paper_vs_ours.md"])
    if experiment_on("jab")
    else []
)
# the paper's final outputs (common.smk's paper_targets)
PAPER_TARGETS["jab"] = lambda: JAB_TARGETS


wildcard_constraints:
    jab_data=regex_choice(JAB_ALL),
    jab_learner=regex_choice(JAB_LEARNERS),
    jab_m=regex_choice(sorted(set(JAB_MAIN_M + JAB_FVR_M + JAB_WOR_M))),


rule jab_main_cell:
    """Main grid, all trials at one m/n: J+aB (random B) and J+ensemble (B fixed), every aggregation."""
    input:
        table=lambda wc: prepared(wc.jab_data),
    output:
        f"{JR}/cells/main/{{jab_data}}/{{jab_learner}}/m{{jab_m}}.parquet",
    log:
        LOGS["jab_main_cell"],
    benchmark:
        BENCHMARKS["jab_main_cell"]
    group:
        "jab_grid"
    conda:
        LIB_ENV
    threads: 2  # trials side by side in 2 worker processes; each method is timed alone
    resources:
        mem_mb=2000,
        runtime=lambda wc: {"ridge": 30, "rf": 240, "nn": 1440}[wc.jab_learner],
    params:
        cfg=rule_params("jab_main_cell"),
    script:
        "../scripts/jab_cell.py"


rule jab_jplus_cell:
    """J+non-ensemble, all trials (independent of m/n)."""
    input:
        table=lambda wc: prepared(wc.jab_data),
    output:
        f"{JR}/cells/jplus/{{jab_data}}/{{jab_learner}}.parquet",
    log:
        LOGS["jab_jplus_cell"],
    benchmark:
        BENCHMARKS["jab_jplus_cell"]
    group:
        "jab_grid"
    conda:
        LIB_ENV
    threads: 1  # n fits per trial; the main-grid jobs hold the parallelism
    resources:
        mem_mb=1500,
        runtime=lambda wc: {"ridge": 10, "rf": 30, "nn": 120}[wc.jab_learner],
    params:
        cfg=rule_params("jab_jplus_cell"),
    script:
        "../scripts/jab_cell.py"


rule jab_fixed_vs_random_cell:
    """Appendix D.3 grid, all trials at one m/n: J+aB with fixed vs Binomial B."""
    input:
        table=lambda wc: prepared(wc.jab_data),
    output:
        f"{JR}/cells/fixed_vs_random/{{jab_data}}/{{jab_learner}}/m{{jab_m}}.parquet",
    log:
        LOGS["jab_fixed_vs_random_cell"],
    benchmark:
        BENCHMARKS["jab_fixed_vs_random_cell"]
    group:
        "jab_grid"
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=1500,
        runtime=lambda wc: {"ridge": 10, "rf": 60, "nn": 240}[wc.jab_learner],
    params:
        cfg=rule_params("jab_fixed_vs_random_cell"),
    script:
        "../scripts/jab_cell.py"


rule jab_without_replacement_cell:
    """Sampling sensitivity setting, all trials at one m/n: the main grid's J+aB and J+ensemble
    with resamples drawn without replacement (subsampling, paper Section 2.2)."""
    input:
        table=lambda wc: prepared(wc.jab_data),
    output:
        f"{JR}/cells/without_replacement/{{jab_data}}/{{jab_learner}}/m{{jab_m}}.parquet",
    log:
        LOGS["jab_without_replacement_cell"],
    benchmark:
        BENCHMARKS["jab_without_replacement_cell"]
    group:
        "jab_grid"
    conda:
        LIB_ENV
    threads: 2  # as jab_main_cell: trials side by side, each method timed alone
    resources:
        mem_mb=2000,
        runtime=lambda wc: {"ridge": 30, "rf": 240, "nn": 1440}[wc.jab_learner],
    params:
        cfg=rule_params("jab_without_replacement_cell"),
    script:
        "../scripts/jab_cell.py"


rule jab_collect:
    """Tidy result tables (one row per data set x learner x aggregation x method x m/n x trial)."""
    input:
        main=expand(
            f"{JR}/cells/main/{{d}}/{{l}}/m{{m}}.parquet",
            d=JAB_DATASETS,
            l=JAB_LEARNERS,
            m=JAB_MAIN_M,
        ),
        jplus=expand(f"{JR}/cells/jplus/{{d}}/{{l}}.parquet", d=JAB_DATASETS, l=JAB_LEARNERS),
        fvr=expand(
            f"{JR}/cells/fixed_vs_random/{{d}}/{{l}}/m{{m}}.parquet",
            d=JAB_DATASETS,
            l=JAB_LEARNERS,
            m=JAB_FVR_M,
        ),
        wor=expand(
            f"{JR}/cells/without_replacement/{{d}}/{{l}}/m{{m}}.parquet",
            d=JAB_DATASETS,
            l=JAB_LEARNERS,
            m=JAB_WOR_M,
        ),
        meta=[prepared_meta(d) for d in JAB_DATASETS],
    output:
        main=f"{JR}/main.csv",
        jplus=f"{JR}/jplus.csv",
        fvr=f"{JR}/fixed_vs_random.csv",
        wor=f"{JR}/without_replacement.csv",
    log:
        LOGS["jab_collect"],
    benchmark:
        BENCHMARKS["jab_collect"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=rule_params("jab_collect"),
    script:
        "../scripts/jab_collect.py"


rule jab_figures:
    """Figures 1, 2, S1-S4 (main grid) and S5-S10 (fixed vs random B): each as PDF and PNG."""
    input:
        main=f"{JR}/main.csv",
        jplus=f"{JR}/jplus.csv",
        fvr=f"{JR}/fixed_vs_random.csv",
    output:
        # the PNG shows in the report, its labels naming the paper figure; the PDF is its print twin
        **{
            key: (
                report(
                    path,
                    caption="../report/jab_figures.rst",
                    category=PAPERS["jab"].category,
                    labels=JAB_FIG_LABELS[key],
                )
                if key in JAB_FIG_LABELS
                else path
            )
            for key, path in JAB_FIG_FILES.items()
        },
    log:
        LOGS["jab_figures"],
    benchmark:
        BENCHMARKS["jab_figures"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        cfg=rule_params("jab_figures"),
        missing=JAB_MISSING,
        figures={fid: jab_figure_name(fid) for fid in JAB_FIGS},
    script:
        "../scripts/jab_figures.py"


rule jab_tables:
    """Tables S1-S3 (wall clock at m = timing_m_ratio * n); their CSVs show in the report as
    HTML (claims.smk's table_html), the verdicts come from jab_claims."""
    input:
        main=f"{JR}/main.csv",
        jplus=f"{JR}/jplus.csv",
        meta=[prepared_meta(d) for d in JAB_DATASETS],
    output:
        **JAB_TABLE_FILES,
    log:
        LOGS["jab_tables"],
    benchmark:
        BENCHMARKS["jab_tables"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=rule_params("jab_tables"),
        missing=JAB_MISSING,
    script:
        "../scripts/jab_tables.py"


# Its verdicts: results/jab/claims.csv (merged by report.smk's paper_vs_ours).
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
