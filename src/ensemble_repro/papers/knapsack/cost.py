"""CPU time of the knapsack jobs (``workflow/rules/knapsack.smk``), in measured unit costs.

- pool build: rows x seconds per row (one fit per member; the training times the selection
  reads are the committed measured costs), ``pool_timing_repeats`` times over when the
  ``knapsack_costs`` target measures them;
- selection: energy evaluations x pool size (an evaluation scores a subset of the pool), the
  evaluations summed over the job's plans (:func:`.knapsack.selection_plans`): budgets x seeds
  x MAXSTEP x searches x stopping-rule variants (:func:`.knapsack.rule_variants`), an upper
  bound: stopped runs end earlier;
- examples: Monte Carlo draws of the adversarial example (:func:`.knapsack.adversarial_plans`).

The summary, the claims and installing measured costs are light jobs.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...cost.basic import light, started
from ...cost.dag import Job
from ...cost.units import UnitCosts
from .cells import EQ29, SEARCHES, adversarial_plans, rule_variants, selection_plans
from .names import synthetic_size


def selection_evaluations(k: Mapping, uci: bool) -> int:
    """Energy evaluations of one pool's selection job (a UCI pool's or a synthetic one's), at
    most: each plan's budgets x seeds x MAXSTEP x searches x rule variants (MAXSTEP eq29:
    its cap, ``maxstep_bounds.cap``)."""
    total = 0
    for _setting, _kind, plan, options in selection_plans(k, uci):
        searches = len(options.get("searches", SEARCHES)) * len(rule_variants(plan))
        steps = plan["maxstep_bounds"]["cap"] if plan["MAXSTEP"] == EQ29 else plan["MAXSTEP"]
        total += len(plan["budget_multiples"]) * plan["n_seeds"] * steps * searches
    return total


def adversarial_draws(k: Mapping) -> int:
    """Evaluations of the adversarial example: pool sizes x searches x seeds x evaluations."""
    adv = k["adversarial"]
    return len(adv["sizes"]) * len(adversarial_plans(adv)) * adv["n_seeds"] * adv["evaluations"]


def pool(job: Job, config: Mapping, units: UnitCosts) -> float:
    """A UCI pool's build."""
    d = job.wildcards["kn_data"]
    return started(units, units.get("rows", d) * units.get("knapsack_pool", d))


def measure_costs(job: Job, config: Mapping, units: UnitCosts) -> float:
    """A UCI pool's training times, each member fitted ``pool_timing_repeats`` times."""
    d, repeats = job.wildcards["kn_data"], config["knapsack"]["pool_timing_repeats"]
    return started(units, repeats * units.get("rows", d) * units.get("knapsack_pool", d))


def select(job: Job, config: Mapping, units: UnitCosts) -> float:
    """One pool's selection job: :func:`selection_evaluations` x its members."""
    size = synthetic_size(job.wildcards["kn_pool"])
    members = units.get("pool_size", "uci") if size is None else size
    evaluations = selection_evaluations(config["knapsack"], uci=size is None)
    return started(units, evaluations * members * units.get("knapsack_eval"))


def examples(job: Job, config: Mapping, units: UnitCosts) -> float:
    """The worked example, the adversarial pool and the size estimates."""
    return started(units, adversarial_draws(config["knapsack"]) * units.get("knapsack_mc_draw"))


#: Cost function of each knapsack rule.
COSTS = {
    "knapsack_examples": examples,
    "knapsack_pool": pool,
    "knapsack_measure_costs": measure_costs,
    "knapsack_select": select,
    **dict.fromkeys(("knapsack_summary", "knapsack_claims", "knapsack_costs"), light),
}
