"""QWYC (Wang, Gupta & You 2018, Algorithms 1 and 2) and Fan et al. (2002) early stopping,
as scikit-learn estimators.

Both fit an early-exit cascade either from a fitted gradient-boosted classifier, given as
``estimator`` (scikit-learn's meta-estimator convention), and the examples to fit on
(``QuitWhenYouCan(alpha, estimator=gbt).fit(X)``), or from the score arrays ``(base, F)``
that :func:`~ensemble_repro.qwyc.trees.tree_scores` returns (``fit_scores(base, F)``).
``predict`` then takes what ``fit`` took (features, or a score matrix) and returns class
labels.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.frozen import FrozenEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ..rng import check_generator, validate_random_state
from .cascade import Cascade, evaluate_cascade, partial_sums
from .orderings import (
    ORDERINGS,
    greedy_mse_order,
    greedy_mse_pick,
    individual_mse_order,
    natural_order,
    random_order,
)
from .thresholds import SIDE_SPLITS, step_thresholds
from .trees import flatten_model, sequential_sum

BUDGET_RULES = ("greedy_remaining", "uniform", "per_step_rate")
TIE_BREAKS = ("greedy_mse", "index")
BIN_KINDS = ("quantile", "equal_width")
BIN_SCORES = ("margin", "sigmoid")


def _check_scores(F, n_models: int | None = None) -> np.ndarray:
    """Validate a score matrix ``F`` (examples x base models) and return it as float64."""
    shape = np.shape(F)
    if np.iscomplexobj(F):
        raise ValueError(f"F must be a real score matrix; got complex values (shape {shape})")
    F = np.asarray(F, dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(
            f"F must be a 2-D array (examples x base models, as tree_scores returns); "
            f"got an array of shape {shape}"
        )
    if n_models is None and F.shape[1] < 2:
        raise ValueError(f"F must have at least 2 columns (base models); got shape {shape}")
    if n_models is not None and F.shape[1] != n_models:
        raise ValueError(
            f"F must have {n_models} columns, one per base model of the fitted "
            f"cascade; got shape {shape}"
        )
    if F.shape[0] < 1:
        raise ValueError(f"F must have at least one row (example); got shape {shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError(
            f"F must contain only finite values; found {np.sum(~np.isfinite(F))} NaN or inf entries"
        )
    return F


def _nan(forest) -> bool | str:
    """``ensure_all_finite`` for the model behind ``forest``: NaN only where it allows NaN."""
    return "allow-nan" if forest.allow_nan else True


def _check_base(base) -> float:
    """Validate the intercept ``base`` (initial score b0) and return it as a float."""
    if isinstance(base, numbers.Real) and not isinstance(base, bool) and math.isfinite(base):
        return float(base)
    got = f"an array of shape {np.shape(base)}" if np.ndim(base) else repr(base)
    raise ValueError(
        f"base must be a finite real number, the ensemble's initial score b0 (the "
        f"first value tree_scores returns: fit_scores(*tree_scores(model, X))); "
        f"got {got}"
    )


def _resolve_order(ordering, F, base, f, random_state, allow=ORDERINGS) -> np.ndarray:
    """An ordering name (or explicit permutation) as a permutation of 0..T-1."""
    T = F.shape[1]
    if isinstance(ordering, str):
        if ordering not in allow:
            raise ValueError(
                f"ordering must be one of {', '.join(allow)} or a permutation of "
                f"0..T-1; got {ordering!r}"
            )
        if ordering == "natural":
            return natural_order(F)
        if ordering == "random":
            return random_order(F, check_generator(random_state))
        if ordering == "individual_mse":
            return individual_mse_order(F, base, f)
        return greedy_mse_order(F, base, f)
    order = np.asarray(ordering)
    if (
        order.shape != (T,)
        or not np.issubdtype(order.dtype, np.integer)
        or not np.array_equal(np.sort(order), np.arange(T))
    ):
        raise ValueError(
            f"ordering given as an array must be a permutation of 0..{T - 1}; got {ordering!r}"
        )
    return order.astype(np.int64)


def _margin_edges(edges, p, g):
    """Margins of the sigmoid-scale bin ``edges`` of scores ``g`` (``p`` their sigmoids): an
    edge that is the sigmoid of a score maps to that score, the others through the logit.
    The logit of a score's sigmoid is the score only up to round-off, whose sign varies with
    the score and with the CPU's SIMD exp and log, so a score on an edge (tied scores, whose
    quantiles are scores) would fall in the bin above or below it by chance."""
    order = np.argsort(p, kind="stable")
    ps, gs = p[order], g[order]
    i = np.minimum(np.searchsorted(ps, edges), ps.size - 1)
    with np.errstate(divide="ignore"):
        return np.unique(np.where(ps[i] == edges, gs[i], np.log(edges) - np.log1p(-edges)))


class _Cascade(ClassifierMixin, BaseEstimator):
    """What QWYC and Fan share: fitting from a model or from scores, and early-exit prediction.

    Subclasses implement ``_fit_cascade(base, F)``, which sets ``order_`` and ``cascade_``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False  # fitted to imitate the model, not to fit y
        return tags

    def __sklearn_clone__(self):
        """A copy with cloned parameters that shares the fitted ``estimator`` (as
        :class:`sklearn.frozen.FrozenEstimator` does): the cascade needs the model's trees, and
        a clone of the model would be unfitted."""
        params = self.get_params(deep=False)
        params = {k: v if k == "estimator" else clone(v, safe=False) for k, v in params.items()}
        return type(self)(**params)

    def fit(self, X, y=None, *, model=None):
        """Fit the cascade on the examples ``X`` scored by the fitted boosted ``estimator``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Examples to fit the early-exit rule on, with the model's features (same names and
            order if the model was fitted on a DataFrame). NaN is routed as the model does, and
            refused where the model refuses it (``GradientBoostingClassifier``).
        y : None
            Ignored: the cascade imitates the full ensemble's decisions, not the labels.
        model : estimator, default=None
            Deprecated spelling of the constructor's ``estimator``: warns (FutureWarning),
            and will be removed in 0.3.

        Returns
        -------
        self
        """
        model = self._resolve_estimator(model)
        base, forest = flatten_model(model)
        validate_data(model, X, reset=False, skip_check_array=True)  # feature names as sklearn
        X = validate_data(self, X, reset=True, dtype=np.float64, ensure_all_finite=_nan(forest))
        self._fit_cascade(base, forest.contributions(X))
        self.estimator_, self.forest_ = model, forest
        self.classes_ = np.asarray(model.classes_)
        return self

    def _resolve_estimator(self, model):
        """The fitted model to fit on: ``estimator`` (unwrapped from a ``FrozenEstimator``),
        or the deprecated ``fit(X, model=...)``."""
        name = type(self).__name__
        if model is not None:
            if self.estimator is not None:
                raise ValueError(
                    f"{name} got the model twice, as estimator= and as fit(X, model=...); "
                    f"give it once, as {name}(..., estimator=gbt)"
                )
            warnings.warn(
                f"{name}.fit(X, model=gbt) is deprecated and will be removed in 0.3; give the "
                f"model to the constructor: {name}(..., estimator=gbt).fit(X)",
                FutureWarning,
                stacklevel=3,
            )
        else:
            model = self.estimator
        if isinstance(model, FrozenEstimator):
            model = model.estimator
        if model is None:
            raise ValueError(
                f"estimator is None: {name}(..., estimator=gbt).fit(X) takes a fitted "
                "GradientBoostingClassifier or HistGradientBoostingClassifier; to fit on "
                "score arrays use fit_scores(base, F), the order tree_scores returns them in"
            )
        return model

    def fit_scores(self, base, F):
        """Fit the cascade on the score matrix ``F`` with intercept ``base``.

        Parameters
        ----------
        base : float
            The ensemble's initial score b0 (first value of :func:`tree_scores`).
        F : array-like of shape (n_samples, n_models)
            ``F[i, t]``: contribution of base model ``t`` to example ``i``'s score; at least 2
            models, finite values.

        Returns
        -------
        self
            ``predict`` then takes score matrices and returns 0 / 1 (``classes_ = [0, 1]``).
        """
        base = _check_base(base)
        F = _check_scores(F)
        self._fit_cascade(base, F)
        if hasattr(self, "feature_names_in_"):  # left by an earlier fit(X)
            del self.feature_names_in_
        self.estimator_, self.forest_ = None, None
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = F.shape[1]
        return self

    def _scores(self, X):
        check_is_fitted(self, "cascade_")
        if self.estimator_ is None:
            return _check_scores(X, n_models=self.cascade_.order.size)
        X = validate_data(
            self, X, reset=False, dtype=np.float64, ensure_all_finite=_nan(self.forest_)
        )
        return self.forest_.contributions(X)

    def evaluate(self, X):
        """Early-exit decision and cost of every example.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_models)
            Features if fitted with :meth:`fit`, a score matrix if fitted with
            :meth:`fit_scores`.

        Returns
        -------
        decision : ndarray of bool, shape (n_samples,)
            True for the positive class (``classes_[1]``).
        n_evaluated : ndarray of int, shape (n_samples,)
            Number of base models evaluated before the cascade stopped.
        """
        F = self._scores(X)  # raises NotFittedError first
        return evaluate_cascade(self.cascade_, F, self.base_)

    def predict(self, X):
        """Class labels decided by the cascade.

        Parameters
        ----------
        X : array-like
            Features if fitted with :meth:`fit`, a score matrix if fitted with
            :meth:`fit_scores`.

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_`` (the model's classes, or 0 / 1 after ``fit_scores``).
        """
        decision = self.evaluate(X)[0]
        return self.classes_[decision.astype(np.int64)]

    def n_evaluated(self, X):
        """Number of base models evaluated for each example (see :meth:`evaluate`).

        Parameters
        ----------
        X : array-like
            As for :meth:`predict`.

        Returns
        -------
        ndarray of int, shape (n_samples,)
        """
        return self.evaluate(X)[1]


class QuitWhenYouCan(_Cascade):
    """QWYC early stopping (Wang, Gupta & You 2018, Algorithms 1 and 2).

    ``ordering="joint"`` runs Algorithm 1 (greedy joint choice of the next model by
    J = c_k / n_k, cost per newly stopped example); any other ordering keeps that order and
    only fits the Algorithm 2 thresholds. After step r the example stops with class 1 if its
    partial score exceeds ``eps_plus_[r]``, with class 0 if it is below ``eps_minus_[r]``.
    The fitting set's differences from the full ensemble are at most floor(alpha * N).

    Fitting cost, for T base models and N fitting examples: the joint ordering sorts every
    remaining model's partial scores at every step, O(T² N log N) time with a T x N table in
    memory; a fixed ordering sorts one row per step, O(T N log N).

    Parameters
    ----------
    alpha : float in [0, 1)
        Allowed fraction of fitting examples whose early decision differs from the full
        ensemble's (the paper's alpha).
    estimator : GradientBoostingClassifier or HistGradientBoostingClassifier, default=None
        A fitted binary classifier (or a ``FrozenEstimator`` of one) whose trees are the base
        models, for :meth:`fit`; :meth:`fit_scores` ignores it. Used as is, never refit or
        copied: ``clone`` shares it, so grid search over the cascade's parameters keeps it.
    ordering : {"joint", "natural", "random", "individual_mse", "greedy_mse"} or array of int, \
default="joint"
        Order of the base models: Algorithm 1's joint choice, a pre-selected ordering of the
        paper's Appendix B, or an explicit permutation of 0..T-1.
    costs : array-like of shape (n_models,), default=None
        Evaluation cost c_k of each base model (> 0); None: all 1.
    decision_threshold : float, default=0.0
        beta: the full ensemble decides class 1 when its score f >= beta.
    budget_rule : {"greedy_remaining", "uniform", "per_step_rate"}, default="greedy_remaining"
        How the floor(alpha * N) differences are spread over steps: all that is left at every
        step, evenly (with carry-over), or at most alpha times the examples stopped per step.
    side_split : {"joint", "neg_first", "half"}, default="joint"
        How one step's budget is split between its two thresholds.
    tie_break : {"greedy_mse", "index"}, default="greedy_mse"
        Choice among joint-ordering candidates with equal J.
    random_state : None, int, RandomState or Generator, default=None
        Seed of ``ordering="random"`` (scikit-learn's convention).

    Attributes
    ----------
    order_ : ndarray of int, shape (n_models,)
        Evaluation order of the base models.
    eps_minus_, eps_plus_ : ndarray of shape (n_models - 1,)
        Lower / upper early-stop thresholds of each step (-inf / inf: no stop on that side).
    n_stopped_, step_differences_ : ndarray of int, shape (n_models - 1,)
        Fitting examples stopped at each step, and how many of them differ from the full
        ensemble.
    differences_ : int
        Total differences on the fitting set.
    base_ : float
        The ensemble's initial score b0.
    cascade_ : Cascade
        The fitted cascade.
    classes_ : ndarray of shape (2,)
        Labels ``predict`` returns.
    estimator_ : estimator or None
        The boosted model :meth:`fit` used (None after :meth:`fit_scores`).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> from ensemble_repro.qwyc import QuitWhenYouCan
    >>> X, y = make_classification(n_samples=400, random_state=0)
    >>> gbt = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    >>> qwyc = QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(X)
    >>> bool((qwyc.predict(X) == gbt.predict(X)).all())     # alpha = 0: no difference on X
    True
    >>> bool(qwyc.n_evaluated(X).mean() < 20)               # but fewer trees on average
    True
    """

    def __init__(
        self,
        alpha,
        estimator=None,
        ordering="joint",
        costs=None,
        decision_threshold=0.0,
        budget_rule="greedy_remaining",
        side_split="joint",
        tie_break="greedy_mse",
        random_state=None,
    ):
        self.alpha = alpha
        self.estimator = estimator
        self.ordering = ordering
        self.costs = costs
        self.decision_threshold = decision_threshold
        self.budget_rule = budget_rule
        self.side_split = side_split
        self.tie_break = tie_break
        self.random_state = random_state

    def _check_params(self, T):
        a = self.alpha
        if isinstance(a, bool) or not (isinstance(a, numbers.Real) and 0 <= a < 1):
            raise ValueError(f"alpha must be a number in [0, 1); got {a!r}")
        for name, value, allowed in (
            ("budget_rule", self.budget_rule, BUDGET_RULES),
            ("side_split", self.side_split, SIDE_SPLITS),
            ("tie_break", self.tie_break, TIE_BREAKS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        beta = self.decision_threshold
        if not (isinstance(beta, numbers.Real) and math.isfinite(beta)):
            raise ValueError(f"decision_threshold must be a finite number; got {beta!r}")
        validate_random_state(self.random_state)
        if self.costs is None:
            return np.ones(T)
        try:
            c = np.asarray(self.costs, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"costs must be None or {T} positive numbers, one per base model (column of "
                f"F); got {self.costs!r}"
            ) from None
        if c.shape != (T,):
            raise ValueError(
                f"costs must be None or {T} values, one per base model (column of "
                f"F); got shape {c.shape}"
            )
        bad = np.flatnonzero(~(np.isfinite(c) & (c > 0)))
        if bad.size:
            raise ValueError(f"costs must be finite and > 0; got {c[bad[0]]} at index {bad[0]}")
        return c

    def _budget(self, r, used, N, T):
        total = math.floor(self.alpha * N)
        if self.budget_rule == "greedy_remaining":
            return total - used
        return math.floor(self.alpha * N * (r + 1) / (T - 1)) - used  # uniform, with carry-over

    def _fit_cascade(self, base, F):
        """Fit the ordering and thresholds on the scores ``F`` (N x T) with intercept ``base``."""
        N, T = F.shape
        costs = self._check_params(T)
        beta = float(self.decision_threshold)
        f = sequential_sum(base, F)
        yhat = f >= beta
        joint = isinstance(self.ordering, str) and self.ordering == "joint"
        fixed = None if joint else _resolve_order(self.ordering, F, base, f, self.random_state)
        rate = self.alpha if self.budget_rule == "per_step_rate" else None
        Ft = np.ascontiguousarray(F.T)
        g = np.full(N, float(base))  # partial sums of every example
        alive = np.arange(N)
        cand = np.arange(T)  # models not yet placed (joint ordering)
        Fa = Ft  # Ft restricted to (cand, alive), kept compact
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
        self.cascade_ = Cascade.from_steps(
            order, [[]] * (T - 1), em_all[:, None], ep_all[:, None], beta
        )


class FanEarlyStopping(_Cascade):
    """Dynamic scheduling of Fan et al. (2002) adapted to additive scores (QWYC Appendix C).

    For each stage r < T the partial scores g_r of the fitting set are split into ``n_bins``
    bins; in each bin the remaining score f - g_r has mean mu and standard deviation sigma.
    An example stops with class 1 when g_r + mu - gamma*sigma > beta, with class 0 when
    g_r + mu + gamma*sigma < beta.

    Parameters
    ----------
    gamma : float >= 0
        Confidence multiplier of sigma (inf: never stop early).
    estimator : GradientBoostingClassifier or HistGradientBoostingClassifier, default=None
        A fitted binary classifier (or a ``FrozenEstimator`` of one) whose trees are the base
        models, for :meth:`fit`; :meth:`fit_scores` ignores it. Used as is, never refit or
        copied: ``clone`` shares it, so grid search over the cascade's parameters keeps it.
    n_bins : int >= 1, default=10
        Bins of the partial score per stage.
    ordering : {"natural", "random", "individual_mse", "greedy_mse"} or array of int, \
default="individual_mse"
        Order of the base models (``"joint"`` is QWYC's and not accepted here).
    bin_kind : {"quantile", "equal_width"}, default="quantile"
        Bin edges from quantiles of the stage's fitting scores, or equally spaced.
    stats_on_survivors : bool, default=False
        Stage r's statistics use only the fitting examples not stopped before stage r.
    min_bin_count : int >= 1, default=5
        Bins with fewer fitting examples never stop.
    bin_score : {"margin", "sigmoid"}, default="margin"
        Bin on the partial score or on its sigmoid.
    decision_threshold : float, default=0.0
        beta: the full ensemble decides class 1 when f >= beta.
    random_state : None, int, RandomState or Generator, default=None
        Seed of ``ordering="random"`` (scikit-learn's convention).

    Attributes
    ----------
    order_ : ndarray of int, shape (n_models,)
        Evaluation order.
    cascade_ : Cascade
        Per-stage bin edges and thresholds.
    base_ : float
        The ensemble's initial score b0.
    classes_ : ndarray of shape (2,)
        Labels ``predict`` returns.
    estimator_ : estimator or None
        The boosted model :meth:`fit` used (None after :meth:`fit_scores`).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import GradientBoostingClassifier
    >>> from ensemble_repro.qwyc import FanEarlyStopping, tree_scores
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> gbt = GradientBoostingClassifier(n_estimators=15, random_state=0).fit(X, y)
    >>> fan = FanEarlyStopping(gamma=2.0, estimator=gbt, n_bins=4).fit(X)
    >>> bool((fan.predict(X) == gbt.predict(X)).mean() > 0.95)
    True
    >>> base, F = tree_scores(gbt, X)                       # or from the score matrix
    >>> bool((FanEarlyStopping(2.0, n_bins=4).fit_scores(base, F).predict(F) == fan.predict(X)).all())
    True
    """

    def __init__(
        self,
        gamma,
        estimator=None,
        n_bins=10,
        ordering="individual_mse",
        bin_kind="quantile",
        stats_on_survivors=False,
        min_bin_count=5,
        bin_score="margin",
        decision_threshold=0.0,
        random_state=None,
    ):
        self.gamma = gamma
        self.estimator = estimator
        self.n_bins = n_bins
        self.ordering = ordering
        self.bin_kind = bin_kind
        self.stats_on_survivors = stats_on_survivors
        self.min_bin_count = min_bin_count
        self.bin_score = bin_score
        self.decision_threshold = decision_threshold
        self.random_state = random_state

    def _check_params(self):
        g = self.gamma
        if isinstance(g, bool) or not (isinstance(g, numbers.Real) and g >= 0):
            raise ValueError(f"gamma must be a number >= 0 (inf allowed); got {g!r}")
        for name, v in (("n_bins", self.n_bins), ("min_bin_count", self.min_bin_count)):
            if isinstance(v, bool) or not (isinstance(v, numbers.Integral) and v >= 1):
                raise ValueError(f"{name} must be an integer >= 1; got {v!r}")
        if not isinstance(self.stats_on_survivors, (bool, np.bool_)):
            raise ValueError(
                f"stats_on_survivors must be True or False; got {self.stats_on_survivors!r}"
            )
        for name, value, allowed in (
            ("bin_kind", self.bin_kind, BIN_KINDS),
            ("bin_score", self.bin_score, BIN_SCORES),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
        beta = self.decision_threshold
        if not (isinstance(beta, numbers.Real) and math.isfinite(beta)):
            raise ValueError(f"decision_threshold must be a finite number; got {beta!r}")
        validate_random_state(self.random_state)

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
            p = 1 / (1 + np.exp(-g))
            edges = _margin_edges(self._edges(p), p, g)
        b = np.searchsorted(edges, g, side="right")
        nb = edges.size + 1
        cnt = np.bincount(b, minlength=nb)
        delta = f - g
        mu = np.bincount(b, delta, minlength=nb) / np.maximum(cnt, 1)
        sd = np.sqrt(np.bincount(b, (delta - mu[b]) ** 2, minlength=nb) / np.maximum(cnt, 1))
        with np.errstate(invalid="ignore"):
            margin = np.nan_to_num(self.gamma * sd, nan=np.inf)  # inf * 0: never stop
        ok = cnt >= self.min_bin_count
        return (
            edges,
            np.where(ok, beta - mu - margin, -np.inf),
            np.where(ok, beta - mu + margin, np.inf),
        )

    def _fit_cascade(self, base, F):
        """Fit bins and per-bin statistics of every stage on ``F`` (N x T) with intercept ``base``."""
        self._check_params()
        N, T = F.shape
        if self.n_bins > N:
            raise ValueError(
                f"n_bins must be at most the {N} rows the cascade is fitted on (a bin holds "
                f"rows; min_bin_count={self.min_bin_count}); got {self.n_bins}"
            )
        beta = float(self.decision_threshold)
        f = sequential_sum(base, F)
        order = _resolve_order(self.ordering, F, base, f, self.random_state)
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
