"""results/toy/claims.csv: the verdict on the toy's claim."""

import ensemble_repro.paper_loader  # noqa: F401 (imports the plug-ins in use)
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])  # noqa: F821 (Snakemake sets it)

from ensemble_repro_plugins.toy.experiment import write_claims  # noqa: E402

from ensemble_repro.claims.claim import run_scale  # noqa: E402

write_claims(snakemake.input[0], snakemake.output[0], run_scale("toy"))  # noqa: F821
