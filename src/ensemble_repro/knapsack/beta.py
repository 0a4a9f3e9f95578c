"""Beta model of member accuracies and the stopping rule of Hajdu et al. (2020), section IV.

``q_moments`` gives the exact mean and variance of the ensemble accuracy q_ℓ when the ℓ
member accuracies are i.i.d. Beta(a, b) (derived exactly here; the paper's eqs. 22/25 may
print an approximation), ``q_limits`` / ``q_moment_curve`` their limits (Lemma IV.1, Fig. 1);
``affordable_size`` estimates ℓ_T (eq. 33 among the options), ``stirling_maxstep`` gives
MAXSTEP (eq. 29) and ``stopping_rule`` turns them into the STOP test (eq. 25).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import stats

from .energy import _check_count, _check_probabilities, _is_whole, check_pool, max_affordable

if TYPE_CHECKING:  # pandas is not in the bare install; q_moment_curve imports it when called
    import pandas as pd


def fit_beta(p, method: str = "moments") -> tuple[float, float]:
    """Fit Beta(a, b) to pool accuracies ``p`` (Hajdu et al. section IV) [I].

    Parameters
    ----------
    p : array-like of shape (n,)
        Member accuracies, at least 2, not all equal.
    method : {"moments", "mle"}, default="moments"
        Method of moments, or maximum likelihood (scipy).

    Returns
    -------
    a, b : float
        Beta parameters.

    Examples
    --------
    >>> from ensemble_repro.knapsack import fit_beta
    >>> a, b = fit_beta([0.6, 0.7, 0.65, 0.8, 0.75])
    >>> round(a / (a + b), 4)                 # the mean accuracy
    0.7
    """
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or p.size < 2:
        raise ValueError(f"p must be a 1-D array of at least 2 accuracies; got shape {p.shape}")
    _check_probabilities(p)
    mean, var = float(p.mean()), float(p.var())
    if var <= 0:
        raise ValueError(
            "p must not be constant: a Beta law needs accuracies with positive variance"
        )
    if method == "moments":
        kappa = mean * (1 - mean) / var - 1
        if kappa <= 0:
            raise ValueError(
                f"p is too spread for a Beta law (variance {var:.4g} >= "
                f"mean(1-mean) = {mean * (1 - mean):.4g})"
            )
        return mean * kappa, (1 - mean) * kappa
    if method == "mle":
        eps = 1e-6
        a, b, _, _ = stats.beta.fit(np.clip(p, eps, 1 - eps), floc=0, fscale=1)
        return float(a), float(b)
    raise ValueError(f"method must be 'moments' or 'mle'; got {method!r}")


def _check_beta(a, b) -> None:
    if not all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) and 0 < v < math.inf for v in (a, b)
    ):
        raise ValueError(f"a and b must be positive finite Beta parameters; got a={a!r}, b={b!r}")


#: Largest ensemble size ℓ :func:`q_moments` (and so :func:`stopping_rule`) computes: its
#: O(ℓ³) programme takes minutes at ℓ = 2000 (and 52 GiB of memory at ℓ = 83000).
MAX_ELL = 2000


def q_moments(ell: int, a: float, b: float) -> tuple[float, float]:
    """Exact E[q_ℓ] and Var[q_ℓ] for ℓ i.i.d. Beta(a, b) member accuracies (section IV).

    E[q_ℓ] = P(Bin(ℓ, μ) > ℓ/2); E[q_ℓ²] = P(S > ℓ/2, S' > ℓ/2) for two replays S, S' that
    share the member accuracies, computed by a 2-D dynamic programme over (S, S') in O(ℓ³)
    time and O(ℓ²) memory: about 0.1 s at ℓ = 200 and 20 s at ℓ = 800 on a busy 2-core
    machine, so ℓ above :data:`MAX_ELL` = 2000 (minutes there) is refused.

    Parameters
    ----------
    ell : int
        Ensemble size, 1 <= ℓ <= :data:`MAX_ELL`.
    a, b : float
        Beta parameters (> 0).

    Returns
    -------
    mean, var : float
        E[q_ℓ] and Var[q_ℓ].

    Examples
    --------
    >>> from ensemble_repro.knapsack import q_moments
    >>> mean, var = q_moments(3, 6.0, 4.0)
    >>> round(mean, 4), round(var, 5)
    (0.648, 0.01518)
    """
    if not _is_whole(ell) or ell < 1:
        raise ValueError(f"ell must be a positive integer ensemble size; got {ell!r}")
    if ell > MAX_ELL:
        raise ValueError(
            f"ell = {ell} is above MAX_ELL = {MAX_ELL}: the exact moments take O(ell^3) time "
            f"(minutes at {MAX_ELL}, hours beyond) and O(ell^2) memory; use ell <= {MAX_ELL} "
            "(q_limits gives the limits as ell grows)"
        )
    _check_beta(a, b)
    ell = int(ell)
    need = ell // 2 + 1  # strict majority
    mu = a / (a + b)
    mean = float(stats.binom.sf(need - 1, ell, mu))
    den = (a + b) * (a + b + 1)
    s2, s11, s0 = a * (a + 1) / den, a * b / den, b * (b + 1) / den
    joint = np.zeros((ell + 1, ell + 1))
    joint[0, 0] = 1.0
    for _ in range(ell):
        new = s0 * joint
        new[1:, 1:] += s2 * joint[:-1, :-1]
        new[1:, :] += s11 * joint[:-1, :]
        new[:, 1:] += s11 * joint[:, :-1]
        joint = new
    second = float(joint[need:, need:].sum())
    return mean, max(second - mean * mean, 0.0)


def q_limits(a: float, b: float) -> tuple[float, float]:
    """Lemma IV.1: limits of E[q_ℓ] and Var[q_ℓ] as ℓ → ∞ for Beta(a, b) member accuracies.

    The mean tends to 1, 1/2 or 0 as μ_p = a/(a + b) is above, at or below 1/2 (the three
    limits of eq. (8), Fig. 1), and the variance to 0 when μ_p ≠ 1/2. At μ_p = 1/2 [I, our
    derivation]: given the p_i, S is asymptotically normal, so q_ℓ → Φ(cZ) with
    c² = σ_p² / (1/4 − σ_p²) and Var Φ(cZ) = arcsin(4σ_p²) / (2π).

    Parameters
    ----------
    a, b : float
        Beta parameters (> 0).

    Returns
    -------
    mean_limit, var_limit : float
        Limits of E[q_ℓ] and Var[q_ℓ].

    Examples
    --------
    >>> from ensemble_repro.knapsack import q_limits
    >>> q_limits(8.0, 4.0), q_limits(2.0, 4.0)
    ((1.0, 0.0), (0.0, 0.0))
    >>> [round(v, 6) for v in q_limits(2.0, 2.0)]         # σ_p² = 1/20
    [0.5, 0.032047]
    """
    _check_beta(a, b)
    if a != b:
        return (1.0 if a > b else 0.0), 0.0
    var_p = a * b / ((a + b) ** 2 * (a + b + 1))
    return 0.5, float(np.arcsin(4 * var_p) / (2 * np.pi))


def q_moment_curve(ells, a: float, b: float) -> pd.DataFrame:
    """Fig. 1 / Lemma IV.1: E[q_ℓ] and Var[q_ℓ] against ensemble size ℓ, with their limits.

    Parameters
    ----------
    ells : array-like of int
        Ensemble sizes (>= 1; the paper uses odd sizes).
    a, b : float
        Beta parameters of the member accuracies.

    Returns
    -------
    DataFrame
        Columns ``ell``, ``mean``, ``var`` (:func:`q_moments`), ``mean_limit``, ``var_limit``
        (:func:`q_limits`, the same on every row).

    Examples
    --------
    >>> from ensemble_repro.knapsack import q_moment_curve
    >>> q_moment_curve([1, 3], 8.0, 4.0).round(6)
       ell      mean       var  mean_limit  var_limit
    0    1  0.666667  0.017094         1.0        0.0
    1    3  0.740741  0.010247         1.0        0.0
    """
    mean_limit, var_limit = q_limits(a, b)
    rows = [(int(ell), *q_moments(ell, a, b)) for ell in np.atleast_1d(ells)]
    import pandas as pd  # the bare install has no pandas; only this table needs it

    out = pd.DataFrame(rows, columns=["ell", "mean", "var"])
    out["mean_limit"], out["var_limit"] = mean_limit, var_limit
    return out


def stirling_maxstep(n: int, ell: int, *, floor: int | None = 1000, cap: int | None = 100_000):
    """Eq. (29): MAXSTEP from Stirling's approximation of the number C(n, ℓ_T) of ensembles.

    [I] The paper derives MAXSTEP with Stirling's formula and warns it "may provide values
    that are too small ... in the case of small pools", so a floor applies; we read (29) as
    the number of size-ℓ_T ensembles of the pool, ln k! ≈ k ln k − k + ½ ln(2πk) (0! = 1),
    and add an optional cap for runs of bounded length.

    Parameters
    ----------
    n : int
        Pool size.
    ell : int
        Estimated ensemble size ℓ_T, 1 <= ℓ <= n.
    floor : int or None, default=1000
        Smallest MAXSTEP returned (the paper's "sufficiently large value" for small pools).
    cap : int or None, default=100000
        Largest MAXSTEP returned (None: no cap).

    Returns
    -------
    int
        MAXSTEP, in search steps (constructions of Algorithm 1).

    Examples
    --------
    >>> from ensemble_repro.knapsack import stirling_maxstep
    >>> stirling_maxstep(10, 3, floor=None)        # C(10, 3) = 120 exactly
    124
    >>> stirling_maxstep(10, 3), stirling_maxstep(40, 9)
    (1000, 100000)
    """
    if not (_is_whole(n) and _is_whole(ell)) or not 1 <= ell <= n:
        raise ValueError(f"need integers 1 <= ell <= n; got n={n!r}, ell={ell!r}")
    floor = _check_count("floor", floor, allow_none=True)
    cap = _check_count("cap", cap, allow_none=True)
    if floor is not None and cap is not None and floor > cap:
        raise ValueError(f"maxstep floor {floor!r} must not exceed the cap {cap!r}")

    def log_fact(k):
        return k * np.log(k) - k + 0.5 * np.log(2 * np.pi * k) if k > 0 else 0.0

    steps = float(np.exp(log_fact(n) - log_fact(ell) - log_fact(n - ell)))
    if floor is not None:
        steps = max(steps, floor)
    if cap is not None:
        steps = min(steps, cap)
    return int(round(steps))


def poisson_size(rate_T: float, *, level: float = 0.05, approx: str = "exact") -> int:
    """Eq. (33): ensemble size whose larger values have Poisson probability below ``level``.

    With exponential costs τ_j of rate λ, the number of members fitting in T is Poisson(λT).
    ``exact``: m_level, the upper ``level`` quantile (smallest m with P(N <= m) >= 1 − level);
    ``normal``: the normal approximation's inequality ℓ <= λT + u_{1−level} √(λT), floored.

    Parameters
    ----------
    rate_T : float
        The Poisson parameter λT (> 0).
    level : float in (0, 1), default=0.05
        The paper's 5% error.
    approx : {"exact", "normal"}, default="exact"
        Poisson quantile or its normal approximation.

    Returns
    -------
    int
        The estimated ensemble size ℓ_T (not made odd).

    Examples
    --------
    >>> from ensemble_repro.knapsack import poisson_size
    >>> poisson_size(4.0), poisson_size(4.0, approx="normal")
    (8, 7)
    """
    if not (np.isfinite(rate_T) and rate_T > 0):
        raise ValueError(f"rate_T must be a positive Poisson parameter lambda*T; got {rate_T!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level!r}")
    if approx == "exact":
        return int(stats.poisson.ppf(1 - level, rate_T))
    if approx == "normal":
        return int(np.floor(rate_T + stats.norm.ppf(1 - level) * np.sqrt(rate_T) + 1e-12))
    raise ValueError(f"approx must be 'exact' or 'normal'; got {approx!r}")


#: ℓ_T estimates of :func:`affordable_size` (the first is the default).
SIZE_ESTIMATES = ("affordable", "mean_cost", "time_profile", "poisson", "poisson_normal")


def affordable_size(
    p, t, budget: float, a: float, b: float, method: str = "affordable", level: float = 0.05
) -> int:
    """ℓ_T: the ensemble size the budget affords, as the largest odd size <= n [I].

    The paper's ℓ_T estimate (22) could not be read; ``affordable`` (default) is the size the
    budget actually affords, the largest ℓ such that the ℓ cheapest members fit in T.
    ``mean_cost``: T / mean(t). ``time_profile``: section IV-B's λ = 1 − p with exponential
    costs of mean 1/λ, i.e. t ≈ c/(1 − p) with c fitted by least squares, and
    E[t] = c·E[1/(1 − p)] = c(a + b − 1)/(b − 1) under Beta(a, b) (needs b > 1); ℓ = T / E[t].
    ``poisson`` / ``poisson_normal``: eq. (33), :func:`poisson_size` at λT = T / mean(t) (the
    exponential rate's estimate from the costs; the paper prints T / Σp_i, unreadable).

    Parameters
    ----------
    p, t : array-like of shape (n,)
        Member accuracies and costs.
    budget : float
        Total cost allowed.
    a, b : float
        Beta fit of ``p``.
    method : {"affordable", "mean_cost", "time_profile", "poisson", "poisson_normal"}, \
default="affordable"
        The estimate (above).
    level : float, default=0.05
        Error level of the Poisson estimates (eq. 33).

    Returns
    -------
    int
        ℓ_T, odd, between 1 and n.

    Examples
    --------
    >>> from ensemble_repro.knapsack import affordable_size
    >>> p, t = [0.6, 0.7, 0.8, 0.7], [1.0, 1.0, 3.0, 1.0]
    >>> affordable_size(p, t, 4.0, 6.0, 4.0), affordable_size(p, t, 4.0, 6.0, 4.0, "mean_cost")
    (3, 1)
    """
    p, t = np.asarray(p, dtype=float), np.asarray(t, dtype=float)
    if method == "affordable":
        ell = max_affordable(t, budget)
    elif method in ("mean_cost", "poisson", "poisson_normal"):
        rate_T = budget / t.mean()
        if method == "mean_cost":
            ell = int(np.floor(rate_T + 1e-12))
        else:
            approx = "exact" if method == "poisson" else "normal"
            ell = poisson_size(rate_T, level=level, approx=approx)
    elif method == "time_profile":
        if b <= 1:
            raise ValueError(
                "size_estimate='time_profile' needs the Beta fit's b > 1 (E[1/(1 - p)] is "
                f"infinite otherwise); got b={b:.4g}: use size_estimate='affordable'"
            )
        x = 1.0 / np.maximum(1.0 - p, 1e-12)
        c = float(np.dot(t, x) / np.dot(x, x))
        ell = int(np.floor(budget / (c * (a + b - 1) / (b - 1)) + 1e-12))
    else:
        raise ValueError(
            f"size_estimate must be one of {', '.join(SIZE_ESTIMATES)}; got {method!r}"
        )
    ell = min(ell, p.size)
    return max(1, ell - (1 - ell % 2))


#: Stopping tests of :class:`StoppingRule` (the first is the default, eq. 25).
RULES = ("left_tail", "tail", "two_tailed", "expected")


@dataclass(frozen=True)
class StoppingRule:
    """Stop a search once its best accuracy reaches ``threshold`` (section IV, eq. 25).

    ``left_tail`` (the paper's "one-tailed (left-side) hypothesis" of eq. (25), used because
    q is close to 1): H0 "the incumbent q* is a draw of q_{ℓ_T}" is rejected on the left, so
    the search stops once q* is no longer in the lower STOP tail: threshold = the STOP
    quantile. ``two_tailed``: the STOP/2 quantile. ``tail`` (right side, for small μ_q:
    "search above this mean"): the 1 − STOP quantile. ``expected``: E[q_{ℓ_T}] [I].

    Parameters
    ----------
    rule : {"left_tail", "tail", "two_tailed", "expected"}
        Which test (above).
    threshold : float
        Accuracy at which a search stops.
    ell_T : int
        Estimated ensemble size ℓ_T.
    mean, var : float
        E[q_{ℓ_T}] and Var[q_{ℓ_T}].
    a, b : float
        Beta fit of the pool's accuracies.
    maxstep : int or None, default=None
        MAXSTEP for this pool (eq. 29, :func:`stirling_maxstep`), in search steps.

    Examples
    --------
    >>> from ensemble_repro.knapsack import StoppingRule
    >>> rule = StoppingRule("expected", 0.8, 3, 0.8, 0.01, 8.0, 2.0)
    >>> rule.reached([0.79, 0.8, 0.9])
    array([False,  True,  True])
    """

    rule: str
    threshold: float
    ell_T: int
    mean: float
    var: float
    a: float
    b: float
    maxstep: int | None = None

    def reached(self, best):
        """True where ``best`` reaches the threshold (1e-12 slack: q near 1 is rounded in the DP).

        Parameters
        ----------
        best : float or array-like
            Best accuracies found.

        Returns
        -------
        bool or ndarray of bool
        """
        return np.asarray(best) >= self.threshold - 1e-12


def stopping_rule(
    p,
    t,
    budget: float,
    *,
    rule: str = "left_tail",
    STOP: float = 0.05,
    beta_fit: str = "moments",
    size_estimate: str = "affordable",
    tail_law: str = "beta",
    maxstep_floor: int | None = 1000,
    maxstep_cap: int | None = 100_000,
) -> StoppingRule:
    """Build the stopping rule of a pool from its Beta fit (section IV: STOP and MAXSTEP).

    The threshold is a quantile of q_{ℓ_T} (eq. 25) under a law matched to its exact mean
    and variance (:func:`q_moments`, O(ℓ_T³) time, so an estimated ℓ_T above :data:`MAX_ELL`
    = 2000 is refused); MAXSTEP comes from eq. (29) (:func:`stirling_maxstep`).

    Parameters
    ----------
    p, t : array-like of shape (n,)
        Member accuracies and costs (validated as by :func:`check_pool`).
    budget : float
        Total cost allowed.
    rule : {"left_tail", "tail", "two_tailed", "expected"}, default="left_tail"
        Which test (see :class:`StoppingRule`).
    STOP : float in (0, 1), default=0.05
        The paper's STOP level.
    beta_fit : {"moments", "mle"}, default="moments"
        How the Beta law is fitted.
    size_estimate : {"affordable", "mean_cost", "time_profile", "poisson", "poisson_normal"}, \
default="affordable"
        How ℓ_T is estimated (:func:`affordable_size`).
    tail_law : {"beta", "normal"}, default="beta"
        Law of q_{ℓ_T} whose quantile is the threshold [I].
    maxstep_floor, maxstep_cap : int or None, default=1000, 100000
        Bounds on MAXSTEP (:func:`stirling_maxstep`).

    Returns
    -------
    StoppingRule

    Examples
    --------
    >>> from ensemble_repro.knapsack import simulated_annealing, stopping_rule
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> rule = stopping_rule(p, t, 4.0)
    >>> rule.ell_T, round(rule.threshold, 4), rule.maxstep
    (3, 0.8087, 1000)
    >>> res = simulated_annealing(p, t, 4.0, random_state=0, stop=rule)
    >>> res.stopped_by, res.evaluations
    ('rule', 3)
    """
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}; got {rule!r}")
    if isinstance(STOP, bool) or not isinstance(STOP, numbers.Real) or not 0 < STOP < 1:
        raise ValueError(f"STOP must be a level in (0, 1); got {STOP!r}")
    _check_count("maxstep_floor", maxstep_floor, allow_none=True)
    _check_count("maxstep_cap", maxstep_cap, allow_none=True)
    if tail_law not in ("beta", "normal"):
        raise ValueError(f"tail_law must be 'beta' or 'normal'; got {tail_law!r}")
    p, t, budget = check_pool(p, t, budget)
    a, b = fit_beta(p, beta_fit)
    ell = affordable_size(p, t, budget, a, b, size_estimate, level=STOP)
    if ell > MAX_ELL:
        raise ValueError(
            f"the {p.size}-member pool affords an ensemble of ell_T = {ell} members under "
            f"budget {budget:g} (size_estimate={size_estimate!r}), above MAX_ELL = {MAX_ELL}: "
            f"the stopping rule's exact moments (q_moments) take O(ell^3) time. Use a pool or "
            f"budget affording at most {MAX_ELL} members"
        )
    mean, var = q_moments(ell, a, b)
    level = {"left_tail": STOP, "two_tailed": STOP / 2, "tail": 1 - STOP}.get(rule)
    kappa = mean * (1 - mean) / var - 1 if var > 0 else 0.0
    if rule == "expected":
        threshold = mean
    elif tail_law == "beta" and kappa > 0:
        threshold = float(stats.beta.ppf(level, mean * kappa, (1 - mean) * kappa))
    else:
        threshold = mean + stats.norm.ppf(level) * np.sqrt(var)
    maxstep = stirling_maxstep(p.size, ell, floor=maxstep_floor, cap=maxstep_cap)
    return StoppingRule(rule, float(threshold), ell, mean, var, a, b, maxstep)
