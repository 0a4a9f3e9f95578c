"""Base regression methods R of Kim, Xu & Barber (2020), Section 5 / Appendix D.1.

Ridge (closed form, unpenalised intercept, lambda = 0.001 * sigma_max(X)^2 of the matrix it is
fitted on), RF (20 trees, absolute-error criterion, no bootstrap) and NN (MLP, L-BFGS, logistic).
No feature scaling, as in the paper.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import RandomForestRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.utils.validation import check_is_fitted

#: Names accepted by :func:`make_learner`.
LEARNERS = ("ridge", "rf", "nn")


def ridge_closed_form(X: np.ndarray, y: np.ndarray, penalty_scale: float = 1e-3
                      ) -> tuple[np.ndarray, float]:
    """Ridge coefficients and intercept with lambda = penalty_scale * sigma_max(X)^2.

    The intercept is not penalised (X and y are centred); sigma_max is the largest singular value
    of the raw (uncentred) ``X``. Uses the primal (p x p) or dual (m x m) Gram matrix, whichever
    is smaller; both give the same solution.
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


class PaperRidge(RegressorMixin, BaseEstimator):
    """Ridge regression of the J+aB paper (Appendix D.1): lambda = 0.001 * ||X||_2^2."""

    def __init__(self, penalty_scale: float = 1e-3):
        self.penalty_scale = penalty_scale

    def fit(self, X, y):
        # Plain array conversion (not validate_data): this learner is fitted thousands of times
        # per experiment cell, so its per-call overhead matters; the conformal estimators have
        # already checked shapes and finiteness.
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(f"X must be 2-D and y 1-D of the same length; got shapes {X.shape}, {y.shape}")
        if not self.penalty_scale >= 0:
            raise ValueError(f"penalty_scale must be a non-negative number, got {self.penalty_scale!r}")
        self.coef_, self.intercept_ = ridge_closed_form(X, y, self.penalty_scale)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        check_is_fitted(self, "coef_")
        return np.asarray(X, dtype=float) @ self.coef_ + self.intercept_


def make_learner(name: str, random_state=None):
    """The paper's base learner ``name`` ("ridge", "rf" or "nn") as an unfitted estimator."""
    if name == "ridge":
        return PaperRidge()
    if name == "rf":
        return RandomForestRegressor(n_estimators=20, criterion="absolute_error", bootstrap=False,
                                     random_state=random_state)
    if name == "nn":
        return MLPRegressor(solver="lbfgs", activation="logistic", random_state=random_state)
    raise ValueError(f"learner must be one of {', '.join(LEARNERS)}; got {name!r}")
