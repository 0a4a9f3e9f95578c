"""Member pools: classifiers for the UCI experiments (section V; the pool itself is [I]),
and synthetic pools with the paper's time profile (section IV-B).

About 30 scikit-learn classifiers per data set. p_i is the accuracy on a held-out selection
split; the cost t_i is either the measured training wall time (the paper's choice, not
reproducible run to run) or a deterministic count of the floating-point operations the fit
performed, computed from the fitted model (``training_flops``), which follows training time
across families and is identical on every run. ``synthetic_pool`` draws accuracies from a
Beta law and costs from the time profile λ = 1 − p (``time_profile_costs``).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.ensemble import (
    AdaBoostClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression, RidgeClassifier, SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import BernoulliNB, GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from ..rng import check_generator
from .beta import _check_beta
from .energy import _check_probabilities, _is_whole


def classifier_pool(seed: int) -> dict[str, object]:
    """The pool: 31 classifiers from 14 families with varied hyper-parameters [I].

    Parameters
    ----------
    seed : int
        ``random_state`` of the randomised classifiers.

    Returns
    -------
    dict
        Name -> unfitted ``Pipeline(StandardScaler(), classifier)``.

    Examples
    --------
    >>> from ensemble_repro.knapsack.pools import classifier_pool
    >>> pool = classifier_pool(0)
    >>> len(pool), pool["knn_k3"][-1].n_neighbors
    (31, 3)
    """
    rs = int(seed)
    pool = {
        "gaussian_nb": GaussianNB(),
        "bernoulli_nb": BernoulliNB(),
        "lda": LinearDiscriminantAnalysis(),
        # fixed shrinkage keeps class covariances full rank (sonar: n < d; spambase: constant columns)
        "qda_shrunk": QuadraticDiscriminantAnalysis(solver="eigen", shrinkage=0.1),
        "ridge": RidgeClassifier(),
        "sgd_hinge": SGDClassifier(random_state=rs),
        "linear_svm": LinearSVC(random_state=rs),
    }
    for k in (1, 3, 5, 15):
        pool[f"knn_k{k}"] = KNeighborsClassifier(n_neighbors=k)
    pool["knn_k15_distance"] = KNeighborsClassifier(n_neighbors=15, weights="distance")
    for c in (0.01, 1, 100):
        pool[f"logreg_C{c}"] = LogisticRegression(C=c, max_iter=1000)
    for g in (0.1, 1, 10):
        pool[f"rbf_svm_gamma{g}x"] = SVC(gamma="scale", C=1.0) if g == 1 else SVC(gamma=g, C=1.0)
    for depth in (1, 3, 5, None):
        pool[f"tree_depth{depth or 'full'}"] = DecisionTreeClassifier(
            max_depth=depth, random_state=rs
        )
    for m in (10, 100):
        pool[f"random_forest_{m}"] = RandomForestClassifier(n_estimators=m, random_state=rs)
        pool[f"extra_trees_{m}"] = ExtraTreesClassifier(n_estimators=m, random_state=rs)
    pool["adaboost_50"] = AdaBoostClassifier(n_estimators=50, random_state=rs)
    pool["gbt_100"] = GradientBoostingClassifier(n_estimators=100, random_state=rs)
    for sizes in ((10,), (50,), (100, 50)):
        pool["mlp_" + "x".join(map(str, sizes))] = MLPClassifier(
            sizes, max_iter=300, random_state=rs
        )
    return {name: make_pipeline(StandardScaler(), clf) for name, clf in pool.items()}


def _tree_flops(tree, d_split: int) -> float:
    """Sorting-based split search: each internal node scans its samples over its features."""
    t = tree.tree_
    inner = t.children_left >= 0
    ns = t.n_node_samples[inner].astype(float)
    return float(np.sum(ns * d_split * np.log2(np.maximum(ns, 2))))


def training_flops(model, n: int, d: int) -> float:
    """Deterministic training cost: floating-point operations of the fit, from the fitted model.

    Per family: iterative linear models and MLPs count passes over the data (n_iter_ from the
    fit), trees count split scans per node (actual fitted tree sizes), SVMs the kernel rows
    of their support vectors, discriminant analyses and ridge their covariance solves.

    Parameters
    ----------
    model : Pipeline
        A fitted member of :func:`classifier_pool`.
    n, d : int
        Training rows and features.

    Returns
    -------
    float
        Floating-point operations of the fit.

    Examples
    --------
    >>> from sklearn.base import clone
    >>> from sklearn.datasets import make_classification
    >>> from ensemble_repro.knapsack.pools import classifier_pool, training_flops
    >>> X, y = make_classification(n_samples=80, n_features=5, random_state=0)
    >>> training_flops(clone(classifier_pool(0)["lda"]).fit(X, y), *X.shape)  # 2nd + (2nd² + d³)
    4925.0
    """
    clf = model[-1]
    flops = 2.0 * n * d  # the StandardScaler
    iters = float(np.max(getattr(clf, "n_iter_", None) or 1))
    if isinstance(clf, (GaussianNB, BernoulliNB)):
        flops += 4.0 * n * d
    elif isinstance(clf, KNeighborsClassifier):
        flops += n * d * np.log2(n)  # index construction
    elif isinstance(clf, (LogisticRegression, SGDClassifier, LinearSVC)):
        flops += iters * 4.0 * n * d
    elif isinstance(clf, (RidgeClassifier, LinearDiscriminantAnalysis)):
        flops += 2.0 * n * d * d + d**3
    elif isinstance(clf, QuadraticDiscriminantAnalysis):
        flops += 2 * (2.0 * n * d * d + d**3)
    elif isinstance(clf, SVC):
        flops += 2.0 * n * clf.support_.size * d  # kernel rows of the support vectors
    elif isinstance(clf, DecisionTreeClassifier):
        flops += _tree_flops(clf, d)
    elif isinstance(clf, (RandomForestClassifier, ExtraTreesClassifier)):
        d_split = max(1, int(np.sqrt(d)))
        flops += sum(_tree_flops(e, d_split) for e in clf.estimators_)
    elif isinstance(clf, AdaBoostClassifier):
        flops += sum(_tree_flops(e, d) + 4.0 * n for e in clf.estimators_)
    elif isinstance(clf, GradientBoostingClassifier):
        flops += sum(_tree_flops(e, d) + 4.0 * n for e in clf.estimators_.ravel())
    elif isinstance(clf, MLPClassifier):
        weights = sum(w.size for w in clf.coefs_)
        flops += iters * 6.0 * n * weights  # forward + backward passes
    else:
        raise ValueError(f"no FLOP model for {type(clf).__name__}")
    return float(flops)


def build_pool(
    X,
    y,
    *,
    seed: int,
    select_fraction: float = 0.25,
    test_fraction: float = 0.25,
    timing_repeats: int = 1,
    member_features: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fit the pool on a stratified train split; score it on the selection and test splits.

    Returns the pool table (one row per classifier: ``p`` on the selection split, ``p_test``,
    ``flops``, ``train_seconds`` = median wall time of ``timing_repeats`` fits, ``features``
    it saw) and a table of per-example correctness on the test split (one bool column per
    classifier), used for the empirical majority vote of chosen ensembles. BLAS runs
    single-threaded so results do not depend on the cores available.

    ``member_features`` [I] gives each member its own random subset of that many feature
    columns (drawn from ``seed``), a weak learner in the spirit of the paper's pools of
    members well below accuracy 1, for data sets on which full-feature members saturate.

    Parameters
    ----------
    X : array-like of shape (N, d)
        Features (categorical columns are one-hot encoded).
    y : array-like of shape (N,)
        Binary labels.
    seed : int
        Seed of the splits and of the randomised classifiers.
    select_fraction, test_fraction : float, default=0.25
        Shares of the data in the selection and test splits.
    timing_repeats : int, default=1
        Fits timed per classifier.
    member_features : int or None, default=None
        Feature columns each member sees, drawn at random without replacement per member
        (None: all of them).

    Returns
    -------
    pool : DataFrame
        One row per classifier: member, family, p, p_test, flops, train_seconds, features
        (the column positions it saw, space-separated).
    correct : DataFrame
        One bool column per classifier: correct on each test example.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from ensemble_repro.knapsack.pools import build_pool
    >>> X, y = make_classification(n_samples=80, n_features=5, random_state=0)
    >>> import warnings
    >>> from sklearn.exceptions import ConvergenceWarning
    >>> with warnings.catch_warnings():  # the MLP members stop at max_iter on 60 rows
    ...     warnings.simplefilter("ignore", ConvergenceWarning)
    ...     pool, correct = build_pool(X, y, seed=0)
    >>> pool.shape, correct.shape
    ((31, 7), (20, 31))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", ConvergenceWarning)
    ...     weak, _ = build_pool(X, y, seed=0, member_features=1)
    >>> int(weak["features"].str.split().str.len().max())
    1
    """
    X = np.asarray(pd.get_dummies(pd.DataFrame(X), dtype=float), dtype=float)
    y = np.asarray(y)
    if X.shape[0] != y.shape[0]:
        raise ValueError(
            f"X and y must have the same number of rows; got {X.shape[0]} and {y.shape[0]}"
        )
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"y must be a binary label; got {classes.size} classes")
    if not (0 < select_fraction and 0 < test_fraction and select_fraction + test_fraction < 1):
        raise ValueError(
            "select_fraction and test_fraction must be positive and sum to less "
            f"than 1; got {select_fraction} and {test_fraction}"
        )
    if timing_repeats < 1:
        raise ValueError(f"timing_repeats must be a positive integer; got {timing_repeats}")
    if member_features is not None and not (
        _is_whole(member_features) and 1 <= member_features <= X.shape[1]
    ):
        raise ValueError(
            f"member_features must be None or an integer from 1 to the {X.shape[1]} feature "
            f"columns; got {member_features!r}"
        )
    y = (y == classes[1]).astype(int)
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, test_size=select_fraction + test_fraction, stratify=y, random_state=seed
    )
    X_sel, X_te, y_sel, y_te = train_test_split(
        X_rest,
        y_rest,
        test_size=test_fraction / (select_fraction + test_fraction),
        stratify=y_rest,
        random_state=seed,
    )
    rows, correct = [], {}
    rng = np.random.default_rng(seed)
    with threadpool_limits(1):
        for name, proto in classifier_pool(seed).items():
            cols = np.arange(X.shape[1])
            if member_features is not None:
                cols = np.sort(rng.choice(X.shape[1], size=int(member_features), replace=False))
            times = []
            for _ in range(timing_repeats):
                model = clone(proto)
                start = time.perf_counter()
                model.fit(X_tr[:, cols], y_tr)
                times.append(time.perf_counter() - start)
            correct[name] = model.predict(X_te[:, cols]) == y_te
            rows.append(
                {
                    "member": name,
                    "family": type(model[-1]).__name__,
                    "p": float(np.mean(model.predict(X_sel[:, cols]) == y_sel)),
                    "p_test": float(correct[name].mean()),
                    "flops": training_flops(model, X_tr.shape[0], cols.size),
                    "train_seconds": float(np.median(times)),
                    "features": " ".join(map(str, cols)),
                }
            )
    return pd.DataFrame(rows), pd.DataFrame(correct)


def empirical_vote_accuracy(correct: pd.DataFrame, members) -> float:
    """Accuracy of the strict-majority vote of ``members`` on real outputs (dependent members).

    Parameters
    ----------
    correct : DataFrame
        One bool column per pool member (:func:`build_pool`'s second table).
    members : sequence of int
        Column positions of the ensemble.

    Returns
    -------
    float
        Share of rows where more than half of the members are correct (0 for no member).

    Examples
    --------
    >>> import pandas as pd
    >>> from ensemble_repro.knapsack.pools import empirical_vote_accuracy
    >>> correct = pd.DataFrame({"a": [1, 1, 0, 0], "b": [1, 0, 1, 0], "c": [0, 1, 1, 1]})
    >>> empirical_vote_accuracy(correct, [0, 1, 2])
    0.75
    """
    votes = np.asarray(correct.iloc[:, list(members)], dtype=int)
    return float(np.mean(votes.sum(axis=1) > votes.shape[1] / 2)) if votes.shape[1] else 0.0


def time_profile_costs(p, random_state=None, scale: float = 1.0) -> np.ndarray:
    """Costs from the paper's time profile λ = 1 − p (section IV-B).

    τ_i is exponential with rate λ_i = (1 − p_i)/scale, so its mean scale/(1 − p_i) rises with
    the accuracy ("for a given λ, T and an independent exponential distributed τ_j, ℓ_T is
    distributed as Poisson with parameter λT").

    Parameters
    ----------
    p : array-like of shape (n,)
        Member accuracies in [0, 1).
    random_state : None, int or Generator, default=None
        Seed of the numpy Generator.
    scale : float, default=1.0
        Time unit (> 0).

    Returns
    -------
    ndarray of shape (n,)
        Positive costs.

    Examples
    --------
    >>> from ensemble_repro.knapsack.pools import time_profile_costs
    >>> time_profile_costs([0.5, 0.9, 0.99], random_state=0).round(3)
    array([ 1.36 , 10.196,  1.981])
    """
    p = np.asarray(p, dtype=float)
    _check_probabilities(p)
    if p.size and p.max() >= 1:
        raise ValueError(
            "p must be below 1 for the time profile (a member with p = 1 has infinite mean "
            f"time 1/(1 - p)); got max {p.max():.4g}"
        )
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive time unit; got {scale!r}")
    rng = check_generator(random_state)
    return rng.exponential(scale / (1.0 - p))


def synthetic_pool(
    n: int,
    a: float,
    b: float,
    *,
    cost: str = "time_profile",
    scale: float = 1.0,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic pool: p_i ~ Beta(a, b) i.i.d., costs from the time profile or unit costs.

    The paper fits a Beta law to high accuracies (section IV-A) and uses the time profile
    λ = 1 − p "suited to our data" (section IV-B); ``cost="unit"`` gives the Kaggle setting
    without times (T then bounds the ensemble size).

    Parameters
    ----------
    n : int
        Pool size (>= 1).
    a, b : float
        Beta parameters of the accuracies (e.g. :func:`~ensemble_repro.knapsack.fit_beta` of
        real accuracies).
    cost : {"time_profile", "unit"}, default="time_profile"
        :func:`time_profile_costs`, or all costs 1.
    scale : float, default=1.0
        Time unit of the profile.
    random_state : None, int or Generator, default=None
        Seed of the numpy Generator (accuracies are drawn first, then costs).

    Returns
    -------
    p, t : ndarray of shape (n,)
        Member accuracies and costs.

    Examples
    --------
    >>> from ensemble_repro.knapsack.pools import synthetic_pool
    >>> p, t = synthetic_pool(3, 18.0, 2.0, random_state=0)
    >>> p.round(3), t.round(3)
    (array([0.873, 0.796, 0.938]), array([17.926,  0.355, 17.221]))
    """
    if not _is_whole(n) or n < 1:
        raise ValueError(f"n must be a positive pool size; got {n!r}")
    _check_beta(a, b)
    if cost not in ("time_profile", "unit"):
        raise ValueError(f"cost must be 'time_profile' or 'unit'; got {cost!r}")
    rng = check_generator(random_state)
    p = rng.beta(a, b, size=int(n))
    if cost == "unit":
        return p, np.ones(int(n))
    return p, time_profile_costs(np.minimum(p, np.nextafter(1.0, 0.0)), rng, scale)
