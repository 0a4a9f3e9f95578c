from ensemble_repro.logs import setup_logging
from ensemble_repro.report import gather_paper_vs_ours

setup_logging(snakemake.log[0])
gather_paper_vs_ours(snakemake.params.papers, snakemake.output[0])
