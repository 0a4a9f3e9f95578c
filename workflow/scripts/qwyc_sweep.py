# One early-stopping method over its alpha (QWYC) or gamma (Fan) grid on one data set, with the
# per-test-row outcomes of the main fit.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import write_csv, write_parquet  # noqa: E402
from ensemble_repro.papers.qwyc import cells  # noqa: E402

wc, cfg, out = snakemake.wildcards, snakemake.params.cfg, snakemake.output
per_row = []
df = cells.sweep_job(
    cells.load_arrays(snakemake.input.arrays),
    wc.qwyc_data,
    wc.qwyc_method,
    cfg["qwyc"],
    cfg["seed"],
    per_row,
)
write_csv(df, out.csv)
write_parquet(pd.concat(per_row, ignore_index=True), out.rows)
