"""Training times of one UCI pool's members (median of pool_timing_repeats fits): the input
that every run's knapsack_pool job reads once installed (knapsack_costs target)."""

import warnings

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import read_parquet, write_csv  # noqa: E402
from ensemble_repro.knapsack.pools import build_pool  # noqa: E402
from ensemble_repro.papers.knapsack.measured_costs import measured_costs, pool_key  # noqa: E402

warnings.filterwarnings("ignore", category=UserWarning)  # MLP/SGD convergence notices
warnings.filterwarnings("ignore", category=FutureWarning)
params = snakemake.params.cfg
cfg, seed = params["knapsack"], params["seed"]
table = read_parquet(snakemake.input.table)
repeats = cfg["pool_timing_repeats"]
features = cfg["member_features"].get(snakemake.wildcards.kn_data)
pool, _ = build_pool(
    table.drop(columns="target"),
    table["target"],
    seed=seed,
    select_fraction=cfg["split"]["select"],
    test_fraction=cfg["split"]["test"],
    timing_repeats=repeats,
    member_features=features,
)
key = pool_key(snakemake.wildcards.kn_data, seed, cfg["split"], features)
write_csv(measured_costs(pool, key, repeats), snakemake.output[0])
