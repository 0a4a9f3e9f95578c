"""Knapsack-constrained majority-vote ensembles (Hajdu, Terdik, Tiba & Tomán 2020).

Energy (eq. 1) and efficiency (eq. 5) in :mod:`.energy`; the Beta model and stopping rule
(section IV) in :mod:`.beta`; selection strategies (sections II-III, Algorithm 1) in
:mod:`.strategies`; classifier pools for the UCI experiments in :mod:`.pools`.
"""

from .beta import StoppingRule, affordable_size, fit_beta, q_moments, stopping_rule
from .energy import (
    check_pool,
    correct_count_distribution,
    efficiency,
    majority_vote_accuracy,
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
    "STRATEGIES",
    "SelectionResult",
    "StoppingRule",
    "affordable_size",
    "check_pool",
    "correct_count_distribution",
    "efficiency",
    "exhaustive",
    "fit_beta",
    "greedy_backward",
    "greedy_forward",
    "majority_vote_accuracy",
    "monte_carlo",
    "q_identical",
    "q_moments",
    "simulated_annealing",
    "stochastic_search",
    "stopping_rule",
]
