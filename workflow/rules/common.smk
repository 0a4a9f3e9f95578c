# Shared helpers of the workflow: config validation at start, data availability, target lists
# and input functions. Library code (numerics, I/O) lives in src/ensemble_repro/.

import json
import os
import re
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError

from ensemble_repro.config import (
    COMMAND_LINE,
    MIRROR_ENV,
    ConfigError,
    apply_env_overrides,
    load_yaml_file,
    ordered_like,
    validate_config,
    with_papers,
)
from ensemble_repro.data import DataError, preflight, prepared_names_for
from ensemble_repro.paper_loader import PAPERS
from ensemble_repro.rule_keys import (
    BENCHMARKS,
    FETCH_SETTINGS_ENV,
    LOGS,
    TRANSPORT_KEYS,
    job_keys,
)
from ensemble_repro.snakemake_guard import check_installed

# Config files are data: Snakemake must have read them with the strict loader (no YTE code).
_UNGUARDED = check_installed()
if _UNGUARDED:
    raise WorkflowError(_UNGUARDED)

# The conda environments of `--sdm conda`, paths relative to this directory. LIB_ENV, the slim
# library stack, serves data, experiments and claims; REPORT_ENV adds matplotlib for the jobs
# that draw. The container image (Dockerfile) holds both.
LIB_ENV = "../../envs/library.yaml"
REPORT_ENV = "../../envs/report.yaml"
SCHEMA = "../schemas/config.schema.yaml"


def _config_source():
    files = list(workflow.overwrite_configfiles or workflow.configfiles)
    return ", ".join(str(f) for f in files) or "config/config.yaml"


# Config files of this run, relative to the working directory (named in messages).
CONFIG_FILES = [
    os.path.relpath(f) for f in (workflow.overwrite_configfiles or workflow.configfiles)
]


def _config_layers():
    """Where the config values came from, lowest precedence first: the Snakefile's
    ``configfile:``, each ``--configfile`` in order, ``--config``, $ENSEMBLE_REPRO_MIRROR."""
    given = [Path(f).absolute() for f in workflow.overwrite_configfiles]
    files = [f for f in workflow.configfiles if Path(f).absolute() not in given] + given
    layers = [(str(f), load_yaml_file(f) or {}) for f in files]
    layers.append((COMMAND_LINE, dict(workflow.config_settings.config)))
    if os.environ.get(MIRROR_ENV):
        layers.append((f"the environment variable {MIRROR_ENV}", {"data": {"mirror": ""}}))
    return layers


# $ENSEMBLE_REPRO_MIRROR overrides data.mirror (the Makefile's MIRROR= sets it).
apply_env_overrides(config)

# The papers of this run: the built-in ones and the plug-ins named by config key plugins (each
# with its default values); the tables of rule_keys and the cost registry follow them.
try:
    with_papers(config)
except ConfigError as err:
    raise WorkflowError(str(err)) from None

# Every key in the base config's order: Snakemake puts the overlays' keys first, and a section
# passed whole to a job's params would then differ with the file that set its values.
_LAYERS = _config_layers()
_ORDERED = ordered_like(config, _LAYERS[0][1])
config.clear()
config.update(_ORDERED)

try:
    validate_config(config, workflow.source_path(SCHEMA), source=_config_source(), layers=_LAYERS)
except ConfigError as err:
    raise WorkflowError(str(err)) from None


def config_params(*keys):
    """The config values a rule reads, as a nested dict holding exactly these dotted keys.

    Each rule passes it as a ``params`` entry (through ``rule_params``), so Snakemake reruns
    a job when, and only when, one of these values changes; its script reads them from
    ``snakemake.params`` and never from ``snakemake.config``.
    """
    out = {}
    for dotted in keys:
        node, parts = config, dotted.split(".")
        for p in parts:
            node = node[p]
        d = out
        for p in parts[:-1]:
            d = d.setdefault(p, {})
        d[parts[-1]] = node
    return out


def rule_params(rule):
    """``params`` entry of ``rule``: per job, the config subset holding the keys it reads
    (``ensemble_repro.rule_keys``, the one list of each rule's keys)."""
    return lambda wc: config_params(*job_keys(rule, dict(wc.items())))


# How raw files are fetched changes no result (every file is sha256-checked), so the fetch jobs
# read these settings from the environment, not from params (a new timeout reruns nothing).
os.environ[FETCH_SETTINGS_ENV] = json.dumps(config_params(*TRANSPORT_KEYS)["data"])


def experiment_on(name):
    return bool(config["experiments"][name])


def wanted_datasets():
    """Prepared data sets the enabled experiments need (names of ensemble_repro.data.load): each
    paper's ``datasets`` key, when it has one."""
    return prepared_names_for(
        [d for p in PAPERS if experiment_on(p) for d in config[p].get("datasets", [])]
    )


# Checks every raw file the run needs before any job starts: mirror files present and intact,
# MEPS available or reported (left out of the DAG with a warning unless data.require_all).
try:
    DATA = preflight(config["data"], wanted_datasets(), raw_dir="resources/raw")
except DataError as err:
    raise WorkflowError(str(err)) from None
for _msg in DATA.warnings:
    logger.warning(_msg)


def available(names):
    """The subset of prepared data-set names that can be built in this run."""
    return [n for n in names if n in DATA.available]


def prepared(name):
    return f"results/data/{name}.parquet"


def prepared_meta(name):
    return f"results/data/{name}.json"


def regex_choice(values):
    """A wildcard constraint accepting exactly these values."""
    return "|".join(re.escape(str(v)) for v in values)


# Paper key -> its final outputs ([] when it is switched off), set by its rules file.
PAPER_TARGETS = {}
# Result table (path under results/, no suffix) -> its report caption (workflow/report/<name>.rst),
# set by its paper's rules file; claims.smk's table_html falls back to a generic caption.
TABLE_CAPTIONS = {}


def table_caption(table):
    """The report caption of a result table: its own or the generic one."""
    return f"../report/{TABLE_CAPTIONS.get(table, 'table_html')}.rst"


def paper_targets(*papers):
    """The final outputs of ``papers`` (every paper by default), in report order."""
    return [t for p in papers or PAPERS for t in PAPER_TARGETS[p]()]


def all_targets(wildcards):
    return [prepared(n) for n in DATA.available] + paper_targets() + report_targets()


# Rules a user names on the command line (`snakemake --cores N <target>`).
TARGET_RULES = ("all", "data", *PAPERS, "figures")


def figure_targets():
    """The figures (PDF + PNG) among the final outputs of the papers switched on."""
    return [t for t in paper_targets() if t.endswith((".pdf", ".png"))]


def cli_targets():
    """The targets named on the command line ([] for the default target), or None in a cluster
    job or when Snakemake is used from Python."""
    args = _cli_args()
    return None if args is None else list(args.targets or [])


def check_targets(valid):
    """Stop with one line when a target on the command line is neither a rule nor a file path.

    Snakemake itself answers an unknown rule name with "No rule to produce ...", naming no valid
    target; a file path (a word holding a dot or a path separator) is left to Snakemake.
    """
    targets = cli_targets()
    if targets is None:
        return
    names = {r.name for r in workflow.rules}
    unknown = [t for t in targets if t not in names and not set(t) & set("./")]
    if unknown:
        raise WorkflowError(
            f"unknown target {', '.join(map(repr, unknown))}: valid targets are "
            f"{', '.join(valid)}, or an output file path (put targets before --configfile)"
        )


# ---- report stage (report.smk)


def paper_vs_ours_files():
    return {p: f"results/{p}/paper_vs_ours.md" for p in PAPERS if experiment_on(p)}


def report_targets():
    return ["results/paper_vs_ours.md", "results/README.md"] + report_table_targets()


def output_catalogue():
    """Every rule output pattern with its report caption (read by the results index)."""
    rows = []
    for r in workflow.rules:
        for f in r.output:
            rep = f.flags.get("report")
            caption = rep.caption.get_path_or_uri(secret_free=True) if rep and rep.caption else None
            rows.append({"rule": r.name, "pattern": str(f), "caption": caption, "doc": r.docstring})
    return rows


# ---- cost estimate and cluster check at start (ensemble_repro.estimate, ensemble_repro.cluster)
# start_of_run() is called at the end of the Snakefile, after the last rule definition, and before the
# DAG is built, so that the check can still stop the run or lower its per-job cores, in dry runs
# too. Only the Snakemake process the user started runs it, and only to build a DAG: a cluster
# job re-parsing the Snakefile (`--target-jobs` on its command line), the estimate's own parse
# and commands without a DAG (`--lint`, `--list-rules`) skip it.


def _cli_args():
    """The parsed command line (profiles applied) of the `snakemake` call parsing this file
    (snakemake.cli.args_to_api), or None, also in a cluster job re-parsing the Snakefile
    (`--target-jobs`).

    Snakemake 9 gives a Snakefile no public way to its executor and its `--groups` /
    `--group-components`: it sets them on the workflow only when execution starts, after the
    parse, and in a dry run the workflow's executor is the dry-run stand-in. So they are read
    from the caller's frame (the only place they exist yet), for check_targets and the
    cluster check alone."""
    if "--target-jobs" in sys.argv:
        return None
    frame = sys._getframe()
    while frame is not None:
        args = frame.f_locals.get("args")
        if frame.f_code.co_name == "args_to_api" and hasattr(args, "executor"):
            return args
        frame = frame.f_back
    return None


def _check_cluster(jobs, cores, args):
    """Stop before any submission when the SLURM cluster cannot run the jobs; lower the
    per-job cores to the partition's nodes when they have fewer. Returns the per-job cores."""
    from ensemble_repro import cluster

    explicit = any(
        a == "--cores"
        or a.startswith("--cores=")
        or (a.startswith("-c") and not a.startswith("--"))
        for a in sys.argv[1:]
    )
    # every job carries the run's default resources; `all` sets nothing else
    defaults = next(j for j in jobs if j.rule == "all").resources
    try:
        part, per_job = cluster.check_cluster(
            lambda c: cluster.job_requests(jobs, c, args.groups, args.group_components),
            cores,
            cores_explicit=explicit,
            resources={r: defaults.get(r) for r in ("slurm_account", "slurm_partition")},
        )
    except cluster.ClusterError as err:
        raise WorkflowError(str(err)) from None
    if per_job < cores:
        logger.info(
            f"per-job cores lowered from {cores} to {per_job}: the nodes of "
            f"partition {part.name} have {part.cpus} CPUs"
        )
        workflow.global_resources["_cores"] = per_job
    return min(per_job, cores)


def start_of_run():
    """Check the SLURM cluster (when the run uses it), then log the cost estimate of the jobs
    this run executes, both from the jobs of this run's DAG."""
    from ensemble_repro import estimate
    from ensemble_repro.cost import dag, machine, schedule, units

    settings = dag.run_dag_settings()
    if "--target-jobs" in sys.argv or dag.parsing_for_estimate() or settings is None:
        return  # a cluster job, the estimate's own parse, or no DAG to build (--lint, ...)
    cores = workflow.resource_settings.cores or 1
    args = _cli_args()
    on_slurm = args is not None and args.executor == "slurm"
    if (dag.estimate_skipped() and not on_slurm) or getattr(args, "report", None):
        return  # asked not to, or `--report`, which runs no job
    try:
        jobs, pending = dag.run_jobs(workflow, settings)
    except dag.DagError as err:  # the run's own DAG build then stops it with the reason
        checks = "cluster check and cost estimate" if on_slurm else "cost estimate"
        logger.warning(f"{checks} unavailable: {err}")
        return
    if on_slurm:
        cores = _check_cluster(jobs, cores, args)
    if dag.estimate_skipped():
        return
    root = REPO
    slurm = schedule.load_profile(root / estimate.SLURM_PROFILE)
    if on_slurm:  # the cores each SLURM job gets here, the nodes' CPUs at most
        slurm = {**slurm, "cores": cores}
    try:
        # unit costs scaled to this machine (its kernels timed once, then cached), and the
        # share of a core a job gets at the current load
        scaled, calibration = machine.machine_units(log=logger.info)
        share = machine.core_share(cores)
        # the jobs this run executes (the others are up to date), else the whole config's
        todo = jobs if pending is None else pending
        costs = estimate.estimate(todo, config, cores, scaled, slurm, share, units.UnitCosts())
    except (KeyError, ValueError, OSError) as err:  # say so, never stop the run
        logger.warning(f"cost estimate unavailable: {err}")
        return
    logger.info(
        f"machine calibration: {calibration.describe(scaled.reference_kernels())}; "
        f"a job gets {share:.2f} of a core at the current load"
    )
    files = [Path(f) for f in workflow.overwrite_configfiles or workflow.configfiles]
    source = (
        ", ".join(str(f.relative_to(root)) if f.is_relative_to(root) else str(f) for f in files)
        or "config/config.yaml"
    )
    of = len(jobs) if pending is not None and len(pending) != len(jobs) else None
    for line in estimate.summary_lines(costs, source, cores, of):
        logger.info(line)


def knapsack_costs_input(dataset, root, *, needed):
    """The committed measured costs of one UCI pool (``ensemble_repro.papers.knapsack.measured_costs``):
    its file when it holds the pool; none when the run does not select with measured times and
    they were never measured; else the run stops before any job with the command that measures
    them."""
    from ensemble_repro.papers.knapsack import measured_costs as kc

    kn = config["knapsack"]
    key = kc.pool_key(dataset, config["seed"], kn["split"], kn["member_features"].get(dataset))
    path = kc.costs_path(root, dataset)
    if kc.has_costs(path, key):
        return str(path)
    if not needed:
        return []
    raise WorkflowError(kc.missing_message(key, kc.costs_path("", dataset), CONFIG_FILES))
