"""Candidate ensembles scored per second: batched majority_vote_accuracy vs one call per ensemble.

Also times the branch-and-bound ``exhaustive`` against plain enumeration of all odd subsets
(and alone on a 200-member pool whose budget binds),
and one step of greedy backward selection (every removal of a k-member set scored) by
leave-one-out count distributions against the batched call on the k candidate sets.
Prints ratios measured side by side in one run (the machine is shared; absolute rates are noisy).
Usage: .venv/bin/python benchmarks/knapsack_scoring.py
"""

import itertools
import time

import numpy as np

from ensemble_repro.knapsack import exhaustive, greedy_backward, majority_vote_accuracy
from ensemble_repro.knapsack.energy import leave_one_out_accuracy
from ensemble_repro.knapsack.pools import synthetic_pool


def rate(fn, count):
    start = time.perf_counter()
    fn()
    return count / (time.perf_counter() - start)


def main():
    rng = np.random.default_rng(0)
    n, k = 30, 20_000
    p = rng.beta(8, 4, n)
    masks = rng.random((k, n)) < 0.3
    batched = rate(lambda: majority_vote_accuracy(np.broadcast_to(p, masks.shape), masks), k)
    single = rate(lambda: [majority_vote_accuracy(p[m]) for m in masks[:2000]], 2000)
    print(
        f"pool n={n}: batched {batched:,.0f} ensembles/s, one call each {single:,.0f} ensembles/s, "
        f"ratio {batched / single:.1f}x"
    )

    n = 16
    p, t = rng.beta(8, 4, n), rng.lognormal(0, 1, n)
    budget = 0.4 * t.sum()
    start = time.perf_counter()
    best = exhaustive(p, t, budget)
    bb = time.perf_counter() - start
    start = time.perf_counter()
    subsets = np.array([m for m in itertools.product([False, True], repeat=n) if sum(m) % 2 == 1])
    subsets = subsets[subsets @ t <= budget]
    q = majority_vote_accuracy(np.broadcast_to(p, subsets.shape), subsets)
    brute = time.perf_counter() - start
    assert abs(q.max() - best.accuracy) < 1e-12
    print(
        f"exhaustive n={n}: branch and bound {bb:.3f}s ({best.evaluations} energies) vs "
        f"enumeration {brute:.3f}s ({len(subsets)} feasible odd subsets), ratio {brute / bb:.0f}x"
    )

    p, t = synthetic_pool(200, 12.0, 4.0, cost="time_profile", random_state=200)
    for multiple in (3, 15):
        start = time.perf_counter()
        best = exhaustive(p, t, multiple * float(np.median(t)))
        print(
            f"exhaustive on a 200-member synthetic pool at {multiple} median costs: "
            f"{time.perf_counter() - start:.2f}s ({best.evaluations:,} energies, "
            f"{best.members.size} members)"
        )

    for k in (100, 400):
        p = rng.beta(8, 4, k)
        removals = ~np.eye(k, dtype=bool)
        start = time.perf_counter()
        batched = majority_vote_accuracy(np.broadcast_to(p, removals.shape), removals)
        slow = time.perf_counter() - start
        start = time.perf_counter()
        loo = leave_one_out_accuracy(p)
        fast = time.perf_counter() - start
        assert np.allclose(loo, batched, atol=1e-12)
        print(
            f"backward step k={k}: leave-one-out {fast:.4f}s vs batched {slow:.3f}s, "
            f"ratio {slow / fast:.0f}x"
        )
    n = 1500
    p = rng.beta(8, 4, n)
    start = time.perf_counter()
    res = greedy_backward(p, np.ones(n), 10.0)
    print(
        f"greedy_backward n={n}, budget 10 unit costs: {time.perf_counter() - start:.2f}s "
        f"({res.evaluations:,} evaluations counted)"
    )


if __name__ == "__main__":
    main()
