"""The example of docs/library.md runs on a bare install's API and gives sensible answers."""

import re
from pathlib import Path

import numpy as np

LIBRARY_DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def library_example() -> str:
    section = LIBRARY_DOC.read_text().split("## One example per paper", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the 'One example per paper' section holds one python block"
    return blocks[0]


def test_library_example_runs_and_its_numbers_make_sense():
    ns: dict = {}
    exec(compile(library_example(), str(LIBRARY_DOC), "exec"), ns)  # noqa: S102 - our own docs
    assert ns["bounds"].shape == (111, 2)  # a quarter of the 442 diabetes rows
    assert 0.75 <= ns["covered"] <= 1.0  # 90% intervals on 111 test rows
    assert set(np.unique(ns["labels"])) <= set(ns["gbt"].classes_)
    assert ns["changed"] < 0.05 and 1 <= ns["trees"] < 100
    best, found, sa, p, t = (ns[k] for k in ("best", "found", "sa", "p", "t"))
    assert t[best.members].sum() <= 4.0
    assert found.accuracy <= best.accuracy + 1e-12 and sa.accuracy <= best.accuracy + 1e-12
