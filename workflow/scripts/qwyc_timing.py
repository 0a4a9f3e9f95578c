# Per-example evaluation time of the full ensemble, Fan* and QWYC* (Tables 2-4 style) on every
# distinct fit, and the per-run times.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.qwyc import cells, report  # noqa: E402

inp, out, cfg = snakemake.input, snakemake.output, snakemake.params.cfg
sweeps = pd.concat([pd.read_csv(f) for f in inp.sweeps], ignore_index=True)
df, runs = cells.timing_job(
    cells.load_arrays(inp.arrays), sweeps, snakemake.wildcards.qwyc_data, cfg["qwyc"], cfg["seed"]
)
report.write_table(df, out.csv, out.md, "Per-example evaluation time", cfg, inp.meta)
report.write_table(
    runs, out.runs, out.runs_md, "Per-example evaluation time per timing run", cfg, inp.meta
)
