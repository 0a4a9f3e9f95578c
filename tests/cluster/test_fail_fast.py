"""A SLURM run whose jobs no node can hold, or whose partition the cluster lacks, stops before
any submission.

On the local single-node test cluster (tests/cluster/start_local_slurm.sh): a run asking more
CPUs per job than the node has must end at once with a message naming the rule, what it asks,
what the partition has and the option to change; with the profile's default ``cores: 8`` the
per-job cores must instead drop to the node's CPUs (the data group once asked 5 CPUs of a 2-CPU
node and sat PENDING forever); a partition given with ``--default-resources`` is the one
checked. Every run is checked before the DAG runs, so each takes seconds, not a smoke run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from workflow_helpers import SMOKE, SNAKEFILE, workflow_env  # noqa: E402

pytestmark = [pytest.mark.cluster, pytest.mark.workflow]

START_SCRIPT = REPO / "tests" / "cluster" / "start_local_slurm.sh"
SLURM_PROFILE = REPO / "workflow" / "profiles" / "slurm"


@pytest.fixture(scope="module")
def node_cpus() -> int:
    """CPUs of the local test cluster's node (the cluster started idempotently)."""
    if os.geteuid() != 0:
        pytest.skip("local SLURM needs root (tests/cluster/start_local_slurm.sh)")
    env = {**os.environ, "SLURM_SKIP_INSTALL": os.environ.get("SLURM_SKIP_INSTALL", "1")}
    proc = subprocess.run(
        ["bash", str(START_SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if proc.returncode != 0:
        pytest.skip(f"local SLURM not available: {proc.stderr.strip()[-300:]}")
    out = subprocess.run(
        ["sinfo", "-h", "-o", "%c"], capture_output=True, text=True, check=True
    ).stdout.split()
    return max(int(c.rstrip("+")) for c in out)


def slurm_run(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--directory",
        str(workdir),
        "--configfile",
        str(SMOKE),
        "--profile",
        str(SLURM_PROFILE),
        *args,
    ]
    env = workflow_env()
    for var in ("ENSEMBLE_REPRO_SLURM_ACCOUNT", "ENSEMBLE_REPRO_SLURM_PARTITION"):
        env.pop(var, None)  # the local test cluster: the profile's fallbacks are allowed
    workdir.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        cmd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
        timeout=300,
    )


def submitted(workdir: Path) -> list[Path]:
    logs = workdir / ".snakemake" / "slurm_logs"
    return list(logs.rglob("*")) if logs.exists() else []


def test_job_asking_more_cpus_than_the_node_stops_before_submission(tmp_path, node_cpus):
    asked = node_cpus + 2
    proc = slurm_run(tmp_path, "--cores", str(asked), "--set-threads", f"jab_main_cell={asked}")
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert "jobs that no node of the cluster can run (nothing was submitted)" in proc.stdout
    assert (
        f"rule jab_main_cell asks {asked} CPUs; partition 'debug' has nodes of at most "
        f"{node_cpus} CPUs"
    ) in proc.stdout
    assert f"--set-threads jab_main_cell={node_cpus}" in proc.stdout
    # the data stage's group job (5 fetch + 4 prepare jobs side by side): the job that sat
    # PENDING forever on a 2-CPU node
    assert f"group data asks {asked} CPUs (its jobs side by side)" in proc.stdout
    assert "Traceback" not in proc.stdout
    assert submitted(tmp_path) == []


def test_profile_cores_drop_to_the_node(tmp_path, node_cpus):
    if node_cpus >= 8:
        pytest.skip("the node has the profile's 8 cores: nothing to lower")
    proc = slurm_run(tmp_path, "-n")
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert f"per-job cores lowered from 8 to {node_cpus}" in proc.stdout
    assert "cost estimate (" in proc.stdout


def test_partition_from_default_resources_is_the_one_checked(tmp_path, node_cpus):
    proc = slurm_run(
        tmp_path,
        "-n",
        "--default-resources",
        "slurm_account=root",
        "slurm_partition=nosuch",
        "mem_mb=2000",
        "runtime=60",
    )
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert "slurm_partition 'nosuch' is not a partition of this cluster; sinfo lists: debug" in (
        proc.stdout
    )
    assert "Traceback" not in proc.stdout
    assert submitted(tmp_path) == []
