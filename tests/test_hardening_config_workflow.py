"""Strict config checks as the user of ``snakemake`` sees them: an overlay that Snakemake
itself parses leniently (a repeated key, the last one winning; 7.0 for an integer) stops the
run at start, naming the file and the line or the key.

Each case stops while the Snakefile is read (seconds, no job), so these are not marked slow.
"""

import pytest
from workflow_helpers import SMOKE, run_snakemake

pytestmark = pytest.mark.workflow


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
def test_snakemake_refuses_a_bad_configfile_before_reading_the_snakefile(tmp_path, name):
    """What docs/configuration.md documents: Snakemake loads every --configfile before it reads the
    Snakefile, so none of the workflow's checks run and its answer ends in this line (a
    traceback, or for an empty file a message without its name); `make` targets run
    `make check-config` first, which names the path and the fix."""
    given = tmp_path / name
    if name == "a_directory":
        given.mkdir()
        last = f"IsADirectoryError: [Errno 21] Is a directory: '{given}'"
    elif name == "empty.yaml":
        given.write_text("# only a comment\n")
        last = "Config file must be given as JSON or YAML with keys at top level."
    else:
        last = f"FileNotFoundError: [Errno 2] No such file or directory: '{given}'"
    proc = run_snakemake(tmp_path / "run", "-n", configfile=given)
    assert proc.returncode != 0
    assert proc.stdout.rstrip().splitlines()[-1] == last, proc.stdout[-2000:]


def test_snakemake_refuses_a_dotted_config_key_itself(tmp_path):
    """What docs/configuration.md documents: a dotted ``--config`` key never reaches the
    workflow's checks; Snakemake refuses it while parsing its command line."""
    proc = run_snakemake(tmp_path / "run", "-n", "--config", "jab.n_trials=3")
    assert proc.returncode != 0
    last = "ValueError: Invalid config definition: Config entry must start with a valid identifier."
    assert proc.stdout.rstrip().splitlines()[-1] == last, proc.stdout[-2000:]
    assert not (tmp_path / "run" / "results").exists()
