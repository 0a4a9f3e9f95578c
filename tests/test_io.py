"""Atomic result writers: permissions follow the umask as for a plain ``open``."""

import os

import pandas as pd
import pytest

from ensemble_repro.io import atomic_path, write_csv, write_json, write_text


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
