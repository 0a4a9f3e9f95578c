"""Knapsack tables (CSV + Markdown), figures and paper_vs_ours.md from all selection runs."""
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments import knapsack as kx  # noqa: E402

cfg, seed = snakemake.config["knapsack"], snakemake.config["seed"]
kx.write_summary(cfg, seed, snakemake.input, snakemake.output)
