"""The config keys each J+aB rule reads (:mod:`ensemble_repro.rule_keys` explains the lists)."""

from __future__ import annotations

from ..paper import SEED, union

_TRIALS = ("jab.alpha", "jab.trial_seed_base", "jab.max_test_points", "jab.n_trials")
_MAIN = SEED + _TRIALS + ("jab.main.n", "jab.main.n_resamples", "jab.aggregations")
_JPLUS = SEED + _TRIALS + ("jab.main.n",)
_FVR = (
    SEED
    + _TRIALS
    + ("jab.fixed_vs_random.n", "jab.fixed_vs_random.n_resamples", "jab.aggregations")
)
_COLLECT = union(_MAIN, _JPLUS, _FVR)  # the without-replacement cells: _MAIN
_FIGURES = (
    "jab.datasets",
    "jab.learners",
    "jab.aggregations",
    "jab.n_trials",
    "jab.alpha",
    "jab.main.n",
    "jab.fixed_vs_random.n",
)

RULE_KEYS = {
    "jab_main_cell": _MAIN,
    "jab_jplus_cell": _JPLUS,
    "jab_fixed_vs_random_cell": _FVR,
    "jab_without_replacement_cell": _MAIN,
    "jab_collect": _COLLECT,
    "jab_figures": _FIGURES,
    "jab_tables": union(_COLLECT, _FIGURES, ("jab.timing_m_ratio",)),
    "jab_claims": SEED + ("jab.alpha", "jab.datasets", "jab.aggregations", "jab.timing_m_ratio"),
}
DAG_KEYS = (
    "jab.datasets",
    "jab.learners",
    "jab.main.m_ratios",
    "jab.fixed_vs_random.enabled",
    "jab.fixed_vs_random.m_ratios",
    "jab.without_replacement.enabled",
    "jab.without_replacement.m_ratios",
)
#: The figure ids and the data sets left out are params taken from the job list.
DAG_PARAM_RULES = ("jab_figures", "jab_tables", "jab_claims")
VERDICT_RULES = (
    "jab_main_cell",
    "jab_jplus_cell",
    "jab_fixed_vs_random_cell",
    "jab_without_replacement_cell",
    "jab_collect",
    "jab_claims",
)
