# Tables S1-S3 (wall clock) and results/jab/paper_vs_ours.md.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments.jab_report import write_tables  # noqa: E402

write_tables(snakemake.input, snakemake.output, jab_cfg=snakemake.params.jab,
             seed=snakemake.params.seed, missing=snakemake.params.missing)
