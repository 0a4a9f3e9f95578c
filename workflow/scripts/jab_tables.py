# Tables S1-S3 (wall clock); the verdicts come from the claims rules (claims.smk).
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.papers.jab.names import jab_table_name  # noqa: E402
from ensemble_repro.papers.jab.report import write_tables  # noqa: E402

inp, out, p = snakemake.input, snakemake.output, snakemake.params
tables = {
    d: (out[f"{jab_table_name(d)}_csv"], out[f"{jab_table_name(d)}_md"])
    for d in p.cfg["jab"]["datasets"]
}
write_tables(
    inp.main,
    inp.jplus,
    tables,
    params=p.cfg,
    missing=p.missing,
    meta=inp.meta,
)
