"""Claim registry, the QWYC and knapsack evaluators, claims tables and verdict pages."""

import copy
import re

import pandas as pd
import pytest
from claims_fixtures import jab_tables
from workflow_helpers import REPO, SMOKE, run_snakemake

from ensemble_repro.claims.build import write_verdicts
from ensemble_repro.claims.claim import COLUMNS, scale_label, shipped_scales
from ensemble_repro.claims.rules import NOT_REPRODUCED, NOT_TESTABLE, REPRODUCED, VERDICTS
from ensemble_repro.claims.table import claims_frame, read_claims
from ensemble_repro.paper_loader import CLAIMS, PAPERS
from ensemble_repro.papers.jab import claims as jab_claims
from ensemble_repro.rule_keys import (
    RULE_KEYS,
    TRANSPORT_KEYS,
    VERDICT_RULES,
    verdict_keys,
)


def test_registry_has_three_claims_per_paper_with_rules_and_quotes():
    for paper in ("jab", "qwyc", "knapsack"):
        claims = PAPERS[paper].claims
        assert len(claims) >= 3
        assert all(c.quote and c.rule and c.item for c in claims)


# ------------------------------------------------------------------ tables and pages
def _old_paper_file(tmp_path, paper, claim_id, scale, date):
    from ensemble_repro.claims.table import claim_row
    from ensemble_repro.io import write_csv

    path = tmp_path / paper / "claims.csv"
    row = claim_row(
        claim_id, "adult", ours="x", verdict=NOT_REPRODUCED, interval="[0, 1]", n_repeats=1
    )
    write_csv(claims_frame([row], scale=scale, made_on=date), path)
    return path


def test_running_one_paper_keeps_the_others_verdicts(tmp_path):
    qwyc = _old_paper_file(tmp_path, "qwyc", "qwyc.fewer_models", "quick", "2026-11-20")
    main, jplus = jab_tables()
    for name, df in (("main", main), ("jplus", jplus), ("fvr", pd.DataFrame()), ("wor", main)):
        df.to_csv(tmp_path / f"{name}.csv", index=False)
    jab = tmp_path / "jab" / "claims.csv"
    jab_claims.write_claims(
        tmp_path / "main.csv",
        tmp_path / "jplus.csv",
        tmp_path / "fvr.csv",
        tmp_path / "wor.csv",
        jab,
        jab_cfg={
            "alpha": 0.1,
            "datasets": ["communities"],
            "aggregations": ["mean"],
            "timing_m_ratio": 0.6,
        },
        missing=[],
        scale="smoke",
        seed=0,
    )
    files = {"jab": jab, "qwyc": qwyc, "knapsack": tmp_path / "knapsack" / "claims.csv"}
    out = tmp_path / "claims.csv"
    df = write_verdicts(files, out, tmp_path / "p.md", tmp_path / "p.html", tmp_path / "s.rst")
    merged = read_claims(out)
    assert list(merged.columns) == list(COLUMNS)
    assert set(merged["verdict"]) <= set(VERDICTS)
    assert set(merged["paper"]) == {"jab", "qwyc"} and len(merged) == len(df)
    old = merged[merged["paper"] == "qwyc"].iloc[0]
    assert (old["scale"], old["made_on"], old["verdict"]) == ("quick", "2026-11-20", NOT_REPRODUCED)
    assert set(merged.loc[merged["paper"] == "jab", "scale"]) == {"smoke"}
    md = (tmp_path / "p.md").read_text()
    assert "quick scale, 2026-11-20" in md and "smoke scale" in md
    assert md.index("## Summary") < md.index("### jab.coverage")
    assert CLAIMS["jab.coverage"].quote in md
    html = (tmp_path / "p.html").read_text()
    assert '<td class="v-reproduced">reproduced</td>' in html
    assert "list-table" in (tmp_path / "s.rst").read_text()


def test_read_claims_rejects_words_outside_the_vocabulary(tmp_path):
    path = _old_paper_file(tmp_path, "qwyc", "qwyc.fewer_models", "quick", "2026-11-20")
    df = pd.read_csv(path)
    df["verdict"] = "holds"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"verdicts \['holds'\] are not among"):
        read_claims(path)


def test_rows_need_the_vocabulary_and_a_reason_and_reruns_compare_without_wall_clock():
    from ensemble_repro.claims.table import claim_row, run_independent

    with pytest.raises(ValueError, match="verdict must be one of"):
        claim_row("jab.coverage", "blog", ours="x", verdict="holds")
    with pytest.raises(ValueError, match="needs its reason"):
        claim_row("jab.coverage", "meps", ours="-", verdict=NOT_TESTABLE)
    rows = [
        claim_row("jab.coverage", "blog", ours="0.9", verdict=REPRODUCED),
        claim_row("jab.cheaper_than_ensemble", "blog", ours="9x", verdict=REPRODUCED),
    ]
    df = run_independent(claims_frame(rows, scale="smoke", made_on="2026-12-01"))
    assert list(df["claim_id"]) == ["jab.coverage"] and "made_on" not in df


def test_a_claims_table_from_before_the_later_columns_reads_them_as_empty(tmp_path):
    """A record's table written before ``fragile`` and ``effect_cell`` existed still reads;
    any other missing column is refused by name."""
    from ensemble_repro.claims.table import LATER_COLUMNS, claim_row

    row = claim_row(
        "jab.coverage", "blog", ours="x", verdict="reproduced", interval="", n_repeats=1
    )
    old = claims_frame([row], scale="paper", made_on="2026-12-02").drop(columns=list(LATER_COLUMNS))
    old.to_csv(tmp_path / "old.csv", index=False)
    df = read_claims(tmp_path / "old.csv")
    assert list(df.columns) == list(COLUMNS)
    assert (df[list(LATER_COLUMNS)] == "").all().all()
    old.drop(columns=["robust_to"]).to_csv(tmp_path / "older.csv", index=False)
    with pytest.raises(ValueError, match=r"lacks columns \['robust_to'\]"):
        read_claims(tmp_path / "older.csv")


# ----------------------------------------------------------------------
# The verdicts' scale label is told from the config values they rest on, so a config file
# that changes none of those (a transport setting, another paper's key) changes no label, and
# the claims jobs do not take it as a rerun trigger (``tests/pipeline/test_rerun_triggers.py`` checks the
# reruns on the smoke run).
# ----------------------------------------------------------------------
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
