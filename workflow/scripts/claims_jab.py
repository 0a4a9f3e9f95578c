"""results/jab/claims.csv and paper_vs_ours.md: verdicts on the J+aB claims
(ensemble_repro.papers.jab.claims)."""

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.claims.claim import run_scale  # noqa: E402
from ensemble_repro.papers.jab.claims import write_claims  # noqa: E402

p = snakemake.params
write_claims(
    snakemake.input.main,
    snakemake.input.jplus,
    snakemake.input.fvr,
    snakemake.input.wor,
    snakemake.output.claims,
    jab_cfg=p.cfg["jab"],
    missing=p.missing,
    scale=run_scale("jab"),
    seed=p.cfg["seed"],
    page=snakemake.output.page,
)
