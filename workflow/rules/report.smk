# Report stage (issue 7): results/paper_vs_ours.md gathers the three comparison tables and
# results/README.md indexes every output file. `snakemake --report results/report.html` then
# collects every output declared with report(...) across the rule files.


rule paper_vs_ours:
    """All three papers' claims next to the measured numbers, in one file."""
    input:
        lambda wc: list(paper_vs_ours_files().values()),
    output:
        report(
            "results/paper_vs_ours.md",
            caption="../report/paper_vs_ours.rst",
            category="Overview",
        ),
    params:
        papers=paper_vs_ours_files(),
    log:
        "results/logs/report/paper_vs_ours.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/report_paper_vs_ours.py"


rule results_index:
    """results/README.md: each output file, the paper item it regenerates, its rule and provenance."""
    input:
        [prepared(n) for n in DATA.available],
        jab_targets(),
        qwyc_targets(),
        knapsack_targets(),
        "results/paper_vs_ours.md",
    output:
        report(
            "results/README.md",
            caption="../report/results_index.rst",
            category="Overview",
        ),
    params:
        catalogue=output_catalogue(),
        papers=paper_vs_ours_files(),
        # relative to the working directory, so the README (and this rule's rerun trigger) does
        # not depend on where the run directory lives
        config_files=[
            os.path.relpath(f) for f in (workflow.overwrite_configfiles or workflow.configfiles)
        ],
    log:
        "results/logs/report/results_index.log",
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/report_index.py"
