"""Cost before compute: jobs, CPU-hours and wall time of a run, from measured unit costs.

The workflow prints :func:`summary_lines` at the start of every run and dry run
(``workflow/rules/common.smk``); ``make estimate`` / ``python -m ensemble_repro.estimate``
prints the table of :func:`estimate`.

Model (every job is one rule job of the Snakemake DAG, the same jobs ``snakemake -n`` lists):

- **CPU time of a job** = ``job_start`` (a Python process importing the experiment modules) +
  the work of the job x measured CPU seconds per unit of work (``unit_costs.csv``, written by
  ``benchmarks/calibrate_costs.py``: CPU time with one BLAS thread, so it holds on a loaded
  machine); a J+aB cell starts with ``jab_start`` instead (compiled kernels loaded, fit
  workers started). Collectors, figures and tables count as ``light_job``.
- **J+aB** (per trial, x ``n_trials``; m = round(ratio x n), N rows, n_test = min(N - n,
  ``max_test_points``)): main cell = J+aB's E[B] = floor(B / (p (1 - 1/n)^m)) p fits of size m,
  p = (1 - 1/(n+1))^m (Section 5), predicting n + n_test rows, plus J+ensemble's n x B fits of
  size m predicting n_test + 1 rows; J+ (non-ensemble) = n fits of size n - 1 predicting
  n_test + 1 rows; fixed-vs-random = B + floor(B / p) p fits of size m, predicting n + n_test
  rows. Seconds per fit are interpolated log-log in m between the measured sizes (constant
  beyond them); prediction = rows x models x seconds per model-row. The out-of-bag
  aggregation and the interval arithmetic are left out (they are compiled kernels, < 5% of
  a cell once models are non-trivial).
- **QWYC**: model job = GBT tree-rows (learning rates x T + the Nomao importance GBT) x rows;
  sweeps = grid points x random orders x rows x T (x T again for QWYC* and the greedy-MSE
  order, which score every remaining tree at every step; measured at the configs' T = 500,
  since the real growth is slower than T^2); sensitivity = the sweeps it reruns;
  timing = runs x rows x T.
- **Knapsack**: pool build = rows x seconds per row; selection = energy evaluations
  (budget multiples x searches x (1 + stopping rules) x seeds x MAXSTEP, an upper bound:
  stopped runs end earlier) x pool size (an evaluation scores a subset of the pool);
  examples = Monte Carlo draws of the adversarial pool.
- **This machine**: the unit costs are CPU seconds on the machine they were measured on. A
  machine calibration (:func:`machine_calibration`, well under a minute, cached per host
  name, CPU model and CPU count) times one small kernel per family of units (:data:`KERNELS`:
  job start, ridge, RF, MLP, GBT, knapsack pool, array arithmetic) and scales each family's
  units by its kernel's time here over the reference time stored beside the units
  (``kernel`` rows of ``unit_costs.csv``). :func:`core_share` (a half-second probe and the
  load average) gives the share of a core each of the run's jobs gets at the current load;
  local wall times are divided by it.
- **Wall time on c cores**: list scheduling of the DAG (a job starts when its inputs are done
  and min(threads, c) cores are free; among ready jobs the longest first), a job's duration
  its CPU time / min(threads, c) (the J+aB workers scale; nothing else is threaded).
- **On SLURM** (``workflow/profiles/slurm/config.yaml``): jobs of a group are bundled
  ``group-components`` at a time into one SLURM job of ``cores`` cores, list-scheduled inside
  it; bundles and ungrouped jobs run ``jobs`` at a time, each + ``SLURM_OVERHEAD`` seconds
  (two Snakemake start-ups); queue waits are not included.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import heapq
import itertools
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from .data.preflight import DataPlan
from .data.registry import prepared_names_for
from .experiments.names import (
    BENCHMARKS,
    FAN_STAR,
    KNAPSACK_TABLES,
    QWYC_STAR,
    REFIT_METHODS,
    TIMING_METHODS,
    jab_figure_ids,
    jab_figure_name,
    qwyc_method_names,
    sensitivity_methods,
)

#: Unit-cost table shipped with the package (``benchmarks/calibrate_costs.py`` writes it).
UNIT_COSTS = "unit_costs.csv"
#: Seconds each SLURM job adds: two Snakemake start-ups (submitting process and job), measured
#: 5-15 s on the local test cluster; queue waits are not included.
SLURM_OVERHEAD = 15.0
PAPERS = ("jab", "qwyc", "knapsack")
#: Prepared tables of each QWYC data set (as in workflow/rules/qwyc.smk).
#: Search strategies a knapsack selection runs per stopping variant and seed
#: (ensemble_repro.experiments.knapsack.SEARCHES).
KNAPSACK_SEARCHES = 3
#: Data set whose J+aB costs stand in for one never calibrated (MEPS cannot be mirrored).
JAB_FALLBACK = "blog"


@dataclass
class Job:
    """One rule job: its CPU seconds, threads, the jobs it needs and its SLURM group."""

    rule: str
    key: str
    paper: str
    cpu: float
    threads: int = 1
    needs: tuple = ()
    group: str | None = None
    wildcards: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.rule}:{self.key}" if self.key else self.rule


class UnitCosts:
    """The table of measured unit costs (columns unit, key, size, cpu_seconds, source).

    Parameters
    ----------
    path : str or Path, optional
        CSV file; the package's ``unit_costs.csv`` by default.
    calibrated : bool, default True
        Apply the per-rule ``calibration`` factors (measured / estimated CPU time of whole
        runs, :func:`calibration_rows`); False gives the bare unit-cost model.
    """

    def __init__(self, path=None, calibrated: bool = True):
        self.calibrated, self.source = calibrated, path
        if path is None:
            text = resources.files("ensemble_repro").joinpath(UNIT_COSTS).read_text()
            self.path = UNIT_COSTS
        else:
            text, self.path = Path(path).read_text(), str(path)
        self.rows = {}
        for r in csv.DictReader(text.splitlines()):
            self.rows.setdefault((r["unit"], r["key"]), []).append(
                (float(r["size"]), float(r["cpu_seconds"]))
            )
        for v in self.rows.values():
            v.sort()

    def get(self, unit: str, key: str = "") -> float:
        """CPU seconds per unit of ``unit`` for ``key`` (the only size measured)."""
        try:
            return self.rows[(unit, key)][0][1]
        except KeyError:
            raise KeyError(
                f"{self.path} has no unit cost {unit!r} for {key!r}: rerun "
                "benchmarks/calibrate_costs.py"
            ) from None

    def at(self, unit: str, key: str, size: float) -> float:
        """CPU seconds per unit at ``size``: log-log interpolation between measured sizes."""
        pts = self.rows.get((unit, key))
        if pts is None:
            self.get(unit, key)
        if size <= pts[0][0] or len(pts) == 1:
            return pts[0][1]
        if size >= pts[-1][0]:
            return pts[-1][1]
        for (s0, c0), (s1, c1) in itertools.pairwise(pts):
            if s0 <= size <= s1:
                w = math.log(size / s0) / math.log(s1 / s0)
                return math.exp((1 - w) * math.log(c0) + w * math.log(c1))
        raise AssertionError(size)

    def has(self, unit: str, key: str = "") -> bool:
        return (unit, key) in self.rows

    def factor(self, rule: str) -> float:
        """Calibration factor of ``rule``'s jobs (1 when none was measured or not calibrated)."""
        if not self.calibrated or not self.has("calibration", rule):
            return 1.0
        return self.get("calibration", rule)

    def reference_kernels(self) -> dict[str, float]:
        """CPU seconds of each machine-calibration kernel where these unit costs were measured
        (the table's ``kernel`` rows; :func:`time_kernels`)."""
        return {key: pts[0][1] for (unit, key), pts in self.rows.items() if unit == KERNEL_UNIT}

    def scaled(self, factors: dict[str, float]) -> UnitCosts:
        """These unit costs on another machine: every CPU cost times its family's factor
        (:func:`unit_family`); counts, calibration factors and kernel times unchanged.

        Parameters
        ----------
        factors : dict
            Family -> that machine's kernel time / the reference machine's
            (:meth:`MachineCalibration.factors`).

        Returns
        -------
        UnitCosts
            A copy; ``self`` is left as it is.
        """
        missing = sorted({unit_family(u, k) for u, k in self.rows} - set(factors) - {None}, key=str)
        if missing:
            raise KeyError(f"no machine factor for the unit-cost families {missing}")
        out = object.__new__(UnitCosts)
        out.calibrated, out.source, out.path = self.calibrated, self.source, self.path
        out.rows = {}
        for (unit, key), pts in self.rows.items():
            family = unit_family(unit, key)
            f = 1.0 if family is None else factors[family]
            out.rows[(unit, key)] = [(size, cpu * f) for size, cpu in pts]
        return out


# ---------------------------------------------------------------- work of one job


def resample_size(n: int, m_ratio: float) -> int:
    """m = round(n * m/n), at least 1 (as ensemble_repro.experiments.jab.resample_size)."""
    return max(1, round(n * m_ratio))


def jab_fits(kind: str, n: int, m: int, n_resamples: int, replace: bool = True) -> float:
    """Expected (J+aB or J+ensemble) fits of one trial; see the module docstring. ``replace``:
    resamples drawn with replacement, or without (the sampling sensitivity setting)."""
    p = (1.0 - 1.0 / (n + 1)) ** m if replace else 1.0 - m / (n + 1)
    if kind == "jab_loo":  # J+aB matched to J+ensemble's B per leave-one-out set (Section 5)
        excluded = (1.0 - 1.0 / n) ** m if replace else 1.0 - m / n
        return math.floor(n_resamples / (p * excluded)) * p
    if kind == "jab_fits":  # J+aB matched in fitted models (Appendix D.3)
        return math.floor(n_resamples / p) * p
    raise ValueError(kind)


def jab_cell_cpu(
    units: UnitCosts, rule: str, dataset: str, learner: str, jab: dict, m_ratio: float | None
) -> float:
    """CPU seconds of the work of one J+aB cell (all trials), without the job start."""
    key = f"{dataset}/{learner}"
    if not units.has("jab_fit", key):
        key = f"{JAB_FALLBACK}/{learner}"
    rows = units.get("rows", dataset if units.has("rows", dataset) else JAB_FALLBACK)
    grid = jab["fixed_vs_random"] if rule == "jab_fixed_vs_random_cell" else jab["main"]
    n, B = grid["n"], grid["n_resamples"]
    n_test = rows - n
    if jab["max_test_points"] is not None:
        n_test = min(n_test, jab["max_test_points"])
    predict = units.get("jab_predict", key)
    if rule == "jab_jplus_cell":
        trial = n * (units.at("jab_fit", key, n - 1) + (n_test + 1) * predict)
    else:
        m = resample_size(n, m_ratio)
        fit = units.at("jab_fit", key, m)
        if rule in ("jab_main_cell", "jab_without_replacement_cell"):
            b = jab_fits("jab_loo", n, m, B, replace=rule == "jab_main_cell")
            trial = b * (fit + (n + n_test) * predict) + n * B * (fit + (n_test + 1) * predict)
        else:
            b = B + jab_fits("jab_fits", n, m, B)
            trial = b * (fit + (n + n_test) * predict)
    return jab["n_trials"] * trial


def qwyc_model_work(dataset: str, q: dict, rows: float) -> float:
    """GBT tree x row count of the model job: per carve-out the learning-rate search on its
    fitting rows, the GBT of every rate refitted on all training rows, Nomao's importance GBT."""
    g = q["gbt"]
    fit_rows = rows * (1 - g["validation_fraction"])
    trees = g["n_estimators"] * len(g["learning_rates"]) * (q["n_splits"] * fit_rows + rows)
    if dataset == "nomao":
        trees += g["importance_trees"] * rows
    return trees


def qwyc_sweep_unit(method: str) -> str:
    """The calibrated sweep kind a method's cost is measured by."""
    if method in (QWYC_STAR, "qwyc_greedy_mse", "qwyc_crossfit"):
        return QWYC_STAR
    return FAN_STAR if method.startswith("fan") else "qwyc_natural"


def qwyc_distinct_fits(method: str, q: dict, fit_on: str, fixed_rate: bool = False) -> int:
    """Splits a sweep really fits: ``train_full`` splits that chose the same learning rate
    share one fit (at most one per rate; one with a fixed rate) unless the method draws per
    split (random orders, cross-fitted halves)."""
    if method.endswith(("random", "crossfit")) or fit_on != "train_full":
        return q["n_splits"]
    return 1 if fixed_rate else min(q["n_splits"], len(q["gbt"]["learning_rates"]))


def qwyc_sweep_work(method: str, q: dict, rows: float, setting: str = "") -> float:
    """Work of one sweep: fits x grid x random orders x rows x T (x T for QWYC*-like orders)."""
    T = q["gbt"]["n_estimators"]
    grid = len(q["alpha_grid"]) if method.startswith("qwyc") else len(q["fan"]["gamma_grid"])
    reps = q["n_random_orders"] if method.endswith("random") else 1
    power = 2 if qwyc_sweep_unit(method) == QWYC_STAR else 1
    fit_on = q["fit_on"]
    if setting.startswith("fit_on_"):
        fit_on = setting.removeprefix("fit_on_")
    elif setting.startswith("learning_rate_"):
        fit_on = "train_full"
    fits = qwyc_distinct_fits(method, q, fit_on, setting.startswith("learning_rate_"))
    if fit_on != "train_full":
        rows *= q["gbt"]["validation_fraction"] if fit_on == "validation" else 0.8
    return fits * grid * reps * rows * T**power


def qwyc_refit_work(method: str, q: dict, rows: float) -> float:
    """Work of one method in the refit job: ``n_refits`` bootstrap refits on the main fit's
    rows, each at the operating points the claims judge (at most one per timing target level
    and the lowest-differences point)."""
    T = q["gbt"]["n_estimators"]
    grid = len(q["alpha_grid"]) if method.startswith("qwyc") else len(q["fan"]["gamma_grid"])
    points = min(grid, len(q["timing"]["target_differences"]) + 1)
    power = 2 if qwyc_sweep_unit(method) == QWYC_STAR else 1
    return q["n_refits"] * points * rows * T**power


def knapsack_evaluations(k: dict) -> int:
    """Energy evaluations of one selection job: budgets x seeds x MAXSTEP x (searches x (1 +
    stopping rules) + the SA starts of ``sa_init_check``) (an upper bound: stopped runs end
    earlier)."""
    runs = KNAPSACK_SEARCHES * (1 + len(k["stop_rules"])) + len(k.get("sa_init_check", ()))
    return len(k["budget_multiples"]) * runs * k["n_seeds"] * k["MAXSTEP"]


def knapsack_uci_evaluations(k: dict) -> int:
    """A UCI pool's selection job: the main grid plus, per ``cost_sensitivity`` kind, the grid
    without a rule and with the primary rule only."""
    primary = {**k, "stop_rules": k["stop_rules"][:1], "sa_init_check": []}
    return knapsack_evaluations(k) + len(k["cost_sensitivity"]) * knapsack_evaluations(primary)


def knapsack_draws(k: dict) -> int:
    """Search runs x evaluations of the adversarial example (SA per move set, stochastic, each
    MC sampler)."""
    adv = k["adversarial"]
    searches = len(adv["sa_moves"]) + 1 + len(adv["mc_samplers"])
    return len(adv["sizes"]) * searches * adv["n_seeds"] * adv["evaluations"]


# ---------------------------------------------------------------- the jobs of a run


def default_available(config: dict, meps: bool = False) -> list[str]:
    """Prepared data sets of the enabled experiments (MEPS only when ``meps``: it is not in the
    mirror, and the workflow leaves it out when its file is absent)."""
    names = [d for p in PAPERS if config["experiments"][p] for d in config[p]["datasets"]]
    return [n for n in prepared_names_for(names) if meps or n != "meps"]


def jobs(config: dict, available: list[str], units: UnitCosts) -> list[Job]:
    """Every rule job of the run, as the rules in workflow/rules/*.smk define them."""
    start, light = units.get("job_start"), units.get("light_job")
    out = []
    fetched = {}
    for name in available:
        for path in DataPlan.raw_paths(name):
            group, filename = path.split("/")[-2:]
            fetched.setdefault(
                path,
                Job(
                    "fetch",
                    f"{group}/{filename}",
                    "data",
                    light,
                    group="data",
                    wildcards={"group": group, "filename": filename},
                ),
            )
        out.append(
            Job(
                "prepare",
                name,
                "data",
                light,
                needs=tuple(
                    f"fetch:{'/'.join(p.split('/')[-2:])}" for p in DataPlan.raw_paths(name)
                ),
                group="data",
                wildcards={"name": name},
            )
        )
    out = list(fetched.values()) + out
    finals = []
    if config["experiments"]["jab"]:
        finals += _jab_jobs(config["jab"], available, units, start, light, out)
    if config["experiments"]["qwyc"]:
        finals += _qwyc_jobs(config["qwyc"], available, units, start, light, out)
    if config["experiments"]["knapsack"]:
        finals += _knapsack_jobs(config["knapsack"], available, units, start, light, out)
    finals = _verdict_jobs(config, available, light, finals, out)
    out.append(Job("paper_vs_ours", "", "report", light, needs=tuple(finals)))
    out.append(Job("results_index", "", "report", light, needs=tuple(j.name for j in out)))
    out.append(Job("all", "", "report", 0.0, needs=("results_index",)))
    for j in out:
        j.cpu *= units.factor(j.rule)
    return out


def _report_tables(config: dict, available: list[str]) -> list[str]:
    """The result tables (CSV) among the papers' final outputs, each rendered as HTML for the
    report by one ``table_html`` job (workflow/rules/claims.smk)."""
    tables = []
    if config["experiments"]["jab"]:
        tables += [f"jab/{d}" for d in config["jab"]["datasets"]]  # Tables S1-S3, MEPS too
    if config["experiments"]["qwyc"]:
        q = config["qwyc"]
        for d in q["datasets"]:
            if all(t in available for t in prepared_names_for([d])):
                tables += [f"qwyc/{d}/{t}" for t in ("figure1", "timing", "refits")]
                tables += [f"qwyc/{d}/sensitivity_{s}" for s in q["sensitivity"]]
    if config["experiments"]["knapsack"]:
        tables += [f"knapsack/{stem}" for stem, _ in KNAPSACK_TABLES.values()]
        tables += [
            f"knapsack/{t}"
            for t in (
                "worked_example",
                "adversarial",
                "adversarial_runs",
                "lemma_iv1",
                "greedy_worst_case",
                "size_estimates",
            )
        ]
    return tables


def _verdict_jobs(config, available, light, finals, out):
    """One claims job and one forest plot per paper switched on (ensemble_repro.claims) and
    the HTML renderings of the result tables; the verdict pages gather them."""
    claims = [
        Job(f"{p}_claims", "", p, light, needs=tuple(f for f in finals if f.startswith(p)))
        for p in PAPERS
        if config["experiments"][p]
    ]
    forests = [
        Job("verdict_forest", p, "report", light, needs=(f"{p}_claims",))
        for p in PAPERS
        if config["experiments"][p]
    ]
    html = [
        Job("table_html", t, "report", light, needs=tuple(finals))
        for t in _report_tables(config, available)
    ]
    out += claims + forests + html
    return finals + [j.name for j in claims + forests + html]


def _jab_jobs(jab, available, units, start, light, out):
    jab_start = units.get("jab_start")
    data = [d for d in jab["datasets"] if d in available]
    cells = []
    grids = [("jab_main_cell", jab["main"]["m_ratios"])]
    grids.append(("jab_jplus_cell", [None]))
    if jab["fixed_vs_random"]["enabled"]:
        grids.append(("jab_fixed_vs_random_cell", jab["fixed_vs_random"]["m_ratios"]))
    if jab["without_replacement"]["enabled"]:
        grids.append(("jab_without_replacement_cell", jab["without_replacement"]["m_ratios"]))
    for rule, ratios in grids:
        for d in data:
            for learner in jab["learners"]:
                for r in ratios:
                    key = f"{d}/{learner}" + ("" if r is None else f"/m{r:g}")
                    cpu = jab_start + jab_cell_cpu(units, rule, d, learner, jab, r)
                    wc = {"jab_data": d, "jab_learner": learner}
                    if r is not None:
                        wc["jab_m"] = f"{r:g}"
                    cells.append(
                        Job(
                            rule,
                            key,
                            "jab",
                            cpu,
                            2 if rule in ("jab_main_cell", "jab_without_replacement_cell") else 1,
                            (f"prepare:{d}",),
                            "jab_grid",
                            wc,
                        )
                    )
    out += cells
    out.append(Job("jab_collect", "", "jab", light, needs=tuple(c.name for c in cells)))
    figures = [
        Job(
            "jab_figures",
            jab_figure_name(f),
            "jab",
            light,
            needs=("jab_collect",),
            wildcards={"jab_fig": jab_figure_name(f)},
        )
        for f in jab_figure_ids(jab["aggregations"], jab["fixed_vs_random"]["enabled"])
    ]
    out += figures
    out.append(Job("jab_tables", "", "jab", light, needs=("jab_collect",)))
    return [j.name for j in figures] + ["jab_tables"]


def _qwyc_jobs(q, available, units, start, light, out):
    finals = []
    data = [d for d in q["datasets"] if all(t in available for t in prepared_names_for([d]))]
    for d in data:
        rows = sum(units.get("rows", t) for t in prepared_names_for([d]))
        prep = tuple(f"prepare:{t}" for t in prepared_names_for([d]))
        wc = {"qwyc_data": d}
        model = Job(
            "qwyc_model",
            d,
            "qwyc",
            start + qwyc_model_work(d, q, rows) * units.get("qwyc_gbt", d),
            needs=prep,
            wildcards=wc,
        )
        sweeps = [
            Job(
                "qwyc_sweep",
                f"{d}/{m}",
                "qwyc",
                start
                + qwyc_sweep_work(m, q, rows)
                * units.get("qwyc_sweep", f"{d}/{qwyc_sweep_unit(m)}"),
                needs=(model.name,),
                group="qwyc_grid",
                wildcards={**wc, "qwyc_method": m},
            )
            for m in qwyc_method_names(q)
        ]
        sens = [
            Job(
                "qwyc_sensitivity",
                f"{d}/{s}",
                "qwyc",
                start
                + sum(
                    qwyc_sweep_work(m, q, rows, s)
                    * units.get("qwyc_sweep", f"{d}/{qwyc_sweep_unit(m)}")
                    for m in sensitivity_methods(s)
                ),
                needs=(model.name,),
                group="qwyc_grid",
                wildcards={**wc, "qwyc_setting": s},
            )
            for s in q["sensitivity"]
        ]
        sweep_names = tuple(s.name for s in sweeps)
        timing_cpu = (  # every distinct fit is timed
            qwyc_distinct_fits(QWYC_STAR, q, q["fit_on"])
            * q["timing"]["runs"]
            * rows
            * q["gbt"]["n_estimators"]
            * units.get("qwyc_timing", d)
        )
        refit_cpu = sum(
            qwyc_refit_work(m, q, rows) * units.get("qwyc_sweep", f"{d}/{qwyc_sweep_unit(m)}")
            for m in REFIT_METHODS
            if m in qwyc_method_names(q)
        )
        out += [
            model,
            *sweeps,
            *sens,
            Job("qwyc_figure", d, "qwyc", light, needs=sweep_names + (model.name,), wildcards=wc),
            Job(
                "qwyc_timing",
                d,
                "qwyc",
                start + timing_cpu,
                needs=(model.name,) + tuple(f"qwyc_sweep:{d}/{m}" for m in TIMING_METHODS),
                wildcards=wc,
            ),
            Job(
                "qwyc_refits",
                d,
                "qwyc",
                start + refit_cpu,
                needs=(model.name,)
                + tuple(f"qwyc_sweep:{d}/{m}" for m in REFIT_METHODS if m in qwyc_method_names(q)),
                wildcards=wc,
            ),
        ]
        finals += [f"qwyc_figure:{d}", f"qwyc_timing:{d}", f"qwyc_refits:{d}"]
        if q["sensitivity"]:
            out.append(
                Job(
                    "qwyc_sensitivity_figure",
                    d,
                    "qwyc",
                    light,
                    needs=(f"qwyc_figure:{d}",) + tuple(s.name for s in sens),
                    wildcards=wc,
                )
            )
            finals.append(f"qwyc_sensitivity_figure:{d}")
    out.append(Job("qwyc_paper_vs_ours", "", "qwyc", light, needs=tuple(finals)))
    return finals + ["qwyc_paper_vs_ours"]


def _knapsack_jobs(k, available, units, start, light, out):
    data = [d for d in k["datasets"] if d in available]
    eval_cpu = units.get("knapsack_eval")
    examples = Job(
        "knapsack_examples",
        "",
        "knapsack",
        start + knapsack_draws(k) * units.get("knapsack_mc_draw"),
    )
    pools = [
        Job(
            "knapsack_pool",
            d,
            "knapsack",
            # one fit per member: the training times are read from the committed costs file
            start + units.get("rows", d) * units.get("knapsack_pool", d),
            needs=(f"prepare:{d}",),
            group="knapsack_grid",
            wildcards={"kn_data": d},
        )
        for d in data
    ]
    uci = units.get("pool_size", "uci")
    select = [
        Job(
            "knapsack_select",
            d,
            "knapsack",
            start + knapsack_uci_evaluations(k) * uci * eval_cpu,
            needs=(f"knapsack_pool:{d}",),
            group="knapsack_grid",
            wildcards={"kn_pool": d},
        )
        for d in data
    ]
    select += [
        Job(
            "knapsack_select",
            f"synthetic_n{n}",
            "knapsack",
            start + knapsack_evaluations(k) * n * eval_cpu,
            group="knapsack_grid",
            wildcards={"kn_pool": f"synthetic_n{n}"},
        )
        for n in k["synthetic"]["sizes"]
    ]
    out += [examples, *pools, *select]
    out.append(
        Job(
            "knapsack_summary",
            "",
            "knapsack",
            light,
            needs=tuple(j.name for j in [examples, *pools, *select]),
        )
    )
    return ["knapsack_summary"]


# ---------------------------------------------------------------- scheduling


def makespan(tasks: list[tuple[str, float, int, tuple]], capacity: int) -> float:
    """Wall time of list-scheduling ``(name, duration, width, needs)`` tasks on ``capacity``
    slots: a task starts once every task it needs (among these) has finished and ``width``
    slots are free; among ready tasks the longest starts first.

    Examples
    --------
    >>> makespan([("a", 3.0, 1, ()), ("b", 2.0, 1, ()), ("c", 1.0, 2, ("a",))], 2)
    4.0
    """
    known = {t[0] for t in tasks}
    waiting = {t[0]: {d for d in t[3] if d in known} for t in tasks}
    spec = {t[0]: t for t in tasks}
    ready = [t[0] for t in tasks if not waiting[t[0]]]
    users = {}
    for t in tasks:
        for d in waiting[t[0]]:
            users.setdefault(d, []).append(t[0])
    running, now, free = [], 0.0, capacity
    while ready or running:
        ready.sort(key=lambda n: -spec[n][1])
        for name in list(ready):
            width = min(spec[name][2], capacity)
            if width <= free:
                ready.remove(name)
                free -= width
                heapq.heappush(running, (now + spec[name][1], name, width))
        if not running:
            raise ValueError(f"tasks wait on each other: {sorted(waiting)}")
        now, done, width = heapq.heappop(running)
        free += width
        del waiting[done]
        for u in users.get(done, ()):
            waiting[u].discard(done)
            if not waiting[u]:
                ready.append(u)
    return now


def local_wall(job_list: list[Job], cores: int, share: float = 1.0) -> float:
    """Wall seconds of these jobs on one machine with ``cores`` cores, of which each job gets
    ``share`` of a core (1 when the cores are the run's alone; :func:`core_share`)."""
    return makespan(
        [(j.name, j.cpu / min(j.threads, cores) / share, j.threads, j.needs) for j in job_list],
        cores,
    )


def slurm_wall(job_list: list[Job], profile: dict) -> float:
    """Wall seconds on SLURM with a profile's ``jobs``, ``cores`` and ``group-components``
    (queue waits excluded; each SLURM job adds ``SLURM_OVERHEAD``)."""
    cores, slots = int(profile.get("cores", 1)), int(profile.get("jobs", 1))
    per_group = profile.get("group-components", {})
    bundles, owner = [], {}
    by_group = {}
    for j in job_list:
        by_group.setdefault(j.group, []).append(j)
    for group, members in by_group.items():
        k = 1 if group is None else int(per_group.get(group, 1))
        for i in range(0, len(members), k):
            bundles.append(members[i : i + k])
    tasks = []
    for b, members in enumerate(bundles):
        for j in members:
            owner[j.name] = f"slurm{b}"
    for b, members in enumerate(bundles):
        inner = {j.name for j in members}
        duration = local_wall(members, cores) + SLURM_OVERHEAD
        needs = {owner[d] for j in members for d in j.needs if d in owner and d not in inner}
        tasks.append((f"slurm{b}", duration, 1, tuple(needs)))
    return makespan(tasks, slots)


# ---------------------------------------------------------------- reports


@dataclass
class PaperCost:
    """Estimated cost of one paper's jobs (or of the whole run, ``paper="total"``)."""

    paper: str
    jobs: int
    cpu_hours: float
    wall_hours: float
    slurm_hours: float | None = None


def load_profile(path) -> dict:
    """The keys of a Snakemake profile the SLURM estimate uses (``jobs``, ``cores``, groups)."""
    import yaml

    with open(path) as fh:
        return yaml.safe_load(fh)


def estimate(
    config: dict,
    cores: int,
    available=None,
    units: UnitCosts | None = None,
    slurm_profile: dict | None = None,
    share: float = 1.0,
    cluster_units: UnitCosts | None = None,
) -> list[PaperCost]:
    """Jobs, CPU-hours and wall hours on ``cores`` cores (and on SLURM) per paper and in total.

    Parameters
    ----------
    config : dict
        A validated workflow config (``config/*.yaml``).
    cores : int
        Cores of the machine (``--cores``).
    available : list of str, optional
        Prepared data sets the run can build (the workflow's preflight); by default every one
        the config names except MEPS (:func:`default_available`).
    units : UnitCosts, optional
        Unit costs; the package's table by default.
    slurm_profile : dict, optional
        A SLURM profile (``jobs``, ``cores``, ``group-components``) for the cluster wall time.
    share : float, default 1
        Share of a core each local job gets (:func:`core_share`: below 1 when other work
        loads the machine); the local wall time is divided by it.
    cluster_units : UnitCosts, optional
        Unit costs of the cluster's nodes for the SLURM wall time (``units`` by default; the
        reference machine's when ``units`` are scaled to this one).

    Returns
    -------
    list of PaperCost
        One per enabled paper (data preparation and the report stage counted in the total
        only), then ``total``.

    Examples
    --------
    >>> from ensemble_repro.config import load_config
    >>> cfg = load_config("config/smoke.yaml")  # doctest: +SKIP
    >>> [c.paper for c in estimate(cfg, cores=2)]  # doctest: +SKIP
    ['jab', 'qwyc', 'knapsack', 'total']
    """
    units = units or UnitCosts()
    if available is None:
        available = default_available(config)
    everything = jobs(config, list(available), units)
    on_cluster = (
        everything if cluster_units is None else jobs(config, list(available), cluster_units)
    )
    out = []
    for paper in [p for p in PAPERS if config["experiments"][p]] + ["total"]:
        js = [j for j in everything if paper in (j.paper, "total")]
        cjs = [j for j in on_cluster if paper in (j.paper, "total")]
        out.append(
            PaperCost(
                paper,
                sum(j.rule != "all" for j in js) + (paper == "total"),
                sum(j.cpu for j in js) / 3600,
                local_wall(js, cores, share) / 3600,
                slurm_wall(cjs, slurm_profile) / 3600 if slurm_profile else None,
            )
        )
    return out


def _hours(h: float) -> str:
    if h < 1 / 60:
        return f"{h * 3600:.0f} s"
    return f"{h * 60:.0f} min" if h < 1 else f"{h:.1f} h"


def _cpu_hours(h: float) -> str:
    return f"{h:.0f}" if h >= 10 else f"{h:.1f}" if h >= 1 else f"{h:.2g}"


def summary_lines(costs: list[PaperCost], source: str, cores: int) -> list[str]:
    """The start-of-run print: one line per paper plus the total."""
    lines = []
    for c in costs:
        s = (
            f"cost estimate ({source}): {c.paper} {c.jobs} jobs, {_cpu_hours(c.cpu_hours)} CPU-h, "
            f"~{_hours(c.wall_hours)} on {cores} core{'s' if cores != 1 else ''}"
        )
        if c.slurm_hours is not None:
            s += f", ~{_hours(c.slurm_hours)} on SLURM"
        lines.append(s)
    return lines


def table(costs: list[PaperCost], cores: int) -> str:
    """A Markdown table of :func:`estimate`'s result."""
    head = f"| paper | jobs | CPU-hours | wall on {cores} cores |"
    rule = "|---|---:|---:|---:|"
    if costs and costs[0].slurm_hours is not None:
        head, rule = head + " wall on SLURM |", rule + "---:|"
    lines = [head, rule]
    for c in costs:
        row = f"| {c.paper} | {c.jobs} | {_cpu_hours(c.cpu_hours)} | {_hours(c.wall_hours)} |"
        if c.slurm_hours is not None:
            row += f" {_hours(c.slurm_hours)} |"
        lines.append(row)
    return "\n".join(lines)


# ---------------------------------------------------------------- measured against estimated


def measured(job: Job, workdir) -> tuple[float, float] | None:
    """(CPU seconds, wall seconds) of ``job`` from its benchmark file under ``workdir`` (the
    mean over the file's rows), or None when the rule has no benchmark or the job did not run."""
    pattern = BENCHMARKS.get(job.rule)
    if pattern is None:
        return None
    path = Path(workdir) / pattern.format(**job.wildcards)
    try:
        rows = list(csv.DictReader(path.read_text().splitlines(), delimiter="\t"))
    except FileNotFoundError:
        return None
    try:
        cpu = [float(r["cpu_time"]) for r in rows]
        wall = [float(r["s"]) for r in rows]
    except (KeyError, TypeError, ValueError):
        raise ValueError(
            f"{path}: not a Snakemake benchmark file (columns s and cpu_time); delete it and "
            "rerun the job"
        ) from None
    if not rows:
        return None
    return sum(cpu) / len(cpu), sum(wall) / len(wall)


@dataclass
class RuleCost:
    """Estimated and measured CPU seconds of the jobs of one rule that ran."""

    paper: str
    rule: str
    jobs: int
    estimated: float
    measured: float
    wall: float

    @property
    def ratio(self) -> float:
        return self.measured / self.estimated if self.estimated > 0 else math.nan


def compare(config: dict, workdir, units: UnitCosts | None = None, available=None):
    """Per rule, the estimated and the measured CPU time of the jobs that ran in ``workdir``.

    Parameters
    ----------
    config : dict
        The config the run used.
    workdir : str or Path
        The run's working directory (holding ``results/benchmarks``).
    units : UnitCosts, optional
        Unit costs; the package's (calibrated) table by default.
    available : list of str, optional
        Prepared data sets of the run (:func:`default_available` by default).

    Returns
    -------
    list of RuleCost
        One per rule with at least one measured job, in job order.
    """
    units = units or UnitCosts()
    available = default_available(config) if available is None else available
    out: dict[str, RuleCost] = {}
    for job in jobs(config, list(available), units):
        got = measured(job, workdir)
        if got is None:
            continue
        row = out.setdefault(job.rule, RuleCost(job.paper, job.rule, 0, 0.0, 0.0, 0.0))
        row.jobs += 1
        row.estimated += job.cpu
        row.measured += got[0]
        row.wall += got[1]
    return list(out.values())


def calibration_rows(
    runs, min_cpu: float = 60.0, source: str = "", units: UnitCosts | None = None
) -> list[dict]:
    """``calibration`` rows of the unit-cost table: per rule, measured / estimated CPU time over
    the given runs, against the uncalibrated model.

    Parameters
    ----------
    runs : list of (dict, path)
        (config, working directory) of each measured run.
    min_cpu : float, default 60
        Rules with less measured CPU time in all are left uncalibrated (start-up noise).
    source : str
        Text of the rows' ``source`` column.
    units : UnitCosts, optional
        The unit costs to calibrate (the package's by default); their own calibration rows
        are ignored.

    Returns
    -------
    list of dict
        Rows with the columns of ``unit_costs.csv``.
    """
    est_sum: dict[str, float] = {}
    cpu_sum: dict[str, float] = {}
    bare = UnitCosts(units.source if units else None, calibrated=False)
    for config, workdir in runs:
        for r in compare(config, workdir, bare):
            est_sum[r.rule] = est_sum.get(r.rule, 0.0) + r.estimated
            cpu_sum[r.rule] = cpu_sum.get(r.rule, 0.0) + r.measured
    return [
        {
            "unit": "calibration",
            "key": rule,
            "size": 0,
            "cpu_seconds": f"{cpu_sum[rule] / est_sum[rule]:.4g}",
            "source": source,
        }
        for rule in est_sum
        if cpu_sum[rule] >= min_cpu and est_sum[rule] > 0
    ]


def comparison_table(rows: list[RuleCost]) -> str:
    """A Markdown table of :func:`compare`'s result, with a total per paper."""
    lines = [
        "| paper | rule | jobs | estimated CPU-s | measured CPU-s | measured / estimated "
        "| measured wall-s |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for paper in dict.fromkeys(r.paper for r in rows):
        mine = [r for r in rows if r.paper == paper]
        total = RuleCost(
            paper,
            "**all**",
            sum(r.jobs for r in mine),
            sum(r.estimated for r in mine),
            sum(r.measured for r in mine),
            sum(r.wall for r in mine),
        )
        for r in [*mine, total]:
            lines.append(
                f"| {r.paper} | {r.rule} | {r.jobs} | {r.estimated:.0f} | {r.measured:.0f} | "
                f"{r.ratio:.2f} | {r.wall:.0f} |"
            )
    return "\n".join(lines)


# ---------------------------------------------------------------- this machine


def unit_family(unit: str, key: str = "") -> str | None:
    """The kernel family whose speed a unit cost follows, None for counts and factors.

    Examples
    --------
    >>> unit_family("jab_fit", "blog/nn"), unit_family("qwyc_gbt", "adult"), unit_family("rows")
    ('nn', 'gbt', None)
    """
    if unit in UNSCALED_UNITS:
        return None
    if unit in ("jab_fit", "jab_predict"):
        learner = key.rsplit("/", 1)[-1]
        if learner in KERNEL_FAMILIES:
            return learner
    elif unit in UNIT_FAMILIES:
        return UNIT_FAMILIES[unit]
    raise ValueError(
        f"unit cost {unit!r} (key {key!r}) has no kernel family: add it to "
        "ensemble_repro.estimate.UNIT_FAMILIES"
    )


def machine_key() -> dict[str, str | int]:
    """What identifies a machine's speed: host name, CPU model and CPU count."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"hostname": platform.node(), "cpu_model": model, "cores": os.cpu_count() or 1}


def machine_cache_dir() -> Path:
    """Where machine calibrations are kept: ``$ENSEMBLE_REPRO_CACHE``, else
    ``$XDG_CACHE_HOME/ensemble-repro``, else ``~/.cache/ensemble-repro``."""
    if os.environ.get(MACHINE_CACHE_ENV):
        return Path(os.environ[MACHINE_CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ensemble-repro"


def _kernel_data(n: int, p: int, classes: bool = False):
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, p))
    y = X @ rng.normal(size=p) + rng.normal(size=n)
    return X, (y > 0).astype(int) if classes else y


def _kernel_learner(name: str, fits: int) -> None:
    """``fits`` fits of a J+aB learner on 200 rows x 100 features, predicting 2000 rows."""
    from .learners import make_learner

    X, y = _kernel_data(200, 100)
    for i in range(fits):
        make_learner(name, random_state=i).fit(X, y).predict(X.repeat(10, axis=0))


def _kernel_gbt() -> None:
    """A QWYC-style GBT: 50 trees of depth 5 on 5000 rows x 14 features (one thread)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y = _kernel_data(5000, 14, classes=True)
    HistGradientBoostingClassifier(
        max_iter=50, max_depth=5, max_leaf_nodes=None, early_stopping=False, random_state=0
    ).fit(X, y).predict_proba(X)


def _kernel_pool() -> None:
    """A knapsack pool build (31 classifiers) on 400 rows x 10 features."""
    import pandas as pd

    from .knapsack.pools import build_pool

    X, y = _kernel_data(400, 10, classes=True)
    build_pool(pd.DataFrame(X), pd.Series(y), seed=0)


def _kernel_numeric() -> None:
    """Array arithmetic of the knapsack energy and the QWYC sweeps: correct-count
    distributions of 2000 subsets of a 31-member pool, 20 times."""
    import numpy as np

    from .knapsack.energy import correct_count_distribution

    rng = np.random.default_rng(0)
    p, masks = rng.uniform(0.5, 1.0, 31), rng.random((2000, 31)) < 0.5
    for _ in range(20):
        correct_count_distribution(p, masks).cumsum(axis=-1)


#: Code of the ``start`` kernel: a fresh process importing what every job imports.
START_CODE = (
    "import snakemake.script, ensemble_repro.experiments.jab, ensemble_repro.experiments.qwyc, "
    "ensemble_repro.experiments.knapsack, ensemble_repro.io"
)


def _kernel_start() -> float:
    """CPU seconds of a fresh Python process importing the experiment modules."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", START_CODE], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


#: The machine-calibration kernels, one per family of unit costs (:func:`unit_family`): what
#: that family's jobs spend their CPU time on, sized to take a fraction of a second.
KERNELS = {
    "start": _kernel_start,
    "ridge": lambda: _kernel_learner("ridge", 20),
    "rf": lambda: _kernel_learner("rf", 1),
    "nn": lambda: _kernel_learner("nn", 2),
    "gbt": _kernel_gbt,
    "pool": _kernel_pool,
    "numeric": _kernel_numeric,
}
KERNEL_FAMILIES = tuple(KERNELS)
#: Unit of the reference kernel times in ``unit_costs.csv`` (key: the family).
KERNEL_UNIT = "kernel"
#: Family of each unit cost other than the J+aB fits and predictions (family: the learner).
UNIT_FAMILIES = {
    "job_start": "start",
    "light_job": "start",
    "jab_start": "start",
    "qwyc_gbt": "gbt",
    "qwyc_sweep": "numeric",
    "qwyc_timing": "numeric",
    "knapsack_pool": "pool",
    "knapsack_eval": "numeric",
    "knapsack_mc_draw": "numeric",
}
#: Rows of ``unit_costs.csv`` that are counts, factors or kernel times, not CPU costs.
UNSCALED_UNITS = frozenset({"rows", "pool_size", "calibration", KERNEL_UNIT})
#: Environment variable naming the machine-calibration cache folder.
MACHINE_CACHE_ENV = "ENSEMBLE_REPRO_CACHE"
#: Timings of each kernel; the median is kept (the first run pays for lazy imports).
KERNEL_REPEATS = 3


def time_kernels(families=KERNEL_FAMILIES, repeats: int = KERNEL_REPEATS) -> dict[str, float]:
    """Median CPU seconds of each kernel on this machine, with one BLAS / OpenMP thread.

    About 12 CPU seconds in all on the machine the unit costs were measured on.

    Parameters
    ----------
    families : iterable of str
        Keys of :data:`KERNELS`.
    repeats : int
        Timings per kernel.

    Returns
    -------
    dict
        Family -> CPU seconds of one run of its kernel.
    """
    import warnings

    # Load every BLAS / OpenMP library first: threadpool_limits only limits those loaded.
    import scipy.optimize  # noqa: F401
    import sklearn.ensemble  # noqa: F401
    import sklearn.neural_network  # noqa: F401
    from threadpoolctl import threadpool_limits

    out = {}
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLP convergence, constant features of the pool
        for family in families:
            kernel, times = KERNELS[family], []
            for _ in range(repeats):
                t0 = time.process_time()
                child = kernel()
                times.append(child if child is not None else time.process_time() - t0)
            out[family] = statistics.median(times)
    return out


@dataclass
class MachineCalibration:
    """The kernel times of one machine, as cached.

    Attributes
    ----------
    key : dict
        :func:`machine_key` of the machine.
    kernels : dict
        Family -> CPU seconds of its kernel there (:func:`time_kernels`).
    measured_on : str
        UTC time of the measurement.
    load : float
        The 1-minute load average while it was measured.
    path : Path or None
        The cache file.
    """

    key: dict
    kernels: dict
    measured_on: str = ""
    load: float = math.nan
    path: Path | None = None

    def factors(self, reference: dict[str, float]) -> dict[str, float]:
        """Family -> this machine's kernel time / the reference machine's.

        Raises
        ------
        KeyError
            When the reference lacks a kernel (unit costs older than the calibration).
        """
        missing = [f for f in KERNEL_FAMILIES if f not in reference]
        if missing:
            raise KeyError(
                f"the unit costs hold no reference time for the kernels {missing}: rerun "
                "benchmarks/calibrate_costs.py --only kernels on the machine they were "
                "measured on"
            )
        return {f: self.kernels[f] / reference[f] for f in KERNEL_FAMILIES}

    def describe(self, reference: dict[str, float]) -> str:
        """One line: the machine and its factor per family."""
        f = self.factors(reference)
        return (
            f"{self.key['hostname']} ({self.key['cpu_model']}, {self.key['cores']} CPUs), "
            f"measured {self.measured_on} at load {self.load:.1f}: CPU time x "
            + ", ".join(f"{k} {v:.2f}" for k, v in f.items())
        )


def machine_calibration(
    cache_dir=None,
    key: dict | None = None,
    measure=time_kernels,
    refresh: bool = False,
    log=None,
) -> MachineCalibration:
    """This machine's kernel times: from its cache file, else measured (well under a minute)
    and cached.

    Parameters
    ----------
    cache_dir : str or Path, optional
        Folder of the cache files (:func:`machine_cache_dir` by default); one file per
        machine key.
    key : dict, optional
        The machine key (:func:`machine_key` by default).
    measure : callable, default :func:`time_kernels`
        Called with the families to time when the cache holds none for this machine.
    refresh : bool, default False
        Measure again even when cached.
    log : callable, optional
        Called with a message before measuring.

    Returns
    -------
    MachineCalibration
    """
    key = machine_key() if key is None else key
    folder = Path(cache_dir) if cache_dir is not None else machine_cache_dir()
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    path = folder / f"machine-{digest}.json"
    if not refresh:
        try:
            cached = json.loads(path.read_text())
        except (OSError, ValueError):
            cached = None
        if (
            cached
            and cached.get("key") == key
            and all(f in cached.get("kernels", {}) for f in KERNEL_FAMILIES)
        ):
            return MachineCalibration(
                key, cached["kernels"], cached["measured_on"], cached["load"], path
            )
    if log is not None:
        log(
            f"timing {len(KERNEL_FAMILIES)} kernels to calibrate this machine (once; cached in {path})"
        )
    load = os.getloadavg()[0]
    kernels = measure(KERNEL_FAMILIES)
    cal = MachineCalibration(
        key, dict(kernels), datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), load, path
    )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(
            json.dumps(
                {"key": key, "kernels": cal.kernels, "measured_on": cal.measured_on, "load": load},
                indent=1,
            )
        )
        tmp.replace(path)
    except OSError as err:  # an unwritable cache costs a re-measure next time, nothing else
        print(f"machine calibration not cached ({path}: {err.strerror})", file=sys.stderr)
        cal.path = None
    return cal


def machine_units(
    path=None, calibrated: bool = True, cache_dir=None, measure=time_kernels, log=None
) -> tuple[UnitCosts, MachineCalibration]:
    """The unit costs scaled to this machine (:func:`machine_calibration`), and the calibration.

    Parameters
    ----------
    path : str or Path, optional
        Unit-cost CSV; the package's by default.
    calibrated : bool, default True
        As for :class:`UnitCosts`.
    cache_dir : str or Path, optional
        As for :func:`machine_calibration`.
    measure, log : callable
        As for :func:`machine_calibration`.

    Returns
    -------
    (UnitCosts, MachineCalibration)
    """
    units = UnitCosts(path, calibrated)
    cal = machine_calibration(cache_dir, measure=measure, log=log)
    return units.scaled(cal.factors(units.reference_kernels())), cal


#: A busy loop for ``seconds`` of wall time that prints the share of it it got on a core.
_SHARE_CODE = (
    "import sys, time\n"
    "end = time.perf_counter() + float(sys.argv[1]); w0, c0 = time.perf_counter(), "
    "time.process_time()\n"
    "while time.perf_counter() < end: pass\n"
    "print((time.process_time() - c0) / (time.perf_counter() - w0))\n"
)
#: Wall seconds of the load probe (:func:`core_share`).
SHARE_SECONDS = 0.5


def core_share(cores: int, seconds: float = SHARE_SECONDS, load: float | None = None) -> float:
    """The share of a core each of ``cores`` busy jobs gets on this machine now.

    Two views, the smaller kept: ``cores`` processes spin side by side for ``seconds`` and
    each reports its CPU time over its wall time (what the scheduler gives a job this
    instant, niceness of the other work included); and the 1-minute load average ``L``, the
    queue the jobs join: ``CPUs / (L + cores)``. The probe alone misses load that comes and
    goes within a minute; the load average alone over-counts niced work.

    Parameters
    ----------
    cores : int
        Jobs the run will run side by side (``--cores``, at most the CPUs).
    seconds : float
        How long the probe spins.
    load : float, optional
        The 1-minute load average (``os.getloadavg()`` by default).

    Returns
    -------
    float
        The share, in (0, 1]: 1 on an idle machine with at least ``cores`` CPUs.
    """
    cpus = os.cpu_count() or 1
    jobs = max(1, min(cores, cpus))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _SHARE_CODE, str(seconds)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(jobs)
    ]
    probe = statistics.fmean(float(p.communicate()[0]) for p in procs)
    load = os.getloadavg()[0] if load is None else load
    queue = cpus / (load + jobs)
    return min(1.0, max(1e-3, min(probe, queue)))


def main(argv=None) -> int:
    """``python -m ensemble_repro.estimate --config config/quick.yaml --cores 2``."""
    ap = argparse.ArgumentParser(
        prog="python -m ensemble_repro.estimate",
        description="Estimated jobs, CPU-hours and wall time of a run.",
    )
    ap.add_argument(
        "--config",
        default="config/config.yaml",
        help="config/config.yaml, or an overlay file merged on it (e.g. config/quick.yaml)",
    )
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument(
        "--slurm-profile",
        default="workflow/profiles/slurm/config.yaml",
        help="SLURM profile for the cluster column ('' to leave it out)",
    )
    ap.add_argument("--meps", action="store_true", help="count MEPS (its file is staged)")
    ap.add_argument("--unit-costs", default=None, help="unit-cost CSV (default: the package's)")
    ap.add_argument(
        "--machine",
        choices=("calibrated", "recalibrate", "reference"),
        default="calibrated",
        help="unit costs scaled to this machine by its cached calibration, measured first when "
        "not cached (calibrated, the default), measured again (recalibrate), or as measured "
        "on the reference machine (reference)",
    )
    ap.add_argument(
        "--idle",
        action="store_true",
        help="wall time as if the cores were the run's alone (no load probe)",
    )
    ap.add_argument(
        "--compare",
        metavar="WORKDIR",
        default=None,
        help="compare with the CPU times measured by a run of --config in WORKDIR "
        "(its results/benchmarks)",
    )
    ap.add_argument(
        "--schema",
        default="workflow/schemas/config.schema.yaml",
        help="config schema checked first (skipped when the file is absent)",
    )
    args = ap.parse_args(argv)
    if args.cores < 1:
        ap.error(f"--cores must be at least 1, got {args.cores}")
    from .config import ConfigError, load_config, validate_config

    try:
        config = load_config(args.config)
    except ConfigError as err:
        ap.error(f"--config {args.config}: {err}")
    if Path(args.schema).is_file():
        try:
            validate_config(config, args.schema, source=args.config)
        except ConfigError as err:
            print(err, file=sys.stderr)
            return 2
    if args.compare is not None and not (Path(args.compare) / "results" / "benchmarks").is_dir():
        ap.error(f"--compare {args.compare}: no results/benchmarks there (run the workflow)")
    units = reference = UnitCosts(args.unit_costs)
    machine = "unit costs of the reference machine"
    if args.machine != "reference":
        cal = machine_calibration(
            refresh=args.machine == "recalibrate", log=lambda m: print(m, file=sys.stderr)
        )
        units = units.scaled(cal.factors(units.reference_kernels()))
        machine = f"unit costs scaled to {cal.describe(units.reference_kernels())}"
    if args.compare is not None:
        rows = compare(config, args.compare, units)
        print(f"Estimated vs measured CPU time of {args.config} run in {args.compare}")
        print(f"({machine}):")
        print(comparison_table(rows))
        return 0
    profile = load_profile(args.slurm_profile) if args.slurm_profile else None
    share = 1.0 if args.idle else core_share(args.cores)
    costs = estimate(
        config, args.cores, default_available(config, args.meps), units, profile, share, reference
    )
    print(f"Estimated cost of {args.config} (CPU time from measured unit costs, {machine};")
    print(
        f"wall time by list scheduling, each job getting {share:.2f} of a core"
        + (" as the machine is loaded now):" if share < 1 else "):")
    )
    print(table(costs, args.cores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
