"""Raw data: catalog of original files, fetching with checksums, recipes, loading.

Public API (used by workflow/rules/common.smk and data.smk, and by the experiment code):
``DataError``, ``prepared_names_for``, ``preflight``, ``fetch_raw``, ``prepare``, ``load``.
"""

from .catalog import DATASETS, RAW_FILES, DataError, prepared_names_for
from .fetch import fetch_raw
from .preflight import DataPlan, preflight
from .recipes import load, prepare

__all__ = [
    "DATASETS",
    "RAW_FILES",
    "DataError",
    "DataPlan",
    "fetch_raw",
    "load",
    "preflight",
    "prepare",
    "prepared_names_for",
]
