"""The paper's stopping rule, SA from empty, eq. (5) copies, time profile, Lemma IV.1.

Hajdu et al. (2020); the pinned numbers are computed by hand in the comments.
"""

import math

import numpy as np
import pytest
from scipy import stats

from ensemble_repro.knapsack import (
    affordable_size,
    efficiency,
    exhaustive,
    greedy_forward,
    majority_vote_accuracy,
    poisson_size,
    q_limits,
    q_moment_curve,
    q_moments,
    simulated_annealing,
    stirling_maxstep,
    stochastic_search,
    stopping_rule,
)
from ensemble_repro.knapsack.pools import synthetic_pool, time_profile_costs
from ensemble_repro.knapsack.strategies import SA_MOVES

# costs sorted: 1, 1.5, 2, 3, 4, 5; cumulative 1, 2.5, 4.5, 7.5, 11.5, 16.5; mean 16.5/6 = 2.75
P6 = np.array([0.9, 0.8, 0.7, 0.85, 0.75, 0.6])
T6 = np.array([5.0, 1.0, 2.0, 4.0, 3.0, 1.5])


@pytest.mark.parametrize(
    "budget, affordable, mean_cost",
    [
        (8.0, 3, 1),  # 4 cheapest fit (7.5 <= 8) -> odd 3; 8 / 2.75 = 2.9 -> 2 -> odd 1
        (11.5, 5, 3),  # exactly 5 cheapest (11.5); 11.5 / 2.75 = 4.18 -> 4 -> 3
        (4.5, 3, 1),  # exactly 3 cheapest (4.5); 4.5 / 2.75 = 1.6 -> 1
    ],
)
def test_ell_T_is_the_size_the_budget_affords(budget, affordable, mean_cost):
    rule = stopping_rule(P6, T6, budget)  # the default estimate
    assert rule.ell_T == affordable
    assert affordable_size(P6, T6, budget, rule.a, rule.b, "mean_cost") == mean_cost


def test_time_profile_size_rises_with_accuracy():
    # t = 2 / (1 - p) exactly: x = 1/(1-p) = (2, 4, 5, 2, 4), c = sum(t x) / sum(x^2) = 130/65 = 2;
    # under Beta(6, 2): E[1/(1-p)] = (a + b - 1)/(b - 1) = 7, so E[t] = 14.
    p = np.array([0.5, 0.75, 0.8, 0.5, 0.75])
    t = 2.0 / (1.0 - p)
    assert affordable_size(p, t, 45.0, 6.0, 2.0, "time_profile") == 3  # 45 / 14 = 3.2
    assert affordable_size(p, t, 80.0, 6.0, 2.0, "time_profile") == 5  # 80 / 14 = 5.7
    with pytest.raises(ValueError, match="needs the Beta fit's b > 1.*got b=0.5"):
        affordable_size(p, t, 45.0, 6.0, 0.5, "time_profile")


def test_eq33_poisson_size_by_hand():
    # Poisson(5) cdf: .0067 .0404 .1247 .2650 .4405 .6160 .7622 .8666 .9319 .9682 -> the upper
    # 5% quantile is 9; the normal approximation: 5 + 1.6449 * sqrt(5) = 8.68 -> 8.
    cdf = np.cumsum([math.exp(-5) * 5**k / math.factorial(k) for k in range(12)])
    assert int(np.argmax(cdf >= 0.95)) == 9
    assert poisson_size(5.0) == 9 and poisson_size(5.0, approx="normal") == 8
    # Poisson(4): cdf(7) = .9489 < .95 <= cdf(8) = .9786; normal 4 + 1.6449 * 2 = 7.29 -> 7
    assert poisson_size(4.0) == 8 and poisson_size(4.0, approx="normal") == 7
    # in a pool of 12 unit costs with T = 5 (lambda T = T / mean t = 5): odd sizes 9 and 7
    p, t = np.linspace(0.6, 0.9, 12), np.ones(12)
    assert affordable_size(p, t, 5.0, 8.0, 4.0, "poisson") == 9
    assert affordable_size(p, t, 5.0, 8.0, 4.0, "poisson_normal") == 7
    assert affordable_size(p, t, 5.0, 8.0, 4.0, "mean_cost") == 5


def test_maxstep_from_stirling_eq29():
    # ln k! ~ k ln k - k + ln(2 pi k)/2: ln 10! ~ 15.09608, ln 3! ~ 1.76408, ln 7! ~ 8.51326;
    # exp(15.09608 - 1.76408 - 8.51326) = exp(4.81874) = 123.8 -> 124 (exact C(10, 3) = 120)
    assert stirling_maxstep(10, 3, floor=None, cap=None) == 124
    # C(30, 5) ~ exp(74.65546 - 4.77085 - 58.00027) = 144978 (exact 142506)
    assert stirling_maxstep(30, 5, floor=None, cap=None) == 144978
    assert stirling_maxstep(30, 5) == 100_000  # the default cap
    assert stirling_maxstep(10, 3) == 1000  # the default floor: small pools
    assert stirling_maxstep(7, 7, floor=None) == 1  # 0! = 1
    # the rule carries MAXSTEP of its pool: n = 6, ell_T = 3: C(6, 3) ~ 20.6 -> floor 5
    rule = stopping_rule(P6, T6, 8.0, maxstep_floor=5, maxstep_cap=None)
    assert rule.maxstep == stirling_maxstep(6, 3, floor=None, cap=None) == 21
    with pytest.raises(ValueError, match="floor 10 must not exceed the cap 5"):
        stirling_maxstep(10, 3, floor=10, cap=5)


def test_left_sided_test_decisions():
    rng = np.random.default_rng(2)
    p, t = rng.beta(18, 2, 40), np.ones(40)
    left = stopping_rule(p, t, 9.0, tail_law="normal")  # the default test: left side
    assert left.rule == "left_tail" and left.ell_T == 9
    mean, var = q_moments(9, left.a, left.b)
    sd = math.sqrt(var)
    assert left.threshold == pytest.approx(mean - stats.norm.isf(0.05) * sd)  # mean - 1.645 sd
    # H0 "q* is a typical q_{l_T}" is rejected on the left only: keep searching below
    # mean - 1.645 sd, stop at or above it (at the mean, too).
    decisions = left.reached([mean - 2 * sd, mean - 1.7 * sd, mean - 1.6 * sd, mean])
    assert decisions.tolist() == [False, False, True, True]
    right = stopping_rule(p, t, 9.0, rule="tail", tail_law="normal")
    assert right.reached([mean, mean + 1.6 * sd, mean + 1.7 * sd]).tolist() == [False, False, True]
    two = stopping_rule(p, t, 9.0, rule="two_tailed", tail_law="normal")  # mean - 1.96 sd
    assert two.reached([mean - 2 * sd, mean - 1.9 * sd]).tolist() == [False, True]
    assert not left.reached(mean - 1.9 * sd)


def test_sa_starts_from_the_empty_set():
    p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    for seed in range(20):  # the first state is empty: one move reaches a single member
        res = simulated_annealing(p, t, 4.0, random_state=seed, maxstep=1)
        assert len(res.members) == 1 and res.evaluations == 1
        assert res.trace[0, 0] == 1
    greedy = simulated_annealing(p, t, 4.0, random_state=0, maxstep=1, init="greedy_forward")
    assert greedy.members.tolist() == [1, 2, 3]  # the usefulness-greedy start


@pytest.mark.parametrize("moves", ["swap", "add_remove"])
def test_sa_from_empty_reaches_the_optimum(moves):
    rng = np.random.default_rng(8)
    for _ in range(4):
        p, t = rng.uniform(0.55, 0.95, 9), rng.uniform(0.5, 3.0, 9)
        budget = 0.4 * t.sum()
        best = exhaustive(p, t, budget).accuracy
        hits = [
            simulated_annealing(p, t, budget, random_state=s, moves=moves, maxstep=3000).accuracy
            for s in range(3)
        ]
        assert max(hits) == pytest.approx(best, abs=1e-12)


def test_add_remove_moves_toggle_one_feasible_item():
    rng = np.random.default_rng(0)
    t = np.array([1.0, 2.0, 3.0, 0.5, 4.0])
    cap = 5.0
    movable = np.arange(5)
    mask = np.array([True, True, False, False, False])  # cost 3, room 2: items 3 (0.5) fits
    seen = set()
    for _ in range(300):
        new = SA_MOVES["add_remove"](rng, mask, movable, t, cap)
        changed = np.flatnonzero(new != mask)
        assert changed.size == 1 and t[new].sum() <= cap
        seen.add(int(changed[0]))
    assert seen == {0, 1, 3}  # remove 0 or 1, add 3; items 2 and 4 do not fit
    swaps = [SA_MOVES["swap"](rng, mask, movable, t, cap) for _ in range(300)]
    assert max(int((s != mask).sum()) for s in swaps) >= 2  # swap moves change several items
    with pytest.raises(ValueError, match="moves must be one of swap, add_remove; got 'flip'"):
        simulated_annealing([0.6, 0.7], [1.0, 1.0], 2.0, moves="flip")


def _naive_efficiency(p, t, remaining):
    out = []
    for pi, ti in zip(p, t, strict=True):
        m = 0
        while (m + 1) * ti <= remaining:
            m += 1
        q = sum(math.comb(m, k) * pi**k * (1 - pi) ** (m - k) for k in range(m // 2 + 1, m + 1))
        out.append(q)
    return np.array(out)


def test_efficiency_uses_the_maximal_number_of_copies():
    rng = np.random.default_rng(4)
    for _ in range(20):
        p, t = rng.uniform(0.3, 0.95, 7), rng.uniform(0.3, 4.0, 7)
        remaining = float(rng.uniform(0.5, 12.0))
        np.testing.assert_allclose(efficiency(p, t, remaining), _naive_efficiency(p, t, remaining))
    # (0.4, t=2) with T_k = 9 fits 4 copies (eq. 5: the maximal number): P(Bin(4, .4) >= 3) = 0.1792
    assert efficiency([0.4], [2.0], 9.0)[0] == pytest.approx(0.1792)
    assert efficiency([0.4], [2.0], 9.0, copies="odd")[0] == pytest.approx(0.352)  # 3 copies


def test_greedy_forward_adds_one_member_at_a_time():
    # From {0} (q = .9) one member at a time: every {0, x} scores .9 (drop_min); the tie goes
    # to the best strict q = .9 p_x, x = 1 (.765), which costs 2 and fills T = 3: stop, {0}.
    # Pairs: {0, 2, 3} (cost 3) scores .9 .8 + .9 .8 + .8 .8 - 2 (.9)(.8)(.8) = .928 > .9.
    p, t = [0.9, 0.85, 0.8, 0.8], [1.0, 2.0, 1.0, 1.0]
    single = greedy_forward(p, t, 3.0)
    assert single.members.tolist() == [0] and single.accuracy == pytest.approx(0.9)
    pairs = greedy_forward(p, t, 3.0, step=2)
    assert pairs.members.tolist() == [0, 2, 3] and pairs.accuracy == pytest.approx(0.928)
    # ties are not broken by member order: the same pool listed the other way round
    rev = greedy_forward(p[::-1], t[::-1], 3.0)
    assert rev.members.tolist() == [3]
    # unit costs: {0, 1} (strict .765) then {0, 1, y}: .9 .85 + .9 .8 + .85 .8 - 2 (.9)(.85)(.8)
    # = .765 + .72 + .68 - 1.224 = .941 > .9
    unit = greedy_forward(p, np.ones(4), 3.0)
    assert unit.members.tolist() == [0, 1, 2] and unit.accuracy == pytest.approx(0.941)
    # usefulness key, one at a time through even sizes: 1 -> 2 -> 3 cheap members
    q3 = majority_vote_accuracy([0.75] * 3)
    res = greedy_forward([0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1, 1, 1, 1], 4.0, key="usefulness")
    assert res.members.tolist() == [1, 2, 3] and res.accuracy == pytest.approx(q3)


def test_stochastic_search_steps_are_constructions():
    rng = np.random.default_rng(3)
    p, t = rng.beta(8, 3, 15), rng.uniform(0.5, 2.0, 15)
    res = stochastic_search(p, t, 6.0, random_state=1, maxstep=7)
    assert res.steps == 7 and res.evaluations > 7  # every odd prefix of 7 constructions
    assert 1 <= res.best_step <= res.steps and res.stopped_by == "maxstep"
    final = stochastic_search(p, t, 6.0, random_state=1, maxstep=7, evaluate="final")
    assert final.steps == final.evaluations == 7  # one ensemble per construction
    old = stochastic_search(p, t, 6.0, random_state=1, maxstep=7, steps="evaluations")
    assert old.evaluations == old.steps == 7


def test_time_profile_costs_have_mean_one_over_one_minus_p():
    rng = np.random.default_rng(5)
    draws = 40_000
    means = []
    for p in (0.5, 0.8, 0.95):
        costs = time_profile_costs(np.full(draws, p), rng)
        sd = (1 / (1 - p)) / math.sqrt(draws)  # an exponential's sd equals its mean
        assert abs(costs.mean() - 1 / (1 - p)) < 4 * sd
        means.append(costs.mean())
    assert means[0] < means[1] < means[2]  # costs rise with the accuracy
    with pytest.raises(ValueError, match="p must be below 1 for the time profile"):
        time_profile_costs([0.5, 1.0])


def test_synthetic_pool_is_seeded_and_follows_the_profile():
    p, t = synthetic_pool(20_000, 18.0, 2.0, scale=3.0, random_state=7)
    p2, t2 = synthetic_pool(20_000, 18.0, 2.0, scale=3.0, random_state=7)
    assert np.array_equal(p, p2) and np.array_equal(t, t2)
    assert p.mean() == pytest.approx(0.9, abs=0.003)  # Beta(18, 2) mean
    # t | p ~ Exp(mean 3/(1 - p)), so t (1 - p) ~ Exp(mean 3) whatever p
    assert (t * (1 - p)).mean() == pytest.approx(3.0, rel=0.04)
    pu, tu = synthetic_pool(5, 18.0, 2.0, cost="unit", random_state=7)
    assert np.array_equal(pu, p[:5]) and np.array_equal(tu, np.ones(5))


def test_lemma_iv1_limits():
    assert q_limits(8.0, 4.0) == (1.0, 0.0) and q_limits(4.0, 8.0) == (0.0, 0.0)
    curve = q_moment_curve([1, 101, 301], 8.0, 4.0)
    assert curve["mean"].is_monotonic_increasing and curve["var"].is_monotonic_decreasing
    assert curve["mean"].iloc[-1] > 1 - 1e-8 and curve["var"].iloc[-1] < 1e-12
    low = q_moment_curve([301], 4.0, 8.0)
    assert low["mean"].iloc[0] < 1e-8 and (low["mean_limit"] == 0.0).all()
    # mu = 1/2: the mean stays 1/2 and the variance tends to arcsin(4 var_p)/(2 pi); for
    # Beta(3, 3), var_p = 9/(36 * 7) = 1/28, so the limit is arcsin(1/7)/(2 pi) = 0.022814
    mean_limit, var_limit = q_limits(3.0, 3.0)
    assert mean_limit == 0.5 and var_limit == pytest.approx(math.asin(1 / 7) / (2 * math.pi))
    half = q_moment_curve([101, 301, 601], 3.0, 3.0)
    np.testing.assert_allclose(half["mean"], 0.5, atol=1e-12)
    gaps = (half["var"] - var_limit).abs()
    assert gaps.is_monotonic_decreasing and gaps.iloc[-1] < 3e-5


def test_sa_budget_schedule_cools_within_maxstep():
    """moves_per_temp='budget' spreads the ~180 temperatures (rho 0.95, tmin 1e-4) over
    MAXSTEP: the run ends by its schedule with most of the budget used; with n moves per
    temperature the same budget cuts the schedule off (30 x 180 = 5400 moves > 2000)."""
    from ensemble_repro.knapsack import simulated_annealing

    rng = np.random.default_rng(3)
    p, t = rng.uniform(0.6, 0.8, 30), rng.uniform(1, 3, 30)
    spread = simulated_annealing(p, t, 12.0, random_state=0, maxstep=2000, moves_per_temp="budget")
    assert spread.stopped_by == "schedule"
    assert 2000 - 180 <= spread.evaluations <= 2000
    cut = simulated_annealing(p, t, 12.0, random_state=0, maxstep=2000)
    assert cut.stopped_by == "maxstep"
    with pytest.raises(ValueError, match="moves_per_temp='budget' spreads the schedule"):
        simulated_annealing(p, t, 12.0, maxstep=None, moves_per_temp="budget")
    with pytest.raises(ValueError, match="moves_per_temp must be a positive integer"):
        simulated_annealing(p, t, 12.0, moves_per_temp=0)
