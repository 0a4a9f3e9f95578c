"""QuitWhenYouCan / FanEarlyStopping as scikit-learn estimators.

``check_estimator`` / ``parametrize_with_checks`` cannot run on them as a whole: their ``fit``
learns from a *fitted* boosted model's per-tree scores (``estimator=gbt``, then ``fit(X)``) or
from score arrays (``fit_scores(base, F)``), and ignores ``y`` (the cascade imitates the full ensemble,
not the labels), so every check that calls ``fit(X, y)`` on generic data does not apply. The
checks that need no fit (parameters, clone, repr, tags, NotFittedError) run below; pickling,
``n_features_in_`` and feature names are tested directly.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import estimator_checks

from ensemble_repro.qwyc import FanEarlyStopping, QuitWhenYouCan, tree_scores

ESTIMATORS = [
    QuitWhenYouCan(0.01, ordering="natural", costs=np.arange(1.0, 9.0)),
    FanEarlyStopping(1.5, n_bins=4, ordering="random", random_state=3),
    QuitWhenYouCan(0.0, estimator=HistGradientBoostingClassifier(max_iter=3)),
]
API_CHECKS = [
    "check_get_params_invariance",
    "check_set_params",
    "check_no_attributes_set_in_init",
    "check_parameters_default_constructible",
    "check_estimator_repr",
    "check_estimator_cloneable",
    "check_mixin_order",
    "check_valid_tag_types",
    "check_estimators_unfitted",
]


@pytest.mark.parametrize("check", API_CHECKS)
@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sklearn_checks_that_apply(est, check):
    getattr(estimator_checks, check)(type(est).__name__, est)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_clone_keeps_params_and_drops_fit(est):
    c = clone(est)
    assert type(c) is type(est) and c is not est
    for k, v in est.get_params().items():
        assert (
            np.array_equal(c.get_params()[k], v)
            if isinstance(v, np.ndarray)
            else c.get_params()[k] == v
        )
    F = np.random.default_rng(0).normal(size=(60, 8))
    est.fit_scores(0.1, F)
    with pytest.raises(NotFittedError):
        clone(est).predict(F)


@pytest.mark.parametrize("method", ["predict", "evaluate", "n_evaluated", "score"])
@pytest.mark.parametrize("cls", [QuitWhenYouCan, FanEarlyStopping])
def test_not_fitted_error(cls, method):
    F = np.zeros((5, 4))
    args = (F, np.zeros(5)) if method == "score" else (F,)
    with pytest.raises(NotFittedError, match=cls.__name__):
        getattr(cls(0.5), method)(*args)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=500, n_features=6, random_state=0)
    labels = np.array(["no", "yes"])[y]
    return X, labels


@pytest.fixture(scope="module", params=["hist", "classic"])
def gbt(request, data):
    X, y = data
    if request.param == "hist":
        return HistGradientBoostingClassifier(max_iter=25, random_state=0).fit(X[:400], y[:400])
    return GradientBoostingClassifier(n_estimators=25, random_state=0).fit(X[:400], y[:400])


@pytest.mark.parametrize("cls,param", [(QuitWhenYouCan, 0.01), (FanEarlyStopping, 1.0)])
def test_fit_from_model_equals_fit_from_scores_and_returns_labels(cls, param, gbt, data):
    X, y = data
    a = cls(param, estimator=gbt).fit(X[:400])
    b = cls(param).fit_scores(*tree_scores(gbt, X[:400]))
    assert np.array_equal(a.order_, b.order_)
    _, Fte = tree_scores(gbt, X[400:])
    dec, nev = b.evaluate(Fte)
    pred = a.predict(X[400:])
    assert pred.dtype == y.dtype and set(pred) <= {"no", "yes"}
    assert np.array_equal(pred, np.where(dec, "yes", "no"))
    assert np.array_equal(a.n_evaluated(X[400:]), nev)
    assert np.array_equal(b.predict(Fte), dec.astype(int))  # scores in, 0 / 1 out
    assert a.score(X[400:], y[400:]) == np.mean(pred == y[400:])
    assert a.n_features_in_ == 6 and b.n_features_in_ == 25
    restored = pickle.loads(pickle.dumps(a))
    assert np.array_equal(restored.predict(X[400:]), pred)


def test_alpha_zero_reproduces_the_model_on_its_fitting_set(gbt, data):
    X, _ = data
    q = QuitWhenYouCan(0.0, estimator=gbt).fit(X[:400])
    assert np.array_equal(q.predict(X[:400]), gbt.predict(X[:400]))
    assert q.n_evaluated(X[:400]).mean() < 25


def test_feature_names_checked_like_sklearn(data):
    X, y = data
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(6)])
    gbt = HistGradientBoostingClassifier(max_iter=10, random_state=0).fit(df, y)
    q = QuitWhenYouCan(0.01, estimator=gbt).fit(df)
    assert list(q.feature_names_in_) == list(df.columns)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        plain = QuitWhenYouCan(0.01, estimator=gbt).fit(X)  # sklearn's warning, as gbt.predict
    assert np.array_equal(q.predict(df), plain.predict(X))
    shuffled = df[df.columns[::-1]]
    with pytest.raises(ValueError, match="same order"):
        q.predict(shuffled)
    with pytest.raises(ValueError, match="same order"):
        QuitWhenYouCan(0.01, estimator=gbt).fit(shuffled)
    with pytest.raises(ValueError, match="missing:\n- x5"):
        q.predict(df.iloc[:, :5])


@pytest.mark.parametrize("cls", [QuitWhenYouCan, FanEarlyStopping])
def test_bad_arguments_name_argument_value_and_fix(cls, data):
    X, y = data
    F = np.random.default_rng(1).normal(size=(30, 6))
    with pytest.raises(ValueError, match=r"base must be a finite real number.*got None"):
        cls(0.5).fit_scores(None, F)
    with pytest.raises(ValueError, match=r"base must be.*got an array of shape \(30, 6\)"):
        cls(0.5).fit_scores(F, 0.1)  # arguments swapped
    with pytest.raises(ValueError, match=r"F must be a 2-D array.*got an array of shape \(30,\)"):
        cls(0.5).fit_scores(0.1, F[:, 0])
    with pytest.raises(ValueError, match=r"F must have at least 2 columns.*shape \(30, 1\)"):
        cls(0.5).fit_scores(0.1, F[:, :1])
    with pytest.raises(ValueError, match="F must be a real score matrix; got complex"):
        cls(0.5).fit_scores(0.1, F + 1j)
    with pytest.raises(ValueError, match=r"estimator is None.*fit_scores\(base, F\)"):
        cls(0.5).fit(F, 0.1)  # scores given to fit instead of fit_scores
    with pytest.raises(ValueError, match=r"model must be a fitted sklearn.*got LogisticRegression"):
        from sklearn.linear_model import LogisticRegression

        cls(0.5, estimator=LogisticRegression().fit(X, y)).fit(X)
    est = cls(0.5).fit_scores(0.1, F)
    with pytest.raises(ValueError, match=r"F must have 6 columns.*got shape \(30, 5\)"):
        est.predict(F[:, :5])


def test_refit_from_scores_forgets_feature_names(data):
    X, y = data
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(6)])
    gbt = HistGradientBoostingClassifier(max_iter=10, random_state=0).fit(df, y)
    q = QuitWhenYouCan(0.0, estimator=gbt).fit(df).fit_scores(*tree_scores(gbt, X))
    assert not hasattr(q, "feature_names_in_") and q.estimator_ is None
    assert q.predict(tree_scores(gbt, X)[1]).dtype.kind == "i"


def test_random_state_convention():
    F = np.random.default_rng(2).normal(size=(40, 9))

    def order(rs):
        return QuitWhenYouCan(0.0, ordering="random", random_state=rs).fit_scores(0.0, F).order_

    assert np.array_equal(order(3), np.random.default_rng(3).permutation(9))  # as before
    assert np.array_equal(order(np.random.RandomState(5)), order(np.random.RandomState(5)))
    assert np.array_equal(order(np.random.default_rng(4)), order(np.random.default_rng(4)))
    np.random.seed(11)
    a = order(None)
    np.random.seed(11)
    assert np.array_equal(a, order(None))  # None: the global RandomState
    with pytest.raises(ValueError, match=r"random_state must be None, an int.*got 'x'"):
        order("x")
    with pytest.raises(ValueError, match=r"random_state must be.*got -1"):
        order(-1)


def test_cascade_timer_importable_from_package():
    from ensemble_repro.qwyc import CascadeTimer
    from ensemble_repro.qwyc.timing import CascadeTimer as T

    assert CascadeTimer is T


def test_tags_say_y_is_not_needed():
    assert QuitWhenYouCan(0.0).__sklearn_tags__().target_tags.required is False
    assert FanEarlyStopping(1.0).__sklearn_tags__().estimator_type == "classifier"


def test_fit_from_model_checks_features_and_allows_nan_like_the_model(data):
    X, y = data
    X = X.copy()
    X[::7, 2] = np.nan  # HistGradientBoosting routes NaN
    gbt = HistGradientBoostingClassifier(max_iter=15, random_state=0).fit(X, y)
    q = QuitWhenYouCan(0.0, estimator=gbt).fit(X)
    assert np.array_equal(q.predict(X), gbt.predict(X))
    with pytest.raises(
        ValueError,
        match="X has 5 features, but HistGradientBoostingClassifier is expecting 6 features",
    ):
        QuitWhenYouCan(0.0, estimator=gbt).fit(X[:, :5])
    with pytest.raises(ValueError, match="X has 5 features, but QuitWhenYouCan is expecting 6"):
        q.predict(X[:, :5])


def test_bad_costs_name_value_and_position():
    F = np.random.default_rng(1).normal(size=(30, 4))
    with pytest.raises(ValueError, match=r"costs must be finite and > 0; got nan at index 2"):
        QuitWhenYouCan(0.0, costs=[1.0, 1.0, np.nan, 1.0]).fit_scores(0.0, F)
    with pytest.raises(ValueError, match=r"costs must be None or 4 values.*got shape \(3,\)"):
        QuitWhenYouCan(0.0, costs=[1.0, 1.0, 1.0]).fit_scores(0.0, F)


@pytest.mark.parametrize("cls,param", [(QuitWhenYouCan, 0.01), (FanEarlyStopping, 1.0)])
def test_estimator_is_a_constructor_parameter_shared_by_clone(cls, param, gbt, data):
    X, _ = data
    est = cls(param, estimator=gbt)
    assert est.get_params(deep=False)["estimator"] is gbt
    assert est.get_params()["estimator__random_state"] == 0  # nested, as meta-estimators
    c = clone(est)
    assert c.estimator is gbt  # a clone of the fitted model would be unfitted
    c.fit(X[:400])
    assert c.estimator_ is gbt and not hasattr(est, "estimator_")
    scores = cls(param).fit_scores(*tree_scores(gbt, X[:400]))
    decision = scores.predict(tree_scores(gbt, X[400:])[1]).astype(bool)
    assert np.array_equal(c.predict(X[400:]), gbt.classes_[decision.astype(int)])
    frozen = cls(param, estimator=FrozenEstimator(gbt)).fit(X[:400])
    assert frozen.estimator_ is gbt
    assert np.array_equal(frozen.order_, c.order_)


@pytest.mark.parametrize("cls,param", [(QuitWhenYouCan, 0.01), (FanEarlyStopping, 1.0)])
def test_fit_model_keyword_is_deprecated_and_still_fits(cls, param, gbt, data):
    X, _ = data
    with pytest.warns(
        FutureWarning,
        match=rf"{cls.__name__}\.fit\(X, model=gbt\) is deprecated.*"
        rf"removed in 0\.3.*{cls.__name__}\(\.\.\., estimator=gbt\)\.fit\(X\)",
    ):
        old = cls(param).fit(X[:400], model=gbt)
    new = cls(param, estimator=gbt).fit(X[:400])
    assert old.estimator_ is gbt
    assert np.array_equal(old.order_, new.order_)
    assert np.array_equal(old.predict(X[400:]), new.predict(X[400:]))
    with pytest.raises(ValueError, match=r"got the model twice.*give it once"):
        cls(param, estimator=gbt).fit(X[:400], model=gbt)


def test_in_a_pipeline_the_model_sees_the_transformed_features(data):
    X, y = data
    scaler = StandardScaler().fit(X[:400])
    gbt = HistGradientBoostingClassifier(max_iter=15, random_state=0)
    gbt.fit(scaler.transform(X[:400]), y[:400])
    pipe = make_pipeline(StandardScaler(), QuitWhenYouCan(0.0, estimator=gbt)).fit(X[:400])
    assert np.array_equal(pipe.predict(X[:400]), gbt.predict(scaler.transform(X[:400])))
    pipe.set_params(quitwhenyoucan__alpha=0.2).fit(X[:400])
    assert pipe[-1].alpha == 0.2 and pipe[-1].estimator_ is gbt
    assert pipe[-1].differences_ > 0


def test_grid_search_over_the_cascade_keeps_the_fitted_model(gbt, data):
    X, _ = data
    target = gbt.predict(X)  # the cascade is scored on agreeing with the full model
    search = GridSearchCV(QuitWhenYouCan(0.5, estimator=gbt), {"alpha": [0.0, 0.4]}, cv=3).fit(
        X, target
    )
    scores = search.cv_results_["mean_test_score"]
    assert search.best_params_ == {"alpha": 0.0} and scores[0] > scores[1]
    assert search.best_estimator_.estimator_ is gbt
    assert np.array_equal(search.predict(X), target)  # refit on all of X with alpha = 0
