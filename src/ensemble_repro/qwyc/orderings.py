"""Pre-selected orderings of the base models (QWYC paper, Appendix B)."""

from __future__ import annotations

import numpy as np

ORDERINGS = ("natural", "random", "individual_mse", "greedy_mse")


def natural_order(F: np.ndarray) -> np.ndarray:
    """The training order 0..T-1 of the boosted trees.

    Parameters
    ----------
    F : ndarray of shape (N, T)
        Per-model scores.

    Returns
    -------
    ndarray of int, shape (T,)

    Examples
    --------
    >>> from ensemble_repro.qwyc.orderings import natural_order
    >>> natural_order(np.zeros((2, 3)))
    array([0, 1, 2])
    """
    return np.arange(F.shape[1])


def random_order(F: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform random permutation of the T models.

    Parameters
    ----------
    F : ndarray of shape (N, T)
        Per-model scores.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of int, shape (T,)

    Examples
    --------
    >>> from ensemble_repro.qwyc.orderings import random_order
    >>> sorted(random_order(np.zeros((2, 4)), np.random.default_rng(0)).tolist())
    [0, 1, 2, 3]
    """
    return rng.permutation(F.shape[1])


def individual_mse_order(F: np.ndarray, base: float, f: np.ndarray) -> np.ndarray:
    """Models by ascending (1/N) sum_i (f(x_i) - b0 - f_t(x_i))^2 (QWYC paper, Appendix B).

    How well each model alone tracks the full score (Individual MSE; ties by index).

    Parameters
    ----------
    F : ndarray of shape (N, T)
        Per-model scores.
    base : float
        Initial score b0.
    f : ndarray of shape (N,)
        Full ensemble scores.

    Returns
    -------
    ndarray of int, shape (T,)

    Examples
    --------
    >>> from ensemble_repro.qwyc import individual_mse_order
    >>> F = np.array([[0.1, 1.0, 0.4], [-0.1, -1.0, -0.5]])
    >>> individual_mse_order(F, 0.0, F.sum(axis=1))
    array([1, 2, 0])
    """
    mse = np.mean(((f - base)[:, None] - F) ** 2, axis=0)
    return np.argsort(mse, kind="stable")


def greedy_mse_pick(Fc: np.ndarray, residual: np.ndarray) -> int:
    """Row ``k`` of ``Fc`` minimising sum_i (residual_i - Fc[k, i])^2 (Appendix B, Greedy MSE).

    The candidate bringing the partial sum closest to the full score; ties go to the first
    row. Uses sum (r - F_k)^2 = sum r^2 - 2 r.F_k + |F_k|^2.

    Parameters
    ----------
    Fc : ndarray of shape (k, N)
        Candidates' scores (candidates x examples).
    residual : ndarray of shape (N,)
        Full score minus the current partial score.

    Returns
    -------
    int
        Row index of the best candidate.

    Examples
    --------
    >>> from ensemble_repro.qwyc.orderings import greedy_mse_pick
    >>> greedy_mse_pick(np.array([[1.0, 1.0], [2.0, 2.0]]), np.array([2.0, 1.5]))
    1
    """
    crit = np.einsum("ki,ki->k", Fc, Fc) - 2.0 * (Fc @ residual)
    return int(np.argmin(crit))


def greedy_mse_order(F: np.ndarray, base: float, f: np.ndarray) -> np.ndarray:
    """pi(r) = argmin_k (1/N) sum_i (f(x_i) - g_{r-1}(x_i) - f_k(x_i))^2 (QWYC Appendix B).

    Parameters
    ----------
    F, base, f : ndarray of shape (N, T), float, ndarray of shape (N,)
        Per-model scores, initial score b0 and full ensemble scores.

    Returns
    -------
    ndarray of int, shape (T,)

    Examples
    --------
    >>> from ensemble_repro.qwyc import greedy_mse_order
    >>> greedy_mse_order(np.array([[0.1, 1.0, 0.4], [-0.1, -1.0, -0.5]]), 0.0,
    ...                  np.array([1.5, -1.6]))
    array([1, 2, 0])
    """
    T = F.shape[1]
    residual = f - base
    remaining = np.ones(T, dtype=bool)
    order = np.empty(T, dtype=np.int64)
    sq = np.einsum("ij,ij->j", F, F)
    for r in range(T):
        crit = np.where(remaining, sq - 2.0 * (residual @ F), np.inf)
        k = int(np.argmin(crit))
        order[r] = k
        remaining[k] = False
        residual = residual - F[:, k]
    return order
