"""``RUN.md`` of a record: how the run of record was made, generated from the record itself.

Commits, config files, machine and publish dates come from the record's manifest
(``record.json``, written at publish time), software versions (and commits, when the sidecars
name them) from the provenance sidecars, the dates and the measured cost from the benchmark
files, the estimate from :mod:`ensemble_repro.estimate` run on the record's ``config.yaml``.
Only the "load while it ran" section is free text, from the record's :data:`NOTES_NAME`.
Every file read is first checked against the manifest (:mod:`ensemble_repro.record.manifest`).
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from ..claims.render import made_at
from ..config import CHECKOUT_BASE
from ..cost.machine import KERNEL_FAMILIES, UNIT_FAMILIES
from ..io import markdown_table, read_json, write_json, write_text
from ..logs import JOB_CPU_SUFFIX
from ..paper_loader import PAPERS
from .manifest import (
    CONFIG_NAME,
    MANIFEST,
    NOTES_NAME,
    RUN_MD,
    RecordError,
    checked,
    file_entry,
    read_config,
    read_manifest,
)
from .rundir import RESULTS_DIR, record_as_run

#: The workflow whose jobs the cost section estimates: this checkout's.
SNAKEFILE = CHECKOUT_BASE.parents[1] / "Snakefile"
#: Key of a provenance sidecar naming the commit that made its table (read when present).
PROVENANCE_COMMIT_KEY = "commit"


def cost_groups() -> tuple[str, ...]:
    """Parts of the run in the order of the cost table: the papers in use, then ``data`` (a
    rule's part: :mod:`ensemble_repro.cost.pricing`)."""
    return (*PAPERS, "data")


@dataclass
class Benchmark:
    """One benchmark file of the record: its rule, paper, CPU and wall seconds, end time."""

    path: str
    rule: str
    paper: str
    cpu: float
    wall: float
    end: dt.datetime | None


def _pattern_regex(pattern: str) -> re.Pattern:
    """A regex matching the paths of a ``rule_keys.BENCHMARKS`` pattern, wildcards as groups."""
    parts = re.split(r"\{(\w+)\}", pattern)
    out = ""
    for i, part in enumerate(parts):
        out += re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+?)"
    return re.compile(out)


def benchmark_rule(rel: str) -> tuple[str, dict[str, str]] | None:
    """Rule and wildcards of a benchmark file (``benchmarks/...`` relative to ``results/``),
    from the workflow's benchmark patterns; None for a file no rule writes.

    Examples
    --------
    >>> benchmark_rule("benchmarks/qwyc/sweep/adult_qwyc_greedy_mse.tsv")
    ('qwyc_sweep', {'qwyc_data': 'adult', 'qwyc_method': 'qwyc_greedy_mse'})
    """
    from ..rule_keys import BENCHMARKS

    full = f"{RESULTS_DIR}/{rel}"
    for rule, pattern in BENCHMARKS.items():
        m = _pattern_regex(pattern).fullmatch(full)
        if m:
            return rule, m.groupdict()
    return None


def benchmarks(record: str | os.PathLike) -> list[Benchmark]:
    """Every benchmark file of the record with its measured CPU and wall seconds (the mean
    of the file's rows, as :func:`ensemble_repro.estimate.measured` reads them) and the time
    its job ended (the source file's modification time at publish, from the manifest).

    Raises
    ------
    RecordError
        A benchmark file (or its CPU sidecar) fails its check against the manifest, or is not
        a benchmark file (it would not count as a job).
    """
    from ..cost.dag import Job
    from ..cost.pricing import RULES
    from ..estimate import measured

    record = Path(record)
    manifest = read_manifest(record)
    entries = manifest["files"]
    out = []
    with record_as_run(record) as rundir:
        listed = {record / rel for rel in entries if rel.startswith("benchmarks/")}
        for path in sorted({*(record / "benchmarks").rglob("*.tsv"), *listed}):
            if path.suffix != ".tsv":
                continue
            rel = path.relative_to(record).as_posix()
            found = benchmark_rule(rel)
            if found is None:
                continue
            checked(record, rel, manifest)
            if (record / f"{rel}{JOB_CPU_SUFFIX}").exists():
                checked(record, f"{rel}{JOB_CPU_SUFFIX}", manifest)
            rule, wildcards = found
            try:
                got = measured(Job(rule, wildcards), rundir)
            except ValueError:
                got = (math.nan, math.nan)
            if got is not None and not all(math.isfinite(x) and x >= 0 for x in got):
                raise RecordError(
                    f"{path}: not a benchmark of a job (every row's s and cpu_time must be "
                    "numbers >= 0): republish it from the run"
                )
            if got is None:
                continue
            mtime = entries.get(rel, {}).get("source_mtime")
            end = dt.datetime.fromisoformat(mtime) if mtime else None
            out.append(Benchmark(rel, rule, RULES[rule][0], got[0], got[1], end))
    return out


def _sidecars(record: Path, manifest: dict) -> list[dict]:
    out = []
    for p in sorted(record.rglob("*.provenance.json")):
        checked(record, p.relative_to(record).as_posix(), manifest)
        try:
            meta = read_json(p)
        except ValueError:
            raise RecordError(f"{p} is not valid JSON: republish it from the run") from None
        if isinstance(meta, dict):
            out.append(meta)
    return out


def _hours(seconds: float) -> str:
    h = seconds / 3600
    return f"{h:.2f}" if h >= 0.01 else f"{h:.2g}"


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"


def _when(t: dt.datetime | None) -> str:
    return t.strftime("%Y-%m-%d %H:%M UTC") if t else "-"


def _slice_units(manifest: dict):
    """Job -> the unit costs scaled to the machine of the slice that published its benchmark
    file (that slice's latest publish with a whole machine calibration), or None (the
    reference machine's) when none was recorded."""
    from ..cost.units import UnitCosts
    from ..rule_keys import BENCHMARKS

    base, per_slice = UnitCosts(), {}
    for p in manifest["publishes"]:
        per = ((p.get("machine") or {}).get("speed") or {}).get("cpu_time_vs_reference") or {}
        if set(KERNEL_FAMILIES) <= set(per):
            per_slice[p.get("slice")] = per
    scaled = {name: base.scaled(per, UNIT_FAMILIES) for name, per in per_slice.items()}
    files = manifest["files"]

    def units_of(job):
        rel = BENCHMARKS[job.rule].format(**job.wildcards).removeprefix(f"{RESULTS_DIR}/")
        return scaled.get((files.get(rel) or {}).get("slice"))

    return units_of


def _cost_section(
    record: Path, cores: int, marks: list[Benchmark], manifest: dict, snakefile: Path
) -> list[str]:
    from snakemake.exceptions import WorkflowError

    from ..cost.dag import config_jobs
    from ..estimate import compare, comparison_table, estimate

    lines = [
        "## Cost: measured and estimated",
        "",
        "Measured: the `benchmark:` files of the jobs (`benchmarks/**.tsv`; every job that "
        "runs a script writes one, but slices published before the collectors, figures and "
        "tables had them carry only the experiment and data jobs'), summed per paper by "
        "rule. *Job wall* adds the jobs' "
        "wall times (jobs that ran side by side count twice); *first start to last end* "
        "spans the paper's benchmarked jobs (including any pause between slices). Estimated: "
        f"`python -m ensemble_repro.estimate` for this record's `{CONFIG_NAME}` on {cores} "
        "core(s), calibrated unit costs: for the same jobs on the machine that ran each (scaled "
        "by its calibration under Machine; the reference machine's where it is not recorded; "
        "the ratio counts only jobs of the config), and for every job of the paper on the "
        "reference machine.",
        "",
    ]
    try:
        jobs, config = config_jobs((record / CONFIG_NAME).resolve(), snakefile=snakefile)
    except WorkflowError as err:
        raise RecordError(
            f"the workflow {snakefile} stops for the record's {CONFIG_NAME}: {err}"
        ) from None
    with record_as_run(record) as rundir:
        rules = compare(jobs, config, rundir, units_of=_slice_units(manifest))
    # measured against estimated over the same jobs: those of the config's DAG (a record
    # published under an overlay may hold cells of jobs the overlay leaves out)
    est_same, cpu_same = Counter(), Counter()
    for r in rules:
        est_same[r.paper] += r.estimated
        cpu_same[r.paper] += r.measured
    whole = {c.paper: c for c in estimate(jobs, config, cores)}
    rows = _cost_rows(marks, whole, est_same, cpu_same, cores)
    lines.append(markdown_table(pd.DataFrame(rows)).rstrip())
    total = whole.get("total")
    if total is not None:
        lines += [
            "",
            f"Whole config, estimated: {total.jobs} jobs, {_hours(total.cpu_hours * 3600)} "
            f"CPU-h, {_duration(total.wall_hours * 3600)} on {cores} core(s). Measured in "
            f"all: {len(marks)} benchmarked jobs, {_hours(sum(b.cpu for b in marks))} CPU-h.",
        ]
    if rules:
        lines += ["", "### Per rule", "", comparison_table(rules)]
    return lines


def _cost_rows(
    marks: list[Benchmark], whole: dict, est_same: Counter, cpu_same: Counter, cores: int
) -> list[dict]:
    """One row per part of the run: measured against estimated CPU over the same jobs, its
    measured wall time, and the estimate of all its jobs (``whole``: part -> PaperCost)."""
    rows = []
    for paper in cost_groups():
        mine = [b for b in marks if b.paper == paper]
        if not mine and paper not in whole:
            continue
        cpu, wall = sum(b.cpu for b in mine), sum(b.wall for b in mine)
        ends = [b.end for b in mine if b.end]
        starts = [b.end - dt.timedelta(seconds=b.wall) for b in mine if b.end]
        est = whole.get(paper)
        rows.append(
            {
                "paper": paper,
                "jobs measured": len(mine),
                "measured CPU-h": _hours(cpu) if mine else "-",
                "estimated CPU-h, same jobs": _hours(est_same[paper]) if mine else "-",
                "measured / estimated": (
                    f"{cpu_same[paper] / est_same[paper]:.2f}" if est_same[paper] > 0 else "-"
                ),
                "measured job wall": _duration(wall) if mine else "-",
                "first start to last end": (
                    _duration((max(ends) - min(starts)).total_seconds()) if ends else "-"
                ),
                "jobs of the paper": est.jobs if est else "-",
                "estimated CPU-h, whole paper": _hours(est.cpu_hours * 3600) if est else "-",
                f"estimated wall, {cores} cores": (
                    _duration(est.wall_hours * 3600) if est else "-"
                ),
            }
        )
    return rows


def run_md(record: str | os.PathLike, snakefile: str | os.PathLike = SNAKEFILE) -> str:
    """The text of the record's ``RUN.md`` (see the module docstring for its sources).

    Parameters
    ----------
    record : str or Path
        A record folder written by :func:`ensemble_repro.record.publish`.
    snakefile : str or Path
        The workflow whose jobs the cost section estimates (:data:`SNAKEFILE`).

    Returns
    -------
    str
        Markdown.

    Raises
    ------
    RecordError
        The record has no manifest or no config (it was not written by ``publish``), a file
        read fails its check against the manifest, or ``snakefile`` does not exist.
    """
    record, snakefile = Path(record), Path(snakefile)
    if not record.is_dir():
        raise RecordError(
            f"record {record} is not a folder: give a record folder written by publish"
        )
    if not snakefile.is_file():
        raise RecordError(
            f"Snakefile {snakefile} does not exist: give the repository's with --snakefile"
        )
    manifest = read_manifest(record)
    config = read_config(record, manifest)
    publishes = manifest["publishes"]
    last = publishes[-1] if publishes else {}
    cores = int((last.get("machine") or {}).get("cores") or 1)
    sidecars = _sidecars(record, manifest)
    marks = benchmarks(record)
    lines = [
        "# Run of record",
        "",
        "Generated by `python -m ensemble_repro.record runmd RECORD` from this folder's "
        f"`{MANIFEST}` (one entry per publish), `{CONFIG_NAME}`, provenance sidecars and "
        f"benchmark files; the last section is `{NOTES_NAME}`. Regenerate it rather than "
        "editing it.",
        "",
    ]
    lines += _commits_section(publishes, sidecars)
    lines += [""] + _config_section(record, manifest, config, last, sidecars)
    lines += [""] + _machine_section(publishes)
    lines += [""] + _dates_section(marks)
    lines += [""] + _cost_section(record, cores, marks, manifest, snakefile)
    lines += [""] + _load_section(record, manifest, marks)
    return "\n".join(lines).rstrip() + "\n"


def _commits_section(publishes: list[dict], sidecars: list[dict]) -> list[str]:
    """Each publish's slice, date and commit, and the commits the sidecars name."""
    lines = ["## Commits", ""]
    rows = [
        {
            "slice": p.get("slice", "-"),
            "published": p.get("date", "-"),
            "commit": p.get("commit") or "unknown (not a git checkout)",
            "tracked files changed": {True: "yes", False: "no"}.get(p.get("dirty"), "-"),
            "files": p.get("files", "-"),
            "report": p.get("report", "-"),
        }
        for p in publishes
    ]
    lines.append(markdown_table(pd.DataFrame(rows)).rstrip() if rows else "No publish yet.")
    named = Counter(str(m[PROVENANCE_COMMIT_KEY]) for m in sidecars if m.get(PROVENANCE_COMMIT_KEY))
    lines.append("")
    if named:
        lines.append(
            "Commits named by the provenance sidecars: "
            + ", ".join(f"`{c}` ({n} tables)" for c, n in sorted(named.items()))
            + f"; {len(sidecars) - sum(named.values())} sidecars name none."
        )
    else:
        lines.append(
            f"The {len(sidecars)} provenance sidecars name no commit; the commit above is the "
            "run checkout's at publish time."
        )
    return lines


def _config_section(
    record: Path, manifest: dict, config: dict, last: dict, sidecars: list[dict]
) -> list[str]:
    """The config files of the last publish, the papers switched on, when the verdicts were
    made and the software stacks of the sidecars."""
    lines = ["## Config", ""]
    files = last.get("config_files") or []
    lines.append(
        "Config files (last publish): "
        + (" + ".join(f"`{f}`" for f in files) or "-")
        + f"; effective config: [{CONFIG_NAME}]({CONFIG_NAME}); seed `{config.get('seed')}`; "
        "papers switched on: "
        + (", ".join(p for p, on in (config.get("experiments") or {}).items() if on) or "none")
        + "."
    )
    claims = record / "claims.csv"
    if claims.is_file():
        df = pd.read_csv(checked(record, "claims.csv", manifest), keep_default_na=False)
        if {"scale", "made_on"} <= set(df.columns):
            lines.append(f"Verdicts (`claims.csv`) made at: {'; '.join(made_at(df))}.")
    stacks = Counter(
        ", ".join(f"{k} {v}" for k, v in sorted(m["software"].items()))
        for m in sidecars
        if isinstance(m.get("software"), dict)
    )
    if stacks:
        lines += ["", "Software (provenance sidecars):", ""]
        lines += [f"- {s} ({n} tables)" for s, n in stacks.most_common()]
    return lines


def _machine_section(publishes: list[dict]) -> list[str]:
    """One row per distinct machine of the publishes, with the slices it ran."""
    lines = [
        "## Machine",
        "",
        "CPU time vs the reference machine: the estimate's machine calibration (kernel CPU time "
        "per family over the reference machine's, docs/cost.md) as cached on the publishing "
        "machine; slices published before it was recorded say so.",
        "",
    ]
    machines: dict[str, list[str]] = {}
    for p in publishes:
        m = p.get("machine") or {}
        key = yaml.safe_dump(m, sort_keys=True)
        machines.setdefault(key, []).append(p.get("slice", "-"))
    mrows = []
    for key, slices in machines.items():
        m = yaml.safe_load(key) or {}
        mrows.append(
            {
                "cores": m.get("cores", "-"),
                "CPU model": m.get("cpu_model", "-"),
                "memory (GB)": m.get("memory_gb", "-"),
                "OS": m.get("os", "-"),
                "Python": m.get("python", "-"),
                "CPU time vs the reference machine": _speed(m.get("speed")),
                "slices": ", ".join(dict.fromkeys(slices)),
            }
        )
    lines.append(markdown_table(pd.DataFrame(mrows)).rstrip() if mrows else "Unknown.")
    return lines


def _dates_section(marks: list[Benchmark]) -> list[str]:
    """Per part of the run, its first benchmarked job's start and its last one's end."""
    lines = [
        "## Dates",
        "",
        "From the benchmark files (a job ended when its file was written, started its wall "
        "seconds earlier); publish dates are under Commits.",
        "",
    ]
    drows = []
    for paper in cost_groups():
        mine = [b for b in marks if b.paper == paper and b.end]
        if mine:
            drows.append(
                {
                    "paper": paper,
                    "first job started": _when(
                        min(b.end - dt.timedelta(seconds=b.wall) for b in mine)
                    ),
                    "last job ended": _when(max(b.end for b in mine)),
                    "benchmarked jobs": len(mine),
                }
            )
    lines.append(markdown_table(pd.DataFrame(drows)).rstrip() if drows else "No benchmarks.")
    return lines


def _load_section(record: Path, manifest: dict, marks: list[Benchmark]) -> list[str]:
    """The record's notes on the load while it ran, and each part's CPU per wall second."""
    lines = ["## Load while it ran", ""]
    notes = record / NOTES_NAME
    lines.append(
        checked(record, NOTES_NAME, manifest).read_text().strip()
        if notes.exists() or notes.is_symlink()
        else f"No notes: give them with `--notes FILE` (stored as `{NOTES_NAME}`)."
    )
    busy = [
        f"{paper} {sum(b.cpu for b in mine) / total:.2f}"
        for paper in cost_groups()
        if (mine := [b for b in marks if b.paper == paper])
        and (total := sum(b.wall for b in mine)) > 0
    ]
    if busy:
        lines += [
            "",
            "CPU seconds per wall second of the benchmarked jobs (a job's threads busy; "
            "well below its thread count means it waited for the CPU): " + ", ".join(busy) + ".",
        ]
    return lines


def _speed(speed) -> str:
    """A machine's calibration, as RUN.md shows it: "start 1.01, ridge 1.32, ... (when)"."""
    if not speed:
        return "not recorded"
    per = speed["cpu_time_vs_reference"]
    order = [f for f in KERNEL_FAMILIES if f in per] + sorted(set(per) - set(KERNEL_FAMILIES))
    factors = ", ".join(f"{k} {per[k]:g}" for k in order)
    return f"{factors} ({speed.get('measured_on', '?')})"


def store_notes(record: str | os.PathLike, notes: str | os.PathLike) -> Path:
    """Copy the text file ``notes`` into the record as its :data:`NOTES_NAME`."""
    try:
        text = Path(notes).read_text()
    except (OSError, UnicodeDecodeError) as err:
        why = getattr(err, "strerror", None) or str(err)
        raise RecordError(f"--notes {notes}: {why}; give a text file") from None
    path = Path(record) / NOTES_NAME
    write_text(path, text)
    return path


def write_run_md(
    record: str | os.PathLike,
    notes: str | os.PathLike | None = None,
    snakefile: str | os.PathLike = SNAKEFILE,
) -> Path:
    """Write ``RUN.md`` into the record (atomically), first storing ``notes`` (a text file)
    as its :data:`NOTES_NAME` when given, with its entry in the manifest.

    Returns
    -------
    Path
        The written ``RUN.md``.
    """
    record = Path(record)
    if notes is not None:
        manifest = read_manifest(record)
        manifest["record_files"][NOTES_NAME] = file_entry(store_notes(record, notes))
        write_json(record / MANIFEST, manifest)
    path = record / RUN_MD
    write_text(path, run_md(record, snakefile))
    return path
