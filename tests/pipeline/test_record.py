"""The run of record: publishing a run into a record folder, restoring its J+aB cells, RUN.md
and the README's verdict table.

Unit tests work on a small results tree built here; the last tests reuse the shared smoke run
(``smoke_cores2``) to check that a restored record resumes without rerunning a cell.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml
from record_fixtures import seal
from workflow_helpers import SMOKE, SNAKEFILE, run_snakemake, smoke_config

from ensemble_repro import record as rec
from ensemble_repro.claims.claim import COLUMNS
from ensemble_repro.claims.rules import VERDICTS
from ensemble_repro.cost.dag import config_jobs
from ensemble_repro.cost.machine import KERNEL_FAMILIES
from ensemble_repro.estimate import estimate
from ensemble_repro.logs import JOB_CPU_SUFFIX
from ensemble_repro.paper_loader import PAPERS
from ensemble_repro.record import files as rec_files
from ensemble_repro.record.__main__ import main as cli

#: Files of the constructed run that a record holds (relative to results/).
PUBLISHED = {
    "claims.csv",
    "paper_vs_ours.md",
    "paper_vs_ours.html",
    "claims_summary.rst",
    "README.md",
    "jab/paper_vs_ours.md",
    "jab/claims.csv",
    "jab/main.csv",
    "jab/main.provenance.json",
    "jab/figures/figure1.png",
    "jab/cells/main/communities/ridge/m0.4.parquet",
    "jab/cells/jplus/communities/ridge.parquet",
    "qwyc/adult/figure1.csv",
    "html/jab/main.html",
    "benchmarks/jab/main/communities_ridge_m0.4.tsv",
    "benchmarks/jab/jplus/communities_ridge.tsv",
    f"benchmarks/jab/jplus/communities_ridge.tsv{JOB_CPU_SUFFIX}",
    "benchmarks/qwyc/model/adult.tsv",
    f"benchmarks/qwyc/model/adult.tsv{JOB_CPU_SUFFIX}",
    "benchmarks/data/prepare/communities.tsv",
}
#: Files of the constructed run that a record never holds.
NOT_PUBLISHED = {
    "jab/figures/figure1.pdf",
    "qwyc/adult/model.npz",
    "qwyc/adult/gbt.pkl",
    "knapsack/pool.joblib",
    "data/communities.parquet",
    "data/communities.csv",
    "data/communities.json",
    "logs/jab/main.log",
    "jab/.main.csv.1a2b3c.csv",
}
#: (CPU seconds, wall seconds) of each constructed benchmark file.
BENCH = {
    "benchmarks/jab/main/communities_ridge_m0.4.tsv": (1800.0, 1000.0),
    "benchmarks/jab/jplus/communities_ridge.tsv": (1800.0, 2600.0),
    "benchmarks/qwyc/model/adult.tsv": (360.0, 400.0),
    "benchmarks/data/prepare/communities.tsv": (3.0, 4.0),
}
MACHINE = {"cores": 2, "cpu_model": "Test CPU 9000", "memory_gb": 7.5, "os": "Linux", "python": "3"}


def claims_frame(papers=("jab", "qwyc"), verdicts=None) -> pd.DataFrame:
    """Claims rows of ``papers`` with the given verdict words (default: one of each)."""
    verdicts = list(verdicts or VERDICTS)
    rows = []
    for paper in papers:
        for i, v in enumerate(verdicts):
            row = dict.fromkeys(COLUMNS, "")
            row |= {"paper": paper, "claim_id": f"{paper}.c{i}", "verdict": v}
            row |= {"scale": "paper", "made_on": "2026-12-01", "n_repeats": 10}
            row |= {"timing": False, "effect_log": False}
            rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def write(path: Path, text: str | bytes = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def bench_text(cpu: float, wall: float) -> str:
    head = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time"
    return f"{head}\n{wall}\t0:00:01\t100\t100\t100\t100\t0\t0\t{cpu / wall * 100:.2f}\t{cpu}\n"


@pytest.fixture
def run(tmp_path) -> Path:
    """A run directory: the smoke config as its config, and a results tree holding one file
    of every kind (published or not)."""
    work = tmp_path / "run"
    write(work / rec_files.BASE_CONFIG, yaml.safe_dump(smoke_config()))
    res = work / "results"
    claims = claims_frame()
    claims.to_csv(write(res / "claims.csv"), index=False)
    claims[claims["paper"] == "jab"].to_csv(write(res / "jab/claims.csv"), index=False)
    for rel in PUBLISHED | NOT_PUBLISHED:
        if rel.endswith(".parquet"):
            (res / rel).parent.mkdir(parents=True, exist_ok=True)
            pd.DataFrame({"trial": [0, 1], "coverage": [0.9, 0.91]}).to_parquet(res / rel)
        elif rel in BENCH:
            write(res / rel, bench_text(*BENCH[rel]))
        elif rel.endswith(JOB_CPU_SUFFIX):  # the job's own count: the benchmark's here
            write(
                res / rel, json.dumps({"cpu_seconds": BENCH[rel.removesuffix(JOB_CPU_SUFFIX)][0]})
            )
        elif rel == "jab/main.provenance.json":
            write(res / rel, '{"table": "main.csv", "software": {"numpy": "2.0"}}')
        elif not (res / rel).exists():
            write(res / rel, f"content of {rel}\n")
    return work


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def publish(run: Path, record: Path, **kw):
    kw.setdefault("machine", MACHINE)
    return rec.publish(run / "results", record, **kw)


# ---------------------------------------------------------------- publish


def test_publish_copies_the_small_outputs_and_nothing_else(run, tmp_path):
    record = tmp_path / "record" / "paper"
    out = publish(run, record)
    held = set(snapshot(record))
    own = {rec.MANIFEST, rec.CONFIG_NAME, rec.RUN_MD}
    assert held == PUBLISHED | own
    for rel in PUBLISHED:  # same layout as results/, same bytes
        assert (record / rel).read_bytes() == (run / "results" / rel).read_bytes(), rel
    assert out.n_files == len(held) and out.total_bytes == sum(
        len(b) for b in snapshot(record).values()
    )
    assert sorted(out.copied) == sorted(PUBLISHED)
    manifest = rec.read_manifest(record)
    assert set(manifest["files"]) == PUBLISHED
    assert manifest["publishes"][-1]["machine"] == MACHINE
    assert yaml.safe_load((record / rec.CONFIG_NAME).read_text()) == smoke_config()
    assert f"of the {rec.RECORD_BUDGET_BYTES / 1e6:.2f} MB budget" in out.lines()[0]
    assert f"{out.n_files} files" in out.lines()[0]
    assert not list(record.parent.glob(".paper.*"))  # no staging copy left


def test_a_file_over_the_cap_is_refused_by_name_and_nothing_is_written(run, tmp_path):
    record = tmp_path / "paper"
    write(run / "results/jab/main.csv", "1,2\n" * 3000)
    with pytest.raises(rec.RecordError, match=r"results/jab/main\.csv is 12\.0 kB, over the per-"):
        publish(run, record, max_file_bytes=10_000)
    assert not record.exists()


def test_over_budget_the_record_is_left_as_it_was(run, tmp_path):
    record = tmp_path / "paper"
    publish(run, record)
    before = snapshot(record)
    write(run / "results/qwyc/adult/big.csv", "9" * 5000)
    with pytest.raises(rec.RecordError, match="over its budget.*qwyc/adult/big.csv"):
        publish(run, record, budget_bytes=sum(map(len, before.values())) + 1000)
    assert snapshot(record) == before
    assert not list(tmp_path.glob(".paper.*"))


def test_a_crash_mid_publish_leaves_the_old_record(run, tmp_path, monkeypatch):
    record = tmp_path / "paper"
    publish(run, record)
    before = snapshot(record)
    # two changed files: the first is copied, the crash comes at the second
    write(run / "results/claims_summary.rst", "changed\n")
    write(run / "results/jab/main.csv", "changed\n")
    copyfile = shutil.copyfile

    def failing_copy(src, dst, **kw):
        if Path(src) == run / "results/jab/main.csv":
            raise OSError("disk full")
        return copyfile(src, dst, **kw)

    monkeypatch.setattr(rec_files.shutil, "copyfile", failing_copy)
    with pytest.raises(OSError, match="disk full"):
        publish(run, record, slice_name="again")
    assert snapshot(record) == before
    assert not list(tmp_path.glob(".paper.*"))


def test_a_record_moved_aside_by_a_crash_is_recovered(run, tmp_path):
    record = tmp_path / "paper"
    publish(run, record)
    (run / "results/qwyc/adult/figure1.csv").unlink()  # kept in the record: no --replace
    os.rename(record, tmp_path / ".paper.old")  # a crash between the two renames of the swap
    (tmp_path / ".paper.staging-1").mkdir()
    publish(run, record)
    assert (record / "qwyc/adult/figure1.csv").is_file()
    assert [p["slice"] for p in rec.read_manifest(record)["publishes"]] == ["all", "all"]
    assert not list(tmp_path.glob(".paper.*"))


def test_partial_runs_add_up_and_replace_prunes_only_its_own_slice(run, tmp_path):
    record = tmp_path / "paper"
    res = run / "results"
    publish(run, record, slice_name="jab")
    # a later run of another slice, which has no J+aB cells (a partial run)
    shutil.rmtree(res / "jab" / "cells")
    write(res / "qwyc/nomao/figure1.csv", "a\n1\n")
    out = publish(run, record, slice_name="qwyc")
    assert not out.removed
    assert (record / "jab/cells/jplus/communities/ridge.parquet").is_file()
    assert (record / "qwyc/nomao/figure1.csv").is_file()
    assert "jab/main.csv" in out.unchanged
    # an unchanged file keeps the slice and source time of the run that made it, even when
    # its copy in this run is newer (a restore copies cells and benchmarks with a new time)
    entry = rec.read_manifest(record)["files"]["jab/main.csv"]
    assert entry["slice"] == "jab"
    later = time.time() + 3600
    os.utime(res / "jab/main.csv", (later, later))
    publish(run, record, slice_name="qwyc")
    assert rec.read_manifest(record)["files"]["jab/main.csv"] == entry
    # replace: the files the jab slice wrote and the run no longer has go; qwyc's stay
    (res / "qwyc/nomao/figure1.csv").unlink()
    out = publish(run, record, slice_name="jab", replace=True)
    assert sorted(out.removed) == [
        "jab/cells/jplus/communities/ridge.parquet",
        "jab/cells/main/communities/ridge/m0.4.parquet",
    ]
    assert not (record / "jab/cells").exists() or not list((record / "jab/cells").rglob("*.*"))
    assert (record / "qwyc/nomao/figure1.csv").is_file()
    slices = [p["slice"] for p in rec.read_manifest(record)["publishes"]]
    assert slices == ["jab", "qwyc", "qwyc", "jab"]


def test_a_changed_config_is_stored_and_warned_about(run, tmp_path):
    record = tmp_path / "paper"
    publish(run, record)
    config = smoke_config()
    config["jab"]["n_trials"] = 3
    write(run / rec_files.BASE_CONFIG, yaml.safe_dump(config))
    out = publish(run, record)
    assert any("in 1 value(s) (jab.n_trials: 2 -> 3)" in w for w in out.warnings), out.warnings
    assert yaml.safe_load((record / rec.CONFIG_NAME).read_text())["jab"]["n_trials"] == 3


def test_the_report_is_published_only_when_newer_than_the_outputs(run, tmp_path):
    record = tmp_path / "paper"
    report = write(run / "results" / rec.REPORT_NAME, "<html>report</html>")
    old = time.time() - 3600
    os.utime(report, (old, old))
    out = publish(run, record)
    assert rec.REPORT_NAME not in snapshot(record)
    assert any("older than" in w and "report.html" in w for w in out.warnings)
    os.utime(report, None)
    out = publish(run, record)
    assert (record / rec.REPORT_NAME).read_text() == "<html>report</html>"
    assert not out.warnings


def test_a_report_over_the_file_cap_stops_the_publish_unless_left_out(run, tmp_path):
    """The error's advice works: ``--exclude report.html`` publishes everything else."""
    record = tmp_path / "paper"
    write(run / "results" / rec.REPORT_NAME, "<html>" + "x" * 20_000 + "</html>")
    with pytest.raises(rec.RecordError, match=r"report.html is .* --exclude 'report.html'"):
        publish(run, record, max_file_bytes=10_000)
    assert not record.exists()
    out = publish(run, record, max_file_bytes=10_000, exclude=iter(["report.html"]))
    assert rec.REPORT_NAME not in snapshot(record)
    assert "jab/main.csv" in snapshot(record) and not out.warnings


def test_publish_cli_errors_name_the_argument(run, tmp_path, capsys):
    assert cli(["publish", str(run / "nothere"), str(tmp_path / "r")]) == 2
    assert "nothere: give the run's results/ directory" in capsys.readouterr().err
    code = cli(["publish", str(run / "results"), str(tmp_path / "r"), "--configfile", "no.yaml"])
    assert code == 2
    assert "config file" in capsys.readouterr().err


# ---------------------------------------------------------------- restore


def test_restore_copies_cells_and_benchmarks_newer_than_the_data(run, tmp_path):
    record = tmp_path / "paper"
    publish(run, record)
    day_ago = time.time() - 86400  # as after a git checkout of an old record
    for p in record.rglob("*"):
        os.utime(p, (day_ago, day_ago))
    fresh = tmp_path / "fresh" / "results"
    data = write(fresh / "data/communities.parquet", b"prepared")
    old = time.time() - 60
    os.utime(data, (old, old))
    config = smoke_config()
    out = rec.restore(record, fresh, config)
    cells = sorted(p for p in PUBLISHED if p.startswith("jab/cells/"))
    assert sorted(out.cells) == [f"results/{c}" for c in cells]
    # the cells' benchmark files and CPU sidecars, not those of the jobs that do not resume here
    assert set(out.copied) == set(cells) | {b for b in PUBLISHED if b.startswith("benchmarks/jab/")}
    assert f"benchmarks/jab/jplus/communities_ridge.tsv{JOB_CPU_SUFFIX}" in out.copied
    assert not (fresh / "benchmarks/qwyc").exists() and not (fresh / "benchmarks/data").exists()
    for rel in out.copied:
        assert (fresh / rel).read_bytes() == (record / rel).read_bytes()
        assert (fresh / rel).stat().st_mtime > data.stat().st_mtime
    assert not (fresh / "jab/main.csv").exists()  # only cells and benchmarks
    again = rec.restore(record, fresh, config)  # the run's own files are kept
    assert not again.copied and sorted(again.kept) == sorted(out.copied)


def test_restore_needs_the_prepared_data_first(run, tmp_path):
    record = tmp_path / "paper"
    publish(run, record)
    fresh = tmp_path / "fresh" / "results"
    with pytest.raises(rec.RecordError, match=r"data/communities\.parquet missing: prepare"):
        rec.restore(record, fresh, smoke_config())
    assert not (fresh / "jab").exists()


def test_restore_refuses_cells_made_with_other_config_values(run, tmp_path):
    record = tmp_path / "paper"
    publish(run, record)
    fresh = tmp_path / "fresh" / "results"
    write(fresh / "data/communities.parquet", b"prepared")
    config = smoke_config()
    config["jab"]["n_trials"] += 1
    with pytest.raises(rec.RecordError, match=r"m0\.4\.parquet: jab\.n_trials is 2 in the record"):
        rec.restore(record, fresh, config)
    assert not (fresh / "jab").exists()
    # a key no cell reads does not matter; a cell the config does not run is not restored
    config = smoke_config()
    config["qwyc"]["n_splits"] += 1
    config["jab"]["main"]["m_ratios"] = [0.6]
    out = rec.restore(record, fresh, config)
    assert out.not_in_config == ["jab/cells/main/communities/ridge/m0.4.parquet"]
    assert "benchmarks/jab/main/communities_ridge_m0.4.tsv" not in out.copied  # nor its benchmark
    assert "benchmarks/jab/jplus/communities_ridge.tsv" in out.copied
    assert out.cells == ["results/jab/cells/jplus/communities/ridge.parquet"]


# ---------------------------------------------------------------- RUN.md


def test_run_md_measures_per_paper_from_the_benchmarks_next_to_the_estimate(run, tmp_path):
    record = tmp_path / "paper"
    notes = write(tmp_path / "notes.txt", "Load 5-12 from six other sessions.")
    publish(run, record, notes=notes, now=1_790_000_000)
    text = (record / rec.RUN_MD).read_text()
    cost = text.split("## Cost")[1].split("### Per rule")[0]
    row = {m.group(1): m.group(0) for m in re.finditer(r"^\| (\w+) \|.*$", cost, re.M)}
    # jab: 3600 CPU-s = 1.00 CPU-h over 2 jobs, 3600 wall-s; qwyc 360 CPU-s = 0.10 CPU-h
    cols = [c.strip() for c in row["jab"].strip("|").split("|")]
    assert cols[:3] == ["jab", "2", "1.00"]
    assert "1 h 0 min" in cols
    assert [c.strip() for c in row["qwyc"].strip("|").split("|")][:3] == ["qwyc", "1", "0.10"]
    jobs, config = config_jobs(record / rec_files.CONFIG_NAME)
    whole = {c.paper: c for c in estimate(jobs, config, MACHINE["cores"])}
    assert f"| {whole['jab'].jobs} |" in row["jab"]  # the paper's jobs from the estimate
    assert "### Per rule" in text and "jab_main_cell" in text
    assert "Test CPU 9000" in text and "7.5" in text
    assert "Load 5-12 from six other sessions." in text
    assert (record / rec.NOTES_NAME).is_file()
    assert "numpy 2.0 (1 tables)" in text
    assert "paper scale, 2026-12-01" in text
    assert "2026-09-21T" in text  # the publish date (now=1_790_000_000)
    # regenerating keeps the stored notes
    rec.write_run_md(record)
    assert "Load 5-12" in (record / rec.RUN_MD).read_text()


def test_run_md_ratio_counts_only_jobs_of_the_config(run, tmp_path):
    """A benchmark of a job the record's config does not have (a cell published before an
    overlay narrowed the config) counts among the jobs measured but not in measured /
    estimated, whose estimate covers only the config's jobs."""

    def jab_row(record):
        cost = (record / rec.RUN_MD).read_text().split("## Cost")[1].split("### Per rule")[0]
        row = re.search(r"^\| jab \|.*$", cost, re.M).group(0)
        return [c.strip() for c in row.strip("|").split("|")]

    first, second = tmp_path / "a", tmp_path / "b"
    publish(run, first)
    write(
        run / "results/benchmarks/jab/main/blog_ridge_m0.4.tsv",
        "s\th:m:s\tmax_rss\tcpu_time\n50000\t13:53:20\t10\t90000\n",
    )
    publish(run, second)
    before, after = jab_row(first), jab_row(second)
    assert (int(before[1]), int(after[1])) == (2, 3)  # jobs measured
    assert after[4] == before[4]  # measured / estimated


def test_run_md_estimates_each_job_on_the_machine_that_ran_it(run, tmp_path):
    """A slice published from a machine twice as slow per CPU-second in every kernel family has
    every job estimated at twice the reference machine's CPU time; a slice without a recorded
    calibration keeps the reference machine's."""

    def per_rule(record):
        part = (record / rec.RUN_MD).read_text().split("### Per rule")[1]
        rows = [r.strip("|").split("|") for r in part.splitlines() if r.startswith("| ")][1:]
        return {(r[0].strip(), r[1].strip()): float(r[3]) for r in rows}

    slow = {
        **MACHINE,
        "speed": {"cpu_time_vs_reference": dict.fromkeys(KERNEL_FAMILIES, 2.0), "measured_on": "d"},
    }
    reference, doubled = tmp_path / "ref", tmp_path / "slow"
    publish(run, reference, machine=MACHINE)
    publish(run, doubled, machine=slow)
    ref, two = per_rule(reference), per_rule(doubled)
    assert ref.keys() == two.keys() and len(ref) > 3
    for key, secs in ref.items():
        assert two[key] == pytest.approx(2 * secs, rel=0.01, abs=1), key


def test_run_md_tells_two_machines_apart_by_their_calibration(run, tmp_path):
    """Two slices on machines alike in cores, CPU model and memory, one slower per CPU-second:
    one row each, with its CPU time against the reference machine; an older publish without
    it says so."""
    record = tmp_path / "paper"
    slow = {
        **MACHINE,
        "speed": {"cpu_time_vs_reference": {"start": 2.03, "rf": 1.8}, "measured_on": "d1"},
    }
    fast = {
        **MACHINE,
        "speed": {"cpu_time_vs_reference": {"start": 1.01, "rf": 1.02}, "measured_on": "d2"},
    }
    publish(run, record, slice_name="old", machine=MACHINE)
    publish(run, record, slice_name="a", machine=slow)
    publish(run, record, slice_name="b", machine=fast)
    machine = (record / rec.RUN_MD).read_text().split("## Machine")[1].split("## Dates")[0]
    rows = [r for r in machine.splitlines() if r.startswith("| 2 |")]
    assert len(rows) == 3, machine
    assert any("not recorded" in r and r.rstrip().endswith("| old |") for r in rows), rows
    assert any("start 2.03, rf 1.8 (d1)" in r and r.rstrip().endswith("| a |") for r in rows)
    assert any("start 1.01, rf 1.02 (d2)" in r and r.rstrip().endswith("| b |") for r in rows)


def test_run_md_dates_come_from_the_benchmark_times(run, tmp_path):
    res = run / "results"
    end = 1_790_000_000
    os.utime(res / "benchmarks/qwyc/model/adult.tsv", (end, end))
    record = tmp_path / "paper"
    publish(run, record)
    text = (record / rec.RUN_MD).read_text()
    # qwyc's only job ended at `end` after 400 wall seconds
    assert re.search(r"\| qwyc \| 2026-09-21 14:06 UTC \| 2026-09-21 14:13 UTC \| 1 \|", text)


def test_run_md_needs_a_published_record(tmp_path):
    with pytest.raises(rec.RecordError, match="record.json is missing"):
        rec.run_md(tmp_path)


# ---------------------------------------------------------------- README block


README_TEXT = f"""# Project

Intro text | with a pipe.

{rec.README_BEGIN}
old table
{rec.README_END}

## After

Text after the block.
"""


def test_readme_block_is_regenerated_and_the_rest_is_untouched(tmp_path):
    record = tmp_path / "record" / "paper"
    claims = claims_frame(papers=("jab", "qwyc", "knapsack"))
    claims.loc[0, "verdict"] = VERDICTS[1]  # jab: two of VERDICTS[1], none of VERDICTS[0]
    write(record / "claims.csv")
    claims.to_csv(record / "claims.csv", index=False)
    seal(record)
    readme = write(tmp_path / "README.md", README_TEXT)
    path, changed = rec.update_readme(record, readme)
    assert changed
    text = readme.read_text()
    head, rest = text.split(rec.README_BEGIN)
    block, tail = rest.split(rec.README_END)
    assert head == README_TEXT.split(rec.README_BEGIN)[0]
    assert tail == README_TEXT.split(rec.README_END)[1]
    assert "old table" not in block
    assert "(record/paper/paper_vs_ours.md)" in block
    rows = [r for r in block.splitlines() if r.startswith("| ")]
    assert rows[0] == "| paper | " + " | ".join(VERDICTS) + " | made at |"
    jab = rows[1].split(" | ")
    assert jab[0] == f"| {PAPERS['jab'].title}"
    assert jab[1 : 1 + len(VERDICTS)] == ["0", "2"] + ["1"] * (len(VERDICTS) - 2)
    assert len(rows) == 4  # header and three papers
    assert "partial" not in block
    assert rec.update_readme(record, readme) == (readme, False)  # stable


def test_a_partial_record_says_which_papers_it_holds(tmp_path):
    record = tmp_path / "paper"
    write(record / "claims.csv")
    claims_frame(papers=("qwyc",)).to_csv(record / "claims.csv", index=False)
    seal(record)
    block = rec.readme_block(record, tmp_path)
    assert f"partial: it holds {PAPERS['qwyc'].title}; not yet {PAPERS['jab'].title}, " in block


def test_a_record_of_paper_slices_counts_each_papers_own_claims(tmp_path):
    """Before the whole run's claims.csv, the block counts each paper's <paper>/claims.csv and
    links its verdict page (else the table); with neither, the error names the record."""
    record = tmp_path / "paper"
    record.mkdir()
    seal(record)
    with pytest.raises(rec.RecordError, match=r"claims\.csv does not exist, nor any paper's"):
        rec.readme_block(record, tmp_path)
    for paper in ("qwyc", "knapsack"):
        write(record / paper / "claims.csv")
        claims_frame(papers=(paper,)).to_csv(record / paper / "claims.csv", index=False)
    seal(record)
    block = rec.readme_block(record, tmp_path)
    rows = [r for r in block.splitlines() if r.startswith("| ")][1:]
    assert [r.split(" | ")[0] for r in rows] == [
        f"| {PAPERS['qwyc'].title}",
        f"| {PAPERS['knapsack'].title}",
    ]
    assert "(paper/qwyc/claims.csv)" in block and "(paper/knapsack/claims.csv)" in block
    # a paper's verdict page, where the record has one, is linked instead of its table
    write(record / "qwyc" / "paper_vs_ours.md", "# QWYC: paper vs ours\n")
    block = rec.readme_block(record, tmp_path)
    assert "(paper/qwyc/paper_vs_ours.md)" in block and "(paper/knapsack/claims.csv)" in block
    assert "other than the paper config" not in block
    # a paper's verdicts made under an overlay of the paper config are flagged
    narrowed = claims_frame(papers=("knapsack",)).assign(scale="custom (paper; changed: x)")
    narrowed.to_csv(record / "knapsack" / "claims.csv", index=False)
    seal(record)
    block = rec.readme_block(record, tmp_path)
    title = PAPERS["knapsack"].title
    assert f"other than the paper config: {title} (custom (paper; changed: x))." in block
    assert f"partial: it holds {PAPERS['qwyc'].title}, {PAPERS['knapsack'].title}; not yet" in block


@pytest.mark.parametrize(
    "text, problem",
    [
        ("# no markers\n", "occurs 0 times"),
        (f"{rec.README_BEGIN}\n{rec.README_END}\n{rec.README_END}\n", "occurs 2 times"),
        (f"{rec.README_END}\n{rec.README_BEGIN}\n", "comes before"),
    ],
    ids=["missing", "repeated", "swapped"],
)
def test_bad_markers_are_an_error_and_the_readme_is_kept(tmp_path, text, problem):
    record = tmp_path / "paper"
    write(record / "claims.csv")
    claims_frame().to_csv(record / "claims.csv", index=False)
    seal(record)
    readme = write(tmp_path / "README.md", text)
    with pytest.raises(rec.RecordError, match=problem):
        rec.update_readme(record, readme)
    assert readme.read_text() == text


def test_the_repository_readme_has_the_markers():
    readme = Path(__file__).resolve().parents[2] / "README.md"
    text = readme.read_text()
    assert text.count(rec.README_BEGIN) == 1 and text.count(rec.README_END) == 1
    assert text.index(rec.README_BEGIN) < text.index(rec.README_END)


# ---------------------------------------------------------------- on the smoke run


def dry_run_jobs(work: Path, *args: str) -> dict[str, int]:
    proc = run_snakemake(work, "-n", *args, cores=2)
    assert proc.returncode == 0, proc.stdout[-3000:]
    table = re.search(r"Job stats:\njob\s+count\n[- ]+\n(.*?)\n(?:total|$)", proc.stdout, re.S)
    if table is None:
        assert "Nothing to be done" in proc.stdout, proc.stdout[-3000:]
        return {}
    return {line.split()[0]: int(line.split()[1]) for line in table.group(1).splitlines()}


@pytest.mark.slow
@pytest.mark.workflow
def test_a_restored_smoke_record_resumes_without_rerunning_a_cell(smoke_cores2, tmp_path):
    record = tmp_path / "record"
    out = rec.publish(smoke_cores2 / "results", record, config_files=[str(SMOKE)])
    assert out.total_bytes < rec.RECORD_BUDGET_BYTES
    cells = sorted(p.relative_to(record).as_posix() for p in record.glob("jab/cells/**/*.parquet"))
    assert cells
    # a new run directory with the raw and prepared data of the smoke run (as after `make data`)
    work = tmp_path / "resumed"
    shutil.copytree(smoke_cores2 / "resources", work / "resources")
    shutil.copytree(smoke_cores2 / "results" / "data", work / "results" / "data")
    before = dry_run_jobs(work)
    assert before.get("jab_main_cell")
    args = ["restore", str(record), str(work / "results"), "--configfile", str(SMOKE)]
    assert cli([*args, "--snakefile", str(SNAKEFILE)]) == 0
    after = dry_run_jobs(work)
    assert not [r for r in after if r.startswith("jab_") and r.endswith("_cell")], after
    assert after.get("jab_collect") == 1 and after.get("qwyc_model")
    # touch recorded the cells' metadata: a config value the cells read still reruns them
    overlay = write(tmp_path / "overlay.yaml", "jab:\n  alpha: 0.2\n")
    changed = dry_run_jobs(work, "--configfile", str(SMOKE), str(overlay))
    assert changed.get("jab_main_cell") == before["jab_main_cell"], changed


@pytest.mark.slow
@pytest.mark.workflow
def test_the_report_of_a_record_is_built_from_its_files_alone(smoke_cores2, tmp_path):
    """A record of a whole run holds every file the report shows (tables as HTML, figures as
    PNG): the report builds from it with nothing run; a record without the HTML tables is
    refused, naming the first one missing."""
    record = tmp_path / "record"
    rec.publish(smoke_cores2 / "results", record, config_files=[str(SMOKE)])
    assert (record / "html/jab/tables/table_S3_communities.html").is_file()
    before = snapshot(record)
    out = rec.report_of_record(record, tmp_path / "report.html", SNAKEFILE)
    html = out.read_bytes()
    for shown in (b"table_S3_communities.html", b"figure_1.png", b"forest_knapsack.png"):
        assert shown in html, shown
    assert snapshot(record) == before  # nothing written into the record
    shutil.rmtree(record / "html")
    seal(record, rec.read_manifest(record)["publishes"])
    with pytest.raises(rec.RecordError, match=r"html/\S+\.html marked for report but does not"):
        rec.report_of_record(record, tmp_path / "again.html", SNAKEFILE)
    assert not (tmp_path / "again.html").exists()


# ---------------------------------------------------------------- the record's integrity


def restorable(run: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A published record, and a fresh run's results/ with the prepared data."""
    record = tmp_path / "paper"
    publish(run, record)
    fresh = tmp_path / "fresh" / "results"
    write(fresh / "data/communities.parquet", b"prepared")
    return record, fresh


def test_the_manifest_seals_the_records_own_config_and_notes(run, tmp_path):
    record = tmp_path / "paper"
    notes = write(tmp_path / "notes.txt", "quiet machine")
    publish(run, record, notes=notes)
    own = rec.read_manifest(record)["record_files"]
    assert set(own) == {rec.CONFIG_NAME, rec.NOTES_NAME}
    for name, entry in own.items():
        assert entry["sha256"] == rec_files.sha256(record / name), name
    # runmd --notes re-seals the notes it stores
    rec.write_run_md(record, write(tmp_path / "n2.txt", "busy machine"))
    rec.check_record(record)
    assert "busy machine" in (record / rec.RUN_MD).read_text()


@pytest.mark.parametrize("change", ["edited", "symlink", "unlisted"])
def test_restore_refuses_a_cell_that_is_not_as_published(run, tmp_path, change):
    """A tampered cell (coverage 1.0 everywhere), a cell replaced by a link to another file,
    a cell nobody published: refused by name, nothing copied."""
    record, fresh = restorable(run, tmp_path)
    rel = "jab/cells/main/communities/ridge/m0.4.parquet"
    if change == "edited":
        pd.DataFrame({"trial": [0, 1], "coverage": [1.0, 1.0]}).to_parquet(record / rel)
        expected = f"{record / rel}: sha256 differs|{record / rel} holds"
    elif change == "symlink":
        secret = write(tmp_path / "secret.txt", "root:x:0:0")
        (record / rel).unlink()
        (record / rel).symlink_to(secret)
        expected = f"{record / rel} is a symlink"
    else:
        rel = "jab/cells/main/communities/ridge/m0.6.parquet"
        shutil.copyfile(record / "jab/cells/main/communities/ridge/m0.4.parquet", record / rel)
        expected = f"{record / rel} is not listed in {record / rec.MANIFEST}"
    config = smoke_config()
    config["jab"]["main"]["m_ratios"] = [0.4, 0.6]
    with pytest.raises(rec.RecordError, match=expected.replace(".", r"\.")):
        rec.restore(record, fresh, config)
    assert not (fresh / "jab").exists()


def test_publish_refuses_to_carry_a_tampered_record(run, tmp_path):
    record = tmp_path / "paper"
    publish(run, record)
    secret = write(tmp_path / "shadow", "root:$6$hash")
    (record / "jab/main.csv").unlink()
    (record / "jab/main.csv").symlink_to(secret)
    (run / "results/jab/main.csv").unlink()  # the run no longer has it: publish would keep it
    with pytest.raises(rec.RecordError, match=r"jab/main\.csv is a symlink"):
        publish(run, record)
    assert (record / "jab/main.csv").is_symlink()  # left as it was


def test_a_second_publish_into_the_same_record_refuses_cleanly(run, tmp_path):
    import fcntl

    record = tmp_path / "paper"
    publish(run, record)
    before = snapshot(record)
    with open(tmp_path / ".paper.lock", "w") as held:  # a first publish holding the lock
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(rec.RecordError, match=r"another publish into .*paper is running"):
            publish(run, record, slice_name="second")
    assert snapshot(record) == before
    publish(run, record, slice_name="third")  # once it ended
    assert rec.read_manifest(record)["publishes"][-1]["slice"] == "third"


def test_restore_refuses_an_edited_or_invalid_record_config(run, tmp_path):
    record, fresh = restorable(run, tmp_path)
    config = record / rec.CONFIG_NAME
    config.write_text(config.read_text().replace("n_trials: 2", "n_trials: 3"))
    with pytest.raises(rec.RecordError, match=r"config\.yaml: sha256 differs|config\.yaml holds"):
        rec.restore(record, fresh, smoke_config())
    # sealed, but not a config the strict loader reads (a key given twice)
    config.write_text("seed: 1\nseed: 2\n")
    seal(record, rec.read_manifest(record)["publishes"])
    with pytest.raises(rec.RecordError, match=r"the record's config is not usable: .*seed"):
        rec.restore(record, fresh, smoke_config())
    assert not (fresh / "jab").exists()


@pytest.mark.parametrize(
    "manifest, expected",
    [
        ('{"files": [], "publishes": []}', "'files' is list, not a mapping of path -> entry"),
        ("[1, 2]", "holds list, not a mapping"),
        ("{not json", "is not valid JSON"),
        (
            '{"files": {"claims.csv": {"bytes": "9"}}, "publishes": []}',
            "the entry of 'claims.csv' under 'files'",
        ),
    ],
    ids=["files-list", "list", "not-json", "bad-entry"],
)
def test_a_malformed_manifest_is_a_message(run, tmp_path, capsys, manifest, expected):
    record, fresh = restorable(run, tmp_path)
    (record / rec.MANIFEST).write_text(manifest)
    for args in (
        ["restore", str(record), str(fresh)],
        ["readme", str(record)],
        ["runmd", str(record)],
    ):
        assert cli(args) == 2, args
        assert expected in capsys.readouterr().err, args


def test_readers_refuse_a_record_without_its_manifest(run, tmp_path, capsys):
    record, fresh = restorable(run, tmp_path)
    (record / rec.MANIFEST).unlink()
    for args in (
        ["restore", str(record), str(fresh)],
        ["readme", str(record)],
        ["report", str(record)],
    ):
        assert cli(args) == 2, args
        assert f"{record / rec.MANIFEST} is missing" in capsys.readouterr().err, args


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("--cores", "-3", "'-3' is not a whole number of at least 1"),
        ("--memory-gb", "inf", "'inf' is not a finite number above 0"),
        ("--max-file-mb", "nan", "'nan' is not a finite number above 0"),
    ],
)
def test_publish_refuses_bad_numbers_by_argument(run, tmp_path, capsys, option, value, expected):
    record = tmp_path / "paper"
    with pytest.raises(SystemExit) as exit_:
        cli(["publish", str(run / "results"), str(record), option, value])
    assert exit_.value.code == 2
    assert f"argument {option}: {expected}" in capsys.readouterr().err
    assert not record.exists()


def test_machine_facts_refuse_what_json_cannot_hold():
    with pytest.raises(rec.RecordError, match=r"memory_gb inf: give the machine's memory"):
        rec.machine_facts(2, "cpu", float("inf"))
    with pytest.raises(rec.RecordError, match=r"cores -3: give the cores the run used"):
        rec.machine_facts(-3, "cpu", 8.0)


@pytest.mark.parametrize("where", [".", "file"])
def test_publish_refuses_a_record_path_that_is_no_folder_of_its_own(
    run, tmp_path, capsys, monkeypatch, where
):
    monkeypatch.chdir(tmp_path)
    if where == "file":
        write(tmp_path / "file", "x")
        expected = "record file is a file, not a folder"
    else:
        expected = "record path '.' names no folder of its own"
    assert cli(["publish", str(run / "results"), where]) == 2
    assert expected in capsys.readouterr().err


def test_a_record_path_that_is_a_file_is_a_message_for_every_reader(tmp_path, capsys):
    path = write(tmp_path / "file", "x")
    for args in (
        ["restore", str(path), str(tmp_path / "results")],
        ["readme", str(path)],
        ["runmd", str(path)],
        ["report", str(path)],
    ):
        assert cli(args) == 2, args
        assert f"record {path} is not a folder" in capsys.readouterr().err, args


def test_runmd_works_outside_the_repository(run, tmp_path, monkeypatch):
    record = tmp_path / "paper"
    publish(run, record)
    expected = (record / rec.RUN_MD).read_text()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli(["runmd", str(record)]) == 0
    assert (record / rec.RUN_MD).read_text() == expected


def test_a_garbage_benchmark_file_does_not_count_as_a_job(run, tmp_path, capsys):
    record = tmp_path / "paper"
    publish(run, record)
    rel = "benchmarks/jab/main/blog_ridge_m0.4.tsv"
    write(record / rel, "s\th:m:s\tcpu_time\nnan\t0:00:01\t-5\n")
    seal(record, rec.read_manifest(record)["publishes"])
    assert cli(["runmd", str(record)]) == 2
    assert f"{record / rel}: not a benchmark of a job" in capsys.readouterr().err


def test_readme_refuses_a_truncated_claims_table(tmp_path, capsys):
    record = tmp_path / "paper"
    write(record / "claims.csv")
    claims_frame().to_csv(record / "claims.csv", index=False)
    seal(record)
    write(tmp_path / "README.md", README_TEXT)
    text = (record / "claims.csv").read_text()
    (record / "claims.csv").write_text(text[:-40])
    assert cli(["readme", str(record), "--readme", str(tmp_path / "README.md")]) == 2
    assert f"{record / 'claims.csv'} holds {len(text) - 40} bytes" in capsys.readouterr().err
    # published truncated (sealed as it is): the cut row is named
    seal(record)
    assert cli(["readme", str(record), "--readme", str(tmp_path / "README.md")]) == 2
    err = capsys.readouterr().err
    assert "claims.csv: line 11 has" in err
    assert f"fields, the header {len(COLUMNS)} (truncated?)" in err


def test_the_committed_record_checks_and_its_readme_block_builds():
    """The committed record passes its manifest check whole and gives the README's verdict
    table (its per-paper claims tables may predate columns added since: read as empty)."""
    root = Path(__file__).resolve().parents[2]
    record = root / "record" / "paper"
    block = rec.readme_block(record, root)
    assert "| paper |" in block and "partial" not in block
    manifest = rec.check_record(record)
    assert set(manifest["record_files"]) == {rec.CONFIG_NAME, rec.NOTES_NAME}


def test_an_interrupted_touch_is_completed_by_the_next_restore(run, tmp_path, monkeypatch, capsys):
    """A restore killed during its ``snakemake --touch``: the next one restores nothing (the
    cells are there) but still touches every cell of the first."""
    import ensemble_repro.record.__main__ as main_mod

    record, fresh = restorable(run, tmp_path)
    write(fresh.parent / rec_files.BASE_CONFIG, yaml.safe_dump(smoke_config()))
    touched = []

    def killed(workdir, config_files, cells, snakefile=None):
        raise KeyboardInterrupt  # the restore dies mid-touch

    monkeypatch.setattr(main_mod, "touch_cells", killed)
    with pytest.raises(KeyboardInterrupt):
        cli(["restore", str(record), str(fresh)])

    def touch(workdir, config_files, cells, snakefile=None):
        touched.extend(cells)
        return subprocess.CompletedProcess([], 0, "", "")

    monkeypatch.setattr(main_mod, "touch_cells", touch)
    assert cli(["restore", str(record), str(fresh)]) == 0
    out = capsys.readouterr().out
    assert "restored 0 files" in out
    assert sorted(touched) == sorted(
        f"results/{p}" for p in PUBLISHED if p.startswith("jab/cells/")
    )
    assert not (fresh / rec.TOUCH_PENDING).exists()
    touched.clear()
    assert cli(["restore", str(record), str(fresh)]) == 0  # nothing left to touch
    assert not touched


def test_a_garbled_touch_marker_is_a_message(run, tmp_path, capsys):
    record, fresh = restorable(run, tmp_path)
    write(fresh.parent / rec_files.BASE_CONFIG, yaml.safe_dump(smoke_config()))
    write(fresh / rec.TOUCH_PENDING, '["../../etc/passwd"]')
    assert cli(["restore", str(record), str(fresh)]) == 2
    err = capsys.readouterr().err
    assert f"{fresh / rec.TOUCH_PENDING} is not a list of cells (results/jab/cells/...)" in err


def test_runmd_refuses_a_record_whose_benchmark_file_was_deleted(run, tmp_path, capsys):
    record = tmp_path / "paper"
    publish(run, record)
    rel = "benchmarks/qwyc/model/adult.tsv"
    (record / rel).unlink()
    assert cli(["runmd", str(record)]) == 2
    assert f"{record / rel} is listed in record.json but missing" in capsys.readouterr().err
