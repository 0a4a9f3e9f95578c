"""Base regression methods R of Kim, Xu & Barber (2020), Section 5 / Appendix D.1.

Ridge (closed form, unpenalised intercept, lambda = 0.001 * sigma_max(X)^2 of the matrix it is
fitted on), RF (20 trees, absolute-error criterion, no bootstrap) and NN (MLP, L-BFGS, logistic).
No feature scaling, as in the paper.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.utils.validation import check_is_fitted, validate_data

from .rng import check_random_state

#: Names accepted by :func:`make_learner`.
LEARNERS = ("ridge", "rf", "nn")


def ridge_closed_form(
    X: np.ndarray, y: np.ndarray, penalty_scale: float = 1e-3
) -> tuple[np.ndarray, float]:
    """Ridge coefficients and intercept with lambda = penalty_scale * sigma_max(X)^2.

    The intercept is not penalised (X and y are centred); sigma_max is the largest singular value
    of the raw (uncentred) ``X``. Uses the primal (p x p) or dual (m x m) Gram matrix, whichever
    is smaller; both give the same solution.

    Parameters
    ----------
    X : ndarray of shape (m, p), float64
    y : ndarray of shape (m,), float64
    penalty_scale : float, default=1e-3

    Returns
    -------
    coef : ndarray of shape (p,)
    intercept : float

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.learners import ridge_closed_form
    >>> X, y = np.array([[0.0], [1.0], [2.0]]), np.array([1.0, 3.0, 5.0])
    >>> coef, intercept = ridge_closed_form(X, y, penalty_scale=0.0)
    >>> coef.round(6), round(intercept, 6)
    (array([2.]), 1.0)
    """
    m, p = X.shape
    small = X @ X.T if m < p else X.T @ X
    sigma_max_sq = float(np.linalg.eigvalsh(small)[-1])
    lam = penalty_scale * sigma_max_sq
    x_mean, y_mean = X.mean(axis=0), y.mean()
    Xc, yc = X - x_mean, y - y_mean
    if m < p:
        gram = Xc @ Xc.T
        gram[np.diag_indices_from(gram)] += lam
        coef = Xc.T @ np.linalg.solve(gram, yc)
    else:
        gram = Xc.T @ Xc
        gram[np.diag_indices_from(gram)] += lam
        coef = np.linalg.solve(gram, Xc.T @ yc)
    return coef, float(y_mean - x_mean @ coef)


def _finite(a) -> bool:
    """All values finite, or scikit-learn's ``assume_finite`` is set (as validate_data)."""
    return get_config()["assume_finite"] or bool(np.isfinite(a).all())


def _plain_matrix(X, n_features=None) -> bool:
    """True when X is what ``validate_data`` would return unchanged: a finite, non-empty 2-D
    float64 ndarray (with ``n_features`` columns, if given)."""
    return (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.shape[0] > 0
        and X.shape[1] > 0
        and (n_features is None or X.shape[1] == n_features)
        and _finite(X)
    )


class PaperRidge(RegressorMixin, BaseEstimator):
    """Ridge regression of the J+aB paper (Appendix D.1): lambda = 0.001 * ||X||_2^2.

    The penalty scales with the largest singular value of the matrix it is fitted on (so each
    resample gets its own lambda); the intercept is not penalised; no feature scaling.

    Parameters
    ----------
    penalty_scale : float, default=1e-3
        lambda = penalty_scale * sigma_max(X)^2; non-negative.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a data frame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.learners import PaperRidge
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = X @ [2.0, -1.0] + 0.5
    >>> model = PaperRidge().fit(X, y)
    >>> np.round(model.coef_, 2), round(model.intercept_, 2)
    (array([ 2.  , -0.99]), 0.5)
    >>> model.predict([[1.0, 1.0]]).round(2)
    array([1.51])
    """

    def __init__(self, penalty_scale: float = 1e-3):
        self.penalty_scale = penalty_scale

    def fit(self, X, y):
        """Closed-form fit (:func:`ridge_closed_form`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self

        Examples
        --------
        >>> from ensemble_repro.learners import PaperRidge
        >>> PaperRidge().fit([[0.0], [1.0], [2.0]], [0.0, 1.0, 2.0]).n_features_in_
        1
        """
        # This learner is fitted thousands of times per experiment cell on float64 arrays the
        # conformal estimators have already validated: such arrays skip validate_data (~90 us a
        # call, three times the fit at n = 200, p = 10); anything else goes through it.
        if (
            _plain_matrix(X)
            and type(y) is np.ndarray
            and y.dtype == np.float64
            and y.shape == (X.shape[0],)
            and _finite(y)
        ):
            self.n_features_in_ = X.shape[1]
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        if not (isinstance(self.penalty_scale, numbers.Real) and self.penalty_scale >= 0):
            raise ValueError(
                f"penalty_scale must be a non-negative number, got {self.penalty_scale!r}"
            )
        self.coef_, self.intercept_ = ridge_closed_form(
            X, np.asarray(y, dtype=np.float64), self.penalty_scale
        )
        return self

    def predict(self, X):
        """X @ coef_ + intercept_.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> from ensemble_repro.learners import PaperRidge
        >>> model = PaperRidge(penalty_scale=0.0).fit([[0.0], [1.0], [2.0]], [1.0, 3.0, 5.0])
        >>> model.predict([[3.0]]).round(6)
        array([7.])
        """
        check_is_fitted(self, "coef_")
        if not _plain_matrix(X, self.n_features_in_) or hasattr(self, "feature_names_in_"):
            X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_ + self.intercept_


def make_learner(name: str, random_state=None):
    """The paper's base learner ``name`` as an unfitted estimator (Appendix D.1).

    Parameters
    ----------
    name : {"ridge", "rf", "nn"}
        Ridge: :class:`PaperRidge`; RF: 20 trees, absolute-error criterion, no bootstrap; NN:
        ``MLPRegressor`` with L-BFGS and logistic activation.
    random_state : None, int, RandomState or Generator, default=None
        Passed to the RF and the NN (ridge is deterministic); a Generator is passed as a
        ``RandomState`` sharing its bit generator
        (:func:`~ensemble_repro.rng.check_random_state`), since scikit-learn's learners
        reject Generators. The conformal estimators reseed it per model from their own
        ``random_state``.

    Returns
    -------
    regressor

    Examples
    --------
    >>> from ensemble_repro.learners import make_learner
    >>> make_learner("rf", random_state=0).n_estimators
    20
    >>> make_learner("svm")
    Traceback (most recent call last):
    ...
    ValueError: learner must be one of ridge, rf, nn; got 'svm'
    """
    if isinstance(random_state, np.random.Generator):
        random_state = check_random_state(random_state)
    if name == "ridge":
        return PaperRidge()
    if name == "rf":
        return RandomForestRegressor(
            n_estimators=20, criterion="absolute_error", bootstrap=False, random_state=random_state
        )
    if name == "nn":
        return MLPRegressor(solver="lbfgs", activation="logistic", random_state=random_state)
    raise ValueError(f"learner must be one of {', '.join(LEARNERS)}; got {name!r}")
