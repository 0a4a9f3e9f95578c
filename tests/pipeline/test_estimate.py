"""Cost estimate (ensemble_repro.estimate, ensemble_repro.cost): the jobs it prices are the jobs
Snakemake runs, every rule has a cost function, the cost functions count what the jobs do, the
unit arithmetic matches a hand computation, and every run prints it."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from workflow_helpers import REPO, SNAKEFILE, mirror_dir, run_snakemake

from ensemble_repro import estimate as est
from ensemble_repro.config import load_config
from ensemble_repro.conformal import core
from ensemble_repro.cost import dag, pricing, schedule
from ensemble_repro.cost.dag import Job
from ensemble_repro.cost.machine import UNIT_FAMILIES
from ensemble_repro.cost.units import UnitCosts
from ensemble_repro.logs import JOB_CPU_SUFFIX, benchmark_of_log
from ensemble_repro.papers.jab import cells as jab
from ensemble_repro.papers.jab import cost as jab_cost
from ensemble_repro.papers.qwyc import cells as qwyc
from ensemble_repro.papers.qwyc import cost as qwyc_cost
from ensemble_repro.rule_keys import BENCHMARKS, LOGS

CONFIGS = {
    "smoke": REPO / "config" / "smoke.yaml",
    "quick": REPO / "config" / "quick.yaml",
    "paper": REPO / "config" / "config.yaml",
}
SLURM_PROFILE = REPO / est.SLURM_PROFILE


def config_jobs(name: str, workdir=None):
    return dag.config_jobs(CONFIGS[name], workdir, snakefile=SNAKEFILE)


# ---------------------------------------------------------------- the jobs are Snakemake's


def dry_run_counts(output: str) -> Counter:
    """Jobs per rule from the job-stats table of ``snakemake -n``."""
    table = output[output.index("Job stats:") :]
    counts = Counter()
    for line in table.splitlines()[3:]:
        fields = line.split()
        if len(fields) != 2 or not fields[1].isdigit():
            break
        if fields[0] != "total":
            counts[fields[0]] = int(fields[1])
    return counts


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def dry_run(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp(request.param)
    proc = run_snakemake(workdir, "-n", configfile=CONFIGS[request.param], timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return request.param, workdir, proc.stdout


@pytest.mark.workflow
def test_jobs_are_the_dry_runs(dry_run, monkeypatch):
    """The estimate prices the jobs of Snakemake's DAG, the ones a dry run in the same
    directory lists, rule by rule, and every one has a cost function."""
    name, workdir, output = dry_run
    monkeypatch.setenv("ENSEMBLE_REPRO_MIRROR", str(mirror_dir()))  # as the dry run had it
    jobs, config = config_jobs(name, workdir)
    assert Counter(j.rule for j in jobs) == dry_run_counts(output)
    assert len({j.name for j in jobs}) == len(jobs)
    priced = pricing.price(jobs, config, UnitCosts())
    assert all(j.cpu >= 0 for j in priced) and {j.paper for j in priced} <= set(pricing.PARTS)


@pytest.mark.workflow
def test_dry_run_prints_estimate(dry_run):
    name, _, output = dry_run
    lines = [line for line in output.splitlines() if line.startswith("cost estimate (")]
    jobs, config = config_jobs(name)
    papers = [p for p in ("jab", "qwyc", "knapsack") if config["experiments"][p]] + ["total"]
    assert [re.search(r"\): (\w+) ", line).group(1) for line in lines] == papers
    assert f"total {len(jobs)} jobs" in lines[-1] and "on 2 cores" in lines[-1]
    assert "on SLURM" in lines[-1]


@pytest.mark.workflow
def test_a_resumed_run_prices_only_the_jobs_left_to_run(smoke_cores2):
    """In a finished run's directory the estimate prices what Snakemake would still run: none,
    then, after forcing one rule, exactly the jobs the dry run lists, and only their papers."""

    def estimate_and_stats(*args):
        proc = run_snakemake(smoke_cores2, "-n", *args, cores=2)
        assert proc.returncode == 0, proc.stdout[-3000:]
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("cost estimate (")]
        return lines, dry_run_counts(proc.stdout) if "Job stats:" in proc.stdout else Counter()

    jobs, _ = config_jobs("smoke", smoke_cores2)
    lines, stats = estimate_and_stats()
    assert not stats
    assert lines == [
        f"cost estimate (config/smoke.yaml; 0 of {len(jobs)} jobs to run): total 0 jobs, 0 CPU-h, "
        "~0 s on 2 cores, ~0 s on SLURM"
    ]
    lines, stats = estimate_and_stats("--forcerun", "knapsack_summary")
    n = sum(stats.values())
    assert 0 < n < len(jobs) and stats.get("knapsack_summary") == 1
    assert all(f"; {n} of {len(jobs)} jobs to run)" in ln for ln in lines), lines
    assert [re.search(r"\): (\w+) ", ln).group(1) for ln in lines] == ["knapsack", "total"]
    assert f"total {n} jobs" in lines[-1]


def test_summary_names_the_jobs_left_and_leaves_out_papers_with_none():
    costs = [
        est.PaperCost("jab", 0, 0.0, 0.0),
        est.PaperCost("qwyc", 3, 0.5, 0.25),
        est.PaperCost("total", 4, 0.5, 0.3),
    ]
    assert est.summary_lines(costs, "c.yaml", 2, of=10) == [
        "cost estimate (c.yaml; 4 of 10 jobs to run): qwyc 3 jobs, 0.5 CPU-h, ~15 min on 2 cores",
        "cost estimate (c.yaml; 4 of 10 jobs to run): total 4 jobs, 0.5 CPU-h, ~18 min on 2 cores",
    ]
    assert len(est.summary_lines(costs, "c.yaml", 2)) == 3  # a fresh run: every paper


@pytest.mark.workflow
def test_no_estimate_variable_leaves_the_estimate_out(tmp_path, monkeypatch):
    """ENSEMBLE_REPRO_NO_ESTIMATE=1: the dry run lists the same jobs and prints no estimate."""
    monkeypatch.setenv(dag.NO_ESTIMATE_ENV, "1")
    proc = run_snakemake(tmp_path, "-n", configfile=CONFIGS["smoke"], timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "cost estimate" not in proc.stdout
    jobs, _ = config_jobs("smoke", tmp_path)
    assert dry_run_counts(proc.stdout) == Counter(j.rule for j in jobs)


def test_every_rule_has_a_cost_function(tmp_path):
    """Every rule of the workflow (those of no config's DAG too) is priced: a new rule without
    a cost function, or an explicit negligible one, fails here; pricing it stops the estimate."""
    with dag.parsed_workflow(CONFIGS["smoke"], tmp_path, snakefile=SNAKEFILE) as wf:
        rules = {r.name for r in wf.rules}
    assert rules - set(pricing.RULES) == set()
    assert set(pricing.RULES) - rules == set(), "cost functions of rules that do not exist"
    with pytest.raises(KeyError, match="rule made_up has no cost function"):
        pricing.price([Job("made_up")], {}, UnitCosts())


def test_local_rules_and_groups_come_from_the_rules():
    """``localrule: True`` (the report tier) and target rules are local, the grids' ``group:``
    is kept; both as the rules declare them, whatever executor this is."""
    jobs, _ = config_jobs("smoke")
    by_rule = {j.rule: j for j in jobs}
    assert by_rule["jab_collect"].local and by_rule["table_html"].local and by_rule["all"].local
    assert not by_rule["jab_main_cell"].local and not by_rule["qwyc_timing"].local
    assert by_rule["jab_main_cell"].group == "jab_grid" and by_rule["prepare"].group is None
    assert by_rule["jab_main_cell"].threads == 2 and by_rule["jab_main_cell"].resources["mem_mb"]
    assert "prepare:communities" in by_rule["jab_main_cell"].needs


# ---------------------------------------------------------------- cost functions count what jobs do


def synthetic_table(n_total: int, p: int = 4, seed: int = 0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n_total, p)
    return X, X @ rng.randn(p) + rng.randn(n_total)


@pytest.mark.parametrize(
    ("kind", "m_ratio"),
    [("main", 0.6), ("without_replacement", 0.6), ("fixed_vs_random", 1.0), ("jplus", None)],
)
def test_jab_cost_counts_the_models_a_cell_fits(kind, m_ratio, monkeypatch, tmp_path):
    """Per method, the models the estimate counts for one trial are those the cell fits (its
    rows' ``n_fits``), of the size it fits them at and predicting the rows it predicts. B is
    drawn at its mean, so that a B matched another way (per leave-one-out set or in fitted
    models, with or without replacement) shows."""

    def mean_draw(n_resamples, n, m, replace, rng):
        return round(n_resamples * core.binomial_probability(n, m, replace))

    monkeypatch.setattr(core, "draw_n_resamples", mean_draw)
    cfg = {
        "alpha": 0.1,
        "n_trials": 1,
        "trial_seed_base": 98765,
        "aggregations": ["mean"],
        "max_test_points": 30,
        "main": {"n": 10, "n_resamples": 3},
        "fixed_vs_random": {"n": 12, "n_resamples": 4},
    }
    X, y = synthetic_table(80)
    table = tmp_path / "d.parquet"
    pd.DataFrame(X, columns=list("abcd")).assign(target=y).to_parquet(table)
    rows = jab.run_job(
        kind, table, dataset="d", learner="ridge", jab_cfg=cfg, seed=1, m_ratio=m_ratio
    )
    counted = jab_cost.trial_models(kind, cfg, m_ratio, len(y))
    assert {c[0] for c in counted} == set(rows["method"])
    for method, models, size, predicted in counted:
        row = rows[rows["method"] == method].iloc[0]
        assert models == pytest.approx(row["n_fits"], abs=0.5), method
        n_test = row["n_test"]
        if kind == "jplus":
            assert (size, predicted) == (row["n"] - 1, n_test + 1)
        else:
            assert size == row["m"]
            assert predicted == (n_test + 1 if method == jab.JPLUS_ENSEMBLE else row["n"] + n_test)


@pytest.fixture(scope="module")
def adult_like(tmp_path_factory):
    """Adult-shaped prepared tables (train 400, test 100 rows)."""
    rng = np.random.default_rng(3)
    out = {}
    for name, n in (("adult_train", 400), ("adult_test", 100)):
        X = rng.normal(size=(n, 3))
        df = pd.DataFrame(X, columns=list("abc")).assign(target=(X[:, 0] > 0).astype(int))
        out[name] = tmp_path_factory.mktemp("prep") / f"{name}.parquet"
        df.to_parquet(out[name])
    return out


def test_qwyc_cost_fits_on_the_rows_the_model_job_carves_out(adult_like):
    """Under ``fit_on: train`` / ``validation`` a sweep fits on the carve-out's fitting /
    validation rows: the estimate takes their size from the model job's validation fraction
    (0.3 here: a fixed 80/20 would not match)."""
    gbt = {"n_estimators": 4, "max_depth": {"adult": 2}, "learning_rates": [0.1]}
    gbt |= {"validation_fraction": 0.3, "min_samples_leaf": 20}
    q = {"gbt": gbt, "n_splits": 1, "smaller_ensembles": [2], "decision_threshold": 0.0}
    arrays = qwyc.model_job("adult", q, 7, adult_like)[2]
    n = len(arrays["y_train"])
    for fit_on, rows in (("train", "s0_train_rows"), ("validation", "s0_validation_rows")):
        assert qwyc_cost.fitting_rows(n, {**q, "fit_on": fit_on}) == len(arrays[rows])
    assert qwyc_cost.fitting_rows(n, {**q, "fit_on": "train_full"}) == n


# ---------------------------------------------------------------- the engine, by hand


@pytest.fixture
def units(tmp_path):
    rows = [
        "unit,key,size,cpu_seconds,source",
        "job_start,,0,1,test",
        "jab_start,,0,1,test",
        "light_job,,0,2,test",
        "rows,communities,0,100,test",
        "jab_fit,communities/ridge,1,1,test",
        "jab_fit,communities/ridge,4,4,test",
        "jab_predict,communities/ridge,0,0.01,test",
    ]
    path = tmp_path / "units.csv"
    path.write_text("\n".join(rows) + "\n")
    return UnitCosts(path)


def toy_config(**main):
    return {
        "experiments": {"jab": True, "qwyc": False, "knapsack": False},
        "jab": {
            "datasets": ["communities"],
            "learners": ["ridge"],
            "n_trials": 1,
            "max_test_points": 10,
            "main": {"n": 4, "n_resamples": 3, **main},
        },
    }


WC = {"jab_data": "communities", "jab_learner": "ridge"}


def toy_jobs(m_ratios=(0.5,)) -> list[Job]:
    """A J+aB run's shape: fetch and prepare (data), main cells at ``m_ratios`` and a J+ cell
    (2 and 1 threads, group jab_grid), collect, claims (local), the report's HTML table and
    ``all``."""
    cells = [
        Job("jab_main_cell", {**WC, "jab_m": f"{r:g}"}, 2, ("prepare:communities",), "jab_grid")
        for r in m_ratios
    ]
    cells.append(Job("jab_jplus_cell", dict(WC), 1, ("prepare:communities",), "jab_grid"))
    names = tuple(c.name for c in cells)
    return [
        Job("fetch", {"group": "g", "filename": "f"}),
        Job("prepare", {"name": "communities"}, needs=("fetch:g/f",)),
        *cells,
        Job("jab_collect", needs=names, local=True),
        Job("jab_claims", needs=("jab_collect",), local=True),
        Job("table_html", {"table": "t"}, needs=("jab_collect",), local=True),
        Job("all", needs=("jab_claims", "table_html:t"), local=True),
    ]


def test_unit_arithmetic_by_hand(units):
    """n = 4, m = 2, B = 3, 100 rows (10 test rows kept), 1 trial; fits cost 1 s at m = 1 and
    4 s at m = 4, so 2 s at m = 2 (log-log); predictions 0.01 s per model and row."""
    p = 0.8**2  # a resample of 2 from 5 points misses a given one
    jab_fits = math.floor(3 / (p * 0.75**2)) * p  # floor(8.33) * 0.64 = 5.12
    assert jab_cost.expected_models(4, 2, 3, "loo") == pytest.approx(jab_fits)
    main = 1 + jab_fits * (2 + 14 * 0.01) + 4 * 3 * (2 + 11 * 0.01)
    jplus = 1 + 4 * (units.at("jab_fit", "communities/ridge", 3) + 11 * 0.01)
    assert units.at("jab_fit", "communities/ridge", 3) == pytest.approx(3.0)
    priced = {j.name: j for j in pricing.price(toy_jobs(), toy_config(), units)}
    assert priced["jab_main_cell:communities/ridge/0.5"].cpu == pytest.approx(main)
    assert priced["jab_jplus_cell:communities/ridge"].cpu == pytest.approx(jplus)
    costs = est.estimate(toy_jobs(), toy_config(), 1, units)
    assert [c.paper for c in costs] == ["jab", "total"]
    light = 2 * 2  # collect and claims
    assert costs[0].cpu_hours * 3600 == pytest.approx(main + jplus + light)
    # + fetch, prepare and the HTML table, 2 s each (the `all` rule costs nothing)
    assert costs[-1].cpu_hours * 3600 == pytest.approx(main + jplus + light + 3 * 2)
    assert (costs[0].jobs, costs[-1].jobs) == (4, 8)
    # one core: everything in series
    assert costs[-1].wall_hours == pytest.approx(costs[-1].cpu_hours)


def test_wall_time_schedules_the_dag(units):
    """Two cores: the two-thread main cell runs alone (2 cores), the J+ cell beside nothing
    else, the collectors after both."""
    priced = {j.name: j for j in pricing.price(toy_jobs(), toy_config(), units)}
    cell = priced["jab_main_cell:communities/ridge/0.5"]
    jplus = priced["jab_jplus_cell:communities/ridge"].cpu
    # fetch, prepare (2 s each); main (2 threads: its start, then the rest over 2) and J+
    # (1 thread) cannot overlap on 2 cores; then collect (2 s), claims and the HTML table side
    # by side (2 s)
    main = cell.serial + (cell.cpu - cell.serial) / 2
    expected = 2 + 2 + main + jplus + 2 + 2
    assert schedule.local_wall(list(priced.values()), 2) == pytest.approx(expected)
    assert schedule.makespan([("a", 3.0, 1, ()), ("b", 2.0, 1, ()), ("c", 1.0, 2, ("a",))], 2) == 4


def test_slurm_bundles_group_components_and_keeps_local_jobs_home(units):
    """group-components: jab_grid=2 puts two independent cells in one SLURM job of 8 cores
    (side by side), so the cluster wall is the longer cell, not their sum; the profile's
    ``groups`` bundle fetch and prepare (one component) into one SLURM job; local jobs add no
    SLURM job and run ``local-cores`` at a time."""
    priced = pricing.price(toy_jobs(m_ratios=(0.5, 1.0)), toy_config(), units)
    cells = [j for j in priced if j.rule == "jab_main_cell"]
    profile = {"jobs": 10, "cores": 8, "group-components": {"jab_grid": 2}}
    assert schedule.slurm_wall(cells, profile) == pytest.approx(
        max(j.cpu + j.serial for j in cells) / 2 + schedule.SLURM_OVERHEAD
    )
    assert schedule.slurm_wall(cells, {**profile, "jobs": 1, "group-components": {}}) == (
        pytest.approx(sum(j.cpu + j.serial for j in cells) / 2 + 2 * schedule.SLURM_OVERHEAD)
    )
    # local jobs share the submitting host's local-cores: three 2-s jobs on one core take 6 s
    local = [replace(Job(f"l{i}", local=True), cpu=2.0) for i in range(3)]
    assert schedule.slurm_wall(local, {**profile, "local-cores": 1}) == pytest.approx(6.0)
    assert schedule.slurm_wall(local, {**profile, "local-cores": 3}) == pytest.approx(2.0)
    profile = {**profile, "groups": {"fetch": "data", "prepare": "data"}}
    bundles = schedule.slurm_bundles(priced, profile)
    assert sorted(len(b) for b in bundles) == [1, 2, 2]  # data; two main cells; J+ cell
    assert not any(j.local for b in bundles for j in b)


def test_missing_unit_cost_names_the_table(tmp_path):
    path = tmp_path / "units.csv"
    path.write_text("unit,key,size,cpu_seconds,source\njob_start,,0,1,x\n")
    with pytest.raises(KeyError, match="no unit cost 'light_job'.*calibrate_costs.py"):
        pricing.price(toy_jobs(), toy_config(), UnitCosts(path))


def test_a_data_set_without_unit_costs_stops_the_estimate_naming_it():
    """A J+aB data set the table never measured and no stand-in covers is an error naming
    the data set, the table and the fix, not priced as another data set."""
    config = {
        "experiments": {"jab": True, "qwyc": False, "knapsack": False},
        "jab": {"datasets": ["communities", "newset"], "learners": ["ridge", "nn"]},
    }
    with pytest.raises(pricing.UnitCostError) as err:
        est.estimate([], config, cores=2)
    assert str(err.value) == (
        "unit_costs.csv has no unit cost 'rows' for 'newset', which J+aB data set 'newset' of "
        "jab.datasets is priced with (5 unit cost(s) missing): measure them with "
        "benchmarks/calibrate_costs.py (it writes src/ensemble_repro/unit_costs.csv), or leave "
        "the data set out of the config"
    )
    # not a KeyError, ValueError or OSError: the start-of-run estimate (common.smk) logs
    # those and goes on, this one stops the run
    assert not issubclass(pricing.UnitCostError, (KeyError, ValueError, OSError))


def test_meps_is_priced_as_its_declared_stand_in():
    units, jab_cfg = UnitCosts(), load_config(CONFIGS["paper"])["jab"]
    for kind in ("main", "jplus"):
        m_ratio = None if kind == "jplus" else 0.6
        assert jab_cost.cell_seconds(units, kind, "meps", "nn", jab_cfg, m_ratio) == (
            jab_cost.cell_seconds(units, kind, "blog", "nn", jab_cfg, m_ratio)
        )


def test_package_table_covers_every_mirrored_data_set():
    """The shipped table prices every experiment of the paper config (MEPS aside)."""
    jobs, config = config_jobs("paper")
    costs = est.estimate(jobs, config, 16, slurm_profile=schedule.load_profile(SLURM_PROFILE))
    assert [c.paper for c in costs] == ["jab", "qwyc", "knapsack", "total"]
    assert all(c.cpu_hours > 0 and c.wall_hours > 0 and c.slurm_hours > 0 for c in costs)
    assert costs[-1].wall_hours <= costs[-1].cpu_hours


def test_cli_prints_table(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    argv = ["--config", str(CONFIGS["smoke"]), "--cores", "2", "--machine", "reference"]
    assert est.main([*argv, "--idle"]) == 0
    out = capsys.readouterr().out
    assert "| paper | jobs | CPU-hours | wall on 2 cores | wall on SLURM |" in out
    assert re.search(r"^\| total \| 53 \|", out, re.MULTILINE)  # as snakemake -n (other test)


def test_cli_bad_input_names_it(tmp_path, capsys):
    none = tmp_path / "none.yaml"
    with pytest.raises(SystemExit):
        est.main(["--config", str(none)])
    assert f"--config {none}: config file {none} does not exist" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("jab: {alpha: 1.5}\n")  # an overlay on config/config.yaml
    schema = REPO / "workflow" / "schemas" / "config.schema.yaml"
    assert est.main(["--config", str(bad), "--schema", str(schema)]) == 2
    assert "config value jab.alpha = 1.5 is invalid" in capsys.readouterr().err


def test_readme_cost_table_is_the_estimate(monkeypatch):
    """README.md's cost table is what the estimate says now (``make readme-cost``): a change of
    the unit costs, the cost model or a config without regenerating it fails here."""
    monkeypatch.chdir(REPO)
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split(est.README_COST_BEGIN)[1].split(est.README_COST_END)[0]
    table = est.readme_cost_table()
    assert block.strip() == table
    rows = {tuple(r.split(" | ")[:2]) for r in table.splitlines()[2:]}
    assert rows == {
        (f"| {c}", p) for c in est.README_CONFIGS for p in ("jab", "qwyc", "knapsack", "total")
    }


def test_readme_cost_table_needs_its_markers(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n{est.README_COST_BEGIN}\n")
    assert est.main(["--readme", str(readme)]) == 2
    err = capsys.readouterr().err
    assert (
        f"{readme} must hold each marker line once; {est.README_COST_END!r} occurs 0 times" in err
    )
    assert "where the cost table goes" in err
    assert readme.read_text() == f"# title\n{est.README_COST_BEGIN}\n"


# ---------------------------------------------------------------- measured against estimated


def write_benchmark(workdir, rule, wildcards, cpu, wall):
    return write_bench_file(workdir / BENCHMARKS[rule].format(**wildcards), cpu, wall)


def write_bench_file(path, cpu, wall):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"s\th:m:s\tmax_rss\tcpu_time\n{wall}\t0:00:01\t10\t{cpu}\n")
    return path


def test_compare_reads_benchmarks_and_calibration_scales_jobs(units, tmp_path):
    """Measured CPU comes from each job's benchmark file; a calibration row (measured /
    estimated of the bare model) multiplies that rule's jobs and nothing else."""
    jobs, config = toy_jobs(), toy_config()
    bare = {j.name: j.cpu for j in pricing.price(jobs, config, units)}
    main = bare["jab_main_cell:communities/ridge/0.5"]
    write_benchmark(tmp_path, "jab_main_cell", {**WC, "jab_m": "0.5"}, 3 * main, 99.0)
    write_benchmark(tmp_path, "jab_jplus_cell", WC, 10.0, 12.0)
    rows = {r.rule: r for r in est.compare(jobs, config, tmp_path, units)}
    assert set(rows) == {"jab_main_cell", "jab_jplus_cell"}  # no file, no row
    assert rows["jab_main_cell"].ratio == pytest.approx(3.0)
    assert (rows["jab_main_cell"].jobs, rows["jab_main_cell"].wall) == (1, 99.0)
    cal = est.calibration_rows([(jobs, config, tmp_path)], min_cpu=20.0, units=units)
    # the J+ cell measured 10 CPU-s in all: below min_cpu, left uncalibrated
    assert [(r["key"], float(r["cpu_seconds"])) for r in cal] == [("jab_main_cell", 3.0)]
    path = tmp_path / "calibrated.csv"
    lines = units.source.read_text().splitlines() + ["calibration,jab_main_cell,0,3,test"]
    path.write_text("\n".join(lines) + "\n")
    calibrated = {j.name: j.cpu for j in pricing.price(jobs, config, UnitCosts(path))}
    assert calibrated["jab_main_cell:communities/ridge/0.5"] == pytest.approx(3 * main)
    assert {k: v for k, v in calibrated.items() if "main" not in k} == {
        k: v for k, v in bare.items() if "main" not in k
    }
    uncal = UnitCosts(path, calibrated=False)
    assert {j.name: j.cpu for j in pricing.price(jobs, config, uncal)} == bare
    # calibrating again starts from the bare model: the same factor, not 3 x 3
    again = est.calibration_rows([(jobs, config, tmp_path)], min_cpu=20.0, units=UnitCosts(path))
    assert float(again[0]["cpu_seconds"]) == pytest.approx(3.0)
    # runs of a machine 3x slower per CPU-second than the reference: the unit costs are
    # scaled to it first, and the rule needs no factor on the reference machine
    slow = est.calibration_rows(
        [(jobs, config, tmp_path)], min_cpu=20.0, units=units, factors={"start": 3.0, "ridge": 3.0}
    )
    assert float(slow[0]["cpu_seconds"]) == pytest.approx(1.0)
    table = est.comparison_table(list(rows.values()))
    assert "| jab | jab_main_cell | 1 |" in table and "| jab | **all** | 2 |" in table


def test_overheads_are_the_mean_residual_per_job_and_priced_once_per_job(units, tmp_path):
    """A rule's ``job_overhead`` is the mean over its measured jobs of measured less estimated
    CPU (at the reference machine's speed: divided by the start factor); pricing adds it to
    each of the rule's jobs and to no other rule's, never below 0 CPU-s."""
    jobs, config = toy_jobs(m_ratios=(0.5, 1.0)), toy_config()
    bare = {j.name: j.cpu for j in pricing.price(jobs, config, units)}
    main = [n for n in bare if n.startswith("jab_main_cell")]
    # made on a machine whose start is 2x the reference's, and ridge 1x
    factors = {"start": 2.0, "ridge": 1.0}
    scaled = {
        j.name: j.cpu for j in pricing.price(jobs, config, units.scaled(factors, UNIT_FAMILIES))
    }
    for name, extra in zip(main, (3.0, 5.0), strict=True):
        m = name.rsplit("/", 1)[1]
        write_benchmark(tmp_path, "jab_main_cell", {**WC, "jab_m": m}, scaled[name] + extra, 1.0)
    write_benchmark(tmp_path, "jab_collect", {}, 2.5, 1.0)  # light job: 2 x 2 CPU-s estimated
    rows = est.overhead_rows([(jobs, config, tmp_path)], "t", units=units, factors=factors)
    got = {r["key"]: float(r["cpu_seconds"]) for r in rows}
    assert got == pytest.approx({"jab_main_cell": (3.0 + 5.0) / 2 / 2.0, "jab_collect": -0.75})
    path = tmp_path / "overheads.csv"
    lines = units.source.read_text().splitlines()
    lines += ["job_overhead,jab_main_cell,0,2,t", "job_overhead,jab_collect,0,-5,t"]
    path.write_text("\n".join(lines) + "\n")
    priced = {j.name: j.cpu for j in pricing.price(jobs, config, UnitCosts(path))}
    assert {n: priced[n] - bare[n] for n in main} == pytest.approx(dict.fromkeys(main, 2.0))
    assert priced["jab_collect"] == 0.0  # 2 - 5 clipped
    others = [n for n in bare if n not in main and n != "jab_collect"]
    assert {n: priced[n] for n in others} == {n: bare[n] for n in others}
    uncal = UnitCosts(path, calibrated=False)
    assert {j.name: j.cpu for j in pricing.price(jobs, config, uncal)} == bare
    # fitting again compares with the estimate without the stored overheads: the same rows
    again = est.overhead_rows([(jobs, config, tmp_path)], "t", UnitCosts(path), factors)
    assert {r["key"]: float(r["cpu_seconds"]) for r in again} == pytest.approx(got)


def test_measured_cpu_is_the_jobs_own_count_where_the_benchmark_missed_some(tmp_path):
    """Snakemake's benchmark stops sampling CPU time between its 30-s samples; the job's own
    count in the sidecar is taken when larger, never when smaller, and a bad one is named."""
    job = Job("jab_jplus_cell", WC)
    write_benchmark(tmp_path, "jab_jplus_cell", WC, 15.0, 44.0)
    assert est.measured(job, tmp_path) == (15.0, 44.0)  # no sidecar: the benchmark's
    sidecar = tmp_path / (BENCHMARKS["jab_jplus_cell"].format(**WC) + JOB_CPU_SUFFIX)
    sidecar.write_text('{"cpu_seconds": 42.5}')
    assert est.measured(job, tmp_path) == (42.5, 44.0)
    sidecar.write_text('{"cpu_seconds": 9.0}')
    assert est.measured(job, tmp_path) == (15.0, 44.0)
    sidecar.write_text("15")
    with pytest.raises(ValueError, match=r"communities_ridge.tsv.cpu: not a job CPU sidecar"):
        est.measured(job, tmp_path)


_JOB = """
import os, sys, time
from ensemble_repro.logs import setup_logging
setup_logging("results/logs/jab/jplus/communities_ridge.log")
end = time.process_time() + 0.3
while time.process_time() < end:
    pass
if sys.argv[1] == "crash":
    os._exit(1)  # killed: no exit hooks
"""


def test_a_job_writes_its_own_cpu_beside_its_benchmark_and_clears_a_stale_one(tmp_path):
    (tmp_path / "results" / "logs" / "jab" / "jplus").mkdir(parents=True)
    sidecar = tmp_path / (BENCHMARKS["jab_jplus_cell"].format(**WC) + JOB_CPU_SUFFIX)
    sidecar.parent.mkdir(parents=True)
    sidecar.write_text('{"cpu_seconds": 999.0}')  # an earlier run's
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    run = [sys.executable, "-c", _JOB]
    subprocess.run([*run, "crash"], cwd=tmp_path, env=env, check=False)
    assert not sidecar.exists()
    subprocess.run([*run, "ok"], cwd=tmp_path, env=env, check=True)
    got = json.loads(sidecar.read_text())["cpu_seconds"]
    assert 0.3 <= got < 30.0
    assert not list(sidecar.parent.glob("*.tmp*"))


def test_outside_jobs_is_the_log_span_less_the_jobs_span(tmp_path):
    """Seconds outside the jobs: the Snakemake log that covers every job (named by its start,
    written last at its end) less first job start to last job end."""
    start = dt.datetime(2026, 12, 3, 2, 13, 57, 500000)
    log_dir = tmp_path / ".snakemake" / "log"
    log_dir.mkdir(parents=True)
    t0 = start.timestamp()
    stale = log_dir / "2026-12-01T100000.000000.snakemake.log"  # an earlier run's
    stale.write_text("")
    os.utime(stale, (t0 - 3600, t0 - 3600))
    assert est.outside_jobs(tmp_path) is None  # no jobs yet
    log = log_dir / f"{start:%Y-%m-%dT%H%M%S.%f}.snakemake.log"
    log.write_text("")
    ends = {"a": (t0 + 10.0, 4.0), "b": (t0 + 30.0, 25.0)}  # jobs 6-10 s and 5-30 s in
    for name, (end, wall) in ends.items():
        path = write_bench_file(tmp_path / f"results/benchmarks/x/{name}.tsv", 1.0, wall)
        os.utime(path, (end, end))
    os.utime(log, (t0 + 33.0, t0 + 33.0))
    assert est.outside_jobs(tmp_path) == pytest.approx(33.0 - 25.0)
    os.utime(log, (t0 + 20.0, t0 + 20.0))  # a log that ended before the last job: not the run's
    assert est.outside_jobs(tmp_path) is None


def test_a_threaded_job_spreads_all_but_its_start_over_its_threads(units):
    """A J+aB cell's start (``jab_start``, one process) and per-job overhead run on one thread;
    the rest of its CPU time spreads over min(threads, cores)."""
    jobs, config = toy_jobs(), toy_config()
    priced = {j.name: j for j in pricing.price(jobs, config, units)}
    cell = priced["jab_main_cell:communities/ridge/0.5"]
    start = units.get("jab_start") + max(units.overhead("jab_main_cell"), 0.0)
    assert cell.threads == 2 and cell.serial == pytest.approx(start)
    assert schedule.duration(cell, 2) == pytest.approx(start + (cell.cpu - start) / 2)
    assert schedule.duration(cell, 1) == pytest.approx(cell.cpu)
    collect = priced["jab_collect"]
    assert schedule.duration(collect, 2) == pytest.approx(collect.cpu)  # one thread: all of it


def test_run_start_adds_to_every_local_wall_once(units, tmp_path):
    jobs, config = toy_jobs(), toy_config()
    path = tmp_path / "units.csv"
    path.write_text(units.source.read_text() + "run_start,,0,30,test\n")
    without = est.estimate(jobs, config, cores=2, units=units)
    with_start = est.estimate(jobs, config, cores=2, units=UnitCosts(path), share=0.5)
    halved = est.estimate(jobs, config, cores=2, units=units, share=0.5)
    for a, b, c in zip(without, with_start, halved, strict=True):
        assert b.cpu_hours == a.cpu_hours
        assert b.wall_hours * 3600 == pytest.approx(c.wall_hours * 3600 + 30 / 0.5)


def test_compare_rejects_a_file_that_is_not_a_benchmark(units, tmp_path):
    path = tmp_path / BENCHMARKS["jab_jplus_cell"].format(**WC)
    path.parent.mkdir(parents=True)
    path.write_text("wall\n1\n")
    with pytest.raises(ValueError, match=r"communities_ridge.tsv: not a Snakemake benchmark"):
        est.compare(toy_jobs(), toy_config(), tmp_path, units)


def test_rules_take_their_benchmark_files_from_the_library():
    """Every rule that runs a script has a ``benchmark:``, BENCHMARKS[<its rule>], so the
    estimate reads back the files the jobs write."""
    text = "\n".join(p.read_text() for p in sorted((REPO / "workflow" / "rules").glob("*.smk")))
    declared = re.findall(
        r"^rule (\w+):(?:(?!^rule ).)*?^    benchmark:\n\s+([^\n]+)$", text, re.M | re.S
    )
    assert declared, "no benchmark directives found"
    assert {rule: line.strip() for rule, line in declared} == {
        rule: f'BENCHMARKS["{rule}"]' for rule, _ in declared
    }
    assert {rule for rule, _ in declared} == set(BENCHMARKS)
    # every rule that runs a script measures itself (the estimate's overheads need them all)
    scripted = set(re.findall(r"^rule (\w+):(?:(?!^rule ).)*?^    script:", text, re.M | re.S))
    assert scripted and scripted <= {rule for rule, _ in declared}
    # and its log, LOGS[<its rule>], mirrors its benchmark file, where the job writes its own
    # CPU count
    logs = dict(
        re.findall(r"^rule (\w+):(?:(?!^rule ).)*?^    log:\n\s+([^\n]+)$", text, re.M | re.S)
    )
    assert {rule: logs.get(rule, "").strip() for rule in BENCHMARKS} == {
        rule: f'LOGS["{rule}"],' for rule in BENCHMARKS
    }
    assert {rule: benchmark_of_log(LOGS[rule]) for rule in BENCHMARKS} == BENCHMARKS


def test_benchmark_files_of_the_record_are_the_rules_benchmark_files():
    """The published run's benchmark files (read back by ``make verify`` and the estimate) are
    each the ``benchmark:`` file of one rule's job, as the rules name them today."""
    published = sorted((REPO / "record" / "paper" / "benchmarks").rglob("*.tsv"))
    assert published, "no benchmark files in the record"
    patterns = {
        rule: re.compile(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)) + "$")
        for rule, path in BENCHMARKS.items()
    }
    for f in published:
        rel = "results/" + f.relative_to(REPO / "record" / "paper").as_posix()
        assert [r for r, pat in patterns.items() if pat.match(rel)], rel


@pytest.mark.parametrize(
    ("aggregations", "fvr", "n_figures"),
    [
        (["mean", "median", "trimmed_mean"], True, 12),
        (["mean", "median"], False, 4),
        (["mean"], True, 4),
    ],
)
def test_the_figures_job_costs_a_light_job_per_figure(aggregations, fvr, n_figures):
    """One job draws every J+aB figure (Figures 1, 2, S1-S4 per aggregation of the main grid,
    S5-S10 of the fixed-vs-random grid): it costs as much as that many one-figure jobs."""
    units = UnitCosts()
    config = {"jab": {"aggregations": aggregations, "fixed_vs_random": {"enabled": fvr}}}
    job = Job("jab_figures")
    assert jab_cost.COSTS["jab_figures"](job, config, units) == pytest.approx(
        n_figures * units.get("light_job")
    )


@pytest.mark.parametrize("option", ["--unit-costs", "--slurm-profile"])
def test_cli_names_a_missing_input_file(tmp_path, capsys, option):
    missing = tmp_path / "nope.csv"
    with pytest.raises(SystemExit) as info:
        est.main(["--config", str(REPO / "config" / "smoke.yaml"), option, str(missing)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"{option} {missing}: no such file (looked for {missing}); give " in err, err
