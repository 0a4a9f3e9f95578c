from ensemble_repro.logs import setup_logging
from ensemble_repro.report import OutputPattern, build_index

setup_logging(snakemake.log[0])
patterns = [OutputPattern(**row) for row in snakemake.params.catalogue]
build_index(
    "results",
    patterns,
    snakemake.params.papers,
    snakemake.output[0],
)
