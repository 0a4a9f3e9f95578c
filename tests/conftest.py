"""Shared test fixtures (kept small and generic)."""

import os
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline raw-data mirror: $ENSEMBLE_REPRO_MIRROR, else ../shared/data beside the checkout."""
    env = os.environ.get("ENSEMBLE_REPRO_MIRROR")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    if not (path / "MANIFEST.tsv").is_file():
        pytest.fail(
            f"raw-data mirror not found at {path}: set ENSEMBLE_REPRO_MIRROR to a copy of ../shared/data"
        )
    return path


@pytest.fixture(scope="session")
def smoke_cores2(tmp_path_factory) -> Path:
    """One full smoke run with --cores 2, shared by the end-to-end and cluster tests."""
    from workflow_helpers import run_snakemake

    work = tmp_path_factory.mktemp("smoke-cores2")
    start = time.perf_counter()
    proc = run_snakemake(work, cores=2)
    assert proc.returncode == 0, proc.stdout[-5000:]
    print(f"smoke run (--cores 2) took {time.perf_counter() - start:.1f} s")
    return work
