"""The session's background runs (workflow_helpers.start_background / background): a fixture
gets the run's value or its exception, and only a started run is waited for."""

import threading
import time

import pytest
import workflow_helpers
from workflow_helpers import background, start_background


def test_a_started_run_hands_its_value_once_and_runs_once():
    calls = []

    def run():
        calls.append(threading.current_thread().name)
        time.sleep(0.2)
        return 42

    start_background({"t-value": run})
    start_background({"t-value": run})  # a name starts once
    assert background("t-value", lambda: pytest.fail("started runs are not run again")) == 42
    assert background("t-value", lambda: 0) == 42
    assert calls == ["background-t-value"]


def test_a_started_run_raises_what_it_raised_skip_included():
    def boom():
        raise ValueError("bad run")

    def skip():
        pytest.skip("no cluster here")

    start_background({"t-error": boom, "t-skip": skip})
    with pytest.raises(ValueError, match="bad run"):
        background("t-error", lambda: 0)
    with pytest.raises(pytest.skip.Exception, match="no cluster here"):
        background("t-skip", lambda: 0)


def test_a_run_never_started_is_computed_where_it_is_asked_for():
    assert background("t-never-started", threading.current_thread) is threading.main_thread()


def test_only_a_background_thread_may_start_snakemake_outside_a_workflow_test():
    # this test is not marked workflow: in its own thread the guard refuses a run
    with pytest.raises(RuntimeError, match="is not marked workflow"):
        workflow_helpers.workflow_env()
    start_background({"t-env": workflow_helpers.workflow_env})
    assert "ENSEMBLE_REPRO_MIRROR" in background("t-env", dict)
