# The toy paper's rules: its experiment, its table's verdict, its targets.

TOY_DRAWS = "results/toy/draws.csv"


rule toy_experiment:
    """Standard normal draws, one table."""
    output:
        TOY_DRAWS,
    log:
        "results/logs/toy/experiment.log",
    benchmark:
        BENCHMARKS["toy_experiment"]
    localrule: True
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        cfg=rule_params("toy_experiment"),
    script:
        "experiment_script.py"


rule toy_claims:
    """The verdict on the toy's claim."""
    input:
        TOY_DRAWS,
    output:
        PAPERS["toy"].claims_csv,
    log:
        "results/logs/claims/toy.log",
    benchmark:
        BENCHMARKS["toy_claims"]
    localrule: True
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        cfg=rule_params("toy_claims"),
    script:
        "claims_script.py"


PAPER_TARGETS["toy"] = lambda: [TOY_DRAWS] if experiment_on("toy") else []
