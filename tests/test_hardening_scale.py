"""The verdicts' scale label is told from the config values they rest on, so a config file
that changes none of those (a transport setting, another paper's key) changes no label, and
the claims jobs do not take it as a rerun trigger (``tests/test_rerun_triggers.py`` checks the
reruns on the smoke run)."""

import copy
import re

import pytest
from workflow_helpers import REPO, SMOKE, run_snakemake

from ensemble_repro.claims.claim import scale_label, shipped_scales
from ensemble_repro.paper_loader import PAPERS
from ensemble_repro.rule_keys import (
    RULE_KEYS,
    TRANSPORT_KEYS,
    VERDICT_RULES,
    verdict_keys,
)

SHIPPED = shipped_scales(REPO / "config")


def _set(cfg: dict, dotted: str, value) -> dict:
    out = copy.deepcopy(cfg)
    node = out
    *parents, last = dotted.split(".")
    for p in parents:
        node = node[p]
    node[last] = value
    return out


def _labels(cfg: dict) -> dict:
    return {p: scale_label(cfg, verdict_keys(p, cfg), SHIPPED) for p in PAPERS}


def test_each_shipped_config_is_labelled_with_its_own_scale():
    for scale, cfg in SHIPPED.items():
        assert _labels(cfg) == dict.fromkeys(PAPERS, scale)


def test_transport_and_unread_keys_change_no_label():
    smoke = SHIPPED["smoke"]
    changes = {
        "data.mirror": "/elsewhere",
        "data.sources": ["url"],
        "data.base_url": "http://127.0.0.1:9",
        "data.timeout_seconds": 5,
        "data.retries": 0,
        # read by `make knapsack-costs` only, never by a run's verdicts
        "knapsack.pool_timing_repeats": 9,
        # Nomao is not among the smoke config's QWYC data sets
        "qwyc.gbt.max_depth.nomao": 4,
    }
    assert set(TRANSPORT_KEYS) <= set(changes)
    for key, value in changes.items():
        assert _labels(_set(smoke, key, value)) == dict.fromkeys(PAPERS, "smoke"), key


def test_a_changed_value_names_the_nearest_scale_and_the_key():
    smoke = SHIPPED["smoke"]
    cfg = _set(smoke, "jab.n_trials", smoke["jab"]["n_trials"] + 1)
    assert _labels(cfg) == {
        "jab": "custom (smoke; changed: jab.n_trials)",
        "qwyc": "smoke",
        "knapsack": "smoke",
    }
    # the seed is read by every paper's verdicts
    cfg = _set(cfg, "seed", smoke["seed"] + 1)
    assert _labels(cfg)["qwyc"] == "custom (smoke; changed: seed)"
    assert _labels(cfg)["jab"] == "custom (smoke; changed: seed, jab.n_trials)"
    for key in ("jab.alpha", "jab.max_test_points", "jab.trial_seed_base"):
        cfg = _set(cfg, key, "another value")
    assert _labels(cfg)["jab"] == (
        "custom (smoke; changed: seed, jab.alpha, jab.trial_seed_base and 2 more)"
    )


def test_verdict_keys_are_what_the_verdict_rules_read():
    smoke = SHIPPED["smoke"]
    keys = verdict_keys("knapsack", smoke)
    assert "knapsack.cost" in keys and "knapsack.synthetic.beta_a" in keys
    assert "knapsack.pool_timing_repeats" not in keys  # knapsack_measure_costs only
    assert "knapsack.datasets" in keys  # shapes the job list
    no_uci = _set(smoke, "knapsack.datasets", [])
    assert "knapsack.cost" not in verdict_keys("knapsack", no_uci)  # synthetic pools only
    assert not any(k.startswith("data.") for p in PAPERS for k in verdict_keys(p, smoke))
    assert all(rule in RULE_KEYS for rules in VERDICT_RULES.values() for rule in rules)


@pytest.mark.workflow
def test_verdict_rules_are_the_rules_upstream_of_the_claims(tmp_path):
    """VERDICT_RULES names, per paper, the claims rule and every rule above it that reads a
    config key: checked against the smoke config's rule graph."""
    proc = run_snakemake(tmp_path / "run", "--rulegraph", "--nolock", configfile=SMOKE)
    assert proc.returncode == 0, proc.stdout[-3000:]
    dot = proc.stdout
    label = dict(re.findall(r"^\s*(\d+)\[label = \"(\w+)\"", dot, re.MULTILINE))
    parents: dict[str, set[str]] = {r: set() for r in label.values()}
    for a, b in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.MULTILINE):
        parents[label[b]].add(label[a])
    for paper, rules in VERDICT_RULES.items():
        claims = f"{paper}_claims"
        above, todo = set(), [claims]
        while todo:
            for p in parents[todo.pop()] - above:
                above.add(p)
                todo.append(p)
        reading = {r for r in above if RULE_KEYS[r]} | {claims}
        assert set(rules) == reading, paper
