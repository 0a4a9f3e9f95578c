"""Cost estimate (ensemble_repro.estimate): the jobs it counts are the jobs Snakemake runs, the
unit arithmetic matches a hand computation, and every run prints it."""

from __future__ import annotations

import math
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workflow_helpers import REPO, merged_config, run_snakemake

from ensemble_repro import estimate as est

CONFIGS = {"smoke": REPO / "config" / "smoke.yaml", "paper": REPO / "config" / "config.yaml"}


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
    path = CONFIGS[request.param]
    proc = run_snakemake(tmp_path_factory.mktemp(request.param), "-n", configfile=path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return path, proc.stdout


@pytest.mark.workflow
def test_job_counts_equal_dry_run(dry_run):
    """Every rule job of the DAG is estimated, and nothing else: a new rule or grid key that
    the estimate does not know fails here."""
    path, output = dry_run
    config = merged_config(path)
    jobs = est.jobs(config, est.default_available(config), est.UnitCosts())
    assert Counter(j.rule for j in jobs) == dry_run_counts(output)
    assert len({j.name for j in jobs}) == len(jobs)


@pytest.mark.workflow
def test_dry_run_prints_estimate(dry_run):
    path, output = dry_run
    lines = [line for line in output.splitlines() if line.startswith("cost estimate (")]
    config = merged_config(path)
    papers = [p for p in est.PAPERS if config["experiments"][p]] + ["total"]
    assert [re.search(r"\): (\w+) ", line).group(1) for line in lines] == papers
    total = est.estimate(config, 2)[-1]
    assert f"total {total.jobs} jobs" in lines[-1] and "on 2 cores" in lines[-1]
    assert "on SLURM" in lines[-1]


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
    return est.UnitCosts(path)


def toy_config(**main):
    return {
        "experiments": {"jab": True, "qwyc": False, "knapsack": False},
        "jab": {
            "datasets": ["communities"],
            "learners": ["ridge"],
            "aggregations": ["mean"],
            "n_trials": 1,
            "max_test_points": 10,
            "main": {"n": 4, "m_ratios": [0.5], "n_resamples": 3, **main},
            "fixed_vs_random": {"enabled": False},
            "without_replacement": {"enabled": False},
        },
    }


def test_unit_arithmetic_by_hand(units):
    """n = 4, m = 2, B = 3, 100 rows (10 test rows kept), 1 trial; fits cost 1 s at m = 1 and
    4 s at m = 4, so 2 s at m = 2 (log-log); predictions 0.01 s per model and row."""
    p = 0.8**2  # a resample of 2 from 5 points misses a given one
    jab_fits = math.floor(3 / (p * 0.75**2)) * p  # floor(8.33) * 0.64 = 5.12
    assert jab_fits == pytest.approx(5.12)
    main = 1 + jab_fits * (2 + 14 * 0.01) + 4 * 3 * (2 + 11 * 0.01)
    jplus = 1 + 4 * (units.at("jab_fit", "communities/ridge", 3) + 11 * 0.01)
    assert units.at("jab_fit", "communities/ridge", 3) == pytest.approx(3.0)
    jobs = {j.name: j for j in est.jobs(toy_config(), ["communities"], units)}
    assert jobs["jab_main_cell:communities/ridge/m0.5"].cpu == pytest.approx(main)
    assert jobs["jab_jplus_cell:communities/ridge"].cpu == pytest.approx(jplus)
    costs = est.estimate(toy_config(), 1, ["communities"], units)
    light = 5 * 2  # collect, Figures 1 and 2 (one job each), tables, claims
    assert costs[0].cpu_hours * 3600 == pytest.approx(main + jplus + light)
    # + data stage (2 fetch, 1 prepare) and report stage (Table S3 as HTML, the forest plot,
    # paper_vs_ours, results_index; the `all` rule costs nothing), 2 s each
    assert costs[-1].cpu_hours * 3600 == pytest.approx(main + jplus + light + 7 * 2)
    # one core: everything in series
    assert costs[-1].wall_hours == pytest.approx(costs[-1].cpu_hours)


def test_wall_time_schedules_the_dag(units):
    """Two cores: the two-thread main cell runs alone (2 cores), the J+ cell beside nothing
    else, collectors after both."""
    jobs = est.jobs(toy_config(), ["communities"], units)
    by = {j.name: j for j in jobs}
    main = by["jab_main_cell:communities/ridge/m0.5"].cpu
    jplus = by["jab_jplus_cell:communities/ridge"].cpu
    # both fetch jobs side by side (2 s), prepare (2 s); main (2 threads, cpu/2) and J+
    # (1 thread) cannot overlap on 2 cores; then collect (2 s), Figures 1 and 2 side by side
    # (2 s), tables (2 s), claims and the HTML table side by side (2 s), the forest plot,
    # paper_vs_ours, results_index (2 s each)
    expected = 2 + 2 + main / 2 + jplus + 2 + 2 + 2 + 2 + 2 + 2 + 2
    assert est.local_wall(jobs, 2) == pytest.approx(expected)
    assert est.makespan([("a", 3.0, 1, ()), ("b", 2.0, 1, ()), ("c", 1.0, 2, ("a",))], 2) == 4.0


def test_slurm_bundles_group_components(units):
    """group-components: jab_grid=2 puts both cells in one SLURM job of 8 cores (side by side),
    so the cluster wall is the longer cell, not their sum."""
    jobs = [
        j
        for j in est.jobs(toy_config(m_ratios=[0.5, 1.0]), ["communities"], units)
        if j.rule.startswith("jab_main")
    ]
    profile = {"jobs": 10, "cores": 8, "group-components": {"jab_grid": 2}}
    assert est.slurm_wall(jobs, profile) == pytest.approx(
        max(j.cpu for j in jobs) / 2 + est.SLURM_OVERHEAD
    )
    profile["group-components"] = {}
    assert est.slurm_wall(jobs, {**profile, "jobs": 1}) == pytest.approx(
        sum(j.cpu for j in jobs) / 2 + 2 * est.SLURM_OVERHEAD
    )


def test_missing_unit_cost_names_the_table(tmp_path):
    path = tmp_path / "units.csv"
    path.write_text("unit,key,size,cpu_seconds,source\njob_start,,0,1,x\n")
    with pytest.raises(KeyError, match="no unit cost 'light_job'.*calibrate_costs.py"):
        est.jobs(toy_config(), ["communities"], est.UnitCosts(path))


def test_package_table_covers_every_mirrored_data_set():
    """The shipped table prices every experiment of the paper config (MEPS aside)."""
    config = merged_config(CONFIGS["paper"])
    costs = est.estimate(
        config,
        16,
        slurm_profile=est.load_profile(REPO / "workflow" / "profiles" / "slurm" / "config.yaml"),
    )
    assert [c.paper for c in costs] == ["jab", "qwyc", "knapsack", "total"]
    assert all(c.cpu_hours > 0 and c.wall_hours > 0 and c.slurm_hours > 0 for c in costs)
    assert costs[-1].wall_hours <= costs[-1].cpu_hours


def test_cli_prints_table(capsys):
    assert est.main(["--config", str(CONFIGS["smoke"]), "--cores", "2"]) == 0
    out = capsys.readouterr().out
    assert "| paper | jobs | CPU-hours | wall on 2 cores | wall on SLURM |" in out
    assert re.search(r"^\| total \| 79 \|", out, re.MULTILINE)  # as snakemake -n (other test)


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


def write_benchmark(workdir, rule, wildcards, cpu, wall):
    path = workdir / est.BENCHMARKS[rule].format(**wildcards)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"s\th:m:s\tmax_rss\tcpu_time\n{wall}\t0:00:01\t10\t{cpu}\n")


def test_compare_reads_benchmarks_and_calibration_scales_jobs(units, tmp_path):
    """Measured CPU comes from each job's benchmark file; a calibration row (measured /
    estimated of the bare model) multiplies that rule's jobs and nothing else."""
    bare = {j.name: j.cpu for j in est.jobs(toy_config(), ["communities"], units)}
    main = bare["jab_main_cell:communities/ridge/m0.5"]
    wc = {"jab_data": "communities", "jab_learner": "ridge"}
    write_benchmark(tmp_path, "jab_main_cell", {**wc, "jab_m": "0.5"}, 3 * main, 99.0)
    write_benchmark(tmp_path, "jab_jplus_cell", wc, 10.0, 12.0)
    rows = {r.rule: r for r in est.compare(toy_config(), tmp_path, units, ["communities"])}
    assert set(rows) == {"jab_main_cell", "jab_jplus_cell"}  # no file, no row
    assert rows["jab_main_cell"].ratio == pytest.approx(3.0)
    assert (rows["jab_main_cell"].jobs, rows["jab_main_cell"].wall) == (1, 99.0)
    cal = est.calibration_rows([(toy_config(), tmp_path)], min_cpu=20.0, units=units)
    # the J+ cell measured 10 CPU-s in all: below min_cpu, left uncalibrated
    assert [(r["key"], float(r["cpu_seconds"])) for r in cal] == [("jab_main_cell", 3.0)]
    path = tmp_path / "calibrated.csv"
    lines = units.source.read_text().splitlines() + ["calibration,jab_main_cell,0,3,test"]
    path.write_text("\n".join(lines) + "\n")
    calibrated = {
        j.name: j.cpu for j in est.jobs(toy_config(), ["communities"], est.UnitCosts(path))
    }
    assert calibrated["jab_main_cell:communities/ridge/m0.5"] == pytest.approx(3 * main)
    assert {k: v for k, v in calibrated.items() if "main" not in k} == {
        k: v for k, v in bare.items() if "main" not in k
    }
    uncal = est.UnitCosts(path, calibrated=False)
    assert {j.name: j.cpu for j in est.jobs(toy_config(), ["communities"], uncal)} == bare
    # calibrating again starts from the bare model: the same factor, not 3 x 3
    again = est.calibration_rows(
        [(toy_config(), tmp_path)], min_cpu=20.0, units=est.UnitCosts(path)
    )
    assert float(again[0]["cpu_seconds"]) == pytest.approx(3.0)
    table = est.comparison_table(list(rows.values()))
    assert "| jab | jab_main_cell | 1 |" in table and "| jab | **all** | 2 |" in table


def test_compare_rejects_a_file_that_is_not_a_benchmark(units, tmp_path):
    path = tmp_path / est.BENCHMARKS["jab_jplus_cell"].format(
        jab_data="communities", jab_learner="ridge"
    )
    path.parent.mkdir(parents=True)
    path.write_text("wall\n1\n")
    with pytest.raises(ValueError, match=r"communities_ridge.tsv: not a Snakemake benchmark"):
        est.compare(toy_config(), tmp_path, units, ["communities"])


def test_rules_take_their_benchmark_files_from_the_library():
    """Every ``benchmark:`` of the workflow is names.BENCHMARKS[<its rule>], so the estimate
    reads back the files the jobs write."""
    text = "\n".join(p.read_text() for p in sorted((REPO / "workflow" / "rules").glob("*.smk")))
    declared = re.findall(
        r"^rule (\w+):(?:(?!^rule ).)*?^    benchmark:\n\s+([^\n]+)$", text, re.M | re.S
    )
    assert declared, "no benchmark directives found"
    assert {rule: line.strip() for rule, line in declared} == {
        rule: f'names.BENCHMARKS["{rule}"]' for rule, _ in declared
    }
    assert {rule for rule, _ in declared} == set(est.BENCHMARKS)
