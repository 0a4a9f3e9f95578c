"""results/figures/forest_<paper>.{pdf,png}: the paper's verdicts as a forest plot."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.forest import forest_plot  # noqa: E402
from ensemble_repro.claims.table import read_claims  # noqa: E402

forest_plot(
    read_claims(snakemake.input[0]),
    snakemake.wildcards.paper,
    snakemake.output.pdf,
    snakemake.output.png,
)
