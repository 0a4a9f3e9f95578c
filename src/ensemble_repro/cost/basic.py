"""Cost functions every part of the run shares: a light job and a negligible one.

A cost function takes a job of the DAG (:class:`.dag.Job`), the run's config and the unit costs
(:class:`.units.UnitCosts`) and returns the job's CPU seconds, before its rule's calibration
factor (:meth:`.units.UnitCosts.factor`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .dag import Job
from .units import UnitCosts

CostFunction = Callable[[Job, Mapping, UnitCosts], float]


def light(job: Job, config: Mapping, units: UnitCosts) -> float:
    """A job of seconds: a fetch or data preparation, a collector, a figure or table, claims
    (``light_job``: a start-up and a small plot)."""
    return units.get("light_job")


def negligible(job: Job, config: Mapping, units: UnitCosts) -> float:
    """A target rule: no script runs."""
    return 0.0


def started(units: UnitCosts, work_seconds: float) -> float:
    """An experiment job: a process importing the experiment modules (``job_start``), then its
    work."""
    return units.get("job_start") + work_seconds
