"""Majority-vote energy of Hajdu et al. (2020), eq. (1), and the paper's efficiency, eq. (5).

Members are independent Bernoulli variables; the number of correct members is
Poisson-binomial, and the ensemble is right when a strict majority is (ties are errors).
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import stats

#: Relative slack on budget comparisons (costs are sums of floats).
TOL = 1e-12


def _nonfinite(a: np.ndarray) -> str:
    """'NaN at index 3' (or inf) for the first non-finite entry of ``a``, '' if none."""
    bad = np.argwhere(~np.isfinite(a))
    if not bad.size:
        return ""
    idx = tuple(int(i) for i in bad[0])
    return f"{'NaN' if np.isnan(a[idx]) else a[idx]} at index {idx[0] if len(idx) == 1 else idx}"


def _check_count(name: str, value, *, allow_none: bool = False):
    """``value`` as a positive int (or None when allowed), else a ValueError naming ``name``."""
    if value is None and allow_none:
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1:
        return int(value)
    expected = "a positive integer" + (" or None" if allow_none else "")
    raise ValueError(f"{name} must be {expected}; got {value!r}")


def _is_whole(value) -> bool:
    """Whether ``value`` is a finite number with an integer value (a bool is not)."""
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, bool | np.bool_)
        and bool(np.isfinite(value))
        and int(value) == value
    )


def _flags(mask, n: int) -> np.ndarray:
    """``mask`` as booleans: it must hold booleans or 0 / 1, not member indices."""
    flags = np.asarray(mask)
    if flags.dtype != bool and not (flags.dtype.kind in "iuf" and np.isin(flags, (0, 1)).all()):
        shown = np.unique(flags)[:5].tolist() if flags.size else []
        raise ValueError(
            f"mask must hold one flag per member (booleans, or 0 and 1); got values {shown}: "
            f"to choose members by index idx, pass np.isin(np.arange({n}), idx)"
        )
    return flags.astype(bool, copy=False)


def _check_probabilities(p: np.ndarray, name: str = "p") -> None:
    bad = _nonfinite(p)
    if bad:
        raise ValueError(
            f"{name} must contain accuracies in [0, 1]; got {bad} (measure every "
            "member's accuracy, or leave the member out)"
        )
    if p.size and (p.min() < 0 or p.max() > 1):
        raise ValueError(
            f"{name} must contain accuracies in [0, 1]; got values in "
            f"[{p.min():.4g}, {p.max():.4g}]"
        )


def check_pool(p, t, budget) -> tuple[np.ndarray, np.ndarray, float]:
    """Validate a pool: accuracies in [0, 1], positive costs of the same length, a usable budget.

    Parameters
    ----------
    p : array-like of shape (n,)
        Member accuracies.
    t : array-like of shape (n,)
        Member costs, finite and > 0.
    budget : float
        Total cost allowed; at least the cheapest member's cost.

    Returns
    -------
    p, t : ndarray of float of shape (n,)
    budget : float

    Examples
    --------
    >>> from ensemble_repro.knapsack.energy import check_pool
    >>> check_pool([0.6, 0.7], [1, 2], 2)
    (array([0.6, 0.7]), array([1., 2.]), 2.0)
    >>> check_pool([0.6, float("nan")], [1, 2], 2)
    Traceback (most recent call last):
    ...
    ValueError: p must contain accuracies in [0, 1]; got NaN at index 1 (measure every member's \
accuracy, or leave the member out)
    """
    p = np.asarray(p, dtype=float)
    t = np.asarray(t, dtype=float)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(
            f"p must be a non-empty 1-D array of member accuracies; got shape {p.shape}"
        )
    if t.shape != p.shape:
        raise ValueError(
            f"t must have one cost per member: p has {p.size} entries, t has shape {t.shape}"
        )
    _check_probabilities(p)
    bad = _nonfinite(t)
    if bad or t.min() <= 0:
        got = bad or f"minimum {t.min():.4g}"
        raise ValueError(f"t must contain positive finite costs; got {got}")
    if isinstance(budget, (bool, np.bool_)) or not isinstance(budget, numbers.Real):
        raise ValueError(f"budget must be a positive finite total cost (a number); got {budget!r}")
    budget = float(budget)
    if not np.isfinite(budget) or budget <= 0:
        raise ValueError(f"budget must be a positive finite total cost; got {budget!r}")
    if budget < t.min():
        raise ValueError(
            f"budget must be at least the cheapest member's cost {t.min():.4g} "
            f"(otherwise no ensemble is feasible); got {budget:.4g}"
        )
    return p, t, budget


def correct_count_distribution(p, mask=None) -> np.ndarray:
    """P(S = k), k = 0..ℓ, of the number S of correct members (Poisson-binomial, O(ℓ²)).

    Parameters
    ----------
    p : array-like of shape (..., ℓ)
        Member accuracies; leading axes are a batch of ensembles scored at once.
    mask : array-like of bool, same shape as ``p``, optional
        False leaves a member out (it is never correct).

    Returns
    -------
    ndarray of shape (..., ℓ + 1)
        P(S = k) for k = 0..ℓ.

    Examples
    --------
    >>> from ensemble_repro.knapsack import correct_count_distribution
    >>> correct_count_distribution([0.5, 0.5])
    array([0.25, 0.5 , 0.25])
    """
    p = np.asarray(p, dtype=float)
    _check_probabilities(p)
    return _count_distribution(p, None if mask is None else _flags(mask, p.shape[-1]))


def _count_distribution(p: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """:func:`correct_count_distribution` of checked accuracies and boolean flags."""
    if mask is not None:
        p = np.where(mask, p, 0.0)  # an absent member is never correct
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

    Ties are errors; the empty ensemble scores 0.

    Parameters
    ----------
    p : array-like of shape (ℓ,) or (k, ℓ)
        Member accuracies of one ensemble, or of k ensembles (one per row).
    mask : array-like of bool, optional
        Same shape as ``p`` (or broadcastable): the members of each ensemble, so k subsets
        of one pool are scored in one vectorised call.

    Returns
    -------
    float or ndarray of shape (k,)
        The majority-vote accuracy q.

    Examples
    --------
    >>> from ensemble_repro.knapsack import majority_vote_accuracy
    >>> majority_vote_accuracy([0.9, 0.6, 0.6])
    0.792
    >>> majority_vote_accuracy([0.9, 0.6, 0.6, 0.7], mask=[[1, 1, 1, 0], [1, 0, 0, 0]])
    array([0.792, 0.9  ])
    """
    p = np.asarray(p, dtype=float)
    if p.ndim == 0:
        raise ValueError(
            "p must be a 1-D array of member accuracies (or 2-D, one row per "
            "ensemble); got a scalar"
        )
    _check_probabilities(p)
    if mask is not None:
        mask = _flags(mask, p.shape[-1])
        if mask.shape != p.shape:
            try:
                shape = np.broadcast_shapes(mask.shape, p.shape)
            except ValueError:
                raise ValueError(
                    f"mask must have p's shape {p.shape} (one flag per member, optionally one "
                    f"row per ensemble); got shape {mask.shape}"
                ) from None
            mask = np.broadcast_to(mask, shape)
            p = np.broadcast_to(p, mask.shape)
        size = mask.sum(axis=-1)
        if p.ndim > 1 and size.size and size.max() < p.shape[-1]:
            # each row's members first, in pool order, then absent ones (never correct): the
            # recursion runs over the largest ensemble's size, not the pool's
            width = int(size.max())
            order = np.argsort(~mask, axis=-1, kind="stable")[..., :width]
            p = np.take_along_axis(np.where(mask, p, 0.0), order, axis=-1)
            mask = None
    else:
        size = np.full(p.shape[:-1], p.shape[-1])
    dist = _count_distribution(p, mask)
    k = np.arange(p.shape[-1] + 1)
    wins = k > np.asarray(size)[..., None] / 2.0
    q = np.sum(dist * wins, axis=-1)
    return float(q) if q.ndim == 0 else q


def leave_one_out_accuracy(p: np.ndarray) -> np.ndarray:
    """Eq. (1) for the ensemble ``p`` without member j, for every j, in O(ℓ²).

    For each j, the count over the members before j (prefix) meets the count over those
    after it (suffix) at the strict-majority threshold c of ℓ − 1 members; counts of c or
    more are pooled, so both recursions stop at c. No member's factor is divided out, which
    is unstable for accuracies near 0 or 1. Takes checked accuracies of ℓ >= 2 members.
    """
    ell = p.size
    need = (ell - 1) // 2 + 1  # c: correct votes for a strict majority of ℓ − 1
    prefix = np.zeros((ell, need + 1))  # row j: P(S = a), a < c, and P(S >= c), members < j
    suffix = np.zeros((ell + 1, need + 1))  # row j: the same over members >= j
    prefix[0, 0] = suffix[ell, 0] = 1.0
    for j in range(ell - 1):
        prefix[j + 1] = prefix[j] * (1.0 - p[j])
        prefix[j + 1, 1:] += prefix[j, :-1] * p[j]
        prefix[j + 1, need] += prefix[j, need] * p[j]
    for j in range(ell - 1, 0, -1):
        suffix[j] = suffix[j + 1] * (1.0 - p[j])
        suffix[j, 1:] += suffix[j + 1, :-1] * p[j]
        suffix[j, need] += suffix[j + 1, need] * p[j]
    at_least = np.cumsum(suffix[1:, :0:-1], axis=1)  # column a: P(S >= c - a) over members > j
    # P(prefix + suffix >= c): a < c correct before j and c - a or more after, or c before
    return np.einsum("ja,ja->j", prefix[:, :need], at_least) + prefix[:, need]


def q_identical(m, p) -> np.ndarray | float:
    """Accuracy of m independent copies of a member with accuracy p (eq. 1 with equal p_i).

    Used for the efficiency of eq. (5).

    Parameters
    ----------
    m : int or array-like of int
        Number of copies (0 gives 0).
    p : float or array-like
        Accuracy of the member; broadcasts with ``m``.

    Returns
    -------
    float or ndarray
        P(Bin(m, p) > m / 2).

    Examples
    --------
    >>> from ensemble_repro.knapsack import q_identical
    >>> q_identical([1, 3, 5], 0.7)
    array([0.7    , 0.784  , 0.83692])
    """
    m = np.asarray(m)
    q = stats.binom.sf(m // 2, m, p)
    return float(q) if np.ndim(q) == 0 else q


def efficiency(p, t, remaining: float, copies: str = "maximal") -> np.ndarray:
    """Eq. (5): accuracy of the maximal number of copies of each item within ``remaining``.

    The paper: "the system accuracy q(p_i, t_i) of the ensemble containing the maximal number
    of i-th items", i.e. m_i = floor(T_k / t_i) copies scored by eq. (1) (strict majority, so
    an even m_i scores below m_i - 1). ``copies="odd"`` uses the largest odd m_i instead [I].

    Parameters
    ----------
    p : array-like of shape (n,)
        Member accuracies.
    t : array-like of shape (n,)
        Member costs (> 0).
    remaining : float or ndarray
        Budget left; an array of shape (k, 1) gives one row per remaining budget.
    copies : {"maximal", "odd"}, default="maximal"
        Maximal number of copies (the paper) or the largest odd number of them.

    Returns
    -------
    ndarray
        Efficiency of each item (0 for items that do not fit).

    Examples
    --------
    >>> from ensemble_repro.knapsack import efficiency
    >>> efficiency([0.6, 0.8, 0.9], [1.0, 3.0, 10.0], 9.0)   # 9 copies, 3 copies, none
    array([0.73343232, 0.896     , 0.        ])
    >>> efficiency([0.4], [2.0], 9.0), efficiency([0.4], [2.0], 9.0, copies="odd")  # 4 or 3
    (array([0.1792]), array([0.352]))
    """
    if copies not in ("maximal", "odd"):
        raise ValueError(f"copies must be 'maximal' or 'odd'; got {copies!r}")
    # capped at 2**53 (exact in float64, far below int64's limit): cheap items next to a
    # large budget would otherwise overflow to negative counts
    ratio = np.floor(remaining / np.asarray(t, dtype=float) + 1e-12)
    count = np.minimum(ratio, 2.0**53).astype(np.int64)
    if copies == "odd":
        count = count - (1 - count % 2)  # largest odd integer <= count (-1 when 0)
    return np.where(count >= 1, q_identical(np.maximum(count, 1), p), 0.0)


def max_affordable(t, budget: float) -> int:
    """Largest number of members that fit in ``budget``: the cheapest ones, taken in order.

    Parameters
    ----------
    t : array-like of shape (n,)
        Member costs.
    budget : float
        Total cost allowed.

    Returns
    -------
    int
        The largest l such that the l cheapest members cost at most ``budget``.

    Examples
    --------
    >>> from ensemble_repro.knapsack.energy import max_affordable
    >>> max_affordable([3.0, 1.0, 2.0, 5.0], 6.0)     # 1 + 2 + 3
    3
    """
    if (
        isinstance(budget, bool | np.bool_)
        or not isinstance(budget, numbers.Real)
        or np.isnan(budget)
    ):
        raise ValueError(f"budget must be a number (a total cost); got {budget!r}")
    total = np.cumsum(np.sort(np.asarray(t, dtype=float)))
    return int(np.searchsorted(total, budget * (1 + TOL), side="right"))
