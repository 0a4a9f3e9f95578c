"""Verdicts of the brute-force claims on small pools (Lemma I.1, backward selection without a
cost limit, eq. (29)'s MAXSTEP) and the fixed-MAXSTEP sensitivity setting, on constructed
tables."""

import pandas as pd
import pytest

from ensemble_repro.claims.rules import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from ensemble_repro.paper_loader import CLAIMS
from ensemble_repro.papers.knapsack import claims as kc
from ensemble_repro.papers.knapsack import margins as mg


def _small(pools=100, gap=0.0, misses=0, found_eq29=1.0, found_floor=1.0):
    """``pools`` rows; the first has best_any - best_odd = ``gap``, the first ``misses`` have
    backward below the optimum."""
    return pd.DataFrame(
        {
            "n": [6] * pools,
            "best_any": [0.9 + (gap if i == 0 else 0.0) for i in range(pools)],
            "best_odd": [0.9] * pools,
            "optimum_free": [0.95] * pools,
            "backward": [0.93 if i < misses else 0.95 for i in range(pools)],
            "backward_single": [0.93] * pools,
            "maxstep_eq29": [20] * pools,
            "found_within_eq29": [found_eq29] * pools,
            "found_within_floor": [found_floor] * pools,
        }
    )


def test_new_claims_are_registered_with_their_forest_axis():
    for cid in ("knapsack.lemma_i1", "knapsack.backward_optimal", "knapsack.maxstep_eq29"):
        assert cid in CLAIMS and CLAIMS[cid].effect, cid


def test_lemma_i1_one_even_winner_refutes_it():
    assert kc.lemma_i1(_small())["verdict"] == REPRODUCED
    assert kc.lemma_i1(_small(gap=mg.KN_EXACT_TOL / 2))["verdict"] == REPRODUCED
    row = kc.lemma_i1(_small(gap=1e-6))
    assert row["verdict"] == NOT_REPRODUCED
    assert "1 pools where an even size wins" in row["ours"]


def test_backward_optimal_needs_every_pool():
    row = kc.backward_optimal(_small())
    assert row["verdict"] == REPRODUCED and "100/100" in row["ours"]
    row = kc.backward_optimal(_small(misses=1))
    assert row["verdict"] == NOT_REPRODUCED
    assert "99/100" in row["ours"] and "largest shortfall 0.0200" in row["ours"]


@pytest.mark.parametrize(
    ("found", "verdict"),
    [
        (0.5, REPRODUCED),  # half the runs cut short: far above the 5% margin
        (1.0, NOT_REPRODUCED),  # no run cut short: the interval lies below the margin
        (0.95, INCONCLUSIVE),  # 5% cut short: the interval straddles the margin
    ],
)
def test_maxstep_eq29_share_cut_short_against_the_margin(found, verdict):
    row = kc.maxstep_eq29(_small(pools=100, found_eq29=found, found_floor=1.0), seeds=4)
    assert row["verdict"] == verdict
    assert f"{round((1 - found) * 400)}/400" in row["ours"]
    assert "at the floor: 0%" in row["ours"]


def test_rows_appear_in_the_evaluation():
    rows = kc.evaluate(
        None,
        None,
        {},
        mc_sampler="uniform_subset",
        evaluations=10,
        stop_variants=[],
        uci_pools=[],
        small=_small(misses=3),
        small_seeds=2,
    )
    got = {r["claim_id"]: r["verdict"] for r in rows}
    assert got["knapsack.lemma_i1"] == REPRODUCED
    assert got["knapsack.backward_optimal"] == NOT_REPRODUCED
    assert got["knapsack.maxstep_eq29"] == NOT_REPRODUCED


def test_fixed_maxstep_runs_are_a_sensitivity_setting_of_the_search_claims():
    from test_claims_knapsack import _evaluate, _of, _runs

    main = _runs(pool="a")
    fixed = _runs(pool="a", gap=0.02, gap_sd=0.001, loss=0.02, loss_sd=0.001)
    fixed = fixed[fixed["setting"] == ""].assign(setting="maxstep=10000")
    rows = _evaluate({"a": pd.concat([main, fixed], ignore_index=True)})
    comp = _of(rows, "knapsack.ss_competitive")["a"]
    stop = _of(rows, "knapsack.stopping_saves")["a"]
    assert comp["verdict"] == REPRODUCED and "flips under: maxstep=10000" in comp["robust_to"]
    assert stop["verdict"] == REPRODUCED and "flips under: maxstep=10000" in stop["robust_to"]
