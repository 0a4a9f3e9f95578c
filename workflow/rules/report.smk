# Report stage (issue 7): results/paper_vs_ours.md gathers the three comparison tables and
# results/README.md indexes every output file. `snakemake --report results/report.html` then
# collects every output declared with report(...) across the rule files.


def paper_vs_ours_files():
    return {
        p: f"results/{p}/paper_vs_ours.md"
        for p in ("jab", "qwyc", "knapsack")
        if experiment_on(p)
    }


def report_targets():
    return ["results/paper_vs_ours.md", "results/README.md"]


def output_catalogue():
    """Every rule output pattern with its report caption (read by the results index)."""
    rows = []
    for r in workflow.rules:
        for f in r.output:
            rep = f.flags.get("report")
            caption = rep.caption.get_path_or_uri(secret_free=True) if rep and rep.caption else None
            rows.append({"rule": r.name, "pattern": str(f), "caption": caption})
    return rows


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
        config_files=[str(f) for f in (workflow.overwrite_configfiles or workflow.configfiles)],
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
