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
import heapq
import itertools
import math
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from .data.preflight import DataPlan
from .data.registry import prepared_names_for
from .experiments.names import (
    BENCHMARKS,
    FAN_STAR,
    KNAPSACK_TABLES,
    QWYC_STAR,
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
                tables += [f"qwyc/{d}/{t}" for t in ("figure1", "timing")]
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
        timing_cpu = (
            q["timing"]["runs"] * rows * q["gbt"]["n_estimators"] * units.get("qwyc_timing", d)
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
        ]
        finals += [f"qwyc_figure:{d}", f"qwyc_timing:{d}"]
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


def local_wall(job_list: list[Job], cores: int) -> float:
    """Wall seconds of these jobs on one machine with ``cores`` cores."""
    return makespan(
        [(j.name, j.cpu / min(j.threads, cores), j.threads, j.needs) for j in job_list], cores
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

    Returns
    -------
    list of PaperCost
        One per enabled paper (data preparation and the report stage counted in the total
        only), then ``total``.

    Examples
    --------
    >>> import yaml
    >>> cfg = yaml.safe_load(open("config/smoke.yaml"))  # doctest: +SKIP
    >>> [c.paper for c in estimate(cfg, cores=2)]  # doctest: +SKIP
    ['jab', 'qwyc', 'knapsack', 'total']
    """
    units = units or UnitCosts()
    if available is None:
        available = default_available(config)
    everything = jobs(config, list(available), units)
    groups = [
        (p, [j for j in everything if j.paper == p]) for p in PAPERS if config["experiments"][p]
    ]
    out = []
    for paper, js in groups + [("total", everything)]:
        out.append(
            PaperCost(
                paper,
                sum(j.rule != "all" for j in js) + (paper == "total"),
                sum(j.cpu for j in js) / 3600,
                local_wall(js, cores) / 3600,
                slurm_wall(js, slurm_profile) / 3600 if slurm_profile else None,
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


def main(argv=None) -> int:
    """``python -m ensemble_repro.estimate --config config/quick.yaml --cores 2``."""
    import yaml

    ap = argparse.ArgumentParser(
        prog="python -m ensemble_repro.estimate",
        description="Estimated jobs, CPU-hours and wall time of a run.",
    )
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument(
        "--slurm-profile",
        default="workflow/profiles/slurm/config.yaml",
        help="SLURM profile for the cluster column ('' to leave it out)",
    )
    ap.add_argument("--meps", action="store_true", help="count MEPS (its file is staged)")
    ap.add_argument("--unit-costs", default=None, help="unit-cost CSV (default: the package's)")
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
    try:
        with open(args.config) as fh:
            config = yaml.safe_load(fh)
    except OSError as err:
        ap.error(f"--config {args.config}: {err.strerror}")
    if Path(args.schema).is_file():
        from .config import ConfigError, validate_config

        try:
            validate_config(config, args.schema, source=args.config)
        except ConfigError as err:
            print(err, file=sys.stderr)
            return 2
    if args.compare is not None:
        if not (Path(args.compare) / "results" / "benchmarks").is_dir():
            ap.error(f"--compare {args.compare}: no results/benchmarks there (run the workflow)")
        rows = compare(config, args.compare, UnitCosts(args.unit_costs))
        print(f"Estimated vs measured CPU time of {args.config} run in {args.compare}:")
        print(comparison_table(rows))
        return 0
    profile = load_profile(args.slurm_profile) if args.slurm_profile else None
    costs = estimate(
        config,
        args.cores,
        default_available(config, args.meps),
        UnitCosts(args.unit_costs),
        profile,
    )
    print(
        f"Estimated cost of {args.config} (CPU time from measured unit costs; "
        f"wall time by list scheduling):"
    )
    print(table(costs, args.cores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
