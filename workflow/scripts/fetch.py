"""Rule fetch: one raw file into resources/raw/{group}/{filename}, sha256-checked."""

from ensemble_repro.data import fetch_raw
from ensemble_repro.logs import setup_logging

setup_logging(snakemake.log[0])
fetch_raw(snakemake.wildcards.group, snakemake.wildcards.filename, snakemake.config["data"],
          snakemake.output[0])
