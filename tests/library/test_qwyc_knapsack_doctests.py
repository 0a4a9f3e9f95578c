"""The Examples sections of ensemble_repro.qwyc and ensemble_repro.knapsack exist and run.

They run once, as the suite's doctests (``--doctest-modules`` over ``src/ensemble_repro``, set
in pyproject.toml); this file checks that each module has Examples and that the suite's
configuration collects them.
"""

import doctest
import importlib

import pytest

MODULES = (
    ["ensemble_repro.rng"]
    + [
        f"ensemble_repro.qwyc.{m}"
        for m in ("cascade", "estimators", "orderings", "thresholds", "timing", "trees")
    ]
    + [f"ensemble_repro.knapsack.{m}" for m in ("beta", "energy", "pools", "strategies")]
)


@pytest.mark.parametrize("name", MODULES)
def test_module_has_examples(name):
    found = doctest.DocTestFinder().find(importlib.import_module(name))
    assert sum(len(t.examples) for t in found) > 0, f"{name} has no Examples"


def test_the_suite_runs_the_library_doctests(pytestconfig):
    assert pytestconfig.getoption("doctestmodules"), "pyproject.toml addopts: --doctest-modules"
    assert "src/ensemble_repro" in pytestconfig.getini("testpaths")
