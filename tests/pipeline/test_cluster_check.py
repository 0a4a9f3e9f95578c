"""SLURM fail-fast checks (ensemble_repro.cluster): on canned sinfo / scontrol output, and in
`snakemake` runs through the SLURM profile with stand-in `sinfo` / `scontrol` commands."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from workflow_helpers import REPO, SMOKE, SNAKEFILE, workflow_env

from ensemble_repro.cluster import (
    ACCOUNT_VAR,
    PARTITION_VAR,
    ClusterError,
    Partition,
    Request,
    check_cluster,
    job_cores,
    job_requests,
    parse_sinfo,
    parse_time,
    unsatisfiable,
)
from ensemble_repro.cost.dag import Job

# `sinfo -h -o '%P|%c|%m|%l'` of a cluster with two node sets in `short` (default) and a
# partition with a time limit
SINFO = "short*|4|7800|2:00:00\nshort*|8+|15600|2:00:00\nlong|32|128000|7-00:00:00\n"
LOCAL = "debug*|2|3900|infinite\n"
SLURM_PROFILE = REPO / "workflow" / "profiles" / "slurm"


def runner(sinfo, name="ensemblerepro"):
    canned = {"sinfo": sinfo, "scontrol": f"SlurmctldPort = 6817\nClusterName = {name}\n"}
    return lambda cmd: canned[cmd[0]]


def test_parse_sinfo_keeps_largest_node_and_default():
    parts = {p.name: p for p in parse_sinfo(SINFO)}
    assert parts["short"] == Partition("short", 8, 15600, 120.0, True)
    assert parts["long"] == Partition("long", 32, 128000, 7 * 1440.0, False)


@pytest.mark.parametrize(
    "text,minutes",
    [
        ("infinite", None),
        ("UNLIMITED", None),
        ("45", 45.0),
        ("30:00", 30.0),
        ("2:00:00", 120.0),
        ("1-12:00:00", 2160.0),
        ("3-00:30:30", 4350.5),
        ("2-6", 3240.0),
    ],
)
def test_parse_time(text, minutes):
    assert parse_time(text) == minutes


def test_every_unsatisfiable_request_named_with_fix():
    part = parse_sinfo(SINFO)[0]
    msgs = unsatisfiable(
        [
            Request("fit", 4, 2000, 60),
            Request("fit", 12, 1000, 30),
            Request("big", 1, 20000, 10),
            Request("slow", 1, 100, 600),
            Request("fine", 8, 15600, 120),
        ],
        part,
    )
    assert len(msgs) == 3
    assert msgs[0].startswith(
        "rule fit asks 12 CPUs; partition 'short' has nodes of at most "
        "8 CPUs and 15600 MB, a time limit of 120 min"
    )
    assert "--set-threads fit=8" in msgs[0] and "`cores`" in msgs[0]
    assert "rule big asks 20000 MB" in msgs[1] and "--set-resources big:mem_mb=15600" in msgs[1]
    assert "rule slow asks a runtime of 600 min" in msgs[2]
    assert "--set-resources slow:runtime=120" in msgs[2]


def test_group_bundle_too_wide_names_the_group_options():
    msgs = unsatisfiable([Request("data", 5, 1000, group=True)], parse_sinfo(LOCAL)[0])
    assert msgs == [
        (
            "group data asks 5 CPUs (its jobs side by side); partition 'debug' has "
            "nodes of at most 2 CPUs and 3900 MB, no time limit. Lower the per-job cap "
            "with the profile's `cores` (--cores 2) or bundle fewer jobs "
            "(--group-components data=1)."
        )
    ]


def test_requests_of_the_jobs_and_their_groups():
    """Each submitted job asks its threads (capped by the per-job cores), memory and runtime;
    a group (the run's --groups over the rule's own) asks its k widest jobs side by side and
    its largest memory; local jobs (the report tier, targets) ask nothing."""
    jobs = [
        Job("fetch", {"f": "a"}, resources={"mem_mb": 1000, "runtime": 30}),
        Job("prepare", {"n": "a"}, resources={"mem_mb": 4000, "runtime": 20}),
        *(Job("cell", {"m": m}, 2, group="grid", resources={"mem_mb": 2000}) for m in "xyz"),
        Job("jab_figures", {"fig": "1"}, local=True, resources={"mem_mb": 9000}),
    ]
    reqs = job_requests(jobs, 8, {"fetch": "data", "prepare": "data"}, {"grid": 2, "data": 9})
    assert reqs == [
        Request("fetch", 1, 1000, 30),
        Request("prepare", 1, 4000, 20),
        *[Request("cell", 2, 2000)] * 3,
        Request("data", 2, 4000, group=True),
        Request("grid", 4, 2000, group=True),
    ]
    assert job_requests(jobs, 3, {}, {"grid": 2})[-1] == Request("grid", 3, 2000, group=True)


def test_small_nodes_lower_default_per_job_cores():
    """The data group asked 5 CPUs (cap 8) of a 2-CPU node and waited forever: with the
    profile's cores the per-job cap becomes the node's 2 CPUs, and nothing is reported."""
    seen = []

    def requests(cores):
        seen.append(cores)
        return [Request("data", min(5, cores), group=True)]

    part, cores = check_cluster(requests, 8, env={}, run=runner(LOCAL))
    assert (part.name, cores, seen) == ("debug", 2, [2])
    assert job_cores(8, parse_sinfo(SINFO)[0]) == 8


def test_explicit_cores_above_node_fail_before_submission():
    with pytest.raises(ClusterError) as err:
        check_cluster(
            lambda c: [Request("jab_main_cell", min(4, c), 2000, 1440)],
            4,
            cores_explicit=True,
            env={},
            run=runner(LOCAL),
        )
    text = str(err.value)
    assert text.startswith("jobs that no node of the cluster can run (nothing was submitted)")
    assert "rule jab_main_cell asks 4 CPUs; partition 'debug' has nodes of at most 2 CPUs" in text


def test_unset_account_and_partition_stop_on_a_real_cluster():
    with pytest.raises(
        ClusterError,
        match=r"^ENSEMBLE_REPRO_SLURM_ACCOUNT and "
        r"ENSEMBLE_REPRO_SLURM_PARTITION are not set: on cluster hpc1",
    ):
        check_cluster(lambda c: [], 8, env={}, run=runner(SINFO, "hpc1"))
    with pytest.raises(ClusterError, match=r"^ENSEMBLE_REPRO_SLURM_PARTITION is not set"):
        check_cluster(
            lambda c: [], 8, env={"ENSEMBLE_REPRO_SLURM_ACCOUNT": "p1"}, run=runner(SINFO, "hpc1")
        )
    env = {"ENSEMBLE_REPRO_SLURM_ACCOUNT": "p1", "ENSEMBLE_REPRO_SLURM_PARTITION": "long"}
    part, cores = check_cluster(
        lambda c: [Request("x", 16, 64000, 2000)], 8, env=env, run=runner(SINFO, "hpc1")
    )
    assert (part.name, cores) == ("long", 8)
    # the local test cluster may use the profile's fallbacks
    assert check_cluster(lambda c: [], 8, env={}, run=runner(LOCAL))[0].name == "debug"


def test_account_and_partition_from_default_resources():
    """--default-resources replaces the profile's mapping: its values count without the
    variables, and its partition is the one checked."""
    given = {"slurm_account": "p1", "slurm_partition": "long"}
    part, _ = check_cluster(lambda c: [], 8, env={}, run=runner(SINFO, "hpc1"), resources=given)
    assert part.name == "long"
    # over the variables too: the jobs go where the default resources say
    env = {ACCOUNT_VAR: "p0", PARTITION_VAR: "short"}
    part, _ = check_cluster(lambda c: [], 8, env=env, run=runner(SINFO, "hpc1"), resources=given)
    assert part.name == "long"
    # a mapping of the user's that lacks one of them
    with pytest.raises(
        ClusterError,
        match=r"^the default resources \(--default-resources\) have no slurm_partition: "
        r"on cluster hpc1",
    ):
        check_cluster(
            lambda c: [],
            8,
            env={},
            run=runner(SINFO, "hpc1"),
            resources={"slurm_account": "p1", "slurm_partition": None},
        )
    # the profile's fallbacks, variables unset: nobody chose them
    with pytest.raises(ClusterError, match=r"^ENSEMBLE_REPRO_SLURM_ACCOUNT and"):
        check_cluster(
            lambda c: [],
            8,
            env={},
            run=runner(SINFO, "hpc1"),
            resources={"slurm_account": "root", "slurm_partition": "debug"},
        )
    # the profile's partition fallback beside a chosen account: the partition was not chosen
    with pytest.raises(ClusterError, match=r"^ENSEMBLE_REPRO_SLURM_PARTITION is not set"):
        check_cluster(
            lambda c: [],
            8,
            env={ACCOUNT_VAR: "p1"},
            run=runner(SINFO, "hpc1"),
            resources={"slurm_account": "p1", "slurm_partition": "debug"},
        )
    # on the local test cluster, the fallbacks are what the jobs use
    part, _ = check_cluster(
        lambda c: [],
        8,
        env={},
        run=runner(LOCAL),
        resources={"slurm_account": "root", "slurm_partition": "debug"},
    )
    assert part.name == "debug"


def test_unknown_partition_lists_the_valid_ones():
    env = {"ENSEMBLE_REPRO_SLURM_ACCOUNT": "p1", "ENSEMBLE_REPRO_SLURM_PARTITION": "gpu"}
    with pytest.raises(
        ClusterError,
        match=r"'gpu' is not a partition of this cluster; "
        r"sinfo lists: short, long",
    ):
        check_cluster(lambda c: [], 8, env=env, run=runner(SINFO, "hpc1"))


def test_missing_slurm_commands_say_so(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ClusterError, match="scontrol show config.*SLURM client commands"):
        check_cluster(lambda c: [], 8, env={})


# ---------------------------------------------------------------- the check as `snakemake` runs it


@pytest.fixture
def fake_slurm(tmp_path):
    """A PATH whose `scontrol` and `sinfo` answer as cluster hpc1 with partitions short
    (default, 4-CPU nodes) and long (2-CPU nodes), with a silent `squeue` (the plugin wants
    one), and an environment without the profile's variables. Dry runs only: nothing is
    submitted."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, out in [
        ("scontrol", "ClusterName = hpc1\n"),
        ("sinfo", "short*|4|7800|1-00:00:00\nlong|2|15600|7-00:00:00\n"),
        ("squeue", ""),
    ]:
        (bin_dir / name).write_text(f"#!/bin/sh\nprintf '{out}'\n")
        (bin_dir / name).chmod(0o755)
    env = workflow_env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    for var in (ACCOUNT_VAR, PARTITION_VAR):
        env.pop(var, None)
    return env


def slurm_dry_run(workdir, env, *args):
    """``snakemake -n`` through the SLURM profile (its `cores: 8`: no --cores given)."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE)]
    cmd += ["--directory", str(workdir), "--configfile", str(SMOKE)]
    cmd += ["--profile", str(SLURM_PROFILE), "-n", *args]
    workdir.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600
    )


@pytest.mark.workflow
@pytest.mark.parametrize(
    "given",
    ["nothing", "default-resources", "variables", "default-resources over variables"],
)
def test_account_and_partition_from_the_command_line_or_the_environment(
    tmp_path, fake_slurm, given
):
    """--default-resources slurm_account=... slurm_partition=... satisfies the check as the two
    variables do, and the partition checked is the one the jobs are submitted to (long: per-job
    cores drop to its 2 CPUs; the default partition short has 4)."""
    env, args = dict(fake_slurm), []
    if "variables" in given:
        env[ACCOUNT_VAR], env[PARTITION_VAR] = "p1", "short"
    if given.startswith("default-resources"):
        args = ["--default-resources", "slurm_account=p2", "slurm_partition=long"]
        args += ["mem_mb=2000", "runtime=60"]
    proc = slurm_dry_run(tmp_path / "run", env, *args)
    if given == "nothing":
        assert proc.returncode != 0, proc.stdout[-3000:]
        assert (
            f"{ACCOUNT_VAR} and {PARTITION_VAR} are not set: on cluster hpc1 the SLURM profile "
            "would submit with the local test cluster's account 'root' / partition 'debug'"
        ) in proc.stdout, proc.stdout[-3000:]
        assert "--default-resources slurm_account=myproject slurm_partition=short" in proc.stdout
        assert "Traceback" not in proc.stdout
        return
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "not set" not in proc.stdout
    if given == "variables":
        assert "per-job cores lowered from 8 to 4: the nodes of partition short" in proc.stdout
    else:
        assert "per-job cores lowered from 8 to 2: the nodes of partition long" in proc.stdout


@pytest.mark.workflow
def test_unknown_partition_on_the_command_line_is_named(tmp_path, fake_slurm):
    proc = slurm_dry_run(
        tmp_path / "run",
        fake_slurm,
        "--default-resources",
        "slurm_account=p2",
        "slurm_partition=gpu",
    )
    assert proc.returncode != 0, proc.stdout[-3000:]
    assert (
        "slurm_partition 'gpu' is not a partition of this cluster; sinfo lists: short, long"
    ) in proc.stdout, proc.stdout[-3000:]
    assert "Traceback" not in proc.stdout
