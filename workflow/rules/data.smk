# Data stage: raw files -> resources/raw/<group>/<file>; tidy tables -> results/data/<name>.parquet.
# Recipes: docs/data.md and the data mirror's README.md; code: ensemble_repro.data.


wildcard_constraints:
    name=regex_choice(DATA.all_names),
    group=regex_choice(DATA.all_groups),
    filename=regex_choice(DATA.all_filenames),


rule data:
    """Target: every prepared data set the configured experiments need."""
    input:
        [prepared(n) for n in DATA.available],


rule fetch:
    """One raw file from the first source that works (mirror, official URL, OpenML), sha256-checked."""
    output:
        "resources/raw/{group}/{filename}",
    log:
        LOGS["fetch"],
    benchmark:
        BENCHMARKS["fetch"]
    retries: 2
    conda:
        LIB_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    script:
        "../scripts/fetch.py"


rule prepare:
    """One tidy table per data set plus a JSON sidecar (source sha256, recipe)."""
    input:
        raw=lambda wc: DATA.raw_paths(wc.name, "resources/raw"),
    output:
        table="results/data/{name}.parquet",
        meta="results/data/{name}.json",
    log:
        LOGS["prepare"],
    benchmark:
        BENCHMARKS["prepare"]
    conda:
        LIB_ENV
    threads: 1
    # Measured (benchmark max_rss, 2-core box): blog 390 MB, nomao 280 MB, the others < 170 MB;
    # every job < 15 s. MEPS could not be measured (not staged): it is read in chunks of 5000 rows.
    resources:
        mem_mb=lambda wc: 4000 if wc.name == "meps" else 1000,
        runtime=lambda wc: 20 if wc.name == "meps" else 5,
    script:
        "../scripts/prepare.py"
