# GBT learning-rate search, final model, score matrices and smaller ensembles for one data set.
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.data import prepared_names_for  # noqa: E402
from ensemble_repro.papers.qwyc import cells, report  # noqa: E402

inp, out, p = snakemake.input, snakemake.output, snakemake.params
dataset = snakemake.wildcards.qwyc_data
search, smaller, arrays = cells.model_job(
    dataset, p.cfg["qwyc"], p.cfg["seed"], {n: inp[n] for n in prepared_names_for([dataset])}
)
report.write_table(search, out.search, out.search_md, "GBT validation search", p.cfg, inp.meta)
report.write_table(
    smaller, out.smaller, out.smaller_md, "Smaller GBT ensembles, fully evaluated", p.cfg, inp.meta
)
cells.save_arrays(arrays, out.arrays)
