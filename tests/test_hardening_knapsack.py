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
from ensemble_repro.knapsack.energy import leave_one_out_accuracy

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
