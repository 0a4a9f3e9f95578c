"""Majority-vote energy of Hajdu et al. (2020), eq. (1), and the paper's efficiency, eq. (5).

Members are independent Bernoulli variables; the number of correct members is
Poisson-binomial, and the ensemble is right when a strict majority is (ties are errors).
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def _check_probabilities(p: np.ndarray, name: str = "p") -> None:
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise ValueError(f"{name} must contain accuracies in [0, 1]; got values in "
                         f"[{np.nanmin(p):.4g}, {np.nanmax(p):.4g}]")


def correct_count_distribution(p, mask=None) -> np.ndarray:
    """P(S = k), k = 0..ℓ, of the number S of correct members (Poisson-binomial, O(ℓ²)).

    ``p`` has shape (..., ℓ); ``mask`` (same shape, bool) leaves members out. The leading
    axes are a batch of ensembles scored at once.
    """
    p = np.asarray(p, dtype=float)
    if mask is not None:
        p = np.where(np.asarray(mask, dtype=bool), p, 0.0)   # an absent member is never correct
    ell = p.shape[-1]
    dist = np.zeros(p.shape[:-1] + (ell + 1,))
    dist[..., 0] = 1.0
    for j in range(ell):
        pj = p[..., j, None]
        shifted = dist[..., :-1] * pj
        dist *= 1.0 - pj
        dist[..., 1:] += shifted
    return dist


def majority_vote_accuracy(p, mask=None) -> np.ndarray | float:
    """Eq. (1): probability that a strict majority of independent members is correct.

    ``p``: accuracies, shape (ℓ,) for one ensemble or (k, ℓ) for k ensembles; ``mask``:
    optional bool array of the same shape selecting the members of each ensemble (so k
    subsets of one pool can be scored in one vectorised call). The empty ensemble scores 0.
    """
    p = np.asarray(p, dtype=float)
    if p.ndim == 0:
        raise ValueError("p must be a 1-D array of member accuracies (or 2-D, one row per "
                         "ensemble); got a scalar")
    _check_probabilities(p)
    if mask is not None:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != p.shape:
            mask = np.broadcast_to(mask, np.broadcast_shapes(mask.shape, p.shape))
            p = np.broadcast_to(p, mask.shape)
        size = mask.sum(axis=-1)
    else:
        size = np.full(p.shape[:-1], p.shape[-1])
    dist = correct_count_distribution(p, mask)
    k = np.arange(p.shape[-1] + 1)
    wins = k > np.asarray(size)[..., None] / 2.0
    q = np.sum(dist * wins, axis=-1)
    return float(q) if q.ndim == 0 else q


def q_identical(m, p) -> np.ndarray | float:
    """Accuracy of m independent copies of a member with accuracy p (eq. 1 with equal p_i).

    Used for the efficiency of eq. (5); broadcasts over ``m`` and ``p``. m = 0 gives 0.
    """
    m = np.asarray(m)
    q = stats.binom.sf(m // 2, m, p)
    return float(q) if np.ndim(q) == 0 else q


def efficiency(p, t, remaining: float) -> np.ndarray:
    """Eq. (5): accuracy of the largest odd number of copies of each item within ``remaining``.

    Items that do not fit get efficiency 0.
    """
    copies = np.floor(remaining / np.asarray(t, dtype=float) + 1e-12).astype(np.int64)
    odd = copies - (1 - copies % 2)          # largest odd integer <= copies (−1 when 0)
    return np.where(copies >= 1, q_identical(np.maximum(odd, 1), p), 0.0)
