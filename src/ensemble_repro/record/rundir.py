"""A record seen as a run directory: Snakemake and the estimate read it as a run's results."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Where the run's outputs live in a run directory (the record mirrors this folder).
RESULTS_DIR = "results"


@contextmanager
def record_as_run(record: str | os.PathLike) -> Iterator[Path]:
    """A temporary run directory whose ``results`` is the record (a link, nothing copied)."""
    with tempfile.TemporaryDirectory(prefix="record-run-") as tmp:
        root = Path(tmp)
        os.symlink(Path(record).resolve(), root / RESULTS_DIR)
        yield root
