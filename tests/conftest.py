"""Shared fixtures, and the test tiers (the markers are described in pyproject.toml).

- ``data``: set here on every test that uses the ``mirror`` fixture and on every ``workflow``
  test; without the mirror such a test is skipped with the reason.
- ``workflow``: set by hand on each test that runs Snakemake. ``workflow_helpers.workflow_env``,
  which every Snakemake call of the tests goes through, refuses a test without it, so the
  tier without workflow runs (``make unit``) cannot start one by accident.
"""

import shutil
import time
from pathlib import Path

import pytest
import workflow_helpers

#: Imported by the fork server of workflow_helpers.run, never as a test module; the toy plug-in
#: paper, imported by the workflow that registers it (its scripts run inside Snakemake jobs).
collect_ignore = ["snakemake_preload.py", "papers/toy"]


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if "mirror" in getattr(item, "fixturenames", ()) or item.get_closest_marker("workflow"):
            item.add_marker(pytest.mark.data)


def _background_runs(item) -> dict:
    """The session's long runs (fixture name -> function) that ``item`` waits for: this file's
    and those its module lists in ``BACKGROUND_RUNS``."""
    runs = {**BACKGROUND_RUNS, **getattr(getattr(item, "module", None), "BACKGROUND_RUNS", {})}
    return {name: fn for name, fn in runs.items() if name in getattr(item, "fixturenames", ())}


def pytest_collection_finish(session):
    """Start the selected tests' background runs (workflow_helpers.start_background). Modules
    that wait for one, or use the test cluster, run last (each module's tests together and in
    order), so the rest of the suite overlaps those runs."""
    if session.config.option.collectonly:
        return
    runs, late = {}, set()
    for item in session.items:
        waits = _background_runs(item)
        runs.update(waits)
        if waits or item.get_closest_marker("cluster"):
            late.add(item.module)
    session.items.sort(key=lambda item: getattr(item, "module", None) in late)
    if runs and not workflow_helpers.mirror_missing():  # else their tests skip
        workflow_helpers.start_background(runs)


def pytest_sessionfinish(session):
    """A session that ends early (``-x``, a failure in a fixture) stops the background runs
    still going, with every process they started, before their directories go."""
    workflow_helpers.stop_background()
    for path in workflow_helpers.SCRATCH:
        shutil.rmtree(path, ignore_errors=True)


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


def _smoke_cores2() -> Path:
    work = workflow_helpers.scratch_dir("smoke-cores2")
    start = time.perf_counter()
    proc = workflow_helpers.run_snakemake(work, cores=2)
    assert proc.returncode == 0, proc.stdout[-5000:]
    print(f"smoke run (--cores 2) took {time.perf_counter() - start:.1f} s")
    return work


#: Long runs that start with the session when a selected test needs them.
BACKGROUND_RUNS = {"smoke_cores2": _smoke_cores2}


@pytest.fixture(scope="session")
def smoke_cores2() -> Path:
    """One full smoke run with --cores 2, shared by every test that only reads its outputs
    (started in the background with the session).

    Tests run in it only what leaves its result tables as they are (dry runs, the report);
    tests that change them work on a copy.
    """
    return workflow_helpers.background("smoke_cores2", _smoke_cores2)
