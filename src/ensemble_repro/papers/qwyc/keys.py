"""The config keys each QWYC rule reads (:mod:`ensemble_repro.rule_keys` explains the lists)."""

from __future__ import annotations

from ..paper import SEED, union

#: The [I] switches written into every QWYC row (:func:`.cells.switches`).
SWITCHES = (
    "qwyc.budget_rule",
    "qwyc.side_split",
    "qwyc.tie_break",
    "qwyc.fit_on",
    "qwyc.decision_threshold",
    "qwyc.fan.n_bins",
    "qwyc.fan.bin_kind",
    "qwyc.fan.stats_on_survivors",
    "qwyc.fan.min_bin_count",
    "qwyc.fan.score",
    "qwyc.gbt.min_samples_leaf",
)
_MODEL = SEED + (
    "qwyc.gbt.n_estimators",
    "qwyc.gbt.max_depth.{qwyc_data}",
    "qwyc.gbt.learning_rates",
    "qwyc.gbt.validation_fraction",
    "qwyc.gbt.min_samples_leaf",
    "qwyc.gbt.importance_trees",
    "qwyc.nomao_n_features",
    "qwyc.nomao_test_fraction",
    "qwyc.smaller_ensembles",
    "qwyc.decision_threshold",
    "qwyc.n_splits",
)
_GRIDS = ("qwyc.alpha_grid", "qwyc.fan.gamma_grid")
_SWEEP = SEED + SWITCHES + _GRIDS + ("qwyc.n_random_orders",)
_TIMING = ("qwyc.timing.runs", "qwyc.timing.target_differences")
_APPROXIMATION = (
    "qwyc.approximation.n_models",
    "qwyc.approximation.trees_per_model",
    "qwyc.approximation.n_ensembles",
    "qwyc.approximation.n_rows",
)

RULE_KEYS = {
    "qwyc_model": _MODEL,
    "qwyc_sweep": _SWEEP,
    "qwyc_figure": union(_MODEL, _SWEEP),
    "qwyc_sensitivity": union(_MODEL, SEED, SWITCHES, _GRIDS),
    "qwyc_sensitivity_figure": ("qwyc.fit_on", "qwyc.budget_rule"),
    "qwyc_timing": union(_MODEL, _SWEEP, _TIMING),
    "qwyc_refits": union(_MODEL, _SWEEP, ("qwyc.n_refits", "qwyc.timing.target_differences")),
    "qwyc_approximation": union(_MODEL, SEED, SWITCHES, _APPROXIMATION),
    "qwyc_paper_vs_ours": union(
        SWITCHES,
        _GRIDS,
        ("qwyc.timing.target_differences",),
        ("qwyc.gbt.n_estimators", "qwyc.sensitivity"),
    ),
    "qwyc_claims": ("qwyc.datasets", "qwyc.gbt.n_estimators", "qwyc.timing.target_differences"),
}
#: Only Nomao's split ranks features.
ONLY_WHEN = {
    k: ("qwyc_data", lambda d: d == "nomao")
    for k in ("qwyc.nomao_n_features", "qwyc.nomao_test_fraction", "qwyc.gbt.importance_trees")
}
DAG_KEYS = ("qwyc.datasets", "qwyc.orderings", "qwyc.fan.orderings", "qwyc.sensitivity")
DAG_PARAM_RULES = ("qwyc_claims",)
VERDICT_RULES = (
    "qwyc_model",
    "qwyc_sweep",
    "qwyc_sensitivity",
    "qwyc_timing",
    "qwyc_refits",
    "qwyc_approximation",
    "qwyc_claims",
)


def job_wildcards(config) -> dict[str, list]:
    """The data sets QWYC jobs run on (``{qwyc_data}``)."""
    return {"qwyc_data": list(config["qwyc"]["datasets"])}
