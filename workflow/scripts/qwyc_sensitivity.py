# QWYC*, natural order and Fan* refitted with one [I] switch changed (e.g. fit_on: validation).
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments import qwyc  # noqa: E402

wc, out, p = snakemake.wildcards, snakemake.output, snakemake.params
df = qwyc.sensitivity_job(qwyc.load_arrays(snakemake.input.arrays), wc.qwyc_data,
                          wc.qwyc_setting, p.qwyc, p.seed)
qwyc.write_table(df, out.csv, out.md, f"Figure 1 points with {wc.qwyc_setting} (test split)",
                 qwyc.sensitivity_config(p.qwyc, wc.qwyc_setting), p.seed, snakemake.input.meta)
