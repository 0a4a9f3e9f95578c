"""Shared fixtures, and the test tiers (the markers are described in pyproject.toml).

- ``data``: set here on every test that uses the ``mirror`` fixture and on every ``workflow``
  test; without the mirror such a test is skipped with the reason.
- ``workflow``: set by hand on each test that runs Snakemake. ``workflow_helpers.workflow_env``,
  which every Snakemake call of the tests goes through, refuses a test without it, so the
  tier without workflow runs (``make unit``) cannot start one by accident.
"""

import time
from pathlib import Path

import pytest
import workflow_helpers

#: Imported by the fork server of workflow_helpers.run, never as a test module.
collect_ignore = ["snakemake_preload.py"]


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if "mirror" in getattr(item, "fixturenames", ()) or item.get_closest_marker("workflow"):
            item.add_marker(pytest.mark.data)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    workflow_helpers.CURRENT_TEST = item
    if item.get_closest_marker("data"):
        missing = workflow_helpers.mirror_missing()
        if missing:
            pytest.skip(missing)


def pytest_runtest_teardown(item):
    workflow_helpers.CURRENT_TEST = None


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline raw-data mirror (``workflow_helpers.mirror_dir``)."""
    missing = workflow_helpers.mirror_missing()
    if missing:
        pytest.skip(missing)
    return workflow_helpers.mirror_dir()


@pytest.fixture(scope="session")
def smoke_cores2(tmp_path_factory) -> Path:
    """One full smoke run with --cores 2, shared by every test that only reads its outputs.

    Tests run in it only what leaves its result tables as they are (dry runs, the report);
    tests that change them work on a copy.
    """
    work = tmp_path_factory.mktemp("smoke-cores2")
    start = time.perf_counter()
    proc = workflow_helpers.run_snakemake(work, cores=2)
    assert proc.returncode == 0, proc.stdout[-5000:]
    print(f"smoke run (--cores 2) took {time.perf_counter() - start:.1f} s")
    return work
