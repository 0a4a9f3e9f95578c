"""Compare a run's result tables with a record of the same config, table by table.

``python -m ensemble_repro.verify RUN_DIR RECORD_DIR`` (``make verify RECORD=record/paper
[RESULTS=results]``): ``RUN_DIR`` is a run's ``results/`` folder, ``RECORD_DIR`` a record
laid out like it. Every result table (``*.csv``, benchmark files aside, and the J+aB per-cell
Parquet tables a record holds) and provenance sidecar (``*.provenance.json``) of the run is
compared with the file at the same path in the record:

- **Deterministic columns** must be equal: text and integers exactly, floats to
  :data:`REL_TOL` relative (and :data:`ABS_TOL` absolute near zero), NaN equal to NaN.
- **Timing columns** (wall-clock seconds and ratios of them, named by
  :data:`ensemble_repro.io.TIMING_SUFFIX` / :data:`ensemble_repro.io.TIMING_PREFIXES`, and the
  :data:`CLAIM_TIMING_COLUMNS` of a claims row flagged ``timing``) never fail: numbers within
  a factor :data:`TIMING_RATIO` pass silently, the others and changed text are reported.
- **Verdicts** (a claims table's ``verdict``) must be identical, except on wall-clock claims
  (``timing`` true), whose verdict rests on timings and is reported only.
- :data:`IGNORED_COLUMNS` and :data:`IGNORED_PROVENANCE_KEYS` are not compared.

Rows are matched by their key columns (:func:`key_columns`), so a missing row, an extra row
and a changed cell are each named; row order is not compared. A value missing on one side
only differs whatever its column (timing too), and so does a CSV row whose field count is
not its header's (a truncated file). A table of the record that the run does not have is
``not run`` (a partial run passes); a table only in the run fails (the record cannot vouch for
it). Hidden files (temporary files of a killed job) are never part of either side. Every
file of the record is checked against its manifest first
(:func:`ensemble_repro.record.manifest.checked`: listed, a regular file, its size and
sha256); a record that fails is refused. The exit code is 0 when every table compared is
identical, timing aside, 1 otherwise, and 2 when a folder or file cannot be compared.
"""

from __future__ import annotations

import argparse
import json
import math
import numbers
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import pandas as pd

from .io import TIMING_PREFIXES, TIMING_SUFFIX, ragged_csv
from .record.files import RECORD_CELLS
from .record.manifest import RecordError, checked, read_manifest

#: Relative tolerance of float columns: two BLAS builds (or thread counts) sum in different
#: orders and differ in the last digits; anything larger is a different result.
REL_TOL = 1e-9
#: Absolute tolerance of float columns, for values that are zero up to rounding (1e-17 vs 0).
ABS_TOL = 1e-12
#: Timing numbers of a run and of the record within this factor of each other pass silently
#: (the same job's wall time moves by up to ~3x with the load of a shared machine).
TIMING_RATIO = 3.0
#: Columns that differ between two runs of the same config and code without meaning anything:
#: ``made_on`` is the date a claims table was written.
IGNORED_COLUMNS = frozenset({"made_on"})
#: Provenance keys (at any depth) that name when, where or from which checkout a table was
#: made, not what went into it.
IGNORED_PROVENANCE_KEYS = frozenset(
    {"commit", "git_commit", "created", "made_on", "made_at", "timestamp", "host", "hostname"}
)
#: The claims-table column flagging a wall-clock claim, and the columns of such a row that are
#: computed from timings (our numbers, their interval, the verdict and its wording, the effect
#: and its interval, the repeats a decision would need); columns a table lacks are skipped.
CLAIM_TIMING_FLAG = "timing"
CLAIM_TIMING_COLUMNS = (
    "ours",
    "interval",
    "verdict",
    "reason",
    "robust_to",
    "effect",
    "effect_low",
    "effect_high",
    "repeats_needed",
)
#: Identifying columns of a claims table (one row per claim x data set).
CLAIM_KEYS = ("paper", "claim_id", "dataset")
#: Files under a results folder that are not result tables: per-job benchmark files (all
#: timing) and the data sets a run prepared.
SKIPPED_DIRS = frozenset({"benchmarks", "data", "html"})
PROVENANCE_SUFFIX = ".provenance.json"
#: Differing rows named per table, and timing rows beyond the ratio (these never fail: one
#: example per table says how far the machines differ).
SHOW_ROWS = 5
SHOW_TIMING_ROWS = 1

# Statuses of one compared file, in the order the summary lists them.
IDENTICAL = "identical"
TIMING_ONLY = "timing-only"
DIFFERS = "differs"
ONLY_IN_RUN = "only in run"
NOT_RUN = "not run"
STATUSES = (IDENTICAL, TIMING_ONLY, DIFFERS, ONLY_IN_RUN, NOT_RUN)
#: Statuses that make the comparison fail.
FAILING = frozenset({DIFFERS, ONLY_IN_RUN})


def is_timing_column(name: str) -> bool:
    """Whether a result-table column holds wall-clock numbers (seconds or ratios of them).

    Examples
    --------
    >>> [is_timing_column(c) for c in ("fit_seconds", "speedup_vs_full", "coverage")]
    [True, True, False]
    """
    return str(name).endswith(TIMING_SUFFIX) or str(name).startswith(TIMING_PREFIXES)


@dataclass
class Difference:
    """One differing row: its key, and per column the run's and the record's value."""

    key: str
    kind: str  # "cell", "missing" (in the record, not in the run) or "extra" (only in the run)
    cells: list[tuple[str, object, object]] = field(default_factory=list)

    def text(self) -> str:
        if self.kind == "missing":
            return f"row {self.key}: in the record, missing from the run"
        if self.kind == "extra":
            return f"row {self.key}: in the run, not in the record"
        return "; ".join(
            f"row {self.key}: column {c}: run {_show(a)} vs record {_show(b)}"
            for c, a, b in self.cells
        )


@dataclass
class FileResult:
    """The comparison of one file: its status, a short note and the first differences."""

    path: str
    status: str
    note: str = ""
    differences: list[Difference] = field(default_factory=list)
    timing: list[Difference] = field(default_factory=list)
    n_differences: int = 0
    n_timing: int = 0

    @property
    def failed(self) -> bool:
        return self.status in FAILING


def _show(v) -> str:
    if isinstance(v, float):
        return repr(v)
    return repr(v) if isinstance(v, str) else str(v)


def _floats_equal(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def values_equal(a, b) -> bool:
    """Whether two cells are the same result: floats to :data:`REL_TOL`, the rest exactly.

    Examples
    --------
    >>> values_equal(0.1 + 0.2, 0.3), values_equal(0.3, 0.3001), values_equal("a", "a")
    (True, False, True)
    >>> values_equal(float("nan"), float("nan")), values_equal(1, 1.0)
    (True, True)
    """
    if _is_missing(a) or _is_missing(b):
        return _is_missing(a) and _is_missing(b)
    if _is_number(a) and _is_number(b):
        if isinstance(a, bool) or isinstance(b, bool):
            return a == b
        return _floats_equal(float(a), float(b))
    return str(a) == str(b)


def timing_close(a, b, ratio: float = TIMING_RATIO) -> bool:
    """Whether two timing cells agree: numbers of the same sign within a factor ``ratio`` of
    each other (zero only with zero; differences of timings can be negative), other values
    exactly.

    Examples
    --------
    >>> timing_close(1.0, 2.9), timing_close(1.0, 3.1), timing_close(0.0, 0.0)
    (True, False, True)
    >>> timing_close(-0.03, -0.08), timing_close(-0.03, 0.03)
    (True, False)
    """
    if _is_missing(a) or _is_missing(b):
        return _is_missing(a) and _is_missing(b)
    if _is_number(a) and _is_number(b):
        a, b = float(a), float(b)
        if a == b:
            return True
        if a * b <= 0:
            return False
        return max(a / b, b / a) <= ratio
    return str(a) == str(b)


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, numbers.Real) and math.isnan(v))


def _is_number(v) -> bool:
    return isinstance(v, numbers.Real)


def key_columns(df: pd.DataFrame) -> list[str]:
    """The columns identifying a row of a result table.

    A claims table's are :data:`CLAIM_KEYS`. Otherwise the candidates are the columns that
    are neither floats nor timing, in table order; the key is the shortest prefix of them
    that tells the rows apart as well as all of them do (rows still sharing a key are matched
    in their order of appearance).

    Examples
    --------
    >>> df = pd.DataFrame({"data": ["a", "a", "b"], "m": [1, 2, 1], "n": [5, 5, 6],
    ...                    "cov": [0.9, 0.8, 0.7]})
    >>> key_columns(df)
    ['data', 'm']
    """
    if all(c in df.columns for c in CLAIM_KEYS) and CLAIM_TIMING_FLAG in df.columns:
        return list(CLAIM_KEYS)
    cands = [
        c
        for c in df.columns
        if c not in IGNORED_COLUMNS
        and not is_timing_column(c)
        and not pd.api.types.is_float_dtype(df[c])
    ]
    if df.empty or not cands:
        return cands
    best = len(df.drop_duplicates(cands))
    for i in range(1, len(cands) + 1):
        if len(df.drop_duplicates(cands[:i])) == best:
            return cands[:i]
    return cands


def _timing_rows(df: pd.DataFrame) -> pd.Series:
    """Rows of wall-clock claims (a claims table's ``timing`` flag); no row elsewhere."""
    if CLAIM_TIMING_FLAG not in df.columns:
        return pd.Series(False, index=df.index)
    return df[CLAIM_TIMING_FLAG].astype(str).str.lower() == "true"


def _keyed(df: pd.DataFrame, keys: list[str]) -> dict[tuple, dict]:
    """Rows by (key values, occurrence): duplicates of a key matched in order."""
    out: dict[tuple, dict] = {}
    seen: dict[tuple, int] = {}
    for row in df.to_dict("records"):
        k = tuple(_key_value(row[c]) for c in keys)
        n = seen.get(k, 0)
        seen[k] = n + 1
        out[(k, n)] = row
    return out


def _key_value(v):
    return "NaN" if _is_missing(v) else v


def _key_text(keys: list[str], k: tuple) -> str:
    values, n = k
    text = ", ".join(f"{c}={v}" for c, v in zip(keys, values, strict=True)) or "(no key)"
    return text + (f" (#{n + 1})" if n else "")


def compare_tables(run: pd.DataFrame, record: pd.DataFrame, path: str = "") -> FileResult:
    """Compare one result table of a run with the record's.

    Parameters
    ----------
    run, record : pandas.DataFrame
        The table as the run and as the record have it (read from CSV or Parquet).
    path : str
        The table's path under the results folder, for the result.

    Returns
    -------
    FileResult
        ``identical``, ``timing-only`` (only timing cells beyond :data:`TIMING_RATIO` or
        changed timing text) or ``differs`` (columns, rows or deterministic cells), with the
        first :data:`SHOW_ROWS` differing rows (:data:`SHOW_TIMING_ROWS` timing rows).

    Examples
    --------
    >>> a = pd.DataFrame({"k": ["x", "y"], "v": [1.0, 2.0], "fit_seconds": [1.0, 1.0]})
    >>> b = a.assign(fit_seconds=[2.0, 1.5])
    >>> compare_tables(a, b).status
    'identical'
    >>> r = compare_tables(a, b.assign(v=[1.0, 2.5]))
    >>> r.status, r.differences[0].text()
    ('differs', 'row k=y: column v: run 2.0 vs record 2.5')
    """
    result = FileResult(path, IDENTICAL)
    run = run.drop(columns=[c for c in run.columns if c in IGNORED_COLUMNS])
    record = record.drop(columns=[c for c in record.columns if c in IGNORED_COLUMNS])
    only_run = [c for c in run.columns if c not in record.columns]
    only_record = [c for c in record.columns if c not in run.columns]
    if only_run or only_record:
        result.status = DIFFERS
        parts = []
        if only_run:
            parts.append(f"columns only in the run: {', '.join(map(str, only_run))}")
        if only_record:
            parts.append(f"columns only in the record: {', '.join(map(str, only_record))}")
        result.note = "; ".join(parts)
        return result
    keys = key_columns(record)
    run_rows = _keyed(run.assign(_timing_row=_timing_rows(run)), keys)
    record_rows = _keyed(record.assign(_timing_row=_timing_rows(record)), keys)
    columns = [c for c in record.columns if c not in keys]
    for k, rec in record_rows.items():
        got = run_rows.get(k)
        if got is None:
            _add(result, "differences", Difference(_key_text(keys, k), "missing"))
            continue
        det, tim = [], []
        for c in columns:
            a, b = got[c], rec[c]
            timing = is_timing_column(c) or (rec["_timing_row"] and c in CLAIM_TIMING_COLUMNS)
            if _is_missing(a) != _is_missing(b):
                det.append((c, a, b))
            elif timing:
                if not timing_close(a, b):
                    tim.append((c, a, b))
            elif not values_equal(a, b):
                det.append((c, a, b))
        if det:
            _add(result, "differences", Difference(_key_text(keys, k), "cell", det))
        if tim:
            _add(result, "timing", Difference(_key_text(keys, k), "cell", tim))
    for k in run_rows.keys() - record_rows.keys():
        _add(result, "differences", Difference(_key_text(keys, k), "extra"))
    if result.n_differences or len(run) != len(record):
        result.status = DIFFERS
    elif result.n_timing:
        result.status = TIMING_ONLY
    result.note = f"{len(record)} rows" + (
        f" vs {len(run)} in the run" if len(run) != len(record) else ""
    )
    return result


def _add(result: FileResult, kind: str, diff: Difference) -> None:
    if kind == "timing":
        result.n_timing += 1
        if len(result.timing) < SHOW_TIMING_ROWS:
            result.timing.append(diff)
    else:
        result.n_differences += 1
        if len(result.differences) < SHOW_ROWS:
            result.differences.append(diff)


def _flatten(obj, prefix: str = "") -> dict[str, object]:
    """Leaves of a JSON value by dotted path, :data:`IGNORED_PROVENANCE_KEYS` left out."""
    if isinstance(obj, dict):
        out: dict[str, object] = {}
        for k, v in obj.items():
            if k in IGNORED_PROVENANCE_KEYS:
                continue
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(obj, list):
        out = {}
        for i, v in enumerate(obj):
            out.update(_flatten(v, f"{prefix}[{i}]"))
        return out if obj else {prefix: "[]"}
    return {prefix: obj}


def compare_provenance(run: dict, record: dict, path: str = "") -> FileResult:
    """Compare two provenance sidecars key by key (:data:`IGNORED_PROVENANCE_KEYS` aside).

    Examples
    --------
    >>> a = {"config": {"n": 10}, "commit": "abc"}
    >>> compare_provenance(a, {"config": {"n": 10}, "commit": "def"}).status
    'identical'
    >>> compare_provenance(a, {"config": {"n": 20}}).differences[0].text()
    'row config.n: column value: run 10 vs record 20'
    """
    result = FileResult(path, IDENTICAL)
    a, b = _flatten(run), _flatten(record)
    for k in sorted(a.keys() | b.keys()):
        if k not in a:
            _add(result, "differences", Difference(k, "missing"))
        elif k not in b:
            _add(result, "differences", Difference(k, "extra"))
        elif not values_equal(a[k], b[k]):
            _add(result, "differences", Difference(k, "cell", [("value", a[k], b[k])]))
    if result.n_differences:
        result.status = DIFFERS
    return result


def is_result_file(rel: str) -> bool:
    """Whether a path relative to a results folder is a result table (CSV, or a paper's cell
    table, :data:`.record.files.RECORD_CELLS`) or provenance sidecar that :func:`verify` compares: not under
    :data:`SKIPPED_DIRS` at the top level, no hidden part.

    Examples
    --------
    >>> [is_result_file(r) for r in ("jab/main.csv", "benchmarks/x.csv", "jab/.main.csv.1f.csv")]
    [True, False, False]
    >>> is_result_file("jab/cells/main/blog/nn/m0.6.parquet"), is_result_file("qwyc/p.parquet")
    (True, False)
    """
    path = PurePosixPath(rel)
    if path.parts[0] in SKIPPED_DIRS or any(part.startswith(".") for part in path.parts):
        return False
    if path.suffix == ".csv" or path.name.endswith(PROVENANCE_SUFFIX):
        return True
    return any(cells.holds(rel) for cells in RECORD_CELLS)


def result_files(root: Path) -> list[str]:
    """Result tables and provenance sidecars (:func:`is_result_file`) under a results folder,
    as relative paths; symlinks count (a record refuses them when checked)."""
    out = []
    for p in root.rglob("*"):
        rel = p.relative_to(root).as_posix()
        if (p.is_file() or p.is_symlink()) and is_result_file(rel):
            out.append(rel)
    return sorted(out)


def _read_table(path: Path) -> pd.DataFrame:
    if path.suffix == ".parquet":
        try:
            return pd.read_parquet(path)
        except (OSError, ValueError) as err:
            raise VerifyError(
                f"{path}: not a readable Parquet table ({err}); regenerate it"
            ) from None
    try:
        return pd.read_csv(path, keep_default_na=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise VerifyError(f"{path}: not a readable CSV table ({err}); regenerate it") from None


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise VerifyError(f"{path}: not a readable JSON sidecar ({err}); regenerate it") from None


class VerifyError(ValueError):
    """A folder or file that cannot be compared (missing, empty, unreadable)."""


def _check_folder(path: Path, what: str, hint: str) -> list[str]:
    if not path.is_dir():
        raise VerifyError(f"{what} {path}: no such folder; {hint}")
    files = result_files(path)
    if not files:
        raise VerifyError(f"{what} {path}: holds no result tables (*.csv, *.parquet); {hint}")
    return files


def verify(run_dir, record_dir) -> list[FileResult]:
    """Compare every result table and provenance sidecar of a run with a record.

    Parameters
    ----------
    run_dir : str or Path
        The run's results folder (``results``).
    record_dir : str or Path
        The record, laid out like a results folder (``record/paper``).

    Returns
    -------
    list of FileResult
        One per file in the run or the record, sorted by path; a file of the record that the
        run lacks is ``not run``.

    Raises
    ------
    VerifyError
        When a folder is missing or holds no result table, a file cannot be read, or the
        record fails its check against its manifest.
    """
    run_dir, record_dir = Path(run_dir), Path(record_dir)
    run_files = _check_folder(
        run_dir, "RUN_DIR", "give the results folder of a run (e.g. results), after running it"
    )
    record_files = _check_folder(
        record_dir, "RECORD_DIR", "give the record's folder (e.g. record/paper)"
    )
    try:
        manifest = read_manifest(record_dir)
        record_files = sorted(
            set(record_files) | {rel for rel in manifest["files"] if is_result_file(rel)}
        )
        for rel in record_files:
            checked(record_dir, rel, manifest)
    except RecordError as err:
        raise VerifyError(f"RECORD_DIR: {err}") from None
    out = []
    for rel in sorted(set(run_files) | set(record_files)):
        if rel not in record_files:
            out.append(FileResult(rel, ONLY_IN_RUN, "the record has no such file"))
        elif rel not in run_files:
            out.append(FileResult(rel, NOT_RUN))
        elif rel.endswith(".csv") and (
            bad := [
                f"{side}: {why}"
                for side, root in (("run", run_dir), ("record", record_dir))
                if (why := ragged_csv(root / rel))
            ]
        ):
            out.append(FileResult(rel, DIFFERS, "; ".join(bad)))
        elif rel.endswith(PROVENANCE_SUFFIX):
            out.append(
                compare_provenance(_read_json(run_dir / rel), _read_json(record_dir / rel), rel)
            )
        else:
            out.append(
                compare_tables(_read_table(run_dir / rel), _read_table(record_dir / rel), rel)
            )
    return out


def report(results: Iterable[FileResult]) -> list[str]:
    """The printed summary: one line per file compared (the first differing rows under it), one
    per folder of the record's files the run did not make, and the counts."""
    results = list(results)
    width = max(len(s) for s in STATUSES)
    lines = []
    # the record's files this run did not make: listed after the rest, one line per folder
    not_run: dict[str, list[str]] = {}
    for r in results:
        if r.status == NOT_RUN:
            not_run.setdefault(str(PurePosixPath(r.path).parent), []).append(r.path)
            continue
        lines.append(f"{r.status:<{width}}  {r.path}" + (f"  ({r.note})" if r.note else ""))
        for d in r.differences:
            lines.append(f"{'':<{width}}    {d.text()}")
        if r.n_differences > len(r.differences):
            lines.append(
                f"{'':<{width}}    ... {r.n_differences - len(r.differences)} more differing rows"
            )
        for d in r.timing:
            lines.append(f"{'':<{width}}    timing, beyond x{TIMING_RATIO:g}: {d.text()}")
        if r.n_timing > len(r.timing):
            lines.append(f"{'':<{width}}    ... {r.n_timing - len(r.timing)} more timing rows")
    for folder, paths in sorted(not_run.items()):
        where = paths[0] if len(paths) == 1 else f"{folder}/ ({len(paths)} files)"
        lines.append(f"{NOT_RUN:<{width}}  {where}")
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    lines.append("")
    lines.append("summary: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n))
    failed = [r for r in results if r.failed]
    lines.append(
        f"FAILED: {len(failed)} file(s) differ from the record"
        if failed
        else "OK: every file compared is identical to the record (timing aside)"
    )
    return lines


def main(argv=None) -> int:
    """``python -m ensemble_repro.verify RUN_DIR RECORD_DIR``; exit 0 when identical."""
    ap = argparse.ArgumentParser(
        prog="python -m ensemble_repro.verify",
        description="Compare a run's result tables with a record, table by table.",
    )
    ap.add_argument("run_dir", metavar="RUN_DIR", help="the run's results folder, e.g. results")
    ap.add_argument("record_dir", metavar="RECORD_DIR", help="the record, e.g. record/paper")
    args = ap.parse_args(argv)
    try:
        results = verify(args.run_dir, args.record_dir)
    except VerifyError as err:
        print(f"verify: {err}", file=sys.stderr)
        return 2
    print(f"Comparing {args.run_dir} with the record {args.record_dir}:")
    print(
        f"(floats to {REL_TOL:g} relative, timing columns within x{TIMING_RATIO:g}; "
        f"not compared: {', '.join(sorted(IGNORED_COLUMNS))})"
    )
    for line in report(results):
        print(line)
    return 1 if any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
