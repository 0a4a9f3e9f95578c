"""results/knapsack/claims.csv: verdicts on the knapsack claims (ensemble_repro.claims)."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.build import write_knapsack_claims  # noqa: E402

i = snakemake.input
write_knapsack_claims(
    i.worked,
    i.rates,
    i.runs,
    snakemake.output[0],
    knapsack_cfg=snakemake.params.cfg["knapsack"],
    config_files=snakemake.params.config_files,
)
