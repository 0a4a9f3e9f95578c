"""Algorithm 2 of Wang, Gupta & You (2018): early-stop thresholds for one step, for many
candidate base models at once (the paper's binary search in an exact sorted-sweep form).

A step sees the survivors' partial scores ``S[c, i]`` after adding candidate ``c`` and their
full-ensemble decisions ``yhat[i]``. Stopping the ``j`` lowest scores as class 0 costs one
difference per full-positive example among them, stopping the ``k`` highest as class 1 one per
full-negative example; cuts fall only between distinct score values, so ties stop together.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

SIDE_SPLITS = ("joint", "neg_first", "half")


def _cut_tables(S: np.ndarray, yhat: np.ndarray):
    """Sorted scores and, for every cut ``j = 0..n``, the differences of stopping the ``j``
    lowest (``dneg``) / the ``j`` highest (``dpos``) and whether the cut is between distinct
    values (``valid``, indexed by the number stopped from below)."""
    m, n = S.shape
    order = np.argsort(S, axis=1)  # ties need no stable order: cuts fall between distinct values
    Ss = np.take_along_axis(S, order, axis=1)
    ys = yhat[order]
    dneg = np.zeros((m, n + 1), dtype=np.int64)
    np.cumsum(ys, axis=1, out=dneg[:, 1:])
    dpos = np.zeros((m, n + 1), dtype=np.int64)
    np.cumsum(~ys[:, ::-1], axis=1, out=dpos[:, 1:])
    valid = np.ones((m, n + 1), dtype=bool)
    valid[:, 1:n] = Ss[:, :-1] < Ss[:, 1:]
    return Ss, dneg, dpos, valid


def _max_cut_table(d: np.ndarray, valid: np.ndarray, budget: int) -> np.ndarray:
    """``out[c, D]`` = the largest valid cut whose differences are ``<= D``, for D = 0..budget.

    Invalid cuts take the differences of the next valid cut (a running minimum from the top),
    which makes the row non-decreasing; the largest index with value ``<= D`` is then valid
    and is the count of such entries minus one.
    """
    m = d.shape[0]
    big = budget + 1
    adj = np.where(valid, np.minimum(d, big), big)
    adj = np.minimum.accumulate(adj[:, ::-1], axis=1)[:, ::-1]
    counts = np.bincount(
        (np.arange(m)[:, None] * (big + 1) + adj).ravel(), minlength=m * (big + 1)
    ).reshape(m, big + 1)
    return np.cumsum(counts, axis=1)[:, :big] - 1


def _thresholds(Ss: np.ndarray, j: np.ndarray, k: np.ndarray):
    """Thresholds realising cuts ``j`` (negative side) and ``k`` (positive side): the midpoint
    between the neighbouring distinct scores, nudged onto the upper (lower) score if rounding
    made it touch the stopped one; -inf / +inf when nothing stops on that side."""
    m, n = Ss.shape
    rows = np.arange(m)
    if n == 0:
        return np.full(m, -np.inf), np.full(m, np.inf)
    lo_nb = Ss[rows, np.clip(j - 1, 0, n - 1)]
    hi_nb = Ss[rows, np.clip(j, 0, n - 1)]
    mid = lo_nb / 2 + hi_nb / 2
    em = np.where(mid > lo_nb, mid, hi_nb)
    em = np.where(j == n, np.nextafter(Ss[:, -1], np.inf), em)
    em = np.where(j == 0, -np.inf, em)
    lo_nb = Ss[rows, np.clip(n - k - 1, 0, n - 1)]
    hi_nb = Ss[rows, np.clip(n - k, 0, n - 1)]
    mid = lo_nb / 2 + hi_nb / 2
    ep = np.where(mid < hi_nb, mid, lo_nb)
    ep = np.where(k == n, np.nextafter(Ss[:, 0], -np.inf), ep)
    ep = np.where(k == 0, np.inf, ep)
    return em, ep


def _zero_budget(S: np.ndarray, yhat: np.ndarray):
    """The no-difference cuts without sorting: stop (as 0) every score below the lowest
    full-positive score and (as 1) every score above the highest full-negative one. Equal to
    the sorted sweep with budget 0 (both sets are disjoint by construction)."""
    m, n = S.shape
    p_min = np.where(yhat, S, np.inf).min(axis=1)
    q_max = np.where(yhat, -np.inf, S).max(axis=1)
    below = S < p_min[:, None]
    above = S > q_max[:, None]
    j, k = below.sum(axis=1), above.sum(axis=1)
    lo_nb = np.where(below, S, -np.inf).max(axis=1)
    hi_nb = np.where(above, S, np.inf).min(axis=1)
    mid = lo_nb / 2 + p_min / 2
    em = np.where(mid > lo_nb, mid, p_min)
    em = np.where(j == n, np.nextafter(lo_nb, np.inf), em)
    em = np.where(j == 0, -np.inf, em)
    mid = q_max / 2 + hi_nb / 2
    ep = np.where(mid < hi_nb, mid, q_max)
    ep = np.where(k == n, np.nextafter(hi_nb, -np.inf), ep)
    ep = np.where(k == 0, np.inf, ep)
    return em, ep, j + k, np.zeros(m, dtype=np.int64)


def step_thresholds(
    S: np.ndarray,
    yhat: np.ndarray,
    budget: int,
    side_split: str = "joint",
    rate: float | None = None,
):
    """Algorithm 2 of Wang, Gupta & You (2018) for every row of ``S`` at once.

    With ``rate=None`` the differences are at most ``budget``, shared between the two sides
    by ``side_split``: ``joint`` maximises the total stopped (then minimises the
    differences), ``neg_first`` gives the negative side the whole budget and the positive side
    the rest, ``half`` gives each side ``budget // 2``. With ``rate`` (the ``per_step_rate``
    budget rule) each side independently keeps its differences at most ``rate`` times its
    number stopped, the negative side first. Both sides never overlap, so eps_minus <= eps_plus.

    Parameters
    ----------
    S : ndarray of shape (m, n)
        Partial scores of the n surviving examples after adding each of m candidate models.
    yhat : array-like of bool, shape (n,)
        The full ensemble's decisions on those examples.
    budget : int
        Differences from ``yhat`` allowed at this step (ignored when ``rate`` is given).
    side_split : {"joint", "neg_first", "half"}, default="joint"
        How the budget is shared between the two sides.
    rate : float, optional
        Per-side cap on differences per example stopped.

    Returns
    -------
    eps_minus, eps_plus : ndarray of float, shape (m,)
        Thresholds: stop with class 0 when ``S < eps_minus``, class 1 when ``S > eps_plus``.
    n_stop : ndarray of int, shape (m,)
        Survivors each candidate's thresholds stop.
    n_diff : ndarray of int, shape (m,)
        How many of those differ from ``yhat``.

    Examples
    --------
    >>> from ensemble_repro.qwyc import step_thresholds
    >>> S = np.array([[-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]])
    >>> yhat = np.array([False, False, True, False, True, True])  # the full ensemble's
    >>> step_thresholds(S, yhat, budget=0)      # stops all but -1 and 1, without a difference
    (array([-1.5]), array([1.5]), array([4]), array([0]))
    """
    S = np.asarray(S, dtype=float)
    if S.ndim != 2:
        raise ValueError(f"S must be a 2-D array (candidates x examples); got shape {S.shape}")
    m, n = S.shape
    yhat = np.asarray(yhat, dtype=bool)
    if yhat.shape != (n,):
        raise ValueError(
            f"yhat must hold one decision per example (column of S): shape ({n},); got "
            f"shape {yhat.shape}"
        )
    if isinstance(budget, bool | np.bool_) or not isinstance(budget, numbers.Integral):
        raise ValueError(f"budget must be an integer (<= 0 allows no difference); got {budget!r}")
    if rate is not None and (
        isinstance(rate, bool | np.bool_)
        or not isinstance(rate, numbers.Real)
        or not 0 <= rate < math.inf
    ):
        raise ValueError(f"rate must be None or a finite number >= 0; got {rate!r}")
    if side_split not in SIDE_SPLITS:
        raise ValueError(f"side_split must be one of {', '.join(SIDE_SPLITS)}; got {side_split!r}")
    if rate is None and budget <= 0 and n > 0:
        return _zero_budget(S, yhat)
    Ss, dneg, dpos, valid = _cut_tables(S, yhat)
    rows = np.arange(m)
    cuts = np.arange(n + 1)
    if rate is not None:
        j = np.where(valid & (dneg <= rate * cuts), cuts, 0).max(axis=1)
        valid_pos = valid[:, ::-1] & (cuts <= (n - j)[:, None])
        k = np.where(valid_pos & (dpos <= rate * cuts), cuts, 0).max(axis=1)
    else:
        budget = int(min(max(budget, 0), n))
        Jt = _max_cut_table(dneg, valid, budget)
        Kt = _max_cut_table(dpos, valid[:, ::-1], budget)
        if side_split == "joint":
            jj = Jt
            kk = np.minimum(Kt[:, ::-1], n - jj)
            used = np.take_along_axis(dneg, jj, axis=1) + np.take_along_axis(dpos, kk, axis=1)
            key = (jj + kk) * (2 * n + 2) - used
            best = np.argmax(key, axis=1)
            j, k = jj[rows, best], kk[rows, best]
        elif side_split == "neg_first":
            j = Jt[:, budget]
            k = np.minimum(Kt[rows, budget - dneg[rows, j]], n - j)
        else:  # half
            j = Jt[:, budget // 2]
            k = np.minimum(Kt[:, budget // 2], n - j)
    em, ep = _thresholds(Ss, j, k)
    return em, ep, j + k, dneg[rows, j] + dpos[rows, k]
