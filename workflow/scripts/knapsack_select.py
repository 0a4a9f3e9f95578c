"""All selection strategies on one pool (UCI classifier pool or synthetic Beta pool)."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import write_csv, write_parquet  # noqa: E402
from ensemble_repro.papers.knapsack import cells  # noqa: E402
from ensemble_repro.provenance import write_provenance  # noqa: E402

inp, params = snakemake.input, snakemake.params.cfg
uci = hasattr(inp, "pool")  # a synthetic pool has no input
runs, traces = cells.select_pool(
    snakemake.wildcards.kn_pool,
    params["knapsack"],
    params["seed"],
    pool_path=inp.pool if uci else None,
    votes_path=inp.votes if uci else None,
)
write_csv(runs, snakemake.output.runs)
write_parquet(traces, snakemake.output.traces)
write_provenance(
    snakemake.output.runs, config=params, seed=params["seed"], inputs=[inp.meta] if uci else []
)
