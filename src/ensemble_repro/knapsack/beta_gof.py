"""Goodness of fit of the Beta model to accuracies measured on a finite set of rows [I].

Hajdu et al. (section IV-A) model the members' accuracies p by a Beta law. An accuracy
measured on m rows lies on the grid {0, 1/m, ..., 1}: under the model the members' counts of
right rows follow the Beta-binomial law BB(m, a, b). The test compares the counts with the
fitted BB law by the discrete Cramér-von Mises statistic (Choulakian, Lockhart and Stephens
1994) and draws its null by a parametric bootstrap on the same grid (a, b refitted on every
draw), so ties from the grid are in the null as in the data. Its power is computed by
simulation against a two-point law of the same mean and variance.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

#: Accuracies are multiples of 1/m to within this (floating-point rounding of count / m).
GRID_TOL = 1e-6
#: The largest row count :func:`accuracy_grid` tries.
MAX_GRID = 100_000
#: Smallest intra-class correlation 1 / (a + b + 1) a moment fit returns: counts no more
#: spread than binomial ones are fitted by a nearly binomial law.
MIN_RHO = 1e-6


def accuracy_grid(p) -> int:
    """The number of rows m the accuracies ``p`` were measured on: the smallest m at which
    every accuracy is a multiple of 1/m.

    Examples
    --------
    >>> accuracy_grid([0.5, 0.75, 1.0])
    4
    """
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or p.size < 1 or np.any((p < 0) | (p > 1)):
        raise ValueError(f"p must be a 1-D array of accuracies in [0, 1]; got {p.tolist()}")
    for m in range(1, MAX_GRID + 1):
        if np.all(np.abs(p * m - np.round(p * m)) <= GRID_TOL * m):
            return m
    raise ValueError(
        f"the accuracies are not multiples of 1/m for any m <= {MAX_GRID}: pass the rows they "
        "were measured on explicitly"
    )


def fit_betabinom(counts, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Method-of-moments fit of BB(m, a, b) to counts (last axis: the members).

    Mean mu = mean count / m; the intra-class correlation rho = 1 / (a + b + 1) solves
    Var = m mu (1 - mu) (1 + (m - 1) rho), kept in [:data:`MIN_RHO`, 1).

    Examples
    --------
    >>> a, b = fit_betabinom([3, 5, 7, 5], 10)
    >>> round(float(a / (a + b)), 3)
    0.5
    """
    x = np.asarray(counts, dtype=float)
    if m < 1:
        raise ValueError(f"m (rows per accuracy) must be a positive integer; got {m}")
    mu = np.clip(x.mean(axis=-1) / m, 1 / (2 * m), 1 - 1 / (2 * m))
    var = x.var(axis=-1)
    if m > 1:
        rho = (var / (m * mu * (1 - mu)) - 1) / (m - 1)
    else:
        rho = np.zeros_like(mu)
    rho = np.clip(rho, MIN_RHO, 1 - MIN_RHO)
    total = 1 / rho - 1
    return mu * total, (1 - mu) * total


def cvm_statistic(counts, m: int, a, b) -> np.ndarray:
    """Discrete Cramér-von Mises W^2 = k sum_j (F_k(j) - F(j))^2 f(j) over j = 0..m of k
    counts against BB(m, a, b) (last axis: the members; ``a``, ``b`` one per row).

    Examples
    --------
    >>> w = cvm_statistic([[0, 10], [5, 5]], 10, 1e-3, 1e-3)
    >>> bool(w[0] < w[1])                 # two ends fit a U-shaped law, two middles do not
    True
    """
    x = np.atleast_2d(np.asarray(counts, dtype=int))
    reps, k = x.shape
    a = np.broadcast_to(np.asarray(a, dtype=float), (reps,))
    b = np.broadcast_to(np.asarray(b, dtype=float), (reps,))
    j = np.arange(m + 1)
    f = stats.betabinom.pmf(j[None, :], m, a[:, None], b[:, None])
    hist = np.bincount((x + (m + 1) * np.arange(reps)[:, None]).ravel(), minlength=reps * (m + 1))
    emp = np.cumsum(hist.reshape(reps, m + 1), axis=1) / k
    return k * np.sum((emp - np.cumsum(f, axis=1)) ** 2 * f, axis=1)


def _draw_null(rng, a: float, b: float, m: int, shape) -> np.ndarray:
    return rng.binomial(m, rng.beta(a, b, size=shape))


def gof_test(counts, m: int, *, draws: int, rng: np.random.Generator) -> dict:
    """Parametric-bootstrap test of the BB(m, a, b) law (moments fit) for the counts.

    Returns
    -------
    dict
        ``a``, ``b`` (the fit), ``statistic`` (:func:`cvm_statistic`) and ``pvalue`` =
        (1 + #{null W^2 >= W^2}) / (draws + 1), the null drawn on the m-row grid and refitted.
    """
    x = np.asarray(counts, dtype=int)
    a, b = fit_betabinom(x, m)
    w = float(cvm_statistic(x, m, a, b)[0])
    null = _draw_null(rng, a, b, m, (draws, x.size))
    na, nb = fit_betabinom(null, m)
    wn = cvm_statistic(null, m, na, nb)
    return {
        "a": float(a),
        "b": float(b),
        "statistic": w,
        "pvalue": float((1 + np.sum(wn >= w - 1e-12)) / (draws + 1)),
    }


def two_point_alternative(a: float, b: float) -> tuple[float, float]:
    """The two-point law of the power computation: true accuracies mu - s and mu + s with
    probability 1/2 each, mu and s^2 the mean and variance of Beta(a, b) (ends kept in
    [0, 1])."""
    mu = a / (a + b)
    s = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    return float(max(mu - s, 0.0)), float(min(mu + s, 1.0))


def power(
    a: float,
    b: float,
    m: int,
    members: int,
    *,
    level: float,
    reps: int,
    draws: int,
    rng: np.random.Generator,
) -> float:
    """Share of ``reps`` pools of ``members`` accuracies on m rows, drawn from
    :func:`two_point_alternative` of Beta(a, b), that :func:`gof_test` (``draws`` null draws)
    rejects at ``level``."""
    low, high = two_point_alternative(a, b)
    rejected = 0
    for _ in range(reps):
        p = np.where(rng.random(members) < 0.5, low, high)
        counts = rng.binomial(m, p)
        rejected += gof_test(counts, m, draws=draws, rng=rng)["pvalue"] <= level
    return rejected / reps
