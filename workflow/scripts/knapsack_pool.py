"""Classifier pool of one UCI data set: accuracies, FLOP costs, measured costs, test votes."""

import warnings

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import read_parquet, write_csv, write_parquet  # noqa: E402
from ensemble_repro.knapsack.pools import build_pool  # noqa: E402
from ensemble_repro.papers.knapsack.measured_costs import pool_key, read_costs, with_costs  # noqa: E402
from ensemble_repro.provenance import write_provenance  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)  # MLP/SGD convergence notices
warnings.filterwarnings("ignore", category=FutureWarning)
params, inp = snakemake.params.cfg, snakemake.input
cfg, seed = params["knapsack"], params["seed"]
table = read_parquet(inp.table)
features = cfg["member_features"].get(snakemake.wildcards.kn_data)
pool, correct = build_pool(
    table.drop(columns="target"),
    table["target"],
    seed=seed,
    select_fraction=cfg["split"]["select"],
    test_fraction=cfg["split"]["test"],
    member_features=features,
)
# training times are the committed measurements (knapsack_costs target), never this run's
key = pool_key(snakemake.wildcards.kn_data, seed, cfg["split"], features)
costs = read_costs(inp.costs, key) if hasattr(inp, "costs") else None
write_csv(with_costs(pool, costs), snakemake.output.pool)
write_parquet(correct, snakemake.output.votes)
write_provenance(
    snakemake.output.pool,
    config=params,
    seed=seed,
    inputs=[inp.meta],
    extra={"measured_costs": "none" if costs is None else "committed knapsack costs file"},
)
