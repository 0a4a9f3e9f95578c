"""Wall time of a run's jobs by list scheduling: on one machine, and on SLURM in bundles.

A job starts when the jobs it needs are done and its cores are free; among ready jobs the
longest starts first. Its duration is its serial CPU time (its start-up) plus the rest over
min(threads, cores): the J+aB workers scale, nothing else is threaded.

On SLURM (``workflow/profiles/slurm/config.yaml``) the connected components of a group's jobs
are bundled ``group-components`` at a time into one SLURM job of ``cores`` cores, list-scheduled
inside it; every other submitted job is one SLURM job. SLURM jobs run ``jobs`` at a time, each
``SLURM_OVERHEAD`` seconds longer (two Snakemake start-ups); queue waits are not included.
Local jobs (``localrule: True`` and target rules) run on the submitting host, ``local-cores``
at a time (the profile's; Snakemake's default is every CPU of the host), and add no SLURM job.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Mapping, Sequence

from .dag import Job

#: The pool of the jobs that run on the submitting host (``local-cores`` slots).
LOCAL_POOL = "local"
#: Seconds each SLURM job adds: two Snakemake start-ups (submitting process and job), measured
#: 5-15 s on the local test cluster; queue waits are not included.
SLURM_OVERHEAD = 15.0


def makespan(tasks: list[tuple], capacity: int | Mapping[str, int]) -> float:
    """Wall time of list-scheduling ``(name, duration, width, needs[, pool])`` tasks on
    ``capacity`` slots (one number, or slots per pool; a task without a pool is in pool
    ``""``): a task starts once every task it needs (among these) has finished and ``width``
    slots of its pool are free; among ready tasks the longest starts first. A task of width 0
    takes no slot.

    Examples
    --------
    >>> makespan([("a", 3.0, 1, ()), ("b", 2.0, 1, ()), ("c", 1.0, 2, ("a",))], 2)
    4.0
    >>> makespan([("a", 3.0, 1, ()), ("b", 2.0, 1, (), "local"), ("c", 2.0, 1, (), "local")],
    ...          {"": 1, "local": 1})
    4.0
    """
    free = dict(capacity) if isinstance(capacity, Mapping) else {"": capacity}
    pool = {t[0]: t[4] if len(t) > 4 else "" for t in tasks}
    known = {t[0] for t in tasks}
    waiting = {t[0]: {d for d in t[3] if d in known} for t in tasks}
    spec = {t[0]: t for t in tasks}
    ready = [t[0] for t in tasks if not waiting[t[0]]]
    users = {}
    for t in tasks:
        for d in waiting[t[0]]:
            users.setdefault(d, []).append(t[0])
    limit = dict(free)
    running, now = [], 0.0
    while ready or running:
        ready.sort(key=lambda n: -spec[n][1])
        for name in list(ready):
            width = min(spec[name][2], limit[pool[name]])
            if width <= free[pool[name]]:
                ready.remove(name)
                free[pool[name]] -= width
                heapq.heappush(running, (now + spec[name][1], name, width))
        if not running:
            raise ValueError(f"tasks wait on each other: {sorted(waiting)}")
        now, done, width = heapq.heappop(running)
        free[pool[done]] += width
        del waiting[done]
        for u in users.get(done, ()):
            waiting[u].discard(done)
            if not waiting[u]:
                ready.append(u)
    return now


def local_wall(jobs: Sequence[Job], cores: int, share: float = 1.0) -> float:
    """Wall seconds of priced jobs on one machine with ``cores`` cores, of which each job gets
    ``share`` of a core (1 when the cores are the run's alone; :func:`.machine.core_share`)."""
    return makespan([(j.name, duration(j, cores) / share, j.threads, j.needs) for j in jobs], cores)


def duration(job: Job, cores: int) -> float:
    """Wall seconds of a priced job given ``cores``: its serial part, then the rest of its CPU
    time over min(threads, cores)."""
    return job.serial + (job.cpu - job.serial) / min(job.threads, cores)


def components(jobs: Sequence[Job]) -> list[list[Job]]:
    """The connected components of ``jobs`` under the dependencies among them, in job order.

    Examples
    --------
    >>> jobs = [Job("a", {}), Job("b", {}, needs=("a",)), Job("c", {})]
    >>> [[j.name for j in c] for c in components(jobs)]
    [['a', 'b'], ['c']]
    """
    root = {j.name: j.name for j in jobs}

    def find(name: str) -> str:
        while root[name] != name:
            root[name] = root[root[name]]
            name = root[name]
        return name

    for j in jobs:
        for d in j.needs:
            if d in root:
                root[find(d)] = find(j.name)
    out: dict[str, list[Job]] = {}
    for j in jobs:
        out.setdefault(find(j.name), []).append(j)
    return list(out.values())


def slurm_bundles(jobs: Sequence[Job], profile: dict) -> list[list[Job]]:
    """The SLURM jobs the submitted (non-local) jobs go to: a job's group is the profile's
    ``groups`` entry of its rule (``--groups``), else the rule's own; a group's connected
    components go ``group-components`` at a time into one SLURM job, an ungrouped job alone."""
    groups, per_group = profile.get("groups", {}), profile.get("group-components", {})
    by_group: dict[str | None, list[Job]] = {}
    for j in jobs:
        if not j.local:
            by_group.setdefault(groups.get(j.rule, j.group), []).append(j)
    bundles = []
    for group, members in by_group.items():
        if group is None:
            bundles += [[j] for j in members]
            continue
        comps, k = components(members), int(per_group.get(group, 1))
        bundles += [[j for c in comps[i : i + k] for j in c] for i in range(0, len(comps), k)]
    return bundles


def slurm_wall(jobs: Sequence[Job], profile: dict) -> float:
    """Wall seconds of priced jobs on SLURM with a profile's ``jobs``, ``cores``, ``groups`` and
    ``group-components`` (:func:`slurm_bundles`; queue waits excluded, each SLURM job adds
    ``SLURM_OVERHEAD``; local jobs run beside them on the submitting host, ``local-cores`` at
    a time)."""
    cores, slots = int(profile.get("cores", 1)), int(profile.get("jobs", 1))
    local_cores = int(profile.get("local-cores", os.cpu_count() or 1))
    bundles = slurm_bundles(jobs, profile)
    owner = {j.name: f"slurm{b}" for b, members in enumerate(bundles) for j in members}
    owner |= {j.name: j.name for j in jobs if j.local}
    tasks = []
    for b, members in enumerate(bundles):
        needs = {owner[d] for j in members for d in j.needs if d in owner} - {f"slurm{b}"}
        tasks.append((f"slurm{b}", local_wall(members, cores) + SLURM_OVERHEAD, 1, tuple(needs)))
    for j in jobs:
        if j.local:
            needs = tuple(owner[d] for d in j.needs if d in owner)
            width = min(j.threads, local_cores)
            tasks.append((j.name, duration(j, width), width, needs, LOCAL_POOL))
    return makespan(tasks, {"": slots, LOCAL_POOL: local_cores})


def load_profile(path) -> dict:
    """The keys of a Snakemake profile the SLURM estimate uses (``jobs``, ``cores``,
    ``local-cores``, ``groups``, ``group-components``)."""
    import yaml

    with open(path) as fh:
        return yaml.safe_load(fh)
