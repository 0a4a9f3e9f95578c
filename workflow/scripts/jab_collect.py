# Tidy J+aB result tables from the per-job parquet files, with provenance sidecars.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.jab.report import write_collected  # noqa: E402

inp, out = snakemake.input, snakemake.output
write_collected(
    {k: inp[k] for k in ("main", "jplus", "fvr", "wor")},
    {k: out[k] for k in ("main", "jplus", "fvr", "wor")},
    params=snakemake.params.cfg,
    meta=inp.meta,
)
