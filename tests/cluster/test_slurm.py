"""The smoke workflow through the SLURM executor on a real single-node SLURM.

tests/cluster/start_local_slurm.sh brings the cluster up (CI runs it first; the fixture below runs
it again, which is a no-op when the cluster is up). One run through
``--profile workflow/profiles/slurm`` and one local ``--cores 2`` run of the same config are shared
by all tests of this module. During the SLURM run a watcher ``scancel``s the data-stage job half-way
through its outputs, so the same run doubles as the fault test: the profile's ``retries`` must
resubmit the cancelled job and the run must still end with tables identical to the uninterrupted
local run.

Scope: the smoke config's J+aB and knapsack papers (their targets: every cell, the grouped data
and J+aB grid jobs, the local figure / claims jobs); their tables are compared with the same
tables of the session's shared ``smoke_cores2`` run. QWYC adds only more jobs of the same
kinds. ENSEMBLE_REPRO_CLUSTER_EXPERIMENTS (e.g. ``qwyc``) runs other papers instead, with a
local reference run of that narrowed config.
Without root or a startable SLURM the module is skipped with the reason, except under CI=true,
where that is a failure.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from workflow_helpers import (  # noqa: E402
    background,
    partial_files,
    result_tables,
    run_snakemake,
    same_tables,
    scratch_dir,
    smoke_config,
    snakemake_cmd,
    workflow_env,
)

pytestmark = [pytest.mark.cluster, pytest.mark.workflow]

START_SCRIPT = REPO / "tests" / "cluster" / "start_local_slurm.sh"
SLURM_PROFILE = REPO / "workflow" / "profiles" / "slurm"
DEFAULT_EXPERIMENTS = ("jab", "knapsack")
EXPERIMENTS = os.environ.get(
    "ENSEMBLE_REPRO_CLUSTER_EXPERIMENTS", " ".join(DEFAULT_EXPERIMENTS)
).split()
TARGETS = EXPERIMENTS  # each paper's rule: its figures, tables and claims
RUN_TIMEOUT = 1800


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _unavailable(reason: str):
    if _in_ci():
        pytest.fail(f"CI must run the cluster tests, but SLURM could not be started: {reason}")
    pytest.skip(f"local SLURM not available: {reason}")


@dataclass
class Cluster:
    partition: str
    cpus: int
    mem_mb: int


def _start_cluster() -> Cluster:
    """The local SLURM, started (idempotently) by start_local_slurm.sh."""
    if os.geteuid() != 0:
        _unavailable(
            "not root; the single-node test cluster needs root "
            "(run tests/cluster/start_local_slurm.sh as root)"
        )
    env = dict(os.environ)
    if not _in_ci():
        env["SLURM_SKIP_INSTALL"] = "1"  # outside CI, never apt-get from a test
    try:
        proc = subprocess.run(
            ["bash", str(START_SCRIPT)], env=env, capture_output=True, text=True, timeout=900
        )
    except subprocess.TimeoutExpired:
        _unavailable(f"{START_SCRIPT.name} did not finish within 900 s")
    if proc.returncode != 0:
        _unavailable(
            f"{START_SCRIPT.name} exited {proc.returncode}: "
            f"{proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ''}"
        )
    rows = subprocess.run(
        ["sinfo", "-h", "-o", "%P %c %m"], capture_output=True, text=True, check=True
    ).stdout.split()
    default = [i for i in range(0, len(rows), 3) if rows[i].endswith("*")]
    i = default[0] if default else 0
    return Cluster(
        partition=rows[i].rstrip("*"), cpus=int(rows[i + 1]), mem_mb=int(rows[i + 2].rstrip("+"))
    )


@dataclass
class Canceller:
    """Background watcher that ``scancel``s the data-stage job of a run half-way through.

    The slurm profile groups every fetch/prepare job into one SLURM job (comment
    ``rule_data_...``). It is cancelled as soon as its first raw file has appeared, i.e. while it
    is still writing outputs, so the retry has to cope with a half-done job.
    """

    prefix: str
    workdir: Path
    cancelled: dict[str, str] = field(default_factory=dict)  # job id -> comment
    _stop: threading.Event = field(default_factory=threading.Event)

    def _mid_way(self) -> bool:
        raw = self.workdir / "resources" / "raw"
        return raw.is_dir() and any(p.is_file() for p in raw.rglob("*"))

    def run(self) -> None:
        while not self._stop.is_set() and not self.cancelled:
            out = subprocess.run(
                ["squeue", "-h", "-t", "RUNNING", "-o", "%i|%j|%k"], capture_output=True, text=True
            ).stdout
            for line in out.splitlines():
                jobid, name, comment = line.split("|", 2)
                if (
                    name.startswith(self.prefix + "_")
                    and comment.startswith("rule_data")
                    and self._mid_way()
                ):
                    if subprocess.run(["scancel", jobid]).returncode == 0:
                        self.cancelled[jobid] = comment
                        return
            time.sleep(0.2)

    def stop(self) -> None:
        self._stop.set()


@dataclass
class SlurmRun:
    workdir: Path
    proc: subprocess.CompletedProcess
    seconds: float
    job_ids: list[str]
    cancelled: dict[str, str]
    configfile: Path


def _write_configfile(directory: Path) -> Path:
    """The smoke config (config/smoke.yaml merged on config/config.yaml), written out whole
    into ``directory``: with every paper on for the default papers (the very config of
    ``smoke_cores2``), else with only the experiments under test switched on."""
    cfg = smoke_config()
    unknown = set(EXPERIMENTS) - set(cfg["experiments"])
    if unknown or not EXPERIMENTS:
        raise ValueError(
            f"ENSEMBLE_REPRO_CLUSTER_EXPERIMENTS={' '.join(EXPERIMENTS)!r}: expected "
            f"a non-empty subset of {sorted(cfg['experiments'])}"
        )
    if set(EXPERIMENTS) != set(DEFAULT_EXPERIMENTS):
        cfg["experiments"] = {name: name in EXPERIMENTS for name in cfg["experiments"]}
    # named smoke.yaml: the verdicts' scale comes from the config file's name
    path = directory / "smoke.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def local_run(configfile, tmp_path_factory, request):
    """The same config run locally with --cores 2 (the reference)."""
    if set(EXPERIMENTS) == set(DEFAULT_EXPERIMENTS):
        return request.getfixturevalue("smoke_cores2")
    workdir = tmp_path_factory.mktemp("local")
    start = time.monotonic()
    proc = run_snakemake(workdir, *TARGETS, configfile=configfile, cores=2, timeout=RUN_TIMEOUT)
    assert proc.returncode == 0, proc.stdout[-5000:]
    print(f"local --cores 2 run of {EXPERIMENTS}: {time.monotonic() - start:.0f} s")
    return workdir


def _slurm_run() -> SlurmRun:
    cluster = _start_cluster()
    root = scratch_dir("slurm")
    configfile = _write_configfile(root)
    workdir = root / "run"
    workdir.mkdir()
    prefix = "ensrepro" + uuid.uuid4().hex[:8]
    cmd = snakemake_cmd(workdir, *TARGETS, configfile=configfile, cores=cluster.cpus, profile=None)
    cmd += [
        "--profile",
        str(SLURM_PROFILE),
        # Each submission must fit the single test node.
        "--resources",
        f"mem_mb={cluster.mem_mb}",
        "--jobs",
        "8",
        "--slurm-jobname-prefix",
        prefix,
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--slurm-keep-successful-logs",
        "--latency-wait",
        "10",
    ]
    env = workflow_env()
    env["ENSEMBLE_REPRO_SLURM_ACCOUNT"] = "root"
    env["ENSEMBLE_REPRO_SLURM_PARTITION"] = cluster.partition
    canceller = Canceller(prefix, workdir)
    watcher = threading.Thread(target=canceller.run, daemon=True)
    watcher.start()
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            env=env,
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=RUN_TIMEOUT,
        )
    finally:
        canceller.stop()
        watcher.join(timeout=10)
    seconds = time.monotonic() - start
    (workdir / "snakemake-slurm.log").write_text(proc.stdout)
    job_ids = re.findall(r"has been submitted with SLURM jobid (\d+)", proc.stdout)
    print(
        f"SLURM run of {EXPERIMENTS}: {seconds:.0f} s, {len(job_ids)} SLURM jobs, "
        f"cancelled {canceller.cancelled}"
    )
    return SlurmRun(workdir, proc, seconds, job_ids, dict(canceller.cancelled), configfile)


#: Started with the session (conftest.py) when a selected test needs it.
BACKGROUND_RUNS = {"slurm_run": _slurm_run}


@pytest.fixture(scope="module")
def slurm_run() -> SlurmRun:
    """The smoke config through the slurm profile, with one job cancelled mid-run (started in
    the background with the session)."""
    return background("slurm_run", _slurm_run)


@pytest.fixture(scope="module")
def configfile(slurm_run) -> Path:
    """The config file of the SLURM run."""
    return slurm_run.configfile


def _sacct(job_ids: list[str]) -> dict[str, dict[str, str]]:
    """JobID -> {name, state, comment} from the accounting database (allocations only)."""
    fields = ["JobID", "JobName%200", "State", "Comment%400"]
    rows: dict[str, dict[str, str]] = {}
    for _ in range(30):  # slurmdbd records job ends a moment after slurmctld
        out = subprocess.run(
            ["sacct", "-X", "-n", "-P", "-j", ",".join(job_ids), "-o", ",".join(fields)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        rows = {}
        for line in out.splitlines():
            jobid, name, state, comment = line.split("|", 3)
            rows[jobid] = {"name": name, "state": state.split()[0], "comment": comment}
        if len(rows) == len(job_ids) and not any(
            r["state"] in {"PENDING", "RUNNING", "COMPLETING"} for r in rows.values()
        ):
            break
        time.sleep(1)
    return rows


def test_workflow_completes_through_slurm(slurm_run):
    assert slurm_run.proc.returncode == 0, slurm_run.proc.stdout[-5000:]
    assert "steps (100%) done" in slurm_run.proc.stdout
    assert slurm_run.job_ids, "no job was submitted to SLURM"


def test_the_estimate_prices_the_cores_a_node_has_not_the_profiles(tmp_path):
    """The profile asks 8 cores per job; on the test node's fewer CPUs the run lowers them, and
    the estimate it prints says the lowered count."""
    cluster = _start_cluster()
    cmd = snakemake_cmd(tmp_path, "-n", profile=None)
    at = cmd.index("--cores")
    del cmd[at : at + 2]  # the profile's cores, as a user running it would get
    env = workflow_env()
    env["ENSEMBLE_REPRO_SLURM_ACCOUNT"] = "root"
    env["ENSEMBLE_REPRO_SLURM_PARTITION"] = cluster.partition
    proc = subprocess.run(
        [*cmd, "--profile", str(SLURM_PROFILE)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert f"per-job cores lowered from 8 to {cluster.cpus}" in proc.stdout, proc.stdout[-3000:]
    s = "" if cluster.cpus == 1 else "s"
    assert re.search(rf"cost estimate \(.*\): .* on {cluster.cpus} core{s}\b", proc.stdout)
    assert " on 8 cores" not in proc.stdout


def test_jobs_really_ran_under_slurm(slurm_run):
    assert slurm_run.job_ids, "no job was submitted to SLURM"
    rows = _sacct(slurm_run.job_ids)
    assert sorted(rows) == sorted(slurm_run.job_ids), "sacct does not know every submitted job"
    run_names = {r["name"] for r in rows.values()}
    assert len(run_names) == 1, f"jobs of one run carry one run id as job name: {run_names}"
    states = {jobid: r["state"] for jobid, r in rows.items()}
    not_ok = {j: s for j, s in states.items() if s != "COMPLETED" and j not in slurm_run.cancelled}
    assert not not_ok, f"SLURM jobs that did not complete: {not_ok}"
    # Every SLURM job leaves a log; rule logs of the workflow were written by the job itself.
    slurm_logs = list((slurm_run.workdir / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert len(slurm_logs) >= len(slurm_run.job_ids)


def test_cancelled_job_was_resubmitted_and_completed(slurm_run):
    assert slurm_run.cancelled, "the watcher never saw a running SLURM job to cancel"
    ((jobid, comment),) = slurm_run.cancelled.items()
    rows = _sacct(slurm_run.job_ids)
    assert rows[jobid]["state"] == "CANCELLED", rows[jobid]
    retries = [j for j, r in rows.items() if r["comment"] == comment and int(j) > int(jobid)]
    assert retries, f"job {jobid} ({comment}) was cancelled but never resubmitted"
    assert rows[retries[-1]]["state"] == "COMPLETED", rows[retries[-1]]
    assert slurm_run.proc.returncode == 0


def test_no_partial_output_after_the_fault(slurm_run):
    """Nothing truncated under results/ (atomic writes); temp files are never rule inputs."""
    broken = [f for f in partial_files(slurm_run.workdir) if not f.endswith("(temp file)")]
    assert not broken, broken


def test_rerun_has_nothing_to_do(slurm_run, configfile):
    """No output is left marked incomplete: a rerun of the same command would do nothing."""
    proc = run_snakemake(
        slurm_run.workdir, *TARGETS, "-n", configfile=configfile, cores=2, profile=None
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "Nothing to be done" in proc.stdout, proc.stdout[-3000:]


def _prepared_tables(workdir: Path) -> dict[str, object]:
    """Prepared data sets (parquet as DataFrames) and their JSON sidecars (as parsed JSON)."""
    root = workdir / "results" / "data"
    out: dict[str, object] = {}
    for p in sorted(root.glob("*.parquet")):
        out[p.name] = pd.read_parquet(p)
    for p in sorted(root.glob("*.json")):
        out[p.name] = json.loads(p.read_text())
    return out


def test_results_identical_to_local_run(slurm_run, local_run):
    """Every result table (timing columns dropped), sidecar and prepared data set of the run's
    papers is equal."""
    assert slurm_run.proc.returncode == 0, slurm_run.proc.stdout[-5000:]
    ours = result_tables(slurm_run.workdir)
    different = same_tables(ours, result_tables(local_run), EXPERIMENTS)
    assert not different, f"differ between the SLURM and the local run: {different}"

    ours_data, ref_data = _prepared_tables(slurm_run.workdir), _prepared_tables(local_run)
    # the reference may have prepared more data sets (papers this run left out)
    assert ours_data and set(ours_data) <= set(ref_data), (sorted(ours_data), sorted(ref_data))
    for name, ref_obj in ((k, ref_data[k]) for k in ours_data):
        if isinstance(ref_obj, pd.DataFrame):
            pd.testing.assert_frame_equal(ours_data[name], ref_obj, check_exact=True)
        else:
            assert ours_data[name] == ref_obj, name
