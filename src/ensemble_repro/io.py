"""Crash-safe file output: everything is written to a temporary file and renamed.

A job killed mid-way therefore never leaves a truncated file at its output path, and a
rerun simply recomputes it (the guide's "nothing half-written is left behind").
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

#: Result-table columns whose values are wall-clock measurements (names ending in
#: ``TIMING_SUFFIX``) or ratios of them (names starting with one of ``TIMING_PREFIXES``).
#: They are the only columns allowed to differ between two runs of the same config.
TIMING_SUFFIX = "_seconds"
TIMING_PREFIXES = ("speedup",)


def _create_temp(directory: Path, prefix: str, suffix: str) -> Path:
    """Create a new empty file in ``directory`` with the permissions a plain ``open`` gives.

    ``tempfile.mkstemp`` creates files with mode 0600 whatever the umask, which would make
    results unreadable to a group sharing them; ``O_CREAT | O_EXCL`` with mode 0666 lets the
    umask decide, as for any other file the user creates.
    """
    while True:
        path = directory / f"{prefix}{secrets.token_hex(6)}{suffix}"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return path


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it onto ``path`` only on success.

    The file gets the mode a plain ``open(path, "w")`` would give (0666 minus the umask).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = _create_temp(path.parent, f".{path.name}.", suffix or path.suffix or ".tmp")
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


class MarkerError(ValueError):
    """The marker lines of a generated block are missing, repeated or out of order."""


def replace_marked_block(
    path: str | os.PathLike, begin: str, end: str, make_block: Callable[[], str], what: str
) -> bool:
    """Replace the text between the marker lines ``begin`` and ``end`` of the file ``path``
    with ``make_block()`` (called once the markers are checked), the rest of the file kept byte
    for byte; True when the file changed.

    Raises
    ------
    MarkerError
        A marker is missing, repeated or out of order (the file is left as it was); the
        message names the file, the marker and the fix, ``what`` saying what the block holds.
    OSError
        The file cannot be read or written.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    counts = {m: text.count(m) for m in (begin, end)}
    bad = [m for m, n in counts.items() if n != 1]
    if bad:
        raise MarkerError(
            f"{path} must hold each marker line once; "
            + "; ".join(f"{m!r} occurs {counts[m]} times" for m in bad)
            + f": put the two lines\n{begin}\n{end}\nwhere {what} goes, then run this again"
        )
    start, stop = text.index(begin), text.index(end)
    if stop < start:
        raise MarkerError(f"{path}: {end!r} comes before {begin!r}; swap them")
    new = text[: start + len(begin)] + "\n" + make_block() + "\n" + text[stop:]
    if new != text:
        write_text(path, new)
    return new != text


def ragged_csv(path: str | os.PathLike) -> str | None:
    """Why a CSV file's rows do not all have its header's field count (None when they do):
    pandas silently fills the fields of a cut row (a truncated file) with NaN or ""."""
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = csv.reader(fh)
            header = next(rows, None)
            if header is None:
                return None
            for row in rows:
                if row and len(row) != len(header):
                    return (
                        f"line {rows.line_num} has {len(row)} fields, the header "
                        f"{len(header)} (truncated?)"
                    )
    except (csv.Error, UnicodeDecodeError) as err:
        return f"not a readable CSV table ({err})"
    return None


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as sorted, indented JSON atomically (stable bytes for equal content)."""
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def read_json(path: str | os.PathLike) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot serialise {type(obj).__name__} to JSON")


def write_csv(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a result table as CSV atomically, with a fixed float format (byte-stable)."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, float_format="%.10g", lineterminator="\n")


def write_markdown(
    df: pd.DataFrame, path: str | os.PathLike, title: str | None = None, floatfmt: str = ".4g"
) -> None:
    """Write a table as GitHub Markdown atomically (no ``tabulate`` dependency)."""
    write_text(path, markdown_table(df, title=title, floatfmt=floatfmt))


def markdown_cell(text: str) -> str:
    """``text`` as one Markdown table cell: its line breaks become spaces (a row is one line)
    and its pipes are escaped.

    Examples
    --------
    >>> markdown_cell("two\\nlines | here")
    'two lines \\\\| here'
    """
    return " ".join(text.split()).replace("|", "\\|")


def markdown_table(df: pd.DataFrame, title: str | None = None, floatfmt: str = ".4g") -> str:
    """A table as GitHub Markdown, floats formatted with ``floatfmt``; a cell's line breaks
    become spaces and its pipes are escaped, so that every row stays one line.

    Examples
    --------
    >>> import pandas as pd
    >>> print(markdown_table(pd.DataFrame({"method": ["J+aB"], "coverage": [0.90123]})), end="")
    | method | coverage |
    |---|---|
    | J+aB | 0.9012 |
    """

    def fmt(v: Any) -> str:
        return markdown_cell(format(v, floatfmt) if isinstance(v, float) else str(v))

    lines = []
    if title:
        lines += [f"# {title}", ""]
    cols = [fmt(str(c)) for c in df.columns]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "|".join("---" for _ in cols) + "|")
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(fmt(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def write_parquet(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a DataFrame as Parquet atomically."""
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


class UnreadableFileError(ValueError):
    """A result or data file exists but cannot be parsed (cut short, or not that format)."""


def read_parquet(path: str | os.PathLike, **kwargs) -> pd.DataFrame:
    """Read a Parquet file; a damaged one raises :class:`UnreadableFileError` naming it.

    pyarrow's own message for a truncated file ("Parquet magic bytes not found ...") names
    no file, and the fix (delete it so the workflow rebuilds it) is not obvious.

    Parameters
    ----------
    path : str or path-like
        The file.
    **kwargs
        Passed to :func:`pandas.read_parquet` (e.g. ``columns``).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import tempfile
    >>> bad = Path(tempfile.mkdtemp()) / "cell.parquet"
    >>> _ = bad.write_bytes(b"PAR1 cut short")
    >>> read_parquet(bad)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ensemble_repro.io.UnreadableFileError: cannot read .../cell.parquet: it is not a complete \
Parquet file (...). ...
    """
    import pyarrow

    try:
        return pd.read_parquet(path, **kwargs)
    except FileNotFoundError:
        raise
    except (pyarrow.ArrowException, OSError, ValueError) as err:
        raise UnreadableFileError(
            f"cannot read {path}: it is not a complete Parquet file ({err}). It was probably "
            "cut short (a full disk, a copy stopped midway) or replaced by hand. Delete it "
            f"(`rm {path}`) and rerun the same command: the workflow rebuilds it"
        ) from None


def drop_timing(df: pd.DataFrame) -> pd.DataFrame:
    """The table without its wall-clock columns: names ending in ``_seconds`` or starting
    with ``speedup`` (what must be identical across runs).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame(columns=["width", "fit_seconds", "speedup_vs_full"])
    >>> list(drop_timing(df).columns)
    ['width']
    """
    return df[
        [
            c
            for c in df.columns
            if not (str(c).endswith(TIMING_SUFFIX) or str(c).startswith(TIMING_PREFIXES))
        ]
    ]
