"""Shared test fixtures (kept small and generic)."""

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline raw-data mirror: $ENSEMBLE_REPRO_MIRROR, else ../shared/data beside the checkout."""
    env = os.environ.get("ENSEMBLE_REPRO_MIRROR")
    path = Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "data"
    if not (path / "MANIFEST.tsv").is_file():
        pytest.fail(f"raw-data mirror not found at {path}: set ENSEMBLE_REPRO_MIRROR to a copy of ../shared/data")
    return path
