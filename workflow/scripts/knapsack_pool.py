"""Classifier pool of one UCI data set: accuracies, FLOP costs, training times, test votes."""

import warnings

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

import pandas as pd  # noqa: E402

from ensemble_repro.io import write_csv, write_parquet  # noqa: E402
from ensemble_repro.knapsack.pools import build_pool  # noqa: E402
from ensemble_repro.provenance import write_provenance  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)  # MLP/SGD convergence notices
warnings.filterwarnings("ignore", category=FutureWarning)
params = snakemake.params.cfg
cfg, seed = params["knapsack"], params["seed"]
table = pd.read_parquet(snakemake.input.table)
pool, correct = build_pool(
    table.drop(columns="target"),
    table["target"],
    seed=seed,
    select_fraction=cfg["split"]["select"],
    test_fraction=cfg["split"]["test"],
    timing_repeats=cfg["pool_timing_repeats"],
)
write_csv(pool, snakemake.output.pool)
write_parquet(correct, snakemake.output.votes)
write_provenance(snakemake.output.pool, config=params, seed=seed, inputs=[snakemake.input.meta])
