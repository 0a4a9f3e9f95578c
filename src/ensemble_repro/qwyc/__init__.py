"""Quit When You Can (Wang, Gupta & You 2018) and the Fan et al. (2002) baseline.

``tree_scores`` turns a fitted gradient-boosted classifier into the score matrix F; the
estimators fit an early-exit cascade on the model's trees
(``QuitWhenYouCan(alpha, estimator=gbt).fit(X)``) or on F (``fit_scores(base, F)``);
``CascadeTimer`` evaluates cascades tree by tree in C.
"""

from .cascade import Cascade, evaluate_cascade, partial_sums
from .estimators import FanEarlyStopping, QuitWhenYouCan
from .orderings import greedy_mse_order, individual_mse_order
from .thresholds import step_thresholds
from .timing import CascadeTimer, never_stop
from .trees import FlatForest, flatten_model, sequential_sum, tree_scores

__all__ = [
    "Cascade",
    "CascadeTimer",
    "FanEarlyStopping",
    "FlatForest",
    "QuitWhenYouCan",
    "evaluate_cascade",
    "flatten_model",
    "greedy_mse_order",
    "individual_mse_order",
    "never_stop",
    "partial_sums",
    "sequential_sum",
    "step_thresholds",
    "tree_scores",
]
