"""Numeric core of the jackknife+ family (Kim, Xu & Barber 2020): pure, vectorised functions.

Conventions: ``predictions`` is a (B, k) matrix, row b the predictions of model b at k points;
``in_bag`` is a (B, n) boolean matrix, True when training point i is in resample S_b. Leave-one-out
predictions are returned as (k, n) matrices, entry [j, i] = mu_{-i}(x_j).
"""

from __future__ import annotations

import math

import numpy as np

AGGREGATIONS = ("mean", "median", "trimmed_mean")
METHODS = ("plus", "minmax")

#: Elements of the (G, k, n) working arrays of the median / trimmed-mean aggregation per chunk.
_CHUNK_ELEMENTS = 1 << 19


# ----------------------------------------------------------------------------- number of models B
def binomial_probability(n: int, m: int, replace: bool) -> float:
    """P(a resample of size m from n+1 points misses one given point) (Theorem 1)."""
    return (1.0 - 1.0 / (n + 1)) ** m if replace else 1.0 - m / (n + 1)


def draw_n_resamples(n_resamples: int, n: int, m: int, replace: bool, rng) -> int:
    """B ~ Binomial(n_resamples, binomial_probability(n, m, replace)) (Theorem 1)."""
    return int(rng.binomial(n_resamples, binomial_probability(n, m, replace)))


def paper_n_resamples(target: int, n: int, m: int, matched: str) -> int:
    """The B-tilde the paper passes to the Binomial draw, for sampling with replacement.

    ``matched="loo"`` (Section 5): floor(target / ((1 - 1/(n+1))^m (1 - 1/n)^m)), so that each
    leave-one-out ensemble aggregates ``target`` models on average, like J+ensemble with
    B = target. ``matched="fits"`` (Appendix D.3): floor(target / (1 - 1/(n+1))^m), so that
    the expected number of fitted models is ``target``. Pass the result as ``n_resamples`` of
    :class:`JackknifePlusAfterBootstrap` with ``random_B=True``.
    """
    p = binomial_probability(n, m, True)
    if matched == "loo":
        return int(math.floor(target / (p * (1.0 - 1.0 / n) ** m)))
    if matched == "fits":
        return int(math.floor(target / p))
    raise ValueError(f"matched must be 'loo' or 'fits', got {matched!r}")


def draw_resamples(n: int, m: int, n_resamples: int, replace: bool, rng) -> np.ndarray:
    """(B, m) indices into range(n): B resamples of size m, with or without replacement."""
    if replace:
        return rng.randint(0, n, size=(n_resamples, m))
    return np.argsort(rng.random_sample((n_resamples, n)), axis=1)[:, :m]


def in_bag_mask(resamples, n: int) -> np.ndarray:
    """(B, n) boolean matrix: True where point i appears in resample b."""
    mask = np.zeros((len(resamples), n), dtype=bool)
    for b, idx in enumerate(resamples):
        mask[b, idx] = True
    return mask


# ----------------------------------------------------------------------------- aggregation phi
def aggregate(predictions: np.ndarray, aggregation: str) -> np.ndarray:
    """phi over the models (axis 0) of a (B, k) matrix; 0 when B = 0 (the paper's default)."""
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


def oob_self_aggregate(train_predictions: np.ndarray, in_bag: np.ndarray, aggregation: str
                       ) -> np.ndarray:
    """mu_{-i}(X_i) for every training point i (Algorithm 2, line 6); 0 for empty OOB sets.

    ``train_predictions`` is (B, n): model b at training point i.
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
        med = 0.5 * (ordered[np.maximum(count - 1, 0) // 2, cols] + ordered[np.minimum(count // 2, ordered.shape[0] - 1), cols])
        return np.where(count > 0, med, 0.0)
    return _sorted_window_mean(ordered, count)


def oob_aggregate(predictions: np.ndarray, in_bag: np.ndarray, aggregation: str) -> np.ndarray:
    """(k, n) matrix of leave-one-out aggregates mu_{-i}(x_j) = phi({mu_b(x_j): i not in S_b}).

    Mean: one matrix product. Median / trimmed mean: masked sorting with packed bits (see
    :func:`_sorted_oob_words`), in chunks of test points to bound memory.
    Empty out-of-bag sets give 0 (the paper's default).
    """
    oob = (~in_bag).astype(float)
    count = oob.sum(axis=0)
    if aggregation == "mean":
        return predictions.T @ (oob / np.maximum(count, 1.0))
    B, k = predictions.shape
    n = in_bag.shape[1]
    out = np.zeros((k, n))
    if B == 0:
        return out
    count = count.astype(np.int64)
    step = max(1, _CHUNK_ELEMENTS // max(n * -(-B // _WORD), 1))
    for start in range(0, k, step):
        sl = slice(start, min(start + step, k))
        out[sl] = _masked_sorted_aggregate(predictions[:, sl], oob, count, aggregation)
    return out


#: Bits used per word: sums of distinct powers of two below 2**52 are exact in float64.
_WORD = 52
_PREFIX = np.array([(1 << s) - 1 for s in range(_WORD + 1)], dtype=np.uint64)
_BYTES = -(-_WORD // 8)


def _sorted_oob_words(predictions: np.ndarray, oob: np.ndarray):
    """Out-of-bag indicators of every (test point j, training point i) in sorted order, as bits.

    Bit r of word g of entry [j, i] is set when the model at sorted position 52 g + r of column j
    is out of bag for i. One matrix product per word builds them: sum_b oob[b, i] 2^rank_j(b)
    is exact in float64 because it is a sum of distinct powers of two below 2^52.
    Returns (words (G, k, n) uint64, sorted values (k, B)).
    """
    B, k = predictions.shape
    order = np.argsort(predictions, axis=0, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(B)[:, None], axis=0)
    sorted_vals = np.take_along_axis(predictions, order, axis=0).T.copy()
    words = []
    for g in range(-(-B // _WORD)):
        local = rank - g * _WORD
        powers = np.where((local >= 0) & (local < _WORD), np.ldexp(1.0, np.clip(local, 0, _WORD - 1)), 0.0)
        words.append((powers.T @ oob).astype(np.uint64))
    return np.stack(words), sorted_vals


#: _SELECT8[8 v + r]: bit position of the (r+1)-th set bit of byte value v (0 if v has fewer).
_SELECT8 = np.array([([b for b in range(8) if v >> b & 1] + [0] * 8)[r]
                     for v in range(256) for r in range(8)], dtype=np.uint8)


def _select(words: np.ndarray, targets, limit: int) -> list[np.ndarray]:
    """Sorted position (0-based) of the t-th set bit of each entry, for each t in ``targets``.

    Byte-wise select with elementwise operations only: running per-byte popcounts find the byte
    holding the t-th set bit (and, with several words, the word first), then a (byte value,
    rank) table gives the bit within it. Targets are >= 1; entries with fewer than t set bits
    (empty out-of-bag sets) get arbitrary positions that callers mask out, clipped to ``limit``
    only to keep indices valid.
    """
    G, shape = words.shape[0], words.shape[1:]
    word_counts = np.bitwise_count(words).astype(np.int64) if G > 1 else None
    out = []
    for t in targets:
        remaining = np.broadcast_to(np.asarray(t, dtype=np.int64), shape)
        word, base = words[0], 0
        if G > 1:  # the word holding the t-th set bit, and the set bits left to skip in it
            done = np.zeros(shape, bool)
            word, base = np.zeros(shape, np.uint64), np.zeros(shape, np.int64)
            for g in range(G):
                here = ~done & (remaining <= word_counts[g])
                np.copyto(word, words[g], where=here)
                base = np.where(here, g * _WORD, base)
                remaining = np.where(done | here, remaining, remaining - word_counts[g])
                done |= here
        remaining = np.minimum(remaining, _WORD + 1).astype(np.uint8)
        # byte q of every entry as one contiguous row: fast elementwise passes below
        octets = np.ascontiguousarray(word, dtype="<u8").view(np.uint8).reshape(-1, 8).T.copy()
        octets = octets.reshape((8,) + shape)
        counts = np.bitwise_count(octets)
        seen = np.zeros(shape, np.uint8)    # set bits in the bytes before the current one
        skipped = np.zeros(shape, np.uint8)  # set bits in the bytes before the target byte
        byte_index = np.zeros(shape, np.uint8)
        byte = np.zeros(shape, np.uint8)
        for q in range(_BYTES):
            seen += counts[q]
            before = seen < remaining
            skipped += counts[q] * before
            byte_index += before
            np.copyto(byte, octets[q], where=~before & (seen - counts[q] < remaining))
        rank = np.minimum(remaining - skipped - 1, 7).astype(np.intp)
        pos = base + 8 * np.minimum(byte_index, _BYTES - 1).astype(np.int64) \
            + _SELECT8.take(byte.astype(np.intp) * 8 + rank)
        out.append(np.minimum(pos, limit))
    return out


def _window_sum(words: np.ndarray, sorted_vals: np.ndarray, first: np.ndarray, last: np.ndarray):
    """Sum of sorted values at the set bits with positions in [first, last], via byte tables.

    ``table[j, g, q, v]`` is the sum of the values of test point j at the set bits of byte value
    v in byte q of word g, so one gather per byte gives the window sum.
    """
    G, k, n = words.shape
    B = sorted_vals.shape[1]
    bits = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(float)  # (256, 8)
    padded = np.zeros((k, G, 8 * 8))
    for g in range(G):
        chunk = sorted_vals[:, g * _WORD:min((g + 1) * _WORD, B)]
        padded[:, g, :chunk.shape[1]] = chunk
    table = (padded.reshape(k, G, 8, 8) @ bits.T).reshape(-1)  # [j, g, q, v]
    masked = np.empty((G, k, n), dtype="<u8")
    for g in range(G):
        lo = np.clip(first - g * _WORD, 0, _WORD)
        hi = np.clip(last + 1 - g * _WORD, 0, _WORD)
        np.bitwise_and(words[g], _PREFIX[hi] & ~_PREFIX[lo], out=masked[g])
    offset = ((np.arange(k)[None, :, None, None] * G + np.arange(G)[:, None, None, None]) * 8
              + np.arange(8)) * 256  # (G, k, 1, 8); int32 halves the gather's index traffic
    index = masked.view(np.uint8).reshape(G, k, n, 8) + offset.astype(np.int32)
    return table[index].sum(axis=(0, 3))


def _masked_sorted_aggregate(predictions: np.ndarray, oob: np.ndarray, count: np.ndarray,
                             aggregation: str) -> np.ndarray:
    """Median or trimmed mean (middle 50%) of each out-of-bag set at each test point: (k, n)."""
    words, sorted_vals = _sorted_oob_words(predictions, oob)
    B = predictions.shape[0]
    safe = np.maximum(count, 1)
    if aggregation == "median":
        even = count % 2 == 0
        targets = [(safe + 1) // 2] + ([safe // 2 + 1] if even.any() else [])
        positions = _select(words, targets, B - 1)
        lo_pos, hi_pos = positions[0], np.where(even, positions[-1], positions[0])
        vals = 0.5 * (np.take_along_axis(sorted_vals, lo_pos, axis=1)
                      + np.take_along_axis(sorted_vals, hi_pos, axis=1))
        return np.where(count > 0, vals, 0.0)
    lo = count // 4
    hi = count - lo
    first, last = _select(words, [lo + 1, np.maximum(hi, 1)], B - 1)
    total = _window_sum(words, sorted_vals, first, last)
    return np.where(hi > lo, total / np.maximum(hi - lo, 1), 0.0)


# ----------------------------------------------------------------------------- intervals
def quantile_ranks(n: int, alpha: float) -> tuple[int, int]:
    """Ranks (1-based) of q-_{alpha,n} and q+_{alpha,n}: floor(alpha(n+1)), ceil((1-alpha)(n+1)).

    A relative tolerance of 1e-10 absorbs floating-point error (e.g. 0.9 * 10 = 9.000000000000002
    must give rank 9).
    """
    lo = math.floor(alpha * (n + 1) * (1 + 1e-10))
    hi = math.ceil((1 - alpha) * (n + 1) * (1 - 1e-10))
    return lo, hi


def _kth_smallest(values: np.ndarray, rank: int, fill: float) -> np.ndarray:
    """rank-th smallest value along axis 1 of (k, n), partitioning ``values`` in place;
    ``fill`` when rank is outside 1..n."""
    n = values.shape[1]
    if rank < 1 or rank > n:
        return np.full(values.shape[0], fill)
    values.partition(rank - 1, axis=1)
    return values[:, rank - 1].copy()


def plus_interval(loo_test: np.ndarray, residuals: np.ndarray, alpha: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Jackknife+ interval [q-{mu_{-i}(x) - R_i}, q+{mu_{-i}(x) + R_i}] (Algorithm 2, eq. 3).

    ``loo_test`` is (k, n), ``residuals`` (n,). Returns (lower, upper), each (k,); -inf / +inf
    where the order statistic's rank falls outside 1..n. One (k, n) buffer serves both bounds.
    """
    lo_rank, hi_rank = quantile_ranks(residuals.shape[0], alpha)
    work = np.add(loo_test, residuals)
    upper = _kth_smallest(work, hi_rank, np.inf)
    lower = _kth_smallest(np.subtract(loo_test, residuals, out=work), lo_rank, -np.inf)
    return lower, upper


def minmax_interval(loo_test: np.ndarray, residuals: np.ndarray, alpha: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Jackknife-minmax-after-bootstrap (Appendix C): [min_i mu_{-i}(x) - q+{R}, max_i mu_{-i}(x) + q+{R}]."""
    _, hi_rank = quantile_ranks(residuals.shape[0], alpha)
    q = _kth_smallest(residuals[None, :].copy(), hi_rank, np.inf)[0]
    return loo_test.min(axis=1) - q, loo_test.max(axis=1) + q


def interval(loo_test: np.ndarray, residuals: np.ndarray, alpha: float, method: str = "plus"
             ) -> tuple[np.ndarray, np.ndarray]:
    """The interval of ``method`` ("plus" or "minmax") from (k, n) leave-one-out predictions."""
    return (plus_interval if method == "plus" else minmax_interval)(loo_test, residuals, alpha)


def jab_interval(test_predictions: np.ndarray, in_bag: np.ndarray, residuals: np.ndarray,
                 alpha: float, aggregation: str, method: str = "plus",
                 chunk_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """J+aB interval at k test points from the (B, k) model predictions, in chunks of test points.

    Memory per chunk is O(chunk_size * n) (plus the bounded working arrays of
    :func:`oob_aggregate`), so tens of thousands of test points fit in a fixed budget. The
    default chunk holds about 2^17 (test point, training point) pairs (1 MB per (k, n) buffer),
    so each buffer is still in cache when the next pass reads it.
    """
    k = test_predictions.shape[1]
    if chunk_size is None:
        chunk_size = max(1, (1 << 17) // in_bag.shape[1])
    lower, upper = np.empty(k), np.empty(k)
    for start in range(0, k, chunk_size):
        sl = slice(start, min(start + chunk_size, k))
        loo = oob_aggregate(test_predictions[:, sl], in_bag, aggregation)
        lower[sl], upper[sl] = interval(loo, residuals, alpha, method)
    return lower, upper


def loo_aggregate(predictions: np.ndarray, aggregation: str) -> np.ndarray:
    """(k, n) aggregates of n leave-one-out ensembles from (n, B, k) predictions (J+ensemble)."""
    n, B, k = predictions.shape
    if B == 0:
        return np.zeros((k, n))
    flat = predictions.transpose(1, 0, 2).reshape(B, n * k)
    return aggregate(flat, aggregation).reshape(n, k).T
