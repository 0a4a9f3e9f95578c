"""The cost function of every rule of the workflow, keyed by rule name.

Each paper's cost functions live in its package (``ensemble_repro.papers.<paper>.cost``,
:meth:`ensemble_repro.papers.Paper.costs`) and call the functions its jobs call for their
sizes. The data stage (fetch, preparation) and the report
stage (HTML tables, forest plots, verdict pages, results index) are light jobs; target rules
run nothing. A rule without an entry stops the estimate (and fails a test).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from ..paper_loader import PAPERS, follow
from .basic import CostFunction, light, negligible
from .dag import Job
from .units import UnitCosts

#: Part of the run -> its rules' cost functions. A paper's part holds its claims job; the
#: report part the target rules (``all`` and the per-paper targets of the Snakefile).
PARTS: dict[str, dict[str, CostFunction]] = {}
#: Rule -> unit cost of the start of its jobs that runs on one thread (threaded rules).
SERIAL_UNITS: dict[str, str] = {}
#: Rule -> (part of the run, cost function).
RULES: dict[str, tuple[str, CostFunction]] = {}


def _tables() -> None:
    """The tables above from the papers in use (:func:`..paper_loader.follow`), in place."""
    PARTS.clear()
    PARTS.update(
        {
            "data": dict.fromkeys(("fetch", "prepare"), light),
            **{key: paper.costs() for key, paper in PAPERS.items()},
            "report": {
                **dict.fromkeys(
                    ("table_html", "verdict_forest", "paper_vs_ours", "results_index"), light
                ),
                **dict.fromkeys(("all", "data", *PAPERS, "figures"), negligible),
            },
        }
    )
    SERIAL_UNITS.clear()
    SERIAL_UNITS.update({r: u for p in PAPERS.values() for r, u in p.serial_units().items()})
    RULES.clear()
    RULES.update(
        {rule: (part, cost) for part, costs in PARTS.items() for rule, cost in costs.items()}
    )


follow(_tables)


class UnitCostError(Exception):
    """The unit-cost table lacks a unit cost the config's jobs are priced with. Not a
    ``KeyError``: the start-of-run estimate logs those and goes on, while this stops the run
    before its first job."""


def check_unit_costs(config: Mapping, units: UnitCosts) -> None:
    """Stop when ``units`` lacks a unit cost that a paper prices the config's jobs with (its
    ``needed_unit_costs``).

    Raises
    ------
    UnitCostError
        Naming the first missing unit cost, what needs it, the table and how to fill it.
    """
    missing = [
        (unit, key, why)
        for paper in PAPERS.values()
        for unit, key, why in paper.needed_unit_costs(config)
        if not units.has(unit, key)
    ]
    if missing:
        unit, key, why = missing[0]
        raise UnitCostError(
            f"{units.path} has no unit cost {unit!r} for {key!r}, which {why} is priced with "
            f"({len(missing)} unit cost(s) missing): measure them with "
            "benchmarks/calibrate_costs.py (it writes src/ensemble_repro/unit_costs.csv), or "
            "leave the data set out of the config"
        )


def price(jobs: Iterable[Job], config: Mapping, units: UnitCosts) -> list[Job]:
    """The jobs with their part of the run and CPU seconds: their rule's cost function times
    its calibration factor, plus its per-job overhead (:meth:`.units.UnitCosts.overhead`); of
    them serial, on one thread: the overhead and, for a threaded rule, its start
    (:data:`SERIAL_UNITS`).

    Parameters
    ----------
    jobs : iterable of Job
        Jobs of the DAG (:mod:`.dag`).
    config : mapping
        The run's config.
    units : UnitCosts

    Returns
    -------
    list of Job
        Copies, ``paper`` and ``cpu`` set.

    Raises
    ------
    KeyError
        A rule has no cost function.
    """
    out = []
    for job in jobs:
        try:
            part, cost = RULES[job.rule]
        except KeyError:
            raise KeyError(
                f"rule {job.rule} has no cost function: add one to its paper's cost module "
                "(ensemble_repro.papers.<paper>.cost.COSTS)"
            ) from None
        overhead = units.overhead(job.rule)
        cpu = max(cost(job, config, units) * units.factor(job.rule) + overhead, 0.0)
        start = units.get(SERIAL_UNITS[job.rule]) if job.rule in SERIAL_UNITS else 0.0
        serial = min(cpu, max(overhead, 0.0) + start)
        out.append(replace(job, paper=part, cpu=cpu, serial=serial))
    return out
