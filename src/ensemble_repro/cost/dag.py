"""The jobs of a run, read from the DAG Snakemake builds for it.

:func:`config_jobs` parses the workflow for a config file through Snakemake's Python API and
builds its DAG (every job of the default target, as if all were forced: what ``snakemake -n``
lists in a fresh directory); :func:`run_jobs` does the same for the run whose Snakefile is
being parsed, and names the jobs that run would execute (its targets and forcing, against the
files and metadata of its directory). Each job keeps its rule, wildcards, threads, resources,
its rule's group, whether it is local and the jobs it needs.

Snakemake 9 builds a DAG only inside its own commands (``DAGApi.execute_workflow``,
``printdag``, ...) and hands it to no caller, and its workflow answers ``Rule.group`` and
``Workflow.is_local`` for the executor of the current invocation only. So this module, and
only it, uses these internals: ``WorkflowApi._workflow`` (the workflow behind the API),
``Workflow._prepare_dag`` and ``Workflow._build_dag`` (the calls its DAG commands make),
``Rule.ruleinfo`` (the rule's ``group:`` and ``localrule:`` directives as declared), and,
while the Snakefile is parsed, the ``DAGSettings`` of the ``DAGApi`` being built
(:func:`run_dag_settings`: Snakemake sets them on the workflow only after the parse).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from tempfile import TemporaryDirectory

#: Cores the DAG is built with: above every rule's threads, so each job keeps its own.
DAG_CORES = 256


class DagError(Exception):
    """The DAG of the run could not be built (the message says why)."""


@dataclass
class Job:
    """One job of the DAG; once priced (:func:`.pricing.price`), with its paper and CPU time.

    Attributes
    ----------
    rule : str
    wildcards : dict
        Wildcard name -> value, in the order of the rule's patterns.
    threads : int
    needs : tuple of str
        Names (:attr:`name`) of the jobs whose outputs it reads.
    group : str or None
        The rule's ``group:`` (a run's ``--groups`` may override it).
    local : bool
        Never submitted to a cluster: a ``localrule: True`` rule or a target rule.
    resources : dict
        Its evaluated resources (``mem_mb``, ``runtime``, default resources), without
        Snakemake's own ``_cores`` and ``_nodes``.
    paper : str
        Part of the run its cost counts to (``data``, a paper, ``report``).
    cpu : float
        Estimated CPU seconds.
    serial : float
        Of them, the seconds on one thread whatever its threads (its start-up).
    """

    rule: str
    wildcards: dict = field(default_factory=dict)
    threads: int = 1
    needs: tuple = ()
    group: str | None = None
    local: bool = False
    resources: dict = field(default_factory=dict)
    paper: str = ""
    cpu: float = 0.0
    serial: float = 0.0

    @property
    def name(self) -> str:
        """``rule:value/value/...`` (the rule alone without wildcards): unique in a DAG."""
        return f"{self.rule}:{'/'.join(self.wildcards.values())}" if self.wildcards else self.rule


def build_dag(workflow):
    """Build the DAG of a parsed workflow whose ``dag_settings`` are set (every job of its
    default target, as if forced; no lock taken) and return it (``snakemake.dag.DAG``)."""
    workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True)
    workflow._build_dag()
    return workflow.dag


def dag_jobs(dag, only=None) -> list[Job]:
    """The jobs of a built Snakemake DAG (``only``: those of an iterable of its jobs), each
    needing the jobs among them whose outputs it reads.

    Parameters
    ----------
    dag : snakemake.dag.DAG
    only : iterable of snakemake.jobs.Job, optional
        All of the DAG's jobs by default.

    Returns
    -------
    list of Job
        In the DAG's order.
    """
    keep = set(dag.jobs if only is None else only)
    names = {job: Job(job.rule.name, dict(job.wildcards.items())).name for job in keep}
    return [
        Job(
            job.rule.name,
            dict(job.wildcards.items()),
            job.threads,
            tuple(names[d] for d in dag.dependencies[job] if d in keep),
            job.rule.ruleinfo.group,
            job.rule.norun or job.rule.ruleinfo.localrule is True,
            {k: v for k, v in job.resources.items() if not k.startswith("_")},
        )
        for job in dag.jobs
        if job in keep
    ]


def workflow_jobs(workflow) -> list[Job]:
    """Every job of the DAG of a parsed workflow whose ``dag_settings`` are set (:func:`build_dag`).

    Parameters
    ----------
    workflow : snakemake.workflow.Workflow

    Returns
    -------
    list of Job
        In the DAG's order.
    """
    return dag_jobs(build_dag(workflow))


def run_dag_settings():
    """The ``DAGSettings`` (targets, forcing, rerun triggers) of the Snakemake command whose
    Snakefile is being parsed, or None when the parse is not for a DAG (``--lint``, a cluster
    job) or Snakemake builds it another way."""
    import sys

    from snakemake.settings.types import DAGSettings

    frame = sys._getframe()
    while frame is not None:
        owner = frame.f_locals.get("self")
        settings = getattr(owner, "dag_settings", None)
        if frame.f_code.co_name == "__post_init__" and isinstance(settings, DAGSettings):
            return settings
        frame = frame.f_back
    return None


def pending_jobs(workflow, settings) -> list[Job]:
    """The jobs a run with ``settings`` (its ``DAGSettings``) would execute: Snakemake's own
    decision for its targets, forcing and rerun triggers, against the files and metadata in
    the run's directory. Outputs left incomplete by a crash count as to be run (as
    ``--rerun-incomplete`` runs them)."""
    workflow.dag_settings = replace(settings, force_incomplete=True)
    workflow._prepare_dag(
        forceall=settings.forceall, ignore_incomplete=False, lock_warn_only=True, nolock=True
    )
    workflow._build_dag()
    return dag_jobs(workflow.dag, workflow.dag.needrun_jobs())


_parsing_for_estimate = False

#: Environment variable that, set to anything but "" or "0", skips the start-of-run estimate
#: (not the SLURM cluster check): for many dry runs in a row, as the test suite makes.
NO_ESTIMATE_ENV = "ENSEMBLE_REPRO_NO_ESTIMATE"


def estimate_skipped() -> bool:
    """Whether :data:`NO_ESTIMATE_ENV` asks the Snakefile not to print the estimate."""
    return os.environ.get(NO_ESTIMATE_ENV, "") not in ("", "0")


def parsing_for_estimate() -> bool:
    """Whether this process parses the Snakefile only to build a DAG for the estimate (the
    Snakefile's start-of-run check then does nothing)."""
    return _parsing_for_estimate


@contextmanager
def parsed_workflow(
    configfile, workdir, config: Mapping | None = None, snakefile="Snakefile"
) -> Iterator:
    """The workflow of ``snakefile`` parsed for ``configfile`` (and ``config``, as
    ``--config`` overrides), working in ``workdir``; its ``dag_settings`` set for
    :func:`workflow_jobs`. Nothing runs; Snakemake logs nothing.

    Yields
    ------
    snakemake.workflow.Workflow
    """
    global _parsing_for_estimate
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        ResourceSettings,
    )

    output = OutputSettings(quiet={Quietness.ALL}, enable_file_logging=False)
    with SnakemakeApi(output) as api:
        wf_api = api.workflow(
            resource_settings=ResourceSettings(cores=DAG_CORES),
            config_settings=ConfigSettings(
                configfiles=[Path(configfile).absolute()], config=dict(config or {})
            ),
            snakefile=Path(snakefile).absolute(),
            workdir=Path(workdir).absolute(),
        )
        _parsing_for_estimate = True
        try:
            wf_api.dag(DAGSettings(forceall=True))  # parses the Snakefile
        finally:
            _parsing_for_estimate = False
        yield wf_api._workflow


_built: dict[tuple, tuple[list[Job], dict]] = {}


def config_jobs(
    configfile, workdir=None, config: Mapping | None = None, snakefile="Snakefile"
) -> tuple[list[Job], dict]:
    """The jobs and the config (defaults, overrides and environment applied) of a run of
    ``configfile`` (:func:`parsed_workflow`); built once per process for the same config text,
    directory, overrides and Snakefile.

    Parameters
    ----------
    configfile : str or Path
    workdir : str or Path, optional
        The run's directory (its staged raw files decide whether MEPS is in); by default a new
        empty one (only the mirror and the official sources count).
    config : mapping, optional
        ``--config`` overrides.
    snakefile : str or Path

    Raises
    ------
    snakemake.exceptions.WorkflowError
        The workflow stops at start for this config (the message says why).
    """
    key = (
        Path(configfile).read_text(),
        None if workdir is None else str(Path(workdir).resolve()),
        repr(sorted(dict(config or {}).items())),
        str(Path(snakefile).resolve()),
    )
    if key not in _built:
        with ExitStack() as stack:
            where = workdir or stack.enter_context(TemporaryDirectory(prefix="estimate-"))
            workflow = stack.enter_context(parsed_workflow(configfile, where, config, snakefile))
            _built[key] = workflow_jobs(workflow), dict(workflow.config)
    return _built[key]


def run_jobs(workflow, settings=None) -> tuple[list[Job], list[Job] | None]:
    """The jobs of the run whose Snakefile is being parsed, before Snakemake builds its DAG
    (the start-of-run check can then still stop the run or lower its per-job cores), and
    those it would execute.

    A forked copy of this process builds the DAG (:func:`workflow_jobs`), then the run's own
    (:func:`pending_jobs`), and sends both back: a second workflow cannot be parsed beside
    this one (Snakemake keeps one per interpreter), and the run itself is left as it was.

    Parameters
    ----------
    workflow : snakemake.workflow.Workflow
    settings : snakemake.settings.types.DAGSettings, optional
        The run's (:func:`run_dag_settings`); without them no job is named.

    Returns
    -------
    (list of Job, list of Job or None)
        Every job of the default target as if forced; the jobs the run would execute, each
        needing only others of them (None without ``settings``, or when its DAG could not be
        built here).

    Raises
    ------
    DagError
        The DAG could not be built (the run's own DAG build then says why), or this platform
        cannot fork.
    """
    from snakemake.settings.types import DAGSettings

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        raise DagError("this platform cannot fork a copy of the run to build it") from None
    receive, send = context.Pipe(duplex=False)

    def build() -> None:
        logging.disable(logging.CRITICAL)  # the copy's log lines would repeat the run's
        workflow.dag_settings = DAGSettings(forceall=True)
        try:
            jobs = workflow_jobs(workflow)
        except Exception as err:  # noqa: BLE001 - any failure is reported by the parent
            send.send((None, None, f"{type(err).__name__}: {err}"))
            return
        try:
            pending = None if settings is None else pending_jobs(workflow, settings)
        except Exception:  # noqa: BLE001 - the run's own DAG build reports it
            pending = None
        send.send((jobs, pending, None))

    copy = context.Process(target=build)
    copy.start()
    send.close()
    try:
        jobs, pending, error = receive.recv()
    except EOFError:
        jobs, pending, error = None, None, f"the copy building it ended with code {copy.exitcode}"
    copy.join()
    if error is not None:
        raise DagError(f"the DAG of this run could not be built: {error}")
    return jobs, pending
