"""A paper is one folder that plugs in: the loader (built-in papers found, plug-ins named by
the config and checked before their code runs), each paper's config checks, and the toy
fourth paper of ``tests/papers/toy`` run through the workflow, its estimate, its verdicts and
a record."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from workflow_helpers import REPO, SMOKE, run_snakemake

from ensemble_repro import paper_loader
from ensemble_repro.config import ConfigError, load_config, validate_config, with_papers
from ensemble_repro.record import files

TOY = REPO / "tests" / "papers" / "toy"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
#: The overlay that plugs the toy in and switches the three built-in papers off.
TOY_ONLY = "experiments: {{jab: false, qwyc: false, knapsack: false}}\nplugins: [{toy}]\n"


@pytest.fixture
def registry():
    """The built-in papers again after the test (it may register plug-ins)."""
    yield paper_loader.PAPERS
    paper_loader.use_plugins([])
    for name in [m for m in sys.modules if m.startswith(paper_loader.PLUGIN_NAMESPACE + ".")]:
        del sys.modules[name]


def _copy_toy(tmp_path: Path, name: str = "toy_copy") -> Path:
    folder = tmp_path / name
    shutil.copytree(TOY, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_built_in_papers_are_found_in_report_order_and_listed_nowhere():
    assert list(paper_loader.PAPERS)[:3] == ["jab", "qwyc", "knapsack"]
    assert [p.order for p in paper_loader.PAPERS.values()][:3] == [1, 2, 3]
    init = (REPO / "src" / "ensemble_repro" / "papers" / "__init__.py").read_text()
    assert "import" not in init


def test_a_plugin_is_registered_after_the_built_in_papers_with_its_defaults(registry, tmp_path):
    config = with_papers({**load_config(SMOKE), "plugins": [str(_copy_toy(tmp_path))]})
    assert list(registry) == ["jab", "qwyc", "knapsack", "toy"]
    assert config["toy"] == {"n_draws": 200}
    assert config["experiments"]["toy"] is True
    assert "toy.mean_zero" in paper_loader.CLAIMS
    assert os.environ[paper_loader.PLUGINS_ENV] == f'["{tmp_path / "toy_copy"}"]'
    validate_config(config, SCHEMA)


def test_a_plugins_schema_fragment_and_checks_apply(registry, tmp_path):
    config = with_papers({**load_config(SMOKE), "plugins": [str(_copy_toy(tmp_path))]})
    bad = {**config, "toy": {"n_draws": 1, "n_drwas": 3}}
    with pytest.raises(ConfigError, match=r"unknown config key 'toy.n_drwas' \(did you mean"):
        validate_config(bad, SCHEMA)
    with pytest.raises(
        ConfigError, match=r"config value toy.n_draws = 1 gives no t interval of the mean"
    ):
        validate_config({**config, "toy": {"n_draws": 1}}, SCHEMA)


def test_nothing_switched_on_names_every_paper_plugged_in(registry, tmp_path):
    config = with_papers({**load_config(SMOKE), "plugins": [str(_copy_toy(tmp_path))]})
    config["experiments"] = dict.fromkeys(config["experiments"], False)
    with pytest.raises(ConfigError) as err:
        validate_config(config, SCHEMA)
    assert (
        "nothing is switched on: experiments.jab, experiments.qwyc, experiments.knapsack and "
        "experiments.toy are all false, so the run would build nothing. Set at least one of "
        "them to true (e.g. 'experiments: {jab: true, qwyc: false, knapsack: false, toy: "
        "false}')"
    ) in str(err.value)


def test_a_plugins_record_cells_are_published_and_restored(registry, tmp_path):
    """The record's file patterns follow the papers in use: a plug-in registered after
    ``ensemble_repro.record`` was imported has its cells published, restored and verified."""
    folder = _copy_toy(tmp_path)
    (folder / "cells.py").write_text(
        "from ensemble_repro.papers.paper import RecordCells\n"
        "RECORD_CELLS = RecordCells(folder='toy/cells/', suffix='.parquet',\n"
        "    rules=((r'toy/cells/(?P<toy_part>[^/]+)', 'toy_cell'),),\n"
        "    in_config=lambda rule, wildcards, config: True, data_wildcard='toy_part',\n"
        "    label='toy cell')\n"
    )
    init = folder / "__init__.py"
    init.write_text(
        init.read_text()
        .replace("from . import declared", "from . import cells, declared")
        .replace(
            '    config_schema="schema.yaml",\n',
            '    config_schema="schema.yaml",\n    cells=cells,\n',
        )
    )
    assert "toy/cells/**/*.parquet" not in files.PUBLISHED_PATTERNS
    paper_loader.use_plugins([folder])
    for patterns in (files.CELL_PATTERNS, files.PUBLISHED_PATTERNS, files.RESTORED_PATTERNS):
        assert "toy/cells/**/*.parquet" in patterns
    assert files.cells_of("toy/cells/a.parquet").label == "toy cell"
    assert files.cells_of("toy/cells/a.parquet").job("toy/cells/a.parquet") == (
        "toy_cell",
        {"toy_part": "a"},
    )


def test_a_group_writable_plugin_file_is_refused_before_it_runs(registry, tmp_path):
    folder = _copy_toy(tmp_path)
    (folder / "cost.py").chmod(0o664)
    with pytest.raises(paper_loader.PaperError) as err:
        paper_loader.use_plugins([folder])
    assert str(err.value) == (
        f"plug-in path {folder / 'cost.py'} (mode -rw-rw-r--) can be written by other users "
        f"than its owner, so its code is not run. Remove their write access: "
        f"`chmod -R go-w {folder / 'cost.py'}`"
    )
    assert f"{paper_loader.PLUGIN_NAMESPACE}.toy_copy" not in sys.modules


def test_a_plugin_file_linked_to_a_world_writable_file_is_refused(registry, tmp_path):
    folder = _copy_toy(tmp_path)
    outside = tmp_path / "outside.py"
    outside.write_text("COSTS = {}\n")
    outside.chmod(0o666)
    (folder / "cost.py").unlink()
    (folder / "cost.py").symlink_to(outside)
    with pytest.raises(paper_loader.PaperError, match=r"cost.py \(mode -rw-rw-rw-\) can be"):
        paper_loader.use_plugins([folder])


@pytest.mark.skipif(os.getuid() != 0, reason="only root can give a file to another user")
def test_a_plugin_folder_of_another_user_is_refused(registry, tmp_path):
    folder = _copy_toy(tmp_path)
    os.chown(folder, 65534, -1)
    with pytest.raises(paper_loader.PaperError, match=r"belongs to user id 65534, not to you"):
        paper_loader.use_plugins([folder])


def test_a_plugin_without_paper_is_refused(registry, tmp_path):
    folder = tmp_path / "empty_paper"
    folder.mkdir()
    (folder / "__init__.py").write_text('"""Declares nothing."""\n')
    with pytest.raises(paper_loader.PaperError) as err:
        paper_loader.use_plugins([folder])
    assert str(err.value).startswith(
        f"plug-in {folder / '__init__.py'} defines no PAPER (found NoneType)"
    )


def test_a_plugin_reusing_a_paper_key_is_refused(registry, tmp_path):
    folder = _copy_toy(tmp_path, "second_jab")
    init = folder / "__init__.py"
    init.write_text(init.read_text().replace('"toy",\n', '"jab",\n', 1))
    with pytest.raises(paper_loader.PaperError) as err:
        paper_loader.use_plugins([folder])
    assert str(err.value).startswith(
        f"two papers have the key 'jab': the package ensemble_repro.papers.jab and the "
        f"plug-in {folder}."
    )
    assert list(registry) == ["jab", "qwyc", "knapsack"]


def test_a_missing_plugin_folder_is_named(registry, tmp_path):
    with pytest.raises(ConfigError, match=r"plug-in folder .*nowhere \(config key plugins\) does"):
        with_papers({**load_config(SMOKE), "plugins": [str(tmp_path / "nowhere")]})


@pytest.mark.workflow
def test_a_fourth_paper_is_one_folder(tmp_path):
    """The toy paper, registered by an overlay alone, runs through the DAG, the start-of-run
    estimate, the claims table, the verdict pages and forest plot, a record and its check."""
    shared = [REPO / p for p in ("Snakefile", "Makefile", "src", "workflow", "config")]
    naming = subprocess.run(
        ["grep", "-rlw", "--exclude-dir=__pycache__", "toy", *map(str, shared)],
        capture_output=True,
        text=True,
    ).stdout.split()
    assert naming == [], f"shared files name the toy paper: {naming}"

    overlay = tmp_path / "toy.yaml"
    overlay.write_text(TOY_ONLY.format(toy=TOY))
    work = tmp_path / "run"
    dry = run_snakemake(work, "-n", "--configfile", str(SMOKE), str(overlay))
    assert dry.returncode == 0, dry.stdout
    for rule in ("toy_experiment", "toy_claims", "verdict_forest", "paper_vs_ours"):
        assert f"rule {rule}:" in dry.stdout, dry.stdout
    assert "rule jab_" not in dry.stdout
    assert f"cost estimate (config/smoke.yaml, {overlay}): toy 2 jobs" in dry.stdout, dry.stdout

    done = run_snakemake(work, "--configfile", str(SMOKE), str(overlay))
    assert done.returncode == 0, done.stdout
    claims = pd.read_csv(work / "results" / "claims.csv")
    assert claims[["paper", "claim_id", "verdict"]].values.tolist() == [
        ["toy", "toy.mean_zero", "reproduced"]
    ]
    page = (work / "results" / "paper_vs_ours.md").read_text()
    assert "## A toy paper (the plug-in example)" in page
    assert "![Forest plot of the A toy paper" in page
    assert (work / "results" / "figures" / "forest_toy.png").stat().st_size > 0

    record = tmp_path / "record"
    python = [sys.executable, "-m"]
    config = ["--configfile", str(SMOKE), str(overlay)]
    publish = subprocess.run(
        [*python, "ensemble_repro.record", "publish", "results", str(record), *config]
        + ["--slice", "toy", "--cores", "2"],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert publish.returncode == 0, publish.stdout + publish.stderr
    assert (record / "toy" / "draws.csv").is_file()
    verify = subprocess.run(
        [*python, "ensemble_repro.verify", "results", str(record)],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "identical    toy/draws.csv  (200 rows)" in verify.stdout
    assert "identical    toy/claims.csv  (1 rows)" in verify.stdout
