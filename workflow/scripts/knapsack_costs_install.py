"""Write the freshly measured knapsack costs into the committed files (knapsack_costs target)."""

from ensemble_repro.logs import get_logger, setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.knapsack.measured_costs import install  # noqa: E402

for path in install(snakemake.input, snakemake.params.root):
    get_logger("knapsack").info("wrote %s (commit it: every run reads it)", path)
