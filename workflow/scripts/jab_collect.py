# Tidy J+aB result tables from the per-job parquet files, with provenance sidecars.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments.jab_report import write_collected  # noqa: E402

write_collected(snakemake.input, snakemake.output, jab_cfg=snakemake.params.jab,
                seed=snakemake.params.seed)
