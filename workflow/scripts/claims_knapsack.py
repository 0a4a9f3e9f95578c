"""results/knapsack/claims.csv: verdicts on the knapsack claims (ensemble_repro.papers.knapsack.claims),
and paper_vs_ours.md: those verdicts above the paper's numbers."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.claim import run_scale  # noqa: E402
from ensemble_repro.io import write_text  # noqa: E402
from ensemble_repro.papers.knapsack import cells  # noqa: E402
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
    snakemake.output.claims,
    knapsack_cfg=params["knapsack"],
    seed=params["seed"],
    scale=run_scale("knapsack"),
)
tables = cells.read_page_tables(i)
page = cells.paper_vs_ours_text(
    snakemake.output.claims, i.worked, i.rates, tables, params["knapsack"]
)
write_text(snakemake.output.page, page)
