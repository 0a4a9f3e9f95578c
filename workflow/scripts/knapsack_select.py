"""All selection strategies on one pool (UCI classifier pool or synthetic Beta pool)."""
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments import knapsack as kx  # noqa: E402
from ensemble_repro.io import write_csv, write_parquet  # noqa: E402
from ensemble_repro.provenance import write_provenance  # noqa: E402

cfg, seed = snakemake.config["knapsack"], snakemake.config["seed"]
runs, traces = kx.select_pool(snakemake.wildcards.kn_pool, cfg, seed, snakemake.input)
write_csv(runs, snakemake.output.runs)
write_parquet(traces, snakemake.output.traces)
write_provenance(snakemake.output.runs, config=kx.settings(cfg), seed=seed,
                 inputs=[snakemake.input.meta] if hasattr(snakemake.input, "meta") else [])
