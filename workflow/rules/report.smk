# Report stage: results/paper_vs_ours.{md,html} and results/claims.csv give the
# verdict on every claim (from the per-paper claims files of claims.smk); results/README.md
# indexes every output file. `snakemake --report results/report.html` then
# collects every output declared with report(...) across the rule files.


rule paper_vs_ours:
    """Every paper's claims merged into results/claims.csv and the verdict pages (with the
    forest plots of the papers run); papers switched off keep their earlier claims file (rows
    marked with scale and date)."""
    input:
        claims=[p.claims_csv for key, p in PAPERS.items() if experiment_on(key)],
        forests=forest_targets(),
    output:
        claims=CLAIMS_CSV,
        md=VERDICT_MD,
        html=report(
            VERDICT_HTML,
            caption="../report/paper_vs_ours.rst",
            category="Overview",
            labels={"page": "verdicts on every claim"},
        ),
        rst=VERDICT_SUMMARY_RST,
    log:
        LOGS["paper_vs_ours"],
    benchmark:
        BENCHMARKS["paper_vs_ours"]
    localrule: True
    conda:
        REPORT_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        paper_files={key: p.claims_csv for key, p in PAPERS.items()},
    script:
        "../scripts/claims_verdicts.py"


rule results_index:
    """results/README.md: each output file, the paper item it regenerates, its rule and
    provenance, and the scales the verdicts were made at."""
    input:
        [prepared(n) for n in DATA.available],
        paper_targets(),
        VERDICT_MD,
        CLAIMS_CSV,
    output:
        report(
            "results/README.md",
            caption="../report/results_index.rst",
            category="Overview",
        ),
    log:
        LOGS["results_index"],
    benchmark:
        BENCHMARKS["results_index"]
    localrule: True
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    params:
        catalogue=output_catalogue(),
        papers=paper_vs_ours_files(),
    script:
        "../scripts/report_index.py"
