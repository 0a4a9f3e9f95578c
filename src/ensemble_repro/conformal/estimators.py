"""Scikit-learn estimators: J+aB (Algorithm 2), J+ensemble (Algorithm 4), jackknife+ (Algorithm 5).

Conventions shared by the three estimators:

- ``random_state``: None, an int, a ``numpy.random.RandomState`` or a ``numpy.random.Generator``
  (see :func:`~ensemble_repro.rng.check_random_state`). It is turned into one generator
  per ``fit``, which draws the resamples and then one seed per model; each model's seed sets
  every parameter of the base estimator named ``random_state`` or ending in ``__random_state``
  (nested ones included, e.g. in a ``Pipeline``) the way ``BaggingRegressor`` does
  (:func:`seed_estimator`), so two fits with the same int give identical intervals.
- ``predict_interval(X, alpha)`` returns an array of shape (n_samples, 2) (lower, upper) for one
  alpha and (n_samples, 2, n_alphas) for a sequence of alphas (MAPIE's layout).
- Data are validated once per call by scikit-learn's ``validate_data``: the number and names
  of the features seen in ``fit`` are checked at prediction time. The base estimator receives
  float64 NumPy arrays (column selection by name inside it is not supported). The fitting and
  prediction helpers trust their input: models fit and predict under
  ``sklearn.config_context(assume_finite=True)`` (no per-model pass over data checked once).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from joblib import Parallel, delayed, parallel_config
from sklearn import config_context
from sklearn.base import BaseEstimator, RegressorMixin, clone, is_regressor
from sklearn.utils.validation import check_is_fitted

from ..rng import check_random_state
from . import core
from .validation import (
    check_alpha,
    check_bool,
    check_choice,
    check_n_jobs,
    check_positive_int,
    check_regressor,
    check_test_data,
    check_training_data,
    resolve_resample_size,
)

_SEED_MAX = np.iinfo(np.int32).max


# ----------------------------------------------------------------------------- model fitting
def seed_keys(estimator) -> list[str]:
    """Sorted names of the parameters of ``estimator`` that :func:`seed_estimator` sets.

    Parameters
    ----------
    estimator : BaseEstimator

    Returns
    -------
    list of str
        ``random_state`` and every nested ``..__random_state`` of ``get_params(deep=True)``.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestRegressor
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from ensemble_repro.conformal.estimators import seed_keys
    >>> seed_keys(make_pipeline(StandardScaler(), RandomForestRegressor()))
    ['randomforestregressor__random_state']
    """
    return sorted(
        key
        for key in estimator.get_params(deep=True)
        if key == "random_state" or key.endswith("__random_state")
    )


def seed_estimator(estimator, seed: int, keys=None):
    """Set the ``random_state`` parameters of ``estimator`` from ``seed``, as bagging does.

    Equivalent to scikit-learn's ``_set_random_states(estimator, seed)`` (used by
    ``BaggingRegressor`` for each of its models): a ``RandomState(seed)`` draws one integer in
    [0, 2^31 - 1) per parameter of :func:`seed_keys`, in sorted order.

    Parameters
    ----------
    estimator : BaseEstimator
        Modified in place.
    seed : int
    keys : list of str, optional
        ``seed_keys(estimator)``, when already known (saves a ``get_params`` per model).

    Returns
    -------
    BaseEstimator
        ``estimator``.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> from ensemble_repro.conformal.estimators import seed_estimator
    >>> seed_estimator(DecisionTreeRegressor(), 0).random_state
    209652396
    """
    keys = seed_keys(estimator) if keys is None else keys
    if keys:
        rng = np.random.RandomState(seed)
        estimator.set_params(**{key: int(rng.randint(_SEED_MAX)) for key in keys})
    return estimator


def fit_models(estimator, X: np.ndarray, y: np.ndarray, resamples, seeds, n_jobs=None) -> list:
    """Clone ``estimator``, seed it (:func:`seed_estimator`) and fit it on each resample.

    X and y are trusted to be finite (checked once by the caller): the fits run under
    ``sklearn.config_context(assume_finite=True)``.

    Parameters
    ----------
    estimator : BaseEstimator
        Unfitted base estimator (cloned, never modified).
    X : ndarray of shape (n, p), finite
    y : ndarray of shape (n,), finite
    resamples : sequence of B index arrays into X
    seeds : sequence of B ints
        One per resample.
    n_jobs : None or int, default=None
        More than one: the models are fitted in worker processes (:func:`parallel_fit`); the
        results do not depend on it.

    Returns
    -------
    list of B fitted estimators

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import fit_models
    >>> from ensemble_repro.learners import PaperRidge
    >>> X, y = np.arange(12.0).reshape(6, 2), np.arange(6.0)
    >>> models = fit_models(PaperRidge(), X, y, [[0, 1, 2], [3, 4, 5]], [0, 1])
    >>> len(models), models[0].n_features_in_
    (2, 2)
    """
    if check_n_jobs(n_jobs) > 1:
        return [
            models[0]
            for models in parallel_fit(
                estimator, X, y, [[r] for r in resamples], [[s] for s in seeds], n_jobs
            )
        ]
    keys = seed_keys(estimator)
    with config_context(assume_finite=True):
        return [
            seed_estimator(clone(estimator), seed, keys).fit(X[idx], y[idx])
            for idx, seed in zip(resamples, seeds, strict=False)
        ]


def predict_models(models, X: np.ndarray, features=None) -> np.ndarray:
    """(B, k) matrix of each model's predictions at the k rows of X.

    X is trusted to be finite (checked once by the caller): the models predict under
    ``sklearn.config_context(assume_finite=True)``.

    Parameters
    ----------
    models : sequence of B fitted regressors
    X : ndarray of shape (k, p), finite
    features : sequence of B column-index arrays, optional
        Model b sees columns ``features[b]`` (``BaggingRegressor.estimators_features_``).

    Returns
    -------
    ndarray of shape (B, k)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyRegressor
    >>> from ensemble_repro.conformal import predict_models
    >>> models = [DummyRegressor().fit([[0]], [v]) for v in (1.0, 2.0)]
    >>> predict_models(models, np.zeros((3, 1)))
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    if not models:
        return np.zeros((0, X.shape[0]))
    with config_context(assume_finite=True):
        if features is None:
            return np.stack([np.asarray(mdl.predict(X), dtype=float) for mdl in models])
        return np.stack(
            [
                np.asarray(mdl.predict(X[:, f]), dtype=float)
                for mdl, f in zip(models, features, strict=False)
            ]
        )


def predict_out_of_bag(models, X: np.ndarray, in_bag: np.ndarray, features=None) -> np.ndarray:
    """(B, n) training predictions, computed only where point i is out of bag for model b.

    In-bag entries are left at 0: the out-of-bag aggregates never read them, and skipping them
    saves about (1 - 1/e) of the prediction cost at m = n. X is trusted to be finite, as in
    :func:`predict_models`.

    Parameters
    ----------
    models : sequence of B fitted regressors
    X : ndarray of shape (n, p), finite
        The training features.
    in_bag : ndarray of shape (B, n), bool
        True where point i is in resample b (:func:`in_bag_mask`).
    features : sequence of B column-index arrays, optional
        As in :func:`predict_models`.

    Returns
    -------
    ndarray of shape (B, n)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyRegressor
    >>> from ensemble_repro.conformal import predict_out_of_bag
    >>> model = DummyRegressor().fit([[0]], [5.0])
    >>> predict_out_of_bag([model], np.zeros((3, 1)), np.array([[True, False, True]]))
    array([[0., 5., 0.]])
    """
    out = np.zeros(in_bag.shape)
    with config_context(assume_finite=True):
        for b, model in enumerate(models):
            rows = np.flatnonzero(~in_bag[b])
            if rows.size:
                Xb = X[rows] if features is None else X[rows][:, features[b]]
                out[b, rows] = model.predict(Xb)
    return out


def _fit_batch(estimator, X, y, resample_sets, seed_sets, warning_filters=None) -> list:
    with warnings.catch_warnings():
        if warning_filters is not None:  # a worker process: the caller's filters
            warnings.filters[:] = warning_filters
        return [
            fit_models(estimator, X, y, r, s)
            for r, s in zip(resample_sets, seed_sets, strict=False)
        ]


def parallel_fit(estimator, X, y, resample_sets, seed_sets, n_jobs) -> list:
    """:func:`fit_models` for each (resamples, seeds) pair, in ``n_jobs`` worker processes.

    Contiguous batches, one BLAS thread each, with the caller's warning filters. Processes, not
    threads: the MLP's L-BFGS loop calls back into Python and holds the GIL, so threads gave no
    speed-up. The seeds are fixed beforehand, so results do not depend on ``n_jobs``.

    Parameters
    ----------
    estimator : BaseEstimator
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    resample_sets : sequence of sequences of index arrays
    seed_sets : sequence of sequences of ints, shaped like ``resample_sets``
    n_jobs : None or int
        See :func:`check_n_jobs`.

    Returns
    -------
    list of lists of fitted estimators, shaped like ``resample_sets``

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal.estimators import parallel_fit
    >>> from ensemble_repro.learners import PaperRidge
    >>> X, y = np.arange(12.0).reshape(6, 2), np.arange(6.0)
    >>> sets = parallel_fit(PaperRidge(), X, y, [[[0, 1]], [[2, 3], [4, 5]]], [[0], [1, 2]], 1)
    >>> [len(s) for s in sets]
    [1, 2]
    """
    jobs = check_n_jobs(n_jobs)
    if jobs == 1 or len(resample_sets) <= 1:
        return _fit_batch(estimator, X, y, resample_sets, seed_sets)
    batches = np.array_split(np.arange(len(resample_sets)), min(jobs, len(resample_sets)))
    with parallel_config(backend="loky", inner_max_num_threads=1):
        parts = Parallel(n_jobs=len(batches))(
            delayed(_fit_batch)(
                estimator,
                X,
                y,
                [resample_sets[i] for i in b],
                [seed_sets[i] for i in b],
                list(warnings.filters),
            )
            for b in batches
        )
    return [models for part in parts for models in part]


def warm_up_workers(estimator, X, y, n_jobs) -> None:
    """Start :func:`parallel_fit`'s worker processes (and their imports) with a tiny fit.

    Timed fits that follow then do not pay the start-up (3.5 s measured for the first call,
    12 ms for the next): the workers stay up between calls.

    Parameters
    ----------
    estimator : BaseEstimator
    X : ndarray of shape (n, p)
    y : ndarray of shape (n,)
    n_jobs : None or int
        Nothing happens for one worker.

    Returns
    -------
    None

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal.estimators import warm_up_workers
    >>> from ensemble_repro.learners import PaperRidge
    >>> warm_up_workers(PaperRidge(), np.eye(3), np.ones(3), n_jobs=1)
    """
    jobs = check_n_jobs(n_jobs)
    if jobs > 1:
        rows = np.arange(min(len(y), 10))
        parallel_fit(estimator, X, y, [[rows]] * jobs, [[0]] * jobs, jobs)


# ----------------------------------------------------------------------------- intervals, warnings
def _finish_intervals(bounds: np.ndarray, alphas, scalar: bool, n: int) -> np.ndarray:
    """Warn about inverted intervals (lower > upper) and drop the alpha axis for one alpha."""
    k = bounds.shape[0]
    for a, alpha in enumerate(alphas):
        inverted = int(np.count_nonzero(bounds[:, 0, a] > bounds[:, 1, a]))
        if inverted:
            lo, hi = core.quantile_ranks(n, alpha)
            warnings.warn(
                f"alpha = {alpha} is too large for n = {n} training points: the lower bound "
                f"exceeds the upper bound at {inverted} of {k} test points (the lower quantile's "
                f"rank floor(alpha (n + 1)) = {lo} is above the upper one's ceil((1 - alpha) "
                f"(n + 1)) = {hi}). These inverted intervals (empty sets) are returned as "
                "computed; use alpha < 0.5",
                UserWarning,
                stacklevel=3,
            )
    return np.ascontiguousarray(bounds[:, :, 0]) if scalar else bounds


def _chunks(k: int, size: int):
    return (slice(start, min(start + size, k)) for start in range(0, k, size))


# ----------------------------------------------------------------------------- J+aB
class JackknifePlusAfterBootstrap(RegressorMixin, BaseEstimator):
    """Jackknife+-after-bootstrap (Kim, Xu & Barber 2020, Algorithm 2; minmax: Appendix C).

    Fits B models on resamples of size m and reuses them for every leave-one-out aggregate
    mu_{-i} = phi({mu_b : i not in S_b}) (eq. 2): the interval (eq. 3) costs no extra model fit.
    ``random_B=True`` draws B ~ Binomial(n_resamples, p) with p = (1 - 1/(n+1))^m (with
    replacement) or 1 - m/(n+1) (without), which gives Theorem 1's 1 - 2 alpha guarantee; see
    :func:`~ensemble_repro.conformal.paper_n_resamples` for the paper's choice of n_resamples.
    An empty ensemble aggregates to 0 (the paper's convention); ``fit`` warns when that makes
    every leave-one-out aggregate 0.

    Parameters
    ----------
    estimator : regressor
        Base estimator, cloned for each resample.
    n_resamples : int, default=20
        B (``random_B=False``), or the Binomial's number of trials (``random_B=True``).
    resample_size : int or float, default=1.0
        m, the size of each resample: an int is a count of points (``50`` is m = 50), a float a
        fraction of n (``0.6`` is m = round(0.6 n); ``1.0`` is m = n, the usual bootstrap).
        Finite and positive; m <= n when ``replace=False``.
    replace : bool, default=True
        Resample with replacement (bootstrap) or without (subsampling).
    random_B : bool, default=False
        Draw B at random as in Theorem 1.
    aggregation : {"mean", "median", "trimmed_mean"}, default="mean"
        phi; the trimmed mean drops the lowest and highest 25%.
    method : {"plus", "minmax"}, default="plus"
        J+aB (eq. 3) or jackknife-minmax-after-bootstrap (Appendix C).
    random_state : None, int, RandomState or Generator, default=None
        See the module's conventions; a Generator is drawn from through its bit generator.
    n_jobs : None or int, default=None
        Worker processes for the B fits (-1: all cores); results do not depend on it.

    Attributes
    ----------
    estimators_ : list of B fitted regressors
    resamples_ : list of B index arrays
        The rows each model was fitted on.
    estimators_features_ : list of column-index arrays or None
        Columns each model sees (from a ``BaggingRegressor``), None for all.
    n_resamples_ : int
        B.
    in_bag_ : ndarray of shape (B, n), bool
    oob_counts_ : ndarray of shape (n,)
        Number of models whose resample misses point i.
    oob_prediction_ : ndarray of shape (n,)
        mu_{-i}(X_i), the out-of-bag prediction at each training point (0 for an empty set).
    residuals_ : ndarray of shape (n,)
        ``R_i = |y_i - mu_{-i}(X_i)|``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import JackknifePlusAfterBootstrap
    >>> from ensemble_repro.learners import PaperRidge
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(60, 3)
    >>> y = X @ [1.0, -2.0, 0.5] + rng.randn(60)
    >>> jab = JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=30, random_state=0)
    >>> jab = jab.fit(X[:50], y[:50])
    >>> jab.predict_interval(X[50:], alpha=0.1).shape
    (10, 2)
    >>> jab.predict_interval(X[50:], alpha=[0.1, 0.2]).shape
    (10, 2, 2)
    >>> jab.predict(X[50:]).shape
    (10,)
    """

    def __init__(
        self,
        estimator,
        n_resamples=20,
        resample_size=1.0,
        replace=True,
        random_B=False,
        aggregation="mean",
        method="plus",
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.n_resamples = n_resamples
        self.resample_size = resample_size
        self.replace = replace
        self.random_B = random_B
        self.aggregation = aggregation
        self.method = method
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        check_regressor(self.estimator)
        check_choice("aggregation", self.aggregation, core.AGGREGATIONS)
        check_choice("method", self.method, core.METHODS)
        check_bool("replace", self.replace)
        check_bool("random_B", self.random_B)
        check_n_jobs(self.n_jobs)

    def fit(self, X, y, resamples=None):
        """Fit the B models and compute the out-of-bag residuals (Algorithm 2, lines 1-6).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        resamples : sequence of index arrays, optional
            The resamples to fit on (replaces the random draw; B = their number).

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from ensemble_repro.conformal import JackknifePlusAfterBootstrap
        >>> from ensemble_repro.learners import PaperRidge
        >>> X, y = np.arange(20.0).reshape(10, 2), np.arange(10.0)
        >>> jab = JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=5, random_state=0)
        >>> jab.fit(X, y).n_resamples_
        5
        """
        self._check_params()
        X, y = check_training_data(self, X, y)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        if resamples is None:
            n_tilde = check_positive_int("n_resamples", self.n_resamples)
            m = resolve_resample_size(self.resample_size, n, self.replace)
            B = (
                core.draw_n_resamples(n_tilde, n, m, self.replace, rng)
                if self.random_B
                else n_tilde
            )
            resamples = core.draw_resamples(n, m, B, self.replace, rng)
            if B == 0:
                p = core.binomial_probability(n, m, self.replace)
                _warn_empty(
                    f"random_B=True drew B = 0 models from Binomial(n_resamples = "
                    f"{n_tilde}, p = {p:.3g}) (expected B = {n_tilde * p:.3g})",
                    "increase n_resamples",
                )
        else:
            resamples = [np.asarray(r) for r in resamples]
            for b, r in enumerate(resamples):
                if (
                    r.ndim != 1
                    or r.size == 0
                    or r.dtype.kind not in "iu"
                    or r.min() < 0
                    or r.max() >= n
                ):
                    raise ValueError(
                        f"resamples must be non-empty 1-D arrays of integer indices in "
                        f"[0, {n}); resamples[{b}] = {r.tolist()!r:.80} ({r.dtype} of shape "
                        f"{r.shape}) is not: pass row numbers of X"
                    )
            if not resamples:
                _warn_empty("resamples is empty (B = 0 models)", "pass at least one resample")
        # One seed per model, drawn after the resamples from the same generator: the resamples
        # used for the out-of-bag sets are exactly those the models are fitted on.
        seeds = rng.randint(_SEED_MAX, size=len(resamples))
        self.estimators_ = fit_models(self.estimator, X, y, resamples, seeds, self.n_jobs)
        self.resamples_ = list(resamples)
        self.estimators_features_ = None
        self._fit_oob(X, y)
        return self

    def _fit_oob(self, X, y) -> None:
        n = X.shape[0]
        self.n_resamples_ = len(self.estimators_)
        self.in_bag_ = core.in_bag_mask(self.resamples_, n)
        self.oob_counts_ = (~self.in_bag_).sum(axis=0)
        if self.n_resamples_ and not self.oob_counts_.any():
            m = len(self.resamples_[0])
            _warn_empty(
                f"every out-of-bag set is empty: each training point is in all "
                f"{self.n_resamples_} resamples (m = {m} of n = {n} points, "
                f"replace={self.replace})",
                "use resample_size < n (e.g. 0.6), replace=True or more resamples",
            )
        train_pred = predict_out_of_bag(
            self.estimators_, X, self.in_bag_, self.estimators_features_
        )
        self.oob_prediction_ = core.oob_self_aggregate(train_pred, self.in_bag_, self.aggregation)
        self.residuals_ = np.abs(y - self.oob_prediction_)

    @classmethod
    def from_bagging(cls, model, X, y, aggregation="mean", method="plus"):
        """J+aB around a fitted bagging ensemble or random forest, without refitting (fixed B).

        The resamples are the model's own: ``estimators_samples_``, which for forests redraws
        each tree's bootstrap indices from the tree's ``random_state`` exactly as scikit-learn
        drew them when fitting.

        Parameters
        ----------
        model : BaggingRegressor, RandomForestRegressor or ExtraTreesRegressor
            Fitted; forests need ``bootstrap=True`` (otherwise there are no out-of-bag sets).
            Fitted without ``sample_weight``: J+aB (Algorithm 2) weighs every point equally,
            so a weighted fit is refused where it leaves a trace (scikit-learn >= 1.9 keeps
            the weights; older versions pass them to the trees, whose root then weighs other
            than the resample size); the members of an older weighted bagging model other
            than trees cannot be checked.
        X : array-like of shape (n_samples, n_features)
            The data ``model`` was fitted on (same rows, order and columns).
        y : array-like of shape (n_samples,)
        aggregation : {"mean", "median", "trimmed_mean"}, default="mean"
        method : {"plus", "minmax"}, default="plus"

        Returns
        -------
        JackknifePlusAfterBootstrap
            Fitted; ``estimators_`` are the model's own (not copies).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.ensemble import RandomForestRegressor
        >>> from ensemble_repro.conformal import JackknifePlusAfterBootstrap
        >>> rng = np.random.RandomState(0)
        >>> X, y = rng.randn(40, 2), rng.randn(40)
        >>> rf = RandomForestRegressor(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
        >>> jab = JackknifePlusAfterBootstrap.from_bagging(rf, X, y)
        >>> jab.predict_interval(X[:3], alpha=0.2).shape
        (3, 2)
        """
        check_is_fitted(model, "estimators_")
        if not (is_regressor(model) and hasattr(model, "estimators_samples_")):
            raise ValueError(
                "model must be a fitted BaggingRegressor, RandomForestRegressor or "
                f"ExtraTreesRegressor; got {type(model).__name__}"
            )
        is_forest = not hasattr(model, "estimators_features_")
        if is_forest and not model.bootstrap:
            raise ValueError(
                f"model is a {type(model).__name__} fitted with bootstrap=False: "
                "every tree saw every row, so there are no out-of-bag sets for "
                "J+aB; refit it with bootstrap=True"
            )
        obj = cls(clone(model.estimators_[0]), aggregation=aggregation, method=method)
        obj._check_params()
        X, y = check_training_data(obj, X, y)
        if obj.n_features_in_ != model.n_features_in_:
            raise ValueError(
                f"X has {obj.n_features_in_} columns but the model was fitted on "
                f"{model.n_features_in_}; pass the data the model was fitted on"
            )
        names = getattr(model, "feature_names_in_", None)
        seen = getattr(obj, "feature_names_in_", names)
        if names is not None and not np.array_equal(names, seen):
            raise ValueError(
                "X's column names differ from those the model was fitted on "
                f"({list(names)}); pass the data the model was fitted on"
            )
        samples = [np.asarray(s) for s in model.estimators_samples_]
        oob = getattr(model, "oob_prediction_", None)
        fitted_n = getattr(model, "_n_samples", None)
        if (
            any(s.size and s.max() >= X.shape[0] for s in samples)
            or (oob is not None and len(oob) != X.shape[0])
            or (fitted_n is not None and fitted_n != X.shape[0])
        ):
            was = f" (it was fitted on {fitted_n})" if fitted_n is not None else ""
            raise ValueError(
                "X, y must be the data the model was fitted on: the model's "
                f"resamples do not fit n = {X.shape[0]} rows{was}"
            )
        _check_unweighted(model, samples)
        features = None if is_forest else [np.asarray(f) for f in model.estimators_features_]
        _check_leaf_means(model.estimators_, samples, features, X, y)
        obj.set_params(
            n_resamples=len(samples), resample_size=len(samples[0]), replace=bool(model.bootstrap)
        )
        obj.estimators_ = list(model.estimators_)
        obj.resamples_ = samples
        obj.estimators_features_ = features
        obj._fit_oob(X, y)
        return obj

    def _test_predictions(self, X) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        X = check_test_data(self, X)
        return predict_models(self.estimators_, X, self.estimators_features_)

    def predict(self, X):
        """The ensemble's prediction phi(mu_1(x), ..., mu_B(x)) (Algorithm 1).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            0 when B = 0.

        Examples
        --------
        >>> import numpy as np
        >>> from ensemble_repro.conformal import JackknifePlusAfterBootstrap
        >>> from ensemble_repro.learners import PaperRidge
        >>> X, y = np.arange(20.0).reshape(10, 2), np.arange(10.0)
        >>> jab = JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=5, random_state=0)
        >>> np.round(jab.fit(X, y).predict([[20.0, 21.0]]), 1)
        array([10.])
        """
        return core.aggregate(self._test_predictions(X), self.aggregation)

    def predict_interval(self, X, alpha=0.1):
        """The J+aB (or minmax) interval at level 1 - alpha (eq. 3; Theorem 1: >= 1 - 2 alpha).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        alpha : float or sequence of float, default=0.1
            Each in (0, 1). A rank outside 1..n gives an infinite bound. An alpha so large that
            the lower bound exceeds the upper one (possible for alpha > 0.5) warns, naming alpha
            and n, and the inverted bounds are returned as computed.

        Returns
        -------
        ndarray of shape (n_samples, 2) for one alpha, (n_samples, 2, n_alphas) for a sequence
            ``[:, 0]`` the lower and ``[:, 1]`` the upper bound.

        Examples
        --------
        >>> import numpy as np
        >>> from ensemble_repro.conformal import JackknifePlusAfterBootstrap
        >>> from ensemble_repro.learners import PaperRidge
        >>> rng = np.random.RandomState(0)
        >>> X, y = rng.randn(30, 2), rng.randn(30)
        >>> jab = JackknifePlusAfterBootstrap(PaperRidge(), n_resamples=20, random_state=0)
        >>> bounds = jab.fit(X, y).predict_interval(X[:4], alpha=[0.1, 0.3])
        >>> bool((bounds[:, 0, 0] <= bounds[:, 0, 1]).all())  # wider at the smaller alpha
        True
        """
        alphas, scalar = check_alpha(alpha)
        predictions = self._test_predictions(X)
        bounds = np.empty((predictions.shape[1], 2, len(alphas)))
        for a, value in enumerate(alphas):
            bounds[:, 0, a], bounds[:, 1, a] = core.jab_interval(
                predictions, self.in_bag_, self.residuals_, value, self.aggregation, self.method
            )
        return _finish_intervals(bounds, alphas, scalar, len(self.residuals_))


#: Trees whose leaves :func:`_check_leaf_means` recomputes (enough to tell other rows apart).
_LEAF_CHECK_TREES = 5


def _check_unweighted(model, samples) -> None:
    """Refuse a bagging model fitted with ``sample_weight`` (J+aB weighs points equally)."""
    weights = getattr(model, "_sample_weight", None)  # kept by scikit-learn >= 1.9
    for t, (member, rows) in enumerate(zip(model.estimators_, samples, strict=True)):
        tree = getattr(member, "tree_", None)
        root = tree.weighted_n_node_samples[0] if tree is not None else rows.size
        if weights is not None or not math.isclose(root, rows.size, rel_tol=1e-9):
            why = (
                "it keeps the weights"
                if weights is not None
                else f"tree {t}'s root weighs {root:g} for {rows.size} resampled rows"
            )
            raise ValueError(
                f"model was fitted with sample_weight ({why}): J+aB (Algorithm 2) weighs "
                "every training point equally, so its intervals would not be those of the "
                "weighted model. Refit the model without sample_weight"
            )


def _check_leaf_means(models, samples, features, X, y) -> None:
    """Refuse ``X, y`` unless they reproduce the leaf values of the first fitted trees.

    A squared-error regression tree's leaf holds the mean of ``y`` over the resample rows that
    reach it, so other rows (more, fewer or different ones) give other means. Trees fitted with
    another criterion or with monotonic constraints are not checked.
    """
    for t, (model, rows) in enumerate(zip(models[:_LEAF_CHECK_TREES], samples, strict=False)):
        tree = getattr(model, "tree_", None)
        if (
            tree is None
            or getattr(model, "criterion", None) not in ("squared_error", "friedman_mse")
            or getattr(model, "monotonic_cst", None) is not None
            or rows.size == 0
        ):
            continue
        Xt = X[rows] if features is None else X[rows][:, features[t]]
        leaf = model.apply(Xt)
        count = np.bincount(leaf, minlength=tree.node_count)
        total = np.bincount(leaf, weights=y[rows], minlength=tree.node_count)
        reached = count > 0
        mean = total[reached] / count[reached]
        fitted = tree.value[reached, 0, 0]
        scale = max(float(np.abs(y).max()), 1.0)
        if not np.allclose(mean, fitted, rtol=1e-7, atol=1e-9 * scale):
            raise ValueError(
                "X, y must be the data the model was fitted on (same rows, in the same "
                f"order): the mean of y over the rows that reach the leaves of tree {t} "
                "differs from the values the tree learned (or the model was fitted with "
                "sample weights, which J+aB does not use); pass the fitting data"
            )


def _warn_empty(cause: str, fix: str) -> None:
    warnings.warn(
        f"{cause}, so every leave-one-out aggregate is 0 (the paper's convention for "
        "an empty ensemble) and the intervals are centred at 0, ignoring the model; "
        f"{fix}",
        UserWarning,
        stacklevel=3,
    )


# ----------------------------------------------------------------------------- J+ensemble, J+
class _LeaveOneOut(RegressorMixin, BaseEstimator):
    """Shared part of the jackknife+ estimators: n leave-one-out ensembles, one per point."""

    def fit(self, X, y):
        """Fit the n leave-one-out ensembles and compute the residuals.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from ensemble_repro.conformal import JackknifePlus
        >>> from ensemble_repro.learners import PaperRidge
        >>> X, y = np.arange(20.0).reshape(10, 2), np.arange(10.0)
        >>> len(JackknifePlus(PaperRidge()).fit(X, y).estimators_)
        10
        """
        check_regressor(self.estimator)
        check_choice("method", self.method, core.METHODS)
        check_n_jobs(self.n_jobs)
        self._check_params()
        X, y = check_training_data(self, X, y)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        resample_sets = self._loo_plan(n, rng)  # n arrays of shape (B, size)
        seed_sets = [rng.randint(_SEED_MAX, size=len(r)) for r in resample_sets]
        self.estimators_ = parallel_fit(self.estimator, X, y, resample_sets, seed_sets, self.n_jobs)
        self.resamples_ = resample_sets
        own = [
            predict_models(models, X[i : i + 1])[:, 0] for i, models in enumerate(self.estimators_)
        ]
        mu_self = np.array([core.aggregate(p[:, None], self._aggregation())[0] for p in own])
        self.residuals_ = np.abs(y - mu_self)
        return self

    def _loo_chunks(self, X, chunk_size):
        """(slice, (n, B, c) leave-one-out predictions) per chunk of c test points."""
        check_is_fitted(self, "estimators_")
        chunk_size = check_positive_int("chunk_size", chunk_size)
        X = check_test_data(self, X)
        for sl in _chunks(X.shape[0], chunk_size):
            yield sl, loo_predictions(self.estimators_, X[sl])

    def predict(self, X, chunk_size=4096):
        """phi over every fitted model: the point prediction of the n leave-one-out ensembles.

        For :class:`JackknifePlus` the mean of the n leave-one-out models mu_{-i}(x), MAPIE's
        default point prediction for the jackknife+ (``CrossConformalRegressor.predict`` with
        ``aggregate_point_predictions="mean"``); for :class:`JackknifePlusEnsemble` phi
        (``aggregation``) over all n * B models, as :meth:`JackknifePlusAfterBootstrap.predict`
        aggregates its B models. No extra model is fitted on the full data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        chunk_size : int, default=4096
            Test points per block (bounds the memory to n * B * chunk_size floats).

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> import numpy as np
        >>> from ensemble_repro.conformal import JackknifePlus
        >>> from ensemble_repro.learners import PaperRidge
        >>> X, y = np.arange(20.0).reshape(10, 2), np.arange(10.0)
        >>> np.round(JackknifePlus(PaperRidge()).fit(X, y).predict([[20.0, 21.0]]), 1)
        array([10.])
        """
        parts = [
            core.aggregate(pred.reshape(-1, pred.shape[2]), self._aggregation())
            for _, pred in self._loo_chunks(X, chunk_size)
        ]
        return np.concatenate(parts) if parts else np.zeros(0)

    def predict_interval(self, X, alpha=0.1, chunk_size=4096):
        """The jackknife+ (or minmax) interval at level 1 - alpha (Algorithm 4 / 5).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        alpha : float or sequence of float, default=0.1
            Each in (0, 1); as in :meth:`JackknifePlusAfterBootstrap.predict_interval`
            (warning for inverted intervals, returned as computed).
        chunk_size : int, default=4096
            Test points per block.

        Returns
        -------
        ndarray of shape (n_samples, 2) for one alpha, (n_samples, 2, n_alphas) for a sequence
            ``[:, 0]`` the lower and ``[:, 1]`` the upper bound.

        Examples
        --------
        >>> import numpy as np
        >>> from ensemble_repro.conformal import JackknifePlus
        >>> from ensemble_repro.learners import PaperRidge
        >>> rng = np.random.RandomState(0)
        >>> X, y = rng.randn(30, 2), rng.randn(30)
        >>> JackknifePlus(PaperRidge()).fit(X, y).predict_interval(X[:4], alpha=0.2).shape
        (4, 2)
        """
        alphas, scalar = check_alpha(alpha)
        parts = []
        for _, pred in self._loo_chunks(X, chunk_size):
            loo = core.loo_aggregate(pred, self._aggregation())
            bounds = np.empty((loo.shape[0], 2, len(alphas)))
            for a, value in enumerate(alphas):
                bounds[:, 0, a], bounds[:, 1, a] = core.interval(
                    loo, self.residuals_, value, self.method
                )
            parts.append(bounds)
        bounds = np.concatenate(parts) if parts else np.empty((0, 2, len(alphas)))
        return _finish_intervals(bounds, alphas, scalar, len(self.residuals_))


class JackknifePlusEnsemble(_LeaveOneOut):
    """J+ensemble (Appendix D.1, Algorithm 4): jackknife+ around the B-model ensemble, n * B fits.

    For each i, B resamples of size m are drawn from the other n - 1 points (row i removed from
    both X and y) and aggregated with ``aggregation``; m is computed from the full n, as in the
    paper's protocol.

    Parameters
    ----------
    estimator : regressor
        Base estimator, cloned for each of the n * B fits.
    n_resamples : int, default=20
        B, the models of each leave-one-out ensemble.
    resample_size : int or float, default=1.0
        m: an int is a count of points, a float a fraction of n (``1.0`` is m = n); at most
        n - 1 when ``replace=False``. See :class:`JackknifePlusAfterBootstrap`.
    replace : bool, default=True
    aggregation : {"mean", "median", "trimmed_mean"}, default="mean"
    method : {"plus", "minmax"}, default="plus"
    random_state : None, int, RandomState or Generator, default=None
    n_jobs : None or int, default=None
        Worker processes over the n leave-one-out ensembles.

    Attributes
    ----------
    estimators_ : list of n lists of B fitted regressors
    resamples_ : list of n arrays of shape (B, m)
    residuals_ : ndarray of shape (n,)
        ``|y_i - mu_{-i}(X_i)|``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import JackknifePlusEnsemble
    >>> from ensemble_repro.learners import PaperRidge
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(25, 2)
    >>> y = X @ [1.0, 1.0] + rng.randn(25)
    >>> est = JackknifePlusEnsemble(PaperRidge(), n_resamples=3, random_state=0).fit(X, y)
    >>> est.predict_interval(X[:2]).shape, est.predict(X[:2]).shape
    ((2, 2), (2,))
    """

    def __init__(
        self,
        estimator,
        n_resamples=20,
        resample_size=1.0,
        replace=True,
        aggregation="mean",
        method="plus",
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.n_resamples = n_resamples
        self.resample_size = resample_size
        self.replace = replace
        self.aggregation = aggregation
        self.method = method
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        check_choice("aggregation", self.aggregation, core.AGGREGATIONS)
        check_positive_int("n_resamples", self.n_resamples)
        check_bool("replace", self.replace)

    def _aggregation(self) -> str:
        return self.aggregation

    def _loo_plan(self, n, rng):
        m = resolve_resample_size(self.resample_size, n, self.replace)
        if not self.replace and m > n - 1:
            raise ValueError(
                f"resample_size gives m = {m} > n - 1 = {n - 1}: a leave-one-out "
                "set cannot be subsampled without replacement; lower it or use "
                "replace=True"
            )
        return [loo_resamples(n, i, m, self.n_resamples, self.replace, rng) for i in range(n)]


def loo_predictions(model_sets, X: np.ndarray) -> np.ndarray:
    """(n, B, k) predictions at X of every model of each of the n leave-one-out ensembles.

    Parameters
    ----------
    model_sets : sequence of n sequences of B fitted regressors
    X : ndarray of shape (k, p)

    Returns
    -------
    ndarray of shape (n, B, k)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyRegressor
    >>> from ensemble_repro.conformal import loo_predictions
    >>> sets = [[DummyRegressor().fit([[0]], [v])] for v in (1.0, 2.0)]
    >>> loo_predictions(sets, np.zeros((3, 1))).shape
    (2, 1, 3)
    """
    return np.stack([predict_models(models, X) for models in model_sets])


def loo_resamples(n: int, i: int, m: int, n_resamples: int, replace: bool, rng) -> np.ndarray:
    """(B, m) resamples of the n - 1 indices other than i (J+ensemble's ensemble without i).

    Parameters
    ----------
    n : int
    i : int
        The left-out point.
    m : int
        Resample size.
    n_resamples : int
        B.
    replace : bool
    rng : numpy.random.RandomState

    Returns
    -------
    ndarray of shape (B, m)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import loo_resamples
    >>> r = loo_resamples(5, 2, 4, 3, True, np.random.RandomState(0))
    >>> r.shape, bool((r != 2).all())
    ((3, 4), True)
    """
    keep = np.delete(np.arange(n), i)
    return keep[core.draw_resamples(n - 1, m, n_resamples, replace, rng)]


class JackknifePlus(_LeaveOneOut):
    """Jackknife+ of the base learner (J+non-ensemble, Appendix D.1, Algorithm 5): n fits.

    Parameters
    ----------
    estimator : regressor
        Base estimator, fitted once per left-out point.
    method : {"plus", "minmax"}, default="plus"
    random_state : None, int, RandomState or Generator, default=None
        Seeds the base estimator's ``random_state`` parameters (one seed per fit).
    n_jobs : None or int, default=None

    Attributes
    ----------
    estimators_ : list of n lists of one fitted regressor
    resamples_ : list of n arrays of shape (1, n - 1)
    residuals_ : ndarray of shape (n,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import JackknifePlus
    >>> from ensemble_repro.learners import PaperRidge
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(25, 2)
    >>> y = X @ [1.0, 1.0] + rng.randn(25)
    >>> est = JackknifePlus(PaperRidge()).fit(X, y)
    >>> bounds = est.predict_interval(X[:3], alpha=0.1)
    >>> bool((bounds[:, 0] <= est.predict(X[:3])).all())
    True
    """

    def __init__(self, estimator, method="plus", random_state=None, n_jobs=None):
        self.estimator = estimator
        self.method = method
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        """J+non-ensemble has no parameter beyond ``method`` (checked in fit)."""

    def _aggregation(self) -> str:
        return "mean"  # a single model: every aggregation returns its prediction

    def _loo_plan(self, n, rng):
        return [np.delete(np.arange(n), i)[None, :] for i in range(n)]
