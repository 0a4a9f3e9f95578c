"""results/qwyc/claims.csv: verdicts on the QWYC claims (ensemble_repro.papers.qwyc.claims)."""

from ensemble_repro.logs import setup_logging

log = setup_logging(snakemake.log[0])
log.info("qwyc claims: reading the per-test-row tables and deciding each claim")

from ensemble_repro.claims.claim import run_scale  # noqa: E402
from ensemble_repro.papers.qwyc.claims import write_claims  # noqa: E402

i = snakemake.input
write_claims(
    i.rows,
    i.refits,
    i.approximation,
    i.timing,
    i.timing_runs,
    i.sensitivity,
    snakemake.output[0],
    qwyc_cfg=snakemake.params.cfg["qwyc"],
    scale=run_scale("qwyc"),
)
