"""The bare install (``pip install .``) is the library alone.

Builds a clean virtual environment from this checkout without extras (a real install with its
dependencies, the pip cache allowed), checks that the pipeline's packages are absent and that
every public name of the three packages resolves, and runs each paper's estimator or strategy
once on tiny data. Prints the environment's size and package
count. Marked slow: a minute or two (longer with an empty pip cache).
"""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from workflow_helpers import background, scratch_dir

import ensemble_repro.conformal as conformal
import ensemble_repro.knapsack as knapsack
import ensemble_repro.qwyc as qwyc

REPO = Path(__file__).resolve().parents[2]
#: Packages of the ``workflow`` extra (and its heavy dependencies) the bare install must not have.
PIPELINE_ONLY = [
    "snakemake",
    "snakemake_executor_plugin_slurm",
    "openml",
    "pandas",
    "pyarrow",
    "matplotlib",
    "yaml",
    "jsonschema",
]

SMOKE = textwrap.dedent("""
    import importlib.util, json
    import numpy as np
    from sklearn.datasets import make_classification, make_regression
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.linear_model import Ridge

    import ensemble_repro.conformal as conformal
    import ensemble_repro.knapsack as knapsack
    import ensemble_repro.qwyc as qwyc

    # every public name resolves (a lazy import of a pipeline package would fail here)
    exported = {m.__name__: sorted(n for n in m.__all__ if getattr(m, n, None) is not None)
                for m in (conformal, qwyc, knapsack)}

    X, y = make_regression(n_samples=60, n_features=4, noise=1.0, random_state=0)
    jab = conformal.JackknifePlusAfterBootstrap(Ridge(), n_resamples=10, random_state=0)
    bounds = jab.fit(X[:40], y[:40]).predict_interval(X[40:], alpha=0.2)
    assert bounds.shape == (20, 2) and np.all(bounds[:, 0] <= bounds[:, 1]), bounds

    Xc, yc = make_classification(n_samples=200, n_features=5, random_state=0)
    gbt = GradientBoostingClassifier(n_estimators=20, max_depth=2, random_state=0).fit(Xc, yc)
    base, F = qwyc.tree_scores(gbt, Xc)
    assert np.allclose(base + F.sum(axis=1), gbt.decision_function(Xc))
    early = qwyc.QuitWhenYouCan(alpha=0.0, estimator=gbt).fit(Xc)
    assert np.array_equal(early.predict(Xc), gbt.predict(Xc))

    p = np.array([0.9, 0.8, 0.75, 0.7, 0.6])
    t = np.array([5.0, 1.0, 1.0, 1.0, 1.0])
    best = knapsack.exhaustive(p, t, 3.0)
    assert sorted(best.members) == [1, 2, 3], best.members

    missing = [m for m in %r if importlib.util.find_spec(m) is not None]
    print(json.dumps({"exported": exported, "pipeline_packages_present": missing}))
""")


def _run(cmd, **kw):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    assert proc.returncode == 0, proc.stdout[-5000:]
    return proc.stdout


def _bare_install() -> tuple[Path, str]:
    """A new venv with the package installed bare (from a copy of what the sdist holds, so the
    checkout is not written to); returns it and the output of :data:`SMOKE` run in it."""
    root = scratch_dir("bare-install")
    src = root / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(REPO / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__"))
    venv = root / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    py = str(venv / "bin" / "python")
    _run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(src)])
    return venv, _run([py, "-c", SMOKE % PIPELINE_ONLY], cwd=root)


#: Started with the session (conftest.py) when the test below is selected.
BACKGROUND_RUNS = {"bare_install": _bare_install}


@pytest.fixture(scope="module")
def bare_install() -> tuple[Path, str]:
    return background("bare_install", _bare_install)


@pytest.mark.slow
def test_bare_install_is_the_library_without_the_pipeline(bare_install):
    venv, out = bare_install
    assert '"pipeline_packages_present": []' in out, out
    exported = json.loads(out.strip().splitlines()[-1])["exported"]
    assert exported == {m.__name__: sorted(m.__all__) for m in (conformal, qwyc, knapsack)}, out
    assert all(exported.values()), exported
    site = next(venv.glob("lib/python3*/site-packages"))
    assert (site / "ensemble_repro" / "py.typed").is_file()
    assert list(site.glob("ensemble_repro-*.dist-info/licenses/LICENSE")), list(site.iterdir())
    py = str(venv / "bin" / "python")
    packages = _run([py, "-m", "pip", "list", "--format=freeze"]).split()
    size = _run(["du", "-sm", str(venv)]).split()[0]
    print(f"bare install: {len(packages)} packages, {size} MB ({', '.join(packages)})")
