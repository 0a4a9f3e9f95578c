"""results/knapsack/claims.csv: verdicts on the knapsack claims (ensemble_repro.papers.knapsack.claims)."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.registry import run_scale  # noqa: E402
from ensemble_repro.papers.knapsack.claims import write_claims  # noqa: E402

i, params = snakemake.input, snakemake.params.cfg
write_claims(
    {
        k: i[k]
        for k in (
            "worked",
            "rates",
            "lemma",
            "greedy",
            "sizes",
            "small",
            "beta_fit",
            "runs",
            "votes",
        )
    },
    snakemake.output[0],
    knapsack_cfg=params["knapsack"],
    seed=params["seed"],
    scale=run_scale("knapsack"),
)
