"""CPU time of the QWYC jobs (``workflow/rules/qwyc.smk``), in measured unit costs.

Work is counted in units whose CPU seconds ``benchmarks/calibrate_costs.py`` measures, with
rows = the data set's rows (all its prepared tables) and T = ``qwyc.gbt.n_estimators``:

- model job: GBT tree-rows, T x learning rates x (splits x fitting rows of a carve-out
  (:func:`.qwyc.carve_out_size`) + rows), plus Nomao's feature-ranking GBT;
- sweep: distinct fits (:func:`distinct_fits`) x grid values x repetitions
  (:func:`.qwyc.method_grid`, :func:`.qwyc.repetitions`) x the rows ordering and thresholds are
  fitted on (:func:`fitting_rows`) x T, and x T again for QWYC* and the greedy-MSE order, which
  score every remaining tree at every step (measured at the configs' T = 500, since the real
  growth is slower than T^2);
- sensitivity setting: the sweeps it reruns (:func:`.names.sensitivity_methods`) under its
  switches (:func:`.qwyc.sensitivity_config`);
- refits: per refitted method, refits x operating points x rows x T (x T);
- timing: distinct fits of QWYC* x runs x rows x T;
- approximation: the fitting rows scored by the T trees (a timing pass), then per draw the
  exhaustive search's candidate-row evaluations, at most e x n_models! x n_rows, priced as
  Algorithm 1's (which scores every remaining model over the surviving rows at every step).

Figures, the paper-vs-ours page and the claims are light jobs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...cost.basic import light, started
from ...cost.dag import Job
from ...cost.units import UnitCosts
from ...data.catalog import prepared_names_for
from .cells import (
    carve_out_size,
    draws_per_split,
    fit_key,
    method_grid,
    repetitions,
    sensitivity_config,
)
from .names import (
    CROSSFIT,
    FAN_STAR,
    QWYC_STAR,
    REFIT_METHODS,
    qwyc_method_names,
    sensitivity_methods,
)


def rows_of(dataset: str, units: UnitCosts) -> float:
    """Rows of a QWYC data set: those of its prepared tables (Adult: train and test)."""
    return sum(units.get("rows", t) for t in prepared_names_for([dataset]))


def model_work(dataset: str, q: Mapping, rows: float) -> float:
    """GBT tree x row count of the model job: per carve-out the learning-rate search on its
    fitting rows, the GBT of every rate refitted on all training rows, Nomao's ranking GBT."""
    g = q["gbt"]
    fit_rows = rows - carve_out_size(rows, q)
    trees = g["n_estimators"] * len(g["learning_rates"]) * (q["n_splits"] * fit_rows + rows)
    if dataset == "nomao":
        trees += g["importance_trees"] * rows
    return trees


def sweep_unit(method: str) -> str:
    """The measured sweep kind a method's cost follows (``qwyc_sweep`` unit key)."""
    if method in (QWYC_STAR, "qwyc_greedy_mse", CROSSFIT):
        return QWYC_STAR
    return FAN_STAR if method.startswith("fan") else "qwyc_natural"


def distinct_fits(method: str, q: Mapping) -> int:
    """At most how many fits a sweep of ``method`` makes over the splits: splits of equal
    :func:`.qwyc.fit_key` share one unless the method draws per split; a split's validated
    learning rate may be any of ``qwyc.gbt.learning_rates`` (a fixed ``learning_rate``: that).

    Examples
    --------
    >>> q = {"n_splits": 5, "fit_on": "train_full", "gbt": {"learning_rates": [0.02, 0.1]}}
    >>> distinct_fits("qwyc_joint", q), distinct_fits("qwyc_random", q)
    (2, 5)
    >>> distinct_fits("qwyc_joint", {**q, "fit_on": "train"})
    5
    """
    n = q["n_splits"]
    if draws_per_split(method):
        return n
    rates = [q["learning_rate"]] if q.get("learning_rate") else q["gbt"]["learning_rates"]
    return min(n, len({fit_key(q, s, r) for s in range(n) for r in rates}))


def fitting_rows(rows: float, q: Mapping) -> float:
    """Rows ordering and thresholds are fitted on under ``q['fit_on']``: all of them, a
    carve-out's fitting rows or its validation rows (:func:`.qwyc.carve_out_size`)."""
    n_val = carve_out_size(rows, q)
    return {"train_full": rows, "train": rows - n_val, "validation": n_val}[q["fit_on"]]


def _power(method: str) -> int:
    return 2 if sweep_unit(method) == QWYC_STAR else 1


def sweep_work(method: str, q: Mapping, rows: float) -> float:
    """Work of one sweep (module docstring); ``q`` with a sensitivity setting's switches for
    its reruns."""
    T = q["gbt"]["n_estimators"]
    grid = method_grid(method, q)[1]
    fits = distinct_fits(method, q) * len(grid) * repetitions(method, q)
    return fits * fitting_rows(rows, q) * T ** _power(method)


def refit_work(method: str, q: Mapping, rows: float) -> float:
    """Work of one method in the refit job: ``n_refits`` refits on the main fit's rows, each at
    the operating points the claims judge (at most one per timing target level and the
    lowest-differences point, :func:`.qwyc.refit_points`)."""
    T = q["gbt"]["n_estimators"]
    points = min(len(method_grid(method, q)[1]), len(q["timing"]["target_differences"]) + 1)
    return q["n_refits"] * points * rows * T ** _power(method)


def _sweep_seconds(units: UnitCosts, dataset: str, method: str, work: float) -> float:
    return work * units.get("qwyc_sweep", f"{dataset}/{sweep_unit(method)}")


def model(job: Job, config: Mapping, units: UnitCosts) -> float:
    """The model job: :func:`model_work` GBT tree-rows."""
    d, q = job.wildcards["qwyc_data"], config["qwyc"]
    return started(units, model_work(d, q, rows_of(d, units)) * units.get("qwyc_gbt", d))


def sweep(job: Job, config: Mapping, units: UnitCosts) -> float:
    """One method's sweep (:func:`sweep_work`)."""
    d, m, q = job.wildcards["qwyc_data"], job.wildcards["qwyc_method"], config["qwyc"]
    return started(units, _sweep_seconds(units, d, m, sweep_work(m, q, rows_of(d, units))))


def sensitivity(job: Job, config: Mapping, units: UnitCosts) -> float:
    """One sensitivity setting: the sweeps it reruns under its switches."""
    d, setting = job.wildcards["qwyc_data"], job.wildcards["qwyc_setting"]
    q, rows = sensitivity_config(config["qwyc"], setting), rows_of(d, units)
    work = sum(
        _sweep_seconds(units, d, m, sweep_work(m, q, rows)) for m in sensitivity_methods(setting)
    )
    return started(units, work)


def refits(job: Job, config: Mapping, units: UnitCosts) -> float:
    """The refit job: :func:`refit_work` of each refitted method the config sweeps."""
    d, q = job.wildcards["qwyc_data"], config["qwyc"]
    rows, methods = rows_of(d, units), qwyc_method_names(q)
    work = sum(
        _sweep_seconds(units, d, m, refit_work(m, q, rows)) for m in REFIT_METHODS if m in methods
    )
    return started(units, work)


def timing(job: Job, config: Mapping, units: UnitCosts) -> float:
    """The timing job: every distinct fit timed ``timing.runs`` times over the rows."""
    d, q = job.wildcards["qwyc_data"], config["qwyc"]
    passes = distinct_fits(QWYC_STAR, q) * q["timing"]["runs"] * rows_of(d, units)
    return started(units, passes * q["gbt"]["n_estimators"] * units.get("qwyc_timing", d))


def approximation(job: Job, config: Mapping, units: UnitCosts) -> float:
    """The approximation job: one pass of the trees over the rows, then the searches."""
    d, q = job.wildcards["qwyc_data"], config["qwyc"]
    a = q["approximation"]
    score = rows_of(d, units) * q["gbt"]["n_estimators"] * units.get("qwyc_timing", d)
    search = a["n_ensembles"] * math.e * math.factorial(a["n_models"]) * a["n_rows"]
    return started(units, score + search * units.get("qwyc_sweep", f"{d}/{QWYC_STAR}"))


#: Cost function of each QWYC rule.
COSTS = {
    "qwyc_model": model,
    "qwyc_sweep": sweep,
    "qwyc_sensitivity": sensitivity,
    "qwyc_refits": refits,
    "qwyc_timing": timing,
    "qwyc_approximation": approximation,
    **dict.fromkeys(
        ("qwyc_figure", "qwyc_sensitivity_figure", "qwyc_paper_vs_ours", "qwyc_claims"), light
    ),
}
