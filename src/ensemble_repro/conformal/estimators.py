"""Scikit-learn style estimators: J+aB (Algorithm 2), J+ensemble (Algorithm 4), jackknife+ (Algorithm 5)."""

from __future__ import annotations

import numbers
import os
import warnings

import numpy as np
from joblib import Parallel, delayed, parallel_config
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from . import core

_SEED_MAX = np.iinfo(np.int32).max


# ----------------------------------------------------------------------------- input checks
def check_training_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Float arrays X (n, p) and y (n,), n >= 2, all finite; ValueError naming the problem."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array of shape (n_samples, n_features); got a {X.ndim}-D "
                         f"array of shape {X.shape} (reshape a single feature with X.reshape(-1, 1))")
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of shape (n_samples,); got shape {y.shape}")
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X and y must have the same number of rows; got {X.shape[0]} and {y.shape[0]}")
    if X.shape[0] < 2:
        raise ValueError(f"need at least 2 training points (n >= 2); got n = {X.shape[0]}")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinity; every feature value must be finite")
    if not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinity; every target value must be finite")
    return X, y


def check_test_data(X, n_features: int) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(f"X must be a 2-D array with {n_features} columns (as in fit); got shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinity; every feature value must be finite")
    return X


def check_alpha(alpha) -> float:
    if not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number strictly between 0 and 1; got {alpha!r}")
    return float(alpha)


def _check_choice(name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")


def resolve_resample_size(resample_size, n: int, replace: bool) -> int:
    """m from a fraction of n (float) or a count (int); m <= n without replacement."""
    if isinstance(resample_size, numbers.Integral) and not isinstance(resample_size, bool):
        m = int(resample_size)
    elif isinstance(resample_size, numbers.Real) and resample_size > 0:
        m = int(np.rint(resample_size * n))
    else:
        raise ValueError(f"resample_size must be a positive fraction of n (float) or a positive "
                         f"count (int); got {resample_size!r}")
    if m < 1:
        raise ValueError(f"resample_size gives m = {m} points per resample for n = {n}; m must be >= 1")
    if not replace and m > n:
        raise ValueError(f"resample_size gives m = {m} > n = {n}, impossible without replacement "
                         f"(replace=False); use m <= n or replace=True")
    return m


def _check_positive_int(name: str, value) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return int(value)


# ----------------------------------------------------------------------------- model fitting
def fit_models(estimator, X: np.ndarray, y: np.ndarray, resamples, seeds, n_jobs=None) -> list:
    """Clone and fit ``estimator`` on each resample; a ``random_state`` parameter gets its seed.
    With ``n_jobs`` > 1 the models are fitted in worker processes (:func:`parallel_fit`)."""
    if _n_jobs(n_jobs) > 1:
        return [models[0] for models in parallel_fit(estimator, X, y, [[r] for r in resamples],
                                                      [[s] for s in seeds], n_jobs)]
    has_seed = "random_state" in estimator.get_params()
    models = []
    for idx, seed in zip(resamples, seeds):
        model = clone(estimator)
        if has_seed:
            model.set_params(random_state=int(seed))
        models.append(model.fit(X[idx], y[idx]))
    return models


def predict_models(models, X: np.ndarray, features=None) -> np.ndarray:
    """(B, k) matrix of each model's predictions (columns ``features[b]`` for model b, if given)."""
    if not models:
        return np.zeros((0, X.shape[0]))
    if features is None:
        return np.stack([np.asarray(mdl.predict(X), dtype=float) for mdl in models])
    return np.stack([np.asarray(mdl.predict(X[:, f]), dtype=float) for mdl, f in zip(models, features)])


def predict_out_of_bag(models, X: np.ndarray, in_bag: np.ndarray, features=None) -> np.ndarray:
    """(B, n) training predictions, computed only where point i is out of bag for model b.

    In-bag entries are left at 0: the out-of-bag aggregates never read them, and skipping them
    saves about (1 - 1/e) of the prediction cost at m = n.
    """
    out = np.zeros(in_bag.shape)
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
        return [fit_models(estimator, X, y, r, s) for r, s in zip(resample_sets, seed_sets)]


def parallel_fit(estimator, X, y, resample_sets, seed_sets, n_jobs) -> list:
    """fit_models for each (resamples, seeds) pair, in ``n_jobs`` worker processes over
    contiguous batches, one BLAS thread each, with the caller's warning filters.

    Processes, not threads: the MLP's L-BFGS loop calls back into Python and holds the GIL, so
    threads gave no speed-up. The seeds are fixed beforehand, so results do not depend on
    ``n_jobs``.
    """
    jobs = _n_jobs(n_jobs)
    if jobs == 1 or len(resample_sets) <= 1:
        return _fit_batch(estimator, X, y, resample_sets, seed_sets)
    batches = np.array_split(np.arange(len(resample_sets)), min(jobs, len(resample_sets)))
    with parallel_config(backend="loky", inner_max_num_threads=1):
        parts = Parallel(n_jobs=len(batches))(
            delayed(_fit_batch)(estimator, X, y, [resample_sets[i] for i in b],
                                [seed_sets[i] for i in b], list(warnings.filters)) for b in batches)
    return [models for part in parts for models in part]


def warm_up_workers(estimator, X, y, n_jobs) -> None:
    """Start :func:`parallel_fit`'s worker processes (and their imports) with a tiny fit, so that
    timed fits that follow do not pay the start-up (3.5 s measured for the first call, 12 ms
    for the next): the workers stay up between calls."""
    jobs = _n_jobs(n_jobs)
    if jobs > 1:
        rows = np.arange(min(len(y), 10))
        parallel_fit(estimator, X, y, [[rows]] * jobs, [[0]] * jobs, jobs)


def _n_jobs(n_jobs) -> int:
    if n_jobs in (None, 0):
        return 1
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return int(n_jobs)


# ----------------------------------------------------------------------------- J+aB
class JackknifePlusAfterBootstrap(RegressorMixin, BaseEstimator):
    """Jackknife+-after-bootstrap (Kim, Xu & Barber 2020, Algorithm 2; minmax: Appendix C).

    Fits B models on resamples of size m and reuses them for every leave-one-out aggregate
    mu_{-i} = phi(models whose resample misses i): the interval costs no extra model fit.
    ``random_B=True`` draws B ~ Binomial(n_resamples, p) with p = (1 - 1/(n+1))^m (with
    replacement) or 1 - m/(n+1) (without), which gives Theorem 1's 1 - 2 alpha guarantee; see
    :func:`ensemble_repro.conformal.paper_n_resamples` for the paper's choice of n_resamples.
    """

    def __init__(self, estimator, n_resamples=20, resample_size=1.0, replace=True, random_B=False,
                 aggregation="mean", method="plus", random_state=None, n_jobs=None):
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
        _check_choice("aggregation", self.aggregation, core.AGGREGATIONS)
        _check_choice("method", self.method, core.METHODS)

    def fit(self, X, y, resamples=None):
        """Fit the B models. ``resamples`` (B index arrays into X) replaces the random draw."""
        self._check_params()
        X, y = check_training_data(X, y)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        if resamples is None:
            n_tilde = _check_positive_int("n_resamples", self.n_resamples)
            m = resolve_resample_size(self.resample_size, n, self.replace)
            B = core.draw_n_resamples(n_tilde, n, m, self.replace, rng) if self.random_B else n_tilde
            resamples = core.draw_resamples(n, m, B, self.replace, rng)
        else:
            resamples = [np.asarray(r) for r in resamples]
            if any(r.ndim != 1 or r.size == 0 or r.min() < 0 or r.max() >= n for r in resamples):
                raise ValueError(f"resamples must be non-empty 1-D index arrays with values in [0, {n})")
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
        self.n_features_in_ = X.shape[1]
        self.n_resamples_ = len(self.estimators_)
        self.in_bag_ = core.in_bag_mask(self.resamples_, n)
        self.oob_counts_ = (~self.in_bag_).sum(axis=0)
        train_pred = predict_out_of_bag(self.estimators_, X, self.in_bag_, self.estimators_features_)
        self.residuals_ = np.abs(y - core.oob_self_aggregate(train_pred, self.in_bag_, self.aggregation))

    @classmethod
    def from_bagging(cls, model, X, y, aggregation="mean", method="plus"):
        """Wrap a fitted scikit-learn ``BaggingRegressor`` without refitting (fixed B).

        ``X, y`` must be the data ``model`` was fitted on; its public ``estimators_samples_``
        give the resamples and ``estimators_features_`` the columns each model sees.
        """
        check_is_fitted(model, "estimators_")
        if not hasattr(model, "estimators_samples_"):
            raise ValueError("model must be a fitted sklearn.ensemble.BaggingRegressor "
                             "(it has no estimators_samples_)")
        X, y = check_training_data(X, y)
        if X.shape[1] != model.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} columns but the model was fitted on {model.n_features_in_}")
        samples = [np.asarray(s) for s in model.estimators_samples_]
        if any(s.size and s.max() >= X.shape[0] for s in samples):
            raise ValueError("X, y must be the data the model was fitted on: a resample index "
                             f"exceeds n = {X.shape[0]}")
        obj = cls(model.estimator, n_resamples=len(samples), resample_size=len(samples[0]),
                  replace=bool(model.bootstrap), random_B=False, aggregation=aggregation, method=method)
        obj._check_params()
        obj.estimators_ = list(model.estimators_)
        obj.resamples_ = samples
        obj.estimators_features_ = [np.asarray(f) for f in model.estimators_features_]
        obj._fit_oob(X, y)
        return obj

    def _test_predictions(self, X) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        X = check_test_data(X, self.n_features_in_)
        return predict_models(self.estimators_, X, self.estimators_features_)

    def predict(self, X):
        """The aggregated ensemble prediction phi(mu_1(x), ..., mu_B(x)) (Algorithm 1)."""
        return core.aggregate(self._test_predictions(X), self.aggregation)

    def predict_interval(self, X, alpha=0.1):
        """(lower, upper) arrays of the J+aB (or minmax) interval at level 1 - alpha."""
        alpha = check_alpha(alpha)
        return core.jab_interval(self._test_predictions(X), self.in_bag_, self.residuals_, alpha,
                                 self.aggregation, self.method)


# ----------------------------------------------------------------------------- J+ensemble, J+
class _LeaveOneOut(RegressorMixin, BaseEstimator):
    """Shared part of the jackknife+ estimators: n leave-one-out ensembles, one per training point."""

    def fit(self, X, y):
        _check_choice("method", self.method, core.METHODS)
        self._check_params()
        X, y = check_training_data(X, y)
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        resample_sets = self._loo_plan(n, rng)  # n arrays of shape (B, size)
        seed_sets = [rng.randint(_SEED_MAX, size=len(r)) for r in resample_sets]
        self.estimators_ = parallel_fit(self.estimator, X, y, resample_sets, seed_sets, self.n_jobs)
        self.resamples_ = resample_sets
        self.n_features_in_ = X.shape[1]
        own = [predict_models(models, X[i:i + 1])[:, 0] for i, models in enumerate(self.estimators_)]
        mu_self = np.array([core.aggregate(p[:, None], self._aggregation())[0] for p in own])
        self.residuals_ = np.abs(y - mu_self)
        return self

    def predict_interval(self, X, alpha=0.1, chunk_size=4096):
        """(lower, upper) arrays of the jackknife+ (or minmax) interval at level 1 - alpha."""
        alpha = check_alpha(alpha)
        check_is_fitted(self, "estimators_")
        X = check_test_data(X, self.n_features_in_)
        k = X.shape[0]
        lower, upper = np.empty(k), np.empty(k)
        for start in range(0, k, chunk_size):
            sl = slice(start, min(start + chunk_size, k))
            loo = core.loo_aggregate(loo_predictions(self.estimators_, X[sl]), self._aggregation())
            lower[sl], upper[sl] = core.interval(loo, self.residuals_, alpha, self.method)
        return lower, upper


class JackknifePlusEnsemble(_LeaveOneOut):
    """J+ensemble (Appendix D.1, Algorithm 4): jackknife+ around the B-model ensemble, n * B fits.

    For each i, B resamples of size m are drawn from the other n - 1 points (row i removed from
    both X and y) and aggregated with ``aggregation``; m is computed from the full n, as in the
    paper's protocol.
    """

    def __init__(self, estimator, n_resamples=20, resample_size=1.0, replace=True,
                 aggregation="mean", method="plus", random_state=None, n_jobs=None):
        self.estimator = estimator
        self.n_resamples = n_resamples
        self.resample_size = resample_size
        self.replace = replace
        self.aggregation = aggregation
        self.method = method
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        _check_choice("aggregation", self.aggregation, core.AGGREGATIONS)
        _check_positive_int("n_resamples", self.n_resamples)

    def _aggregation(self) -> str:
        return self.aggregation

    def _loo_plan(self, n, rng):
        m = resolve_resample_size(self.resample_size, n, self.replace)
        if not self.replace and m > n - 1:
            raise ValueError(f"resample_size gives m = {m} > n - 1 = {n - 1}: a leave-one-out set "
                             "cannot be subsampled without replacement; lower it or use replace=True")
        return [loo_resamples(n, i, m, self.n_resamples, self.replace, rng) for i in range(n)]


def loo_predictions(model_sets, X: np.ndarray) -> np.ndarray:
    """(n, B, k) predictions at X of every model of each of the n leave-one-out ensembles."""
    return np.stack([predict_models(models, X) for models in model_sets])


def loo_resamples(n: int, i: int, m: int, n_resamples: int, replace: bool, rng) -> np.ndarray:
    """(B, m) resamples of the n - 1 indices other than i (J+ensemble's ensemble without i)."""
    keep = np.delete(np.arange(n), i)
    return keep[core.draw_resamples(n - 1, m, n_resamples, replace, rng)]


class JackknifePlus(_LeaveOneOut):
    """Jackknife+ of the base learner (J+non-ensemble, Appendix D.1, Algorithm 5): n fits."""

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
