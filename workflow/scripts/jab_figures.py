# One of Figures 1, 2, S1-S10 of the J+aB paper.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.jab.report import write_figures  # noqa: E402

inp, out, p = snakemake.input, snakemake.output, snakemake.params
figures = {p.figure: (out.pdf, out.png)}
write_figures(inp.main, inp.jplus, inp.fvr, figures, jab_cfg=p.cfg["jab"], missing=p.missing)
