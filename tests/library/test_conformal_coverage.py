"""Coverage near 1 - alpha over many simulated data sets (n = 40, heavy-tailed noise).

Theorem 1 guarantees >= 1 - 2 alpha; in practice the paper sees ~ 1 - alpha. Small learners keep
every case affordable (whole file ~ 1 min on an idle 2-core box; the cost is the number of fits,
up to n * B = 80 per data set for J+ensemble): the paper's ridge, and shallow randomised trees.
Bagging randomised trees is a random forest, so J+aB and J+ensemble of trees are the RF cases;
J+ (no ensemble) wraps the same tree. Each case gets its own RandomState, so running a subset
(``-k``) gives the same numbers as the whole file.
"""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

from ensemble_repro.conformal import (
    JackknifePlus,
    JackknifePlusAfterBootstrap,
    JackknifePlusEnsemble,
    paper_n_resamples,
)
from ensemble_repro.learners import PaperRidge

N, N_TEST, N_DATASETS, ALPHA = 40, 20, 200, 0.1


def datasets():
    rng = np.random.RandomState(2020)
    beta = rng.randn(4)
    for _ in range(N_DATASETS):
        X = rng.randn(N + N_TEST, 4)
        y = X @ beta + np.sin(2 * X[:, 0]) + rng.standard_t(3, N + N_TEST)
        yield X[:N], y[:N], X[N:], y[N:]


def coverage(make):
    state = np.random.RandomState(11)  # one RandomState shared by all fits of a case: no int seed
    hits = []
    for X, y, X_test, y_test in datasets():
        lower, upper = make(state).fit(X, y).predict_interval(X_test, alpha=ALPHA).T
        hits.append(np.mean((y_test >= lower) & (y_test <= upper)))
    return float(np.mean(hits))


def tree(seed=None):
    return DecisionTreeRegressor(
        max_depth=2, min_samples_leaf=8, max_features=0.75, random_state=seed
    )


CASES = {
    "jab-ridge-randomstate": lambda state: JackknifePlusAfterBootstrap(
        PaperRidge(),
        n_resamples=paper_n_resamples(5, N, N, "loo"),
        random_B=True,
        random_state=state,
    ),
    "jab-tree-none": lambda state: JackknifePlusAfterBootstrap(
        tree(),
        n_resamples=paper_n_resamples(5, N, 24, "loo"),
        resample_size=0.6,
        random_B=True,
        aggregation="median",
        random_state=None,
    ),
    "jplus-ensemble-ridge": lambda state: JackknifePlusEnsemble(
        PaperRidge(), n_resamples=3, random_state=state
    ),
    "jplus-ensemble-tree": lambda state: JackknifePlusEnsemble(
        tree(), n_resamples=2, resample_size=0.6, random_state=state
    ),
    "jplus-ridge": lambda state: JackknifePlus(PaperRidge()),
    "jplus-tree": lambda state: JackknifePlus(tree(), random_state=state),
}


@pytest.mark.parametrize("make", list(CASES.values()), ids=list(CASES))
def test_coverage_near_nominal(make):
    cov = coverage(make)
    assert cov >= 1 - 2 * ALPHA
    assert abs(cov - (1 - ALPHA)) <= 0.04, cov
