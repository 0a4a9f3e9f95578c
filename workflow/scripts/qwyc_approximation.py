# QWYC's greedy ordering against the best of all orderings on small ensembles of the main fit.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.qwyc import cells, report  # noqa: E402

inp, out, cfg = snakemake.input, snakemake.output, snakemake.params.cfg
df = cells.approximation_job(
    cells.load_arrays(inp.arrays), snakemake.wildcards.qwyc_data, cfg["qwyc"], cfg["seed"]
)
report.write_table(
    df, out.csv, out.md, "QWYC's greedy ordering against all orderings", cfg, inp.meta
)
