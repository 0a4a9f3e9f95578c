"""The config schema's per-paper value lists agree with the records in the papers' packages:
a J+aB data set (its table of the paper, its label) and a QWYC sensitivity setting (the
switches it overrides) are declared there, and the schema's enums and prose follow them."""

import re

import yaml
from workflow_helpers import REPO

from ensemble_repro.papers.jab.names import JAB_TABLES
from ensemble_repro.papers.jab.report import DATASET_LABEL
from ensemble_repro.papers.qwyc.cells import LR_SETTING, SENSITIVITY

SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())


def _section(paper: str, key: str) -> dict:
    return SCHEMA["properties"][paper]["properties"][key]


def test_jab_data_sets_of_the_schema_are_the_papers_records():
    node = _section("jab", "datasets")
    assert node["items"]["enum"] == list(JAB_TABLES) == list(DATASET_LABEL)
    assert node["description"].endswith("a list drawn from " + ", ".join(JAB_TABLES))


def test_qwyc_sensitivity_settings_of_the_schema_are_the_papers_records():
    node = _section("qwyc", "sensitivity")
    named, pattern = node["items"]["anyOf"]
    assert named["enum"] == list(SENSITIVITY)
    assert pattern["pattern"].startswith(f"^{LR_SETTING}(")
    assert re.fullmatch(pattern["pattern"], f"{LR_SETTING}0.05")
    assert f"drawn from {', '.join(SENSITIVITY)}, {LR_SETTING}<r>" in node["description"]
