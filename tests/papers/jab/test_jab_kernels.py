"""The compiled J+aB kernels against full sorting: out-of-bag aggregates and the pruned interval.

The interval kernel aggregates only a window of training points per test point and grows it
when its bounds cannot certify the answer; these cases make it grow, shrink and regrow (rows
alternate narrow and wide model spread), with ties, empty out-of-bag sets, a large offset,
several 64-bit words (B > 64) and ranks outside 1..n.
"""

import numpy as np
import pytest

from ensemble_repro.conformal import jab_interval, kernels, oob_aggregate, quantile_ranks

CASES = ["plain", "ties", "empty_oob", "offset", "many_models"]


def scenario(case: str, n: int = 900, k: int = 80, seed: int = 0):
    rng = np.random.RandomState(seed + CASES.index(case))
    B = 90 if case == "many_models" else 40
    in_bag = rng.rand(B, n) < 0.63
    if case == "empty_oob":
        in_bag[:, :9] = True  # mu_{-i} = 0 for these points
    spread = np.where(np.arange(k) % 7 < 4, 0.02, 2.0)  # narrow rows, then a few wide ones
    P = rng.randn(k) * 2 + spread * rng.randn(B, k)
    residuals = np.abs(rng.standard_t(2, n))
    if case == "ties":
        P, residuals = np.round(P, 1), np.round(residuals, 1)
    if case == "offset":
        P += 1e4
    return P, in_bag, residuals


def full_sort_interval(loo, residuals, alpha):
    n = len(residuals)
    lo_rank, hi_rank = quantile_ranks(n, alpha)
    upper = np.sort(loo + residuals, axis=1)[:, hi_rank - 1] if hi_rank <= n else np.inf
    lower = np.sort(loo - residuals, axis=1)[:, lo_rank - 1] if lo_rank >= 1 else -np.inf
    return np.broadcast_to(lower, len(loo)), np.broadcast_to(upper, len(loo))


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("aggregation", ["mean", "median", "trimmed_mean"])
def test_pruned_interval_equals_full_sort(case, aggregation):
    P, in_bag, residuals = scenario(case)
    loo = oob_aggregate(P, in_bag, aggregation)
    for alpha in (0.1, 0.02, 0.45, 0.5 / (len(residuals) + 1)):  # the last: ranks outside 1..n
        ref = full_sort_interval(loo, residuals, alpha)
        for chunk_size in (None, 7):  # small chunks: the mean leaves the matrix product
            got = jab_interval(P, in_bag, residuals, alpha, aggregation, chunk_size=chunk_size)
            assert_same(got, ref, aggregation)


def assert_same(got, ref, aggregation):
    """Bit for bit for the median / trimmed mean (the same aggregates); the mean's sums run in
    another order than the reference's matrix product."""
    for g, r in zip(got, ref, strict=False):
        if aggregation == "mean":
            np.testing.assert_allclose(g, r, rtol=0, atol=1e-9)
        else:
            np.testing.assert_array_equal(g, r)


@pytest.mark.parametrize("aggregation", ["mean", "median", "trimmed_mean"])
@pytest.mark.parametrize("start_reach", [0, 5, 10_000])
def test_interval_kernel_window_exact_and_pruned(aggregation, start_reach):
    """Any starting window gives the full-sort answer, and on narrow rows the window ends far
    smaller than n (the pruning is really exercised)."""
    P, in_bag, residuals = scenario("plain", n=3000, k=60)
    P = P[:, np.arange(60) % 7 < 4]  # narrow rows only
    order = np.argsort(residuals, kind="stable")
    oob = np.ascontiguousarray((~in_bag)[:, order]).view(np.uint8)
    lo_rank, hi_rank = quantile_ranks(len(residuals), 0.1)
    reach = np.full(2, start_reach)
    agg = ["mean", "median", "trimmed_mean"].index(aggregation)
    k = P.shape[1]
    lower, upper = kernels.jab_plus_bounds(
        P.T.copy(),
        np.empty((0, len(residuals))),
        oob,
        oob.sum(axis=0, dtype=np.int64),
        residuals[order],
        agg,
        lo_rank,
        hi_rank,
        reach,
        np.empty(k),
        np.empty(k),
    )
    ref = full_sort_interval(oob_aggregate(P, in_bag, aggregation), residuals, 0.1)
    assert_same((lower, upper), ref, aggregation)
    assert reach.max() < len(residuals) // 8, reach


@pytest.mark.parametrize("B", [1, 9, 63, 64, 65, 128, 300])  # one and several 64-bit words
def test_oob_aggregates_kernel_matches_sorting(B):
    rng = np.random.RandomState(B)
    P = rng.randint(0, 5, size=(B, 6)).astype(float)  # ties
    oob = (rng.rand(B, 13) < 0.4).astype(np.uint8)
    oob[:, 0] = 0
    count = oob.sum(axis=0, dtype=np.int64)
    for agg, name in ((kernels.MEDIAN, "median"), (kernels.TRIMMED_MEAN, "trimmed")):
        got = kernels.oob_aggregates(P.T.copy(), oob, count, agg, np.empty((6, 13)))
        for i in range(13):
            vals = np.sort(P[oob[:, i] == 1], axis=0)
            c = len(vals)
            if c == 0:
                assert (got[:, i] == 0).all()
                continue
            lo, hi = ((c + 1) // 2, c // 2 + 1) if name == "median" else (c // 4 + 1, c - c // 4)
            np.testing.assert_allclose(
                got[:, i], vals[lo - 1 : hi].mean(axis=0), rtol=0, atol=1e-12
            )
