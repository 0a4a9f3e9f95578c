"""The library's public API: what ``__all__`` exports, and the first-call compile notice."""

import inspect
import os
import subprocess
import sys
import time

import pytest

from ensemble_repro import conformal, knapsack, qwyc
from ensemble_repro.conformal import kernels

HELPER_PREFIXES = ("check_", "warm_up_", "seed_", "resolve_", "parallel_", "_")


@pytest.mark.parametrize("module", [conformal, qwyc, knapsack], ids=lambda m: m.__name__)
def test_all_lists_only_documented_public_names(module):
    helpers = [n for n in module.__all__ if n.startswith(HELPER_PREFIXES)]
    assert helpers == [], f"{module.__name__}.__all__ exports helpers: {helpers}"
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            doc = inspect.getdoc(obj) or ""
            assert "Examples" in doc or "Parameters" in doc, f"{name}: no numpydoc docstring"


def test_conformal_all_is_the_estimators_and_the_numeric_core():
    assert set(conformal.__all__) >= {
        "JackknifePlus",
        "JackknifePlusAfterBootstrap",
        "JackknifePlusEnsemble",
        "jab_interval",
        "oob_aggregate",
    }
    assert len(conformal.__all__) == 24  # 39 before the helpers left


@pytest.fixture
def fresh_notice(monkeypatch):
    monkeypatch.setattr(kernels, "NOTICE_AFTER", 0.05)
    monkeypatch.setattr(kernels, "_called", set())
    monkeypatch.setattr(kernels, "_noticed", False)


def test_a_slow_first_kernel_call_says_compiling_once(fresh_notice, capsys):
    with kernels.first_call_notice("a"):
        time.sleep(0.5)
    with kernels.first_call_notice("b"):  # another kernel compiling: said already
        time.sleep(0.5)
    assert capsys.readouterr().err == kernels.COMPILE_NOTICE + "\n"


def test_a_fast_first_call_says_nothing(fresh_notice, capsys):
    with kernels.first_call_notice("a"):
        pass
    time.sleep(0.2)  # the cancelled timer would have fired by now
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_fresh_numba_cache_prints_the_notice_and_a_warm_one_does_not(tmp_path):
    code = (
        "import numpy as np; from ensemble_repro.conformal import oob_aggregate; "
        "oob_aggregate(np.arange(6.0).reshape(3, 2), np.eye(3, dtype=bool), 'median')"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def stderr():
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        return run.stderr

    assert stderr().count(kernels.COMPILE_NOTICE) == 1  # compiling into the empty cache
    assert kernels.COMPILE_NOTICE not in stderr()  # loading it
