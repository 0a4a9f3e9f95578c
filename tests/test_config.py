"""The config schema and its messages (issue 2: at least five kinds of bad values)."""

import copy
from pathlib import Path

import pytest
import yaml

from ensemble_repro.config import ConfigError, validate_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def load(name="config.yaml"):
    return yaml.safe_load((REPO / "config" / name).read_text())


@pytest.mark.parametrize("name", ["config.yaml", "quick.yaml", "smoke.yaml"])
def test_shipped_configs_are_valid(name):
    validate_config(load(name), SCHEMA, source=name)


def _set(cfg, dotted, value):
    *parents, last = dotted.split(".")
    node = cfg
    for p in parents:
        node = node[p]
    node[last] = value


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("jab.alpha", 1.5, ["jab.alpha = 1.5", "strictly between 0 and 1"]),
        ("jab.alpha", 0, ["jab.alpha = 0"]),
        ("jab.n_trials", -3, ["jab.n_trials = -3", "positive number of trials"]),
        ("jab.main.n", 1, ["jab.main.n = 1", "n, an integer >= 2"]),
        ("jab.datasets", ["communities", "boston"], ["jab.datasets.1 = 'boston'", "meps, blog, communities"]),
        ("seed", "abc", ["seed = 'abc'", "non-negative integer"]),
        ("data.sources", ["mirror", "ftp"], ["data.sources.1 = 'ftp'"]),
        ("data.base_url", "127.0.0.1:8000", ["data.base_url", "http(s)://"]),
        ("qwyc.alpha_grid", [0.0, 1.0], ["qwyc.alpha_grid.1 = 1.0", "[0, 1)"]),
        ("knapsack.budgets", [0.0], ["knapsack.budgets.0 = 0.0", "(0, 1]"]),
        ("jab.timing_m_ratio", 0.5, ["jab.timing_m_ratio = 0.5", "main.m_ratios"]),
    ],
)
def test_bad_values_are_named(key, value, expected):
    cfg = load()
    _set(cfg, key, value)
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, SCHEMA, source="my.yaml")
    msg = str(err.value)
    for part in expected:
        assert part in msg, msg
    assert "my.yaml" in msg


def test_misspelled_key_suggests_the_right_one():
    cfg = load()
    cfg["jab"]["n_trails"] = cfg["jab"].pop("n_trials")
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, SCHEMA, source="my.yaml")
    msg = str(err.value)
    assert "unknown config key 'jab.n_trails' (did you mean 'jab.n_trials'?)" in msg
    assert "config key 'n_trials' is missing under jab" in msg


def test_every_violation_is_listed():
    cfg = copy.deepcopy(load())
    cfg["jab"]["alpha"] = 2
    cfg["knapsack"]["n_seeds"] = 0
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, SCHEMA)
    assert "jab.alpha" in str(err.value) and "knapsack.n_seeds" in str(err.value)
