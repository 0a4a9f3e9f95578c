"""Rule fetch: one raw file into resources/raw/{group}/{filename}, sha256-checked.

The transport settings (data.sources, mirror, base_url, timeout, retries) change no result, so
they come from the environment that common.smk sets, not from params (see rule_keys).
"""

import json
import os

from ensemble_repro.data import fetch_raw
from ensemble_repro.logs import setup_logging
from ensemble_repro.rule_keys import FETCH_SETTINGS_ENV

setup_logging(snakemake.log[0])
fetch_raw(
    snakemake.wildcards.group,
    snakemake.wildcards.filename,
    json.loads(os.environ[FETCH_SETTINGS_ENV]),
    snakemake.output[0],
)
