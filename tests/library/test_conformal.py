"""J+aB, J+ensemble, J+ against naive per-point references; Binomial B; input checks; from_bagging."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import trim_mean
from sklearn.base import clone
from sklearn.dummy import DummyRegressor
from sklearn.ensemble import (
    BaggingRegressor,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

from ensemble_repro.conformal import (
    JackknifePlus,
    JackknifePlusAfterBootstrap,
    JackknifePlusEnsemble,
    binomial_probability,
    draw_n_resamples,
    oob_aggregate,
    paper_n_resamples,
    plus_interval,
    quantile_ranks,
)
from ensemble_repro.conformal.estimators import seed_estimator, seed_keys
from ensemble_repro.learners import PaperRidge, make_learner

PHI = {"mean": np.mean, "median": np.median, "trimmed_mean": lambda v: trim_mean(v, 0.25)}


def naive_phi(values, aggregation):
    return PHI[aggregation](np.asarray(values)) if len(values) else 0.0


def naive_interval(mu_test, residuals, alpha, method):
    """Per-test-point order statistics, written from the paper's definitions."""
    n = len(residuals)
    lo_rank = int(np.floor(alpha * (n + 1) + 1e-9))
    hi_rank = int(np.ceil((1 - alpha) * (n + 1) - 1e-9))
    lower, upper = [], []
    for mu in mu_test:  # mu: the n leave-one-out predictions at one test point
        if method == "plus":
            up = sorted(mu[i] + residuals[i] for i in range(n))
            dn = sorted(mu[i] - residuals[i] for i in range(n))
            upper.append(up[hi_rank - 1] if hi_rank <= n else np.inf)
            lower.append(dn[lo_rank - 1] if lo_rank >= 1 else -np.inf)
        else:
            q = sorted(residuals)[hi_rank - 1] if hi_rank <= n else np.inf
            lower.append(min(mu) - q)
            upper.append(max(mu) + q)
    return np.array(lower), np.array(upper)


def naive_jab(models, resamples, X, y, X_test, aggregation, alpha, method):
    n = len(y)
    oob = [[b for b, s in enumerate(resamples) if i not in set(s)] for i in range(n)]
    residuals = [
        abs(y[i] - naive_phi([models[b].predict(X[i : i + 1])[0] for b in oob[i]], aggregation))
        for i in range(n)
    ]
    preds = [mdl.predict(X_test) for mdl in models]
    mu_test = [
        [naive_phi([preds[b][j] for b in oob[i]], aggregation) for i in range(n)]
        for j in range(len(X_test))
    ]
    return naive_interval(mu_test, residuals, alpha, method)


CONFORMAL_FACTORIES = [
    lambda: JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=8, random_state=0),
    lambda: JackknifePlusEnsemble(PaperRidge(), n_resamples=2, random_state=0),
    lambda: JackknifePlus(PaperRidge()),
]


def make_data(seed, n=20, k=15, p=3):
    rng = np.random.RandomState(seed)
    X = rng.randn(n + k, p)
    y = X @ rng.randn(p) + rng.standard_t(2, n + k)
    return X[:n], y[:n], X[n:], y[n:]


@pytest.mark.parametrize("aggregation", ["mean", "median", "trimmed_mean"])
@pytest.mark.parametrize("method", ["plus", "minmax"])
@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("random_B", [True, False])
def test_jab_matches_naive_reference(aggregation, method, replace, random_B):
    X, y, X_test, _ = make_data(1)
    # A shallow tree gives tied predictions; few resamples give empty out-of-bag sets.
    for est, n_res in ((PaperRidge(), 12), (DecisionTreeRegressor(max_depth=2), 4)):
        jab = JackknifePlusAfterBootstrap(
            est,
            n_resamples=n_res,
            resample_size=0.7,
            replace=replace,
            random_B=random_B,
            aggregation=aggregation,
            method=method,
            random_state=3,
        ).fit(X, y)
        lower, upper = jab.predict_interval(X_test, alpha=0.15).T
        ref_lower, ref_upper = naive_jab(
            jab.estimators_, jab.resamples_, X, y, X_test, aggregation, 0.15, method
        )
        np.testing.assert_allclose(lower, ref_lower, rtol=0, atol=1e-12)
        np.testing.assert_allclose(upper, ref_upper, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(
            jab.oob_counts_, [sum(i not in set(s) for s in jab.resamples_) for i in range(len(y))]
        )


def test_empty_oob_sets_counted_and_zero():
    X, y, X_test, _ = make_data(2)
    jab = JackknifePlusAfterBootstrap(
        PaperRidge(), n_resamples=2, resample_size=1.0, random_state=0
    ).fit(X, y)
    empty = jab.oob_counts_ == 0
    assert empty.any()
    np.testing.assert_allclose(jab.residuals_[empty], np.abs(y[empty]))  # mu_{-i} = 0


@pytest.mark.parametrize("B", [1, 9, 63, 64, 65, 128, 300])  # one and several 64-bit words
def test_oob_aggregate_matches_naive_with_ties(B):
    rng = np.random.RandomState(B)
    P = rng.randint(0, 4, size=(B, 7)).astype(float)  # many ties
    in_bag = rng.rand(B, 11) < 0.5
    in_bag[:, 0] = True  # an empty out-of-bag set
    for agg in PHI:
        got = oob_aggregate(P, in_bag, agg)
        ref = [[naive_phi(P[~in_bag[:, i], j], agg) for i in range(11)] for j in range(7)]
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", ["narrow", "wide", "ties", "constant"])
@pytest.mark.parametrize("alpha", [0.01, 0.1, 0.33])
def test_plus_interval_matches_naive(case, alpha):
    """The residual band of plus_interval (narrow and wide bands, ties) against full sorting."""
    rng = np.random.RandomState(len(case))
    n, k = 300, 40
    residuals = np.abs(rng.standard_t(2, n))
    loo = rng.randn(k, 1) + {"narrow": 1e-3, "wide": 10.0, "ties": 0.0, "constant": 0.0}[
        case
    ] * rng.randn(k, n)
    if case == "ties":
        residuals = np.round(residuals, 1)
        loo = loo + rng.randint(0, 3, size=(k, n)) * 0.1
    got = plus_interval(loo, residuals, alpha)
    ref = naive_interval(loo, residuals, alpha, "plus")
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])


LOO_CASES = [
    (JackknifePlusEnsemble, {"n_resamples": 3, "resample_size": 0.8, "aggregation": agg}, agg)
    for agg in PHI
] + [(JackknifePlus, {}, "mean")]


@pytest.mark.parametrize("cls,kwargs,aggregation", LOO_CASES)
@pytest.mark.parametrize("method", ["plus", "minmax"])
def test_jackknife_plus_matches_naive(cls, kwargs, aggregation, method):
    X, y, X_test, _ = make_data(4)
    est = cls(PaperRidge(), method=method, random_state=5, **kwargs).fit(X, y)
    n = len(y)
    mu_self, mu_test = [], []
    for i in range(n):
        assert all(i not in set(s) for s in est.resamples_[i])  # row i left out of X and y
        # Refit from scratch on the recorded leave-one-out resamples.
        models = [PaperRidge().fit(X[s], y[s]) for s in est.resamples_[i]]
        mu_self.append(naive_phi([m.predict(X[i : i + 1])[0] for m in models], aggregation))
        mu_test.append(
            [
                naive_phi([m.predict(X_test[j : j + 1])[0] for m in models], aggregation)
                for j in range(len(X_test))
            ]
        )
    residuals = np.abs(y - np.array(mu_self))
    ref = naive_interval(np.array(mu_test).T, residuals, 0.1, method)
    got = est.predict_interval(X_test, alpha=0.1).T
    np.testing.assert_allclose(got[0], ref[0], atol=1e-10, rtol=0)
    np.testing.assert_allclose(got[1], ref[1], atol=1e-10, rtol=0)


def test_quantile_ranks_and_infinite_bounds():
    assert quantile_ranks(40, 0.1) == (4, 37)
    assert quantile_ranks(9, 0.1) == (1, 9)  # 0.9 * 10 is 9.000000000000002 in floating point
    X, y, X_test, _ = make_data(5, n=5)
    lower, upper = (
        JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=10, random_state=0)
        .fit(X, y)
        .predict_interval(X_test, alpha=0.1)
        .T
    )
    assert np.isinf(upper).all() and np.isinf(lower).all() and (lower < 0).all()


@pytest.mark.parametrize("replace,m", [(True, 30), (False, 12)])
def test_binomial_B_mean_and_variance(replace, m):
    n, n_tilde, draws = 40, 25, 20000
    p = binomial_probability(n, m, replace)
    rng = np.random.RandomState(0)
    B = np.array([draw_n_resamples(n_tilde, n, m, replace, rng) for _ in range(draws)])
    assert abs(B.mean() - n_tilde * p) < 4 * np.sqrt(n_tilde * p * (1 - p) / draws)
    assert abs(B.var() / (n_tilde * p * (1 - p)) - 1) < 0.05
    # Through the estimator: random_B draws the same Binomial; fixed B is exactly n_resamples.
    X, y, _, _ = make_data(6, n=n)
    drawn = [
        JackknifePlusAfterBootstrap(
            DummyRegressor(),
            n_resamples=n_tilde,
            resample_size=m,
            replace=replace,
            random_B=True,
            random_state=s,
        )
        .fit(X, y)
        .n_resamples_
        for s in range(300)
    ]
    assert abs(np.mean(drawn) - n_tilde * p) < 4 * np.sqrt(n_tilde * p * (1 - p) / 300)
    fixed = JackknifePlusAfterBootstrap(
        DummyRegressor(), n_resamples=n_tilde, resample_size=m, replace=replace, random_state=1
    ).fit(X, y)
    assert fixed.n_resamples_ == n_tilde == len(fixed.estimators_) == len(fixed.resamples_)


def test_paper_n_resamples():
    n, m = 40, 24
    p = (1 - 1 / 41) ** 24
    assert paper_n_resamples(20, n, m, "loo") == int(20 / (p * (1 - 1 / 40) ** 24))
    assert paper_n_resamples(50, 200, 120, "fits") == int(50 / (1 - 1 / 201) ** 120)
    # Expected models per leave-one-out set ~ 20, as J+ensemble with B = 20.
    assert abs(paper_n_resamples(20, n, m, "loo") * p * (1 - 1 / 40) ** 24 - 20) < 1


@pytest.mark.parametrize("random_state", [7, np.random.RandomState(7), None])
def test_out_of_bag_sets_are_the_fitted_resamples(random_state):
    X, y, _, _ = make_data(7)
    jab = JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=8, random_state=random_state).fit(
        X, y
    )
    for model, s in zip(jab.estimators_, jab.resamples_, strict=False):
        np.testing.assert_allclose(model.coef_, PaperRidge().fit(X[s], y[s]).coef_, atol=1e-12)


def test_from_bagging_equals_fit_with_same_resamples():
    X, y, X_test, _ = make_data(8, n=30)
    bag = BaggingRegressor(PaperRidge(), n_estimators=15, random_state=0).fit(X, y)
    for agg in PHI:
        wrapped = JackknifePlusAfterBootstrap.from_bagging(bag, X, y, aggregation=agg)
        assert wrapped.estimators_[0] is bag.estimators_[0]  # nothing refitted
        refit = JackknifePlusAfterBootstrap(PaperRidge(), aggregation=agg).fit(
            X, y, resamples=bag.estimators_samples_
        )
        for a, b in zip(
            wrapped.predict_interval(X_test), refit.predict_interval(X_test), strict=False
        ):
            np.testing.assert_allclose(a, b, atol=1e-10, rtol=0)
    np.testing.assert_allclose(
        JackknifePlusAfterBootstrap.from_bagging(bag, X, y).predict(X_test),
        bag.predict(X_test),
        atol=1e-10,
    )


@pytest.mark.parametrize(
    "kwargs,fit_args,match",
    [
        ({}, ("1d",), "Expected 2D array, got 1D array"),
        ({}, ("nan_x",), "X contains NaN"),
        ({}, ("inf_y",), "Input y contains infinity"),
        ({}, ("mismatch",), "inconsistent numbers of samples: \\[20, 19\\]"),
        ({}, ("n1",), r"Found array with 1 sample\(s\) .* minimum of 2 is required"),
        ({"replace": False, "resample_size": 30}, (), "impossible without replacement"),
        ({"aggregation": "mode"}, (), "aggregation must be one of"),
        ({"method": "cv"}, (), "method must be one of"),
        ({"n_resamples": 0}, (), "n_resamples must be a positive integer"),
    ],
)
def test_bad_input(kwargs, fit_args, match):
    X, y, _, _ = make_data(9)
    if fit_args:
        X, y = {
            "1d": (X[:, 0], y),
            "nan_x": (np.where(X > 1, np.nan, X), y),
            "inf_y": (X, np.where(y > 0, np.inf, y)),
            "mismatch": (X, y[:-1]),
            "n1": (X[:1], y[:1]),
        }[fit_args[0]]
    with pytest.raises(ValueError, match=match):
        JackknifePlusAfterBootstrap(PaperRidge(), **kwargs).fit(X, y)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, "0.1"])
def test_bad_alpha(alpha):
    X, y, X_test, _ = make_data(10)
    for est in (
        JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=5, random_state=0),
        JackknifePlus(PaperRidge()),
    ):
        with pytest.raises(ValueError, match="alpha must be a number strictly between 0 and 1"):
            est.fit(X, y).predict_interval(X_test, alpha=alpha)


def test_make_learner():
    rf, nn = make_learner("rf", 3), make_learner("nn", 3)
    assert (rf.n_estimators, rf.criterion, rf.bootstrap, rf.random_state) == (
        20,
        "absolute_error",
        False,
        3,
    )
    assert (nn.solver, nn.activation) == ("lbfgs", "logistic")
    X, y, _, _ = make_data(11, n=50, p=4)
    ridge = make_learner("ridge").fit(X, y)
    lam = 1e-3 * np.linalg.norm(X, 2) ** 2
    Xc, yc = X - X.mean(0), y - y.mean()
    np.testing.assert_allclose(ridge.coef_, np.linalg.solve(Xc.T @ Xc + lam * np.eye(4), Xc.T @ yc))
    np.testing.assert_allclose(ridge.intercept_, y.mean() - X.mean(0) @ ridge.coef_)
    # Fewer rows than features: the dual (m x m) solution equals the primal one.
    Xw, yw = X[:10], y[:10]
    Xw = np.hstack([Xw, np.random.RandomState(0).randn(10, 20)])
    wide = make_learner("ridge").fit(Xw, yw)
    lam = 1e-3 * np.linalg.norm(Xw, 2) ** 2
    Xc, yc = Xw - Xw.mean(0), yw - yw.mean()
    np.testing.assert_allclose(
        wide.coef_, np.linalg.solve(Xc.T @ Xc + lam * np.eye(24), Xc.T @ yc), atol=1e-10
    )
    with pytest.raises(ValueError, match="learner must be one of"):
        make_learner("svm")
    # A Generator seeds the learners too (scikit-learn's own reject it).
    X, y, X_test, _ = make_data(25, n=30)
    preds = [
        make_learner("rf", np.random.default_rng(1)).fit(X, y).predict(X_test) for _ in range(2)
    ]
    np.testing.assert_array_equal(*preds)
    assert isinstance(
        make_learner("nn", np.random.default_rng(1)).random_state, np.random.RandomState
    )


def test_interval_memory_bounded_for_blog_sized_test_set():
    """n = 200, B = 50, 52k test points (Blog): the chunked kernels stay far below 1 GB."""
    import tracemalloc

    from ensemble_repro.conformal import jab_interval

    rng = np.random.RandomState(0)
    n, B, k = 200, 50, 52000
    P = rng.randn(B, k)
    in_bag = rng.rand(B, n) < 0.63
    residuals = np.abs(rng.randn(n))
    tracemalloc.start()
    for agg in ("mean", "trimmed_mean"):
        lower, upper = jab_interval(P, in_bag, residuals, 0.1, agg)
        assert lower.shape == upper.shape == (k,) and (lower <= upper).all()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 300 * 2**20, peak / 2**20


# ----------------------------------------------------------------------------- random_state
def rf_pipeline():
    return make_pipeline(
        StandardScaler(), RandomForestRegressor(n_estimators=3, max_features=0.5, max_depth=3)
    )


LOO_AND_JAB = [
    lambda rs: JackknifePlusAfterBootstrap(rf_pipeline(), n_resamples=4, random_state=rs),
    lambda rs: JackknifePlusEnsemble(rf_pipeline(), n_resamples=2, random_state=rs),
    lambda rs: JackknifePlus(rf_pipeline(), random_state=rs),
]


@pytest.mark.parametrize("make", LOO_AND_JAB, ids=["jab", "jplus_ensemble", "jplus"])
def test_nested_random_state_seeded_so_fits_repeat(make):
    """A Pipeline(StandardScaler(), RandomForestRegressor()) has only a nested random_state."""
    X, y, X_test, _ = make_data(12, n=15)
    first = make(0).fit(X, y).predict_interval(X_test)
    np.testing.assert_array_equal(make(0).fit(X, y).predict_interval(X_test), first)
    assert not np.array_equal(make(1).fit(X, y).predict_interval(X_test), first)


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_seed_estimator_is_baggings_rule(seed):
    """Same nested seeds as scikit-learn's _set_random_states (what BaggingRegressor uses)."""
    from sklearn.ensemble._base import _set_random_states

    estimator = make_pipeline(
        StandardScaler(), BaggingRegressor(DecisionTreeRegressor()), RandomForestRegressor()
    )
    ours, ref = seed_estimator(clone(estimator), seed), clone(estimator)
    _set_random_states(ref, seed)
    keys = seed_keys(estimator)
    assert len(keys) == 3
    assert [ours.get_params()[k] for k in keys] == [ref.get_params()[k] for k in keys]
    assert len({ours.get_params()[k] for k in keys}) == 3


def test_generator_random_state_accepted_and_consumed():
    X, y, X_test, _ = make_data(13)

    def bounds(rs):
        return (
            JackknifePlusAfterBootstrap(
                DecisionTreeRegressor(max_features=0.5),
                n_resamples=6,
                random_B=True,
                random_state=rs,
            )
            .fit(X, y)
            .predict_interval(X_test)
        )

    same = [bounds(np.random.default_rng(3)) for _ in range(2)]
    np.testing.assert_array_equal(*same)
    gen = np.random.default_rng(3)
    first = bounds(gen)
    assert not np.array_equal(bounds(gen), first)  # the Generator advanced, like a RandomState
    # Drawn through the Generator's own bit generator: same as a RandomState wrapping it.
    np.testing.assert_array_equal(
        bounds(np.random.RandomState(np.random.default_rng(3).bit_generator)), first
    )


# ----------------------------------------------------------------------------- from_bagging
@pytest.mark.parametrize(
    "model",
    [
        RandomForestRegressor(n_estimators=40, max_depth=4, oob_score=True, random_state=0),
        RandomForestRegressor(n_estimators=40, max_samples=0.7, oob_score=True, random_state=1),
        ExtraTreesRegressor(
            n_estimators=40, bootstrap=True, max_samples=25, oob_score=True, random_state=2
        ),
        BaggingRegressor(PaperRidge(), n_estimators=40, oob_score=True, random_state=3),
        BaggingRegressor(
            DecisionTreeRegressor(),
            n_estimators=40,
            max_samples=0.8,
            max_features=2,
            bootstrap_features=True,
            oob_score=True,
            random_state=4,
        ),
    ],
    ids=["rf", "rf_max_samples", "extra_trees", "bagging_ridge", "bagging_subsample_features"],
)
def test_from_bagging_out_of_bag_predictions_equal_the_models(model):
    """The recovered resamples reproduce the model's own out-of-bag predictions."""
    X, y, X_test, _ = make_data(14, n=40)
    model.fit(X, y)
    jab = JackknifePlusAfterBootstrap.from_bagging(model, X, y)
    assert (jab.oob_counts_ > 0).all()
    np.testing.assert_allclose(jab.oob_prediction_, model.oob_prediction_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(jab.predict(X_test), model.predict(X_test), rtol=1e-12, atol=1e-12)
    assert jab.estimators_[0] is model.estimators_[0]
    bounds = jab.predict_interval(X_test, alpha=0.2)
    assert bounds.shape == (len(X_test), 2) and (bounds[:, 0] <= bounds[:, 1]).all()


@pytest.mark.parametrize(
    "model",
    [RandomForestRegressor(n_estimators=3, bootstrap=False), ExtraTreesRegressor(n_estimators=3)],
)
def test_from_bagging_forest_without_bootstrap_is_an_error(model):
    X, y, _, _ = make_data(15)
    with pytest.raises(
        ValueError,
        match="bootstrap=False: every tree saw every row, so there are no out-of-bag sets",
    ):
        JackknifePlusAfterBootstrap.from_bagging(model.fit(X, y), X, y)


def test_from_bagging_rejects_other_data_and_models():
    X, y, _, _ = make_data(16, n=30)
    rf = RandomForestRegressor(n_estimators=20, oob_score=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="must be the data the model was fitted on"):
        JackknifePlusAfterBootstrap.from_bagging(rf, X[:20], y[:20])
    with pytest.raises(ValueError, match="X has 2 columns but the model was fitted on 3"):
        JackknifePlusAfterBootstrap.from_bagging(rf, X[:, :2], y)
    with pytest.raises(ValueError, match="must be a fitted BaggingRegressor, RandomForest"):
        JackknifePlusAfterBootstrap.from_bagging(
            RandomForestClassifier(n_estimators=2).fit(X, y > 0), X, y
        )


# ----------------------------------------------------------------------------- several alphas
@pytest.mark.parametrize(
    "make",
    [
        lambda: JackknifePlusAfterBootstrap(
            PaperRidge(), n_resamples=15, aggregation="median", random_state=0
        ),
        lambda: JackknifePlusEnsemble(PaperRidge(), n_resamples=2, random_state=0),
        lambda: JackknifePlus(PaperRidge(), method="minmax"),
    ],
    ids=["jab", "jplus_ensemble", "jplus_minmax"],
)
def test_sequence_of_alphas_one_column_each(make):
    X, y, X_test, _ = make_data(17)
    est = make().fit(X, y)
    alphas = [0.05, 0.1, 0.3]
    bounds = est.predict_interval(X_test, alpha=np.array(alphas))
    assert bounds.shape == (len(X_test), 2, 3)
    for a, alpha in enumerate(alphas):
        one = est.predict_interval(X_test, alpha=alpha)
        assert one.shape == (len(X_test), 2)
        np.testing.assert_array_equal(bounds[:, :, a], one)
    with pytest.raises(ValueError, match="or a non-empty 1-D sequence of such numbers; got \\[\\]"):
        est.predict_interval(X_test, alpha=[])
    with pytest.raises(ValueError, match="strictly between 0 and 1.*got \\[0.1, 1.2\\]"):
        est.predict_interval(X_test, alpha=[0.1, 1.2])


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("make", CONFORMAL_FACTORIES, ids=["jab", "jplus_ensemble", "jplus"])
def test_complex_X_rejected(make):
    X, y, X_test, _ = make_data(18)
    with pytest.raises(ValueError, match="Complex data not supported"):
        make().fit(X + 1j, y)
    est = make().fit(X, y)
    with pytest.raises(ValueError, match="Complex data not supported"):
        est.predict_interval(X_test + 1j)


@pytest.mark.parametrize(
    "make",
    CONFORMAL_FACTORIES[:2]
    + [lambda: JackknifePlus(DecisionTreeRegressor(max_depth=2), random_state=0)],
    ids=["jab", "jplus_ensemble", "jplus_tree"],
)
def test_inverted_interval_warns_naming_alpha_and_n(make):
    """alpha > 0.5 can put the lower quantile above the upper one (J+ of ridge at this alpha
    is not inverted: its leave-one-out models are too close; a tree's are not)."""
    X, y, X_test, _ = make_data(19)
    est = make().fit(X, y)
    with pytest.warns(
        UserWarning,
        match=r"alpha = 0.999 is too large for n = 20 training points: "
        r"the lower bound exceeds the upper bound at \d+ of 15",
    ):
        bounds = est.predict_interval(X_test, alpha=[0.1, 0.999])
    assert (bounds[:, 0, 1] > bounds[:, 1, 1]).any()  # returned as computed (documented)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est.predict_interval(X_test, alpha=0.4)  # no warning when the interval is not inverted


def test_every_out_of_bag_set_empty_warns():
    X, y, X_test, _ = make_data(20)
    with pytest.warns(
        UserWarning,
        match=r"every out-of-bag set is empty: each training point is "
        r"in all 5 resamples \(m = 20 of n = 20 points, "
        r"replace=False\).*intervals are centred at 0.*use "
        r"resample_size < n",
    ):
        jab = JackknifePlusAfterBootstrap(
            PaperRidge(), n_resamples=5, resample_size=1.0, replace=False, random_state=0
        ).fit(X, y)
    np.testing.assert_array_equal(jab.residuals_, np.abs(y))  # the paper's convention, kept


def test_random_B_drawing_zero_models_warns():
    X, y, X_test, _ = make_data(21)
    with pytest.warns(
        UserWarning,
        match=r"random_B=True drew B = 0 models from Binomial\("
        r"n_resamples = 2, p = .*increase n_resamples",
    ):
        jab = JackknifePlusAfterBootstrap(
            PaperRidge(), n_resamples=2, resample_size=10.0, random_B=True, random_state=0
        ).fit(X, y)
    assert jab.n_resamples_ == 0
    np.testing.assert_array_equal(jab.predict(X_test), 0.0)
    with pytest.warns(UserWarning, match=r"resamples is empty \(B = 0 models\)"):
        JackknifePlusAfterBootstrap(PaperRidge()).fit(X, y, resamples=[])


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan, True, "0.5", 0.0])
def test_bad_resample_size_names_argument(value):
    X, y, _, _ = make_data(22)
    for est in (
        JackknifePlusAfterBootstrap(PaperRidge(), resample_size=value),
        JackknifePlusEnsemble(PaperRidge(), resample_size=value),
    ):
        with pytest.raises(
            ValueError,
            match="resample_size must be a positive finite fraction "
            r"of n \(a float, e.g. 0.6 for m = 0.6 n\) or a "
            r"positive count \(an int, e.g. 120\); got",
        ):
            est.fit(X, y)


@pytest.mark.parametrize("value", ["x", 0, 1.5, True])
@pytest.mark.parametrize("make", CONFORMAL_FACTORIES, ids=["jab", "jplus_ensemble", "jplus"])
def test_bad_n_jobs_names_argument(make, value):
    X, y, _, _ = make_data(23)
    with pytest.raises(
        ValueError,
        match=f"n_jobs must be None, a positive number of worker processes.*; got {value!r}",
    ):
        make().set_params(n_jobs=value).fit(X, y)


@pytest.mark.parametrize("make", CONFORMAL_FACTORIES, ids=["jab", "jplus_ensemble", "jplus"])
def test_pandas_na_names_the_column(make):
    X, y, X_test, _ = make_data(24)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).astype("Float64")
    frame.loc[3, "b"] = pd.NA
    with pytest.raises(ValueError, match=r"X has missing values \(NA/NaN\) in column\(s\) 'b'"):
        make().fit(frame, y)
    target = pd.Series(y, dtype="Float64")
    target[0] = pd.NA
    with pytest.raises(ValueError, match=r"y has 1 missing values \(NA/NaN\)"):
        make().fit(X, target)
    est = make().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    test = pd.DataFrame(X_test, columns=["a", "b", "c"]).astype("Float64")
    test.loc[0, "c"] = pd.NA
    with pytest.raises(ValueError, match=r"X has missing values \(NA/NaN\) in column\(s\) 'c'"):
        est.predict_interval(test)


# ----------------------------------------------------------------------
# J+aB, J+ensemble and J+: parameters checked the scikit-learn way (names in the messages),
# and ``from_bagging`` only on the rows the model was fitted on.
# ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    return X, X @ [1.0, 2.0, 3.0] + rng.randn(60)


ESTIMATORS = [
    lambda est, **kw: JackknifePlusAfterBootstrap(est, n_resamples=4, **kw),
    lambda est, **kw: JackknifePlusEnsemble(est, n_resamples=2, **kw),
    lambda est, **kw: JackknifePlus(est, **kw),
]


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize(
    "estimator, message",
    [
        (None, "got None"),
        (Ridge, "got the class Ridge"),
        ("ridge", "got 'ridge'"),
        (RandomForestClassifier(n_estimators=2), "got the classifier RandomForestClassifier"),
    ],
)
def test_base_estimator_must_be_a_regressor(data, make, estimator, message):
    X, y = data
    with pytest.raises(ValueError, match=rf"estimator must be .*{message}"):
        make(estimator).fit(X[:12], y[:12])


@pytest.mark.parametrize(
    "make, param, value",
    [
        (ESTIMATORS[0], "replace", "False"),
        (ESTIMATORS[0], "random_B", "no"),
        (ESTIMATORS[0], "replace", 0),
        (ESTIMATORS[1], "replace", "False"),
    ],
)
def test_booleans_must_be_booleans(data, make, param, value):
    X, y = data
    with pytest.raises(ValueError, match=rf"{param} must be True or False; got {value!r}"):
        make(Ridge(), **{param: value}).fit(X[:12], y[:12])


def test_numpy_booleans_accepted(data):
    X, y = data
    jab = JackknifePlusAfterBootstrap(Ridge(), n_resamples=4, replace=np.bool_(False))
    jab.set_params(resample_size=0.5).fit(X, y)
    assert jab.resamples_[0].size == 30 and np.unique(jab.resamples_[0]).size == 30


@pytest.mark.parametrize("chunk_size", [-1, 0, 2.5, "8"])
@pytest.mark.parametrize("method", ["predict", "predict_interval"])
def test_chunk_size_checked(data, chunk_size, method):
    """chunk_size -1, 0, 2.5 and "8" are refused with a message naming the argument."""
    X, y = data
    est = JackknifePlus(Ridge()).fit(X[:12], y[:12])
    with pytest.raises(
        ValueError, match=rf"chunk_size must be a positive integer; got {chunk_size!r}"
    ):
        getattr(est, method)(X[:10], chunk_size=chunk_size)
    assert getattr(est, method)(X[:10], chunk_size=3).shape[0] == 10


def test_float_n_resamples_named(data):
    X, y = data
    with pytest.raises(ValueError, match=r"n_resamples must be a positive integer; got 4.0"):
        JackknifePlusAfterBootstrap(Ridge(), n_resamples=4.0).fit(X, y)


def test_huge_features_named(data):
    X, y = data
    with pytest.raises(ValueError, match=r"X has values up to .*e\+200 in magnitude.*Rescale X"):
        JackknifePlusAfterBootstrap(Ridge(), n_resamples=4).fit(X * 1e200, y)
    jab = JackknifePlusAfterBootstrap(Ridge(), n_resamples=4, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"X has values up to"):
        jab.predict_interval(X * 1e200)


def test_datetime_column_named(data):
    X, y = data
    df = pd.DataFrame({"a": X[:, 0], "when": pd.date_range("2020-01-01", periods=len(y))})
    with pytest.raises(ValueError, match=r"X has date/time values in column\(s\) 'when'"):
        JackknifePlusAfterBootstrap(Ridge(), n_resamples=4).fit(df, y)


def test_from_bagging_refuses_rows_the_model_was_not_fitted_on(data):
    """More rows gave narrower intervals instead of an error; other rows of the same number
    (here the fitting rows reversed) are caught by the trees' leaf means."""
    X, y = data
    rf = RandomForestRegressor(n_estimators=10, max_depth=4, random_state=0).fit(X[:40], y[:40])
    with pytest.raises(ValueError, match=r"do not fit n = 60 rows \(it was fitted on 40\)"):
        JackknifePlusAfterBootstrap.from_bagging(rf, X, y)
    with pytest.raises(ValueError, match=r"the mean of y over the rows that reach the leaves"):
        JackknifePlusAfterBootstrap.from_bagging(rf, X[:40][::-1], y[:40][::-1])
    with pytest.raises(ValueError, match=r"leaves of tree 0"):
        JackknifePlusAfterBootstrap.from_bagging(rf, X[20:], y[20:])
    jab = JackknifePlusAfterBootstrap.from_bagging(rf, X[:40], y[:40])
    assert jab.predict_interval(X[40:]).shape == (20, 2)


def test_from_bagging_accepts_its_own_data_with_feature_subsets(data):
    X, y = data
    bag = BaggingRegressor(
        n_estimators=6, max_features=2, bootstrap_features=True, random_state=0
    ).fit(X, y)
    jab = JackknifePlusAfterBootstrap.from_bagging(bag, X, y)
    assert jab.n_resamples_ == 6
    with pytest.raises(ValueError, match="the data the model was fitted on"):
        JackknifePlusAfterBootstrap.from_bagging(bag, X, y + 1.0)


@pytest.mark.parametrize(
    "resamples, shown",
    [
        ([[0.5, 1.2]], "[0.5, 1.2] (float64 of shape (2,))"),
        ([[0, 1], [True, False]], "[True, False] (bool of shape (2,))"),
        ([["a", "b"]], "['a', 'b'] (<U1 of shape (2,))"),
    ],
)
def test_resamples_must_be_integer_indices(resamples, shown):
    X, y = np.arange(20.0).reshape(10, 2), np.arange(10.0)
    jab = JackknifePlusAfterBootstrap(PaperRidge(), random_state=0)
    with pytest.raises(ValueError) as info:
        jab.fit(X, y, resamples=resamples)
    b = len(resamples) - 1
    assert str(info.value) == (
        f"resamples must be non-empty 1-D arrays of integer indices in [0, 10); "
        f"resamples[{b}] = {shown} is not: pass row numbers of X"
    )


@pytest.mark.parametrize("weights", ["uniform", "varied"])
def test_from_bagging_refuses_a_weighted_fit(weights):
    """Pure leaves (max_depth=None) hide the weights from the leaf-mean check."""
    rng = np.random.RandomState(0)
    X, y = rng.randn(40, 2), rng.randn(40)
    w = np.full(40, 3.0) if weights == "uniform" else rng.uniform(0.5, 2.0, 40)
    rf = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError) as info:
        JackknifePlusAfterBootstrap.from_bagging(rf, X, y)
    assert str(info.value).startswith("model was fitted with sample_weight (")
    assert str(info.value).endswith(
        "J+aB (Algorithm 2) weighs every training point equally, so its intervals would not "
        "be those of the weighted model. Refit the model without sample_weight"
    )
    unweighted = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    assert JackknifePlusAfterBootstrap.from_bagging(unweighted, X, y).n_resamples_ == 5
