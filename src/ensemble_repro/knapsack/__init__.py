"""Knapsack-constrained majority-vote ensembles (Hajdu, Terdik, Tiba & Tomán 2020).

Energy (eq. 1) and efficiency (eq. 5) in :mod:`.energy`; the Beta model and stopping rule
(section IV: eqs. 25, 29, 33, Lemma IV.1) in :mod:`.beta`; selection strategies (sections
II-III, Algorithm 1) in :mod:`.strategies`; classifier pools for the UCI experiments and
synthetic pools with the paper's time profile (section IV-B) in :mod:`.pools`.
"""

from .beta import (
    MAX_ELL,
    RULES,
    SIZE_ESTIMATES,
    StoppingRule,
    affordable_size,
    fit_beta,
    poisson_size,
    q_limits,
    q_moment_curve,
    q_moments,
    stirling_maxstep,
    stopping_rule,
)
from .energy import (
    correct_count_distribution,
    efficiency,
    majority_vote_accuracy,
    max_affordable,
    q_identical,
)
from .strategies import (
    STRATEGIES,
    SelectionResult,
    exhaustive,
    greedy_backward,
    greedy_forward,
    monte_carlo,
    simulated_annealing,
    stochastic_search,
)

__all__ = [
    "MAX_ELL",
    "RULES",
    "SIZE_ESTIMATES",
    "STRATEGIES",
    "SelectionResult",
    "StoppingRule",
    "affordable_size",
    "correct_count_distribution",
    "efficiency",
    "exhaustive",
    "fit_beta",
    "greedy_backward",
    "greedy_forward",
    "majority_vote_accuracy",
    "max_affordable",
    "monte_carlo",
    "poisson_size",
    "q_identical",
    "q_limits",
    "q_moment_curve",
    "q_moments",
    "simulated_annealing",
    "stirling_maxstep",
    "stochastic_search",
    "stopping_rule",
]
