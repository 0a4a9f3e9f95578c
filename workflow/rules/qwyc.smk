# Quit When You Can (Wang, Gupta & You 2018) vs Fan et al. (2002); protocol:
# ../shared/docs/ensembles-spec.md §1-3, §5.1. Library: ensemble_repro.qwyc; cells:
# ensemble_repro.experiments.qwyc.
# Jobs per data set: 1 model job (learning-rate search, final GBT, score matrices), 1 sweep job
# per method (all alphas / gammas / random seeds inside, group "qwyc_grid"), 1 figure job,
# 1 timing job; then 1 paper-vs-ours job. About 12 jobs per data set.
# Resources, measured on the shared 2-core box (results/benchmarks/qwyc/): at paper scale
# (T=500) the Adult model job trains 3 GBTs in ~5-10 s each and holds ~0.5 GB of score
# matrices; a QWYC* sweep fits 7 alphas at 15-60 s each; Fan sweeps take ~1 s per gamma; the
# timing job runs the full ensemble 100 times over 16k test rows (~0.4 s a run). Nomao
# (depth 9) is of the same order. Smoke config (T=40): every job < 10 s, < 300 MB.

QWYC = config["qwyc"]
# prepared tables of each data set
QWYC_TABLES = {"adult": ["adult_train", "adult_test"], "nomao": ["nomao"]}
QWYC_DATASETS = [
    d for d in QWYC["datasets"] if len(available(QWYC_TABLES[d])) == len(QWYC_TABLES[d])
] if experiment_on("qwyc") else []
QWYC_METHODS = (
    [f"qwyc_{o}" for o in ["joint"] + list(QWYC["orderings"])]
    + [f"fan_{o}" for o in QWYC["fan"]["orderings"]]
)
QR = "results/qwyc"
QWYC_CAT = "Quit When You Can"
QWYC_TARGETS = (
    [f"{QR}/paper_vs_ours.md"]
    + [
        f"{QR}/{d}/{name}"
        for d in QWYC_DATASETS
        for name in ("figure1.pdf", "figure1.png", "figure1.csv", "timing.csv", "timing.md")
    ]
    if QWYC_DATASETS
    else []
)
# the contract of Snakefile's `all` rule: qwyc_targets() lists the final outputs
qwyc_targets = lambda: QWYC_TARGETS


wildcard_constraints:
    qwyc_data=regex_choice(QWYC["datasets"]),
    qwyc_method=regex_choice(QWYC_METHODS),


rule qwyc_model:
    """Split, GBT learning-rate search on a validation carve-out, final GBT, score matrices."""
    input:
        tables=lambda wc: [prepared(n) for n in QWYC_TABLES[wc.qwyc_data]],
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
        search=f"{QR}/{{qwyc_data}}/gbt_search.csv",
        search_md=f"{QR}/{{qwyc_data}}/gbt_search.md",
        smaller=f"{QR}/{{qwyc_data}}/smaller_ensembles.csv",
        smaller_md=f"{QR}/{{qwyc_data}}/smaller_ensembles.md",
    log:
        "results/logs/qwyc/model/{qwyc_data}.log",
    benchmark:
        "results/benchmarks/qwyc/model/{qwyc_data}.tsv"
    params:
        qwyc=QWYC,
        seed=config["seed"],
    threads: 1  # GBTs are trained single-threaded so results do not depend on --cores
    resources:
        mem_mb=3000,
        runtime=30,
    conda:
        ENV
    script:
        "../scripts/qwyc_model.py"


rule qwyc_sweep:
    """One method (QWYC* / fixed ordering + Algorithm 2 / Fan) over its whole parameter grid."""
    input:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
    output:
        f"{QR}/{{qwyc_data}}/sweeps/{{qwyc_method}}.csv",
    log:
        "results/logs/qwyc/sweep/{qwyc_data}_{qwyc_method}.log",
    benchmark:
        "results/benchmarks/qwyc/sweep/{qwyc_data}_{qwyc_method}.tsv"
    params:
        qwyc=QWYC,
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=3000,
        runtime=lambda wc: 60 if wc.qwyc_method in ("qwyc_joint", "fan_joint") else 15,
    group:
        "qwyc_grid"
    conda:
        ENV
    script:
        "../scripts/qwyc_sweep.py"


rule qwyc_figure:
    """Figure 1 for one data set: test accuracy and % differences vs mean # base models."""
    input:
        sweeps=lambda wc: [f"{QR}/{wc.qwyc_data}/sweeps/{m}.csv" for m in QWYC_METHODS],
        smaller=f"{QR}/{{qwyc_data}}/smaller_ensembles.csv",
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        pdf=report(f"{QR}/{{qwyc_data}}/figure1.pdf", caption="../report/qwyc_figure1.rst",
                   category=QWYC_CAT),
        png=report(f"{QR}/{{qwyc_data}}/figure1.png", caption="../report/qwyc_figure1.rst",
                   category=QWYC_CAT),
        csv=f"{QR}/{{qwyc_data}}/figure1.csv",
        md=f"{QR}/{{qwyc_data}}/figure1.md",
    log:
        "results/logs/qwyc/figure/{qwyc_data}.log",
    params:
        qwyc=QWYC,
        seed=config["seed"],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/qwyc_figure.py"


rule qwyc_timing:
    """Per-example evaluation time, full ensemble vs Fan* vs QWYC* at ~0.5% and ~1% differences."""
    input:
        arrays=f"{QR}/{{qwyc_data}}/model.npz",
        sweeps=[f"{QR}/{{qwyc_data}}/sweeps/{m}.csv" for m in ("qwyc_joint", "fan_individual_mse")],
        meta=lambda wc: [prepared_meta(n) for n in QWYC_TABLES[wc.qwyc_data]],
    output:
        csv=report(f"{QR}/{{qwyc_data}}/timing.csv", caption="../report/qwyc_timing.rst",
                   category=QWYC_CAT),
        md=f"{QR}/{{qwyc_data}}/timing.md",
    log:
        "results/logs/qwyc/timing/{qwyc_data}.log",
    benchmark:
        "results/benchmarks/qwyc/timing/{qwyc_data}.tsv"
    params:
        qwyc=QWYC,
        seed=config["seed"],
    threads: 1  # one core: per-example times of the three methods are measured side by side
    resources:
        mem_mb=2000,
        runtime=30,
    conda:
        ENV
    script:
        "../scripts/qwyc_timing.py"


rule qwyc_paper_vs_ours:
    """The paper's claims next to the measured numbers."""
    input:
        points=[f"{QR}/{d}/figure1.csv" for d in QWYC_DATASETS],
        smaller=[f"{QR}/{d}/smaller_ensembles.csv" for d in QWYC_DATASETS],
        timing=[f"{QR}/{d}/timing.csv" for d in QWYC_DATASETS],
    output:
        report(f"{QR}/paper_vs_ours.md", caption="../report/qwyc_paper_vs_ours.rst",
               category=QWYC_CAT),
    log:
        "results/logs/qwyc/paper_vs_ours.log",
    params:
        qwyc=QWYC,
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/qwyc_paper_vs_ours.py"
