"""Imported once by the fork server that starts the tests' Snakemake runs
(``workflow_helpers.run_snakemake``): the modules a run of the workflow imports (from
``python -X importtime -m snakemake -n``), so that each forked run finds them imported.

A name that fails to import is left out: the run then imports it itself, as a new interpreter
would.
"""

import importlib

MODULES = [
    "snakemake.cli",
    "snakemake.api",
    "snakemake.profiles",
    "snakemake.storage",
    "snakemake.report.html_reporter",
    "snakemake.workflow",
    "snakemake.dag",
    "snakemake.jobs",
    "snakemake.persistence",
    "smart_open",
    "nbformat",
    "graphlib",
    "pandas",
    "pyarrow.parquet",
    "jsonschema",
    "ensemble_repro.config",
    "ensemble_repro.data",
    "ensemble_repro.papers",
    "ensemble_repro.rule_keys",
    "ensemble_repro.claims.forest",
    "ensemble_repro.claims.claim",
    "ensemble_repro.cluster",
    "ensemble_repro.estimate",
]

for _name in MODULES:
    try:
        importlib.import_module(_name)
    except Exception:  # noqa: BLE001 - any failure: the forked run imports it itself
        pass
