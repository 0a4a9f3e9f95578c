"""Which files of a run go into the record, publishing them atomically, and restoring cells.

A record folder (``record/paper/``) mirrors ``results/``'s relative layout
(``results/jab/main.csv`` -> ``record/paper/jab/main.csv``) and adds files of its own:
:data:`MANIFEST` (size, sha256, slice and source time of every published file, size and sha256
of the record's own files; one entry per publish with its date, commit, config files and
machine; :mod:`ensemble_repro.record.manifest`), :data:`CONFIG_NAME` (the effective config of
the last publish), :data:`NOTES_NAME` and ``RUN.md`` (:mod:`ensemble_repro.record.runmd`).
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import math
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..config import BASE_CONFIG
from ..cost.dag import NO_ESTIMATE_ENV
from ..cost.machine import cached_calibration
from ..cost.units import UnitCosts
from ..io import atomic_path, write_json, write_text
from ..logs import JOB_CPU_SUFFIX
from ..paper_loader import PAPERS, RecordCells, follow
from ..rule_keys import BENCHMARKS, job_keys
from .manifest import (
    CONFIG_NAME,
    MANIFEST,
    RecordError,
    check_record,
    checked,
    file_entry,
    read_config,
    read_manifest,
    seal_own_files,
    sha256,
)
from .rundir import RESULTS_DIR, record_as_run
from .runmd import store_notes, write_run_md

#: Each paper's per-job tables a record keeps, from which a later run resumes (its
#: ``Paper.record_cells``: J+aB's cells of a partly-run grid), in report order.
RECORD_CELLS: list[RecordCells] = []
#: Their ``Path.glob`` patterns relative to ``results/`` (restored by :func:`restore`).
CELL_PATTERNS: list[str] = []
#: Files published from a run, as ``Path.glob`` patterns relative to its ``results/``: every
#: result table (and its HTML rendering), the verdict pages, the results index, figures as PNG
#: (what the report shows: :func:`report_of_record` builds it from these), provenance sidecars,
#: benchmark files with the jobs' own CPU counts beside them (:data:`.logs.JOB_CPU_SUFFIX`)
#: and each paper's record cells (:data:`CELL_PATTERNS`). Models, PDFs, logs and prepared
#: data match none of them.
PUBLISHED_PATTERNS: list[str] = []
#: What :func:`restore` copies back into ``results/``: the cells and, of the benchmark files,
#: those of the cells restored (with their CPU sidecars).
RESTORED_PATTERNS: list[str] = []
_BENCHMARK_PATTERNS = ("benchmarks/**/*.tsv", f"benchmarks/**/*.tsv{JOB_CPU_SUFFIX}")


def _tables() -> None:
    """The lists above from the papers in use (:func:`..paper_loader.follow`), in place."""
    RECORD_CELLS[:] = [p.record_cells for p in PAPERS.values() if p.record_cells is not None]
    CELL_PATTERNS[:] = [cells.pattern for cells in RECORD_CELLS]
    PUBLISHED_PATTERNS[:] = [
        "**/*.csv",
        "paper_vs_ours.md",
        "*/paper_vs_ours.md",
        "paper_vs_ours.html",
        "claims_summary.rst",
        "README.md",
        "html/**/*.html",
        "**/*.png",
        "**/*.provenance.json",
        *_BENCHMARK_PATTERNS,
        *CELL_PATTERNS,
    ]
    RESTORED_PATTERNS[:] = [*CELL_PATTERNS, *_BENCHMARK_PATTERNS]


follow(_tables)

#: Directories of ``results/`` never published (prepared data, job logs), whatever matches.
EXCLUDED_DIRS = ("data", "logs")
#: The Snakemake report of the run (``snakemake --report results/report.html``): published
#: when it is at least as new as every other published file, so that it shows the same run.
REPORT_NAME = "report.html"
#: The default slice name of a publish.
DEFAULT_SLICE = "all"
#: Largest file published, and the budget of the whole record folder (bytes).
MAX_FILE_BYTES = 10_000_000
RECORD_BUDGET_BYTES = 25_000_000
#: Prepared data table a cell reads (``prepared()`` in workflow/rules/common.smk).
PREPARED_DATA = "data/{name}.parquet"
_MB = 1e6


def _mb(n: float) -> str:
    return f"{n / _MB:.2f} MB" if n >= _MB / 10 else f"{n / 1e3:.1f} kB"


def _iso(timestamp: float) -> str:
    return dt.datetime.fromtimestamp(timestamp, dt.UTC).isoformat(timespec="seconds")


def _hidden(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts)


# ---------------------------------------------------------------- what is published


def collect(
    results: str | os.PathLike,
    patterns: Sequence[str] = PUBLISHED_PATTERNS,
    exclude: Iterable[str] = (),
) -> dict[str, Path]:
    """The files of ``results`` that a record holds, by their path relative to it.

    Parameters
    ----------
    results : str or Path
        A run's ``results/`` directory.
    patterns : sequence of str
        ``Path.glob`` patterns relative to ``results`` (:data:`PUBLISHED_PATTERNS`).
    exclude : iterable of str
        Further ``Path.match`` patterns (relative paths) to leave out.

    Returns
    -------
    dict
        Relative POSIX path -> file, sorted; files under :data:`EXCLUDED_DIRS` and hidden
        files (temporary files of an interrupted write) are left out.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> for f in ("claims.csv", "data/x.csv", "jab/figures/f.pdf", "jab/figures/f.png"):
    ...     (root / f).parent.mkdir(parents=True, exist_ok=True)
    ...     _ = (root / f).write_text("x")
    >>> list(collect(root))
    ['claims.csv', 'jab/figures/f.png']
    """
    root = Path(results)
    if not root.is_dir():
        raise RecordError(f"results directory {root} does not exist: give the run's results/")
    exclude = tuple(exclude)
    out: dict[str, Path] = {}
    for pattern in patterns:
        for p in root.glob(pattern):
            rel = p.relative_to(root)
            if not p.is_file() or _hidden(rel) or rel.parts[0] in EXCLUDED_DIRS:
                continue
            if any(rel.match(x) for x in exclude):
                continue
            out[rel.as_posix()] = p
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- facts of the run


def machine_facts(cores: int | None = None, cpu_model: str | None = None, memory_gb=None) -> dict:
    """Cores, CPU model and memory of this machine (each overridable), OS and Python.

    Parameters
    ----------
    cores : int, optional
        Cores the run used (``--cores``); the machine's CPU count by default.
    cpu_model : str, optional
        CPU model; ``model name`` of ``/proc/cpuinfo`` (else :func:`platform.processor`).
    memory_gb : float, optional
        Memory in GB; ``MemTotal`` of ``/proc/meminfo``.

    Returns
    -------
    dict
        Keys ``cores``, ``cpu_model``, ``memory_gb``, ``os``, ``python``, and ``speed`` when
        the estimate has calibrated this machine (its cache; nothing is measured here): the
        machine's CPU time per kernel family over the reference machine's, and when it was
        measured. Two machines alike in the other keys differ there.

    Raises
    ------
    RecordError
        ``cores`` is not a whole number >= 1, or ``memory_gb`` not a finite number > 0 (the
        manifest is JSON, which has no infinity).
    """
    if cores is not None and (isinstance(cores, bool) or int(cores) != cores or cores < 1):
        raise RecordError(f"cores {cores!r}: give the cores the run used, a whole number >= 1")
    if memory_gb is not None and not (math.isfinite(memory_gb) and memory_gb > 0):
        raise RecordError(f"memory_gb {memory_gb!r}: give the machine's memory, a number > 0")
    if cpu_model is None:
        cpu_model = _proc_field("/proc/cpuinfo", "model name") or platform.processor() or "unknown"
    if memory_gb is None:
        kb = _proc_field("/proc/meminfo", "MemTotal")
        memory_gb = round(int(kb.split()[0]) / 1024**2, 1) if kb else None
    facts = {
        "cores": int(cores) if cores is not None else os.cpu_count(),
        "cpu_model": cpu_model,
        "memory_gb": memory_gb,
        "os": platform.platform(),
        "python": platform.python_version(),
    }
    cal = cached_calibration()
    if cal is not None:
        factors = cal.factors(UnitCosts().reference_kernels())
        facts["speed"] = {
            "cpu_time_vs_reference": {k: round(v, 2) for k, v in factors.items()},
            "measured_on": cal.measured_on,
        }
    return facts


def _proc_field(path: str, name: str) -> str | None:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == name:
            return value.strip()
    return None


def git_state(workdir: str | os.PathLike) -> dict:
    """``commit`` (HEAD) of the checkout holding ``workdir`` and whether tracked files differ
    from it (``dirty``); both None outside a git checkout."""

    def git(*args: str) -> str | None:
        try:
            proc = subprocess.run(
                ["git", "-C", str(workdir), *args], capture_output=True, text=True, check=True
            )
        except (OSError, subprocess.CalledProcessError):
            return None
        return proc.stdout.strip()

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "dirty": None if status is None else bool(status)}


def effective_config(
    workdir: str | os.PathLike, config_files: Sequence[str]
) -> tuple[dict, list[str]]:
    """The config a run of ``workdir`` used, as the Snakefile builds it
    (:func:`ensemble_repro.config.load_config`): the run directory's :data:`BASE_CONFIG`, else
    this checkout's, with each ``--configfile`` merged on top.

    Returns
    -------
    (dict, list of str)
        The config and the files it was read from, the base first.
    """
    from ..config import ConfigError, base_config, load_config

    workdir = Path(workdir)
    given = [n for n in dict.fromkeys(config_files) if n != BASE_CONFIG]
    paths = []
    for name in given:
        path = Path(name) if Path(name).is_absolute() else workdir / name
        if not path.is_file():
            raise RecordError(
                f"config file {path} does not exist: give the run's --configfile files "
                f"(relative to {workdir})"
            )
        paths.append(path)
    base = base_config(workdir)
    try:
        config = load_config(*paths, base=base)
    except ConfigError as err:
        raise RecordError(str(err)) from None
    own = base == workdir / BASE_CONFIG
    return config, [BASE_CONFIG if own else str(base), *given]


def _flat(d: Mapping, prefix: str = "") -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        if isinstance(v, Mapping):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def config_differences(old: Mapping, new: Mapping, keys: Iterable[str] | None = None) -> list:
    """``(dotted key, old value, new value)`` of the values that differ (only ``keys`` and
    the keys under them when given)."""
    a, b = _flat(old), _flat(new)
    names = sorted(set(a) | set(b))
    if keys is not None:
        keys = list(keys)
        names = [n for n in names if any(n == k or n.startswith(k + ".") for k in keys)]
    return [(n, a.get(n), b.get(n)) for n in names if a.get(n) != b.get(n)]


# ---------------------------------------------------------------- publishing


@dataclass
class PublishResult:
    """What :func:`publish` did: files copied, unchanged and removed, and the record's size."""

    record: Path
    copied: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    n_files: int = 0
    total_bytes: int = 0
    budget_bytes: int = RECORD_BUDGET_BYTES
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """A short report for the terminal."""
        out = [
            f"{self.record}: {len(self.copied)} files copied, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed; {self.n_files} files, {_mb(self.total_bytes)} of the "
            f"{_mb(self.budget_bytes)} budget"
        ]
        return out + [f"warning: {w}" for w in self.warnings]


def _recover(record: Path) -> None:
    """Undo what an interrupted publish left: its staging copy, or a record moved aside."""
    old = record.with_name(f".{record.name}.old")
    if not record.exists() and old.exists():
        os.rename(old, record)
    for stale in record.parent.glob(f".{record.name}.staging-*"):
        shutil.rmtree(stale)
    if old.exists():
        shutil.rmtree(old)


def _swap_in(staging: Path, record: Path) -> None:
    """Replace ``record`` by ``staging`` with renames: a crash leaves the old record or the
    new one (or the old one moved aside, which :func:`_recover` moves back)."""
    old = record.with_name(f".{record.name}.old")
    if record.exists():
        os.rename(record, old)
    os.rename(staging, record)
    if old.exists():
        shutil.rmtree(old)


def _report_warning(results: Path, files: dict[str, Path]) -> str | None:
    """Why the run's report is not published (None when it is)."""
    report = results / REPORT_NAME
    if not report.is_file():
        return (
            f"{report} does not exist: the record has no report (build it with "
            f"`snakemake --report results/{REPORT_NAME}` in the run directory; `make record` does)"
        )
    newest = max(files.items(), key=lambda kv: kv[1].stat().st_mtime, default=None)
    if newest and newest[1].stat().st_mtime > report.stat().st_mtime:
        return (
            f"{report} is older than {newest[1]}: not published, it would show an earlier "
            "state of the run (rebuild it with `snakemake --report`; `make record` does)"
        )
    return None


def publish(
    results: str | os.PathLike,
    record: str | os.PathLike,
    *,
    slice_name: str = DEFAULT_SLICE,
    replace: bool = False,
    config_files: Sequence[str] = (),
    exclude: Iterable[str] = (),
    machine: Mapping[str, Any] | None = None,
    notes: str | os.PathLike | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    budget_bytes: int = RECORD_BUDGET_BYTES,
    now: float | None = None,
) -> PublishResult:
    """Copy a run's small outputs into ``record`` (created if needed), atomically.

    Parameters
    ----------
    results : str or Path
        The run's ``results/`` directory; its parent is the run directory (config files and
        git commit are read there).
    record : str or Path
        The record folder, e.g. ``record/paper``.
    slice_name : str
        Name of the part of the run this publish is (e.g. ``jab-blog-nn``); stored with every
        file it writes.
    replace : bool
        Also delete the record's files last written by a publish of the same slice that the
        run no longer has. Otherwise nothing already in the record is deleted.
    config_files : sequence of str
        The run's ``--configfile`` files (relative to the run directory), merged on
        :data:`BASE_CONFIG` (:func:`effective_config`); the result is stored as
        :data:`CONFIG_NAME`.
    exclude : iterable of str
        ``Path.match`` patterns of files to leave out.
    machine : mapping, optional
        Facts of the machine the run used (:func:`machine_facts` of this one by default).
    notes : str or Path, optional
        A text file on the load of the machine while the run went on, stored in the record
        for ``RUN.md``'s "load while it ran" section (an earlier one is kept otherwise).
    max_file_bytes, budget_bytes : int
        Largest file published and the budget of the whole record folder.
    now : float, optional
        Publish time (seconds since the epoch); the current time by default.

    Returns
    -------
    PublishResult

    Raises
    ------
    RecordError
        A file is over ``max_file_bytes``, or the record would exceed ``budget_bytes``
        (nothing is written then), or the results or config files do not exist, or the
        existing record fails its check against its manifest, or another publish into it
        is running (:func:`record_folder` for the record path).
    """
    results, record = Path(results), record_folder(record)
    workdir = results.resolve().parent
    exclude = tuple(exclude)
    files = collect(results, exclude=exclude)
    report_warning = None
    if not any(Path(REPORT_NAME).match(x) for x in exclude):
        report_warning = _report_warning(results, files)
        if report_warning is None:
            files[REPORT_NAME] = results / REPORT_NAME
    _check_file_sizes(results, files, max_file_bytes)
    config, used_config = effective_config(workdir, config_files)
    record.parent.mkdir(parents=True, exist_ok=True)
    with _publish_lock(record):
        _recover(record)
        return _publish_locked(
            record,
            workdir,
            files,
            slice_name=slice_name,
            replace=replace,
            config=config,
            used_config=used_config,
            machine=machine,
            notes=notes,
            budget_bytes=budget_bytes,
            now=now,
            report_warning=report_warning,
        )


def _check_file_sizes(results: Path, files: Mapping[str, Path], max_file_bytes: int) -> None:
    """Stop when a file to publish is over ``max_file_bytes``, naming the largest."""
    too_big = [(rel, p.stat().st_size) for rel, p in files.items()]
    too_big = [(rel, n) for rel, n in too_big if n > max_file_bytes]
    if too_big:
        rel, n = max(too_big, key=lambda x: x[1])
        raise RecordError(
            f"{results / rel} is {_mb(n)}, over the per-file cap of {_mb(max_file_bytes)} "
            f"({len(too_big)} file(s) over it): leave it out with --exclude '{rel}' or shrink "
            "the output; the record goes into git, where large files do not belong"
        )


def record_folder(record: str | os.PathLike) -> Path:
    """``record`` as a path naming the record folder itself.

    Raises
    ------
    RecordError
        ``record`` is ``.``, ``..`` or a root (the folder a publish replaces must have a name
        of its own), or an existing path that is not a folder.
    """
    path = Path(record)
    if path.name in ("", ".", ".."):
        raise RecordError(
            f"record path {str(record)!r} names no folder of its own: give the record folder "
            "itself, e.g. record/paper (publish replaces that folder as a whole)"
        )
    if path.exists() and not path.is_dir():
        raise RecordError(
            f"record {record} is a file, not a folder: give a record folder (created if needed)"
        )
    return path


@contextmanager
def _publish_lock(record: Path) -> Iterator[None]:
    """Hold the publish lock of ``record`` (a hidden lock file beside it, deleted when
    released); a second publish into the same record refuses while the first runs."""
    lock = record.with_name(f".{record.name}.lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # the file may have been released and deleted between our open and our lock
            if os.fstat(fd).st_ino != os.stat(lock).st_ino:
                raise BlockingIOError
        except (BlockingIOError, FileNotFoundError):
            raise RecordError(
                f"another publish into {record} is running (it holds {lock}): wait for it to "
                "end, then publish again"
            ) from None
        try:
            yield
        finally:
            lock.unlink(missing_ok=True)
    finally:
        os.close(fd)


def _publish_locked(
    record: Path,
    workdir: Path,
    files: dict[str, Path],
    *,
    slice_name: str,
    replace: bool,
    config: dict,
    used_config: list[str],
    machine: Mapping[str, Any] | None,
    notes: str | os.PathLike | None,
    budget_bytes: int,
    now: float | None,
    report_warning: str | None,
) -> PublishResult:
    """:func:`publish` once its lock is held: an existing record is checked whole
    (:func:`.manifest.check_record`) before anything of it is carried into the new one."""
    if record.exists() and any(record.iterdir()):
        manifest = check_record(record)
    else:
        manifest = read_manifest(record, missing_ok=True)
    out = PublishResult(record, budget_bytes=budget_bytes)
    if report_warning:
        out.warnings.append(report_warning)
    if (record / CONFIG_NAME).is_file():
        out.warnings += _config_warning(read_config(record, manifest), config)

    staging = record.with_name(f".{record.name}.staging-{os.getpid()}")
    try:
        if record.exists():
            shutil.copytree(record, staging, symlinks=True)
        else:
            staging.mkdir()
        entries = manifest["files"]
        if replace:
            _remove_gone(staging, entries, files, slice_name, out)
        _copy_published(staging, entries, files, slice_name, out)
        manifest["files"] = dict(sorted(entries.items()))
        manifest["publishes"].append(
            {
                "slice": slice_name,
                "date": _iso(now if now is not None else dt.datetime.now().timestamp()),
                **git_state(workdir),
                "config_files": used_config,
                "machine": dict(machine) if machine is not None else machine_facts(),
                "files": len(files),
                "report": "published" if report_warning is None else "not published",
            }
        )
        write_text(staging / CONFIG_NAME, yaml.safe_dump(config, sort_keys=False))
        if notes is not None:
            store_notes(staging, notes)
        write_json(staging / MANIFEST, seal_own_files(staging, manifest))
        write_run_md(staging)
        _check_budget(staging, record, budget_bytes, out)
        _swap_in(staging, record)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return out


def _config_warning(old: Mapping, new: Mapping) -> list[str]:
    """Why the record's config is being replaced by a different one (none when equal)."""
    diff = config_differences(old, new)
    if not diff:
        return []
    shown = "; ".join(f"{k}: {a!r} -> {b!r}" for k, a, b in diff[:5])
    return [
        f"the run's config differs from the record's {CONFIG_NAME} in {len(diff)} "
        f"value(s) ({shown}): {CONFIG_NAME} now holds this run's"
    ]


def _remove_gone(
    staging: Path, entries: dict, files: Mapping[str, Path], slice_name: str, out: PublishResult
) -> None:
    """Delete from ``staging`` and ``entries`` the files ``slice_name`` last wrote that the run
    no longer has."""
    for rel, entry in sorted(entries.items()):
        if entry.get("slice") == slice_name and rel not in files:
            (staging / rel).unlink(missing_ok=True)
            out.removed.append(rel)
    for rel in out.removed:
        del entries[rel]


def _copy_published(
    staging: Path, entries: dict, files: Mapping[str, Path], slice_name: str, out: PublishResult
) -> None:
    """Copy the run's ``files`` into ``staging``, each with its manifest entry, except those
    the record holds with the same content."""
    for rel, src in files.items():
        digest = sha256(src)
        if entries.get(rel, {}).get("sha256") == digest:
            # the same content (a restored cell, a rebuilt table): it keeps the slice and
            # source time of the run that made it
            out.unchanged.append(rel)
            continue
        dest = staging / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        out.copied.append(rel)
        entries[rel] = {
            **file_entry(dest),
            "slice": slice_name,
            "source_mtime": _iso(src.stat().st_mtime),
        }


def _check_budget(staging: Path, record: Path, budget_bytes: int, out: PublishResult) -> None:
    """Note the staged record's size in ``out``; stop when it is over ``budget_bytes``."""
    sizes = {
        p.relative_to(staging).as_posix(): p.stat().st_size
        for p in staging.rglob("*")
        if p.is_file()
    }
    out.n_files, out.total_bytes = len(sizes), sum(sizes.values())
    if out.total_bytes > budget_bytes:
        largest = sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
        raise RecordError(
            f"{record} would hold {_mb(out.total_bytes)}, over its budget of "
            f"{_mb(budget_bytes)} (largest: "
            + ", ".join(f"{r} {_mb(n)}" for r, n in largest)
            + "): nothing was written; leave files out with --exclude or publish to "
            "a separate record"
        )


# ---------------------------------------------------------------- the Snakemake report


def _snakemake(config_files: Sequence[str], snakefile: str | os.PathLike | None) -> list[str]:
    cmd = [sys.executable, "-m", "snakemake", "--cores", "1"]
    if snakefile is not None:
        cmd += ["--snakefile", str(Path(snakefile).resolve())]
    for c in config_files:
        cmd += ["--configfile", c]
    return cmd


def build_report(
    workdir: str | os.PathLike,
    config_files: Sequence[str],
    snakefile: str | os.PathLike | None = None,
    timeout: float = 3600,
    out: str | os.PathLike = f"{RESULTS_DIR}/{REPORT_NAME}",
) -> str | None:
    """Build the Snakemake report ``out`` (relative to ``workdir``: by default
    ``results/`` :data:`REPORT_NAME`) of the run in ``workdir``, with the run's metadata
    (``.snakemake/``) where it has it; ``snakefile`` defaults to the run directory's. The
    start-of-run estimate is left out (nothing runs).

    Returns
    -------
    str or None
        None on success, else why it failed (the end of Snakemake's output, without its
        per-file notes).
    """
    cmd = _snakemake(config_files, snakefile) + ["--report", str(out)]
    try:
        proc = subprocess.run(
            cmd,
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, NO_ESTIMATE_ENV: "1"},
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{' '.join(cmd)} failed: {err}"
    if proc.returncode != 0:
        lines = (proc.stdout + proc.stderr).strip().splitlines()
        tail = [line for line in lines if not line.startswith(_REPORT_NOTES)][-8:]
        return f"{' '.join(cmd)} failed in {workdir}:\n  " + "\n  ".join(tail)
    return None


#: Lines Snakemake prints per file while building a report (not why it failed).
_REPORT_NOTES = ("Missing metadata", "Adding ")


def report_of_record(
    record: str | os.PathLike,
    out: str | os.PathLike,
    snakefile: str | os.PathLike = "Snakefile",
    timeout: float = 3600,
) -> Path:
    """Build the Snakemake report of a record from its files alone: the workflow of
    ``snakefile`` with the record's config, in a run directory whose ``results`` is the
    record. Nothing runs; Snakemake has no metadata for the files, so the report leaves out
    the jobs' details (it warns about each file).

    Parameters
    ----------
    record : str or Path
        A record folder written by :func:`publish` from a whole run.
    out : str or Path
        The report file to write (HTML).
    snakefile : str or Path
        The workflow's Snakefile (the repository's).
    timeout : float
        Seconds Snakemake may take.

    Returns
    -------
    Path
        ``out``, absolute.

    Raises
    ------
    RecordError
        The record, its config or the Snakefile is missing, the record fails its check
        against its manifest (:func:`.manifest.check_record`), or Snakemake failed (its last
        lines name why, e.g. a file the report shows that the record lacks).
    """
    record, snakefile = Path(record), Path(snakefile)
    if not record.is_dir():
        raise RecordError(
            f"record {record} is not a folder: give a record folder written by publish"
        )
    manifest = check_record(record)
    read_config(record, manifest)
    config = record / CONFIG_NAME
    if not snakefile.is_file():
        raise RecordError(
            f"Snakefile {snakefile} does not exist: run from the repository root or give "
            "--snakefile"
        )
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with record_as_run(record) as rundir:
        failed = build_report(rundir, [str(config.resolve())], snakefile, timeout, out)
    if failed:
        raise RecordError(
            f"the report of {record} could not be built (a record of a whole run is needed): "
            + failed
        )
    return out


# ---------------------------------------------------------------- restoring cells


def cells_of(rel: str) -> RecordCells | None:
    """The paper's record cells (:data:`RECORD_CELLS`) whose tables ``rel`` (relative to
    ``results/``) is one of; None for any other file."""
    return next((cells for cells in RECORD_CELLS if cells.holds(rel)), None)


def cell_job(rel: str) -> tuple[str, dict[str, str]]:
    """Rule and wildcards of the cell table at ``rel`` (relative to ``results/``).

    Examples
    --------
    >>> cell_job("jab/cells/main/blog/nn/m0.6.parquet")
    ('jab_main_cell', {'jab_data': 'blog', 'jab_learner': 'nn', 'jab_m': '0.6'})
    >>> cell_job("jab/cells/jplus/blog/rf.parquet")[0]
    'jab_jplus_cell'
    """
    cells = cells_of(rel)
    job = None if cells is None else cells.job(rel)
    if job is None:
        kinds = ", ".join(f"{c.label} ({c.pattern})" for c in RECORD_CELLS)
        raise RecordError(f"{rel} is not a cell table of any paper: the record keeps {kinds}")
    return job


def _value(config: Mapping, dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


@dataclass
class RestoreResult:
    """What :func:`restore` did; ``cells`` are the restored cell paths relative to the run
    directory (the targets to ``snakemake --touch``)."""

    copied: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    not_in_config: list[str] = field(default_factory=list)
    cells: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [
            f"restored {len(self.copied)} files ({len(self.cells)} cells); "
            f"{len(self.kept)} already in the run kept"
        ]
        if self.not_in_config:
            out.append(
                f"{len(self.not_in_config)} cells of the record are not jobs of this config "
                f"and were not restored (e.g. {self.not_in_config[0]})"
            )
        return out


def restore(
    record: str | os.PathLike,
    results: str | os.PathLike,
    config: Mapping | None = None,
    overwrite: bool = False,
) -> RestoreResult:
    """Copy the record's cell tables (:data:`RECORD_CELLS`) and their benchmark files back
    into ``results``.

    The copies get the current time as modification time, so they are newer than the
    prepared data they were computed from (which must therefore exist already: prepare the
    data first). Snakemake then has no reason to rerun them except missing metadata, which
    ``snakemake --touch`` of the cells records (:func:`touch_cells`).

    Parameters
    ----------
    record : str or Path
        The record folder.
    results : str or Path
        The ``results/`` directory of the run to resume.
    config : mapping, optional
        The config of the run to resume. When given, only cells that are jobs of it are
        restored, and every config value such a cell reads (its rule's keys in
        :mod:`ensemble_repro.rule_keys`) must equal the record's
        :data:`CONFIG_NAME`.
    overwrite : bool
        Replace files the run already has (by default they are kept).

    Returns
    -------
    RestoreResult

    Raises
    ------
    RecordError
        The record does not exist, a file it would copy (or its config) fails its check
        against the manifest (:func:`.manifest.checked`), a prepared data table a cell needs
        is missing, or a cell was made with other config values than ``config``'s (nothing
        is copied then).
    """
    record, results = Path(record), Path(results)
    if not record.is_dir():
        raise RecordError(f"record {record} is not a folder: give a folder written by publish")
    manifest = read_manifest(record)
    out = RestoreResult()
    files = _restored_files(record, manifest)
    record_config = read_config(record, manifest) if config is not None else None
    problems, missing_data, benchmarks = [], set(), set()
    for rel in list(files):
        cells = cells_of(rel)
        if cells is None:
            continue
        rule, wc = cell_job(rel)
        if config is not None:
            if not cells.in_config(rule, wc, config):
                out.not_in_config.append(rel)
                del files[rel]
                continue
            problems += _config_changes(rel, rule, wc, record_config, config)
        bench = BENCHMARKS[rule].format(**wc).removeprefix(f"{RESULTS_DIR}/")
        benchmarks |= {bench, bench + JOB_CPU_SUFFIX}
        data = results / PREPARED_DATA.format(name=wc[cells.data_wildcard])
        if not data.is_file():
            missing_data.add(str(data))
    # a benchmark of a job that does not resume here (another paper's, a cell left out) stays
    files = {
        rel: src
        for rel, src in files.items()
        if not rel.startswith("benchmarks/") or rel in benchmarks
    }
    for rel in files:
        checked(record, rel, manifest)
    _check_restorable(problems, missing_data)
    _copy_restored(files, results, overwrite, out)
    return out


def _restored_files(record: Path, manifest: dict) -> dict[str, Path]:
    """The record's cell tables and benchmark files: those the manifest lists and those lying
    there unlisted (which the check against the manifest then refuses)."""
    listed = {
        rel: record / rel
        for rel in manifest["files"]
        if rel.startswith("benchmarks/") or cells_of(rel) is not None
    }
    return dict(sorted({**listed, **collect(record, patterns=RESTORED_PATTERNS)}.items()))


def _config_changes(
    rel: str, rule: str, wildcards: Mapping[str, str], old: Mapping, new: Mapping
) -> list[str]:
    """The config values the cell job at ``rel`` reads that differ between ``old`` (the
    record's) and ``new``, as messages."""
    out = []
    for key in job_keys(rule, wildcards):
        was, now = _value(old, key), _value(new, key)
        if was != now:
            out.append(f"{rel}: {key} is {was!r} in the record, {now!r} here")
    return out


def _check_restorable(problems: list[str], missing_data: set[str]) -> None:
    """Stop before anything is copied when cells were made with other config values or the
    prepared data they were computed from is missing."""
    if problems:
        raise RecordError(
            f"the record's cells were made with other config values than this run's "
            f"({len(problems)}): "
            + "; ".join(problems[:5])
            + ": resume with the record's config (its "
            + CONFIG_NAME
            + ") or let these cells run"
        )
    if missing_data:
        raise RecordError(
            f"prepared data {', '.join(sorted(missing_data))} missing: prepare the data first "
            "(snakemake --cores N data --configfile CONFIG; make record-resume does), so the "
            "restored cells are newer than the data they were computed from"
        )


def _copy_restored(
    files: Mapping[str, Path], results: Path, overwrite: bool, out: RestoreResult
) -> None:
    """Copy ``files`` into ``results`` (each atomically), keeping those the run has unless
    ``overwrite``; noted in ``out``."""
    for rel, src in files.items():
        dest = results / rel
        if dest.exists() and not overwrite:
            out.kept.append(rel)
            continue
        with atomic_path(dest) as tmp:
            shutil.copyfile(src, tmp)
        out.copied.append(rel)
        if cells_of(rel) is not None:
            out.cells.append((Path(results.name) / rel).as_posix())


def touch_cells(
    workdir: str | os.PathLike,
    config_files: Sequence[str],
    cells: Sequence[str],
    snakefile: str | os.PathLike | None = None,
) -> subprocess.CompletedProcess:
    """``snakemake --touch --force`` of the restored cells in the run directory ``workdir``:
    Snakemake records their metadata (params, input, code) as if it had run them, so a later
    config change reruns them; ``snakefile`` defaults to the run directory's."""
    cmd = _snakemake(config_files, snakefile) + ["--touch", "--force", *cells]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, check=False)


#: Marker of a restore whose ``snakemake --touch`` has not yet succeeded, in ``results/``
#: (hidden: never published): the cells still to touch, relative to the run directory.
TOUCH_PENDING = ".restore-touch-pending.json"


def pending_touch(results: str | os.PathLike) -> list[str]:
    """The cells an interrupted restore left to touch (:data:`TOUCH_PENDING`), those that
    still exist; none without the marker.

    Raises
    ------
    RecordError
        The marker is not a JSON list of cell paths (:data:`CELL_PATTERNS`).
    """
    results = Path(results)
    marker = results / TOUCH_PENDING
    if not marker.exists():
        return []
    try:
        cells = json.loads(marker.read_text())
    except (OSError, ValueError):
        cells = None
    prefixes = tuple(f"{results.name}/{c.folder}" for c in RECORD_CELLS)
    if not (isinstance(cells, list) and all(isinstance(c, str) for c in cells)) or any(
        not c.startswith(prefixes) or ".." in Path(c).parts for c in cells
    ):
        raise RecordError(
            f"{marker} is not a list of cells ({', '.join(p + '...' for p in prefixes)}): "
            "delete it and rerun the restore with --overwrite"
        )
    return [c for c in cells if (results.parent / c).is_file()]


def mark_touch_pending(results: str | os.PathLike, cells: Sequence[str]) -> list[str]:
    """Add ``cells`` to the :data:`TOUCH_PENDING` marker (written atomically) and return
    every cell it lists: those an interrupted restore left untouched first."""
    todo = list(dict.fromkeys([*pending_touch(results), *cells]))
    if todo:
        write_json(Path(results) / TOUCH_PENDING, todo)
    return todo


def clear_touch_pending(results: str | os.PathLike) -> None:
    """Delete the :data:`TOUCH_PENDING` marker (after the touch of its cells succeeded)."""
    (Path(results) / TOUCH_PENDING).unlink(missing_ok=True)
