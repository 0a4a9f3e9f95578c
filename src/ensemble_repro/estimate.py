"""Cost before compute: jobs, CPU-hours and wall time of a run, from measured unit costs.

The workflow prints :func:`summary_lines` at the start of every run and dry run
(``workflow/rules/common.smk``); ``make estimate`` / ``python -m ensemble_repro.estimate``
prints the table of :func:`estimate`.

The model, in the modules that hold it (:mod:`ensemble_repro.cost`):

- **Jobs**: those of the DAG Snakemake builds for the config (:mod:`.cost.dag`), the jobs
  ``snakemake -n`` lists, with their threads, groups, resources and dependencies.
- **CPU time of a job**: its rule's cost function (:mod:`.cost.registry`; each paper's beside
  its experiment code, with its work model in the module docstring), in measured CPU seconds
  per unit of work (:mod:`.cost.units`, ``unit_costs.csv``: CPU time with one BLAS thread, so
  it holds on a loaded machine), times the rule's calibration factor (measured / estimated CPU
  time of whole runs, :func:`calibration_rows`).
- **This machine**: the unit costs scaled to its speed by a machine calibration, and the share
  of a core a job gets at the current load (:mod:`.cost.machine`).
- **Wall time** on c cores and on SLURM: list scheduling of the DAG, on SLURM in the profile's
  bundles (:mod:`.cost.schedule`).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .cost.dag import Job, config_jobs
from .cost.machine import core_share, machine_calibration
from .cost.registry import price
from .cost.schedule import load_profile, local_wall, slurm_wall
from .cost.units import UnitCosts
from .papers import PAPERS
from .rule_keys import BENCHMARKS


@dataclass
class PaperCost:
    """Estimated cost of one paper's jobs (or of the whole run, ``paper="total"``)."""

    paper: str
    jobs: int
    cpu_hours: float
    wall_hours: float
    slurm_hours: float | None = None


def estimate(
    jobs: Sequence[Job],
    config: Mapping,
    cores: int,
    units: UnitCosts | None = None,
    slurm_profile: dict | None = None,
    share: float = 1.0,
    cluster_units: UnitCosts | None = None,
) -> list[PaperCost]:
    """Jobs, CPU-hours and wall hours on ``cores`` cores (and on SLURM) per paper and in total.

    Parameters
    ----------
    jobs : sequence of Job
        The run's jobs (:func:`.cost.dag.config_jobs`).
    config : mapping
        The run's config.
    cores : int
        Cores of the machine (``--cores``).
    units : UnitCosts, optional
        Unit costs; the package's table by default.
    slurm_profile : dict, optional
        A SLURM profile (``jobs``, ``cores``, ``groups``, ``group-components``) for the
        cluster wall time.
    share : float, default 1
        Share of a core each local job gets (:func:`.cost.machine.core_share`: below 1 when
        other work loads the machine); the local wall time is divided by it.
    cluster_units : UnitCosts, optional
        Unit costs of the cluster's nodes for the SLURM wall time (``units`` by default; the
        reference machine's when ``units`` are scaled to this one).

    Returns
    -------
    list of PaperCost
        One per enabled paper (data preparation and the report stage counted in the total
        only), then ``total``.

    Examples
    --------
    >>> jobs, config = config_jobs("config/smoke.yaml")  # doctest: +SKIP
    >>> [c.paper for c in estimate(jobs, config, cores=2)]  # doctest: +SKIP
    ['jab', 'qwyc', 'knapsack', 'total']
    """
    units = units or UnitCosts()
    everything = price(jobs, config, units)
    on_cluster = everything if cluster_units is None else price(jobs, config, cluster_units)
    out = []
    for paper in [p for p in PAPERS if config["experiments"][p]] + ["total"]:
        js = [j for j in everything if paper in (j.paper, "total")]
        cjs = [j for j in on_cluster if paper in (j.paper, "total")]
        out.append(
            PaperCost(
                paper,
                len(js),
                sum(j.cpu for j in js) / 3600,
                local_wall(js, cores, share) / 3600,
                slurm_wall(cjs, slurm_profile) / 3600 if slurm_profile else None,
            )
        )
    return out


def _hours(h: float) -> str:
    if h < 1 / 60:
        return f"{h * 3600:.0f} s"
    return f"{h * 60:.0f} min" if h < 1 else f"{h:.1f} h"


def _cpu_hours(h: float) -> str:
    return f"{h:.0f}" if h >= 10 else f"{h:.1f}" if h >= 1 else f"{h:.2g}"


def summary_lines(costs: list[PaperCost], source: str, cores: int) -> list[str]:
    """The start-of-run print: one line per paper plus the total."""
    lines = []
    for c in costs:
        s = (
            f"cost estimate ({source}): {c.paper} {c.jobs} jobs, {_cpu_hours(c.cpu_hours)} CPU-h, "
            f"~{_hours(c.wall_hours)} on {cores} core{'s' if cores != 1 else ''}"
        )
        if c.slurm_hours is not None:
            s += f", ~{_hours(c.slurm_hours)} on SLURM"
        lines.append(s)
    return lines


def table(costs: list[PaperCost], cores: int) -> str:
    """A Markdown table of :func:`estimate`'s result."""
    head = f"| paper | jobs | CPU-hours | wall on {cores} cores |"
    rule = "|---|---:|---:|---:|"
    if costs and costs[0].slurm_hours is not None:
        head, rule = head + " wall on SLURM |", rule + "---:|"
    lines = [head, rule]
    for c in costs:
        row = f"| {c.paper} | {c.jobs} | {_cpu_hours(c.cpu_hours)} | {_hours(c.wall_hours)} |"
        if c.slurm_hours is not None:
            row += f" {_hours(c.slurm_hours)} |"
        lines.append(row)
    return "\n".join(lines)


# ---------------------------------------------------------------- measured against estimated


def measured(job: Job, workdir) -> tuple[float, float] | None:
    """(CPU seconds, wall seconds) of ``job`` from its benchmark file under ``workdir`` (the
    mean over the file's rows), or None when the rule has no benchmark or the job did not run."""
    pattern = BENCHMARKS.get(job.rule)
    if pattern is None:
        return None
    path = Path(workdir) / pattern.format(**job.wildcards)
    try:
        rows = list(csv.DictReader(path.read_text().splitlines(), delimiter="\t"))
    except FileNotFoundError:
        return None
    try:
        cpu = [float(r["cpu_time"]) for r in rows]
        wall = [float(r["s"]) for r in rows]
    except (KeyError, TypeError, ValueError):
        raise ValueError(
            f"{path}: not a Snakemake benchmark file (columns s and cpu_time); delete it and "
            "rerun the job"
        ) from None
    if not rows:
        return None
    return sum(cpu) / len(cpu), sum(wall) / len(wall)


@dataclass
class RuleCost:
    """Estimated and measured CPU seconds of the jobs of one rule that ran."""

    paper: str
    rule: str
    jobs: int
    estimated: float
    measured: float
    wall: float

    @property
    def ratio(self) -> float:
        return self.measured / self.estimated if self.estimated > 0 else math.nan


def compare(
    jobs: Iterable[Job], config: Mapping, workdir, units: UnitCosts | None = None
) -> list[RuleCost]:
    """Per rule, the estimated and the measured CPU time of the jobs that ran in ``workdir``.

    Parameters
    ----------
    jobs : iterable of Job
        The jobs of the run's config (:func:`.cost.dag.config_jobs`).
    config : mapping
        The config the run used.
    workdir : str or Path
        The run's working directory (holding ``results/benchmarks``).
    units : UnitCosts, optional
        Unit costs; the package's (calibrated) table by default.

    Returns
    -------
    list of RuleCost
        One per rule with at least one measured job, in job order.
    """
    out: dict[str, RuleCost] = {}
    for job in price(jobs, config, units or UnitCosts()):
        got = measured(job, workdir)
        if got is None:
            continue
        row = out.setdefault(job.rule, RuleCost(job.paper, job.rule, 0, 0.0, 0.0, 0.0))
        row.jobs += 1
        row.estimated += job.cpu
        row.measured += got[0]
        row.wall += got[1]
    return list(out.values())


def calibration_rows(
    runs,
    min_cpu: float = 60.0,
    source: str = "",
    units: UnitCosts | None = None,
    factors: Mapping[str, float] | None = None,
) -> list[dict]:
    """``calibration`` rows of the unit-cost table: per rule, measured / estimated CPU time over
    the given runs, against the uncalibrated model.

    Parameters
    ----------
    runs : list of (jobs, config, path)
        The jobs and config of each measured run (:func:`.cost.dag.config_jobs`) and its
        working directory.
    min_cpu : float, default 60
        Rules with less measured CPU time in all are left uncalibrated (start-up noise).
    source : str
        Text of the rows' ``source`` column.
    units : UnitCosts, optional
        The unit costs to calibrate (the package's by default); their own calibration rows
        are ignored.
    factors : mapping, optional
        The machine factors (:meth:`.cost.machine.MachineCalibration.factors`) of the machine
        that made the runs: the unit costs are scaled to it first, so that the factors hold
        on the reference machine (none: the runs were made there).

    Returns
    -------
    list of dict
        Rows with the columns of ``unit_costs.csv``.
    """
    est_sum: dict[str, float] = {}
    cpu_sum: dict[str, float] = {}
    bare = UnitCosts(units.source if units else None, calibrated=False)
    if factors is not None:
        bare = bare.scaled(dict(factors))
    for jobs, config, workdir in runs:
        for r in compare(jobs, config, workdir, bare):
            est_sum[r.rule] = est_sum.get(r.rule, 0.0) + r.estimated
            cpu_sum[r.rule] = cpu_sum.get(r.rule, 0.0) + r.measured
    return [
        {
            "unit": "calibration",
            "key": rule,
            "size": 0,
            "cpu_seconds": f"{cpu_sum[rule] / est_sum[rule]:.4g}",
            "source": source,
        }
        for rule in est_sum
        if cpu_sum[rule] >= min_cpu and est_sum[rule] > 0
    ]


def overhead_rows(
    runs,
    source: str = "",
    units: UnitCosts | None = None,
    factors: Mapping[str, float] | None = None,
) -> list[dict]:
    """``job_overhead`` rows of the unit-cost table: per rule, the mean over the runs' jobs of
    the measured CPU seconds less the calibrated estimate (the Snakemake script wrapper, reading
    and writing, what the unit costs leave out), on the reference machine.

    The calibration factors fit whole runs, where experiment jobs dominate; in small runs the
    jobs are mostly such fixed costs, which this adds once per job.

    Parameters
    ----------
    runs : list of (jobs, config, path)
        The jobs and config of each measured run (:func:`.cost.dag.config_jobs`) and its
        working directory; best small runs.
    source : str
        Text of the rows' ``source`` column.
    units : UnitCosts, optional
        The calibrated unit costs (the package's by default); their own ``job_overhead`` rows
        are left out of the estimate compared with.
    factors : mapping, optional
        The machine factors (:meth:`.cost.machine.MachineCalibration.factors`) of the machine
        that made the runs: the unit costs are scaled to it, and the overheads divided by its
        ``start`` factor, as the table holds reference-machine CPU time (none: the runs were
        made there).

    Returns
    -------
    list of dict
        Rows with the columns of ``unit_costs.csv``, one per rule with a measured job.
    """
    units = (units or UnitCosts()).without("job_overhead")
    start_factor = 1.0
    if factors is not None:
        units, start_factor = units.scaled(dict(factors)), factors["start"]
    residual: dict[str, float] = {}
    jobs_of: dict[str, int] = {}
    for jobs, config, workdir in runs:
        for r in compare(jobs, config, workdir, units):
            residual[r.rule] = residual.get(r.rule, 0.0) + r.measured - r.estimated
            jobs_of[r.rule] = jobs_of.get(r.rule, 0) + r.jobs
    return [
        {
            "unit": "job_overhead",
            "key": rule,
            "size": 0,
            "cpu_seconds": f"{residual[rule] / jobs_of[rule] / start_factor:.4g}",
            "source": source,
        }
        for rule in residual
    ]


def comparison_table(rows: list[RuleCost]) -> str:
    """A Markdown table of :func:`compare`'s result, with a total per paper."""
    lines = [
        "| paper | rule | jobs | estimated CPU-s | measured CPU-s | measured / estimated "
        "| measured wall-s |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for paper in dict.fromkeys(r.paper for r in rows):
        mine = [r for r in rows if r.paper == paper]
        total = RuleCost(
            paper,
            "**all**",
            sum(r.jobs for r in mine),
            sum(r.estimated for r in mine),
            sum(r.measured for r in mine),
            sum(r.wall for r in mine),
        )
        for r in [*mine, total]:
            lines.append(
                f"| {r.paper} | {r.rule} | {r.jobs} | {r.estimated:.0f} | {r.measured:.0f} | "
                f"{r.ratio:.2f} | {r.wall:.0f} |"
            )
    return "\n".join(lines)


def main(argv=None) -> int:
    """``python -m ensemble_repro.estimate --config config/quick.yaml --cores 2``."""
    from snakemake.exceptions import WorkflowError

    ap = argparse.ArgumentParser(
        prog="python -m ensemble_repro.estimate",
        description="Estimated jobs, CPU-hours and wall time of a run.",
    )
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument(
        "--slurm-profile",
        default="workflow/profiles/slurm/config.yaml",
        help="SLURM profile for the cluster column ('' to leave it out)",
    )
    ap.add_argument(
        "--meps",
        action="store_true",
        help="count MEPS: stop with how to stage its file when a run here would leave it out",
    )
    ap.add_argument("--unit-costs", default=None, help="unit-cost CSV (default: the package's)")
    ap.add_argument(
        "--machine",
        choices=("calibrated", "recalibrate", "reference"),
        default="calibrated",
        help="unit costs scaled to this machine by its cached calibration, measured first when "
        "not cached (calibrated, the default), measured again (recalibrate), or as measured "
        "on the reference machine (reference)",
    )
    ap.add_argument(
        "--idle",
        action="store_true",
        help="wall time as if the cores were the run's alone (no load probe)",
    )
    ap.add_argument(
        "--compare",
        metavar="WORKDIR",
        default=None,
        help="compare with the CPU times measured by a run of --config in WORKDIR "
        "(its results/benchmarks)",
    )
    ap.add_argument(
        "--schema",
        default="workflow/schemas/config.schema.yaml",
        help="config schema checked first (skipped when the file is absent)",
    )
    args = ap.parse_args(argv)
    if args.cores < 1:
        ap.error(f"--cores must be at least 1, got {args.cores}")
    from .config import ConfigError, load_config, validate_config

    try:
        config = load_config(args.config)
    except ConfigError as err:
        ap.error(f"--config {args.config}: {err}")
    if Path(args.schema).is_file():
        try:
            validate_config(config, args.schema, source=args.config)
        except ConfigError as err:
            print(err, file=sys.stderr)
            return 2
    if args.compare is not None and not (Path(args.compare) / "results" / "benchmarks").is_dir():
        ap.error(f"--compare {args.compare}: no results/benchmarks there (run the workflow)")
    # the jobs a run of the config would have here (or had in the compared run's directory)
    overrides = {"data": {"require_all": True}} if args.meps else None
    try:
        jobs, config = config_jobs(args.config, args.compare or ".", overrides)
    except WorkflowError as err:
        print(err, file=sys.stderr)
        return 2
    units = reference = UnitCosts(args.unit_costs)
    machine = "unit costs of the reference machine"
    if args.machine != "reference":
        cal = machine_calibration(
            refresh=args.machine == "recalibrate", log=lambda m: print(m, file=sys.stderr)
        )
        units = units.scaled(cal.factors(units.reference_kernels()))
        machine = f"unit costs scaled to {cal.describe(units.reference_kernels())}"
    if args.compare is not None:
        rows = compare(jobs, config, args.compare, units)
        print(f"Estimated vs measured CPU time of {args.config} run in {args.compare}")
        print(f"({machine}):")
        print(comparison_table(rows))
        return 0
    profile = load_profile(args.slurm_profile) if args.slurm_profile else None
    share = 1.0 if args.idle else core_share(args.cores)
    costs = estimate(jobs, config, args.cores, units, profile, share, reference)
    print(f"Estimated cost of {args.config} (CPU time from measured unit costs, {machine};")
    print(
        f"wall time by list scheduling, each job getting {share:.2f} of a core"
        + (" as the machine is loaded now):" if share < 1 else "):")
    )
    print(table(costs, args.cores))
    return 0


if __name__ == "__main__":
    sys.exit(main())
