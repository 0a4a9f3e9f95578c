"""Names shared by the workflow rules and the experiment modules, defined once.

Paper figure and table ids, method lists and output names: the rules (``workflow/rules/*.smk``)
import them to build their job lists and output paths, the experiment modules to label what
they write. Kept free of numeric imports so that parsing the workflow stays fast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import ConfigError

# ---------------------------------------------------------------- J+aB (Kim, Xu & Barber 2020)
#: Paper figure numbers: (grid, aggregation, metric) -> figure id.
JAB_FIGURES = {
    ("main", "mean", "coverage"): "1",
    ("main", "mean", "mean_width"): "2",
    ("main", "median", "coverage"): "S1",
    ("main", "median", "mean_width"): "S2",
    ("main", "trimmed_mean", "coverage"): "S3",
    ("main", "trimmed_mean", "mean_width"): "S4",
    ("fixed_vs_random", "mean", "coverage"): "S5",
    ("fixed_vs_random", "mean", "mean_width"): "S6",
    ("fixed_vs_random", "median", "coverage"): "S7",
    ("fixed_vs_random", "median", "mean_width"): "S8",
    ("fixed_vs_random", "trimmed_mean", "coverage"): "S9",
    ("fixed_vs_random", "trimmed_mean", "mean_width"): "S10",
}
#: Paper tables: data set -> table id (wall clock, Tables S1-S3).
JAB_TABLES = {"meps": "S1", "blog": "S2", "communities": "S3"}


def jab_figure_ids(aggregations, fixed_vs_random: bool) -> list[str]:
    """Ids of the figures a J+aB run draws: the configured aggregations' figures, and the
    fixed-vs-random ones (S5-S10) only when that grid runs; in the paper's order."""
    grids = ("main", "fixed_vs_random") if fixed_vs_random else ("main",)
    return [
        fid for (grid, agg, _), fid in JAB_FIGURES.items() if grid in grids and agg in aggregations
    ]


def jab_figure_name(fid: str) -> str:
    """File stem of a J+aB figure (``figure_<id>``, written as .pdf and .png)."""
    return f"figure_{fid}"


def jab_table_name(dataset: str) -> str:
    """File stem of a J+aB wall-clock table (``table_<id>_<data set>``, .csv and .md)."""
    return f"table_{JAB_TABLES[dataset]}_{dataset}"


# ---------------------------------------------------------------- QWYC (Wang, Gupta & You 2018)
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


def check_qwyc_methods(q: Mapping[str, Any], source: str = "the config file") -> None:
    """Raise :class:`~ensemble_repro.config.ConfigError` unless the sweeps include Fan* and
    every ``learning_rate_<r>`` sensitivity setting names a rate of ``qwyc.gbt.learning_rates``.

    The timing table and the paper-vs-ours claims compare QWYC* with Fan*, so
    ``qwyc.fan.orderings`` must list ``individual_mse`` (QWYC* always runs).
    """
    rates = [float(r) for r in q["gbt"]["learning_rates"]]
    for s in q["sensitivity"]:
        if s.startswith("learning_rate_") and float(s.removeprefix("learning_rate_")) not in rates:
            raise ConfigError(
                f"Invalid configuration:\n  - config value qwyc.sensitivity lists {s!r}, but "
                f"{s.removeprefix('learning_rate_')} is not in qwyc.gbt.learning_rates = {rates} "
                f"(only those rates are refitted on all training rows). Use one of "
                f"{', '.join(f'learning_rate_{r:g}' for r in rates)} in {source}."
            )
    if FAN_STAR not in qwyc_method_names(q):
        raise ConfigError(
            "Invalid configuration:\n  - config value qwyc.fan.orderings = "
            f"{list(q['fan']['orderings'])!r} lacks individual_mse: Fan* (Fan et al. on the "
            "individual-MSE ordering) is the baseline of the QWYC timing table and claims. "
            f"Add individual_mse to qwyc.fan.orderings in {source}."
        )


# ---------------------------------------------------------------- knapsack (Hajdu et al. 2020)
#: Pool names of the synthetic Beta pools: ``synthetic_n<size>``.
SYNTHETIC_PREFIX = "synthetic_n"


def synthetic_size(pool: str) -> int | None:
    """Members of a synthetic pool (``synthetic_n<size>``); None for a UCI data set's pool.

    Examples
    --------
    >>> synthetic_size("synthetic_n20"), synthetic_size("sonar")
    (20, None)
    """
    return int(pool.removeprefix(SYNTHETIC_PREFIX)) if pool.startswith(SYNTHETIC_PREFIX) else None


#: Measured training-time costs of each UCI pool, relative to the repository root: an input,
#: committed, written only by the deliberate ``knapsack_costs`` target
#: (:mod:`ensemble_repro.experiments.knapsack_costs`).
KNAPSACK_COSTS = "config/knapsack_costs/{kn_data}.csv"
#: Where the ``knapsack_costs`` target's measurements land before they are installed.
KNAPSACK_MEASURED_COSTS = "results/knapsack/costs/{kn_data}.csv"
#: Tables of the knapsack summary: name -> (file stem, Markdown title). Each is written as
#: <stem>.csv (with a provenance sidecar) and <stem>.md.
KNAPSACK_TABLES = {
    "summary": ("selection_summary", "Selection strategies: mean over seeds"),
    "savings": ("stopping_savings", "Evaluations saved by the stopping rule"),
    "levels": (
        "stopping_levels",
        "Stopping rule: evaluations saved vs accuracy lost per STOP level",
    ),
    "rule_check": ("stopping_rule_check", "Stopping threshold vs greedy start and optimum"),
    "costs": ("cost_model", "FLOP cost model vs measured training time"),
    "beta_fit": ("beta_fit", "Beta law fitted to each UCI pool's member accuracies"),
}


# ---------------------------------------------------------------- benchmark files
#: The ``benchmark:`` file of each rule that declares one, formatted with the job's wildcards
#: (the rules take it from here; ``ensemble_repro.estimate`` reads the measured CPU time back).
BENCHMARKS = {
    "prepare": "results/benchmarks/data/prepare/{name}.tsv",
    "jab_main_cell": "results/benchmarks/jab/main/{jab_data}_{jab_learner}_m{jab_m}.tsv",
    "jab_jplus_cell": "results/benchmarks/jab/jplus/{jab_data}_{jab_learner}.tsv",
    "jab_fixed_vs_random_cell": (
        "results/benchmarks/jab/fixed_vs_random/{jab_data}_{jab_learner}_m{jab_m}.tsv"
    ),
    "jab_without_replacement_cell": (
        "results/benchmarks/jab/without_replacement/{jab_data}_{jab_learner}_m{jab_m}.tsv"
    ),
    "qwyc_model": "results/benchmarks/qwyc/model/{qwyc_data}.tsv",
    "qwyc_sweep": "results/benchmarks/qwyc/sweep/{qwyc_data}_{qwyc_method}.tsv",
    "qwyc_sensitivity": "results/benchmarks/qwyc/sensitivity/{qwyc_data}_{qwyc_setting}.tsv",
    "qwyc_timing": "results/benchmarks/qwyc/timing/{qwyc_data}.tsv",
    "qwyc_refits": "results/benchmarks/qwyc/refits/{qwyc_data}.tsv",
    "knapsack_examples": "results/benchmarks/knapsack/examples.tsv",
    "knapsack_pool": "results/benchmarks/knapsack/pool/{kn_data}.tsv",
    "knapsack_measure_costs": "results/benchmarks/knapsack/costs/{kn_data}.tsv",
    "knapsack_select": "results/benchmarks/knapsack/select/{kn_pool}.tsv",
    "knapsack_summary": "results/benchmarks/knapsack/summary.tsv",
}
