"""results/toy/draws.csv: the toy's draws."""

import ensemble_repro.paper_loader  # noqa: F401 (imports the plug-ins in use)
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])  # noqa: F821 (Snakemake sets it)

from ensemble_repro_plugins.toy.experiment import write_draws  # noqa: E402

write_draws(snakemake.output[0], snakemake.params.cfg)  # noqa: F821
