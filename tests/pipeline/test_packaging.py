"""Packaging and citation metadata: one version source, install commands that work,
CITATION.cff and CHANGELOG.md in step with the package."""

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

import ensemble_repro

REPO = Path(__file__).resolve().parents[2]
#: The papers the project reproduces: arXiv id -> title (as on arXiv, case aside).
PAPERS = {
    "2002.09025": "Predictive inference is free with the jackknife+-after-bootstrap",
    "1806.11202": "Quit When You Can: Efficient Evaluation of Ensembles with Ordering Optimization",
    "2004.08101": "A stochastic approach to handle knapsack problems in the creation of ensembles",
}


def test_version_is_written_once_and_read_by_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "ensemble_repro.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|rc\d+)?", ensemble_repro.__version__)
    assert importlib.metadata.version("ensemble-repro") == ensemble_repro.__version__


def test_docs_give_no_install_from_an_index_the_package_is_not_on():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    bad = [
        f"{p.relative_to(REPO)}:{i}"
        for p in pages
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"pip install\s+ensemble[-_]repro\b", line)
    ]
    assert bad == []
    install = (REPO / "docs" / "install.md").read_text()
    assert "pip install .  " in install and "make dist" in install


def test_citation_cff_cites_the_project_and_the_three_papers():
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["message"] and cff["title"].startswith("ensemble-repro") and cff["authors"]
    assert "version" not in cff or cff["version"] == ensemble_repro.__version__
    cited = {}
    for ref in cff["references"]:
        (arxiv,) = [i["value"] for i in ref["identifiers"] if i["value"].startswith("arXiv:")]
        arxiv = arxiv.removeprefix("arXiv:")
        assert ref["url"] == f"https://arxiv.org/abs/{arxiv}"
        assert ref["authors"] and ref["year"] in (2018, 2020)
        cited[arxiv] = ref["title"].lower()
    assert cited == {k: v.lower() for k, v in PAPERS.items()}
    readme = (REPO / "README.md").read_text().lower()
    for title in PAPERS.values():  # the README's table of the papers names the same titles
        assert title.lower().split(":")[0] in readme


def test_changelog_has_a_section_for_this_version():
    text = (REPO / "CHANGELOG.md").read_text()
    assert f"## [Unreleased] ({ensemble_repro.__version__})" in text or (
        f"## [{ensemble_repro.__version__}]" in text
    )
    assert "### Deprecated" in text and "fit(X, model=gbt)" in text


# ----------------------------------------------------------------------
# ``pip install -e ".[bench]"`` is enough to run benchmarks/jab_overhead.py: the script runs
# its J+ensemble / J+aB timing on a tiny synthetic set (which writes and reads a Parquet table)
# with every package of the workflow extra blocked unless the core dependencies or the bench
# extra list it.
# ----------------------------------------------------------------------

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
