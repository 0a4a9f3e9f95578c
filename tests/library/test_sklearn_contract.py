"""The scikit-learn estimator contract of the conformal estimators and the paper's learners.

``parametrize_with_checks`` runs every check of scikit-learn's ``check_estimator`` (no check is
declared as an expected failure). Small base estimators and B keep each check fast.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from ensemble_repro.conformal import (
    JackknifePlus,
    JackknifePlusAfterBootstrap,
    JackknifePlusEnsemble,
)
from ensemble_repro.learners import PaperRidge

ESTIMATORS = [
    PaperRidge(),
    JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=5),
    JackknifePlusAfterBootstrap(
        DecisionTreeRegressor(max_depth=3, max_features=0.7),
        n_resamples=4,
        resample_size=0.8,
        replace=False,
        aggregation="median",
        random_state=0,
    ),
    JackknifePlusEnsemble(PaperRidge(), n_resamples=2),
    JackknifePlus(DecisionTreeRegressor(max_depth=3, max_features=0.7), random_state=0),
]
EXPECTED_FAILED_CHECKS = {}  # every check applies


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS)
def test_sklearn_check_estimator(estimator, check):
    check(estimator)


CONFORMAL = [
    lambda: JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=6, random_state=0),
    lambda: JackknifePlusEnsemble(PaperRidge(), n_resamples=2, random_state=0),
    lambda: JackknifePlus(PaperRidge()),
]
NAMES = ["jab", "jplus_ensemble", "jplus"]


def frame(seed=0, n=30):
    rng = np.random.RandomState(seed)
    X = pd.DataFrame(rng.randn(n, 3), columns=["a", "b", "c"])
    y = X @ [1.0, -2.0, 3.0] + rng.randn(n)
    return X, y


@pytest.mark.parametrize("make", CONFORMAL, ids=NAMES)
def test_reordered_columns_raise_instead_of_changing_predictions(make):
    X, y = frame()
    est = make().fit(X, y)
    np.testing.assert_array_equal(est.feature_names_in_, ["a", "b", "c"])
    reordered = X[["c", "a", "b"]]
    for method in (est.predict, est.predict_interval):
        with pytest.raises(
            ValueError, match="Feature names must be in the same order as they were in fit"
        ):
            method(reordered)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        est.predict(X.to_numpy())


@pytest.mark.parametrize("make", CONFORMAL, ids=NAMES)
def test_n_features_checked_at_predict(make):
    X, y = frame()
    est = make().fit(X.to_numpy(), y.to_numpy())
    for method in (est.predict, est.predict_interval):
        with pytest.raises(
            ValueError,
            match=f"X has 2 features, but {type(est).__name__} is expecting 3 features as input",
        ):
            method(X.to_numpy()[:, :2])


@pytest.mark.parametrize("make", CONFORMAL, ids=NAMES)
def test_predict_before_fit_is_not_fitted_error(make):
    X, _ = frame()
    for method in ("predict", "predict_interval"):
        with pytest.raises(NotFittedError):
            getattr(make(), method)(X)


@pytest.mark.parametrize(
    "cls,kwargs",
    [(JackknifePlusEnsemble, {"n_resamples": 3, "aggregation": "median"}), (JackknifePlus, {})],
)
def test_leave_one_out_point_prediction_and_score(cls, kwargs):
    """predict = phi over every fitted model (J+: the mean of the n leave-one-out models)."""
    X, y = frame(1)
    X, y = X.to_numpy(), y.to_numpy()
    est = cls(PaperRidge(), random_state=2, **kwargs).fit(X[:25], y[:25])
    every = np.array([m.predict(X[25:]) for models in est.estimators_ for m in models])
    phi = np.median if kwargs.get("aggregation") == "median" else np.mean
    np.testing.assert_allclose(est.predict(X[25:], chunk_size=2), phi(every, axis=0), atol=1e-12)
    residual = y[25:] - est.predict(X[25:])
    r2 = 1 - (residual**2).sum() / ((y[25:] - y[25:].mean()) ** 2).sum()
    assert est.score(X[25:], y[25:]) == pytest.approx(r2)


def test_paper_ridge_fast_path_equals_validated_path():
    """Plain float64 arrays skip validate_data; any other input goes through it: same model."""
    X, y = frame(2)
    plain = PaperRidge().fit(X.to_numpy(), y.to_numpy())
    for Xin, yin in (
        (X, y),
        (X.to_numpy().tolist(), y.tolist()),
        (np.asfortranarray(X.to_numpy(dtype=np.float32)), y.to_numpy()),
    ):
        other = PaperRidge().fit(Xin, yin)
        np.testing.assert_allclose(other.coef_, plain.coef_, rtol=1e-6)
    refit = PaperRidge().fit(X, y).fit(X.to_numpy(), y.to_numpy())  # names forgotten on refit
    assert not hasattr(refit, "feature_names_in_")
    with pytest.raises(ValueError, match="Input X contains NaN"):
        PaperRidge().fit(np.where(X.to_numpy() > 1, np.nan, X.to_numpy()), y.to_numpy())
    with pytest.raises(ValueError, match="X has 2 features, but PaperRidge is expecting 3"):
        plain.predict(X.to_numpy()[:, :2])
