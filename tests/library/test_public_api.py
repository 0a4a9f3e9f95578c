"""The library's public API: what ``__all__`` exports, and the first-call compile notice."""

import inspect
import math
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from ensemble_repro import conformal, knapsack, qwyc
from ensemble_repro.conformal import (
    binomial_probability,
    draw_n_resamples,
    kernels,
    paper_n_resamples,
    quantile_ranks,
)
from ensemble_repro.knapsack import (
    correct_count_distribution,
    greedy_forward,
    majority_vote_accuracy,
    max_affordable,
    q_limits,
    q_moments,
    simulated_annealing,
    stirling_maxstep,
    stopping_rule,
)
from ensemble_repro.knapsack.pools import synthetic_pool
from ensemble_repro.qwyc import FanEarlyStopping, QuitWhenYouCan, never_stop, step_thresholds

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


# ----------------------------------------------------------------------
# Public parameters of the three libraries checked the scikit-learn way: a bad type or value
# gets a ValueError naming the argument and the value (it was an AttributeError, a TypeError
# from a comparison, a MemoryError, a ZeroDivisionError or a silently wrong result).
# ----------------------------------------------------------------------
P = np.array([0.7, 0.8, 0.6, 0.9, 0.75])
T = np.array([1.0, 2.0, 1.0, 3.0, 1.5])
F = np.random.default_rng(0).normal(size=(200, 8))


def _raises(call, message):
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        call()


# ---------------------------------------------------------------- knapsack
@pytest.mark.parametrize(
    "kw, message",
    [
        (
            {"stop": 0.9},
            "stop must be a StoppingRule or None; got float (build one with "
            "stopping_rule(p, t, budget))",
        ),
        ({"rho": "x"}, "rho must be a number in (0, 1); got 'x'"),
        ({"accept0": None}, "accept0 must be a number in (0, 1); got None"),
        ({"tmin_ratio": True}, "tmin_ratio must be a number in (0, 1); got True"),
        (
            {"moves_per_temp": True},
            "moves_per_temp must be a positive integer, 'budget' or None; got True",
        ),
    ],
)
def test_simulated_annealing_settings(kw, message):
    _raises(lambda: simulated_annealing(P, T, 4.0, random_state=0, maxstep=50, **kw), message)


def test_greedy_step_is_the_integer_1_or_2():
    _raises(lambda: greedy_forward(P, T, 4.0, step=True), "step must be 1 or 2; got True")


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"STOP": "x"}, "STOP must be a level in (0, 1); got 'x'"),
        ({"maxstep_floor": -1}, "maxstep_floor must be a positive integer or None; got -1"),
        ({"maxstep_cap": math.nan}, "maxstep_cap must be a positive integer or None; got nan"),
    ],
)
def test_stopping_rule_settings(kw, message):
    _raises(lambda: stopping_rule(P, T, 4.0, **kw), message)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: stirling_maxstep(math.inf, 5), "need integers 1 <= ell <= n; got n=inf, ell=5"),
        (
            lambda: stirling_maxstep(20, 5, floor=0),
            "floor must be a positive integer or None; got 0",
        ),
        (lambda: q_moments(math.inf, 2.0, 2.0), "ell must be a positive integer ensemble size"),
        (
            lambda: q_moments(5, math.inf, 2.0),
            "a and b must be positive finite Beta parameters; got a=inf, b=2.0",
        ),
        (
            lambda: q_limits("x", 2.0),
            "a and b must be positive finite Beta parameters; got a='x', b=2.0",
        ),
        (
            lambda: synthetic_pool(3, 18.0, math.inf),
            "a and b must be positive finite Beta parameters; got a=18.0, b=inf",
        ),
        (
            lambda: correct_count_distribution([1.5, 0.5]),
            "p must contain accuracies in [0, 1]; got values in [0.5, 1.5]",
        ),
        (lambda: max_affordable(T, math.nan), "budget must be a number (a total cost); got nan"),
    ],
)
def test_beta_model_and_energy_arguments(call, message):
    _raises(call, message)


def test_mask_of_member_indices_is_refused_not_read_as_flags():
    """[0, 2, 4] as a mask used to mean members 1, 2 and 4 (every non-zero is True)."""
    message = (
        "mask must hold one flag per member (booleans, or 0 and 1); got values [0, 2, 4]: to "
        "choose members by index idx, pass np.isin(np.arange(5), idx)"
    )
    _raises(lambda: majority_vote_accuracy(P, mask=[0, 2, 4, 0, 0]), message)
    _raises(lambda: correct_count_distribution(P, mask=[0, 2, 4, 0, 0]), message)
    flags = np.isin(np.arange(5), [0, 2, 4])
    assert majority_vote_accuracy(P, mask=flags) == majority_vote_accuracy(P[[0, 2, 4]])
    assert majority_vote_accuracy(P, mask=flags.astype(int)) == majority_vote_accuracy(P[flags])


# ---------------------------------------------------------------- QWYC
def test_qwyc_costs_that_are_not_numbers_are_named():
    _raises(
        lambda: QuitWhenYouCan(0.01, costs=["a"] * 8).fit_scores(0.0, F),
        "costs must be None or 8 positive numbers, one per base model (column of F); got ['a'",
    )


@pytest.mark.parametrize("estimator", [QuitWhenYouCan(0.01), FanEarlyStopping(1.0)])
def test_random_state_is_checked_even_where_unused(estimator):
    """The joint ordering and Fan's individual-MSE ordering draw nothing: a bad random_state
    was accepted; a RandomState is still not drawn from."""
    _raises(
        lambda: estimator.set_params(random_state="x").fit_scores(0.0, F),
        "random_state must be None, an int in [0, 2**32 - 1], a numpy RandomState or "
        "Generator; got 'x' of type str",
    )
    rs = np.random.RandomState(0)
    state = rs.get_state()[1].copy()
    estimator.set_params(random_state=rs).fit_scores(0.0, F)
    np.testing.assert_array_equal(rs.get_state()[1], state)


def test_fan_bins_beyond_the_rows_are_refused_before_allocating():
    """n_bins = 10**12 allocated 7 TiB of bin edges."""
    _raises(
        lambda: FanEarlyStopping(1.0, n_bins=10**12).fit_scores(0.0, F),
        "n_bins must be at most the 200 rows the cascade is fitted on (a bin holds rows; "
        "min_bin_count=5); got 1000000000000",
    )


@pytest.mark.parametrize(
    "kw, message",
    [
        (
            {"yhat": np.zeros(200, bool)},
            "yhat must hold one decision per example (column of S): shape (8,); got shape (200,)",
        ),
        ({"budget": 1.5}, "budget must be an integer (<= 0 allows no difference); got 1.5"),
        ({"rate": -1.0}, "rate must be None or a finite number >= 0; got -1.0"),
    ],
)
def test_step_thresholds_arguments(kw, message):
    """A yhat of the wrong length was read silently (thresholds from unrelated decisions)."""
    args = {"S": np.cumsum(F, axis=1), "yhat": np.zeros(8, bool), "budget": 3} | kw
    _raises(lambda: step_thresholds(**args), message)


def test_never_stop_arguments():
    _raises(
        lambda: never_stop(True),
        "T must be a positive integer (the number of base models); got True",
    )
    _raises(
        lambda: never_stop(3, math.nan),
        "beta must be a finite number (the decision threshold); got nan",
    )


# ---------------------------------------------------------------- J+aB
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: quantile_ranks(0, 0.1), "n must be a positive integer; got 0"),
        (lambda: quantile_ranks(19, 1.5), "alpha must be a number strictly between 0 and 1"),
        (
            lambda: quantile_ranks(19, [0.1]),
            "alpha must be one number strictly between 0 and 1; got [0.1]",
        ),
        (
            lambda: binomial_probability(9, 12, False),
            "m must be at most n + 1 = 10 without replacement (a subsample of the n + 1 "
            "points); got 12",
        ),
        (
            lambda: binomial_probability(9, 5, "False"),
            "replace must be True or False; got 'False'",
        ),
        (
            lambda: draw_n_resamples(-1, 9, 9, True, np.random.RandomState(0)),
            "n_resamples must be a positive integer; got -1",
        ),
        (
            lambda: paper_n_resamples(20, 1, 1, "loo"),
            "matched='loo' needs resamples that can miss a point of the n = 1",
        ),
        (lambda: paper_n_resamples(0, 9, 9, "fits"), "target must be a positive integer; got 0"),
    ],
)
def test_conformal_helpers(call, message):
    _raises(call, message)


def test_quantile_ranks_match_the_paper_formula():
    for n in (1, 9, 19, 99):
        for alpha in (0.05, 0.1, 0.3):
            assert quantile_ranks(n, alpha) == (
                math.floor(alpha * (n + 1) + 1e-9),
                math.ceil((1 - alpha) * (n + 1) - 1e-9),
            )
