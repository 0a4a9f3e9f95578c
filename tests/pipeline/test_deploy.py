"""Deploying the workflow the catalog's way: workflow/Snakefile, module use from a directory that
holds only its config, the per-rule conda environments and the container image definition."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from workflow_helpers import REPO, SMOKE, run, run_snakemake, workflow_env

RULES = REPO / "workflow" / "rules"
ENV_NAMES = {"LIB_ENV": "library", "REPORT_ENV": "report"}
# conda-forge's names where they differ from PyPI's
CONDA_NAME = {"matplotlib": "matplotlib-base"}


def _requirement_names(reqs) -> set[str]:
    names = {re.split(r"[<>=!~\[ ]", r, maxsplit=1)[0].lower() for r in reqs}
    return {CONDA_NAME.get(n, n) for n in names if n != "ensemble-repro"}


def _env_names(env: str) -> set[str]:
    spec = yaml.safe_load((REPO / "envs" / f"{env}.yaml").read_text())
    deps = [d for d in spec["dependencies"] if isinstance(d, str)]
    return {re.split(r"[<>=!~ ]", d, maxsplit=1)[0].lower() for d in deps} - {"python", "pip"}


def _rule_envs() -> dict[str, tuple[str, str]]:
    """Rule name -> (its conda environment constant, its script path) over workflow/rules."""
    out = {}
    for smk in sorted(RULES.glob("*.smk")):
        text = smk.read_text()
        for m in re.finditer(r"^rule (\w+):(.*?)(?=^rule |\Z)", text, re.S | re.M):
            env = re.search(r"conda:\s*\n\s*(\w+)", m.group(2))
            script = re.search(r'script:\s*\n\s*"([^"]+)"', m.group(2))
            if script:
                out[m.group(1)] = (env.group(1) if env else "", script.group(1))
    return out


def test_the_environments_hold_what_pyproject_asks_and_only_the_report_one_plots():
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = meta["optional-dependencies"]
    library = _requirement_names(meta["dependencies"]) | _requirement_names(extras["pipeline"])
    assert _env_names("library") == library
    assert _env_names("report") == library | _requirement_names(extras["plots"])
    assert "matplotlib-base" not in _env_names("library")


def test_every_rule_names_an_environment_and_library_jobs_import_without_matplotlib():
    rules = _rule_envs()
    assert {env for env, _ in rules.values()} == set(ENV_NAMES), rules
    modules = set()
    for env, script in rules.values():
        if env == "LIB_ENV":
            tree = ast.parse((RULES / script).resolve().read_text())
            modules |= {
                n.module
                for n in ast.walk(tree)
                if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("ensemble_repro")
            }
    # an environment without matplotlib: importing it fails as it would there
    code = "import sys; sys.modules['matplotlib'] = None\n" + "".join(
        f"import {m}\n" for m in sorted(modules)
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_image_installs_the_workflow_extra_of_this_checkout():
    text = (REPO / "Dockerfile").read_text()
    base = re.search(r"^FROM python:(\d+\.\d+)", text, re.M)
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    low = re.search(r">=(\d+\.\d+)", meta["requires-python"]).group(1)
    assert base and tuple(map(int, base.group(1).split("."))) >= tuple(map(int, low.split(".")))
    assert re.search(r'pip install [^\n]*"/opt/ensemble-repro\[workflow\]"', text)
    # the config guard, without which the workflow refuses to run
    assert "import ensemble_repro.snakemake_guard as g; g.install()" in text
    copied = set(re.findall(r"^COPY (.+) /opt/ensemble-repro", text, re.M))
    assert {"pyproject.toml README.md LICENSE", "src"} <= copied


MODULE_SNAKEFILE = """\
configfile: "config/config.yaml"


module ensemble_repro:
    snakefile:
        "{workflow}"
    config:
        config


use rule * from ensemble_repro
"""


def _jobs(out: str) -> int:
    found = re.search(r"^total\s+(\d+)$", out, re.M)
    assert found, out[-3000:]
    return int(found.group(1))


@pytest.mark.workflow
def test_a_directory_holding_only_its_config_uses_the_workflow_as_a_module(tmp_path, smoke_cores2):
    deploy = tmp_path / "deploy"
    (deploy / "config").mkdir(parents=True)
    (deploy / "config" / "config.yaml").write_bytes((REPO / "config" / "config.yaml").read_bytes())
    (deploy / "Snakefile").write_text(
        MODULE_SNAKEFILE.format(workflow=REPO / "workflow" / "Snakefile")
    )
    env = workflow_env()
    snakemake = [sys.executable, "-m", "snakemake"]
    # targets before --configfile, which takes every word after it as a config file
    opts = ["--cores", "1", "--configfile", str(SMOKE)]
    direct = run_snakemake(tmp_path / "direct", "-n")
    catalog = run(
        [*snakemake, "-n", "--snakefile", str(REPO / "workflow" / "Snakefile"), *opts],
        env,
        cwd=deploy,
    )
    module = run([*snakemake, "-n", *opts], env, cwd=deploy)
    assert _jobs(module.stdout) == _jobs(catalog.stdout) == _jobs(direct.stdout), module.stdout[
        -3000:
    ]
    # a real job run through the module gives the smoke run's bytes
    target = "results/data/communities.parquet"
    done = run([*snakemake, target, *opts], env, cwd=deploy)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (deploy / target).read_bytes() == (smoke_cores2 / target).read_bytes()
    assert sorted(p.name for p in deploy.iterdir() if not p.name.startswith(".")) == [
        "Snakefile",
        "config",
        "resources",
        "results",
    ]


@pytest.mark.workflow
def test_without_the_package_the_workflow_says_how_to_install_it(tmp_path):
    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text("import sys\nsys.modules['ensemble_repro'] = None\n")
    env = workflow_env()
    env["PYTHONPATH"] = str(block)
    # a new interpreter (the test server's preloaded one has the package imported)
    snakemake = str(Path(sys.executable).parent / "snakemake")
    proc = run([snakemake, "-n", "--snakefile", str(REPO / "Snakefile")], env, cwd=tmp_path)
    assert proc.returncode != 0
    assert "needs the ensemble-repro package" in proc.stdout, proc.stdout[-2000:]
    assert f"pip install '{REPO}[workflow]'" in proc.stdout
