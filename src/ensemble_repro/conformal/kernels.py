"""Compiled (numba) kernels of J+aB (Kim, Xu & Barber 2020, Algorithm 2, lines 7-9):
out-of-bag aggregates mu_{-i}(x) and the jackknife+ quantiles, single-threaded, O(B + n)
extra memory per test point.
"""

from __future__ import annotations

import contextlib
import sys
import threading

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

#: Aggregation codes of the kernels (core.AGGREGATIONS order).
MEAN, MEDIAN, TRIMMED_MEAN = 0, 1, 2
_ONE = np.uint64(1)
_LOW6 = np.uint64(63)

#: Seconds the first kernel call of a process may take before it says numba is compiling:
#: loading the on-disk cache takes about 0.5 s, compiling 10 s or more.
NOTICE_AFTER = 2.0
COMPILE_NOTICE = (
    "ensemble_repro: compiling the J+aB kernels with numba, once per environment (10 s or more; "
    "later runs load them from numba's cache)"
)
_called: set[str] = set()  # kernels called in this process
_noticed = False  # the notice was given


def _say_compiling() -> None:
    global _noticed
    if not _noticed:
        _noticed = True
        print(COMPILE_NOTICE, file=sys.stderr, flush=True)


@contextlib.contextmanager
def first_call_notice(kernel: str):
    """Around a call of ``kernel``: its first call in the process, if it lasts ``NOTICE_AFTER``
    seconds (numba compiling rather than loading its cache), says so on stderr, once per
    process."""
    if kernel in _called or _noticed:
        yield
        return
    timer = threading.Timer(NOTICE_AFTER, _say_compiling)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        _called.add(kernel)


@intrinsic
def _ctpop(typingctx, x):
    """Number of set bits of a uint64 (LLVM's ctpop: one instruction where the CPU has it)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64 (LLVM's cttz)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True)
def _ranked_sum(bits, t, sorted_vals, first, last):
    """Sum of sorted_vals at the set bits of column t of ``bits`` with ranks first..last
    (1-based)."""
    total = 0.0
    seen = 0
    for g in range(bits.shape[0]):
        w = bits[g, t]
        count = np.int64(_ctpop(w))
        if seen + count < first:
            seen += count
            continue
        while seen + 1 < first:  # drop the set bits ranked below first
            w &= w - _ONE
            seen += 1
        while w:
            seen += 1
            total += sorted_vals[64 * g + np.int64(_cttz(w))]
            if seen == last:
                return total
            w &= w - _ONE
    return total


@njit(cache=True, nogil=True)
def _loo_columns(order, sorted_vals, oob, count, start, stop, agg, out, bits):
    """out[i] = mu_{-i}(x) for columns start <= i < stop, at one test point x.

    order / sorted_vals: argsort and sorted values of the B model predictions at x; oob: (B, n)
    uint8 0/1; count: (n,) its column sums; bits: (ceil(B / 64), >= stop - start) uint64
    scratch. Empty out-of-bag sets give 0. The mean sums over the models in sorted order.
    Median / trimmed mean, masked sorting with bits: column i's out-of-bag models become a
    bitset in sorted order (one OR pass per model), and the order statistics are read off its
    set bits. The median averages ranks (c+1)//2 and c//2 + 1, the trimmed mean (scipy's
    trim_mean(., 0.25)) ranks c//4 + 1 .. c - c//4. Rows are sliced to the range first:
    indexing row[start + t] defeats vectorisation (2.3x slower).
    """
    width = stop - start
    B = sorted_vals.shape[0]
    if agg == MEAN:
        acc = out[start:stop]
        acc[:] = 0.0
        for r in range(B):
            row = oob[order[r], start:stop]
            v = sorted_vals[r]
            for t in range(width):
                acc[t] += v * row[t]
        for i in range(start, stop):
            out[i] = out[i] / count[i] if count[i] > 0 else 0.0
        return
    bits[:, :width] = 0
    for r in range(B):
        row = oob[order[r], start:stop]
        word = bits[r >> 6]
        shift = np.uint64(r) & _LOW6
        for t in range(width):
            word[t] |= np.uint64(row[t]) << shift
    for t in range(width):
        c = count[start + t]
        if c == 0:
            out[start + t] = 0.0
            continue
        if agg == TRIMMED_MEAN:
            first, last = c // 4 + 1, c - c // 4
        else:
            first, last = (c + 1) // 2, c // 2 + 1
        out[start + t] = _ranked_sum(bits, t, sorted_vals, first, last) / (last - first + 1)


@njit(cache=True, nogil=True)
def oob_aggregates(predictions, oob, count, agg, out):
    """out[j, i] = mu_{-i}(x_j), the median (agg = MEDIAN) or trimmed mean (TRIMMED_MEAN) of
    {predictions[j, b] : oob[b, i]}; 0 where count[i] = 0.

    Parameters
    ----------
    predictions : ndarray of shape (k, B), float64
        One row per test point.
    oob : ndarray of shape (B, n), uint8
        1 where point i is out of bag for model b.
    count : ndarray of shape (n,), int64
        Column sums of ``oob``.
    agg : int
        MEDIAN or TRIMMED_MEAN.
    out : ndarray of shape (k, n), float64
        Filled in place.

    Returns
    -------
    ndarray
        ``out``.

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal.kernels import MEDIAN, oob_aggregates
    >>> P = np.array([[1.0, 2.0, 9.0]])  # one test point, three models
    >>> oob = np.array([[0, 1], [1, 1], [1, 0]], dtype=np.uint8)
    >>> oob_aggregates(P, oob, oob.sum(axis=0).astype(np.int64), MEDIAN, np.empty((1, 2)))
    array([[5.5, 1.5]])
    """
    k, B = predictions.shape
    n = oob.shape[1]
    bits = np.empty(((B + 63) // 64, n), dtype=np.uint64)
    order, sorted_vals = np.empty(B, dtype=np.int64), np.empty(B)
    for j in range(k):
        _sort_models(predictions[j], order, sorted_vals)
        _loo_columns(order, sorted_vals, oob, count, 0, n, agg, out[j], bits)
    return out


@njit(cache=True, nogil=True)
def _sort_models(values, order, sorted_vals):
    """order = argsort(values), sorted_vals = values[order]; insertion sort for small B."""
    B = values.shape[0]
    if B > 64:
        order[:] = np.argsort(values)
        for r in range(B):
            sorted_vals[r] = values[order[r]]
        return
    for b in range(B):
        v = values[b]
        r = b
        while r > 0 and sorted_vals[r - 1] > v:
            sorted_vals[r] = sorted_vals[r - 1]
            order[r] = order[r - 1]
            r -= 1
        sorted_vals[r] = v
        order[r] = b


@njit(cache=True, nogil=True)
def _count_bounds(sorted_vals, agg, low, high):
    """low[c] <= mu_{-i}(x) <= high[c] for every out-of-bag set of size c (0 <= c <= B).

    The r-th smallest of c values drawn from sorted_vals lies between sorted_vals[r - 1] and
    sorted_vals[B - c + r - 1]; each aggregation is a mean of a window of ranks, so its bounds
    are the same window's mean over the smallest / largest c values. Widened by a bound on the
    rounding of both the aggregates and these prefix sums.
    """
    B = sorted_vals.shape[0]
    prefix = np.zeros(B + 1)
    for r in range(B):
        prefix[r + 1] = prefix[r] + sorted_vals[r]
    scale = 0.0
    for r in range(B):
        scale = max(scale, abs(sorted_vals[r]))
    eps = (4.0 * (B + 1) * (B + 1) + 16.0) * 2.0**-52 * scale + 1e-300
    low[0] = high[0] = 0.0
    for c in range(1, B + 1):
        if agg == MEAN:
            first, last = 1, c
        elif agg == MEDIAN:
            first, last = (c + 1) // 2, c // 2 + 1
        else:
            first, last = c // 4 + 1, c - c // 4
        size = last - first + 1
        low[c] = (prefix[last] - prefix[first - 1]) / size - eps
        high[c] = (prefix[B - c + last] - prefix[B - c + first - 1]) / size + eps


@njit(cache=True, nogil=True)
def _select(values, size, kth):
    """kth smallest (0-based) of values[:size], partially reordering them (Hoare's selection)."""
    lo, hi = 0, size - 1
    while lo < hi:
        pivot = values[kth]
        i, j = lo, hi
        while i <= j:
            while values[i] < pivot:
                i += 1
            while pivot < values[j]:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                i += 1
                j -= 1
        if j < kth:
            lo = i
        if kth < i:
            hi = j
    return values[kth]


@njit(cache=True, nogil=True)
def _farthest_violation(residuals, count, bound, sign, x, start, step, must_exceed, extreme):
    """Walk pos = start, start + step, ... and return the farthest pos whose bound
    bound[count[pos]] + sign * residuals[pos] is on the wrong side of x (> x, or < x with
    ``must_exceed``), or -1. Stops where even ``extreme`` (the bound over all counts) is on the
    right side: the residuals are sorted, so every later position is then too."""
    n = residuals.shape[0]
    farthest = -1
    pos = start
    while 0 <= pos < n:
        r = sign * residuals[pos]
        if (extreme + r >= x) if must_exceed else (extreme + r <= x):
            break
        v = bound[count[pos]] + r
        if (v < x) if must_exceed else (v > x):
            farthest = pos
        pos += step
    return farthest


@njit(cache=True, nogil=True)
def _window_quantile(loo, residuals, count, low, high, low_all, high_all, a, b, sign, kth, values):
    """x = the kth smallest (0-based) of loo[i] + sign * residuals[i] over the window a <= i < b,
    and the farthest columns left / right of the window whose bounds fail to put them on the
    right side of x (-1 where none): for sign = +1 those left must be <= x and those right
    >= x; for sign = -1 the reverse."""
    for t in range(b - a):  # in increasing order of the values' trend (residuals ascend), so
        i = a + t if sign > 0 else b - 1 - t  # that values[kth] is a good first pivot
        values[t] = loo[i] + sign * residuals[i]
    x = _select(values, b - a, kth)
    if sign > 0:
        left = _farthest_violation(residuals, count, high, sign, x, a - 1, -1, False, high_all)
        right = _farthest_violation(residuals, count, low, sign, x, b, 1, True, low_all)
    else:
        left = _farthest_violation(residuals, count, low, sign, x, a - 1, -1, True, low_all)
        right = _farthest_violation(residuals, count, high, sign, x, b, 1, False, high_all)
    return x, left, right


@njit(cache=True, nogil=True)
def jab_plus_bounds(
    predictions, loo_rows, oob, count, residuals, agg, lo_rank, hi_rank, reach, lower, upper
):
    """J+aB interval (Algorithm 2, eq. 3) at k test points without the (k, n) matrix:
    upper[j] = the hi_rank-th smallest of mu_{-i}(x_j) + R_i, lower[j] = the lo_rank-th smallest
    of mu_{-i}(x_j) - R_i (+-inf when a rank is outside 1..n).

    predictions: (k, B), one row per test point. Columns (training points) come in ascending
    order of ``residuals``; oob (B, n) uint8 and count (n,) in that order. ``loo_rows`` (k, n)
    holds mu_{-i}(x_j) when already computed (the mean, as a matrix product, when most columns
    are needed anyway); with 0 rows the kernel aggregates the columns it needs.
    Exact pruning: every mu_{-i}(x) lies within bounds that depend only on x and the size of
    i's out-of-bag set (:func:`_count_bounds`; for given rows, the row's minimum and maximum).
    Only a window of columns around the pivot rank is read; the rank-th smallest x of the
    window's values is the answer as soon as every column left of the window (for the upper
    bound) has a bound <= x and every column right of it a bound >= x (mirrored for the lower
    bound): then at most rank - 1 values are < x and at least rank are <= x. Otherwise the
    window grows past the farthest column that fails. Its initial size follows the previous
    test point's, carried in ``reach`` (2,) between calls.

    Parameters
    ----------
    predictions : ndarray of shape (k, B), float64
    loo_rows : ndarray of shape (k, n) or (0, n), float64
    oob : ndarray of shape (B, n), uint8
    count : ndarray of shape (n,), int64
    residuals : ndarray of shape (n,), float64, ascending
    agg : int
        MEAN, MEDIAN or TRIMMED_MEAN.
    lo_rank, hi_rank : int
        :func:`~ensemble_repro.conformal.quantile_ranks`.
    reach : ndarray of shape (2,), int64
        Updated in place.
    lower, upper : ndarray of shape (k,), float64
        Filled in place.

    Returns
    -------
    lower, upper : ndarray of shape (k,)
        The arrays passed in, filled.

    Examples
    --------
    >>> import numpy as np
    >>> from ensemble_repro.conformal.kernels import MEAN, jab_plus_bounds
    >>> P = np.array([[1.0, 3.0, 8.0]])
    >>> oob = np.ascontiguousarray(1 - np.eye(3, dtype=np.uint8))
    >>> lower, upper = np.empty(1), np.empty(1)
    >>> jab_plus_bounds(P, np.empty((0, 3)), oob, oob.sum(axis=0).astype(np.int64),
    ...                 np.array([0.5, 1.0, 2.0]), MEAN, 1, 3, np.full(2, 4), lower, upper)
    (array([0.]), array([6.]))
    """
    k, B = predictions.shape
    n = residuals.shape[0]
    given = loo_rows.shape[0] > 0
    has_hi, has_lo = 1 <= hi_rank <= n, 1 <= lo_rank <= n
    pivot_hi, pivot_lo = hi_rank - 1, n - lo_rank
    if has_hi and has_lo:
        left_pivot, right_pivot = min(pivot_hi, pivot_lo), max(pivot_hi, pivot_lo)
    else:
        left_pivot = right_pivot = pivot_hi if has_hi else pivot_lo
    values = np.empty(n)
    scratch = np.empty(0 if given else n)
    bits = np.empty(((B + 63) // 64, 0 if given else n), dtype=np.uint64)
    order, sorted_vals = np.empty(B, dtype=np.int64), np.empty(B)
    low, high = np.empty(B + 1), np.empty(B + 1)
    present = np.zeros(B + 1, dtype=np.bool_)  # the out-of-bag set sizes that occur
    for i in range(n):
        present[count[i]] = True
    for j in range(k):
        upper[j], lower[j] = np.inf, -np.inf
        if not (has_hi or has_lo):
            continue
        a = max(0, left_pivot - reach[0])
        b = min(n, right_pivot + 1 + reach[1])
        if given:
            loo = loo_rows[j]
            low_all, high_all = loo.min(), loo.max()
            low[:] = low_all
            high[:] = high_all
        else:
            loo = scratch
            _sort_models(predictions[j], order, sorted_vals)
            _count_bounds(sorted_vals, agg, low, high)
            low_all, high_all = np.inf, -np.inf
            for c in range(B + 1):
                if present[c]:
                    low_all, high_all = min(low_all, low[c]), max(high_all, high[c])
            _loo_columns(order, sorted_vals, oob, count, a, b, agg, loo, bits)
        hi_done, lo_done = not has_hi, not has_lo
        while True:
            grow_a, grow_b = a, b
            if not hi_done:
                upper[j], left, right = _window_quantile(
                    loo,
                    residuals,
                    count,
                    low,
                    high,
                    low_all,
                    high_all,
                    a,
                    b,
                    1.0,
                    pivot_hi - a,
                    values,
                )
                hi_done = left < 0 and right < 0
                grow_a = min(grow_a, left) if left >= 0 else grow_a
                grow_b = max(grow_b, right + 1)
            if not lo_done:
                lower[j], left, right = _window_quantile(
                    loo,
                    residuals,
                    count,
                    low,
                    high,
                    low_all,
                    high_all,
                    a,
                    b,
                    -1.0,
                    b - 1 - pivot_lo,
                    values,
                )
                lo_done = left < 0 and right < 0
                grow_a = min(grow_a, left) if left >= 0 else grow_a
                grow_b = max(grow_b, right + 1)
            if hi_done and lo_done:
                break
            # grow past the farthest failure: the answer moves as the window grows
            grow_a = max(0, grow_a - (a - grow_a) // 2 - 4) if grow_a < a else a
            grow_b = min(n, grow_b + (grow_b - b) // 2 + 4) if grow_b > b else b
            if not given:
                _loo_columns(order, sorted_vals, oob, count, grow_a, a, agg, loo, bits)
                _loo_columns(order, sorted_vals, oob, count, b, grow_b, agg, loo, bits)
            a, b = grow_a, grow_b
        reach[0] = max(4, (left_pivot - a) * 15 // 16)
        reach[1] = max(4, (b - 1 - right_pivot) * 15 // 16)
    return lower, upper
