"""Early-exit evaluation shared by QWYC and Fan et al.: a *cascade*.

A cascade evaluates the base models in ``order``; after step ``r < T`` it looks up the bin of
the partial score g_r among ``edges`` of that step (QWYC: a single bin) and stops with class 1
if ``g_r > hi``, class 0 if ``g_r < lo`` (strict, spec §1.1); survivors of all T - 1 steps get
the full decision 1[f >= beta]. QWYC is the one-bin case, Fan et al. (2002) the binned one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .trees import sequential_sum


@dataclass(frozen=True)
class Cascade:
    """``order`` (T,); for step r (0-based, r < T-1) the bins ``bin_ptr[r]:bin_ptr[r+1]`` of the
    flat ``lo``/``hi`` arrays and the ``bin_ptr[r+1] - bin_ptr[r] - 1`` interior edges
    ``edges[bin_ptr[r] - r : bin_ptr[r+1] - r - 1]`` (a score ``g`` falls in bin
    ``#{edges <= g}``)."""

    order: np.ndarray
    bin_ptr: np.ndarray
    edges: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    beta: float

    @classmethod
    def from_steps(cls, order, step_edges, step_lo, step_hi, beta) -> "Cascade":
        sizes = np.array([len(lo) for lo in step_lo], dtype=np.int64)
        ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        cat = (lambda parts: np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
               if len(parts) else np.zeros(0))
        return cls(order=np.asarray(order, dtype=np.int64), bin_ptr=ptr, edges=cat(step_edges),
                   lo=cat(step_lo), hi=cat(step_hi), beta=float(beta))

    def step(self, r: int):
        a, b = self.bin_ptr[r], self.bin_ptr[r + 1]
        return self.edges[a - r:b - r - 1], self.lo[a:b], self.hi[a:b]


def partial_sums(F: np.ndarray, base: float, order: np.ndarray) -> np.ndarray:
    """G[:, r] = g_{r+1} = b0 + sum_{s<=r} F[:, order[s]], summed left to right."""
    G = np.empty((F.shape[0], F.shape[1] + 1))
    G[:, 0] = base
    G[:, 1:] = F[:, order]
    return np.cumsum(G, axis=1)[:, 1:]


def evaluate_cascade(cascade: Cascade, F: np.ndarray, base: float):
    """``(decision, n_evaluated)`` of every row of ``F`` (vectorised over examples)."""
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
