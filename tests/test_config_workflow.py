"""Start-of-run config errors as the user of ``snakemake`` sees them.

Each case stops while the Snakefile is read (seconds, no job), so these are not marked slow.
"""

import pytest
from workflow_helpers import REPO, SMOKE, run_snakemake

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
