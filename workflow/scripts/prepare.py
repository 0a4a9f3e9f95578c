"""Rule prepare: raw files -> results/data/{name}.parquet + .json (recipes in ensemble_repro.data)."""

from ensemble_repro.data import prepare
from ensemble_repro.logs import get_logger, setup_logging

setup_logging(snakemake.log[0])
table = prepare(
    snakemake.wildcards.name,
    list(snakemake.input.raw),
    snakemake.output.table,
    snakemake.output.meta,
)
get_logger("data").info(
    "prepared %s: %d rows x %d features", snakemake.wildcards.name, *table.X.shape
)
