"""Knapsack ensemble selection (Hajdu et al. 2020): energy, Beta model, strategies."""

import itertools
import math
import signal
import warnings

import numpy as np
import pytest
from scipy import stats

from ensemble_repro.knapsack import (
    STRATEGIES,
    StoppingRule,
    efficiency,
    exhaustive,
    fit_beta,
    greedy_backward,
    greedy_forward,
    majority_vote_accuracy,
    monte_carlo,
    q_identical,
    q_moments,
    simulated_annealing,
    stochastic_search,
    stopping_rule,
)
from ensemble_repro.knapsack.energy import leave_one_out_accuracy
from ensemble_repro.knapsack.pools import synthetic_pool


def brute_force_q(p):
    """Eq. (1) by enumerating all 2^ℓ correctness outcomes (strict majority)."""
    p = np.asarray(p, dtype=float)
    total = 0.0
    for outcome in itertools.product([0, 1], repeat=p.size):
        o = np.array(outcome)
        if o.sum() > p.size / 2:
            total += np.prod(np.where(o == 1, p, 1 - p))
    return total


def brute_force_optimum(p, t, budget):
    best = 0.0
    for k in range(1, p.size + 1):
        for c in itertools.combinations(range(p.size), k):
            if t[list(c)].sum() <= budget:
                best = max(
                    best,
                    brute_force_q(p[list(c)]) if k <= 6 else majority_vote_accuracy(p[list(c)]),
                )
    return best


def random_pool(rng, n):
    p = rng.beta(6, 4, n)
    t = rng.lognormal(0.0, 1.0, n)
    return p, t, rng.uniform(0.15, 0.5) * t.sum()


# ---------------------------------------------------------------- known values (eqs. 1 and 5)
def test_known_values():
    assert majority_vote_accuracy([0.9, 0.6, 0.6]) == pytest.approx(0.792, abs=1e-12)
    assert majority_vote_accuracy([0.7] * 5) == pytest.approx(0.83692, abs=1e-12)
    assert q_identical(9, 0.6) == pytest.approx(0.733432, abs=1e-6)
    assert q_identical(3, 0.8) == pytest.approx(0.896, abs=1e-12)
    # With T_k = 9: (0.6, t=1) fits 9 copies, (0.8, t=3) fits 3 copies; (0.9, t=10) does not fit.
    np.testing.assert_allclose(
        efficiency([0.6, 0.8, 0.9], [1.0, 3.0, 10.0], 9.0), [0.733432, 0.896, 0.0], atol=1e-6
    )
    # 4 copies fit: the paper's maximal number scores q_4(0.8) = 0.8^4 + 4(0.8^3)(0.2) = 0.8192
    # (strict majority); the odd-only setting uses 3 copies.
    assert efficiency([0.8], [2.0], 8.5)[0] == pytest.approx(0.8192)
    assert efficiency([0.8], [2.0], 8.5, copies="odd")[0] == pytest.approx(0.896)


def test_paper_worked_example():
    p = np.array([0.510, 0.505, 0.505, 0.505, 0.505])
    values = [round(majority_vote_accuracy(p[:k]), 4) for k in (1, 3, 5)]
    assert values == [0.5100, 0.5100, 0.5112]
    for step in (1, 2):
        res = greedy_forward(p, np.ones(5), 5.0, key="accuracy", step=step)
        assert list(res.members) == [0]  # stuck at one member
    assert exhaustive(p, np.ones(5), 5.0).accuracy == pytest.approx(majority_vote_accuracy(p))


@pytest.mark.parametrize("ell", range(1, 13))
def test_majority_vote_matches_enumeration(ell):
    rng = np.random.default_rng(ell)
    p = rng.uniform(0, 1, ell)
    assert majority_vote_accuracy(p) == pytest.approx(brute_force_q(p), abs=1e-12)


def test_batch_with_masks_equals_one_by_one():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.3, 0.95, 9)
    masks = rng.random((40, 9)) < 0.5
    batch = majority_vote_accuracy(np.broadcast_to(p, masks.shape), masks)
    single = [majority_vote_accuracy(p[m]) for m in masks]
    np.testing.assert_allclose(batch, single, atol=1e-13)
    assert majority_vote_accuracy(np.array([])) == 0.0  # the empty ensemble
    # one accuracy row per ensemble, small ensembles of a large pool, an empty one
    p = rng.uniform(0.3, 0.95, (30, 60))
    masks = rng.random((30, 60)) < 0.1
    masks[0] = False
    batch = majority_vote_accuracy(p, masks)
    np.testing.assert_allclose(
        batch, [brute_force_q(r[m]) for r, m in zip(p, masks, strict=True)], atol=1e-13
    )
    assert batch[0] == 0.0


# ---------------------------------------------------------------- Beta model (section IV)
@pytest.mark.parametrize(
    "ell,a,b,mean,var",
    [
        (1, 8, 4, 0.666667, 0.017094),
        (3, 8, 4, 0.740741, 0.010247),
        (7, 8, 4, 0.826703, 0.005933),
        (11, 20, 10, 0.877915, 0.001500),
    ],
)
def test_q_moments_table(ell, a, b, mean, var):
    m, v = q_moments(ell, a, b)
    assert m == pytest.approx(mean, abs=1e-6)
    assert v == pytest.approx(var, abs=1e-6)


@pytest.mark.parametrize("ell,a,b", [(5, 8, 4), (9, 3, 3), (4, 10, 5)])
def test_q_moments_monte_carlo(ell, a, b):
    rng = np.random.default_rng(ell)
    q = majority_vote_accuracy(rng.beta(a, b, size=(40_000, ell)))
    m, v = q_moments(ell, a, b)
    assert abs(q.mean() - m) < 4 * np.sqrt(v / q.size)
    assert q.var() == pytest.approx(v, rel=0.05)


@pytest.mark.parametrize("method", ["moments", "mle"])
def test_fit_beta_recovers_parameters(method):
    p = np.random.default_rng(0).beta(8, 4, 20_000)
    a, b = fit_beta(p, method)
    assert a == pytest.approx(8, rel=0.05) and b == pytest.approx(4, rel=0.05)


def test_tail_threshold_is_matched_beta_quantile():
    rng = np.random.default_rng(1)
    p, t = rng.beta(8, 4, 40), np.ones(40)
    rule = stopping_rule(p, t, 7.0, rule="tail", STOP=0.05)
    assert rule.ell_T == 7
    k = rule.mean * (1 - rule.mean) / rule.var - 1
    assert stats.beta.sf(rule.threshold, rule.mean * k, (1 - rule.mean) * k) == pytest.approx(0.05)
    expected = stopping_rule(p, t, 7.0, rule="expected")
    assert expected.threshold == pytest.approx(q_moments(7, rule.a, rule.b)[0])
    assert expected.threshold < rule.threshold


# ---------------------------------------------------------------- strategies
@pytest.mark.parametrize("seed", range(12))
def test_exhaustive_equals_subset_enumeration(seed):
    rng = np.random.default_rng(100 + seed)
    n = 4 + seed % 9  # 4..12
    p, t, budget = random_pool(rng, n)
    res = exhaustive(p, t, budget)
    assert res.accuracy == pytest.approx(brute_force_optimum(p, t, budget), abs=1e-12)
    assert res.cost <= budget
    assert res.accuracy == pytest.approx(majority_vote_accuracy(p[res.members]), abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_exhaustive_equals_subset_enumeration_when_the_budget_binds(seed):
    """The paper's time profile (accurate members cost more) at budgets of 3-15 median costs:
    the bound that counts the budget left never prunes the optimum."""
    rng = np.random.default_rng(500 + seed)
    p = rng.beta(12, 4, 8 + seed % 5)  # 8..12 members
    t = rng.exponential(1 / (1 - p))
    for multiple in (3, 5, 9, 15):
        budget = multiple * float(np.median(t))
        res = exhaustive(p, t, budget)
        assert res.accuracy == pytest.approx(brute_force_optimum(p, t, budget), abs=1e-12)
        assert res.cost <= budget * (1 + 1e-12)


def test_exhaustive_bounds_subtrees_by_the_budget_left():
    """100 members at 15 median costs: a bound that ignores the budget left needs 311,066
    energies here, the budget-aware one about 3,100."""
    p, t = synthetic_pool(100, 12.0, 4.0, cost="time_profile", random_state=100)
    res = exhaustive(p, t, 15 * float(np.median(t)))
    assert res.evaluations < 30_000
    assert res.cost <= 15 * float(np.median(t)) * (1 + 1e-12)


def test_exhaustive_on_a_large_pool_that_the_budget_affords_stays_small():
    """400 members and a budget for 399: the bound's cost tables are made per start the search
    reaches (here one), not for all 400 starts up front (about 250 MB)."""
    import tracemalloc

    p = np.random.default_rng(0).beta(8, 4, 400)
    tracemalloc.start()
    try:
        res = exhaustive(p, np.ones(400), 399.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20, peak / 2**20
    # q saturates: the first odd size whose most accurate members reach it is kept
    assert res.accuracy == pytest.approx(majority_vote_accuracy(p[res.members]), abs=1e-12)
    assert set(res.members) == set(np.argsort(-p)[: res.members.size])


def test_search_reaches_optimum_on_small_pools():
    rng = np.random.default_rng(2020)
    hits = {"stochastic_search": 0, "simulated_annealing": 0}  # measured: 50/50 and 50/50
    for k in range(50):
        p, t, budget = random_pool(rng, 10)
        opt = exhaustive(p, t, budget).accuracy
        for name in hits:
            res = STRATEGIES[name](p, t, budget, random_state=k, maxstep=2000)
            assert res.cost <= budget * (1 + 1e-12)
            assert res.accuracy <= opt + 1e-12
            hits[name] += res.accuracy >= opt - 1e-12
    print("optimum-reaching rate over 50 pools:", {k: v / 50 for k, v in hits.items()})
    assert hits["stochastic_search"] >= 45 and hits["simulated_annealing"] >= 45


@pytest.mark.parametrize(
    "name",
    [
        "greedy_forward",
        "greedy_backward",
        "monte_carlo",
        "simulated_annealing",
        "stochastic_search",
    ],
)
def test_feasible_and_seeded(name):
    rng = np.random.default_rng(7)
    for _ in range(5):
        p, t, budget = random_pool(rng, 15)
        kw = {} if name.startswith("greedy") else {"maxstep": 500}
        a = STRATEGIES[name](p, t, budget, random_state=5, **kw)
        b = STRATEGIES[name](p, t, budget, random_state=5, **kw)
        assert a.cost <= budget * (1 + 1e-12) and t[a.members].sum() == pytest.approx(a.cost)
        assert np.array_equal(a.members, b.members) and a.evaluations == b.evaluations
        assert a.accuracy == pytest.approx(majority_vote_accuracy(p[a.members]))
        assert len(a.members) % 2 == 1  # drop_min keeps sizes odd
        assert np.all(np.diff(a.trace[:, 1]) > 0) and a.trace[-1, 1] == a.accuracy


@pytest.mark.parametrize("name", ["monte_carlo", "simulated_annealing", "stochastic_search"])
def test_stopping_rule_truncates_the_same_run(name):
    rng = np.random.default_rng(11)
    p, t = rng.beta(8, 4, 30), np.ones(30)
    rule = stopping_rule(p, t, 9.0, STOP=0.05)
    free = STRATEGIES[name](p, t, 9.0, random_state=3, maxstep=3000)
    stopped = STRATEGIES[name](p, t, 9.0, random_state=3, maxstep=3000, stop=rule)
    reach = free.trace[rule.reached(free.trace[:, 1])]
    if reach.size:  # the rule stops exactly where the free run first passed it
        assert stopped.stopped_by == "rule"
        assert stopped.evaluations == int(reach[0, 0])
        assert stopped.accuracy == reach[0, 1]
    else:
        assert stopped.evaluations == free.evaluations and stopped.stopped_by != "rule"
    assert free.steps == 3000  # constructions for stochastic_search, evaluations otherwise


def test_adversarial_pool_optimum_is_the_expensive_member():
    n, beta, eps = 10, 0.2, 0.01
    p = np.array([1 - beta] + [0.5 + eps] * (n - 1))
    t = np.array([1.0] + [1.0 / n] * (n - 1))
    assert list(exhaustive(p, t, 1.0).members) == [0]
    assert 0 not in greedy_forward(p, t, 1.0, key="usefulness").members
    assert 0 not in greedy_backward(p, t, 1.0, key="usefulness").members


@pytest.mark.parametrize("sampler", ["uniform_subset", "uniform_size", "bernoulli"])
def test_monte_carlo_samplers_feasible_and_use_the_whole_budget(sampler):
    rng = np.random.default_rng(17)
    for _ in range(5):
        p, t, budget = random_pool(rng, 12)
        res = monte_carlo(p, t, budget, random_state=1, sampler=sampler, maxstep=300)
        assert res.cost <= budget * (1 + 1e-12)  # over-budget draws are rejected
        assert res.evaluations == 300 and res.stopped_by == "maxstep"
        assert res.accuracy == pytest.approx(majority_vote_accuracy(p[res.members]))


def test_left_tail_rule_is_lower_quantile():
    rng = np.random.default_rng(1)
    p, t = rng.beta(8, 4, 40), np.ones(40)
    left = stopping_rule(p, t, 7.0, rule="left_tail", STOP=0.05)
    k = left.mean * (1 - left.mean) / left.var - 1
    assert stats.beta.cdf(left.threshold, left.mean * k, (1 - left.mean) * k) == pytest.approx(0.05)
    assert left.threshold < stopping_rule(p, t, 7.0, rule="expected").threshold
    normal = stopping_rule(p, t, 7.0, rule="left_tail", STOP=0.05, tail_law="normal")
    assert normal.threshold == pytest.approx(left.mean - stats.norm.isf(0.05) * np.sqrt(left.var))


def test_rule_reached_when_q_rounds_below_a_threshold_of_one():
    # Near-perfect pools (banknote): the matched-Beta quantile is 1.0 in floating point while
    # the DP gives q = 1 - O(1e-13); the rule must fire instead of running to MAXSTEP.
    from ensemble_repro.knapsack import StoppingRule

    rule = StoppingRule("tail", 1.0, 15, 1.0, 0.0, 1.0, 1.0)
    p, t = np.full(15, 0.99), np.ones(15)
    q = majority_vote_accuracy(p)
    assert 1 - 1e-12 < q < 1.0 and rule.reached(q) and not rule.reached(1 - 1e-9)
    res = simulated_annealing(
        p, t, 15.0, random_state=0, stop=rule, maxstep=500, init="greedy_forward"
    )
    assert res.stopped_by == "rule" and res.evaluations < 500


def test_pool_builds_with_more_features_than_rows_and_constant_columns():
    import warnings

    from ensemble_repro.knapsack.pools import build_pool

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 60))  # sonar-like: fewer rows per class than features
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    X[y == 0, 5] = 0.0  # spambase-like: constant within one class
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pool, correct = build_pool(X, y, seed=1)
    assert len(pool) == 31 and correct.shape == (20, 31)
    assert pool["p"].between(0, 1).all() and (pool["flops"] > 0).all()


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize(
    "p,t,budget,match",
    [
        ([0.6, 1.2], [1.0, 1.0], 2.0, "p must contain accuracies in \\[0, 1\\]"),
        ([0.6, -0.1], [1.0, 1.0], 2.0, "p must contain accuracies"),
        ([0.6, 0.7], [1.0, 0.0], 2.0, "t must contain positive finite costs"),
        ([0.6, 0.7], [1.0, -2.0], 2.0, "t must contain positive"),
        ([0.6, 0.7], [1.0, 2.0], 0.5, "budget must be at least the cheapest"),
        ([0.6, 0.7], [1.0, 2.0, 3.0], 2.0, "t must have one cost per member"),
        ([], [], 1.0, "p must be a non-empty 1-D array"),
    ],
)
def test_bad_input(name, p, t, budget, match):
    with pytest.raises(ValueError, match=match):
        STRATEGIES[name](p, t, budget, random_state=0)


def test_bad_model_input():
    with pytest.raises(ValueError, match="p must contain accuracies"):
        majority_vote_accuracy([0.5, 1.5])
    with pytest.raises(ValueError, match="ell must be a positive integer"):
        q_moments(0, 2, 2)
    with pytest.raises(ValueError, match="a and b must be positive"):
        q_moments(3, -1, 2)
    with pytest.raises(ValueError, match="method must be"):
        fit_beta([0.5, 0.6], "median")
    with pytest.raises(ValueError, match="STOP must be a level"):
        stopping_rule([0.6, 0.7, 0.8], [1, 1, 1], 2.0, STOP=1.5)
    with pytest.raises(ValueError, match="sampler must be"):
        monte_carlo([0.6, 0.7], [1, 1], 2.0, sampler="grid")
    with pytest.raises(ValueError, match="init must be"):
        simulated_annealing([0.6, 0.7], [1, 1], 2.0, init="random")
    with pytest.raises(ValueError, match="evaluate must be"):
        stochastic_search([0.6, 0.7], [1, 1], 2.0, evaluate="all")


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize(
    "p,t,match",
    [
        (
            [0.6, np.nan, 0.9],
            [1.0, 1.0, 1.0],
            r"p must contain accuracies in \[0, 1\]; got NaN at "
            "index 1",
        ),
        (
            [0.6, 0.7, 0.9],
            [np.nan, 1.0, 1.0],
            "t must contain positive finite costs; got NaN at ind",
        ),
        (
            [0.6, 0.7, 0.9],
            [1.0, np.inf, 1.0],
            "t must contain positive finite costs; got inf at ind",
        ),
    ],
)
def test_nan_is_named(name, p, t, match):
    with pytest.raises(ValueError, match=match):
        STRATEGIES[name](p, t, 2.0)


def test_nan_is_named_by_the_model_functions():
    with pytest.raises(ValueError, match=r"p must contain accuracies.*got NaN at index \(1, 0\)"):
        majority_vote_accuracy([[0.6, 0.7, 0.8], [np.nan, 0.6, 0.6]])
    with pytest.raises(ValueError, match="p must contain accuracies.*got NaN at index 2"):
        fit_beta([0.6, 0.7, np.nan])
    with pytest.raises(ValueError, match="t must contain positive finite costs; got NaN at index"):
        stopping_rule([0.6, 0.7, 0.8], [1.0, np.nan, 1.0], 2.0)


@pytest.mark.parametrize("name", ["monte_carlo", "simulated_annealing", "stochastic_search"])
def test_random_state_follows_sklearn(name):
    rng = np.random.default_rng(9)
    p, t, budget = random_pool(rng, 12)

    def run(rs):
        res = STRATEGIES[name](p, t, budget, random_state=rs, maxstep=300)
        return tuple(res.members), res.evaluations, res.trace.tobytes()

    # an int seeds default_rng(int), as the former seed=int did: pipeline results unchanged
    assert run(4) == run(np.random.default_rng(4)) == run(4)
    assert run(np.random.RandomState(2)) == run(np.random.RandomState(2))
    np.random.seed(5)
    first = run(None)
    np.random.seed(5)
    assert run(None) == first  # None draws from numpy's global RandomState
    with pytest.raises(ValueError, match=r"random_state must be None, an int in \[0, 2\*\*32"):
        run(-3)
    with pytest.raises(TypeError, match="seed"):
        STRATEGIES[name](p, t, budget, seed=1)


# ----------------------------------------------------------------------
# Knapsack strategies: no call that never returns, parameters checked with their names,
# extreme cost ratios handled.
# ----------------------------------------------------------------------
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


def _literal_backward(p, t, budget, even):
    """Greedy backward by accuracy as the paper words it: score every removal (eq. 1, even
    sets without their weakest member under drop_min), keep the first best."""
    cap = budget * (1 + 1e-12)
    mask, evaluations, trace, best, best_at = t <= cap, 0, [], -1.0, 0

    def q(m):
        idx = np.flatnonzero(m)
        if even == "drop_min" and idx.size % 2 == 0:
            idx = np.delete(idx, np.argmin(p[idx]))
        return majority_vote_accuracy(p[idx])

    def removals(m):
        return [m & (np.arange(m.size) != i) for i in np.flatnonzero(m)]

    def scored_first_best(cands, record):
        nonlocal evaluations, best, best_at
        qs = np.array([q(c) for c in cands])
        for i, (c, qi) in enumerate(zip(cands, qs, strict=True)):
            if record and t[c].sum() <= cap and qi > best + 1e-12:
                best, best_at = qi, evaluations + i + 1
                trace.append((best_at, qi))
        evaluations += len(cands)
        return cands[int(np.argmax(qs))], qs.max()

    while t[mask].sum() > cap:
        mask, _ = scored_first_best(removals(mask), record=False)
    _, current = scored_first_best([mask], record=True)
    while mask.sum() > 1:
        cand, qc = scored_first_best(removals(mask), record=True)
        if qc <= current + 1e-12:
            break
        mask, current = cand, qc
    return best, evaluations, best_at, np.array(trace).reshape(-1, 2)


@pytest.mark.parametrize("even", ["drop_min", "strict"])
def test_greedy_backward_follows_the_literal_rule(even):
    """The least-accurate-member shortcut and the leave-one-out scores give what scoring
    every removal gives: the same path, q, evaluation count, best_at and trace."""
    rng = np.random.default_rng(7)
    for n in (2, 3, 4, 5, 6, 7, 9, 12, 20, 31):
        for draw in range(12):
            p = rng.uniform(0.5, 0.9, n) if draw % 3 == 0 else rng.uniform(0.05, 0.95, n)
            t = rng.uniform(0.1, 1.0, n)
            budget = float(rng.uniform(t.min(), 1.1 * t.sum()))
            res = greedy_backward(p, t, budget, even=even)
            best, evaluations, best_at, trace = _literal_backward(p, t, budget, even)
            where = f"n={n} draw={draw}"
            assert res.accuracy == pytest.approx(best, abs=1e-12), where
            assert majority_vote_accuracy(p[res.members]) == pytest.approx(best, abs=1e-12), where
            assert (res.evaluations, res.best_at) == (evaluations, best_at), where
            np.testing.assert_allclose(res.trace, trace, atol=1e-12, err_msg=where)


@pytest.mark.parametrize("ell", [2, 3, 4, 9, 50])
def test_leave_one_out_accuracy_matches_dropping_each_member(ell):
    rng = np.random.default_rng(ell)
    for p in (rng.uniform(0, 1, ell), rng.uniform(0.9, 1, ell), np.round(rng.uniform(0, 1, ell))):
        expected = [majority_vote_accuracy(np.delete(p, j)) for j in range(ell)]
        np.testing.assert_allclose(leave_one_out_accuracy(p), expected, atol=1e-13, rtol=0)


def test_greedy_backward_on_a_huge_pool_returns(no_hang):
    """1500 affordable members (scoring every removal took minutes): the rule keeps the most
    accurate members that fit, and counts the evaluations of scoring every removal."""
    n = 1500
    p = np.random.default_rng(0).permutation(np.linspace(0.55, 0.95, n))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = greedy_backward(p, np.ones(n), 10.0)
    assert set(res.members) == set(np.argsort(-p)[:9])
    assert res.evaluations == sum(range(11, n + 1)) + 1 + 10


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


def test_q_moments_refuses_sizes_past_its_bound(no_hang):
    """O(ell^3): minutes just past MAX_ELL, hours (and tens of GiB) further on."""
    from ensemble_repro.knapsack import MAX_ELL, q_moments

    with pytest.raises(ValueError) as info:
        q_moments(MAX_ELL + 1, 6.0, 4.0)
    assert str(info.value).startswith(
        f"ell = {MAX_ELL + 1} is above MAX_ELL = {MAX_ELL}: the exact moments take O(ell^3) time"
    )


def test_stopping_rule_refuses_a_pool_affording_more_than_the_bound(no_hang):
    from ensemble_repro.knapsack import stopping_rule
    from ensemble_repro.knapsack.pools import synthetic_pool

    p, t = synthetic_pool(3000, 18.0, 2.0, random_state=0)
    with pytest.raises(ValueError) as info:
        stopping_rule(p, t, float(t.sum()) / 2)
    assert str(info.value).startswith(
        "the 3000-member pool affords an ensemble of ell_T = 2705 members under budget "
        "27395.5 (size_estimate='affordable'), above MAX_ELL = 2000"
    )
