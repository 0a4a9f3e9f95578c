# Figure 1 (accuracy and % differences vs mean # base models) and its table for one data set.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.qwyc import cells, report  # noqa: E402

inp, out, p = snakemake.input, snakemake.output, snakemake.params
points = cells.tradeoff_table(pd.concat([pd.read_csv(f) for f in inp.sweeps], ignore_index=True))
report.write_table(points, out.csv, out.md, "Figure 1 points (test split)", p.cfg, inp.meta)
report.plot_figure1(
    points, pd.read_csv(inp.smaller), snakemake.wildcards.qwyc_data, out.pdf, out.png
)
