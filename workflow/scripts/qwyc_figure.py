# Figure 1 (accuracy and % differences vs mean # base models) of one fit and its table of every
# plotted point for one data set.
import pandas as pd

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.qwyc import cells, report  # noqa: E402

inp, out, p = snakemake.input, snakemake.output, snakemake.params
points = cells.tradeoff_table(pd.concat([pd.read_csv(f) for f in inp.sweeps], ignore_index=True))
table = cells.figure_table(points, pd.read_csv(inp.smaller))
report.write_table(table, out.csv, out.md, "Figure 1 points (test split, one fit)", p.cfg, inp.meta)
report.plot_figure1(table, snakemake.wildcards.qwyc_data, out.pdf, out.png)
