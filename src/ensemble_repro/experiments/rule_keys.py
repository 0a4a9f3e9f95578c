"""Which config keys each workflow rule reads: its ``params``, and so its rerun triggers.

Every rule passes ``config_params(*job_keys(rule, wildcards))`` (``workflow/rules/common.smk``)
as ``params``, and its script reads the config only from there: Snakemake then reruns a job
when, and only when, a value it reads changes. A dotted key names a value or a whole section
(``knapsack.sa``); ``{qwyc_data}`` stands for the job's data set. Table rules list the keys of
the rules upstream of them too, so that their provenance sidecars (written from these params)
name everything that made the table. ``tests/test_rerun_triggers.py`` checks these lists
against dry runs for every key of the smoke config.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from .names import SYNTHETIC_PREFIX


def _union(*groups) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for g in groups for k in g))


SEED = ("seed",)

# ---------------------------------------------------------------- J+aB
_JAB_TRIALS = ("jab.alpha", "jab.trial_seed_base", "jab.max_test_points", "jab.n_trials")
_JAB_MAIN = SEED + _JAB_TRIALS + ("jab.main.n", "jab.main.n_resamples", "jab.aggregations")
_JAB_JPLUS = SEED + _JAB_TRIALS + ("jab.main.n",)
_JAB_FVR = (
    SEED
    + _JAB_TRIALS
    + ("jab.fixed_vs_random.n", "jab.fixed_vs_random.n_resamples", "jab.aggregations")
)
_JAB_COLLECT = _union(_JAB_MAIN, _JAB_JPLUS, _JAB_FVR)  # the without-replacement cells: _JAB_MAIN
_JAB_FIGURES = (
    "jab.datasets",
    "jab.learners",
    "jab.aggregations",
    "jab.n_trials",
    "jab.alpha",
    "jab.main.n",
    "jab.fixed_vs_random.n",
)

# ---------------------------------------------------------------- QWYC
#: The [I] switches written into every QWYC row (``experiments.qwyc.switches``).
_QWYC_SWITCHES = (
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
_QWYC_MODEL = SEED + (
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
_QWYC_GRIDS = ("qwyc.alpha_grid", "qwyc.fan.gamma_grid")
_QWYC_SWEEP = SEED + _QWYC_SWITCHES + _QWYC_GRIDS + ("qwyc.n_random_orders",)
_QWYC_TIMING = ("qwyc.timing.runs", "qwyc.timing.target_differences")

# ---------------------------------------------------------------- knapsack
_KN_POOL = SEED + ("knapsack.split",)
_KN_COSTS = _KN_POOL + ("knapsack.pool_timing_repeats",)
_KN_SEARCH = ("knapsack.majority", "knapsack.sa", "knapsack.stochastic_evaluate")
_KN_SELECT = (
    SEED
    + _KN_SEARCH
    + (
        "knapsack.n_seeds",
        "knapsack.cost",
        "knapsack.cost_sensitivity",
        "knapsack.budget_multiples",
        "knapsack.synthetic.beta_a",
        "knapsack.synthetic.beta_b",
        "knapsack.synthetic.costs",
        "knapsack.exhaustive_max_n",
        "knapsack.greedy_step",
        "knapsack.stop_rules",
        "knapsack.beta_fit",
        "knapsack.size_estimate",
        "knapsack.tail_law",
        "knapsack.MAXSTEP",
        "knapsack.mc_sampler",
        "knapsack.sa_init_check",
    )
)
#: Section II-IV tables of knapsack_examples beyond the adversarial pool: Propositions II.1-4
#: (greedy settings) and the eq. (22) / (33) size estimates (synthetic pools and budgets).
_KN_EXAMPLES = (
    SEED
    + _KN_SEARCH
    + (
        "knapsack.adversarial",
        "knapsack.greedy_step",
        "knapsack.beta_fit",
        "knapsack.budget_multiples",
        "knapsack.size_draws",
        "knapsack.synthetic.sizes",
        "knapsack.synthetic.beta_a",
        "knapsack.synthetic.beta_b",
    )
)


def _synthetic(pool: str) -> bool:
    return pool.startswith(SYNTHETIC_PREFIX)


#: Keys only some jobs of a rule read: key -> (wildcard, test of its value). A UCI pool's
#: selection reads the cost kind, a synthetic pool its generator; only Nomao's split ranks
#: features.
_ONLY_WHEN = {
    **{
        k: ("kn_pool", lambda p: not _synthetic(p))
        for k in ("knapsack.cost", "knapsack.cost_sensitivity")
    },
    **{f"knapsack.synthetic.{k}": ("kn_pool", _synthetic) for k in ("beta_a", "beta_b", "costs")},
    **{
        k: ("qwyc_data", lambda d: d == "nomao")
        for k in ("qwyc.nomao_n_features", "qwyc.nomao_test_fraction", "qwyc.gbt.importance_trees")
    },
}

#: Rule -> the config keys its jobs read (a job may read fewer: :func:`job_keys`).
RULE_KEYS: dict[str, tuple[str, ...]] = {
    "fetch": (),
    "prepare": (),
    "jab_main_cell": _JAB_MAIN,
    "jab_jplus_cell": _JAB_JPLUS,
    "jab_fixed_vs_random_cell": _JAB_FVR,
    "jab_without_replacement_cell": _JAB_MAIN,
    "jab_collect": _JAB_COLLECT,
    "jab_figures": _JAB_FIGURES,
    "jab_tables": _union(_JAB_COLLECT, _JAB_FIGURES, ("jab.timing_m_ratio",)),
    "qwyc_model": _QWYC_MODEL,
    "qwyc_sweep": _QWYC_SWEEP,
    "qwyc_figure": _union(_QWYC_MODEL, _QWYC_SWEEP),
    "qwyc_sensitivity": _union(_QWYC_MODEL, SEED, _QWYC_SWITCHES, _QWYC_GRIDS),
    "qwyc_sensitivity_figure": ("qwyc.fit_on", "qwyc.budget_rule"),
    "qwyc_timing": _union(_QWYC_MODEL, _QWYC_SWEEP, _QWYC_TIMING),
    "qwyc_refits": _union(
        _QWYC_MODEL, _QWYC_SWEEP, ("qwyc.n_refits", "qwyc.timing.target_differences")
    ),
    "qwyc_paper_vs_ours": _union(
        _QWYC_SWITCHES,
        _QWYC_GRIDS,
        ("qwyc.timing.target_differences",),
        ("qwyc.gbt.n_estimators", "qwyc.sensitivity"),
    ),
    "knapsack_examples": _KN_EXAMPLES,
    "knapsack_pool": _KN_POOL,
    "knapsack_measure_costs": _KN_COSTS,
    "knapsack_costs": (),
    "knapsack_select": _KN_SELECT,
    "knapsack_summary": _union(
        _KN_POOL, _KN_SELECT, _KN_EXAMPLES, ("knapsack.adversarial.evaluations",)
    ),
    # verdicts (ensemble_repro.claims): what the evaluators read beyond their input tables
    "jab_claims": ("jab.alpha", "jab.datasets", "jab.aggregations", "jab.timing_m_ratio"),
    "qwyc_claims": ("qwyc.datasets", "qwyc.gbt.n_estimators", "qwyc.timing.target_differences"),
    "knapsack_claims": (
        "seed",
        "knapsack.datasets",
        "knapsack.mc_sampler",
        "knapsack.stop_rules",
        "knapsack.adversarial.evaluations",
    ),
    "paper_vs_ours": (),
    "verdict_forest": (),
    "results_index": (),
}

#: Keys read only to build the job list: changing one adds or removes jobs (and reruns the
#: jobs that gather them), and reruns no existing job of a rule that does not read it.
DAG_KEYS = (
    "experiments.jab",
    "experiments.qwyc",
    "experiments.knapsack",
    "data.require_all",
    "jab.datasets",
    "jab.learners",
    "jab.main.m_ratios",
    "jab.fixed_vs_random.enabled",
    "jab.fixed_vs_random.m_ratios",
    "jab.without_replacement.enabled",
    "jab.without_replacement.m_ratios",
    "qwyc.datasets",
    "qwyc.orderings",
    "qwyc.fan.orderings",
    "qwyc.sensitivity",
    "knapsack.datasets",
    "knapsack.synthetic.sizes",
)

#: Rules with params derived from the job list (J+aB figure ids and missing data sets, the
#: papers run, the output catalogue of the results index): a DAG key may change them.
DAG_PARAM_RULES = (
    "jab_figures",
    "jab_tables",
    "jab_claims",
    "qwyc_claims",
    "knapsack_claims",
    "paper_vs_ours",
    "results_index",
)

#: Each paper's claims rule and every rule whose outputs its verdicts are computed from
#: (``tests/test_hardening_scale.py`` checks them against the rule graph): the keys they read
#: make the verdicts' scale label (:func:`verdict_keys`).
VERDICT_RULES = {
    "jab": (
        "jab_main_cell",
        "jab_jplus_cell",
        "jab_fixed_vs_random_cell",
        "jab_without_replacement_cell",
        "jab_collect",
        "jab_claims",
    ),
    "qwyc": (
        "qwyc_model",
        "qwyc_sweep",
        "qwyc_sensitivity",
        "qwyc_timing",
        "qwyc_refits",
        "qwyc_claims",
    ),
    "knapsack": (
        "knapsack_examples",
        "knapsack_pool",
        "knapsack_select",
        "knapsack_summary",
        "knapsack_claims",
    ),
}

#: How raw files are fetched. Every file is checked against its pinned sha256, so these
#: change no result and rerun nothing; the fetch jobs read them from the environment
#: (``FETCH_SETTINGS_ENV``), set when the workflow is parsed.
TRANSPORT_KEYS = (
    "data.mirror",
    "data.sources",
    "data.base_url",
    "data.timeout_seconds",
    "data.retries",
)
FETCH_SETTINGS_ENV = "ENSEMBLE_REPRO_FETCH_SETTINGS"


def job_keys(rule: str, wildcards: Mapping[str, str] | None = None) -> list[str]:
    """The config keys one job of ``rule`` reads, given its wildcards.

    Examples
    --------
    >>> job_keys("qwyc_model", {"qwyc_data": "adult"})[2]
    'qwyc.gbt.max_depth.adult'
    >>> "knapsack.cost" in job_keys("knapsack_select", {"kn_pool": "synthetic_n20"})
    False
    >>> "qwyc.nomao_n_features" in job_keys("qwyc_model", {"qwyc_data": "adult"})
    False
    """
    wildcards = dict(wildcards or {})
    keys = [k.format_map(wildcards) for k in RULE_KEYS[rule]]
    return [
        k
        for k in keys
        if k not in _ONLY_WHEN
        or _ONLY_WHEN[k][0] not in wildcards
        or _ONLY_WHEN[k][1](wildcards[_ONLY_WHEN[k][0]])
    ]


def reads(declared: str, key: str) -> bool:
    """Whether a declared key (a value or a section) covers the dotted config key ``key``."""
    return key == declared or key.startswith(declared + ".") or declared.startswith(key + ".")


def verdict_keys(paper: str, config: Mapping) -> list[str]:
    """The config keys a paper's verdicts rest on in this config: those read by the jobs of
    its :data:`VERDICT_RULES` (for the configured data sets and pools) and those shaping its
    job list (:data:`DAG_KEYS` of its section).

    A change of any of them reruns the paper's claims job (through its params or its inputs),
    so a label made from their values is never stale.

    Examples
    --------
    >>> cfg = {"qwyc": {"datasets": ["adult"]}, "knapsack": {"datasets": ["sonar"],
    ...        "synthetic": {"sizes": [20]}}}
    >>> keys = verdict_keys("qwyc", cfg)
    >>> "qwyc.gbt.max_depth.adult" in keys, "qwyc.gbt.max_depth.nomao" in keys
    (True, False)
    >>> "knapsack.cost" in verdict_keys("knapsack", cfg), "jab.alpha" in keys
    (True, False)
    """
    kn = config["knapsack"]
    pools = list(kn["datasets"]) + [f"{SYNTHETIC_PREFIX}{n}" for n in kn["synthetic"]["sizes"]]
    # every combination of the wildcard values; a wildcard without values (no pool) is left
    # out, and then every key that depends on it counts
    values = {
        w: v for w, v in {"qwyc_data": config["qwyc"]["datasets"], "kn_pool": pools}.items() if v
    }
    jobs = [dict(zip(values, combo, strict=True)) for combo in itertools.product(*values.values())]
    keys = [k for rule in VERDICT_RULES[paper] for wc in jobs for k in job_keys(rule, wc)]
    return list(_union(keys, (k for k in DAG_KEYS if k.startswith(paper + "."))))
