"""Compiled (numba) kernel for the out-of-bag median and trimmed mean of J+aB (Kim, Xu &
Barber 2020, Algorithm 2, line 7): single-threaded, O(B + n) extra memory per test point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_ONE = np.uint64(1)
_LOW6 = np.uint64(63)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_SHIFT58 = np.uint64(58)
#: _CTZ[(2^p * _DEBRUIJN mod 2^64) >> 58] = p: trailing-zero count of an isolated bit.
_CTZ = np.zeros(64, dtype=np.int64)
for _p in range(64):
    _CTZ[((1 << _p) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _p
_M1, _M2, _M4 = (np.uint64(0x5555555555555555), np.uint64(0x3333333333333333),
                 np.uint64(0x0F0F0F0F0F0F0F0F))
_H01 = np.uint64(0x0101010101010101)
_S2, _S4, _S56 = np.uint64(2), np.uint64(4), np.uint64(56)


@njit(cache=True, nogil=True)
def _popcount(x):
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


@njit(cache=True, nogil=True)
def _ranked_sum(bits, i, sorted_vals, first, last):
    """Sum of sorted_vals at the set bits of column i of ``bits`` with ranks first..last (1-based)."""
    total = 0.0
    seen = 0
    for g in range(bits.shape[0]):
        w = bits[g, i]
        pc = _popcount(w)
        if seen + pc < first:
            seen += pc
            continue
        while w:
            low = w & (~w + _ONE)
            seen += 1
            if seen >= first:
                total += sorted_vals[64 * g + _CTZ[(low * _DEBRUIJN) >> _SHIFT58]]
                if seen == last:
                    return total
            w ^= low
    return total


@njit(cache=True, nogil=True)
def oob_order_statistics(predictions, oob, count, trimmed, out):
    """out[j, i] = median (or, with ``trimmed``, the middle-50% trimmed mean) of
    {predictions[b, j] : oob[b, i]}; 0 where count[i] = 0.

    predictions: (B, k) float64; oob: (B, n) uint8 0/1; count: (n,) int64, the column sums of oob.
    Masked sorting with bits: for each test point the models are sorted once, column i's
    out-of-bag models become a bitset in sorted order (one vectorised OR pass per model), and
    the order statistics are read off its set bits. The median averages ranks (c+1)//2 and
    c//2 + 1; the trimmed mean (scipy's trim_mean(., 0.25)) ranks c//4 + 1 .. c - c//4.
    """
    B, k = predictions.shape
    n = oob.shape[1]
    bits = np.empty(((B + 63) // 64, n), dtype=np.uint64)
    col = np.empty(B)
    for j in range(k):
        for b in range(B):
            col[b] = predictions[b, j]
        order = np.argsort(col)
        sorted_vals = col[order]
        bits[:] = 0
        for r in range(B):
            row = oob[order[r]]
            word = bits[r >> 6]
            shift = np.uint64(r) & _LOW6
            for i in range(n):
                word[i] |= np.uint64(row[i]) << shift
        for i in range(n):
            c = count[i]
            if c == 0:
                out[j, i] = 0.0
                continue
            if trimmed:
                first, last = c // 4 + 1, c - c // 4
            else:
                first, last = (c + 1) // 2, c // 2 + 1
            out[j, i] = _ranked_sum(bits, i, sorted_vals, first, last) / (last - first + 1)
    return out
