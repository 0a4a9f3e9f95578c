"""Start-of-run config errors as the user of ``snakemake`` sees them.

Each case stops while the Snakefile is read (seconds, no job), so these are not marked slow.
"""

import subprocess

import pytest
from workflow_helpers import REPO, SMOKE, run_snakemake, snakemake_cmd, workflow_env

pytestmark = pytest.mark.workflow


def _stopped(proc, workdir):
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in proc.stdout, proc.stdout
    assert not (workdir / "results").exists()


def test_nested_command_line_override_is_blamed_on_the_command_line(tmp_path):
    work = tmp_path / "run"
    proc = run_snakemake(work, "-n", "--config", 'jab={"n_trials": 3}')
    _stopped(proc, work)
    out = proc.stdout
    assert "jab.n_trials = '3' is invalid" in out, out
    assert "Fix it on the command line (--config)." in out, out
    assert "put nested overrides in an overlay config file" in out, out
    assert f"Fix it in {SMOKE}" not in out, out


def test_overlay_file_overrides_key_by_key_and_is_named(tmp_path):
    overlay = tmp_path / "off.yaml"
    overlay.write_text("experiments: {jab: false, qwyc: false, knapsack: false}\n")
    work = tmp_path / "run"
    proc = run_snakemake(work, "-n", "--configfile", str(SMOKE), str(overlay))
    _stopped(proc, work)
    assert "nothing is switched on" in proc.stdout, proc.stdout
    assert f"Fix it in {overlay}." in proc.stdout, proc.stdout


def test_yaml_syntax_error_in_the_default_config_names_file_and_line(tmp_path):
    """The Snakefile's own config/config.yaml (read from the working directory)."""
    work = tmp_path / "run"
    (work / "config").mkdir(parents=True)
    text = (REPO / "config" / "config.yaml").read_text()
    assert "  n_trials: 10\n" in text
    (work / "config" / "config.yaml").write_text(
        text.replace("  n_trials: 10\n", "  n_trials: [10\n", 1)
    )
    proc = run_snakemake(work, "-n", configfile=REPO / "config" / "smoke.yaml")
    _stopped(proc, work)
    line = text[: text.index("  n_trials: 10\n")].count("\n") + 1
    assert (
        f"config file config/config.yaml is not valid YAML: line {line + 1}, column " in proc.stdout
    ), proc.stdout
    assert f"(while parsing a flow sequence on line {line})" in proc.stdout, proc.stdout


# ----------------------------------------------------------------------
# Strict config checks as the user of ``snakemake`` sees them: an overlay that Snakemake
# itself parses leniently (a repeated key, the last one winning; 7.0 for an integer) stops the
# run at start, naming the file and the line or the key.
#
# Each case stops while the Snakefile is read (seconds, no job), so these are not marked slow.
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "overlay, expected",
    [
        (
            "seed: 1\njab:\n  n_trials: 2\nseed: 2\n",
            "is not a usable config: line 4, column 1: the key 'seed' appears twice",
        ),
        ("seed: 7.0\n", "config value seed = 7.0 is invalid (7.0 is not of type 'integer')"),
        ("seed: 010\n", "010 has a leading zero, which YAML 1.1 reads as an octal number"),
    ],
)
def test_overlay_refused_at_start(tmp_path, overlay, expected):
    path = tmp_path / "over.yaml"
    path.write_text(overlay)
    work = tmp_path / "run"
    proc = run_snakemake(work, "-n", "--configfile", str(SMOKE), str(path))
    assert proc.returncode != 0, proc.stdout
    assert expected in proc.stdout and str(path) in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stdout, proc.stdout
    assert not (work / "results").exists()


@pytest.mark.parametrize("name", ["missing.yaml", "a_directory", "empty.yaml"])
def test_snakemake_names_a_bad_configfile(tmp_path, name):
    """Snakemake loads every --configfile before it reads the Snakefile; it reads them through
    the strict loader (ensemble_repro.snakemake_guard), so the message names the file."""
    given = tmp_path / name
    if name == "a_directory":
        given.mkdir()
        expected = f"config file {given} is a directory: give the path of one YAML file"
    elif name == "empty.yaml":
        given.write_text("# only a comment\n")
        expected = f"config file {given} is empty (or only comments)"
    else:
        expected = f"config file {given} does not exist"
    proc = run_snakemake(tmp_path / "run", "-n", configfile=given)
    assert proc.returncode != 0
    assert expected in proc.stdout and "Traceback" not in proc.stdout, proc.stdout[-2000:]


@pytest.mark.parametrize(
    "template",
    [
        "__use_yte__: true\nseed: ?__import__('os').system('touch {marker}')\n",
        "seed: ?__import__('os').system('touch {marker}')\n",
    ],
)
def test_a_config_file_cannot_run_code(tmp_path, template):
    """A YTE template in an overlay is refused before Snakemake evaluates anything."""
    marker = tmp_path / "X"
    evil = tmp_path / "evil.yaml"
    evil.write_text(template.format(marker=marker))
    proc = run_snakemake(tmp_path / "run", "-n", "--configfile", str(SMOKE), str(evil))
    assert proc.returncode != 0
    assert not marker.exists()
    assert f"config file {evil} is not a usable config: line 2" in proc.stdout or (
        f"config file {evil} is not a usable config: line 1" in proc.stdout
    ), proc.stdout[-2000:]
    assert "is a YTE expression, which Snakemake would run as Python code" in proc.stdout


def test_the_workflow_refuses_to_run_without_the_guard(tmp_path):
    """Where Snakemake reads config files leniently (the hook not installed), the workflow
    stops at once with the command that installs it."""
    code = (
        "import sys\n"
        "from ensemble_repro.snakemake_guard import _Finder\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]\n"
        "from snakemake.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    cmd = snakemake_cmd(tmp_path / "run", "-n")
    (tmp_path / "run").mkdir()
    proc = subprocess.run(
        [cmd[0], "-c", code, *cmd[3:]],
        env=workflow_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "reads config files without ensemble-repro's strict loader" in out, out[-2000:]
    assert "import ensemble_repro.snakemake_guard as g; g.install()" in out


def test_snakemake_refuses_a_dotted_config_key_itself(tmp_path):
    """What docs/configuration.md documents: a dotted ``--config`` key never reaches the
    workflow's checks; Snakemake refuses it while parsing its command line."""
    proc = run_snakemake(tmp_path / "run", "-n", "--config", "jab.n_trials=3")
    assert proc.returncode != 0
    last = "ValueError: Invalid config definition: Config entry must start with a valid identifier."
    assert proc.stdout.rstrip().splitlines()[-1] == last, proc.stdout[-2000:]
    assert not (tmp_path / "run" / "results").exists()
