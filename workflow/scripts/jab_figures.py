# Figures 1, 2, S1-S10 of the J+aB paper.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments.jab_report import write_figures  # noqa: E402

write_figures(snakemake.input, snakemake.output, jab_cfg=snakemake.params.jab,
              missing=snakemake.params.missing, figures=snakemake.params.figures)
