"""results/claims.csv, results/paper_vs_ours.{md,html} and the report's verdict summary."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.build import write_verdicts  # noqa: E402

o = snakemake.output
write_verdicts(
    snakemake.params.paper_files, o.claims, o.md, o.html, o.rst, forests=snakemake.input.forests
)
