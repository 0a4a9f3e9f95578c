"""Measure the unit costs of the estimate and write src/ensemble_repro/unit_costs.csv.

Usage (from the repository root; fetches and prepares every mirrored data set into a work
directory first; ~15 CPU-minutes in all, most of it the MLP fits on Blog):
    PYTHONPATH=src ENSEMBLE_REPRO_MIRROR=../shared/data python benchmarks/calibrate_costs.py \
        [--out src/ensemble_repro/unit_costs.csv] [--repeats 3] [--only start,rows,...]
``--only`` re-measures some sections and keeps the other rows of ``--out``. Unless the kernels
are measured with every anchor, the rows measured are divided by this machine's calibration
factors (``ensemble_repro.cost.units.at_reference``), so every row holds on one machine.

Calibration against whole runs made on this machine (no measuring; rewrites only the
``calibration`` rows of the rules measured, keeping the rest; the unit costs are scaled to this
machine by its machine calibration first, so the factors hold on the reference machine):
    PYTHONPATH=src python benchmarks/calibrate_costs.py \
        --from-run CONFIG.yaml:WORKDIR [--from-run CONFIG2.yaml:WORKDIR2 ...]
Each WORKDIR is a finished run of CONFIG; a rule's factor is its jobs' measured CPU time
(``benchmark:`` files) over the bare model's estimate of the jobs of the run's DAG, summed over
the runs (``ensemble_repro.estimate.calibration_rows``); ``python -m ensemble_repro.estimate --config
CONFIG --compare WORKDIR`` prints the comparison.

Per-job overheads from small runs made on this machine (rewrites only the ``job_overhead`` rows
of the rules measured; the runs are compared with the calibrated estimate scaled to this
machine by its machine calibration, and the overheads stored at the reference machine's speed):
    PYTHONPATH=src python benchmarks/calibrate_costs.py \
        --overhead-from-run config/smoke.yaml:WORKDIR [--overhead-from-run ...]
A rule's overhead is the mean over its jobs of measured less estimated CPU seconds
(``ensemble_repro.estimate.overhead_rows``); ``run_start`` is the mean over the runs of the
seconds each spent outside its jobs (``ensemble_repro.estimate.outside_jobs``).

Every number is CPU time (``time.process_time``; of child processes via ``getrusage``), with
one BLAS / OpenMP thread, so it holds on a machine loaded by other work, where wall times do
not. Sections (the units of ensemble_repro.cost.units; the cost modules of the papers,
ensemble_repro.papers.*.cost, give the model):
- start: a fresh process importing the experiment modules (``job_start``, every job); a
  collector / figure job (``light_job``); a J+aB cell's fixed cost (``jab_start``: kernels
  loaded, fit workers started);
- rows: rows of every prepared data set;
- knapsack: a pool build per row of each UCI set of config/quick.yaml; a selection per energy
  evaluation and pool member (on a synthetic pool of 50); the UCI pool size; the adversarial
  example per Monte Carlo draw;
- qwyc: at the T of config/quick.yaml, the GBT model job per tree x row; one sweep per method
  kind per unit of ``qwyc_cost.sweep_work``; the timing job per run x row x tree;
- jab: one fit of each learner on a bootstrap sample of m rows of Communities and Blog at
  m = 8, 40, 200 (the estimate interpolates log-log), and one model's prediction per row
  (``predict_models`` on every row at once, as a cell predicts);
- kernels: the machine-calibration kernels (``ensemble_repro.cost.machine.KERNELS``), the
  reference that scales the unit costs to another machine. Measured with the units when
  every section runs; with ``--only kernels`` (units kept from an earlier run) each kernel
  time is transferred by the ratio of its anchor unit (``ANCHORS``, re-measured here) to
  the kept value, so the reference stays the machine the units were measured on.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from datetime import UTC, datetime

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_info, threadpool_limits

from ensemble_repro.cost import machine
from ensemble_repro.cost.dag import config_jobs
from ensemble_repro.cost.units import KERNEL_UNIT, UnitCosts, at_reference
from ensemble_repro.data import DATASETS, fetch_raw, load, prepare
from ensemble_repro.data.preflight import DataPlan
from ensemble_repro.estimate import calibration_rows, outside_jobs, overhead_rows
from ensemble_repro.papers.knapsack import cost as knapsack_cost
from ensemble_repro.papers.qwyc import cost as qwyc_cost

JAB_SIZES = {"ridge": (8, 40, 200), "rf": (8, 40, 200), "nn": (8, 40, 200)}
JAB_DATASETS = ("communities", "blog")
QWYC_DATASETS = {"adult": ("adult_train", "adult_test"), "nomao": ("nomao",)}


def cpu(fn, *args, **kwargs):
    """(CPU seconds of this process, result) of one call."""
    t0 = time.process_time()
    out = fn(*args, **kwargs)
    return time.process_time() - t0, out


def stage(names, results, data_cfg):
    """Fetch (from the mirror) and prepare the named data sets into ``results``/data."""
    raw_dir = os.path.join(results, "raw")
    for name in names:
        paths = DataPlan.raw_paths(name, raw_dir)
        for path in paths:
            if not os.path.exists(path):
                group, filename = path.split(os.sep)[-2:]
                fetch_raw(group, filename, data_cfg, path)
        out = os.path.join(results, "data", name)
        if not os.path.exists(out + ".parquet"):
            prepare(name, paths, out + ".parquet", out + ".json")


def child_cpu(code: str, repeats: int) -> float:
    """Mean CPU seconds of a fresh Python process running ``code`` (its workers included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(repeats):
        subprocess.run([sys.executable, "-c", code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / repeats


def start_units(results, quick, repeats):
    """Fixed costs of a job: start-up; a collector / figure job; a J+aB cell's start-up (kernels
    loaded, fit workers started: ``run_job`` on a 4-point J+ cell)."""
    wrapper = "import snakemake.script;"  # every script rule job loads it first
    start = machine.START_CODE  # the wrapper and every paper's start modules
    light = (
        wrapper + "import pandas as pd, matplotlib; matplotlib.use('Agg');"
        "import matplotlib.pyplot as plt;"
        "import ensemble_repro.io, ensemble_repro.plotting;"
        "df = pd.DataFrame({'x': range(1000), 'y': range(1000)});"
        "fig, ax = plt.subplots(); ax.plot(df.x, df.y);"
        "fig.savefig('/dev/null', format='png')"
    )
    cfg = {
        "alpha": 0.1,
        "trial_seed_base": 1,
        "max_test_points": 10,
        "n_trials": 1,
        "aggregations": ["mean"],
        "main": {"n": 4, "n_resamples": 2},
    }
    jab = (
        wrapper + "from ensemble_repro.papers.jab import cells;"
        f"cells.run_job('jplus', {os.path.join(results, 'data', 'communities.parquet')!r}, "
        f"dataset='communities', learner='ridge', jab_cfg={cfg!r}, seed=0, n_jobs=2)"
    )
    return [
        ("job_start", "", 0, child_cpu(start, repeats)),
        ("light_job", "", 0, child_cpu(light, repeats)),
        ("jab_start", "", 0, child_cpu(jab, repeats)),
    ]


def jab_units(results, quick, repeats, datasets=JAB_DATASETS, sizes=JAB_SIZES):
    from ensemble_repro.conformal import predict_models
    from ensemble_repro.learners import make_learner

    rows = []
    for name in datasets:
        X, y = load(name, results)
        X, y = X.to_numpy(float), y.to_numpy(float)
        rng = np.random.default_rng(0)
        for learner, learner_sizes in sizes.items():
            models = []
            for m in learner_sizes:
                secs = 0.0
                for r in range(repeats):
                    idx = rng.integers(0, len(y), size=m)
                    est = make_learner(learner, random_state=r)
                    s, model = cpu(est.fit, X[idx], y[idx])
                    secs += s
                    models.append(model)
                rows.append(("jab_fit", f"{name}/{learner}", m, secs / repeats))
            # as a cell predicts: each model about every row (n_test + 1, or n + n_test) at once
            secs = cpu(predict_models, models, X)[0]
            rows.append(("jab_predict", f"{name}/{learner}", 0, secs / len(models) / len(y)))
            print(name, learner, rows[-len(learner_sizes) - 1 :], flush=True)
    return rows


def qwyc_units(results, quick, repeats, datasets=QWYC_DATASETS, sweeps=True):
    """QWYC unit costs; ``sweeps`` False: the GBT model job only."""
    from ensemble_repro.papers.qwyc import cells as qwyc

    rows = []
    quick = quick["qwyc"]
    # T of the quick (and paper) config: QWYC* scales between T and T^2 (measured: x3.5 less
    # than T^2 from T = 60 to 500), so it is measured where it is used
    T = quick["gbt"]["n_estimators"]
    q = {
        **quick,
        "gbt": {**quick["gbt"], "n_estimators": T, "learning_rates": [0.1]},
        "smaller_ensembles": [10, T],
        "alpha_grid": [0.0, 0.01],
        "n_random_orders": 1,
        "fan": {**quick["fan"], "gamma_grid": [0.5, 2.0]},
        "timing": {**quick["timing"], "runs": 3},
    }
    for name, tables in datasets.items():
        n_rows = sum(len(load(t, results)[1]) for t in tables)
        paths = {t: os.path.join(results, "data", f"{t}.parquet") for t in tables}
        secs, (_, _, arrays) = cpu(qwyc.model_job, name, q, 0, paths)
        rows.append(("qwyc_gbt", name, 0, secs / qwyc_cost.model_work(name, q, n_rows)))
        print(name, rows[-1], flush=True)
        if not sweeps:
            continue
        frames = []
        for method in ("qwyc_joint", "qwyc_natural", "fan_individual_mse"):
            secs, df = cpu(qwyc.sweep_job, arrays, name, method, q, 0)
            frames.append(df)
            work = qwyc_cost.sweep_work(method, q, n_rows)
            rows.append(("qwyc_sweep", f"{name}/{method}", 0, secs / work))
        secs, _ = cpu(qwyc.timing_job, arrays, pd.concat(frames), name, q, 0)
        rows.append(("qwyc_timing", name, 0, secs / (q["timing"]["runs"] * n_rows * T)))
        print(name, rows[-5:], flush=True)
    return rows


def knapsack_units(results, quick, repeats, datasets=None, adversarial=True):
    """Knapsack unit costs: pools of ``datasets`` (the quick config's by default), the
    selection, and (``adversarial``) the adversarial example."""
    from ensemble_repro.knapsack.pools import build_pool, classifier_pool
    from ensemble_repro.papers.knapsack import cells as kx

    rows = []
    quick = quick["knapsack"]
    cfg = {
        **quick,
        "n_seeds": 2,
        "budget_multiples": [3, 5],
        "MAXSTEP": 300,
        "stop_rules": ["left_tail@0.05"],
        "adversarial": {**quick["adversarial"], "n_seeds": 5, "sizes": [10]},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in datasets or quick["datasets"]:
            X, y = load(name, results)
            secs, _ = cpu(build_pool, X, y, seed=0)
            rows.append(("knapsack_pool", name, 0, secs / len(y)))
        secs, _ = cpu(kx.select_pool, "synthetic_n50", cfg, 0, None)
        evaluations = knapsack_cost.selection_evaluations(cfg, uci=False)
        rows.append(("knapsack_eval", "", 0, secs / evaluations / 50))
        rows.append(("pool_size", "uci", 0, float(len(classifier_pool(0)))))
        if adversarial:
            secs, _ = cpu(kx.adversarial, cfg, 0)
            rows.append(("knapsack_mc_draw", "", 0, secs / knapsack_cost.adversarial_draws(cfg)))
    print(rows, flush=True)
    return rows


def rows_units(results, quick, repeats):
    """Rows of every prepared data set (MEPS aside)."""
    return [("rows", n, 0, float(len(load(n, results)[1]))) for n in DATASETS if n != "meps"]


#: Per kernel family of the machine calibration, the unit cost that stands for it and the
#: section measuring that unit (restricted to what the unit needs).
ANCHORS = {
    "start": ("job_start", ""),
    "ridge": ("jab_fit", "communities/ridge"),
    "rf": ("jab_fit", "communities/rf"),
    "nn": ("jab_fit", "communities/nn"),
    "gbt": ("qwyc_gbt", "adult"),
    "pool": ("knapsack_pool", "wdbc"),
    "numeric": ("knapsack_eval", ""),
}


def anchor_units(results, quick, repeats):
    """The anchor unit costs of :data:`ANCHORS`, measured as their sections measure them (the
    job start; the pool of WDBC and the selection; J+aB fits at the largest size on Communities;
    QWYC's GBT on Adult)."""
    rows = [("job_start", "", 0, child_cpu(machine.START_CODE, repeats))]
    rows += knapsack_units(results, quick, repeats, ["wdbc"], adversarial=False)
    rows += jab_units(
        results, quick, repeats, ("communities",), {k: v[-1:] for k, v in JAB_SIZES.items()}
    )
    rows += qwyc_units(results, quick, repeats, {"adult": QWYC_DATASETS["adult"]}, sweeps=False)
    wanted = {(u, k) for u, k in ANCHORS.values()}
    return {(u, k): secs for u, k, size, secs in rows if (u, k) in wanted and size in (0, 200)}


def kernel_units(results, quick, repeats, stored=None):
    """Reference times of the machine-calibration kernels (``ensemble_repro.cost.machine.KERNELS``)
    on the machine the unit costs were measured on.

    When the unit costs are measured in the same run (``stored`` None), that is this machine:
    the kernels are timed. When they are kept from an earlier run (``--only kernels``), the
    kernels are timed here right after the anchor unit costs (:data:`ANCHORS`), and each
    kernel time is scaled by its anchor's stored cost over its cost measured now. The kernel
    times of this machine are also cached as its machine calibration."""
    now = None if stored is None else anchor_units(results, quick, repeats)
    kernels = machine.time_kernels(repeats=repeats)
    machine.machine_calibration(measure=lambda families: kernels, refresh=True)
    if stored is None:
        return [(KERNEL_UNIT, f, 0, secs) for f, secs in kernels.items()]
    out = []
    for family, anchor in ANCHORS.items():
        ratio = stored[anchor] / now[anchor]
        print(
            f"kernel {family}: {kernels[family]:.4g} s here; anchor {anchor}: stored "
            f"{stored[anchor]:.4g}, here {now[anchor]:.4g}",
            flush=True,
        )
        out.append((KERNEL_UNIT, family, 0, kernels[family] * ratio))
    return out


SECTIONS = {
    "start": start_units,
    "rows": rows_units,
    "knapsack": knapsack_units,
    "qwyc": qwyc_units,
    "jab": jab_units,
    "kernels": kernel_units,
}


def main(argv=None):
    from ensemble_repro.config import load_config

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="src/ensemble_repro/unit_costs.csv")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--results", default=None, help="work directory (default: a temporary one)")
    ap.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help="sections to measure, the other rows of --out kept "
        f"(default: all of {','.join(SECTIONS)})",
    )
    ap.add_argument(
        "--from-run",
        action="append",
        default=[],
        metavar="CONFIG:WORKDIR",
        help="calibrate the per-rule factors from a finished run instead of measuring units",
    )
    ap.add_argument(
        "--overhead-from-run",
        action="append",
        default=[],
        metavar="CONFIG:WORKDIR",
        help="set the per-job overheads from a finished run made on this machine",
    )
    args = ap.parse_args(argv)
    if args.from_run:
        return calibrate_from_runs(args.from_run, args.out, ap)
    if args.overhead_from_run:
        return overheads_from_runs(args.overhead_from_run, args.out, ap)
    only = args.only.split(",")
    if set(only) - set(SECTIONS):
        ap.error(f"--only takes some of {','.join(SECTIONS)}, got {args.only!r}")
    mirror = os.environ.get("ENSEMBLE_REPRO_MIRROR") or "../shared/data"
    data_cfg = {
        "mirror": mirror,
        "sources": ["mirror"],
        "base_url": None,
        "timeout_seconds": 60,
        "retries": 1,
    }
    quick = load_config("config/quick.yaml")
    results = args.results or tempfile.mkdtemp(prefix="calibrate-")
    names = [n for n in DATASETS if n != "meps"]  # MEPS cannot be mirrored
    stage(names, results, data_cfg)
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    measured = []
    # Load every BLAS / OpenMP library first: threadpool_limits only limits those already
    # loaded (scipy's own OpenBLAS, loaded later by the MLP's L-BFGS, ran 2 spinning threads
    # and inflated the MLP fit costs 15x).
    import scipy.optimize  # noqa: F401
    import sklearn.ensemble
    import sklearn.neural_network  # noqa: F401

    import ensemble_repro.papers.knapsack.cells
    import ensemble_repro.papers.qwyc.cells  # noqa: F401

    kept = [r for r in read_rows(args.out) if r["unit"] not in measured_units(only)]
    anchored = False
    with threadpool_limits(1):
        assert all(p["num_threads"] == 1 for p in threadpool_info()), threadpool_info()
        for section in only:
            if section == "kernels":
                continue
            measured += SECTIONS[section](results, quick, args.repeats)
        if "kernels" in only:
            # kernels after the units: when every anchor was measured in this run, they are
            # timed directly; otherwise transferred through the kept anchors
            fresh = {(u, k) for u, k, *_ in measured}
            stored = {
                (r["unit"], r["key"]): float(r["cpu_seconds"])
                for r in kept
                if (r["unit"], r["key"]) in set(ANCHORS.values()) and r["size"] in ("0", "200")
            }
            anchored = set(ANCHORS.values()) <= fresh
            measured += kernel_units(results, quick, args.repeats, None if anchored else stored)
    if "kernels" not in only or not anchored:
        # the reference kernels are another machine's: store what was measured here at its speed
        factors, where = this_machine(UnitCosts(args.out))
        print(f"measured on {where}; stored at the reference machine's speed", flush=True)
        measured = at_reference(measured, factors, machine.UNIT_FAMILIES)
    new = [
        {
            "unit": unit,
            "key": key,
            "size": size,
            "cpu_seconds": f"{secs:.6g}",
            "source": f"calibrate_costs.py {when}",
        }
        for unit, key, size, secs in measured
    ]
    write_rows(args.out, kept + new)


def measured_units(sections):
    """Units of the unit-cost table that these sections write (the rest is kept)."""
    units = {
        "start": {"job_start", "light_job", "jab_start"},
        "rows": {"rows"},
        "knapsack": {"knapsack_pool", "knapsack_eval", "pool_size", "knapsack_mc_draw"},
        "qwyc": {"qwyc_gbt", "qwyc_sweep", "qwyc_timing"},
        "jab": {"jab_fit", "jab_predict"},
        "kernels": {KERNEL_UNIT},
    }
    return set().union(*(units[s] for s in sections))


def read_rows(path):
    """Rows of an existing unit-cost table (none when it does not exist)."""
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return list(csv.DictReader(fh))


def write_rows(path, rows):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(
            fh, ["unit", "key", "size", "cpu_seconds", "source"], lineterminator="\n"
        )
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {path} ({len(rows)} rows)")


def finished_runs(specs, option, ap):
    """(jobs, config, workdir) of each CONFIG:WORKDIR of ``option``."""
    runs = []
    for spec in specs:
        config_path, sep, workdir = spec.rpartition(":")
        if not sep or not os.path.isdir(os.path.join(workdir, "results", "benchmarks")):
            ap.error(
                f"{option} {spec!r}: give CONFIG.yaml:WORKDIR, WORKDIR holding the run's "
                "results/benchmarks"
            )
        runs.append((*config_jobs(config_path, workdir), workdir))
    return runs


def replace_rows(out, unit, rows):
    """Write ``rows`` of ``unit`` into ``out``, replacing that unit's rows for their keys."""
    keys = {r["key"] for r in rows}
    kept = [r for r in read_rows(out) if not (r["unit"] == unit and r["key"] in keys)]
    write_rows(out, kept + rows)


def this_machine(reference):
    """This machine's factors against the ``reference`` unit costs, and a line naming it."""
    cal = machine.machine_calibration(log=print)
    factors = cal.factors(reference.reference_kernels())
    where = f"{cal.key['hostname']} ({cal.key['cpu_model']}, {cal.key['cores']} CPUs)"
    return factors, f"{where}, start x {factors['start']:.2f}"


def calibrate_from_runs(specs, out, ap):
    """Rewrite the ``calibration`` rows of ``out`` from finished runs (CONFIG:WORKDIR each)
    made on this machine."""
    runs = finished_runs(specs, "--from-run", ap)
    reference = UnitCosts(out)
    factors, where = this_machine(reference)
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    source = f"runs {' '.join(specs)} on {where}, {when}"
    rows = calibration_rows(runs, source=source, units=reference, factors=factors)
    for r in rows:
        print(f"calibration {r['key']}: measured / estimated = {r['cpu_seconds']}")
    replace_rows(out, "calibration", rows)


def overheads_from_runs(specs, out, ap):
    """Rewrite the ``job_overhead`` rows of ``out`` from finished runs made on this machine."""
    runs = finished_runs(specs, "--overhead-from-run", ap)
    reference = UnitCosts(out)
    factors, where = this_machine(reference)
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    source = f"runs {' '.join(specs)} on {where}, {when}"
    rows = overhead_rows(runs, source, units=reference, factors=factors)
    for r in rows:
        print(f"job_overhead {r['key']}: {r['cpu_seconds']} CPU-s per job")
    replace_rows(out, "job_overhead", rows)
    outside = [s for s in (outside_jobs(w) for _, _, w in runs) if s is not None]
    if outside:
        seconds = sum(outside) / len(outside) / factors["start"]
        print(f"run_start: {seconds:.3g} s per run outside the jobs")
        row = {"unit": "run_start", "key": "", "size": 0, "cpu_seconds": f"{seconds:.4g}"}
        replace_rows(out, "run_start", [row | {"source": source}])


if __name__ == "__main__":
    main()
