"""Atomic result writers: permissions follow the umask as for a plain ``open``."""

import os

import pandas as pd
import pytest
from workflow_helpers import smoke_config

from ensemble_repro.data import recipes
from ensemble_repro.io import (
    UnreadableFileError,
    atomic_path,
    markdown_table,
    read_parquet,
    write_csv,
    write_json,
    write_parquet,
    write_text,
)
from ensemble_repro.papers.jab import report as jab_report
from ensemble_repro.papers.knapsack import cells as knapsack
from ensemble_repro.papers.qwyc import cells as qwyc
from ensemble_repro.papers.qwyc import claims as qwyc_claims


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


# ----------------------------------------------------------------------
# A damaged result file is named, with the fix, wherever it is read back.
# ----------------------------------------------------------------------
@pytest.fixture
def cells(tmp_path):
    df = pd.DataFrame({"dataset": ["blog"] * 3, "trial": [0, 1, 2], "width": [1.0, 2.0, 3.0]})
    good, bad = tmp_path / "good.parquet", tmp_path / "cut.parquet"
    write_parquet(df, good)
    write_parquet(df, bad)
    bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])  # cut short
    return df, good, bad


def test_read_parquet_names_a_truncated_file(cells):
    df, good, bad = cells
    pd.testing.assert_frame_equal(read_parquet(good), df)
    with pytest.raises(UnreadableFileError) as err:
        read_parquet(bad)
    msg = str(err.value)
    assert msg.startswith(f"cannot read {bad}: it is not a complete Parquet file")
    assert f"`rm {bad}`" in msg and "the workflow rebuilds it" in msg
    with pytest.raises(FileNotFoundError):
        read_parquet(bad.with_name("missing.parquet"))


def test_collector_names_the_truncated_cell(cells):
    _, good, bad = cells
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}"):
        jab_report._read_all([good, bad])


def test_prepared_data_names_the_truncated_file(cells, tmp_path):
    _, _, bad = cells
    (tmp_path / "data").mkdir()
    bad.rename(tmp_path / "data" / "blog.parquet")
    with pytest.raises(UnreadableFileError, match=r"cannot read .*data/blog.parquet"):
        recipes.load("blog", results_dir=str(tmp_path))


def test_qwyc_model_job_names_the_truncated_prepared_table(cells):
    _, good, bad = cells
    q = smoke_config()["qwyc"]
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}: .*`rm {bad}`"):
        qwyc.model_job("adult", q, 0, {"adult_train": bad, "adult_test": good})


def test_knapsack_selection_names_the_truncated_votes(cells, tmp_path):
    _, _, bad = cells
    pool = tmp_path / "pool.csv"
    pd.DataFrame({"member": ["a", "b", "c"], "p": [0.7, 0.8, 0.9], "flops": [1, 2, 3]}).to_csv(
        pool, index=False
    )
    cfg = smoke_config()["knapsack"]
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}: .*`rm {bad}`"):
        knapsack.select_pool("sonar", cfg, 0, pool_path=pool, votes_path=bad)


def test_qwyc_claims_name_the_truncated_rows_table(cells, tmp_path):
    _, _, bad = cells
    with pytest.raises(UnreadableFileError, match=rf"cannot read {bad}: .*`rm {bad}`"):
        qwyc_claims.write_claims(
            [bad], [], [], [], [], [], tmp_path / "c.csv", qwyc_cfg={}, scale="smoke"
        )
