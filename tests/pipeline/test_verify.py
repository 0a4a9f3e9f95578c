"""Checking a run against a record (ensemble_repro.verify): identical results pass, a changed
number, a missing or extra row, a changed verdict fail and are named; timing columns within
the stated ratio pass; a partial run passes on the tables it has."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from record_fixtures import seal

from ensemble_repro import verify as v
from ensemble_repro.claims.claim import COLUMNS as CLAIM_COLUMNS


def write(root: Path, rel: str, df: pd.DataFrame) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return path


def table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "dataset": ["communities", "communities", "blog"],
            "learner": ["ridge", "rf", "ridge"],
            "coverage": [0.9012345678901, 0.88, 0.91],
            "n_test": [100, 100, 200],
            "fit_seconds": [1.5, 20.0, 3.0],
            "speedup_vs_full": [2.0, 1.1, 3.0],
        }
    )


def claims(verdicts=("reproduced", "partly reproduced"), ours_timing="2.1x") -> pd.DataFrame:
    rows = []
    for i, (verdict, timing) in enumerate(zip(verdicts, (False, True), strict=True)):
        row = dict.fromkeys(CLAIM_COLUMNS, "")
        row.update(
            paper="jab",
            claim_id=f"jab.claim{i}",
            dataset="communities",
            ours=ours_timing if timing else "coverage 0.90",
            verdict=verdict,
            made_on="2026-12-01",
            timing=timing,
        )
        rows.append(row)
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))


@pytest.fixture
def pair(tmp_path):
    """A run and a record holding the same two tables and a provenance sidecar."""
    run, record = tmp_path / "run", tmp_path / "record"
    for root in (run, record):
        write(root, "jab/communities/table.csv", table())
        write(root, "claims.csv", claims())
        (root / "jab/communities/table.provenance.json").write_text(
            json.dumps({"config": {"n": 10}, "seed": 1})
        )
        write(root, "benchmarks/jab/cell.csv", pd.DataFrame({"s": [1.0]}))
    seal(record)
    return run, record


def run_main(run, record, capsys) -> tuple[int, str]:
    code = v.main([str(run), str(record)])
    return code, capsys.readouterr().out


def test_identical_tables_pass(pair, capsys):
    code, out = run_main(*pair, capsys)
    assert code == 0, out
    assert "summary: 3 identical" in out and "OK:" in out
    assert "benchmarks" not in out  # benchmark files are timing only: not compared


def test_changed_number_is_named(pair, capsys):
    run, record = pair
    write(run, "jab/communities/table.csv", table().assign(coverage=[0.9012345678901, 0.87, 0.91]))
    code, out = run_main(run, record, capsys)
    assert code == 1
    assert "differs      jab/communities/table.csv" in out
    assert "row dataset=communities, learner=rf: column coverage: run 0.87 vs record 0.88" in out
    assert "FAILED: 1 file(s)" in out


def test_float_noise_within_tolerance_passes(pair, capsys):
    run, record = pair
    noisy = table()
    noisy["coverage"] *= 1 + v.REL_TOL / 10
    write(run, "jab/communities/table.csv", noisy)
    assert run_main(run, record, capsys)[0] == 0
    noisy["coverage"] = table()["coverage"] * (1 + v.REL_TOL * 10)
    write(run, "jab/communities/table.csv", noisy)
    assert run_main(run, record, capsys)[0] == 1


def test_missing_and_extra_rows_are_named(pair, capsys):
    run, record = pair
    write(run, "jab/communities/table.csv", table().drop(index=2))
    code, out = run_main(run, record, capsys)
    assert code == 1
    assert "row dataset=blog, learner=ridge: in the record, missing from the run" in out
    extra = pd.concat([table(), table().iloc[[0]].assign(learner="nn")])
    write(run, "jab/communities/table.csv", extra)
    code, out = run_main(run, record, capsys)
    assert code == 1
    assert "row dataset=communities, learner=nn: in the run, not in the record" in out


def test_timing_columns_within_ratio_pass_and_beyond_are_reported(pair, capsys):
    run, record = pair
    write(run, "jab/communities/table.csv", table().assign(fit_seconds=[3.0, 10.0, 6.0]))
    code, out = run_main(run, record, capsys)
    assert code == 0 and "summary: 3 identical" in out
    write(run, "jab/communities/table.csv", table().assign(speedup_vs_full=[2.0, 1.1, 30.0]))
    code, out = run_main(run, record, capsys)
    assert code == 0, out
    assert "timing-only  jab/communities/table.csv" in out
    assert "column speedup_vs_full: run 30.0 vs record 3.0" in out


def test_verdict_change_fails_except_on_wall_clock_claims(pair, capsys):
    run, record = pair
    write(run, "claims.csv", claims(verdicts=("not reproduced", "partly reproduced")))
    code, out = run_main(run, record, capsys)
    assert code == 1
    assert (
        "row paper=jab, claim_id=jab.claim0, dataset=communities: column verdict: "
        "run 'not reproduced' vs record 'reproduced'" in out
    )
    # a wall-clock claim's verdict and numbers rest on timings: reported, not failing
    write(run, "claims.csv", claims(verdicts=("reproduced", "reproduced"), ours_timing="1.2x"))
    code, out = run_main(run, record, capsys)
    assert code == 0, out
    assert "timing-only  claims.csv" in out and "column verdict" in out


def test_ignored_columns_and_provenance_keys(pair, capsys):
    run, record = pair
    write(run, "claims.csv", claims().assign(made_on="2027-01-01"))
    (run / "jab/communities/table.provenance.json").write_text(
        json.dumps({"config": {"n": 10}, "seed": 1, "commit": "abc123"})
    )
    assert run_main(run, record, capsys)[0] == 0
    (run / "jab/communities/table.provenance.json").write_text(
        json.dumps({"config": {"n": 20}, "seed": 1})
    )
    code, out = run_main(run, record, capsys)
    assert code == 1 and "row config.n: column value: run 20 vs record 10" in out


def test_changed_columns_fail(pair, capsys):
    run, record = pair
    write(run, "jab/communities/table.csv", table().assign(width=1.0))
    code, out = run_main(run, record, capsys)
    assert code == 1 and "columns only in the run: width" in out


def test_partial_run_passes_and_tables_only_in_the_run_fail(pair, capsys):
    run, record = pair
    (run / "claims.csv").unlink()
    code, out = run_main(run, record, capsys)
    assert code == 0, out
    assert "not run      claims.csv" in out and "1 not run" in out
    # the record's files of a slice the run left out: one line for their folder
    for i in range(3):
        write(record, f"knapsack/runs/pool{i}.csv", table())
    seal(record)
    code, out = run_main(run, record, capsys)
    assert code == 0 and "not run      knapsack/runs/ (3 files)" in out, out
    assert "pool0" not in out and "4 not run" in out
    write(run, "qwyc/new.csv", table())
    code, out = run_main(run, record, capsys)
    assert code == 1 and "only in run  qwyc/new.csv" in out


@pytest.mark.parametrize("which", ["run", "record"])
def test_missing_folder_is_named(pair, capsys, which):
    run, record = pair
    args = [run.parent / "nowhere", record] if which == "run" else [run, run.parent / "nowhere"]
    code = v.main([str(a) for a in args])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{'RUN_DIR' if which == 'run' else 'RECORD_DIR'} {run.parent / 'nowhere'}" in err
    assert "no such folder" in err


def test_jab_cells_are_compared_and_other_parquet_files_are_not(pair, capsys):
    run, record = pair
    cell = "jab/cells/main/communities/ridge/m0.2.parquet"
    for root in (run, record):
        (root / cell).parent.mkdir(parents=True)
        table().to_parquet(root / cell)
        (root / "knapsack/pools").mkdir(parents=True)
        pd.DataFrame({"x": [1.0 if root == run else 2.0]}).to_parquet(
            root / "knapsack/pools/sonar_votes.parquet"
        )
    seal(record)
    code, out = run_main(run, record, capsys)
    assert code == 0, out
    assert f"identical    {cell}" in out and "sonar_votes" not in out
    table().assign(coverage=[0.9012345678901, 0.88, 0.92]).to_parquet(run / cell)
    code, out = run_main(run, record, capsys)
    assert code == 1
    assert f"differs      {cell}" in out
    assert "row dataset=blog, learner=ridge: column coverage: run 0.92 vs record 0.91" in out


def test_key_columns_fall_back_to_order_of_appearance():
    df = pd.DataFrame({"k": ["a", "a"], "x": [1.0, 2.0]})
    assert v.key_columns(df) == ["k"]
    res = v.compare_tables(df.assign(x=[1.0, 3.0]), df)
    assert res.status == v.DIFFERS
    assert res.differences[0].text() == "row k=a (#2): column x: run 3.0 vs record 2.0"


# ---------------------------------------------------------------- on a smoke run


@pytest.fixture(scope="module")
def smoke_record(smoke_cores2, tmp_path_factory):
    """The shared smoke run's results, and a copy of them as a record."""
    results = smoke_cores2 / "results"
    record = tmp_path_factory.mktemp("record") / "smoke"
    shutil.copytree(results, record, ignore=shutil.ignore_patterns("data", "logs"))
    seal(record)
    return results, record


def cli(run, record) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ensemble_repro.verify", str(run), str(record)],
        capture_output=True,
        text=True,
    )


def perturbed(record: Path, tmp_path: Path) -> Path:
    """A copy of ``record`` for the caller to change and :func:`seal` again (a record edited
    without its manifest is refused, whatever the change)."""
    out = tmp_path / "perturbed"
    shutil.copytree(record, out)
    return out


def first_table(record: Path, pattern: str) -> str:
    """The first result table (claims tables aside) matching ``pattern`` under ``record``."""
    return sorted(
        p.relative_to(record).as_posix() for p in record.glob(pattern) if p.name != "claims.csv"
    )[0]


@pytest.mark.slow
@pytest.mark.workflow
def test_smoke_run_matches_itself(smoke_record):
    results, record = smoke_record
    proc = cli(results, record)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "differs" not in proc.stdout
    n_tables = len(v.result_files(record))
    assert f"summary: {n_tables} identical" in proc.stdout


@pytest.mark.slow
@pytest.mark.workflow
def test_smoke_run_perturbed_record_is_reported(smoke_record, tmp_path):
    results, record = smoke_record
    rec = perturbed(record, tmp_path)
    # a changed number in a J+aB summary table
    jab = first_table(rec, "jab/**/*.csv")
    df = pd.read_csv(rec / jab)
    col = next(
        c
        for c in df.columns
        if pd.api.types.is_float_dtype(df[c]) and df[c].notna().all() and not v.is_timing_column(c)
    )
    keys = v.key_columns(df)
    df.loc[0, col] = df.loc[0, col] + 1.0
    df.to_csv(rec / jab, index=False)
    # a row missing from the run (the record has one more) and one extra in the run
    sweep = first_table(rec, "qwyc/*/sweeps/*.csv")
    sw = pd.read_csv(rec / sweep)
    pd.concat([sw, sw.iloc[[0]].assign(method="made_up")]).to_csv(rec / sweep, index=False)
    runs = first_table(rec, "knapsack/runs/*.csv")
    kr = pd.read_csv(rec / runs)
    kr.iloc[1:].to_csv(rec / runs, index=False)
    # a changed verdict of a claim that is not about wall-clock time
    cl = pd.read_csv(rec / "claims.csv", keep_default_na=False)
    i = next(i for i in cl.index if str(cl.loc[i, "timing"]) == "False")
    cl.loc[i, "verdict"] = (
        "not reproduced" if cl.loc[i, "verdict"] != "not reproduced" else "reproduced"
    )
    cl.to_csv(rec / "claims.csv", index=False)
    seal(rec)

    proc = cli(results, rec)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:]
    assert f"differs      {jab}" in out
    key = ", ".join(f"{k}={df.loc[0, k]}" for k in keys)
    assert f"row {key}: column {col}: run" in out
    assert f"differs      {sweep}" in out and "in the record, missing from the run" in out
    assert f"differs      {runs}" in out and "in the run, not in the record" in out
    assert "differs      claims.csv" in out
    assert f"claim_id={cl.loc[i, 'claim_id']}" in out and "column verdict" in out
    assert "summary: " in out and "4 differs" in out


@pytest.mark.slow
@pytest.mark.workflow
def test_smoke_timing_change_within_ratio_passes(smoke_record, tmp_path):
    results, record = smoke_record
    rec = perturbed(record, tmp_path)
    changed = 0
    for rel in v.result_files(rec):
        if not rel.endswith(".csv"):
            continue
        df = pd.read_csv(rec / rel)
        timing = [
            c for c in df.columns if v.is_timing_column(c) and pd.api.types.is_float_dtype(df[c])
        ]
        if timing:
            df[timing] = df[timing] * (v.TIMING_RATIO * 0.9)
            df.to_csv(rec / rel, index=False)
            changed += 1
    assert changed
    seal(rec)
    proc = cli(results, rec)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "differs" not in proc.stdout and "timing-only" not in proc.stdout


# ---------------------------------------------------------------- the record's integrity


def test_a_truncated_record_file_is_refused_by_name(pair, capsys):
    """A record table that lost its last bytes: pandas would fill the cut fields with NaN
    (timing-only in a ``*_seconds`` column); its size is not the manifest's."""
    run, record = pair
    path = record / "jab/communities/table.csv"
    size = path.stat().st_size
    path.write_bytes(path.read_bytes()[:-8])
    code = v.main([str(run), str(record)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{path} holds {size - 8} bytes, record.json lists {size}" in err


def test_a_truncated_run_file_differs_in_its_field_count(pair, capsys):
    run, record = pair
    path = run / "jab/communities/table.csv"
    text = path.read_text()
    path.write_text(text[: text.rstrip("\n").rindex(",")] + "\n")  # last field of the last row
    code, out = run_main(run, record, capsys)
    assert code == 1, out
    assert "differs      jab/communities/table.csv  (run: line 4 has 5 fields, the header 6" in out


@pytest.mark.parametrize("change", ["sha256", "deleted", "symlink", "unlisted"])
def test_a_record_that_does_not_match_its_manifest_is_refused(pair, capsys, change):
    run, record = pair
    manifest_path = record / "record.json"
    manifest = json.loads(manifest_path.read_text())
    rel = "jab/communities/table.csv"
    if change == "sha256":
        manifest["files"][rel]["sha256"] = "0" * 64
        manifest_path.write_text(json.dumps(manifest))
        expected = f"{record / rel}: sha256 differs from the one record.json lists"
    elif change == "deleted":
        manifest_path.unlink()
        expected = f"{manifest_path} is missing"
    elif change == "symlink":  # a record file replaced by a link to the run's file
        (record / rel).unlink()
        (record / rel).symlink_to(run / rel)
        expected = f"{record / rel} is a symlink"
    else:
        write(record, "jab/extra.csv", table())
        expected = f"{record / 'jab/extra.csv'} is not listed in {manifest_path}"
    code = v.main([str(run), str(record)])
    err = capsys.readouterr().err
    assert code == 2 and expected in err, err


def test_a_value_missing_on_one_side_differs_even_in_a_timing_column():
    a = table()
    b = a.assign(fit_seconds=[1.5, 20.0, float("nan")])
    res = v.compare_tables(b, a)
    assert res.status == v.DIFFERS
    assert res.differences[0].text() == (
        "row dataset=blog, learner=ridge: column fit_seconds: run nan vs record 3.0"
    )


def test_a_hidden_temp_file_of_a_killed_job_is_not_part_of_the_run(pair, capsys):
    run, record = pair
    cell = "jab/cells/main/communities/ridge/m0.2.parquet"
    for root in (run, record):
        (root / cell).parent.mkdir(parents=True)
        table().to_parquet(root / cell)
    seal(record)
    # what atomic_path leaves beside a cell when its job is killed mid-write
    table().to_parquet(run / "jab/cells/main/communities/ridge/.m0.2.parquet.1a2b3c.parquet")
    code, out = run_main(run, record, capsys)
    assert code == 0, out
    assert ".m0.2" not in out


def test_the_committed_record_verifies_against_a_run_identical_to_it(tmp_path, capsys):
    """``make verify`` on a run with the record's result tables: the committed record passes
    its own manifest check and every table compares identical."""
    record = Path(__file__).resolve().parents[2] / "record" / "paper"
    run = tmp_path / "results"
    for rel in v.result_files(record):
        (run / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(record / rel, run / rel)
    code, out = run_main(run, record, capsys)
    assert code == 0, out[-2000:]
    assert f"summary: {len(v.result_files(record))} identical" in out
