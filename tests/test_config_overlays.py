"""config/quick.yaml and config/smoke.yaml are overlays on config/config.yaml.

Merged on it (``load_config``, as Snakemake merges ``--configfile`` files), they give, value for
value, type for type and in the same key order, the complete files they replaced: the files of
:data:`COMPLETE`, read from git, so no copy of them is kept in the repository. A value changed
on purpose since then is listed in :data:`CHANGED`.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from ensemble_repro.config import BASE_CONFIG, load_config, load_yaml_file

REPO = Path(__file__).resolve().parents[1]
SCALES = ("config", "quick", "smoke")
#: The last commit whose config/quick.yaml and config/smoke.yaml were complete files.
COMPLETE = "da77d886973cc22e24ba06c98b3ddd32677426c0"
#: Values changed on purpose since COMPLETE: {scale: {dotted key: value}}.
CHANGED: dict[str, dict[str, object]] = {
    # more trials decide the J+aB claims at quick scale; the sampling setting pays for them,
    # and Blog and Nomao (the costliest fits) and QWYC's learning-rate setting are left to
    # the paper config
    "quick": {
        "jab.n_trials": 6,
        "jab.without_replacement.enabled": False,
        "jab.datasets": ["meps", "communities"],
        "qwyc.datasets": ["adult"],
        "qwyc.sensitivity": ["fit_on_train"],
    },
}


def leaves(cfg: dict, prefix: str = "") -> dict[str, str]:
    """Dotted key -> the value as JSON (so 1 and 1.0, or 1 and true, differ)."""
    out = {}
    for k, v in cfg.items():
        key = f"{prefix}{k}"
        out.update(leaves(v, key + ".") if isinstance(v, dict) else {key: json.dumps(v)})
    return out


def complete_file(scale: str) -> dict:
    proc = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{COMPLETE}:config/{scale}.yaml"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip(f"commit {COMPLETE[:10]} is not in this checkout's history: {proc.stderr}")
    return yaml.safe_load(proc.stdout)


@pytest.mark.parametrize("scale", SCALES)
def test_merged_config_equals_the_complete_file_it_replaced(scale):
    merged = leaves(load_config(REPO / "config" / f"{scale}.yaml", base=REPO / BASE_CONFIG))
    expected = leaves(complete_file(scale))
    expected.update({k: json.dumps(v) for k, v in CHANGED.get(scale, {}).items()})
    differ = {k: (expected.get(k), merged.get(k)) for k in expected.keys() | merged.keys()}
    differ = {k: v for k, v in differ.items() if v[0] != v[1]}
    assert not differ, f"{scale}: (complete file, merged) differ in {differ}"
    assert list(merged) == list(expected), f"{scale}: the keys come in another order"


@pytest.mark.parametrize("scale", ["quick", "smoke"])
def test_overlay_holds_only_what_differs_from_the_base(scale):
    base = leaves(load_yaml_file(REPO / BASE_CONFIG))
    overlay = leaves(load_yaml_file(REPO / "config" / f"{scale}.yaml"))
    unknown = sorted(set(overlay) - set(base))
    same = sorted(k for k, v in overlay.items() if base.get(k) == v)
    assert not unknown, f"config/{scale}.yaml sets keys config/config.yaml lacks: {unknown}"
    assert not same, f"config/{scale}.yaml repeats config/config.yaml's values of {same}"
