"""Numeric core of the jackknife+ family (Kim, Xu & Barber 2020): pure, vectorised functions.

Conventions: ``predictions`` is a (B, k) matrix, row b the predictions of model b at k points;
``in_bag`` is a (B, n) boolean matrix, True when training point i is in resample S_b. Leave-one-out
predictions are returned as (k, n) matrices, entry [j, i] = mu_{-i}(x_j).
"""

from __future__ import annotations

import math

import numpy as np

from . import kernels
from .validation import check_alpha, check_bool, check_positive_int

AGGREGATIONS = ("mean", "median", "trimmed_mean")
METHODS = ("plus", "minmax")


# ----------------------------------------------------------------------------- number of models B
def binomial_probability(n: int, m: int, replace: bool) -> float:
    """P(a resample of size m from n + 1 points misses one given point) (Theorem 1).

    Parameters
    ----------
    n : int
        Number of training points.
    m : int
        Resample size.
    replace : bool
        With replacement: (1 - 1/(n+1))^m; without: 1 - m/(n+1).

    Returns
    -------
    float

    Examples
    --------
    >>> from ensemble_repro.conformal import binomial_probability
    >>> round(binomial_probability(9, 10, True), 4), binomial_probability(9, 6, False)
    (0.3487, 0.4)
    """
    n, m = check_positive_int("n", n), check_positive_int("m", m)
    if not check_bool("replace", replace) and m > n + 1:
        raise ValueError(
            f"m must be at most n + 1 = {n + 1} without replacement (a subsample of the n + 1 "
            f"points); got {m}"
        )
    return (1.0 - 1.0 / (n + 1)) ** m if replace else 1.0 - m / (n + 1)


def draw_n_resamples(n_resamples: int, n: int, m: int, replace: bool, rng) -> int:
    """B ~ Binomial(n_resamples, binomial_probability(n, m, replace)) (Theorem 1).

    Parameters
    ----------
    n_resamples : int
        The Binomial's number of trials (B-tilde).
    n, m : int
        Training points and resample size.
    replace : bool
    rng : numpy.random.RandomState

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import draw_n_resamples
    >>> draw_n_resamples(100, 40, 40, True, np.random.RandomState(0))
    43
    """
    n_resamples = check_positive_int("n_resamples", n_resamples)
    return int(rng.binomial(n_resamples, binomial_probability(n, m, replace)))


def paper_n_resamples(target: int, n: int, m: int, matched: str, replace: bool = True) -> int:
    """The B-tilde the paper passes to the Binomial draw (Theorem 1).

    ``matched="loo"`` (Section 5): floor(target / ((1 - 1/(n+1))^m (1 - 1/n)^m)), so that each
    leave-one-out ensemble aggregates ``target`` models on average, like J+ensemble with
    B = target. ``matched="fits"`` (Appendix D.3): floor(target / (1 - 1/(n+1))^m), so that
    the expected number of fitted models is ``target``. Pass the result as ``n_resamples`` of
    :class:`JackknifePlusAfterBootstrap` with ``random_B=True``. Without replacement
    (subsampling, Section 2.2) the same matching uses 1 - m/(n+1) and 1 - m/n in place of
    (1 - 1/(n+1))^m and (1 - 1/n)^m.

    Parameters
    ----------
    target : int
    n, m : int
        Training points and resample size.
    matched : {"loo", "fits"}
    replace : bool
        Resamples drawn with replacement (bootstrap, the paper's experiments) or without.

    Returns
    -------
    int

    Examples
    --------
    >>> from ensemble_repro.conformal import paper_n_resamples
    >>> paper_n_resamples(20, 40, 24, "loo")
    66
    >>> paper_n_resamples(20, 40, 24, "loo", replace=False)
    120
    """
    if matched not in ("loo", "fits"):
        raise ValueError(f"matched must be 'loo' or 'fits', got {matched!r}")
    target = check_positive_int("target", target)
    p = binomial_probability(n, m, replace)
    if matched == "loo":
        excluded = (1.0 - 1.0 / n) ** m if replace else 1.0 - m / n
        if p * excluded <= 0:
            raise ValueError(
                f"matched='loo' needs resamples that can miss a point of the n = {n}: got "
                f"m = {m}{' without replacement' if not replace else ''} (give n >= 2 and, "
                "without replacement, m < n)"
            )
        return int(math.floor(target / (p * excluded)))
    if p <= 0:
        raise ValueError(
            f"matched='fits' needs resamples that can miss a point: m = {m} without "
            f"replacement takes all n + 1 = {n + 1} (give m <= n)"
        )
    return int(math.floor(target / p))


def draw_resamples(n: int, m: int, n_resamples: int, replace: bool, rng) -> np.ndarray:
    """(B, m) indices into range(n): B resamples of size m, with or without replacement.

    Parameters
    ----------
    n, m : int
        Population and resample size (m <= n without replacement).
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
    >>> from ensemble_repro.conformal import draw_resamples
    >>> draw_resamples(5, 3, 2, True, np.random.RandomState(0))
    array([[4, 0, 3],
           [3, 3, 1]])
    """
    if replace:
        return rng.randint(0, n, size=(n_resamples, m))
    return np.argsort(rng.random_sample((n_resamples, n)), axis=1)[:, :m]


def in_bag_mask(resamples, n: int) -> np.ndarray:
    """(B, n) boolean matrix: True where point i appears in resample b.

    Parameters
    ----------
    resamples : sequence of B index arrays
    n : int

    Returns
    -------
    ndarray of shape (B, n), bool

    Examples
    --------
    >>> from ensemble_repro.conformal import in_bag_mask
    >>> in_bag_mask([[0, 0, 2], [1, 3, 4]], 5).astype(int)
    array([[1, 0, 1, 0, 0],
           [0, 1, 0, 1, 1]])
    """
    mask = np.zeros((len(resamples), n), dtype=bool)
    for b, idx in enumerate(resamples):
        mask[b, idx] = True
    return mask


# ----------------------------------------------------------------------------- aggregation phi
def aggregate(predictions: np.ndarray, aggregation: str) -> np.ndarray:
    """phi over the models (axis 0) of a (B, k) matrix; 0 when B = 0 (the paper's default).

    Parameters
    ----------
    predictions : ndarray of shape (B, k)
    aggregation : {"mean", "median", "trimmed_mean"}
        The trimmed mean averages the middle 50% (``scipy.stats.trim_mean(., 0.25)``).

    Returns
    -------
    ndarray of shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import aggregate
    >>> P = np.array([[1.0, 2.0], [3.0, 4.0], [8.0, 0.0]])
    >>> aggregate(P, "mean"), aggregate(P, "median")
    (array([4., 2.]), array([3., 2.]))
    """
    if predictions.shape[0] == 0:
        return np.zeros(predictions.shape[1:])
    if aggregation == "mean":
        return predictions.mean(axis=0)
    if aggregation == "median":
        return np.median(predictions, axis=0)
    return _sorted_window_mean(np.sort(predictions, axis=0), predictions.shape[0])


def _sorted_window_mean(sorted_values: np.ndarray, count) -> np.ndarray:
    """Trimmed mean of the middle 50% (scipy.stats.trim_mean(., 0.25)) of sorted columns.

    ``count`` (scalar or per column) is the number of valid leading rows of each column.
    """
    count = np.asarray(count)
    lo = count // 4
    hi = count - lo
    rank = np.arange(1, sorted_values.shape[0] + 1).reshape((-1,) + (1,) * (sorted_values.ndim - 1))
    window = (rank > lo) & (rank <= hi)
    total = np.where(window, sorted_values, 0.0).sum(axis=0)
    return np.where(hi > lo, total / np.maximum(hi - lo, 1), 0.0)


def oob_self_aggregate(
    train_predictions: np.ndarray, in_bag: np.ndarray, aggregation: str
) -> np.ndarray:
    """mu_{-i}(X_i) for every training point i (Algorithm 2, line 6); 0 for empty OOB sets.

    Parameters
    ----------
    train_predictions : ndarray of shape (B, n)
        Model b at training point i (in-bag entries are not read).
    in_bag : ndarray of shape (B, n), bool
    aggregation : {"mean", "median", "trimmed_mean"}

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import oob_self_aggregate
    >>> in_bag = np.eye(3, dtype=bool)  # model b was fitted on point b only
    >>> T = np.array([[1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]])
    >>> oob_self_aggregate(T, in_bag, "mean")
    array([2.5, 6. , 9.5])
    """
    oob = ~in_bag
    count = oob.sum(axis=0)
    if aggregation == "mean":
        total = np.where(oob, train_predictions, 0.0).sum(axis=0)
        return np.where(count > 0, total / np.maximum(count, 1), 0.0)
    if train_predictions.shape[0] == 0:
        return np.zeros(train_predictions.shape[1])
    # Masked sorting: in-bag entries become +inf and sort to the end of each column.
    ordered = np.sort(np.where(oob, train_predictions, np.inf), axis=0)
    if aggregation == "median":
        cols = np.arange(ordered.shape[1])
        med = 0.5 * (
            ordered[np.maximum(count - 1, 0) // 2, cols]
            + ordered[np.minimum(count // 2, ordered.shape[0] - 1), cols]
        )
        return np.where(count > 0, med, 0.0)
    return _sorted_window_mean(ordered, count)


def oob_aggregate(predictions: np.ndarray, in_bag: np.ndarray, aggregation: str) -> np.ndarray:
    """(k, n) matrix of leave-one-out aggregates mu_{-i}(x_j) = phi({mu_b(x_j): i not in S_b}).

    Mean: one matrix product. Median / trimmed mean: masked sorting in compiled code
    (:func:`kernels.oob_aggregates`), O(B + n) extra memory.
    Empty out-of-bag sets give 0 (the paper's default).

    Parameters
    ----------
    predictions : ndarray of shape (B, k)
        Model b at test point j.
    in_bag : ndarray of shape (B, n), bool
    aggregation : {"mean", "median", "trimmed_mean"}

    Returns
    -------
    ndarray of shape (k, n)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import oob_aggregate
    >>> P = np.array([[1.0, 2.0], [3.0, 4.0], [8.0, 0.0]])
    >>> oob_aggregate(P, np.eye(3, dtype=bool), "mean")
    array([[5.5, 4.5, 2. ],
           [2. , 1. , 3. ]])
    """
    oob = ~in_bag
    count = oob.sum(axis=0)
    if aggregation == "mean":
        return predictions.T @ (oob / np.maximum(count, 1.0))
    shape = (predictions.shape[1], in_bag.shape[1])
    if predictions.shape[0] == 0:
        return np.zeros(shape)
    with kernels.first_call_notice("oob_aggregates"):
        return kernels.oob_aggregates(
            np.ascontiguousarray(predictions.T, dtype=float),
            oob.view(np.uint8),
            count.astype(np.int64),
            AGGREGATIONS.index(aggregation),
            np.empty(shape),
        )


# ----------------------------------------------------------------------------- intervals
def quantile_ranks(n: int, alpha: float) -> tuple[int, int]:
    """Ranks (1-based) of q-_{alpha,n} and q+_{alpha,n}: floor(alpha(n+1)), ceil((1-alpha)(n+1)).

    A relative tolerance of 1e-10 absorbs floating-point error (e.g. 0.9 * 10 = 9.000000000000002
    must give rank 9).

    Parameters
    ----------
    n : int
    alpha : float

    Returns
    -------
    (int, int)
        A rank below 1 or above n stands for an infinite bound.

    Examples
    --------
    >>> from ensemble_repro.conformal import quantile_ranks
    >>> quantile_ranks(19, 0.1), quantile_ranks(9, 0.1)
    ((2, 18), (1, 9))
    """
    n = check_positive_int("n", n)
    alphas, scalar = check_alpha(alpha)
    if not scalar:
        raise ValueError(f"alpha must be one number strictly between 0 and 1; got {alpha!r}")
    alpha = alphas[0]
    lo = math.floor(alpha * (n + 1) * (1 + 1e-10))
    hi = math.ceil((1 - alpha) * (n + 1) * (1 - 1e-10))
    return lo, hi


def _banded_kth(
    loo: np.ndarray, residuals: np.ndarray, order: np.ndarray, spread: float, rank: int, sign: float
) -> np.ndarray:
    """rank-th smallest (1 <= rank <= n) over i of loo[j, i] + sign * R_i, for every row j.

    Exact band pruning: ``order`` sorts the residuals and ``spread`` bounds every row's
    max_i - min_i (plus a margin for rounding). With R* the residual at the pivot rank (rank
    for +, n - rank + 1 for -), every i with R_i < R* - spread lies on one side of the answer
    in every row and every i with R_i > R* + spread on the other, so only the residuals within
    the band are partitioned. Leave-one-out predictions at a point are close to each other, so
    the band is usually a small part of n.
    """
    n = loo.shape[1]
    sorted_residuals = residuals[order]
    pivot = sorted_residuals[rank - 1 if sign > 0 else n - rank]
    start = int(np.searchsorted(sorted_residuals, pivot - spread, side="left"))
    stop = int(np.searchsorted(sorted_residuals, pivot + spread, side="right"))
    if stop - start > 0.6 * n:  # a wide band: partitioning everything is cheaper than gathering
        start, stop = 0, n
        work = np.add(loo, sign * residuals)
    else:
        work = loo[:, order[start:stop]]
        work += sign * sorted_residuals[start:stop]
    kth = rank - 1 - (start if sign > 0 else n - stop)
    work.partition(kth, axis=1)
    return work[:, kth].copy()


def plus_interval(
    loo_test: np.ndarray, residuals: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Jackknife+ interval [q-{mu_{-i}(x) - R_i}, q+{mu_{-i}(x) + R_i}] (Algorithm 2, eq. 3).

    Both bounds share one residual sort and one spread (the margin of 1e-12 of the magnitudes
    involved absorbs rounding).

    Parameters
    ----------
    loo_test : ndarray of shape (k, n)
        mu_{-i}(x_j).
    residuals : ndarray of shape (n,)
    alpha : float

    Returns
    -------
    lower, upper : ndarray of shape (k,)
        -inf / +inf where the order statistic's rank falls outside 1..n.

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import plus_interval
    >>> loo = np.array([[0.0, 0.1, -0.1, 0.05]])
    >>> plus_interval(loo, np.array([1.0, 2.0, 0.5, 1.5]), 0.2)
    (array([-1.9]), array([2.1]))
    """
    k, n = loo_test.shape
    lo_rank, hi_rank = quantile_ranks(n, alpha)
    order = np.argsort(residuals, kind="stable")
    high, low = loo_test.max(axis=1, initial=-np.inf), loo_test.min(axis=1, initial=np.inf)
    spread = (high - low).max(initial=0.0) + 1e-12 * (
        np.abs(residuals).max() + np.abs(high).max(initial=0.0) + np.abs(low).max(initial=0.0)
    )
    upper = (
        _banded_kth(loo_test, residuals, order, spread, hi_rank, 1.0)
        if 1 <= hi_rank <= n
        else np.full(k, np.inf)
    )
    lower = (
        _banded_kth(loo_test, residuals, order, spread, lo_rank, -1.0)
        if 1 <= lo_rank <= n
        else np.full(k, -np.inf)
    )
    return lower, upper


def minmax_interval(
    loo_test: np.ndarray, residuals: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Jackknife-minmax-after-bootstrap (Appendix C).

    [min_i mu_{-i}(x) - q+{R}, max_i mu_{-i}(x) + q+{R}].

    Parameters
    ----------
    loo_test : ndarray of shape (k, n)
    residuals : ndarray of shape (n,)
    alpha : float

    Returns
    -------
    lower, upper : ndarray of shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import minmax_interval
    >>> loo = np.array([[0.0, 0.1, -0.1, 0.05]])
    >>> minmax_interval(loo, np.array([1.0, 2.0, 0.5, 1.5]), 0.2)
    (array([-2.1]), array([2.1]))
    """
    n = residuals.shape[0]
    _, hi_rank = quantile_ranks(n, alpha)
    q = np.sort(residuals)[hi_rank - 1] if hi_rank <= n else np.inf
    return loo_test.min(axis=1) - q, loo_test.max(axis=1) + q


def interval(
    loo_test: np.ndarray, residuals: np.ndarray, alpha: float, method: str = "plus"
) -> tuple[np.ndarray, np.ndarray]:
    """The interval of ``method`` from (k, n) leave-one-out predictions.

    Parameters
    ----------
    loo_test : ndarray of shape (k, n)
    residuals : ndarray of shape (n,)
    alpha : float
    method : {"plus", "minmax"}, default="plus"
        :func:`plus_interval` or :func:`minmax_interval`.

    Returns
    -------
    lower, upper : ndarray of shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import interval
    >>> interval(np.zeros((1, 4)), np.array([1.0, 2.0, 0.5, 1.5]), 0.2, "minmax")
    (array([-2.]), array([2.]))
    """
    return (plus_interval if method == "plus" else minmax_interval)(loo_test, residuals, alpha)


def jab_interval(
    test_predictions: np.ndarray,
    in_bag: np.ndarray,
    residuals: np.ndarray,
    alpha: float,
    aggregation: str,
    method: str = "plus",
    chunk_size: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """J+aB interval at k test points from the (B, k) model predictions (Algorithm 2).

    Chunks of test points, each about 2^17 (test point, training point) pairs (1 MB per (k, n)
    buffer) unless ``chunk_size``. "plus": :func:`kernels.jab_plus_bounds` aggregates, per
    test point, only the training points whose residual is close enough to the quantile's to
    matter (exact); the mean starts from a matrix product of the whole chunk and switches to
    the kernel's own sums once its windows are narrow. "minmax" needs every leave-one-out
    aggregate.

    Parameters
    ----------
    test_predictions : ndarray of shape (B, k)
    in_bag : ndarray of shape (B, n), bool
    residuals : ndarray of shape (n,)
    alpha : float
    aggregation : {"mean", "median", "trimmed_mean"}
    method : {"plus", "minmax"}, default="plus"
    chunk_size : int, optional

    Returns
    -------
    lower, upper : ndarray of shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import jab_interval
    >>> P = np.array([[1.0, 2.0], [3.0, 4.0], [8.0, 0.0]])
    >>> jab_interval(P, np.eye(3, dtype=bool), np.array([0.5, 1.0, 2.0]), 0.25, "mean")
    (array([0., 0.]), array([6., 5.]))
    """
    k = test_predictions.shape[1]
    n = in_bag.shape[1]
    if chunk_size is None:
        chunk_size = max(1, (1 << 17) // n)
    lower, upper = np.empty(k), np.empty(k)
    if method == "plus":
        order = np.argsort(residuals, kind="stable")
        oob = np.ascontiguousarray((~in_bag)[:, order]).view(np.uint8)
        count = oob.sum(axis=0, dtype=np.int64)
        args = (
            oob,
            count,
            np.ascontiguousarray(residuals[order], dtype=float),
            AGGREGATIONS.index(aggregation),
            *quantile_ranks(n, alpha),
        )
        reach = np.full(2, max(4, n // 16))  # the kernel's window, carried across chunks
        rows = np.ascontiguousarray(test_predictions.T, dtype=float)  # one row per test point
        weights = oob / np.maximum(count, 1) if aggregation == "mean" else None
        for start in range(0, k, chunk_size):
            sl = slice(start, min(start + chunk_size, k))
            if weights is not None and start > 0 and reach.sum() < n / 8:
                weights = None  # narrow windows: aggregating only them beats the matrix product
            loo = np.empty((0, n)) if weights is None else rows[sl] @ weights
            with kernels.first_call_notice("jab_plus_bounds"):
                kernels.jab_plus_bounds(rows[sl], loo, *args, reach, lower[sl], upper[sl])
        return lower, upper
    for start in range(0, k, chunk_size):
        sl = slice(start, min(start + chunk_size, k))
        loo = oob_aggregate(test_predictions[:, sl], in_bag, aggregation)
        lower[sl], upper[sl] = minmax_interval(loo, residuals, alpha)
    return lower, upper


def warm_up_kernels() -> None:
    """Load the compiled kernels (numba's on-disk cache, or compile them once).

    Timed code then measures the algorithm: the first call in a process otherwise takes ~0.5 s.

    Returns
    -------
    None

    Examples
    --------
    >>> from ensemble_repro.conformal.core import warm_up_kernels
    >>> warm_up_kernels()
    """
    rng = np.random.RandomState(0)
    predictions, in_bag, residuals = rng.randn(4, 3), rng.rand(4, 9) < 0.5, rng.rand(9)
    for aggregation in AGGREGATIONS:
        for method in METHODS:
            jab_interval(predictions, in_bag, residuals, 0.2, aggregation, method, chunk_size=1)


def loo_aggregate(predictions: np.ndarray, aggregation: str) -> np.ndarray:
    """(k, n) aggregates of n leave-one-out ensembles from (n, B, k) predictions (J+ensemble).

    Parameters
    ----------
    predictions : ndarray of shape (n, B, k)
        Model b of the ensemble without point i, at test point j.
    aggregation : {"mean", "median", "trimmed_mean"}

    Returns
    -------
    ndarray of shape (k, n)

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal import loo_aggregate
    >>> loo_aggregate(np.arange(12.0).reshape(3, 2, 2), "mean")
    array([[ 1.,  5.,  9.],
           [ 2.,  6., 10.]])
    """
    n, B, k = predictions.shape
    if B == 0:
        return np.zeros((k, n))
    flat = predictions.transpose(1, 0, 2).reshape(B, n * k)
    return aggregate(flat, aggregation).reshape(n, k).T
