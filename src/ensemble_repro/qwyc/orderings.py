"""Pre-selected orderings of the base models (QWYC paper, Appendix B; spec §3)."""

from __future__ import annotations

import numpy as np

ORDERINGS = ("natural", "random", "individual_mse", "greedy_mse")


def natural_order(F: np.ndarray) -> np.ndarray:
    """The training order 1..T of the boosted trees."""
    return np.arange(F.shape[1])


def random_order(F: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform random permutation."""
    return rng.permutation(F.shape[1])


def individual_mse_order(F: np.ndarray, base: float, f: np.ndarray) -> np.ndarray:
    """Ascending (1/N) sum_i (f(x_i) - b0 - f_t(x_i))^2: how well each model alone tracks the
    full score (spec §3, Individual MSE; ties by index)."""
    mse = np.mean(((f - base)[:, None] - F) ** 2, axis=0)
    return np.argsort(mse, kind="stable")


def greedy_mse_pick(Fc: np.ndarray, residual: np.ndarray) -> int:
    """Row ``k`` of ``Fc`` (candidates x examples) minimising sum_i (residual_i - Fc[k, i])^2,
    i.e. the candidate bringing the partial sum closest to the full score (spec §3, Greedy MSE);
    ties go to the first row. Uses sum (r - F_k)^2 = sum r^2 - 2 r.F_k + |F_k|^2."""
    crit = np.einsum("ki,ki->k", Fc, Fc) - 2.0 * (Fc @ residual)
    return int(np.argmin(crit))


def greedy_mse_order(F: np.ndarray, base: float, f: np.ndarray) -> np.ndarray:
    """pi(r) = argmin_k (1/N) sum_i (f(x_i) - g_{r-1}(x_i) - f_k(x_i))^2 (spec §3, Greedy MSE)."""
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
