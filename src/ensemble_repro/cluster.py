"""Clusters that fail fast: what a SLURM partition offers vs what the workflow's jobs ask.

``workflow/rules/common.smk`` calls :func:`check_cluster` at start when the run uses the SLURM
executor, before any submission: a job no node of the partition can hold would otherwise sit
``PENDING`` forever while Snakemake waits without a message.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

#: Environment variables the SLURM profile reads (workflow/profiles/slurm/config.yaml).
ACCOUNT_VAR = "ENSEMBLE_REPRO_SLURM_ACCOUNT"
PARTITION_VAR = "ENSEMBLE_REPRO_SLURM_PARTITION"
#: ClusterName of the single-node test cluster of tests/cluster/start_local_slurm.sh, the only
#: cluster where the profile's fallbacks (account ``root``, partition ``debug``) are meant.
LOCAL_TEST_CLUSTER = "ensemblerepro"
#: The default resources the SLURM plugin submits with: the environment variable the profile
#: fills each from, and the profile's fallback when that variable is unset.
SLURM_DEFAULTS = {
    "slurm_account": (ACCOUNT_VAR, "root"),
    "slurm_partition": (PARTITION_VAR, "debug"),
}
#: Per-job cores the SLURM profile asks for at most (its ``cores:``); lowered to what the
#: partition's nodes have when they have fewer.
PROFILE_CORES = 8
SINFO_FORMAT = "%P|%c|%m|%l"


class ClusterError(Exception):
    """The cluster cannot run this workflow as configured (the message says what to change)."""


@dataclass(frozen=True)
class Partition:
    """The largest node of a SLURM partition and its time limit (minutes; None = no limit)."""

    name: str
    cpus: int
    mem_mb: int
    time_limit: float | None
    default: bool = False


@dataclass(frozen=True)
class Request:
    """What one job asks: CPUs, memory (MB), runtime (minutes); ``rule`` names a group when
    ``group`` (a SLURM job bundling that group's jobs side by side)."""

    rule: str
    cpus: int
    mem_mb: float | None = None
    runtime: float | None = None
    group: bool = False


def parse_time(text: str) -> float | None:
    """SLURM time limit (``days-hours:minutes:seconds`` and shorter forms) in minutes.

    Examples
    --------
    >>> parse_time("1-02:00:00"), parse_time("30:00"), parse_time("infinite")
    (1560.0, 30.0, None)
    """
    text = text.strip()
    if text.lower() in ("infinite", "unlimited", "n/a", ""):
        return None
    days, _, rest = text.rpartition("-")
    parts = [float(p) for p in rest.split(":")] + [0.0, 0.0]
    if days:  # days-hours[:minutes[:seconds]]
        h, m, s = parts[:3]
    elif len(parts) == 3:  # minutes
        h, m, s = 0.0, parts[0], 0.0
    elif len(parts) == 4:  # minutes:seconds
        h, m, s = 0.0, parts[0], parts[1]
    else:
        h, m, s = parts[:3]
    return (float(days) if days else 0.0) * 1440 + h * 60 + m + s / 60


def parse_sinfo(text: str) -> list[Partition]:
    """Partitions from ``sinfo -h -o '%P|%c|%m|%l'`` (one line per node set; the default
    partition is marked ``*``); each keeps its largest CPU count and memory.

    Examples
    --------
    >>> parse_sinfo("debug*|2|3900|infinite\\n")
    [Partition(name='debug', cpus=2, mem_mb=3900, time_limit=None, default=True)]
    """
    out: dict[str, Partition] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = line.strip().split("|")
        if len(fields) != 4:
            raise ClusterError(f"unexpected sinfo line {line!r} (format {SINFO_FORMAT!r})")
        name, cpus, mem, limit = fields
        default = name.endswith("*")
        name = name.rstrip("*")
        cpus, mem = int(cpus.rstrip("+")), int(mem.rstrip("+"))
        old = out.get(name)
        if old:
            cpus, mem = max(cpus, old.cpus), max(mem, old.mem_mb)
        out[name] = Partition(name, cpus, mem, parse_time(limit), default)
    return list(out.values())


def _run(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise ClusterError(
            f"`{' '.join(cmd)}` failed ({err}): the SLURM executor needs the "
            "SLURM client commands on this host (run from a login node)"
        ) from None


def cluster_name(run: Callable[[list[str]], str] = _run) -> str:
    """ClusterName from ``scontrol show config``."""
    for line in run(["scontrol", "show", "config"]).splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "ClusterName":
            return value.strip()
    return ""


def choose_partition(partitions: list[Partition], name: str | None) -> Partition:
    """The partition jobs go to: ``name``, or the cluster's default one."""
    if not partitions:
        raise ClusterError("sinfo lists no partition: the cluster has no node to run jobs on")
    names = ", ".join(p.name for p in partitions)
    if name:
        for p in partitions:
            if p.name == name:
                return p
        raise ClusterError(
            f"slurm_partition {name!r} is not a partition of this cluster; sinfo lists: "
            f"{names} (set {PARTITION_VAR} or --default-resources slurm_partition=...)"
        )
    for p in partitions:
        if p.default:
            return p
    raise ClusterError(
        f"the cluster has no default partition: set {PARTITION_VAR} to one of {names}"
    )


def profile_resources(env: Mapping[str, str]) -> dict[str, str]:
    """``slurm_account`` and ``slurm_partition`` as the SLURM profile sets them from ``env``."""
    return {res: env.get(var) or fallback for res, (var, fallback) in SLURM_DEFAULTS.items()}


def check_account_and_partition(
    resources: Mapping[str, object], env: Mapping[str, str], name: str
) -> None:
    """Stop when the user chose no account or no partition, on any cluster but the local test
    cluster (``name`` is the ClusterName).

    ``resources`` holds ``slurm_account`` and ``slurm_partition`` of the run's default
    resources. The SLURM profile fills them from :data:`ACCOUNT_VAR` and :data:`PARTITION_VAR`,
    else with the local test cluster's ``root`` / ``debug``; ``--default-resources`` on the
    command line (or another profile's ``default-resources``) replaces the profile's whole
    mapping. So while both values are the ones the profile gives, a value counts as chosen when
    its variable is set; otherwise the mapping is the user's, and each value in it counts.

    Examples
    --------
    >>> check_account_and_partition(
    ...     {"slurm_account": "p1", "slurm_partition": "short"}, env={}, name="hpc1")
    >>> check_account_and_partition(  # doctest: +ELLIPSIS
    ...     {"slurm_account": "root", "slurm_partition": "debug"}, env={}, name="hpc1")
    Traceback (most recent call last):
    ...
    ensemble_repro.cluster.ClusterError: ENSEMBLE_REPRO_SLURM_ACCOUNT and ...
    """
    if name == LOCAL_TEST_CLUSTER:
        return
    if {r: resources.get(r) for r in SLURM_DEFAULTS} == profile_resources(env):
        unset = [r for r, (var, _) in SLURM_DEFAULTS.items() if not env.get(var)]
        if unset:
            variables = " and ".join(SLURM_DEFAULTS[r][0] for r in unset)
            fallbacks = " / ".join(
                f"{r.removeprefix('slurm_')} {SLURM_DEFAULTS[r][1]!r}" for r in unset
            )
            raise ClusterError(
                f"{variables} {'is' if len(unset) == 1 else 'are'} not set: on cluster "
                f"{name or '(unnamed)'} the SLURM profile would submit with the local test "
                f"cluster's {fallbacks}. Set them, e.g. {ACCOUNT_VAR}=myproject "
                f"{PARTITION_VAR}=short snakemake --profile workflow/profiles/slurm, or give "
                "both on the command line: --default-resources slurm_account=myproject "
                "slurm_partition=short mem_mb=2000 runtime=60 (it replaces the profile's "
                "default resources: repeat mem_mb and runtime)"
            )
        return
    unset = [r for r in SLURM_DEFAULTS if not resources.get(r)]
    if unset:
        raise ClusterError(
            f"the default resources (--default-resources) have no {' and no '.join(unset)}: "
            f"on cluster {name or '(unnamed)'} name the account and the partition the jobs "
            "go to, e.g. --default-resources slurm_account=myproject slurm_partition=short "
            "mem_mb=2000 runtime=60"
        )


def job_cores(cores: int, partition: Partition, explicit: bool = False) -> int:
    """Per-job cores: the profile's ``cores``, but no more than a node of the partition has
    when that is less than :data:`PROFILE_CORES`; ``cores`` as given when ``explicit`` (set
    on the command line: jobs asking more than a node has are then reported)."""
    if explicit or partition.cpus >= PROFILE_CORES:
        return cores
    return min(cores, partition.cpus)


def unsatisfiable(requests: Iterable[Request], partition: Partition) -> list[str]:
    """One message per rule whose CPUs, memory or runtime no node of ``partition`` has."""
    worst: dict[str, Request] = {}
    for r in requests:
        w = worst.get(r.rule)
        worst[r.rule] = (
            r
            if w is None
            else Request(
                r.rule,
                max(r.cpus, w.cpus),
                max(r.mem_mb or 0, w.mem_mb or 0) or None,
                max(r.runtime or 0, w.runtime or 0) or None,
                r.group,
            )
        )
    p, msgs = partition, []
    limit = "no time limit" if p.time_limit is None else f"a time limit of {p.time_limit:g} min"
    has = f"partition {p.name!r} has nodes of at most {p.cpus} CPUs and {p.mem_mb} MB, {limit}"
    for rule, r in worst.items():
        if r.cpus > p.cpus and r.group:
            msgs.append(
                f"group {rule} asks {r.cpus} CPUs (its jobs side by side); {has}. "
                f"Lower the per-job cap with the profile's `cores` (--cores {p.cpus}) "
                f"or bundle fewer jobs (--group-components {rule}=1)."
            )
        elif r.cpus > p.cpus:
            msgs.append(
                f"rule {rule} asks {r.cpus} CPUs; {has}. Lower it with --set-threads "
                f"{rule}={p.cpus}, or the per-job cap with the profile's `cores` "
                f"(--cores {p.cpus})."
            )
        if r.mem_mb and r.mem_mb > p.mem_mb:
            msgs.append(
                f"rule {rule} asks {r.mem_mb:g} MB of memory; {has}. Change it with "
                f"--set-resources {rule}:mem_mb={p.mem_mb}, or use another partition "
                f"(slurm_partition)."
            )
        if r.runtime and p.time_limit is not None and r.runtime > p.time_limit:
            msgs.append(
                f"rule {rule} asks a runtime of {r.runtime:g} min; {has}. Change it "
                f"with --set-resources {rule}:runtime={p.time_limit:g}, or use another "
                f"partition (slurm_partition)."
            )
    return msgs


def job_requests(
    jobs: Iterable, cores: int, groups: Mapping[str, str], components: Mapping[str, int]
) -> list[Request]:
    """What every submitted job, and every SLURM job bundling a group's jobs, asks of a node.

    Parameters
    ----------
    jobs : iterable of ensemble_repro.cost.dag.Job
        The run's jobs; local ones are never submitted.
    cores : int
        Per-job cores: a job asks for its threads up to this.
    groups : mapping
        Rule -> group given to the run (``--groups``), over the rules' own.
    components : mapping
        Group -> connected components bundled per SLURM job (``--group-components``; 1).

    Returns
    -------
    list of Request
        One per job, then one per group: its ``k`` widest jobs side by side (at most
        ``cores`` CPUs) and its largest memory.
    """
    out, by_group = [], {}
    for j in jobs:
        if j.local:
            continue
        req = Request(
            j.rule, min(j.threads, cores), j.resources.get("mem_mb"), j.resources.get("runtime")
        )
        out.append(req)
        group = groups.get(j.rule, j.group)
        if group:
            by_group.setdefault(group, []).append(req)
    for group, reqs in by_group.items():
        top = sorted(reqs, key=lambda r: -r.cpus)[: int(components.get(group, 1))]
        out.append(
            Request(
                group,
                min(cores, sum(r.cpus for r in top)),
                max((r.mem_mb or 0) for r in reqs) or None,
                group=True,
            )
        )
    return out


def check_cluster(
    requests: Callable[[int], Iterable[Request]],
    cores: int,
    cores_explicit: bool = False,
    env: Mapping[str, str] | None = None,
    run: Callable[[list[str]], str] = _run,
    resources: Mapping[str, object] | None = None,
) -> tuple[Partition, int]:
    """Check the cluster before any submission; return the partition and the per-job cores.

    Parameters
    ----------
    requests : callable
        Given the per-job cores, the requests of every job and group job of the run.
    cores : int
        The profile's (or command line's) per-job cores.
    cores_explicit : bool, optional
        Whether ``cores`` was given on the command line (see :func:`job_cores`).
    env : mapping, optional
        Environment (``os.environ`` by default).
    run : callable, optional
        Runs a command and returns its standard output (tests pass canned output).
    resources : mapping, optional
        ``slurm_account`` and ``slurm_partition`` of the run's default resources, the values
        the jobs are submitted with (see :func:`check_account_and_partition`); by default the
        SLURM profile's, from ``env``.

    Returns
    -------
    (Partition, int)
        The partition the jobs go to and the per-job cores to use (:func:`job_cores`).

    Raises
    ------
    ClusterError
        Account or partition not chosen on a cluster other than the local test cluster, a
        partition the cluster does not have, or jobs no node of the partition can hold (every
        one listed).

    Examples
    --------
    >>> canned = {"sinfo": "debug*|2|3900|infinite\\n",
    ...           "scontrol": "ClusterName = ensemblerepro\\n"}
    >>> run = lambda cmd: canned[cmd[0]]
    >>> check_cluster(lambda c: [Request("fit", min(4, c))], 8, env={}, run=run)[1]
    2
    """
    env = os.environ if env is None else env
    resources = profile_resources(env) if resources is None else resources
    check_account_and_partition(resources, env, cluster_name(run))
    partition = choose_partition(
        parse_sinfo(run(["sinfo", "-h", "-o", SINFO_FORMAT])),
        str(resources["slurm_partition"]) if resources.get("slurm_partition") else None,
    )
    per_job = job_cores(cores, partition, cores_explicit)
    msgs = unsatisfiable(requests(per_job), partition)
    if msgs:
        raise ClusterError(
            "jobs that no node of the cluster can run (nothing was submitted):\n"
            + "\n".join(f"  - {m}" for m in msgs)
        )
    return partition, per_job
