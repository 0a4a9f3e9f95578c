"""The config schema and its messages for bad values."""

import copy
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from workflow_helpers import merged_config

from ensemble_repro.config import ConfigError, load_yaml_file, main, validate_config

REPO = Path(__file__).resolve().parents[2]
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


# ----------------------------------------------------------------------
# Config files: strict parsing (duplicate keys, YAML 1.1 numbers, alias bombs, bytes and
# shapes a YAML parser chokes on) and the cross-field checks, each error naming the file and
# the key or the line and column.
# ----------------------------------------------------------------------
BASE = str(REPO / "config" / "config.yaml")


def _check(tmp_path, capsys, overlay: str | bytes, name="over.yaml"):
    """Exit status and stderr of ``python -m ensemble_repro.config BASE overlay``."""
    path = tmp_path / name
    if isinstance(overlay, bytes):
        path.write_bytes(overlay)
    else:
        path.write_text(overlay)
    status = main([BASE, str(path), "--schema", str(SCHEMA)])
    return status, capsys.readouterr().err, path


@pytest.mark.parametrize(
    "text, name, where, key",
    [
        ("seed: 1\njab:\n  n_trials: 3\nseed: 2\n", "over.yaml", "line 4, column 1", "'seed'"),
        (
            "jab:\n  n_trials: 3\n  alpha: 0.1\n  n_trials: 4\n",
            "o.yaml",
            "line 4, column 3",
            "'n_trials'",
        ),
        ('{"seed": 1,\n "seed": 2}\n', "over.json", "line 2, column 2", "'seed'"),
    ],
)
def test_duplicate_keys_refused(tmp_path, capsys, text, name, where, key):
    status, err, path = _check(tmp_path, capsys, text, name)
    assert status == 1
    assert f"config file {path} is not a usable config: {where}: the key {key} appears twice" in err
    assert "the last one would silently win" in err and "Keep one of them" in err


def test_merge_keys_are_not_duplicates(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text("a: &d {x: 1, y: 2}\nb:\n  <<: *d\n  y: 3\n")
    assert load_yaml_file(path) == {"a": {"x": 1, "y": 2}, "b": {"x": 1, "y": 3}}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("seed: 010\n", "010 has a leading zero, which YAML 1.1 reads as an octal number"),
        ("data:\n  timeout_seconds: 1:30\n", "1:30 is read by YAML 1.1 as a base-60 integer"),
        ("data:\n  timeout_seconds: 1:30.5\n", "1:30.5 is read by YAML 1.1 as a base-60 number"),
    ],
)
def test_yaml_11_numbers_refused(tmp_path, capsys, text, problem):
    status, err, path = _check(tmp_path, capsys, text)
    assert status == 1 and problem in err and f"config file {path}" in err, err
    assert "quote it" in err


def test_zero_and_decimals_still_read(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("a: 0\nb: 0.05\nc: -0.5\nd: 10\ne: '010'\n")
    assert load_yaml_file(path) == {"a": 0, "b": 0.05, "c": -0.5, "d": 10, "e": "010"}


def test_alias_bomb_refused_quickly(tmp_path, capsys):
    lines = ['a0: ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    lines[0] = "a0: &a0 " + lines[0][4:]
    text = "\n".join(lines) + "\n"
    assert len(text) < 2048

    def timeout(*_):
        raise TimeoutError("the alias bomb was expanded")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(20)
    try:
        start = time.perf_counter()
        status, err, _ = _check(tmp_path, capsys, text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert status == 1 and "expand the file to more than 100000 values" in err, err
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize(
    "content, where, problem",
    [
        (
            b"seed: 1\njab:\n  alpha: 0.1\x07\n",
            "line 3, column 13",
            "'\\x07' (U+0007) cannot appear",
        ),
        (b"seed: 1\n# caf\xe9\n", "line 2, column 6", "byte 0xe9 is not UTF-8 text"),
        (b"42\n", "line 1, column 1", "the file holds int 42, not a mapping of keys"),
        (b"- seed\n- 1\n", "line 1, column 1", "the file holds list ['seed', 1]"),
    ],
)
def test_unreadable_files_are_located(tmp_path, capsys, content, where, problem):
    status, err, path = _check(tmp_path, capsys, content)
    assert status == 1
    assert f"config file {path} is not" in err and where in err and problem in err, err
    assert "Traceback" not in err


def test_empty_file_refused_as_snakemake_refuses_it(tmp_path, capsys):
    status, err, path = _check(tmp_path, capsys, "# only a comment\n")
    assert status == 1 and f"config file {path} is empty (or only comments)" in err, err


def test_missing_file_and_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        load_yaml_file("nope.yaml")
    assert str(err.value) == (
        f"config file nope.yaml does not exist (looked for {tmp_path / 'nope.yaml'}): check "
        f"the path ({tmp_path} holds no YAML file)"
    )
    (tmp_path / "quick.yaml").write_text("seed: 1\n")
    with pytest.raises(
        ConfigError,
        match=r"^config file quik.yaml does not exist \(looked for "
        r".*\): did you mean quick.yaml\?$",
    ):
        load_yaml_file("quik.yaml")
    with pytest.raises(ConfigError, match=r"its directory nodir does not exist either"):
        load_yaml_file("nodir/x.yaml")
    with pytest.raises(ConfigError) as err:
        load_yaml_file(tmp_path)
    assert str(err.value) == (
        f"config file {tmp_path} is a directory: give the path of one YAML file such as "
        f"{tmp_path / 'quick.yaml'} (--configfile takes files, later ones overriding earlier ones)"
    )


def _config_targets() -> dict[str, list[str]]:
    """Makefile target -> its prerequisites, for every target whose recipe reads $(CONFIG)."""
    targets, current = {}, None
    for line in (REPO / "Makefile").read_text().splitlines():
        rule = re.match(r"^([\w .-]+):(?!=)(.*)$", line)
        if rule:
            current = (rule[1].split(), rule[2].split())
        elif line.startswith("\t") and current and "$(CONFIG)" in line:
            targets.update(dict.fromkeys(current[0], current[1]))
    targets.pop("check-config")
    return targets


def test_every_make_target_given_a_config_checks_it_first():
    """Every make target passing CONFIG on runs check-config first: the config's messages
    all come before Snakemake starts."""
    targets = _config_targets()
    assert {"reproduce", "dry-run", "report", "estimate", "lint", "record"} <= set(targets)
    assert not [t for t, prereqs in targets.items() if "check-config" not in prereqs]


@pytest.mark.parametrize("name", ["missing.yaml", "a_directory", "empty.yaml"])
def test_make_dry_run_names_a_bad_config_without_a_traceback(tmp_path, name):
    venv = Path(sys.prefix)
    given = tmp_path / name
    if name == "missing.yaml":
        given = Path(name)
        expected = f"config file missing.yaml does not exist (looked for {REPO / 'missing.yaml'})"
    elif name == "a_directory":
        given.mkdir()
        expected = f"config file {given} is a directory: give the path of one YAML file"
    else:
        given.write_text("# only a comment\n")
        expected = f"config file {given} is empty (or only comments); Snakemake refuses such a file"
    cmd = ["make", "-o", str(venv / ".installed"), "dry-run", f"CONFIG={given}", f"VENV={venv}"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert expected in proc.stderr, proc.stderr
    assert "snakemake" not in proc.stdout and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "overlay, message",
    [
        ("seed: 7.0\n", "config value seed = 7.0 is invalid (7.0 is not of type 'integer')"),
        ("jab:\n  n_trials: 2.0\n", "config value jab.n_trials = 2.0 is invalid"),
        ("seed: true\n", "config value seed = True is invalid"),
    ],
)
def test_integers_must_be_integers(tmp_path, capsys, overlay, message):
    status, err, path = _check(tmp_path, capsys, overlay)
    assert status == 1 and message in err and f"Fix it in {path}" in err, err


@pytest.mark.parametrize(
    "overlay, message",
    [
        (
            'knapsack:\n  stop_rules: ["left_tail@0.05", "left_tail@0.050"]\n',
            "knapsack.stop_rules lists 'left_tail@0.05' (entry 0) and 'left_tail@0.050' "
            "(entry 1), the same setting written twice",
        ),
        (
            "qwyc:\n  sensitivity: [learning_rate_0.1, learning_rate_0.10]\n",
            "qwyc.sensitivity lists 'learning_rate_0.1' (entry 0) and 'learning_rate_0.10' "
            "(entry 1), the same setting written twice",
        ),
        (
            "knapsack:\n  cost: flops\n  cost_sensitivity: [flops]\n",
            "knapsack.cost_sensitivity.0 = 'flops' is the main cost (knapsack.cost = flops)",
        ),
        (
            "qwyc:\n  sensitivity: [fit_on_train_full]\n",
            "qwyc.sensitivity.0 = 'fit_on_train_full' is the main setting (qwyc.fit_on = "
            "train_full)",
        ),
        (
            "qwyc:\n  sensitivity: [budget_rule_greedy_remaining]\n",
            "'budget_rule_greedy_remaining' is the main setting (qwyc.budget_rule = ",
        ),
        (
            "qwyc:\n  sensitivity: [fan_score_margin]\n",
            "'fan_score_margin' is the main setting (qwyc.fan.score = margin)",
        ),
        (
            "qwyc:\n  sensitivity: [learning_rate_0.5]\n",
            "qwyc.sensitivity.0 = 'learning_rate_0.5' names the learning rate 0.5, which is not "
            "in qwyc.gbt.learning_rates",
        ),
        (
            "qwyc:\n  sensitivity: [learning_rate_1.2.3]\n",
            "qwyc.sensitivity.0 = 'learning_rate_1.2.3' is invalid",
        ),
        (
            "qwyc:\n  fan:\n    orderings: [natural]\n",
            "qwyc.fan.orderings = ['natural'] lacks individual_mse: Fan* (Fan et al. on the "
            "individual-MSE ordering) is the baseline",
        ),
        (
            "knapsack:\n  adversarial:\n    checkpoints: [10, 5000]\n",
            "knapsack.adversarial.checkpoints.1 = 5000 is above "
            "knapsack.adversarial.evaluations = 1000",
        ),
        (
            "knapsack:\n  synthetic:\n    sizes: [20, 100000]\n",
            "config value knapsack.synthetic.sizes.1 = 100000 is above 2000 "
            "(ensemble_repro.knapsack.MAX_ELL)",
        ),
    ],
)
def test_cross_field_checks_at_start(tmp_path, capsys, overlay, message):
    status, err, path = _check(tmp_path, capsys, overlay)
    assert status == 1 and message in err and str(path) in err, err


def test_max_depth_must_cover_every_qwyc_data_set(tmp_path, capsys, monkeypatch):
    """A run directory's own config/config.yaml (the base of every overlay there) whose
    ``max_depth`` lacks a data set in use is refused at start, not with a KeyError in a job."""
    import yaml

    cfg = yaml.safe_load(Path(BASE).read_text())
    cfg["qwyc"]["gbt"]["max_depth"] = {"nomao": 9}
    path = tmp_path / "config" / "config.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(cfg))
    monkeypatch.chdir(tmp_path)
    assert main(["--schema", str(SCHEMA)]) == 1
    err = capsys.readouterr().err
    assert "qwyc.gbt.max_depth = {'nomao': 9} has no depth for adult (in qwyc.datasets)" in err
    assert "Fix it in config/config.yaml" in err
    (tmp_path / "off.yaml").write_text("experiments: {qwyc: false}\n")  # not in use: no depth
    assert main(["off.yaml", "--schema", str(SCHEMA)]) == 0


@pytest.mark.parametrize(
    "text, where, problem",
    [
        ("1: 2\n", "line 1, column 1", "the key 1 is read as int 1, not as text"),
        ("~: 2\n", "line 1, column 1", "the key ~ is read as NoneType None, not as text"),
        ("true: 1\n", "line 1, column 1", "the key true is read as bool True, not as text"),
        ("jab: {3: x}\n", "line 1, column 7", "the key 3 is read as int 3, not as text"),
        ("__use_yte__: true\n", "line 1, column 1", "the key __use_yte__ switches on"),
        (
            "seed: ?__import__('os').getpid()\n",
            "line 1, column 7",
            "\"?__import__('os').getpid()\" is a YTE expression, which Snakemake would run "
            "as Python code",
        ),
        (
            "a: " + "[" * 60 + "]" * 60 + "\n",
            "line 1, column 53",
            "the values here are nested more than 50 levels deep",
        ),
        (
            "".join(" " * i + "k:\n" for i in range(3000)) + " " * 3000 + "v: 1\n",
            "line 50, column 50",
            "the values here are nested more than 50 levels deep",
        ),
    ],
)
def test_keys_templates_and_depth_refused(tmp_path, capsys, text, where, problem):
    status, err, path = _check(tmp_path, capsys, text)
    assert status == 1
    assert f"config file {path} is not a usable config: {where}: {problem}" in err, err


def test_nesting_up_to_the_limit_is_read(tmp_path):
    """50 levels: the top mapping, 48 lists and the value."""
    path = tmp_path / "deep.yaml"
    path.write_text("a: " + "[" * 48 + "1" + "]" * 48 + "\n")
    value = load_yaml_file(path)["a"]
    for _ in range(48):
        value = value[0]
    assert value == 1


def test_a_fifo_is_refused_without_blocking(tmp_path, capsys):
    """Checked on a descriptor opened without blocking: a plain open waits for a writer."""
    fifo = tmp_path / "over.yaml"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [sys.executable, "-m", "ensemble_repro.config", str(fifo), "--schema", str(SCHEMA)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert proc.returncode == 1
    assert f"config file {fifo} is a FIFO (named pipe)" in proc.stderr, proc.stderr
