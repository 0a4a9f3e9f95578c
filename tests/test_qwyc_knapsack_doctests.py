"""The Examples sections of ensemble_repro.qwyc and ensemble_repro.knapsack run (issue 13).

Same as ``pytest --doctest-modules src/ensemble_repro/qwyc src/ensemble_repro/knapsack``,
but part of the ordinary suite whatever pytest's options.
"""

import doctest
import importlib
import warnings

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
def test_examples_run(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. MLP convergence in the pool
        result = doctest.testmod(importlib.import_module(name), verbose=False)
    assert result.attempted > 0, f"{name} has no Examples"
    assert result.failed == 0
