"""Early-exit evaluation shared by QWYC and Fan et al.: a *cascade*.

A cascade evaluates the base models in ``order``; after step ``r < T`` it looks up the bin of
the partial score g_r among ``edges`` of that step (QWYC: a single bin) and stops with class 1
if ``g_r > hi``, class 0 if ``g_r < lo`` (strict inequalities); survivors of all T - 1 steps get
the full decision 1[f >= beta]. QWYC is the one-bin case, Fan et al. (2002) the binned one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .trees import sequential_sum


@dataclass(frozen=True)
class Cascade:
    """A fitted early-exit cascade in flat arrays (QWYC: one bin per step; Fan: several).

    Parameters
    ----------
    order : ndarray of int, shape (T,)
        Evaluation order of the base models.
    bin_ptr : ndarray of int, shape (T,)
        Step r (0-based, r < T - 1) owns the bins ``bin_ptr[r]:bin_ptr[r+1]`` of ``lo`` / ``hi``.
    edges : ndarray of float
        Step r's ``bin_ptr[r+1] - bin_ptr[r] - 1`` interior bin edges are
        ``edges[bin_ptr[r] - r : bin_ptr[r+1] - r - 1]``; a score ``g`` falls in bin
        ``#{edges <= g}``.
    lo, hi : ndarray of float
        Per bin: stop with class 0 if ``g < lo``, with class 1 if ``g > hi``.
    beta : float
        Decision threshold of the full ensemble (class 1 when f >= beta).

    Examples
    --------
    >>> from ensemble_repro.qwyc import Cascade
    >>> c = Cascade.from_steps([1, 0, 2], [[], [0.0]], [[-1.0], [-2.0, -0.5]],
    ...                        [[1.0], [0.5, 2.0]], beta=0.0)
    >>> c.step(1)
    (array([0.]), array([-2. , -0.5]), array([0.5, 2. ]))
    """

    order: np.ndarray
    bin_ptr: np.ndarray
    edges: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    beta: float

    def __post_init__(self):
        order = np.asarray(self.order)
        if order.ndim != 1 or not np.issubdtype(order.dtype, np.integer):
            raise ValueError(
                f"order must be a 1-D array of integers; got {order.dtype} of shape {order.shape}"
            )
        T = order.size
        if T == 0 or not np.array_equal(np.sort(order), np.arange(T)):
            raise ValueError(
                f"order must be a permutation of range({T}) (each base model once); got "
                f"{np.array2string(order, threshold=12)}"
            )
        ptr = np.asarray(self.bin_ptr)
        if (
            ptr.shape != (T,)
            or not np.issubdtype(ptr.dtype, np.integer)
            or ptr[0] != 0
            or np.any(np.diff(ptr) < 1)
        ):
            raise ValueError(
                f"bin_ptr must be {T} increasing integers from 0 (at least one bin per step); "
                f"got {np.array2string(ptr, threshold=12)}"
            )
        n_bins = int(ptr[-1])
        arrays = {}
        for name, size in (("lo", n_bins), ("hi", n_bins), ("edges", n_bins - (T - 1))):
            a = np.asarray(getattr(self, name))
            if a.shape != (size,) or not np.issubdtype(a.dtype, np.floating):
                raise ValueError(
                    f"{name} must be a 1-D float array of {size} values (from bin_ptr); got "
                    f"{a.dtype} of shape {a.shape}"
                )
            arrays[name] = a.astype(np.float64, copy=False)
        for name, a in (("order", order.astype(np.int64)), ("bin_ptr", ptr.astype(np.int64))):
            object.__setattr__(self, name, a)
        for name, a in arrays.items():
            object.__setattr__(self, name, a)
        object.__setattr__(self, "beta", float(self.beta))

    @classmethod
    def from_steps(cls, order, step_edges, step_lo, step_hi, beta) -> Cascade:
        """Build a cascade from per-step lists.

        Parameters
        ----------
        order : array-like of int, shape (T,)
            Evaluation order.
        step_edges, step_lo, step_hi : sequences of length T - 1
            Per step: its interior bin edges (ascending), and the lower / upper stop
            thresholds of each of its ``len(edges) + 1`` bins.
        beta : float
            Decision threshold of the full ensemble.

        Returns
        -------
        Cascade
        """
        sizes = np.array([len(lo) for lo in step_lo], dtype=np.int64)
        ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

        def cat(parts):
            if not len(parts):
                return np.zeros(0)
            return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])

        return cls(
            order=np.asarray(order, dtype=np.int64),
            bin_ptr=ptr,
            edges=cat(step_edges),
            lo=cat(step_lo),
            hi=cat(step_hi),
            beta=float(beta),
        )

    def step(self, r: int):
        """``(edges, lo, hi)`` of step ``r`` (0-based, r < T - 1).

        Parameters
        ----------
        r : int
            Step index.

        Returns
        -------
        edges, lo, hi : ndarray
            Interior bin edges, lower and upper stop thresholds per bin.
        """
        a, b = self.bin_ptr[r], self.bin_ptr[r + 1]
        return self.edges[a - r : b - r - 1], self.lo[a:b], self.hi[a:b]


def partial_sums(F: np.ndarray, base: float, order: np.ndarray) -> np.ndarray:
    """Partial scores along an order: G[:, r] = b0 + sum_{s<=r} F[:, order[s]] (QWYC eq. 1).

    Parameters
    ----------
    F : ndarray of shape (N, T)
        Per-model scores.
    base : float
        Initial score b0.
    order : ndarray of int, shape (T,)
        Evaluation order.

    Returns
    -------
    ndarray of shape (N, T)
        Partial sums, added left to right.

    Examples
    --------
    >>> from ensemble_repro.qwyc import partial_sums
    >>> partial_sums(np.array([[1.0, 2.0, 4.0]]), 0.5, np.array([2, 0, 1]))
    array([[4.5, 5.5, 7.5]])
    """
    G = np.empty((F.shape[0], F.shape[1] + 1))
    G[:, 0] = base
    G[:, 1:] = F[:, order]
    return np.cumsum(G, axis=1)[:, 1:]


def evaluate_cascade(cascade: Cascade, F: np.ndarray, base: float):
    """Run a cascade on every row of ``F`` at once (vectorised over examples).

    Parameters
    ----------
    cascade : Cascade
        The fitted cascade.
    F : ndarray of shape (N, T)
        Per-model scores, columns in the natural (training) order.
    base : float
        Initial score b0.

    Returns
    -------
    decision : ndarray of bool, shape (N,)
        Early-exit decision (True: class 1).
    n_evaluated : ndarray of int, shape (N,)
        Base models evaluated before stopping.

    Examples
    --------
    >>> from ensemble_repro.qwyc import Cascade, evaluate_cascade
    >>> c = Cascade.from_steps([0, 1], [[]], [[-1.0]], [[1.0]], beta=0.0)
    >>> evaluate_cascade(c, np.array([[2.0, -3.0], [0.5, -3.0]]), 0.0)
    (array([ True, False]), array([1, 2]))
    """
    N, T = F.shape
    G = partial_sums(F, base, cascade.order)
    full = sequential_sum(base, F) >= cascade.beta
    decision = full.copy()
    n_eval = np.full(N, T, dtype=np.int64)
    alive = np.ones(N, dtype=bool)
    for r in range(T - 1):
        edges, lo, hi = cascade.step(r)
        g = G[:, r]
        b = np.searchsorted(edges, g, side="right")
        pos = alive & (g > hi[b])
        neg = alive & (g < lo[b])
        decision[pos] = True
        decision[neg] = False
        n_eval[pos | neg] = r + 1
        alive &= ~(pos | neg)
    return decision, n_eval
