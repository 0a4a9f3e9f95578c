"""The workflow end to end: DAG, lint, bad input, determinism, resume.

Every run happens in a scratch directory on the offline mirror with the smoke config.
"""

import gzip
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from workflow_helpers import (
    REPO,
    background,
    mirror_dir,
    partial_files,
    result_tables,
    run_snakemake,
    same_tables,
    scratch_dir,
    smoke_config,
    snakemake_cmd,
    workflow_env,
)

from ensemble_repro.claims.claim import CLAIMS_CSV, VERDICT_HTML, VERDICT_MD
from ensemble_repro.claims.table import read_claims
from ensemble_repro.paper_loader import PAPERS

pytestmark = [pytest.mark.slow, pytest.mark.workflow]


def test_full_paper_dag_builds(tmp_path):
    proc = run_snakemake(
        tmp_path, "-n", "--quiet", "rules", configfile=REPO / "config" / "config.yaml"
    )
    assert proc.returncode == 0, proc.stdout
    for rule in ("fetch", "prepare", "results_index", "paper_vs_ours"):
        assert rule in proc.stdout
    assert not (tmp_path / "results").exists()


def test_lint_is_clean(tmp_path):
    proc = run_snakemake(tmp_path, "--lint", configfile=REPO / "config" / "config.yaml")
    assert proc.returncode == 0, proc.stdout
    assert "Congratulations, your workflow is in a good condition!" in proc.stdout, proc.stdout


# ---------------------------------------------------------------- bad input, end to end


def _config_with(tmp_path, edit):
    cfg = smoke_config()
    edit(cfg)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _mirror_copy(tmp_path, skip=None, corrupt=None):
    """A mirror of symlinks to the real one, minus ``skip``, with ``corrupt`` byte-flipped."""
    src = mirror_dir()
    dst = tmp_path / "mirror"
    for p in src.rglob("*"):
        if p.is_dir():
            continue
        rel = p.relative_to(src).as_posix()
        out = dst / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if rel == skip:
            continue
        if rel == corrupt:
            raw = bytearray(gzip.decompress(p.read_bytes()))
            raw[len(raw) // 2] ^= 0x01
            out.write_bytes(gzip.compress(bytes(raw)))
        else:
            out.symlink_to(p)
    return dst


def _bad_alpha(cfg):
    cfg["jab"]["alpha"] = 1.5


def _bad_dataset(cfg):
    cfg["jab"]["datasets"] = ["communities", "boston_housing"]


def _bad_trials(cfg):
    cfg["jab"]["n_trials"] = -2


def _bad_key(cfg):
    cfg["knapsack"]["n_sedes"] = cfg["knapsack"].pop("n_seeds")


@pytest.mark.parametrize(
    "edit, fragments",
    [
        (_bad_alpha, ["jab.alpha = 1.5", "strictly between 0 and 1", "bad.yaml"]),
        (_bad_dataset, ["jab.datasets.1 = 'boston_housing'", "meps, blog, communities"]),
        (_bad_trials, ["jab.n_trials = -2", "positive number of trials"]),
        (_bad_key, ["'knapsack.n_sedes' (did you mean 'knapsack.n_seeds'?)"]),
    ],
    ids=["alpha", "dataset", "trials", "misspelled-key"],
)
def test_bad_config_stops_before_any_job(tmp_path, edit, fragments):
    cfg = _config_with(tmp_path, edit)
    proc = run_snakemake(tmp_path / "run", configfile=cfg)
    assert proc.returncode != 0
    for f in fragments:
        assert f in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stdout, proc.stdout
    assert not (tmp_path / "run" / "results").exists()
    assert not (tmp_path / "run" / "resources" / "raw").exists()


@pytest.mark.parametrize("case", ["missing", "flipped"])
def test_bad_mirror_stops_before_any_job(tmp_path, case):
    target = "uci_binary/sonar.all-data.gz"
    mirror = _mirror_copy(
        tmp_path, **({"skip": target} if case == "missing" else {"corrupt": target})
    )
    proc = run_snakemake(tmp_path / "run", mirror=mirror)
    assert proc.returncode != 0
    assert "sonar.all-data" in proc.stdout, proc.stdout
    if case == "flipped":
        assert "sha256" in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stdout, proc.stdout
    assert not (tmp_path / "run" / "results").exists()
    assert not list((tmp_path / "run").rglob("sonar.all-data"))


# ---------------------------------------------------------------- determinism and resume


def test_smoke_run_produces_every_output_and_the_report(smoke_cores2):
    proc = run_snakemake(smoke_cores2, "-n", cores=2)
    assert "Nothing to be done" in proc.stdout, proc.stdout
    results = smoke_cores2 / "results"
    index = (results / "README.md").read_text()
    summary = (results / "paper_vs_ours.md").read_text()
    for paper in ("jab", "qwyc", "knapsack"):
        assert (results / paper / "paper_vs_ours.md").exists()
        assert f"`{paper}/paper_vs_ours.md`" in index
    for title in ("Jackknife+-after-bootstrap", "Quit When You Can", "knapsack"):
        assert title in summary
    assert not partial_files(smoke_cores2)
    claims = read_claims(smoke_cores2 / CLAIMS_CSV)  # checks columns and verdict vocabulary
    assert set(claims["scale"]) == {"smoke"}
    assert claims.groupby("paper")["claim_id"].nunique().to_dict() == {
        key: len(p.claims) for key, p in PAPERS.items()
    }
    assert "## Summary" in (smoke_cores2 / VERDICT_MD).read_text()
    report = run_snakemake(smoke_cores2, "--report", "results/report.html", cores=1)
    assert report.returncode == 0, report.stdout[-3000:]
    assert "cost estimate" not in report.stdout  # the report step runs no job
    # jobs that work for more than a few seconds say what they are doing as they go
    logs = results / "logs"
    timing = (logs / "qwyc" / "timing" / "adult.log").read_text()
    assert re.search(r"qwyc timing adult: compiled cascades, split 1/\d+ ", timing), timing
    examples = (logs / "knapsack" / "examples.log").read_text()
    assert "knapsack examples: the adversarial pool's searches (section III)" in examples
    assert re.search(r"knapsack adversarial pool, \d+ seeds of 1/\d+ n = ", examples), examples
    summary_log = (logs / "knapsack" / "summary.log").read_text()
    assert "knapsack Beta-model fit (grid bootstrap and its power), pool 1/" in summary_log
    html = (results / "report.html").read_text(errors="ignore")
    # the front page carries the scale banner and the verdict summary; the verdict page and
    # tables show inline
    assert "decide nothing about the papers" in html and "Verdicts per paper" in html
    for page in [VERDICT_HTML, "results/html/knapsack/selection_summary.html"]:
        start = html.index(f'"{page}": {{')
        mime = html[html.index('"mime_type"', start) :][:40]
        assert "text/html" in mime, (page, mime)
    figures = sorted(p.relative_to(smoke_cores2).as_posix() for p in results.rglob("*.png"))
    assert len(figures) >= 10
    missing = [f for f in figures if f'"{f}"' not in html]
    assert not missing, missing


@dataclass
class Kill:
    """What a run looked like right after it was killed."""

    signal: signal.Signals
    interrupted: bool  # still running when the signal was sent
    log: str  # Snakemake's output up to the kill
    partial: list[str]  # partial_files() right after the kill
    finished: bool  # the papers' claims tables (written last) already there
    unlock: subprocess.CompletedProcess | None = None


@dataclass
class InterruptedRun:
    """One --cores 1 smoke run, killed with SIGTERM, resumed, killed with SIGKILL, resumed."""

    workdir: Path
    kills: dict[signal.Signals, Kill]
    final: subprocess.CompletedProcess
    final_partial: list[str]


#: What the interrupted --cores 1 run makes: the J+aB paper, whose cells are the only jobs
#: with more than one thread (trials side by side), so the only ones that --cores changes.
INTERRUPTED_PAPERS = ("jab",)


def _run_until(work: Path, log: Path, sig: signal.Signals, ready) -> Kill:
    """Start the smoke run (--cores 1) in ``work``; once ``ready()``, send ``sig`` to it."""
    with log.open("w") as out:
        proc = subprocess.Popen(
            snakemake_cmd(work, *INTERRUPTED_PAPERS, cores=1),
            env=workflow_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.time() + 900
        while time.time() < deadline and proc.poll() is None and not ready():
            time.sleep(0.5)
        time.sleep(3)
        interrupted = proc.poll() is None
        if interrupted:
            os.killpg(proc.pid, sig)
        proc.wait(timeout=120)
    return Kill(
        sig,
        interrupted,
        log.read_text(),
        partial_files(work),
        all((work / PAPERS[name].claims_csv).exists() for name in INTERRUPTED_PAPERS),
    )


def _result_files(work: Path) -> int:
    root = work / "results"
    return sum(1 for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def _interrupted_run() -> InterruptedRun:
    work = scratch_dir("interrupted") / "run"
    work.mkdir()
    logs = work.parent
    term = _run_until(
        work,
        logs / "sigterm.log",
        signal.SIGTERM,
        lambda: any((work / "results" / "data").glob("*.parquet")),
    )
    before = _result_files(work)
    kill = _run_until(
        work, logs / "sigkill.log", signal.SIGKILL, lambda: _result_files(work) >= before + 5
    )
    kill.unlock = run_snakemake(work, "--unlock", cores=1)
    final = run_snakemake(work, *INTERRUPTED_PAPERS, cores=1)
    return InterruptedRun(
        work, {signal.SIGTERM: term, signal.SIGKILL: kill}, final, partial_files(work)
    )


#: Started with the session (conftest.py) when a selected test needs it.
BACKGROUND_RUNS = {"interrupted_run": _interrupted_run}


@pytest.fixture(scope="module")
def interrupted_run() -> InterruptedRun:
    """The smoke config's J+aB paper on one core, interrupted twice: SIGTERM once the data stage
    is done and experiment jobs run, SIGKILL after the resumed run has written more results (a
    hard kill leaves Snakemake's lock behind: README, resuming), then resumed to the end. Every
    job of it ran with --cores 1, so its tables also answer whether the cores change the
    results (:data:`INTERRUPTED_PAPERS`)."""
    return background("interrupted_run", _interrupted_run)


def test_cores_do_not_change_results(smoke_cores2, interrupted_run):
    proc = interrupted_run.final
    assert proc.returncode == 0, proc.stdout[-5000:]
    tables = result_tables(interrupted_run.workdir)
    assert len(tables) > 5
    different = same_tables(tables, result_tables(smoke_cores2), INTERRUPTED_PAPERS)
    assert not different, different


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killed_run_resumes_to_identical_results(smoke_cores2, interrupted_run, sig):
    kill = interrupted_run.kills[sig]
    assert kill.interrupted, f"the run finished before it could be interrupted:\n{kill.log[-3000:]}"
    assert not kill.partial
    assert not kill.finished
    if sig == signal.SIGTERM:  # the next run resumed without --unlock and made progress
        after = interrupted_run.kills[signal.SIGKILL]
        assert after.interrupted, after.log[-3000:]
    if sig == signal.SIGKILL:  # a hard kill leaves Snakemake's lock behind (README: resuming)
        assert kill.unlock.returncode == 0, kill.unlock.stdout[-3000:]
    rerun = interrupted_run.final
    assert rerun.returncode == 0, rerun.stdout[-5000:]
    assert not interrupted_run.final_partial
    whole = result_tables(smoke_cores2)
    assert not same_tables(result_tables(interrupted_run.workdir), whole, INTERRUPTED_PAPERS)
