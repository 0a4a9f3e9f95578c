"""Result tables rendered as HTML for the Snakemake report (inputs and outputs in one order)."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.render import table_html  # noqa: E402

for csv, html in zip(snakemake.input, snakemake.output, strict=True):
    table_html(csv, html)
