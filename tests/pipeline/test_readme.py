"""The example of docs/library.md runs on a bare install's API and gives sensible answers."""

import re
from pathlib import Path

import numpy as np

LIBRARY_DOC = Path(__file__).resolve().parents[2] / "docs" / "library.md"


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


README = LIBRARY_DOC.parents[1] / "README.md"


def _first_screen() -> tuple[str, str]:
    """README.md's first code block and the text up to its first section."""
    head = README.read_text().split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", head, re.S)[0], head


def _cost_total_2_cores(config: str) -> str:
    from ensemble_repro.estimate import README_COST_BEGIN, README_COST_END

    table = README.read_text().split(README_COST_BEGIN)[1].split(README_COST_END)[0]
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[:2] == [config, "total"]:
            return cells[4]
    raise AssertionError(f"README cost table has no {config} total row")


def test_readme_first_screen_starts_with_quick_and_states_the_generated_costs():
    block, head = _first_screen()
    first, second = [line for line in block.splitlines() if line.strip()][:2]
    assert first.startswith("make reproduce CONFIG=config/quick.yaml")
    assert second.startswith("make test")
    assert f"about {_cost_total_2_cores('quick')} on 2 cores" in first
    rows = {
        "config/smoke.yaml": _cost_total_2_cores("smoke"),
        "config/quick.yaml": _cost_total_2_cores("quick"),
        "`make reproduce` |": _cost_total_2_cores("paper"),
    }
    for marker, cost in rows.items():
        line = next(x for x in head.splitlines() if x.startswith("|") and marker in x)
        assert cost in line, f"README first screen says {line!r}; the cost table says {cost}"
    assert "record/paper/" in head
