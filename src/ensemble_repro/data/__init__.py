"""Raw data: registry of original files, fetching with checksums, recipes, loading.

Public API (used by workflow/rules/common.smk and data.smk, and by the experiment code):
``DataError``, ``prepared_names_for``, ``preflight``, ``fetch_raw``, ``prepare``, ``load``.
"""

from .fetch import fetch_raw
from .preflight import DataPlan, preflight
from .recipes import load, prepare
from .registry import DATASETS, RAW_FILES, DataError, prepared_names_for

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
