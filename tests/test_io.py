"""Atomic result writers: permissions follow the umask as for a plain ``open``."""

import os

import pandas as pd
import pytest

from ensemble_repro.io import atomic_path, markdown_table, write_csv, write_json, write_text


@pytest.fixture
def umask():
    """Set the process umask for one test and restore it afterwards."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
@pytest.mark.parametrize("writer", ["text", "json", "csv"])
def test_result_files_honour_the_umask(tmp_path, umask, mask, mode, writer):
    umask(mask)
    out = tmp_path / f"result.{writer}"
    if writer == "text":
        write_text(out, "x\n")
    elif writer == "json":
        write_json(out, {"a": 1})
    else:
        write_csv(pd.DataFrame({"a": [1]}), out)
    plain = tmp_path / "plain"
    plain.write_text("x")
    assert oct(out.stat().st_mode & 0o777) == oct(mode) == oct(plain.stat().st_mode & 0o777)


def test_failed_write_leaves_nothing(tmp_path):
    out = tmp_path / "t.txt"
    with pytest.raises(RuntimeError), atomic_path(out) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []


def _cells(md: str) -> list[list[str]]:
    """The cells of a Markdown table's rows (the separator row left out), stripped."""
    rows = [line for line in md.splitlines() if line.startswith("|")]
    return [[c.strip() for c in r.strip("|").split("|")] for i, r in enumerate(rows) if i != 1]


def test_markdown_tables_hold_the_cells_pandas_to_markdown_gives():
    """The project's writer (no tabulate at run time) against pandas' own, cell for cell."""
    import numpy as np

    df = pd.DataFrame(
        {
            "method": ["J+aB", "J+ensemble", "x"],
            "coverage": [0.90123, np.nan, 1.0],
            "n": [3, 40000, -1],
            "seconds": [123456.7, 1e-7, 0.5],
            "fixed": [True, False, True],
        }
    )
    oracle = df.to_markdown(index=False, tablefmt="github", floatfmt=".4g")
    assert _cells(markdown_table(df)) == _cells(oracle)


def test_markdown_cells_with_line_breaks_or_pipes_keep_one_line_per_row():
    df = pd.DataFrame({"rule a | b": ["two\nlines", "x|y"], "v": [1, 2]})
    lines = markdown_table(df).splitlines()
    assert lines == [
        "| rule a \\| b | v |",
        "|---|---|",
        "| two lines | 1 |",
        "| x\\|y | 2 |",
    ]
