"""Beta model of member accuracies and the stopping rule of Hajdu et al. (2020), section IV.

``q_moments`` gives the exact mean and variance of the ensemble accuracy q_ℓ when the ℓ
member accuracies are i.i.d. Beta(a, b) (spec §4.5, in place of the paper's Lemma IV.1 and
eqs. 22/25, which could not be read); ``stopping_rule`` turns them into the STOP test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .energy import _check_probabilities, check_pool


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


def q_moments(ell: int, a: float, b: float) -> tuple[float, float]:
    """Exact E[q_ℓ] and Var[q_ℓ] for ℓ i.i.d. Beta(a, b) member accuracies (spec §4.5).

    E[q_ℓ] = P(Bin(ℓ, μ) > ℓ/2); E[q_ℓ²] = P(S > ℓ/2, S' > ℓ/2) for two replays S, S' that
    share the member accuracies, computed by a 2-D dynamic programme over (S, S') in O(ℓ³).

    Parameters
    ----------
    ell : int
        Ensemble size ℓ >= 1.
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
    if int(ell) != ell or ell < 1:
        raise ValueError(f"ell must be a positive integer ensemble size; got {ell!r}")
    if not (a > 0 and b > 0):
        raise ValueError(f"a and b must be positive Beta parameters; got a={a!r}, b={b!r}")
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


def affordable_size(p, t, budget: float, a: float, b: float, method: str = "mean_cost") -> int:
    """ℓ_T: the largest odd ensemble size the budget affords on average [I] (spec §4.5).

    ``mean_cost``: T / mean(t). ``time_profile``: costs modelled as t = c(1 − p) (the paper's
    profile λ = 1 − p), c fitted by least squares, so E[t] = c·b/(a + b) under Beta(a, b).

    Parameters
    ----------
    p, t : array-like of shape (n,)
        Member accuracies and costs.
    budget : float
        Total cost allowed.
    a, b : float
        Beta fit of ``p``.
    method : {"mean_cost", "time_profile"}, default="mean_cost"
        Cost model.

    Returns
    -------
    int
        ℓ_T, odd, between 1 and n.

    Examples
    --------
    >>> from ensemble_repro.knapsack import affordable_size
    >>> affordable_size([0.6, 0.7, 0.8, 0.7], [1.0, 1.0, 1.0, 1.0], 4.0, 6.0, 4.0)
    3
    """
    p, t = np.asarray(p, dtype=float), np.asarray(t, dtype=float)
    if method == "mean_cost":
        mean_cost = t.mean()
    elif method == "time_profile":
        err = 1.0 - p
        c = float(np.dot(t, err) / max(np.dot(err, err), 1e-300))
        mean_cost = c * b / (a + b)
    else:
        raise ValueError(f"size_estimate must be 'mean_cost' or 'time_profile'; got {method!r}")
    ell = int(np.floor(budget / mean_cost + 1e-12)) if mean_cost > 0 else p.size
    ell = min(ell, p.size)
    return max(1, ell - (1 - ell % 2))


@dataclass(frozen=True)
class StoppingRule:
    """Stop a search once its best accuracy reaches ``threshold`` (spec §4.6).

    ``tail``: threshold is the (1 − STOP) quantile of q_{ℓ_T} (P(q_{ℓ_T} > q*) ≤ STOP); since
    that probability falls as q* rises, the test reduces to a fixed level (the paper's
    right-side hypothesis). ``left_tail``: the STOP quantile (P(q_{ℓ_T} < q*) ≥ STOP; the
    left-side hypothesis the paper's section VI says its experiments used, for q near 1).
    ``expected``: threshold = E[q_{ℓ_T}].

    Parameters
    ----------
    rule : {"tail", "left_tail", "expected"}
        Which test (above).
    threshold : float
        Accuracy at which a search stops.
    ell_T : int
        Affordable ensemble size ℓ_T.
    mean, var : float
        E[q_{ℓ_T}] and Var[q_{ℓ_T}].
    a, b : float
        Beta fit of the pool's accuracies.

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
    rule: str = "tail",
    STOP: float = 0.05,
    beta_fit: str = "moments",
    size_estimate: str = "mean_cost",
    tail_law: str = "beta",
) -> StoppingRule:
    """Build the stopping rule of a pool from its Beta fit (section IV, the STOP parameter).

    Parameters
    ----------
    p, t : array-like of shape (n,)
        Member accuracies and costs (validated as by :func:`check_pool`).
    budget : float
        Total cost allowed.
    rule : {"tail", "left_tail", "expected"}, default="tail"
        Which test (see :class:`StoppingRule`).
    STOP : float in (0, 1), default=0.05
        The paper's STOP level.
    beta_fit : {"moments", "mle"}, default="moments"
        How the Beta law is fitted.
    size_estimate : {"mean_cost", "time_profile"}, default="mean_cost"
        How ℓ_T is estimated (:func:`affordable_size`).
    tail_law : {"beta", "normal"}, default="beta"
        Law of q_{ℓ_T} whose quantile is the threshold.

    Returns
    -------
    StoppingRule

    Examples
    --------
    >>> from ensemble_repro.knapsack import simulated_annealing, stopping_rule
    >>> p, t = [0.8, 0.75, 0.75, 0.75, 0.7], [4.0, 1.0, 1.0, 1.0, 1.0]
    >>> rule = stopping_rule(p, t, 4.0, rule="expected")
    >>> res = simulated_annealing(p, t, 4.0, random_state=0, stop=rule)
    >>> res.stopped_by, res.evaluations
    ('rule', 2)
    """
    if rule not in ("tail", "left_tail", "expected"):
        raise ValueError(f"rule must be 'tail', 'left_tail' or 'expected'; got {rule!r}")
    if not 0 < STOP < 1:
        raise ValueError(f"STOP must be a level in (0, 1); got {STOP!r}")
    p, t, budget = check_pool(p, t, budget)
    a, b = fit_beta(p, beta_fit)
    ell = affordable_size(p, t, budget, a, b, size_estimate)
    mean, var = q_moments(ell, a, b)
    if tail_law not in ("beta", "normal"):
        raise ValueError(f"tail_law must be 'beta' or 'normal'; got {tail_law!r}")
    level = STOP if rule == "left_tail" else 1 - STOP  # quantile of q_{ℓ_T} to reach
    kappa = mean * (1 - mean) / var - 1 if var > 0 else 0.0
    if rule == "expected":
        threshold = mean
    elif tail_law == "beta" and kappa > 0:
        threshold = float(stats.beta.ppf(level, mean * kappa, (1 - mean) * kappa))
    else:
        threshold = mean + stats.norm.ppf(level) * np.sqrt(var)
    return StoppingRule(rule, float(threshold), ell, mean, var, a, b)
