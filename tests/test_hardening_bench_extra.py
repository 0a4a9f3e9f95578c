"""``pip install -e ".[bench]"`` is enough to run benchmarks/jab_overhead.py: the script runs
its J+ensemble / J+aB timing on a tiny synthetic set (which writes and reads a Parquet table)
with every package of the workflow extra blocked unless the core dependencies or the bench
extra list it."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Import names of distributions whose import name differs.
MODULE = {"pyyaml": "yaml", "scikit-learn": "sklearn"}

BLOCKER = """
import importlib.abc, runpy, sys
blocked = set(sys.argv[1].split(","))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in blocked:
            raise ImportError(f"{name} is not installed by the bench extra")
sys.meta_path.insert(0, Block())
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


#: Part 2 only (the timing that writes the data set to Parquet), as small as it goes.
TINY = ["--skip-overhead", "--skip-mapie", "--sizes", "40", "--learners", "ridge", "--trials", "1"]


def _modules(requirements):
    names = {re.split(r"[<>=\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}
    return {MODULE.get(n, n.replace("-", "_")) for n in names if not n.startswith("ensemble")}


def test_bench_extra_suffices_for_jab_overhead():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    allowed = _modules(project["dependencies"]) | _modules(extras["bench"])
    # the workflow extra with the extras it pulls in (pipeline, plots)
    workflow = _modules(extras["workflow"]) | _modules(extras["pipeline"] + extras["plots"])
    blocked = workflow - allowed
    assert "pandas" in workflow  # the check blocks something real
    run = subprocess.run(
        [sys.executable, "-c", BLOCKER, ",".join(sorted(blocked)), "benchmarks/jab_overhead.py"]
        + TINY,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "J+ensemble / J+aB time, n = 40" in run.stdout
