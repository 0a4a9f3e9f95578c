"""The config schema and its messages for bad values."""

import copy
from pathlib import Path

import pytest
from workflow_helpers import merged_config

from ensemble_repro.config import ConfigError, load_yaml_file, main, validate_config

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def load(name="config.yaml"):
    """A shipped config as a run reads it: config/config.yaml with ``name`` merged on top."""
    return merged_config(REPO / "config" / name)


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
        (
            "jab.datasets",
            ["communities", "boston"],
            ["jab.datasets.1 = 'boston'", "meps, blog, communities"],
        ),
        ("seed", "abc", ["seed = 'abc'", "non-negative integer"]),
        ("data.sources", ["mirror", "ftp"], ["data.sources.1 = 'ftp'"]),
        ("data.base_url", "127.0.0.1:8000", ["data.base_url", "http(s)://"]),
        ("qwyc.alpha_grid", [0.0, 1.0], ["qwyc.alpha_grid.1 = 1.0", "[0, 1)"]),
        ("knapsack.budget_multiples", [0.0], ["knapsack.budget_multiples.0 = 0.0", "positive"]),
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


def _error(cfg, **kwargs):
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, SCHEMA, **{"source": "my.yaml", **kwargs})
    return str(err.value)


# Values a type check alone lets through but that would crash inside jobs (or give silently
# wrong tables): each is stopped at start with the key, the value and the fix.
@pytest.mark.parametrize(
    "key, value, expected",
    [
        (
            "jab.alpha",
            float("nan"),
            [
                "jab.alpha = nan is not a finite number",
                "strictly between 0 and 1",
                "Fix it in my.yaml",
            ],
        ),
        ("data.timeout_seconds", float("inf"), ["data.timeout_seconds = inf is not a finite"]),
        (
            "jab.main.n",
            2000,
            [
                "jab.main.n = 2000 is too large for the data set communities",
                "1994 rows",
                "n <= 1993",
                "remove communities from jab.datasets",
            ],
        ),
        ("jab.fixed_vs_random.n", 1994, ["jab.fixed_vs_random.n = 1994", "communities"]),
        ("seed", 2**32, ["seed = 4294967296", "up to 2**32 - 1"]),
        ("seed", -1, ["seed = -1", "non-negative integer"]),
        (
            "jab.trial_seed_base",
            2**32 - 5,
            ["trial_seed_base + n_trials - 1 = 4294967300", "Lower jab.trial_seed_base"],
        ),
        (
            "jab.main.m_ratios",
            [0.2, 0.6, 0.2],
            [
                "jab.main.m_ratios = [0.2, 0.6, 0.2] repeats",
                "0.2 appears twice (entries 0 and 2)",
                "Remove the repeated entry",
            ],
        ),
        ("knapsack.budget_multiples", [3, 3], ["knapsack.budget_multiples", "3 appears twice"]),
        ("qwyc.alpha_grid", [0.0, 0.01, 0.01], ["qwyc.alpha_grid", "0.01 appears twice"]),
        ("qwyc.smaller_ensembles", [10, 20, 10], ["qwyc.smaller_ensembles", "10 appears twice"]),
        ("knapsack.stop_rules", ["tail@0.05", "tail@0.05"], ["knapsack.stop_rules"]),
        ("knapsack.adversarial.checkpoints", [10, 10], ["knapsack.adversarial.checkpoints"]),
        (
            "qwyc.smaller_ensembles",
            [10, 600],
            ["qwyc.smaller_ensembles.1 = 600 is larger than", "T = qwyc.gbt.n_estimators = 500"],
        ),
        ("qwyc.nomao_n_features", 200, ["qwyc.nomao_n_features = 200", "118 features"]),
        (
            "knapsack.split",
            {"select": 0.5, "test": 0.5},
            ["knapsack.split.select = 0.5 and knapsack.split.test = 0.5 add up to 1"],
        ),
    ],
)
def test_values_that_used_to_crash_inside_jobs(key, value, expected):
    cfg = load()
    _set(cfg, key, value)
    msg = _error(cfg)
    for part in expected:
        assert part in msg, msg
    assert msg.count("\n  - ") == 1, msg


def test_nothing_switched_on_stops_at_start():
    cfg = load()
    cfg["experiments"] = {"jab": False, "qwyc": False, "knapsack": False}
    msg = _error(cfg)
    for part in (
        "nothing is switched on",
        "all false",
        "Set at least one of them to true",
        "Fix it in my.yaml",
    ):
        assert part in msg, msg


def test_smoke_sized_n_fits_every_data_set():
    cfg = load()
    cfg["jab"]["main"]["n"] = 1993
    cfg["jab"]["fixed_vs_random"]["n"] = 1993
    validate_config(cfg, SCHEMA)
    cfg["jab"]["fixed_vs_random"]["enabled"] = False
    cfg["jab"]["fixed_vs_random"]["n"] = 5000  # a switched-off grid is not checked
    validate_config(cfg, SCHEMA)


def test_error_is_blamed_on_the_layer_that_set_the_key():
    """An override given with --config is named as such, with the overlay-file hint."""
    base = load()
    cli = {"jab": {"n_trials": "3"}}  # what Snakemake makes of --config 'jab={"n_trials": 3}'
    overlay = {"qwyc": {"alpha_grid": [0.1, 0.1]}}
    cfg = copy.deepcopy(base)
    cfg["jab"]["n_trials"] = "3"
    cfg["qwyc"]["alpha_grid"] = [0.1, 0.1]
    layers = [
        ("config/config.yaml", base),
        ("over.yaml", overlay),
        ("the command line (--config)", cli),
    ]
    msg = _error(cfg, source="config/config.yaml", layers=layers)
    lines = msg.splitlines()
    (n_trials,) = [line for line in lines if "jab.n_trials" in line]
    assert n_trials.endswith("Fix it on the command line (--config)."), msg
    (alpha,) = [line for line in lines if "qwyc.alpha_grid" in line]
    assert alpha.endswith("Fix it in over.yaml."), msg
    assert "put nested overrides in an overlay config file" in lines[-1], msg
    assert "--configfile config/config.yaml my-overlay.yaml" in lines[-1], msg
    # Without a command-line culprit there is no hint.
    del cfg["jab"]["n_trials"]
    cfg["jab"]["n_trials"] = 3
    assert "overlay config file" not in _error(cfg, layers=layers)


def test_a_missing_key_is_blamed_on_the_base_config_not_on_the_mirror_variable():
    """A key no layer sets belongs in the base config, whatever layer comes last."""
    cfg = {"seed": 0, "data": {"mirror": "/m"}}
    layers = [
        ("config/config.yaml", {"seed": 0}),
        ("the environment variable ENSEMBLE_REPRO_MIRROR", {"data": {"mirror": ""}}),
    ]
    lines = _error(cfg, source=layers[-1][0], layers=layers).splitlines()[1:]
    missing = [line for line in lines if "is missing" in line]
    assert any("'jab' is missing under <top level>" in line for line in missing), lines
    assert any("'base_url' is missing under data" in line for line in missing), lines
    assert all(line.endswith("Fix it in config/config.yaml.") for line in missing), lines


def test_check_config_says_so_when_the_config_is_valid(capsys):
    assert main(["config/smoke.yaml"]) == 0
    assert capsys.readouterr().out == (
        "config OK: config/config.yaml + config/smoke.yaml (schema and cross-field rules)\n"
    )


def test_yaml_syntax_error_names_file_line_and_column(tmp_path):
    bad = tmp_path / "my.yaml"
    bad.write_text("seed: 1\njab:\n  alpha: [0.1\n  n_trials: 3\n")
    with pytest.raises(ConfigError) as err:
        load_yaml_file(bad)
    msg = str(err.value)
    assert msg.startswith(f"config file {bad} is not valid YAML: line 4, column 11:"), msg
    assert "flow sequence on line 3" in msg and "  n_trials: 3\n" in msg, msg


def test_command_line_checker(tmp_path, capsys):
    overlay = tmp_path / "over.yaml"
    overlay.write_text("jab:\n  n_trials: 0\n")
    base = str(REPO / "config" / "config.yaml")
    assert main([base, str(overlay), "--schema", str(SCHEMA)]) == 1
    assert "jab.n_trials = 0 is invalid" in capsys.readouterr().err
    overlay.write_text("jab:\n  n_trials: 3\n")
    assert main([base, str(overlay), "--schema", str(SCHEMA)]) == 0
    # config/config.yaml is the base whether it is named or not
    assert main([str(overlay), "--schema", str(SCHEMA)]) == 0
    overlay.write_text("jab:\n  n_trials: 0\n")
    assert main([str(overlay), "--schema", str(SCHEMA)]) == 1
    assert f"Fix it in {overlay}." in capsys.readouterr().err


def test_unknown_key_in_a_grid_section_names_the_keys_allowed_there(tmp_path, capsys):
    """jab.main and jab.fixed_vs_random share one schema ($ref): its keys are the ones listed."""
    overlay = tmp_path / "over.yaml"
    overlay.write_text("jab:\n  main: {nn: 30}\n")
    assert main([str(overlay), "--schema", str(SCHEMA)]) == 1
    err = capsys.readouterr().err
    assert "unknown config key 'jab.main.nn' (did you mean 'jab.main.n'?)" in err, err
    assert "Allowed keys here: enabled, m_ratios, n, n_resamples." in err, err
    assert f"Fix it in {overlay}." in err, err
