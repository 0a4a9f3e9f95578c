"""Names of the QWYC methods and outputs (Wang, Gupta & You 2018, Section 5; Fan et al. 2002):
the method ids of the sweeps, the sensitivity and refit sets, the config check over them, and
the benchmark file of each rule.

The rules (``workflow/rules/qwyc.smk``) import them to build their job lists, the experiment
and claims modules to label and find what they read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...logs import paper_benchmarks

#: QWYC* (joint ordering and thresholds, Algorithm 1) and Fan* (Fan et al. on the
#: individual-MSE ordering): the two methods of the timing table and the paper's claims.
QWYC_STAR = "qwyc_joint"
FAN_STAR = "fan_individual_mse"
#: Methods timed against the full ensemble (Tables 2-4 style).
TIMING_METHODS = (FAN_STAR, QWYC_STAR)
#: QWYC* cross-fitted: Algorithm 1's ordering chosen on one half of the fitting rows, the
#: Algorithm 2 thresholds on the other half. An extension beyond the paper, run when
#: ``qwyc.orderings`` lists ``crossfit``; never one of the paper's methods in its claims.
CROSSFIT = "qwyc_crossfit"
#: Methods re-run in a sensitivity setting: QWYC*, Algorithm-2 thresholds on the natural
#: order, and Fan* (only when the setting changes what Fan depends on).
SENSITIVITY_METHODS = (QWYC_STAR, "qwyc_natural", FAN_STAR)
#: Methods refitted on ``qwyc.n_refits`` bootstrap resamples of the fitting rows (the GBT held
#: fixed): QWYC* (Algorithm 1), Algorithm 2 on the natural order and Fan*, the replicates of
#: the claims about the fitting procedure.
REFIT_METHODS = (QWYC_STAR, "qwyc_natural", FAN_STAR)
#: Smaller GBT ensembles (prefixes of the full GBT at the same learning rate): the paper's
#: baseline of Figure 1, kept per test row for the Fan*-below-smaller claim.
SMALLER_SAME_LR = "smaller_same_lr"


def setting_affects(setting: str, method: str) -> bool:
    """Whether a sensitivity setting changes a method's results: Fan's score only Fan, a
    budget rule only QWYC, every other setting (``fit_on_*``, ``learning_rate_*``) all."""
    if setting.startswith("fan_score"):
        return method.startswith("fan")
    if setting.startswith("budget_rule"):
        return method.startswith("qwyc")
    return True


def sensitivity_methods(setting: str) -> list[str]:
    """The ``SENSITIVITY_METHODS`` a sensitivity setting reruns (those it affects: all three
    for ``fit_on_*`` and ``learning_rate_*``, QWYC* and natural order for a budget rule,
    Fan* alone for Fan's score)."""
    return [m for m in SENSITIVITY_METHODS if setting_affects(setting, m)]


def qwyc_method_names(q: Mapping[str, Any]) -> list[str]:
    """Sweep methods of a ``qwyc:`` config section: QWYC*, QWYC thresholds on each fixed
    ordering, Fan on each of its orderings."""
    return [f"qwyc_{o}" for o in ["joint"] + list(q["orderings"])] + [
        f"fan_{o}" for o in q["fan"]["orderings"]
    ]


#: The ``benchmark:`` file of each QWYC rule that declares one (its ``log:`` mirrors it):
#: ``qwyc_<name>`` -> results/benchmarks/qwyc/<name>/<wildcards>.tsv.
BENCHMARKS = paper_benchmarks(
    "qwyc",
    {
        "model": "{qwyc_data}",
        "sweep": "{qwyc_data}_{qwyc_method}",
        "sensitivity": "{qwyc_data}_{qwyc_setting}",
        "timing": "{qwyc_data}",
        "refits": "{qwyc_data}",
        "approximation": "{qwyc_data}",
        "figure": "{qwyc_data}",
        "sensitivity_figure": "{qwyc_data}",
        "paper_vs_ours": "",
    },
)
