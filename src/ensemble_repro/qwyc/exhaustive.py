"""The optimal ordering of a small ensemble by brute force, against QWYC's greedy ordering.

Wang, Gupta & You (2018) state that for certain ensembles QWYC (Algorithm 1) is a
4-approximation of the optimum of problem (2). At alpha = 0 the optimal thresholds of a given
ordering are Algorithm 2's zero-difference cuts (stopping every example that can be stopped
without a difference never makes a later step stop fewer), so the optimum of (2) is the best
ordering under those cuts. :func:`exhaustive_order` finds it over all T! orderings for small T;
:func:`approximation_ratio` divides QWYC's mean cost by it.
"""

from __future__ import annotations

import math

import numpy as np

from .estimators import QuitWhenYouCan
from .thresholds import step_thresholds
from .trees import sequential_sum

#: Largest ensemble :func:`exhaustive_order` accepts (8! = 40320 orderings).
MAX_MODELS = 8


def _check(base, F, costs, max_models: int | None):
    F = np.asarray(F, dtype=float)
    if F.ndim != 2 or F.shape[0] == 0:
        raise ValueError(f"F must be a non-empty 2-D array (examples x models); got {F.shape}")
    T = F.shape[1]
    if max_models is not None and not 2 <= T <= max_models:
        raise ValueError(
            f"F must hold 2 to {max_models} models (columns) for an exhaustive search over "
            f"T! orderings; got {T}: use fewer models"
        )
    c = np.ones(T) if costs is None else np.asarray(costs, dtype=float)
    if c.shape != (T,) or not np.all(np.isfinite(c) & (c > 0)):
        raise ValueError(f"costs must be None or {T} finite numbers > 0; got {costs!r}")
    if not math.isfinite(float(base)):
        raise ValueError(f"base must be a finite number; got {base!r}")
    return F, c


def order_cost(base, F, order, decision_threshold=0.0, costs=None) -> float:
    """Mean evaluation cost per example of ``order`` with Algorithm 2's zero-difference
    thresholds (alpha = 0): sum over positions r of c_{pi(r)} x the examples still alive
    before position r, over N (the objective of problem (2)).

    Examples
    --------
    >>> F = np.array([[2.0, 0.1], [-2.0, 0.1], [0.1, 2.0], [0.1, -2.0]])
    >>> order_cost(0.0, F, [0, 1])          # model 0 first stops the first two examples
    1.5
    """
    F, c = _check(base, F, costs, None)
    order = np.asarray(order)
    if sorted(order.tolist()) != list(range(F.shape[1])):
        raise ValueError(f"order must be a permutation of 0..{F.shape[1] - 1}; got {order!r}")
    yhat = sequential_sum(base, F) >= decision_threshold
    g = np.full(F.shape[0], float(base))
    alive = np.arange(F.shape[0])
    total = 0.0
    for r, k in enumerate(order):
        total += c[k] * alive.size
        g[alive] += F[alive, k]
        if r == len(order) - 1 or alive.size == 0:
            continue
        em, ep, _, _ = step_thresholds(g[alive][None, :], yhat[alive], 0)
        alive = alive[(g[alive] >= em[0]) & (g[alive] <= ep[0])]
    return float(total / F.shape[0])


def exhaustive_order(
    base, F, decision_threshold=0.0, costs=None, max_models: int = MAX_MODELS
) -> tuple[np.ndarray, float]:
    """The ordering of least mean cost (:func:`order_cost`) over all T! orderings.

    Depth-first over prefixes: a prefix's survivors and partial sums are computed once for all
    its continuations, every remaining model is tried at once (Algorithm 2 on each row), the
    continuation stopping the most first; a prefix is cut when its cost plus the cheapest
    remaining model for each survivor reaches the best complete ordering found (branch and
    bound: the optimum's cost is exact, the ordering returned is one of the optimal ones).

    Parameters
    ----------
    base : float
        The ensemble's initial score b0.
    F : ndarray of shape (N, T)
        Per-model scores, 2 <= T <= ``max_models``.
    decision_threshold : float
        beta: the full ensemble decides class 1 when its score is >= beta.
    costs : array-like of shape (T,), optional
        Evaluation cost of each model (> 0); None: all 1.
    max_models : int
        Largest T accepted.

    Returns
    -------
    order : ndarray of int, shape (T,)
    cost : float
        Its mean cost per example.

    Examples
    --------
    >>> F = np.array([[2.0, 0.1], [-2.0, 0.1], [0.1, 2.0], [0.1, -2.0], [0.1, 3.0]])
    >>> exhaustive_order(0.0, F)           # model 1 first stops three of the five examples
    (array([1, 0]), 1.4)
    """
    F, c = _check(base, F, costs, max_models)
    N, T = F.shape
    yhat = sequential_sum(base, F) >= decision_threshold
    best = [math.inf, None]

    def visit(prefix, rest, alive, g, spent):
        # every survivor still needs at least the cheapest remaining model
        if spent + alive.size * c[rest].min() >= best[0] - 1e-9:
            return
        if alive.size == 0 or len(rest) == 1:
            best[:] = [spent + c[rest].sum() * alive.size * (len(rest) == 1), prefix + rest]
            return
        S = g[None, :] + F[np.ix_(alive, rest)].T
        em, ep, n_stop, _ = step_thresholds(S, yhat[alive], 0)
        keep = (S >= em[:, None]) & (S <= ep[:, None])
        for i in np.argsort(-n_stop, kind="stable"):  # most stopped first: good bounds early
            k = rest[i]
            visit(
                prefix + [k],
                rest[:i] + rest[i + 1 :],
                alive[keep[i]],
                S[i][keep[i]],
                spent + c[k] * alive.size,
            )

    visit([], list(range(T)), np.arange(N), np.full(N, float(base)), 0.0)
    return np.asarray(best[1], dtype=np.int64), float(best[0] / N)


def approximation_ratio(
    base, F, decision_threshold=0.0, costs=None, tie_break="greedy_mse"
) -> tuple[float, float, float]:
    """QWYC's greedy ordering (Algorithm 1 at alpha = 0) against the exhaustive optimum.

    Returns
    -------
    greedy, optimum, ratio : float
        Mean cost per example of each and greedy / optimum (>= 1; the paper's bound: <= 4).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> g, o, r = approximation_ratio(0.0, rng.normal(size=(60, 4)))
    >>> bool(1.0 <= r <= 4.0 and g >= o)
    True
    """
    qwyc = QuitWhenYouCan(
        alpha=0.0, costs=costs, decision_threshold=decision_threshold, tie_break=tie_break
    ).fit_scores(base, F)
    greedy = order_cost(base, F, qwyc.order_, decision_threshold, costs)
    _, optimum = exhaustive_order(base, F, decision_threshold, costs)
    return greedy, optimum, greedy / optimum
