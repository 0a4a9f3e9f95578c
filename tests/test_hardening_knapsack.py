"""Knapsack strategies: no call that never returns, parameters checked with their names,
extreme cost ratios handled."""

import math
import signal
import warnings

import numpy as np
import pytest

from ensemble_repro.knapsack import (
    StoppingRule,
    efficiency,
    greedy_backward,
    majority_vote_accuracy,
    monte_carlo,
    q_identical,
    simulated_annealing,
    stochastic_search,
)
from ensemble_repro.knapsack import strategies as strategies_module

P, T = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]


@pytest.fixture
def no_hang():
    """Fail (instead of hanging) when a call runs over 20 s."""

    def timeout(*_):
        raise TimeoutError("the call did not return within 20 s")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("strategy", [monte_carlo, stochastic_search])
def test_unbounded_search_refused(no_hang, strategy):
    """No maxstep and no rule, or a rule without its own MAXSTEP whose threshold cannot be
    reached (q <= 1): both would never return."""
    msg = r"maxstep=None needs a stopping rule with its own MAXSTEP"
    with pytest.raises(ValueError, match=msg):
        strategy(P, T, 4.0, maxstep=None, random_state=0)
    out_of_reach = StoppingRule("expected", 1.5, 3, 0.8, 0.01, 8.0, 2.0)
    with pytest.raises(ValueError, match=msg):
        strategy(P, T, 4.0, maxstep=None, stop=out_of_reach, random_state=0)


@pytest.mark.parametrize("strategy", [monte_carlo, stochastic_search])
def test_rule_maxstep_bounds_a_run_without_maxstep(no_hang, strategy):
    rule = StoppingRule("expected", 1.5, 3, 0.8, 0.01, 8.0, 2.0, maxstep=40)
    res = strategy(P, T, 4.0, maxstep=None, stop=rule, random_state=0)
    assert res.stopped_by == "maxstep" and res.steps == 40


def test_stop_must_be_a_rule():
    with pytest.raises(ValueError, match="stop must be a StoppingRule or None; got float"):
        monte_carlo(P, T, 4.0, stop=0.9)


@pytest.mark.parametrize("strategy", [monte_carlo, stochastic_search])
@pytest.mark.parametrize("batch", [0, -1, 2.5, "8", True])
def test_batch_must_be_a_positive_integer(no_hang, strategy, batch):
    with pytest.raises(ValueError, match=rf"batch must be a positive integer; got {batch!r}"):
        strategy(P, T, 4.0, maxstep=10, batch=batch, random_state=0)


@pytest.mark.parametrize("strategy", [monte_carlo, stochastic_search, simulated_annealing])
@pytest.mark.parametrize("maxstep", [0, 2.5, "10", True])
def test_maxstep_must_be_a_positive_integer(no_hang, strategy, maxstep):
    with pytest.raises(
        ValueError, match=rf"maxstep must be a positive integer or None; got {maxstep!r}"
    ):
        strategy(P, T, 4.0, maxstep=maxstep, random_state=0)


def test_integral_numpy_maxstep_and_batch_accepted():
    res = monte_carlo(P, T, 4.0, maxstep=np.int64(50), batch=np.int32(16), random_state=0)
    assert res.evaluations == 50


@pytest.mark.parametrize("budget", [None, "4", True])
def test_budget_must_be_a_number(budget):
    with pytest.raises(
        ValueError, match=rf"budget must be a positive finite total cost .*{budget!r}"
    ):
        monte_carlo(P, T, budget, maxstep=10)


def test_mask_of_the_wrong_shape_is_named():
    with pytest.raises(ValueError, match=r"mask must have p's shape \(5,\).*got shape \(3,\)"):
        majority_vote_accuracy(P, mask=[True, False, True])


@pytest.mark.parametrize("probe_moves", [-5, 2.5, "10"])
def test_probe_moves_checked(probe_moves):
    with pytest.raises(
        ValueError, match=rf"probe_moves must be a non-negative integer; got {probe_moves!r}"
    ):
        simulated_annealing(P, T, 4.0, probe_moves=probe_moves, maxstep=10)


def test_greedy_backward_warns_on_a_huge_pool(monkeypatch):
    """Quadratically many quadratic evaluations: the caller is told before the wait."""
    n = strategies_module.GREEDY_BACKWARD_WARN + 1
    p, t = np.full(n, 0.7), np.ones(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match=rf"on {n} affordable members makes O\(n²\)"):
            greedy_backward(p, t, 10.0)
    res = greedy_backward(p, t, 10.0, key="usefulness")  # linear passes: no warning
    assert res.cost <= 10.0


def test_efficiency_with_extreme_cost_ratios():
    """1e-19 beside 0.5: floor(1 / 1e-19) copies overflow int64; the cheap members must get
    the efficiency of very many copies (about 1 for p > 1/2, 0 for p < 1/2), not 0."""
    p = np.array([0.8, 0.4, 0.75])
    t = np.array([1e-19, 1e-19, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "invalid value encountered in cast"
        eff = efficiency(p, t, 1.0)
    # naive reference: the normal limit of P(Bin(m, p) > m/2) for m = 1e19 copies
    m = 10**19
    ref = [0.5 * math.erfc((m / 2 - m * q) / math.sqrt(2 * m * q * (1 - q))) for q in p[:2]]
    assert eff[:2] == pytest.approx(ref, abs=1e-12)
    assert eff[2] == pytest.approx(q_identical(2, 0.75))
    res = stochastic_search(p, t, 1.0, maxstep=20, random_state=0)
    assert 0 in res.members
