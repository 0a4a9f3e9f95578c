# QWYC*, natural order and Fan* refitted with one [I] switch changed (e.g. fit_on: validation),
# with the per-test-row outcomes of the setting's main fit.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import write_parquet  # noqa: E402
from ensemble_repro.papers.qwyc import cells, report  # noqa: E402

wc, out, cfg = snakemake.wildcards, snakemake.output, snakemake.params.cfg
per_row = []
df = cells.sensitivity_job(
    cells.load_arrays(snakemake.input.arrays),
    wc.qwyc_data,
    wc.qwyc_setting,
    cfg["qwyc"],
    cfg["seed"],
    per_row,
)
provenance = {**cfg, "qwyc": cells.sensitivity_config(cfg["qwyc"], wc.qwyc_setting)}
report.write_table(
    df,
    out.csv,
    out.md,
    f"Figure 1 points with {wc.qwyc_setting} (test split)",
    provenance,
    snakemake.input.meta,
)
write_parquet(pd.concat(per_row, ignore_index=True), out.rows)
