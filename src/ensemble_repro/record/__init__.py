"""The run of record: a run's small outputs published into the repository, and back.

``publish`` copies what a reader needs to see and check a run (result tables and their HTML
renderings, verdict pages, PNG figures, provenance sidecars, benchmark files, the J+aB per-cell
tables and the Snakemake report) from ``results/`` into a record folder such as
``record/paper/``, mirroring ``results/``'s layout, within a size budget and atomically;
``restore`` copies the J+aB cells and their benchmark files back so that a rerun of the same
config resumes instead of recomputing them. ``runmd`` writes the record's ``RUN.md`` (commits,
config, machine, dates, measured against estimated cost); ``readme`` writes the paper-scale
verdict table between the markers of ``README.md``; ``report`` builds the Snakemake report from
the record's files alone. Each of them reads a record's files only after checking them against
its manifest (:mod:`ensemble_repro.record.manifest`). ``python -m ensemble_repro.record --help``
lists the commands.
"""

from .files import (
    CELL_PATTERNS,
    EXCLUDED_DIRS,
    MAX_FILE_BYTES,
    PUBLISHED_PATTERNS,
    RECORD_BUDGET_BYTES,
    REPORT_NAME,
    RESTORED_PATTERNS,
    TOUCH_PENDING,
    collect,
    machine_facts,
    publish,
    report_of_record,
    restore,
)
from .manifest import (
    CONFIG_NAME,
    MANIFEST,
    NOTES_NAME,
    RecordError,
    check_record,
    checked,
    read_manifest,
)
from .readme import README_BEGIN, README_END, readme_block, update_readme
from .runmd import RUN_MD, run_md, write_run_md

__all__ = [
    "CELL_PATTERNS",
    "CONFIG_NAME",
    "EXCLUDED_DIRS",
    "MANIFEST",
    "MAX_FILE_BYTES",
    "NOTES_NAME",
    "PUBLISHED_PATTERNS",
    "README_BEGIN",
    "README_END",
    "RECORD_BUDGET_BYTES",
    "REPORT_NAME",
    "RESTORED_PATTERNS",
    "RUN_MD",
    "TOUCH_PENDING",
    "RecordError",
    "check_record",
    "checked",
    "collect",
    "machine_facts",
    "publish",
    "read_manifest",
    "readme_block",
    "report_of_record",
    "restore",
    "run_md",
    "update_readme",
    "write_run_md",
]
