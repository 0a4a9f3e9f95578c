# Per-example evaluation time of the full ensemble, Fan* and QWYC* (Tables 2-4 style) on every
# distinct fit, and the per-run times.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments import qwyc, qwyc_report  # noqa: E402

inp, out, cfg = snakemake.input, snakemake.output, snakemake.params.cfg
sweeps = pd.concat([pd.read_csv(f) for f in inp.sweeps], ignore_index=True)
df, runs = qwyc.timing_job(
    qwyc.load_arrays(inp.arrays), sweeps, snakemake.wildcards.qwyc_data, cfg["qwyc"], cfg["seed"]
)
qwyc_report.write_table(df, out.csv, out.md, "Per-example evaluation time", cfg, inp.meta)
qwyc_report.write_table(
    runs, out.runs, out.runs_md, "Per-example evaluation time per timing run", cfg, inp.meta
)
