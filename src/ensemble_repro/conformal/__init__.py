"""Jackknife+-after-bootstrap and the jackknife+ baselines (Kim, Xu & Barber 2020).

Estimators: :class:`JackknifePlusAfterBootstrap` (J+aB, Algorithm 2; minmax, Appendix C),
:class:`JackknifePlusEnsemble` (J+ensemble, Algorithm 4), :class:`JackknifePlus`
(J+non-ensemble, Algorithm 5). Numeric core: :mod:`ensemble_repro.conformal.core` (compiled
kernels in :mod:`.kernels`); input checks: :mod:`.validation`. ``__all__`` is the public API;
the checks, seeding and warm-up helpers stay in their modules.
"""

from .core import (
    AGGREGATIONS,
    METHODS,
    aggregate,
    binomial_probability,
    draw_n_resamples,
    draw_resamples,
    in_bag_mask,
    interval,
    jab_interval,
    loo_aggregate,
    minmax_interval,
    oob_aggregate,
    oob_self_aggregate,
    paper_n_resamples,
    plus_interval,
    quantile_ranks,
)
from .estimators import (
    JackknifePlus,
    JackknifePlusAfterBootstrap,
    JackknifePlusEnsemble,
    fit_models,
    loo_predictions,
    loo_resamples,
    predict_models,
    predict_out_of_bag,
)

__all__ = [
    "AGGREGATIONS",
    "METHODS",
    "JackknifePlus",
    "JackknifePlusAfterBootstrap",
    "JackknifePlusEnsemble",
    "aggregate",
    "binomial_probability",
    "draw_n_resamples",
    "draw_resamples",
    "fit_models",
    "in_bag_mask",
    "interval",
    "jab_interval",
    "loo_aggregate",
    "loo_predictions",
    "loo_resamples",
    "minmax_interval",
    "oob_aggregate",
    "oob_self_aggregate",
    "paper_n_resamples",
    "plus_interval",
    "predict_models",
    "predict_out_of_bag",
    "quantile_ranks",
]
