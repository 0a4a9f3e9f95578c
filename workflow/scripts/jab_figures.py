# Figures 1, 2, S1-S10 of the J+aB paper (those the config draws).
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.jab.report import write_figures  # noqa: E402

inp, out, p = snakemake.input, snakemake.output, snakemake.params
figures = {fid: (out[f"{stem}_pdf"], out[f"{stem}_png"]) for fid, stem in p.figures.items()}
write_figures(inp.main, inp.jplus, inp.fvr, figures, jab_cfg=p.cfg["jab"], missing=p.missing)
