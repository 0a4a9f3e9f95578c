"""One result table rendered as HTML for the Snakemake report."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.render import table_html  # noqa: E402

table_html(snakemake.input[0], snakemake.output[0])
