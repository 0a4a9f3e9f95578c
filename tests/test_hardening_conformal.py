"""J+aB, J+ensemble and J+: parameters checked the scikit-learn way (names in the messages),
and ``from_bagging`` only on the rows the model was fitted on."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import BaggingRegressor, RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import Ridge

from ensemble_repro.conformal import (
    JackknifePlus,
    JackknifePlusAfterBootstrap,
    JackknifePlusEnsemble,
)
from ensemble_repro.learners import PaperRidge


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
