# GBT learning-rate search, final model, score matrices and smaller ensembles for one data set.
from pathlib import Path

from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])

from ensemble_repro.experiments import qwyc  # noqa: E402

out, p = snakemake.output, snakemake.params
results_dir = str(Path(snakemake.input.tables[0]).parent.parent)
search, smaller, arrays = qwyc.model_job(snakemake.wildcards.qwyc_data, p.qwyc, p.seed, results_dir)
qwyc.write_table(search, out.search, out.search_md, "GBT validation search", p.qwyc, p.seed,
                 snakemake.input.meta)
qwyc.write_table(smaller, out.smaller, out.smaller_md, "Smaller GBT ensembles, fully evaluated",
                 p.qwyc, p.seed, snakemake.input.meta)
qwyc.save_arrays(arrays, out.arrays)
