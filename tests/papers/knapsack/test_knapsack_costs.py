"""Measured knapsack costs are an input: measured once by the knapsack_costs target,
committed, read by every run (never re-timed), and a run without them stops at start."""

import pandas as pd
import pytest
import yaml
from workflow_helpers import REPO, merged_config, run_snakemake, smoke_config

from ensemble_repro.papers.knapsack import measured_costs as kc
from ensemble_repro.papers.knapsack.names import KNAPSACK_COSTS

KEY = kc.pool_key("sonar", 7, {"select": 0.25, "test": 0.25})


def _measured(key, seconds, members=("a", "b")):
    pool = pd.DataFrame({"member": list(members), "train_seconds": seconds})
    return kc.measured_costs(pool, key, repeats=3)


def test_measured_rows_name_the_pool_the_repeats_and_the_machine():
    rows = _measured(KEY, [0.1, 0.2])
    assert list(rows.columns) == list(kc.COST_COLUMNS)
    assert (rows["repeats"] == 3).all() and rows["cpu"].iloc[0] and rows["cores"].iloc[0] >= 1
    assert rows["measured_at"].iloc[0].endswith("Z")


def test_install_replaces_only_the_same_pool(tmp_path):
    other = kc.pool_key("sonar", 8, {"select": 0.25, "test": 0.25})
    for key, secs, name in ((KEY, [0.1, 0.2], "a"), (other, [0.3, 0.4], "b")):
        _measured(key, secs).to_csv(tmp_path / f"{name}.csv", index=False)
    (dest,) = set(kc.install([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "repo"))
    assert dest == tmp_path / "repo" / KNAPSACK_COSTS.format(kn_data="sonar")
    _measured(KEY, [0.5, 0.6]).to_csv(tmp_path / "c.csv", index=False)
    kc.install([tmp_path / "c.csv"], tmp_path / "repo")
    assert kc.read_costs(dest, KEY)["train_seconds"].tolist() == [0.5, 0.6]
    assert kc.read_costs(dest, other)["train_seconds"].tolist() == [0.3, 0.4]


def test_pool_table_takes_the_committed_costs(tmp_path):
    _measured(KEY, [0.1, 0.2]).to_csv(tmp_path / "m.csv", index=False)
    kc.install([tmp_path / "m.csv"], tmp_path)
    costs = kc.read_costs(kc.costs_path(tmp_path, "sonar"), KEY)
    pool = pd.DataFrame({"member": ["b", "a"], "p": [0.7, 0.8], "train_seconds": [9.0, 9.0]})
    assert kc.with_costs(pool, costs)["train_seconds"].tolist() == [0.2, 0.1]
    assert kc.with_costs(pool, None)["train_seconds"].isna().all()
    with pytest.raises(kc.MissingCosts, match="lack pool members \\['c'\\]"):
        kc.with_costs(pd.DataFrame({"member": ["a", "c"], "train_seconds": 1.0}), costs)


def test_missing_pool_names_the_command_that_measures_it(tmp_path):
    assert not kc.has_costs(tmp_path / "none.csv", KEY)
    with pytest.raises(kc.MissingCosts, match="make knapsack-costs"):
        kc.read_costs(tmp_path / "none.csv", KEY)


def test_committed_costs_cover_the_shipped_configs():
    for name in ("config.yaml", "quick.yaml", "smoke.yaml"):
        cfg = merged_config(REPO / "config" / name)
        for data in cfg["knapsack"]["datasets"]:
            kn = cfg["knapsack"]
            key = kc.pool_key(data, cfg["seed"], kn["split"], kn["member_features"].get(data))
            assert kc.has_costs(kc.costs_path(REPO, data), key), (name, data)


@pytest.mark.slow
@pytest.mark.workflow
def test_run_without_measured_costs_stops_at_start_and_runs_read_the_committed_file(tmp_path):
    cfg = smoke_config()
    cfg["experiments"] = {"jab": False, "qwyc": False, "knapsack": True}
    cfg["knapsack"]["cost"] = "measured"
    ok = tmp_path / "ok.yaml"
    ok.write_text(yaml.safe_dump(cfg))
    proc = run_snakemake(tmp_path / "ok", "-n", "-p", "knapsack", configfile=ok)
    assert proc.returncode == 0, proc.stdout[-3000:]
    committed = str(kc.costs_path(REPO, "sonar"))
    assert committed in proc.stdout  # the pool job's input: the committed costs
    assert "knapsack_measure_costs" not in proc.stdout  # a run never re-measures
    cfg["seed"] += 1  # a pool nobody measured
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(cfg))
    proc = run_snakemake(tmp_path / "bad", "-n", "knapsack", configfile=bad)
    assert proc.returncode != 0
    assert "has no costs for the pool sonar" in proc.stdout
    assert "Measure them once with `make knapsack-costs CONFIG=" in proc.stdout
    assert "bad.yaml`" in proc.stdout
    assert not (tmp_path / "bad" / "results").exists()


@pytest.mark.workflow
def test_missing_costs_stop_a_run_at_start_but_not_their_measurement(tmp_path):
    """The check at start (see test_rerun_triggers.py for the run it protects) lets the
    knapsack_costs target, which measures the missing costs, start."""
    cfg = smoke_config()
    cfg["experiments"] = {"jab": False, "qwyc": False, "knapsack": True}
    cfg["seed"] += 1  # a pool nobody measured
    config = tmp_path / "seed.yaml"
    config.write_text(yaml.safe_dump(cfg))
    work = tmp_path / "run"
    earlier = work / "results" / "knapsack" / "pools"
    earlier.mkdir(parents=True)
    for name in ("sonar.csv", "sonar_votes.parquet"):
        (earlier / name).write_text("made by an earlier run\n")
    proc = run_snakemake(work, "-n", "knapsack", configfile=config)
    assert proc.returncode != 0, proc.stdout[-3000:]
    assert f"has no costs for the pool sonar (seed {cfg['seed']}" in proc.stdout
    assert "Measure them once with `make knapsack-costs CONFIG=" in proc.stdout
    # the target that measures them still starts
    proc = run_snakemake(
        work, "-n", "knapsack_costs", "--forcerun", "knapsack_measure_costs", configfile=config
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
