"""The config keys each knapsack rule reads (:mod:`ensemble_repro.rule_keys` explains the
lists)."""

from __future__ import annotations

from ..paper import SEED, union
from .names import KNAPSACK_PAGE_SETTINGS, SYNTHETIC_PREFIX

_POOL = SEED + ("knapsack.split", "knapsack.member_features")
_COSTS = _POOL + ("knapsack.pool_timing_repeats",)
_SEARCH = ("knapsack.majority", "knapsack.sa", "knapsack.stochastic_evaluate")
_SELECT = (
    SEED
    + _SEARCH
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
        "knapsack.maxstep_bounds",
        "knapsack.maxstep_sensitivity",
        "knapsack.mc_sampler",
        "knapsack.sa_init_check",
    )
)
#: Section II-IV tables of knapsack_examples beyond the adversarial pool: Propositions II.1-4
#: (greedy settings) and the eq. (22) / (33) size estimates (synthetic pools and budgets).
_EXAMPLES = (
    SEED
    + _SEARCH
    + (
        "knapsack.adversarial",
        "knapsack.greedy_step",
        "knapsack.beta_fit",
        "knapsack.budget_multiples",
        "knapsack.size_draws",
        "knapsack.synthetic.sizes",
        "knapsack.synthetic.beta_a",
        "knapsack.synthetic.beta_b",
        "knapsack.small_pools",
        "knapsack.size_estimate",
        "knapsack.maxstep_bounds.floor",
    )
)

RULE_KEYS = {
    "knapsack_examples": _EXAMPLES,
    "knapsack_pool": _POOL,
    "knapsack_measure_costs": _COSTS,
    "knapsack_costs": (),
    "knapsack_select": _SELECT,
    "knapsack_summary": union(_POOL, _SELECT, _EXAMPLES, ("knapsack.adversarial.evaluations",)),
    "knapsack_claims": union(
        (
            "seed",
            "knapsack.datasets",
            "knapsack.mc_sampler",
            "knapsack.stop_rules",
            "knapsack.adversarial.evaluations",
            "knapsack.small_pools.seeds",
        ),
        # its numbers page (paper_vs_ours.md) names the settings
        (f"knapsack.{k}" for k in KNAPSACK_PAGE_SETTINGS),
    ),
}


def _synthetic(pool: str) -> bool:
    return pool.startswith(SYNTHETIC_PREFIX)


#: A UCI pool's selection reads the cost kind, a synthetic pool its generator.
ONLY_WHEN = {
    **{
        k: ("kn_pool", lambda p: not _synthetic(p))
        for k in ("knapsack.cost", "knapsack.cost_sensitivity")
    },
    **{f"knapsack.synthetic.{k}": ("kn_pool", _synthetic) for k in ("beta_a", "beta_b", "costs")},
}
DAG_KEYS = ("knapsack.datasets", "knapsack.synthetic.sizes")
DAG_PARAM_RULES = ("knapsack_claims",)
VERDICT_RULES = (
    "knapsack_examples",
    "knapsack_pool",
    "knapsack_select",
    "knapsack_summary",
    "knapsack_claims",
)


def job_wildcards(config) -> dict[str, list]:
    """The pools knapsack selection jobs run on (``{kn_pool}``): the UCI data sets, then the
    synthetic pools."""
    kn = config["knapsack"]
    return {
        "kn_pool": list(kn["datasets"])
        + [f"{SYNTHETIC_PREFIX}{n}" for n in kn["synthetic"]["sizes"]]
    }
