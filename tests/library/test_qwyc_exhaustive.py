"""The exhaustive ordering search (ensemble_repro.qwyc.exhaustive) against a naive reference
over every permutation, its error messages, and the approximation job on a small GBT."""

import itertools

import numpy as np
import pytest

from ensemble_repro.qwyc import QuitWhenYouCan
from ensemble_repro.qwyc.exhaustive import (
    approximation_ratio,
    exhaustive_order,
    order_cost,
)


def _naive_cost(base, F, order, beta=0.0, costs=None):
    """Problem (2)'s objective at alpha = 0 example by example: an alive example stops after
    a step when its partial score lies strictly below every alive full-positive example's or
    strictly above every alive full-negative example's (the zero-difference cuts)."""
    N, T = F.shape
    c = np.ones(T) if costs is None else np.asarray(costs, float)
    full = base + F.sum(axis=1) >= beta
    alive = set(range(N))
    g = np.full(N, float(base))
    total = 0.0
    for r, k in enumerate(order):
        total += c[k] * len(alive)
        for i in alive:
            g[i] += F[i, k]
        if r == T - 1:
            break
        pos = [g[i] for i in alive if full[i]]
        neg = [g[i] for i in alive if not full[i]]
        lo, hi = min(pos, default=np.inf), max(neg, default=-np.inf)
        alive = {i for i in alive if not (g[i] < lo or g[i] > hi)}
    return total / N


@pytest.mark.parametrize("seed", range(12))
def test_exhaustive_equals_the_naive_minimum_over_all_permutations(seed):
    rng = np.random.default_rng(seed)
    T = int(rng.integers(2, 6))
    F = rng.normal(size=(int(rng.integers(5, 40)), T)) * rng.uniform(0.2, 2.0, T)
    costs = rng.uniform(0.5, 3.0, T) if seed % 2 else None
    base = float(rng.normal(0, 0.5))
    naive = {p: _naive_cost(base, F, p, costs=costs) for p in itertools.permutations(range(T))}
    order, cost = exhaustive_order(base, F, costs=costs)
    assert cost == pytest.approx(min(naive.values()), abs=1e-12)
    assert naive[tuple(order.tolist())] == pytest.approx(cost, abs=1e-12)
    for p in list(naive)[:6]:
        assert order_cost(base, F, p, costs=costs) == pytest.approx(naive[p], abs=1e-12)


def test_greedy_is_never_below_the_optimum_and_is_sometimes_above():
    """The ratio is >= 1 on every instance and the search finds orderings strictly better
    than the greedy's on some (else the check could not tell greedy from optimal)."""
    rng = np.random.default_rng(3)
    ratios = [approximation_ratio(0.0, rng.normal(size=(40, 5)))[2] for _ in range(30)]
    assert min(ratios) >= 1.0 - 1e-12
    assert max(ratios) > 1.0


def test_approximation_ratio_uses_qwycs_own_greedy_order():
    F = np.random.default_rng(7).normal(size=(50, 4))
    greedy, optimum, ratio = approximation_ratio(0.2, F)
    q = QuitWhenYouCan(alpha=0.0).fit_scores(0.2, F)
    assert greedy == pytest.approx(q.evaluate(F)[1].mean())
    assert ratio == pytest.approx(greedy / optimum)


@pytest.mark.parametrize(
    ("F", "kwargs", "message"),
    [
        (np.zeros((3, 9)), {}, "F must hold 2 to 8 models (columns) for an exhaustive search"),
        (np.zeros((3, 1)), {}, "got 1: use fewer models"),
        (np.zeros((0, 3)), {}, "F must be a non-empty 2-D array (examples x models); got (0, 3)"),
        (np.zeros((3, 3)), {"costs": [1, 0, 1]}, "costs must be None or 3 finite numbers > 0"),
    ],
)
def test_exhaustive_rejects_bad_input(F, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        exhaustive_order(0.0, F, **kwargs)


def test_order_cost_rejects_an_order_that_is_not_a_permutation():
    with pytest.raises(ValueError, match=r"order must be a permutation of 0..2; got"):
        order_cost(0.0, np.zeros((2, 3)), [0, 0, 1])
