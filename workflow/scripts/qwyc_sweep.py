# One early-stopping method over its alpha (QWYC) or gamma (Fan) grid on one data set.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments import qwyc  # noqa: E402
from ensemble_repro.io import write_csv  # noqa: E402

wc, cfg = snakemake.wildcards, snakemake.params.cfg
df = qwyc.sweep_job(
    qwyc.load_arrays(snakemake.input.arrays), wc.qwyc_data, wc.qwyc_method, cfg["qwyc"], cfg["seed"]
)
write_csv(df, snakemake.output[0])
