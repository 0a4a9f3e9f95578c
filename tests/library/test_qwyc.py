"""Tests of ensemble_repro.qwyc: QWYC (Wang, Gupta & You 2018) and Fan et al. (2002)."""

import dataclasses
import itertools

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

from ensemble_repro.qwyc import (
    Cascade,
    CascadeTimer,
    FanEarlyStopping,
    QuitWhenYouCan,
    evaluate_cascade,
    flatten_model,
    greedy_mse_order,
    individual_mse_order,
    never_stop,
    partial_sums,
    sequential_sum,
    step_thresholds,
    tree_scores,
)


def boosting_scores(N=300, T=12, seed=0):
    """Boosting-like scores: early models large, later ones small, all noisy."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=N)
    scale = 0.8 ** np.arange(T)
    F = scale * (0.5 * z[:, None] + rng.normal(size=(N, T)))
    return -0.3, F


# ---------------------------------------------------------------- tree contributions
@pytest.fixture(scope="module")
def xy():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 4))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=400) > 0.5).astype(int)
    return X, y


def test_tree_scores_hist_gbt_exact_with_missing_values(xy):
    X, y = xy
    X = X.copy()
    X[::9, 2] = np.nan
    m = HistGradientBoostingClassifier(
        max_iter=25, max_depth=3, max_leaf_nodes=None, early_stopping=False, random_state=0
    ).fit(X, y)
    base, F = tree_scores(m, X)
    assert F.shape == (400, 25)
    assert np.array_equal(sequential_sum(base, F), m.decision_function(X))
    np.testing.assert_allclose(base + F.sum(1), m.decision_function(X), rtol=0, atol=1e-12)
    staged = np.array(list(m.staged_decision_function(X)))
    np.testing.assert_allclose(np.diff(staged, axis=0).T, F[:, 1:], atol=1e-12)


def test_tree_scores_classic_gbt_exact_learning_rate_included(xy):
    X, y = xy
    m = GradientBoostingClassifier(
        n_estimators=15, max_depth=3, learning_rate=0.3, random_state=0
    ).fit(X, y)
    base, F = tree_scores(m, X)
    assert np.array_equal(sequential_sum(base, F), m.decision_function(X))
    raw = m.estimators_[4, 0].predict(X)
    assert np.array_equal(F[:, 4], 0.3 * raw)


def test_tree_scores_rejects_bad_models(xy):
    X, y = xy
    with pytest.raises(ValueError, match="model must be"):
        tree_scores(object(), X)
    m = HistGradientBoostingClassifier(max_iter=3).fit(X, np.arange(400) % 3)
    with pytest.raises(ValueError, match="binary"):
        tree_scores(m, X)
    m = HistGradientBoostingClassifier(max_iter=3).fit(X, y)
    with pytest.raises(ValueError, match="4 columns"):
        tree_scores(m, X[:, :3])


# ---------------------------------------------------------------- Algorithm 2
def brute_force_step(s, yhat, budget, side_split, rate=None):
    """All threshold pairs from midpoints between distinct values (plus +-inf): the best
    (n_stop, n_diff) under the rule, by direct counting."""
    v = np.unique(s)
    cuts = np.concatenate([[-np.inf], (v[:-1] + v[1:]) / 2, [np.inf]])

    def neg(e):
        st = s < e
        return st.sum(), (st & yhat).sum()

    def pos(e):
        st = s > e
        return st.sum(), (st & ~yhat).sum()

    if rate is not None:
        j, dj, em = max(
            (neg(e) + (e,) for e in cuts if neg(e)[1] <= rate * neg(e)[0]), key=lambda t: t[0]
        )
        k, dk = max(
            (pos(e) for e in cuts if e >= em and pos(e)[1] <= rate * pos(e)[0]), key=lambda t: t[0]
        )
        return j + k, dj + dk
    if side_split == "joint":
        best = (-1, 0)
        for em, ep in itertools.product(cuts, cuts):
            if em > ep:
                continue
            (j, dj), (k, dk) = neg(em), pos(ep)
            if dj + dk <= budget and (j + k, -(dj + dk)) > (best[0], -best[1]):
                best = (j + k, dj + dk)
        return best
    nb = budget if side_split == "neg_first" else budget // 2
    j, dj, em = max((neg(e) + (e,) for e in cuts if neg(e)[1] <= nb), key=lambda t: t[0])
    pb = budget - dj if side_split == "neg_first" else budget // 2
    k, dk = max((pos(e) for e in cuts if e >= em and pos(e)[1] <= pb), key=lambda t: t[0])
    return j + k, dj + dk


@pytest.mark.parametrize("seed", range(12))
def test_step_thresholds_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    m, n = 3, int(rng.integers(1, 14))
    S = rng.integers(-4, 5, size=(m, n)).astype(float)  # many ties
    yhat = rng.random(n) < rng.uniform(0.1, 0.9)
    for budget, split in itertools.product(range(0, 4), ("joint", "neg_first", "half")):
        em, ep, ns, nd = step_thresholds(S, yhat, budget, split)
        for c in range(m):
            assert (ns[c], nd[c]) == brute_force_step(S[c], yhat, budget, split), (budget, split)
            stop_neg, stop_pos = S[c] < em[c], S[c] > ep[c]
            assert em[c] <= ep[c]
            assert ns[c] == (stop_neg | stop_pos).sum()
            assert nd[c] == (stop_neg & yhat).sum() + (stop_pos & ~yhat).sum()
    for rate in (0.0, 0.2, 0.5):
        em, ep, ns, nd = step_thresholds(S, yhat, 0, "joint", rate=rate)
        for c in range(m):
            assert (ns[c], nd[c]) == brute_force_step(S[c], yhat, 0, "joint", rate)


# ---------------------------------------------------------------- Algorithm 1
def replay(model, F, base):
    """Survivors and partial sums before each step, from a fitted model's thresholds."""
    g = np.full(F.shape[0], base)
    alive = np.ones(F.shape[0], dtype=bool)
    for r, k in enumerate(model.order_[:-1]):
        yield r, g.copy(), alive.copy()
        g = g + F[:, k]
        alive &= (g >= model.eps_minus_[r]) & (g <= model.eps_plus_[r])


@pytest.mark.parametrize("alpha", [0.0, 0.02, 0.1])
def test_algorithm1_choice_is_brute_force_argmin_of_J(alpha):
    base, F = boosting_scores(N=80, T=7, seed=3)
    costs = np.linspace(1, 2, 7)
    q = QuitWhenYouCan(alpha, costs=costs).fit_scores(base, F)
    yhat = sequential_sum(base, F) >= 0
    used = 0
    for r, g, alive in replay(q, F, base):
        budget = int(np.floor(alpha * 80)) - used
        J = {}
        for k in set(range(7)) - set(q.order_[:r]):
            n_k, _ = brute_force_step(g[alive] + F[alive, k], yhat[alive], budget, "joint")
            J[k] = costs[k] / n_k if n_k > 0 else np.inf
        assert J[q.order_[r]] == min(J.values())
        used += q.step_differences_[r]
    assert sorted(q.order_) == list(range(7))


@pytest.mark.parametrize("rule", ["greedy_remaining", "uniform", "per_step_rate"])
@pytest.mark.parametrize("split", ["joint", "neg_first", "half"])
@pytest.mark.parametrize("ordering", ["joint", "natural", "greedy_mse"])
def test_differences_within_budget_on_fitting_set(rule, split, ordering):
    base, F = boosting_scores(N=400, T=15, seed=5)
    full = sequential_sum(base, F) >= 0
    for alpha in (0.0, 0.01, 0.05):
        q = QuitWhenYouCan(alpha, ordering=ordering, budget_rule=rule, side_split=split).fit_scores(
            base, F
        )
        dec, n_eval = q.evaluate(F)
        diffs = int((dec != full).sum())
        assert diffs == q.differences_ <= np.floor(alpha * 400)
        if alpha == 0:
            assert diffs == 0
        assert np.all(q.eps_minus_ <= q.eps_plus_)
        assert n_eval.min() >= 1 and n_eval.max() <= 15


def test_joint_order_beats_natural_on_fitting_set_and_stops_early():
    base, F = boosting_scores(N=500, T=20, seed=2)
    F = F[:, ::-1].copy()  # the useful models come last in the natural order
    nj = QuitWhenYouCan(0.01).fit_scores(base, F).n_evaluated(F).mean()
    nn = QuitWhenYouCan(0.01, ordering="natural").fit_scores(base, F).n_evaluated(F).mean()
    assert nj < nn < 20


def test_last_step_decides_with_full_score():
    _, F = boosting_scores(N=300, T=10, seed=7)
    base = 0.0
    q = QuitWhenYouCan(0.0).fit_scores(base, F)
    rng = np.random.default_rng(0)
    Fte = np.vstack([F + rng.normal(scale=0.5, size=F.shape), 1e-6 * F])  # tiny: undecided
    dec, n_eval = q.evaluate(Fte)
    full = sequential_sum(base, Fte) >= 0
    assert np.any(n_eval == 10)
    assert np.array_equal(dec[n_eval == 10], full[n_eval == 10])
    # thresholds reproduce the recorded per-step stop counts on the fitting set
    counts = np.bincount(q.n_evaluated(F), minlength=11)[1:10]
    assert np.array_equal(counts, q.n_stopped_)


def test_decision_threshold_shifts_full_decision():
    base, F = boosting_scores(N=200, T=6, seed=4)
    q = QuitWhenYouCan(0.0, decision_threshold=0.7).fit_scores(base, F)
    assert np.array_equal(q.predict(F), (sequential_sum(base, F) >= 0.7).astype(int))


# ---------------------------------------------------------------- orderings
def test_orderings_on_hand_made_example():
    # f = b0 + sum of the four columns; b0 = 0
    F = np.array([[0.1, 2.0, -0.5, 1.0], [0.1, -2.0, 0.5, 1.0]])
    f = F.sum(1)  # [2.6, -0.4]
    # individual MSE (f - F_t)^2 averaged: t0: (2.5^2+0.5^2)/2=3.25, t1: (0.6^2+1.6^2)/2=1.46,
    # t2: (3.1^2+0.9^2)/2=5.21, t3: (1.6^2+1.4^2)/2=2.26
    assert list(individual_mse_order(F, 0.0, f)) == [1, 3, 0, 2]
    # greedy: first the same as individual (1); residual [0.6, 1.6]: t0 -> (0.25+2.25),
    # t2 -> (1.21+1.21)=2.42, t3 -> (0.16+0.36)=0.52 -> 3; residual [-0.4, 0.6]: t0 ->
    # 0.25+0.25=0.5, t2 -> 0.01+0.01=0.02 -> 2; then 0
    assert list(greedy_mse_order(F, 0.0, f)) == [1, 3, 2, 0]


def test_explicit_permutation_and_random_order_respected():
    base, F = boosting_scores(N=100, T=8, seed=1)
    perm = np.array([3, 1, 7, 0, 2, 6, 5, 4])
    assert list(QuitWhenYouCan(0.0, ordering=perm).fit_scores(base, F).order_) == list(perm)
    a = QuitWhenYouCan(0.0, ordering="random", random_state=4).fit_scores(base, F).order_
    b = QuitWhenYouCan(0.0, ordering="random", random_state=4).fit_scores(base, F).order_
    assert np.array_equal(a, b) and sorted(a) == list(range(8))


# ---------------------------------------------------------------- Fan et al.
def naive_fan(F, base, order, gamma, n_bins, min_count, beta=0.0):
    """Per-example Fan et al. with quantile bins, statistics on all fitting examples."""
    N, T = F.shape
    f = np.array([base + sum(F[i]) for i in range(N)])
    G = np.cumsum(np.column_stack([np.full(N, base), F[:, order]]), axis=1)[:, 1:]
    rules = []
    for r in range(T - 1):
        edges = np.unique(np.quantile(G[:, r], np.linspace(0, 1, n_bins + 1)[1:-1]))
        members = {}
        for i in range(N):
            members.setdefault(int(np.sum(edges <= G[i, r])), []).append(f[i] - G[i, r])
        rules.append((edges, {b: (np.mean(d), np.std(d), len(d)) for b, d in members.items()}))

    def classify(i, Gx, fx):
        for r in range(T - 1):
            edges, stats = rules[r]
            b = int(np.sum(edges <= Gx[r]))
            if b not in stats or stats[b][2] < min_count:
                continue
            mu, sd, _ = stats[b]
            if Gx[r] + mu - gamma * sd > beta:
                return True, r + 1
            if Gx[r] + mu + gamma * sd < beta:
                return False, r + 1
        return fx >= beta, T

    return classify, G, f


def test_fan_matches_naive_implementation():
    base, F = boosting_scores(N=250, T=8, seed=6)
    rng = np.random.default_rng(1)
    Fte = F[:60] + rng.normal(scale=0.3, size=(60, 8))
    for gamma in (0.0, 0.5, 2.0):
        fan = FanEarlyStopping(gamma, n_bins=5, ordering="natural", min_bin_count=5).fit_scores(
            base, F
        )
        dec, n_eval = fan.evaluate(Fte)
        classify, _, _ = naive_fan(F, base, np.arange(8), gamma, 5, 5)
        Gte = partial_sums(Fte, base, np.arange(8))
        fte = sequential_sum(base, Fte)
        for i in range(60):
            assert (dec[i], n_eval[i]) == classify(i, Gte[i], fte[i])


def test_fan_gamma_extremes():
    base, F = boosting_scores(N=300, T=8, seed=8)
    full = sequential_sum(base, F) >= 0
    for gamma in (np.inf, 1e9):
        dec, n_eval = FanEarlyStopping(gamma, ordering="natural").fit_scores(base, F).evaluate(F)
        assert np.all(n_eval == 8) and np.array_equal(dec, full)
    fan0 = FanEarlyStopping(0.0, ordering="natural", min_bin_count=1).fit_scores(base, F)
    dec, n_eval = fan0.evaluate(F)
    G = partial_sums(F, base, np.arange(8))
    for r in range(7):  # the first step whose binned mean is off the boundary stops
        edges, lo, hi = fan0.cascade_.step(r)
        pred = G[:, r] - lo[np.searchsorted(edges, G[:, r], side="right")]  # = g + mu - beta
        decided = (pred != 0) & (n_eval > r)
        assert np.all(n_eval[decided] == r + 1)
        assert np.array_equal(dec[decided], pred[decided] > 0)
    # monotone: larger gamma never stops earlier on average
    n = [
        FanEarlyStopping(g, ordering="natural").fit_scores(base, F).n_evaluated(F).mean()
        for g in (0, 1, 3)
    ]
    assert n[0] <= n[1] <= n[2]


def test_fan_survivor_statistics_and_sigmoid_bins_run():
    base, F = boosting_scores(N=200, T=6, seed=9)
    for kw in ({"stats_on_survivors": True}, {"bin_kind": "equal_width", "bin_score": "sigmoid"}):
        fan = FanEarlyStopping(1.0, **kw).fit_scores(base, F)
        dec, n_eval = fan.evaluate(F)
        assert n_eval.mean() < 6
        assert np.array_equal(dec[n_eval == 6], (sequential_sum(base, F) >= 0)[n_eval == 6])


def test_sigmoid_bins_are_the_bins_of_the_sigmoid_scale():
    """Binning on the sigmoid scale puts each score where its sigmoid falls among the quantile
    edges of the sigmoids (the naive reference), tied scores together, whatever the round-off
    of mapping the edges back to margins."""
    rng = np.random.default_rng(4)
    F = np.round(rng.normal(size=(400, 3)), 1)  # few distinct partial scores: many ties
    fan = FanEarlyStopping(1.0, ordering="natural", bin_score="sigmoid", n_bins=8)
    fan.fit_scores(0.0, F)
    g = F[:, 0]
    p = 1 / (1 + np.exp(-g))
    p_edges = np.unique(np.quantile(p, np.linspace(0, 1, 9)[1:-1]))
    edges = fan.cascade_.step(0)[0]
    assert np.array_equal(
        np.searchsorted(edges, g, side="right"), np.searchsorted(p_edges, p, side="right")
    )


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "kwargs, F_mod, match",
    [
        ({"alpha": 1.0}, None, "alpha"),
        ({"alpha": -0.1}, None, "alpha"),
        ({"alpha": 0.0, "costs": np.r_[1.0, 0.0, np.ones(4)]}, None, "costs"),
        ({"alpha": 0.0, "costs": np.ones(3)}, None, "costs"),
        ({"alpha": 0.0, "budget_rule": "all"}, None, "budget_rule"),
        ({"alpha": 0.0, "side_split": "x"}, None, "side_split"),
        ({"alpha": 0.0, "ordering": "best"}, None, "ordering"),
        ({"alpha": 0.0, "ordering": np.array([0, 1, 2, 3, 4, 4])}, None, "permutation"),
        ({"alpha": 0.0}, "nan", "finite"),
        ({"alpha": 0.0}, "1d", "2-D"),
    ],
)
def test_bad_input_raises_value_error(kwargs, F_mod, match):
    base, F = boosting_scores(N=30, T=6)
    if F_mod == "nan":
        F[3, 2] = np.nan
    if F_mod == "1d":
        F = F[:, 0]
    with pytest.raises(ValueError, match=match):
        QuitWhenYouCan(**kwargs).fit_scores(base, F)


def test_bad_input_fan_and_predict():
    base, F = boosting_scores(N=30, T=6)
    with pytest.raises(ValueError, match="gamma"):
        FanEarlyStopping(-1.0).fit_scores(base, F)
    with pytest.raises(ValueError, match="n_bins"):
        FanEarlyStopping(1.0, n_bins=0).fit_scores(base, F)
    with pytest.raises(ValueError, match="base"):
        FanEarlyStopping(1.0).fit_scores(float("nan"), F)
    q = QuitWhenYouCan(0.0).fit_scores(base, F)
    with pytest.raises(ValueError, match="6 columns"):
        q.predict(F[:, :5])


# ---------------------------------------------------------------- compiled evaluator
def test_c_evaluator_matches_vectorised_cascade(xy):
    X, y = xy
    m = HistGradientBoostingClassifier(
        max_iter=30, max_depth=3, max_leaf_nodes=None, early_stopping=False, random_state=0
    ).fit(X[:300], y[:300])
    base, forest = flatten_model(m)
    F, Fte = forest.contributions(X[:300]), forest.contributions(X[300:])
    timer = CascadeTimer(forest, base)
    for est in (QuitWhenYouCan(0.01), FanEarlyStopping(1.0)):
        est.fit_scores(base, F)
        dec, n_eval = evaluate_cascade(est.cascade_, Fte, base)
        cdec, cn, seconds = timer.run(est.cascade_, X[300:])
        assert np.array_equal(dec, cdec) and np.array_equal(n_eval, cn) and seconds > 0
    dec, n_eval, _ = timer.run(never_stop(30), X[300:])
    assert np.all(n_eval == 30) and np.array_equal(dec, m.decision_function(X[300:]) >= 0)


def test_drop_timing_drops_speedup_and_seconds_columns():
    import pandas as pd

    from ensemble_repro.io import drop_timing

    df = pd.DataFrame(
        {
            "method": ["a"],
            "per_example_mean_seconds": [1.0],
            "speedup_vs_full": [2.0],
            "speedup_vs_fan": [1.5],
            "test_mean_evaluated": [3.0],
        }
    )
    assert list(drop_timing(df).columns) == ["method", "test_mean_evaluated"]


# ----------------------------------------------------------------------
# Hand-built cascades and forests are checked before they reach the C kernel; QWYC is exact
# for every model it accepts.
# ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def model():
    X, y = make_classification(n_samples=200, n_features=5, random_state=0)
    gbt = HistGradientBoostingClassifier(max_iter=4, random_state=0).fit(X, y)
    base, forest = flatten_model(gbt)
    return X, gbt, base, forest


def _steps(T):
    return [[]] * (T - 1), [[-np.inf]] * (T - 1), [[np.inf]] * (T - 1)


@pytest.mark.parametrize(
    "order, shown",
    [
        ([0, 1, 2, 100_000_000], r"\[        0         1         2 100000000\]"),
        ([0, 0, 0, 0], r"\[0 0 0 0\]"),
        ([-1, 0, 1, 2], r"\[-1  0  1  2\]"),
    ],
)
def test_cascade_order_must_be_a_permutation(order, shown):
    with pytest.raises(ValueError, match=rf"order must be a permutation of range\(4\).*{shown}"):
        Cascade.from_steps(order, *_steps(4), beta=0.0)


def test_cascade_order_must_be_integers():
    with pytest.raises(ValueError, match="order must be a 1-D array of integers; got float64"):
        Cascade(np.array([0.0, 1.0]), np.array([0, 1]), np.zeros(0), np.zeros(1), np.zeros(1), 0.0)


def test_cascade_bins_must_match_bin_ptr():
    ok = Cascade.from_steps([1, 0, 2], [[], [0.0]], [[-1.0], [-2.0, -0.5]], [[1.0], [0.5, 2.0]], 0)
    with pytest.raises(ValueError, match=r"bin_ptr must be 3 increasing integers from 0"):
        dataclasses.replace(ok, bin_ptr=np.array([0, 3, 3]))
    with pytest.raises(ValueError, match=r"hi must be a 1-D float array of 3 values"):
        dataclasses.replace(ok, hi=np.zeros(2))
    with pytest.raises(ValueError, match=r"edges must be a 1-D float array of 1 values"):
        dataclasses.replace(ok, edges=np.zeros(5))


def test_timer_refuses_a_bad_order_without_crashing(model):
    """The segfault of an out-of-range order, and the silent re-evaluation of a repeated
    tree, cannot happen: such a cascade cannot be built, so it never reaches the kernel."""
    X, gbt, base, forest = model
    good = never_stop(forest.n_trees)
    timer = CascadeTimer(forest, base)
    with pytest.raises(ValueError, match="permutation"):
        dataclasses.replace(good, order=np.array([0, 1, 2, 10**8]))
    dec, nev, _ = timer.run(good, X)
    assert (dec == gbt.predict(X).astype(bool)).all() and (nev == forest.n_trees).all()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"roots": np.array([0, 10**8], dtype=np.int32)}, r"roots must be at least one node"),
        ({"feature": None}, r"feature of every split must be in \[0, 5\)"),
        ({"left": None}, r"children must follow their node"),
        ({"threshold": "int"}, r"threshold must be a 1-D float64 array of \d+ nodes; got int64"),
        ({"value": "short"}, r"value must be a 1-D float64 array of \d+ nodes; got float64 of"),
    ],
)
def test_forest_arrays_are_checked(model, change, message):
    _, _, _, forest = model
    ((name, value),) = change.items()
    inner = np.flatnonzero(forest.left != np.arange(forest.left.size))
    if name == "feature":
        value = forest.feature.copy()
        value[inner[0]] = 99
    elif name == "left":
        value = forest.left.copy()
        value[inner[1]] = 0  # points back to the root: the C walk would never end
    elif isinstance(value, str) and value == "int":
        value = np.zeros(forest.threshold.size, dtype=np.int64)
    elif isinstance(value, str) and value == "short":
        value = forest.value[:-1]
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(forest, **{name: value})


# --- exactness for every model QWYC accepts ------------------------------------------------


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=300, n_features=6, random_state=1)


def test_non_constant_init_is_refused(data):
    """A per-row initial score cannot be a cascade's constant b0: refused, not 44 % wrong."""
    from sklearn.linear_model import LogisticRegression

    from ensemble_repro.qwyc import QuitWhenYouCan, tree_scores

    X, y = data
    gbt = GradientBoostingClassifier(
        n_estimators=10, init=LogisticRegression(), random_state=0
    ).fit(X, y)
    msg = r"model.init = LogisticRegression\(\) gives every row its own initial score.*init=None"
    with pytest.raises(ValueError, match=msg):
        QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(X)
    with pytest.raises(ValueError, match=msg):
        tree_scores(gbt, X)


@pytest.mark.parametrize("init", [None, "zero", "dummy_prior"])
def test_alpha_zero_agrees_with_the_model_on_every_row(data, init):
    from sklearn.dummy import DummyClassifier

    from ensemble_repro.qwyc import QuitWhenYouCan, sequential_sum, tree_scores

    X, y = data
    if init == "dummy_prior":
        init = DummyClassifier(strategy="prior")
    gbt = GradientBoostingClassifier(n_estimators=10, init=init, random_state=0).fit(X, y)
    base, F = tree_scores(gbt, X)
    assert np.array_equal(sequential_sum(base, F), gbt.decision_function(X))
    qwyc = QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(X)
    assert np.array_equal(qwyc.predict(X), gbt.predict(X))


def test_nan_refused_where_the_model_refuses_it(data):
    from ensemble_repro.qwyc import QuitWhenYouCan

    X, y = data
    Xn = X.copy()
    Xn[3, 2] = np.nan
    gbt = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        gbt.predict(Xn)  # the model's own answer
    with pytest.raises(ValueError, match="Input X contains NaN"):
        QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(Xn)
    qwyc = QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(X)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        qwyc.predict(Xn)
    base, forest = flatten_model(gbt)
    with pytest.raises(ValueError, match=r"the model refuses NaN.*row 3, column 2"):
        CascadeTimer(forest, base).run(never_stop(forest.n_trees), Xn)
    # the histogram model routes NaN, and so does its cascade (same labels as the model)
    hgb = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    qwyc = QuitWhenYouCan(alpha=0.0, estimator=hgb).fit(X)
    assert np.array_equal(qwyc.predict(Xn), hgb.predict(Xn))


# --- parameters ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, message",
    [
        ({"stats_on_survivors": "no"}, "stats_on_survivors must be True or False; got 'no'"),
        ({"n_bins": True}, "n_bins must be an integer >= 1; got True"),
        ({"gamma": True}, r"gamma must be a number >= 0 \(inf allowed\); got True"),
    ],
)
def test_fan_parameters_checked(params, message):
    from ensemble_repro.qwyc import FanEarlyStopping

    F = np.random.default_rng(0).normal(size=(50, 4))
    kwargs = {"gamma": 1.0, **params}
    with pytest.raises(ValueError, match=message):
        FanEarlyStopping(**kwargs).fit_scores(0.0, F)


def test_qwyc_alpha_bool_refused():
    from ensemble_repro.qwyc import QuitWhenYouCan

    F = np.random.default_rng(0).normal(size=(50, 4))
    with pytest.raises(ValueError, match=r"alpha must be a number in \[0, 1\); got False"):
        QuitWhenYouCan(alpha=False).fit_scores(0.0, F)


def test_timer_checks_arrays_changed_in_place_after_construction(model):
    X, _, base, forest = model
    timer = CascadeTimer(forest, base)
    cascade = never_stop(forest.n_trees)
    cascade.order[0] = 10**8  # the dataclass is frozen, its arrays are not
    with pytest.raises(ValueError, match=r"order must be a permutation of range\(4\)"):
        timer.run(cascade, X)
    bad = dataclasses.replace(forest, roots=forest.roots.copy())
    bad.roots[1] = 10**8
    timer = CascadeTimer(bad, base)
    with pytest.raises(ValueError, match="roots must be at least one node index"):
        timer.run(never_stop(forest.n_trees), X)


@pytest.mark.parametrize(
    "args, message",
    [
        (("forest", 0.0), "forest must be a FlatForest .*got str"),
        ((None, float("nan")), r"base must be a finite number .*got nan"),
    ],
)
def test_timer_arguments_checked(model, args, message):
    _, _, _, forest = model
    forest_arg = forest if args[0] is None else args[0]
    with pytest.raises(ValueError, match=message):
        CascadeTimer(forest_arg, args[1])


def test_per_example_times_runs_checked(model):
    X, _, base, forest = model
    timer = CascadeTimer(forest, base)
    with pytest.raises(ValueError, match="runs must be a positive integer; got 0"):
        timer.per_example_times({"full": never_stop(forest.n_trees)}, X, runs=0)
