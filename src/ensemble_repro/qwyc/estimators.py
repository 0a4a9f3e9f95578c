"""QWYC (Wang, Gupta & You 2018, Algorithms 1 and 2) and Fan et al. (2002) early stopping,
as scikit-learn-style estimators on a score matrix F (examples x base models)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from .cascade import Cascade, evaluate_cascade, partial_sums
from .orderings import (ORDERINGS, greedy_mse_order, greedy_mse_pick, individual_mse_order,
                        natural_order, random_order)
from .thresholds import SIDE_SPLITS, step_thresholds
from .trees import sequential_sum

BUDGET_RULES = ("greedy_remaining", "uniform", "per_step_rate")
TIE_BREAKS = ("greedy_mse", "index")
BIN_KINDS = ("quantile", "equal_width")
BIN_SCORES = ("margin", "sigmoid")


def check_scores(F, base=None, n_models: int | None = None) -> np.ndarray:
    """Validate a score matrix (and the intercept) and return it as float64."""
    F = np.asarray(F, dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(f"F must be a 2-D array (examples x base models); got {F.ndim} dimensions")
    if n_models is None and F.shape[1] < 2:
        raise ValueError(f"F must have at least 2 columns (base models); got {F.shape[1]}")
    if n_models is not None and F.shape[1] != n_models:
        raise ValueError(f"F must have {n_models} columns, one per base model of the fitted "
                         f"cascade; got {F.shape[1]}")
    if F.shape[0] < 1:
        raise ValueError("F must have at least one row (example)")
    if not np.all(np.isfinite(F)):
        raise ValueError("F must contain only finite values (found NaN or inf)")
    if base is not None and not (isinstance(base, numbers.Real) and math.isfinite(base)):
        raise ValueError(f"base must be a finite real number (the initial score b0); got {base!r}")
    return F


def resolve_order(ordering, F, base, f, random_state, allow=ORDERINGS) -> np.ndarray:
    """An ordering name (or explicit permutation) as a permutation of 0..T-1."""
    T = F.shape[1]
    if isinstance(ordering, str):
        if ordering not in allow:
            raise ValueError(f"ordering must be one of {', '.join(allow)} or a permutation of "
                             f"0..T-1; got {ordering!r}")
        if ordering == "natural":
            return natural_order(F)
        if ordering == "random":
            return random_order(F, np.random.default_rng(random_state))
        if ordering == "individual_mse":
            return individual_mse_order(F, base, f)
        return greedy_mse_order(F, base, f)
    order = np.asarray(ordering)
    if order.shape != (T,) or not np.issubdtype(order.dtype, np.integer) or \
            not np.array_equal(np.sort(order), np.arange(T)):
        raise ValueError(f"ordering given as an array must be a permutation of 0..{T - 1}")
    return order.astype(np.int64)


class _CascadeMixin:
    def evaluate(self, F):
        """``(decisions, n_evaluated)``: early-exit class and number of base models used."""
        F = check_scores(F, n_models=self.cascade_.order.size)
        return evaluate_cascade(self.cascade_, F, self.base_)

    def predict(self, F):
        return self.evaluate(F)[0].astype(np.int64)

    def n_evaluated(self, F):
        return self.evaluate(F)[1]


class QuitWhenYouCan(_CascadeMixin):
    """QWYC early stopping (Wang, Gupta & You 2018).

    ``ordering="joint"`` runs Algorithm 1 (greedy joint choice of the next model by
    J = c_k / n_k, cost per newly stopped example); any other ordering ("natural", "random",
    "individual_mse", "greedy_mse" or an explicit permutation) keeps that order and only fits
    the Algorithm 2 thresholds. The fitting set's differences from the full ensemble are at
    most floor(alpha * N) (``budget_rule`` spreads them over steps, ``side_split`` over the
    two sides of a step, ``tie_break`` picks among candidates with equal J, including when
    none stops anything).

    Fitted attributes: ``order_``, ``eps_minus_``, ``eps_plus_`` (T - 1 steps), ``n_stopped_``
    and ``step_differences_`` per step, ``differences_`` (committed on the fitting set),
    ``base_``, ``cascade_``.
    """

    def __init__(self, alpha, ordering="joint", costs=None, decision_threshold=0.0,
                 budget_rule="greedy_remaining", side_split="joint", tie_break="greedy_mse",
                 random_state=None):
        self.alpha = alpha
        self.ordering = ordering
        self.costs = costs
        self.decision_threshold = decision_threshold
        self.budget_rule = budget_rule
        self.side_split = side_split
        self.tie_break = tie_break
        self.random_state = random_state

    def _check_params(self, T):
        a = self.alpha
        if not (isinstance(a, numbers.Real) and 0 <= a < 1):
            raise ValueError(f"alpha must be a number in [0, 1); got {a!r}")
        for name, value, allowed in (("budget_rule", self.budget_rule, BUDGET_RULES),
                                     ("side_split", self.side_split, SIDE_SPLITS),
                                     ("tie_break", self.tie_break, TIE_BREAKS)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        beta = self.decision_threshold
        if not (isinstance(beta, numbers.Real) and math.isfinite(beta)):
            raise ValueError(f"decision_threshold must be a finite number; got {beta!r}")
        if self.costs is None:
            return np.ones(T)
        c = np.asarray(self.costs, dtype=np.float64)
        if c.shape != (T,) or not np.all(np.isfinite(c)) or np.any(c <= 0):
            raise ValueError(f"costs must be None or {T} finite values > 0 (one per base model)")
        return c

    def _budget(self, r, used, N, T):
        total = math.floor(self.alpha * N)
        if self.budget_rule == "greedy_remaining":
            return total - used
        return math.floor(self.alpha * N * (r + 1) / (T - 1)) - used  # uniform, with carry-over

    def fit(self, F, base=0.0):
        """Fit the ordering and thresholds on the scores ``F`` (N x T) with intercept ``base``."""
        F = check_scores(F, base)
        N, T = F.shape
        costs = self._check_params(T)
        beta = float(self.decision_threshold)
        f = sequential_sum(base, F)
        yhat = f >= beta
        joint = isinstance(self.ordering, str) and self.ordering == "joint"
        fixed = None if joint else resolve_order(self.ordering, F, base, f, self.random_state)
        rate = self.alpha if self.budget_rule == "per_step_rate" else None
        Ft = np.ascontiguousarray(F.T)
        g = np.full(N, float(base))               # partial sums of every example
        alive = np.arange(N)
        cand = np.arange(T)                       # models not yet placed (joint ordering)
        Fa = Ft                                   # Ft restricted to (cand, alive), kept compact
        order = np.empty(T, dtype=np.int64)
        em_all, ep_all = np.full(T - 1, -np.inf), np.full(T - 1, np.inf)
        n_stop_all = np.zeros(T - 1, dtype=np.int64)
        d_all = np.zeros(T - 1, dtype=np.int64)
        used = 0
        for r in range(T - 1):
            budget = self._budget(r, used, N, T)
            ga = g[alive]
            S = Fa + ga if joint else Ft[fixed[r], alive][None, :] + ga
            em, ep, ns, nd = step_thresholds(S, yhat[alive], budget, self.side_split, rate)
            c = 0
            if joint:
                J = np.where(ns > 0, costs[cand] / np.maximum(ns, 1), np.inf)
                ties = np.flatnonzero(J == J.min())
                c = int(ties[0])
                if ties.size > 1 and self.tie_break == "greedy_mse":
                    if alive.size:
                        c = int(ties[greedy_mse_pick(Fa[ties], f[alive] - ga)])
                    else:
                        c = int(ties[greedy_mse_pick(Ft[cand[ties]], f - g)])
            k = int(cand[c]) if joint else int(fixed[r])
            order[r] = k
            keep = np.ones(alive.size, dtype=bool)
            if ns[c] > 0:
                em_all[r], ep_all[r] = em[c], ep[c]
                n_stop_all[r], d_all[r] = ns[c], nd[c]
                used += int(nd[c])
                keep = (S[c] >= em[c]) & (S[c] <= ep[c])
                alive = alive[keep]
            if joint:
                others = np.arange(cand.size) != c
                cand = cand[others]
                Fa = Fa[np.ix_(others, keep)] if ns[c] > 0 else Fa[others]
            g += Ft[k]
        order[T - 1] = cand[0] if joint else fixed[T - 1]
        self.base_ = float(base)
        self.order_ = order
        self.eps_minus_, self.eps_plus_ = em_all, ep_all
        self.n_stopped_, self.step_differences_ = n_stop_all, d_all
        self.differences_ = int(used)
        self.cascade_ = Cascade.from_steps(order, [[]] * (T - 1), em_all[:, None], ep_all[:, None],
                                           beta)
        return self


class FanEarlyStopping(_CascadeMixin):
    """Dynamic scheduling of Fan et al. (2002) adapted to additive scores (spec §2.2).

    For each stage r < T the partial scores g_r of the fitting set are split into ``n_bins``
    bins (``bin_kind`` quantile / equal-width, on the margin or its sigmoid); in each bin the
    remaining score f - g_r has mean mu and standard deviation sigma. An example stops with
    class 1 when g_r + mu - gamma*sigma > beta, with class 0 when g_r + mu + gamma*sigma < beta;
    bins with fewer than ``min_bin_count`` fitting points never stop. With
    ``stats_on_survivors`` the statistics of stage r use only the examples not stopped before.

    Fitted attributes: ``order_``, ``cascade_`` (per-stage edges and thresholds), ``base_``.
    """

    def __init__(self, gamma, n_bins=10, ordering="individual_mse", bin_kind="quantile",
                 stats_on_survivors=False, min_bin_count=5, bin_score="margin",
                 decision_threshold=0.0, random_state=None):
        self.gamma = gamma
        self.n_bins = n_bins
        self.ordering = ordering
        self.bin_kind = bin_kind
        self.stats_on_survivors = stats_on_survivors
        self.min_bin_count = min_bin_count
        self.bin_score = bin_score
        self.decision_threshold = decision_threshold
        self.random_state = random_state

    def _check_params(self):
        if not (isinstance(self.gamma, numbers.Real) and self.gamma >= 0):
            raise ValueError(f"gamma must be a number >= 0 (inf allowed); got {self.gamma!r}")
        for name, v in (("n_bins", self.n_bins), ("min_bin_count", self.min_bin_count)):
            if not (isinstance(v, numbers.Integral) and v >= 1):
                raise ValueError(f"{name} must be an integer >= 1; got {v!r}")
        for name, value, allowed in (("bin_kind", self.bin_kind, BIN_KINDS),
                                     ("bin_score", self.bin_score, BIN_SCORES)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        beta = self.decision_threshold
        if not (isinstance(beta, numbers.Real) and math.isfinite(beta)):
            raise ValueError(f"decision_threshold must be a finite number; got {beta!r}")

    def _edges(self, v):
        """Interior bin edges of the stage's (transformed) fitting scores ``v``."""
        if self.bin_kind == "quantile":
            e = np.quantile(v, np.linspace(0, 1, self.n_bins + 1)[1:-1])
        else:
            e = np.linspace(v.min(), v.max(), self.n_bins + 1)[1:-1]
        return np.unique(e)

    def _stage(self, g, f, beta):
        """Margin-scale bin edges and per-bin (lo, hi) stop thresholds of one stage, from the
        fitting examples' partial scores ``g`` and full scores ``f``."""
        if g.size == 0:
            return np.zeros(0), np.array([-np.inf]), np.array([np.inf])
        if self.bin_score == "margin":
            edges = self._edges(g)
        else:  # bins on the sigmoid scale, mapped back to margins (the sigmoid is increasing)
            with np.errstate(divide="ignore"):
                p = self._edges(1 / (1 + np.exp(-g)))
                edges = np.unique(np.log(p) - np.log1p(-p))
        b = np.searchsorted(edges, g, side="right")
        nb = edges.size + 1
        cnt = np.bincount(b, minlength=nb)
        delta = f - g
        mu = np.bincount(b, delta, minlength=nb) / np.maximum(cnt, 1)
        sd = np.sqrt(np.bincount(b, (delta - mu[b]) ** 2, minlength=nb) / np.maximum(cnt, 1))
        with np.errstate(invalid="ignore"):
            margin = np.nan_to_num(self.gamma * sd, nan=np.inf)  # inf * 0: never stop
        ok = cnt >= self.min_bin_count
        return edges, np.where(ok, beta - mu - margin, -np.inf), np.where(ok, beta - mu + margin, np.inf)

    def fit(self, F, base=0.0):
        """Fit bins and per-bin statistics of every stage on ``F`` (N x T) with intercept ``base``."""
        F = check_scores(F, base)
        self._check_params()
        N, T = F.shape
        beta = float(self.decision_threshold)
        f = sequential_sum(base, F)
        order = resolve_order(self.ordering, F, base, f, self.random_state)
        G = partial_sums(F, base, order)
        alive = np.ones(N, dtype=bool)
        step_edges, step_lo, step_hi = [], [], []
        for r in range(T - 1):
            idx = np.flatnonzero(alive) if self.stats_on_survivors else np.arange(N)
            edges, lo, hi = self._stage(G[idx, r], f[idx], beta)
            step_edges.append(edges)
            step_lo.append(lo)
            step_hi.append(hi)
            if self.stats_on_survivors:
                g = G[:, r]
                b = np.searchsorted(edges, g, side="right")
                alive &= ~((g > hi[b]) | (g < lo[b]))
        self.base_ = float(base)
        self.order_ = order
        self.cascade_ = Cascade.from_steps(order, step_edges, step_lo, step_hi, beta)
        return self
