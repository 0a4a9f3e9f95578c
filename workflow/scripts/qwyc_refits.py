# Bootstrap refits of ordering and thresholds on the fitting rows, the GBT held fixed; the
# smaller GBTs' per-test-row outcomes.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.io import write_parquet  # noqa: E402
from ensemble_repro.papers.qwyc import cells, report  # noqa: E402

inp, out, cfg = snakemake.input, snakemake.output, snakemake.params.cfg
arrays = cells.load_arrays(inp.arrays)
sweeps = pd.concat([pd.read_csv(f) for f in inp.sweeps], ignore_index=True)
df = cells.refit_job(arrays, sweeps, snakemake.wildcards.qwyc_data, cfg["qwyc"], cfg["seed"])
report.write_table(
    df, out.csv, out.md, "Bootstrap refits of ordering and thresholds", cfg, inp.meta
)
write_parquet(cells.smaller_rows(arrays, cfg["qwyc"]), out.smaller_rows)
