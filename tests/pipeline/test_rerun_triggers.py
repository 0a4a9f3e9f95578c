"""A config change reruns exactly what it affects.

After the shared smoke run, every key of the smoke config (config/smoke.yaml merged on
config/config.yaml) is changed on its own in an overlay config file, and a dry run tells which
rules would run. The expectation comes from the per-rule key lists of
``ensemble_repro.rule_keys`` (the lists the rules' ``params`` are built from): a key
read by rules R reruns R and their dependants (the jobs a ``--forcerun R`` dry run lists) and
nothing else; a key that only shapes the job list adds or removes jobs and reruns no existing
job of a rule that does not read it; a transport key reruns nothing. A smoke-config key that no
list names fails the test, so a new key cannot go untracked.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Queue

import pytest
import yaml
from workflow_helpers import (
    DEFAULT_PROFILE,
    REPO,
    SMOKE,
    SNAKEFILE,
    run,
    smoke_config,
    workflow_env,
)

from ensemble_repro.config import merge
from ensemble_repro.cost.dag import NO_ESTIMATE_ENV
from ensemble_repro.papers.knapsack.names import SYNTHETIC_PREFIX
from ensemble_repro.rule_keys import (
    DAG_KEYS,
    DAG_PARAM_RULES,
    RULE_KEYS,
    TRANSPORT_KEYS,
    job_keys,
    reads,
)

pytestmark = pytest.mark.workflow

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
OVERLAY = "overlay.yaml"
WORKERS = 3
#: Changed values where the generic change (flip a bool, +1, x0.9, another enum value, one
#: more / one fewer enum item) would be invalid or meaningless.
CHANGES = {
    "data.mirror": "/nonexistent/mirror",  # $ENSEMBLE_REPRO_MIRROR overrides it anyway
    "data.base_url": "http://127.0.0.1:9",
    "jab.datasets": ["communities", "blog"],  # MEPS would need the AHRQ file
    "jab.main.m_ratios": [0.4, 0.6, 0.8],  # must keep jab.timing_m_ratio
    "jab.timing_m_ratio": 0.4,  # must be one of jab.main.m_ratios
    "knapsack.sa.moves_per_temp": 5,
    "knapsack.stop_rules": ["left_tail@0.05", "expected"],  # items are <rule>@<STOP> strings
    "knapsack.adversarial.checkpoints": [10, 30, 100],  # each <= adversarial.evaluations
    "qwyc.smaller_ensembles": [10, 20, 30],  # every entry <= qwyc.gbt.n_estimators (40)
    "qwyc.sensitivity": ["fit_on_validation"],  # names, not an enum (learning_rate_<r>)
    "qwyc.fit_on": "validation",  # not a sensitivity setting of the smoke config
    "knapsack.cost_sensitivity": [],  # 'measured' would repeat the main cost
    "knapsack.MAXSTEP": 150,  # eq29 -> a fixed MAXSTEP (not the sensitivity setting's 100)
}
#: Keys changed along with a key (a cross-field rule, or measured costs that exist for the
#: smoke seed and split only): the key's overlay reruns what reads any of them.
ALONG = {
    # the main cost may not be its own sensitivity setting: the two swap
    "knapsack.cost": {"knapsack.cost_sensitivity": ["measured"]},
    # the committed measured costs hold the smoke seed and split only: select with FLOPs
    **dict.fromkeys(
        ("seed", "knapsack.split.select", "knapsack.split.test"),
        {"knapsack.cost": "flops", "knapsack.cost_sensitivity": []},
    ),
}
PARAMS = "params have changed since last execution"
#: Dry-run reasons that mean "a new job" or "a job gathering changed inputs".
STRUCTURAL = {
    "output files have to be generated",
    "input files updated by another job",
    "set of input files has changed since last execution",
}


def leaves(cfg: dict, prefix: str = "") -> dict:
    """Dotted key -> value of every leaf (lists are leaves)."""
    out = {}
    for k, v in cfg.items():
        key = f"{prefix}{k}"
        out.update(leaves(v, key + ".") if isinstance(v, dict) else {key: v})
    return out


def subschema(schema: dict, key: str) -> dict:
    node = schema
    for part in key.split("."):
        for ref in [node.get("$ref")] + [c.get("$ref") for c in node.get("allOf", [])]:
            if ref:
                target = schema
                for p in ref.lstrip("#/").split("/"):
                    target = target[p]
                node = {**target, **node}
        node = node.get("properties", {}).get(part, {})
    return node


def changed(key: str, value, schema: dict):
    """A schema-valid value different from ``value``."""
    if key in CHANGES:
        return CHANGES[key]
    sub = subschema(schema, key)
    if "enum" in sub:
        return next(e for e in sub["enum"] if e != value)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value * 0.9, 9) if value else 0.05
    if isinstance(value, list):
        items = sub.get("items", {}).get("enum")
        if items:
            extra = [e for e in items if e not in value]
            return value + extra[:1] if extra else value[:-1]
        return value[:-1] + [changed(key + "[]", value[-1], schema)]
    raise AssertionError(f"no change defined for {key} = {value!r}: add one to CHANGES")


def overlay(key: str, value, schema: dict) -> dict:
    """The overlay changing ``key`` (and the keys :data:`ALONG` ties to it)."""
    out = nested(key, changed(key, value, schema))
    for other, new in ALONG.get(key, {}).items():
        merge(out, nested(other, new))
    return out


def nested(key: str, value) -> dict:
    out = value
    for part in reversed(key.split(".")):
        out = {part: out}
    return out


def declared_readers(key: str, cfg: dict) -> tuple[set[str], bool]:
    """Rules whose jobs read ``key`` in this config (``job_keys`` for each data set and pool),
    and whether some rule's list names it at all (for any data set:
    ``qwyc.gbt.max_depth.nomao`` is read only when Nomao runs)."""
    kn = cfg["knapsack"]
    pools = kn["datasets"] + [f"{SYNTHETIC_PREFIX}{n}" for n in kn["synthetic"]["sizes"]]
    jobs = [{"qwyc_data": d, "kn_pool": p} for d in cfg["qwyc"]["datasets"] for p in pools]
    rules, named = set(), False
    for rule, keys in RULE_KEYS.items():
        for d in keys:
            pattern = re.escape(d).replace(re.escape("{qwyc_data}"), "[^.]+")
            named |= bool(re.fullmatch(pattern, key)) or reads(d, key)
        if any(reads(d, key) for wc in jobs for d in job_keys(rule, wc)):
            rules.add(rule)
    return rules, named


def plan(stdout: str) -> tuple[set[str], dict[str, set[str]]]:
    """Rules a dry run would run (without `all`) and, per reason, the rules it names."""
    if "Nothing to be done" in stdout:
        return set(), {}
    stats = stdout.split("Job stats:", 1)[1].splitlines()
    rules = set()
    for line in stats[3:]:
        name = line.split()[0] if line.split() else ""
        if name == "total":
            break
        rules.add(name)
    reasons, current = {}, None
    for line in stdout.split("Reasons:", 1)[1].splitlines():
        if line.startswith("        ") and current:
            reasons[current] = {r.strip() for r in line.split(",")}
        elif line.startswith("    ") and line.rstrip().endswith(":"):
            current = line.strip().rstrip(":")
    return rules - {"all"}, reasons


def rule_dependants(workdir: Path) -> dict[str, set[str]]:
    """Rule -> every rule downstream of it (without `all`), from the rule graph."""
    dot = snakemake(workdir, "--rulegraph", "--nolock", overlay={})
    label = dict(re.findall(r"^\s*(\d+)\[label = \"(\w+)\"", dot, re.MULTILINE))
    children: dict[str, set[str]] = {r: set() for r in label.values()}
    for a, b in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.MULTILINE):
        children[label[a]].add(label[b])  # a makes an input of b
    down = {}
    for rule in children:
        seen, todo = set(), [rule]
        while todo:
            for c in children[todo.pop()] - seen:
                seen.add(c)
                todo.append(c)
        down[rule] = seen - {"all"}
    return down


class Workdirs:
    """Copies of the smoke run that share its files: one per parallel dry run."""

    def __init__(self, base: Path, dirs):
        self.free: Queue = Queue()
        for d in dirs:
            for entry in ("results", "resources", ".snakemake"):
                (d / entry).symlink_to(base / entry)
            self.free.put(d)

    def dry_run(self, overlay: dict, *args: str) -> str:
        d = self.free.get()
        try:
            return dry_run(d, overlay, *args)
        finally:
            self.free.put(d)


def snakemake(workdir: Path, *args: str, overlay: dict | None = None, ok: bool = True) -> str:
    configs = [str(SMOKE)]
    if overlay is not None:
        (workdir / OVERLAY).write_text(yaml.safe_dump(overlay))
        configs.append(OVERLAY)
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--directory",
        str(workdir),
        "--workflow-profile",
        str(DEFAULT_PROFILE),
        "--cores",
        "1",
        "--configfile",
        *configs,
        *args,
    ]
    # which jobs rerun is the question here, not what they cost
    env = {**workflow_env(), NO_ESTIMATE_ENV: "1"}
    proc = run(cmd, env, cwd=workdir, timeout=600)
    assert (proc.returncode == 0) == ok, proc.stdout[-3000:]
    return proc.stdout


def dry_run(workdir: Path, overlay: dict | None, *args: str) -> str:
    return snakemake(workdir, "--dry-run", "--quiet", "rules", "--nolock", *args, overlay=overlay)


def test_config_without_fan_star_is_rejected_at_start(tmp_path):
    """Schema-valid, but the timing table and claims need Fan*: a readable error before any
    job (it was a raw MissingInputException)."""
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--directory",
        str(tmp_path),
        "--cores",
        "1",
        "--dry-run",
        "--configfile",
        str(SMOKE),
        OVERLAY,
    ]
    (tmp_path / OVERLAY).write_text(yaml.safe_dump(nested("qwyc.fan.orderings", ["natural"])))
    proc = run(cmd, workflow_env(), cwd=tmp_path, timeout=600)
    assert proc.returncode != 0
    assert "config value qwyc.fan.orderings = ['natural'] lacks individual_mse" in proc.stdout
    assert "Add individual_mse to qwyc.fan.orderings. Fix it in" in proc.stdout
    assert "MissingInputException" not in proc.stdout
    assert not (tmp_path / "results").exists()


@pytest.fixture(scope="module")
def rerun_base(smoke_cores2, tmp_path_factory) -> Path:
    """A copy of the smoke run, on which a new config file changing nothing reruns nothing."""
    base = tmp_path_factory.mktemp("reruns-base")
    shutil.copytree(smoke_cores2, base, symlinks=True, dirs_exist_ok=True)
    assert plan(dry_run(base, None)) == (set(), {})  # unchanged config: nothing to be done
    # nor for a new overlay file: no rule takes the names of the config files as params (the
    # verdicts' scale is told from the values they rest on), so an empty overlay, or one that
    # changes how raw files are fetched only, reruns nothing
    assert plan(dry_run(base, {})) == (set(), {})
    assert plan(dry_run(base, nested("data.timeout_seconds", 5))) == (set(), {})
    return base


@pytest.mark.slow
def test_every_smoke_key_reruns_exactly_what_reads_it(rerun_base, tmp_path_factory):
    cfg = smoke_config()
    schema = yaml.safe_load(SCHEMA.read_text())
    keys = leaves(cfg)
    untracked = []
    expect = {}
    for key in keys:
        readers, named = declared_readers(key, cfg)
        dag = any(reads(d, key) for d in DAG_KEYS)
        transport = any(reads(d, key) for d in TRANSPORT_KEYS)
        if not (named or dag or transport):
            untracked.append(key)
        expect[key] = (readers, dag)
    assert not untracked, f"config keys no rule_keys list names: {untracked}"
    for key, along in ALONG.items():  # the overlay changes these keys too
        readers = set().union(expect[key][0], *(expect[other][0] for other in along))
        expect[key] = (readers, expect[key][1])

    start = time.perf_counter()
    dependants = rule_dependants(rerun_base)
    workers = Workdirs(
        rerun_base, [tmp_path_factory.mktemp(f"reruns-worker{i}") for i in range(WORKERS)]
    )
    with ThreadPoolExecutor(WORKERS) as pool:
        runs = {k: pool.submit(workers.dry_run, overlay(k, v, schema)) for k, v in keys.items()}
        runs = {k: plan(f.result()) for k, f in runs.items()}
    print(
        f"{len(runs)} dry runs in {time.perf_counter() - start:.0f} s ({WORKERS} in "
        f"parallel), one per key"
    )

    def closure(rules):
        return set().union(rules, *(dependants[r] for r in rules))

    wrong = []
    for key, (readers, dag) in expect.items():
        # only rules of the run's graph rerun: knapsack_measure_costs runs only when asked for
        readers = readers & set(dependants)
        rules, reasons = runs[key]
        params = reasons.get(PARAMS, set())
        if dag:
            # new or removed jobs, the jobs gathering them, and the rules that read the key
            bad = set()
            for reason, rs in reasons.items():
                if reason == PARAMS:
                    bad |= rs - readers - set(DAG_PARAM_RULES)
                elif reason not in STRUCTURAL:
                    bad |= rs
            if bad:
                wrong.append(f"{key} (shapes the DAG): {sorted(bad)} rerun for {reasons}")
        elif rules != closure(readers) or not params <= readers or bool(params) != bool(readers):
            wrong.append(
                f"{key}: read by {sorted(readers)}, expected "
                f"{sorted(closure(readers))} to run, got {sorted(rules)} "
                f"(params changed: {sorted(params)})"
            )
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_three_user_changes(rerun_base):
    """The closing note's three changes: a new learner, more knapsack seeds, more timing runs."""
    cfg = smoke_config()
    learner = plan(dry_run(rerun_base, nested("jab.learners", cfg["jab"]["learners"] + ["nn"])))
    cells = {"jab_main_cell", "jab_jplus_cell", "jab_fixed_vs_random_cell"}
    assert cells <= learner[0]  # the new learner's cells, and no existing cell:
    assert all(
        not cells & rs
        for reason, rs in learner[1].items()
        if reason != "output files have to be generated"
    )
    seeds = plan(dry_run(rerun_base, nested("knapsack.n_seeds", cfg["knapsack"]["n_seeds"] + 1)))
    # HTML tables, verdict pages and the forest plots drawn from the claims
    verdicts = {"table_html", "paper_vs_ours", "results_index", "verdict_forest"}
    assert seeds[0] == {"knapsack_select", "knapsack_summary", "knapsack_claims"} | verdicts
    runs = cfg["qwyc"]["timing"]["runs"]
    timing = plan(dry_run(rerun_base, nested("qwyc.timing.runs", runs + 1)))
    assert timing[0] == {"qwyc_timing", "qwyc_paper_vs_ours", "qwyc_claims"} | verdicts
    print("new learner:", learner, "\nn_seeds:", seeds, "\ntiming.runs:", timing)


@pytest.mark.slow
def test_a_seed_without_measured_costs_stops_the_run(rerun_base):
    """The committed measured costs hold the smoke seed only. The missing-costs error, raised
    in the pool job's input function, was dropped by Snakemake because the pool file exists: the
    dry run planned the knapsack summary on the old seed's pools and no pool, selection or
    claims job."""
    seed = smoke_config()["seed"] + 1
    out = snakemake(rerun_base, "--dry-run", "--nolock", overlay={"seed": seed}, ok=False)
    assert f"has no costs for the pool sonar (seed {seed}" in out
    assert "Measure them once with `make knapsack-costs CONFIG=overlay.yaml`" in out
