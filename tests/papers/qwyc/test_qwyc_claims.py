"""QWYC claims decided from what varies under the paper's protocol: the per-test-row tables,
the bootstrap refits of ordering and thresholds (GBT fixed) and the timing runs; every rule on
constructed inputs (holds, fails, inconclusive, the edges of its margin), the experiment side
against naive recomputations, and the registry's rule text against the evaluator's margins."""

import logging
import math
import re

import numpy as np
import pandas as pd
import pytest
from qwyc_fixtures import adult_tables
from qwyc_fixtures import qwyc_config as config

from ensemble_repro.claims.rules import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    PARTLY,
    REPRODUCED,
    Interval,
    wilson,
)
from ensemble_repro.paper_loader import CLAIMS
from ensemble_repro.papers.qwyc import cells as ex
from ensemble_repro.papers.qwyc import claims as cq
from ensemble_repro.papers.qwyc import margins
from ensemble_repro.qwyc import FanEarlyStopping, QuitWhenYouCan

N = 10_000  # test rows of the constructed tables


def _point(method, value, *, differs=0, models=100.0, correct=None, shift=0, n=N, rep=0, noise=0):
    """Per-row outcomes of one operating point: the first ``differs`` rows differ from the
    full ensemble; ``correct`` rows (all when None), starting at row ``shift``, are correct;
    each row evaluates ``models`` base models (plus uniform integer noise of +-``noise``)."""
    dec = np.zeros(n, bool)
    dec[:differs] = True
    full = np.zeros(n, bool)
    right = np.ones(n, bool)
    if correct is not None:
        right[:] = False
        right[(shift + np.arange(correct)) % n] = True
    y = np.where(right, dec, ~dec).astype(int)
    rng = np.random.default_rng(int(1000 * value) + rep + len(method))
    nev = np.full(n, models) + (rng.integers(-noise, noise + 1, n) if noise else 0)
    return ex.row_frame(0, 0.05, method, value, rep, dec, nev, full, y)


def _rows(*points):
    return pd.concat(points, ignore_index=True).assign(method=lambda d: d["method"].astype(str))


def _refits(method, value, differences, models, sd=0.0, n=N):
    return pd.DataFrame(
        {
            "refit": range(len(differences)),
            "method": method,
            "value": value,
            "n_test": n,
            "test_differences": differences,
            "test_mean_evaluated": models,
            "test_sd_evaluated": sd,
        }
    )


# ---------------------------------------------------------------- fewer_models
@pytest.mark.parametrize(
    ("differs", "models", "verdict"),
    [
        (10, 150.0, REPRODUCED),  # 0.1% [0.05, 0.18] at 3.3x fewer models
        (100, 150.0, PARTLY),  # 1.0% [0.82, 1.22] fails, the 3.3x holds: mixed decided parts
        (50, 150.0, INCONCLUSIVE),  # 0.5% straddles the 0.5% bound
        (10, 300.0, PARTLY),  # faithful, but 1.67x < 2x: mixed decided parts
        (100, 300.0, NOT_REPRODUCED),  # both parts fail
        (10, 50.0, PARTLY),  # faithful at 10x: beyond the paper's 2x-4x (ours: 11x, 101x)
    ],
)
def test_fewer_models_faithful_part_and_the_papers_band(differs, models, verdict):
    rows = _rows(_point("qwyc_joint", 0.0, differs=differs, models=models))
    f = cq.fewer_models(rows, None, 500)
    assert f.verdict == verdict
    assert (f.repeats_needed != "") == (verdict == INCONCLUSIVE)
    assert not math.isinf(f.interval.low) and not math.isinf(f.interval.high)


def test_fewer_models_edges_of_both_margins(monkeypatch):
    """The bounds are inclusive: an interval ending exactly at 0.5% (at 2x) still holds; a
    hair past it does not."""
    rows = _rows(_point("qwyc_joint", 0.0, differs=20, models=250.0))  # T / 250 = 2.0 exactly
    w = wilson(20, N)
    monkeypatch.setattr(cq, "QWYC_FAITHFUL_PCT", 100 * w.high)
    assert cq.fewer_models(rows, None, 500).verdict == REPRODUCED
    monkeypatch.setattr(cq, "QWYC_FAITHFUL_PCT", 100 * w.high - 1e-9)
    assert cq.fewer_models(rows, None, 500).verdict == INCONCLUSIVE
    monkeypatch.setattr(cq, "QWYC_FAITHFUL_PCT", 100 * w.low - 1e-9)
    assert cq.fewer_models(rows, None, 500).verdict == PARTLY  # differences fail, 2x holds
    monkeypatch.setattr(cq, "QWYC_FAITHFUL_PCT", 1.0)
    assert cq.fewer_models(rows, None, 500).verdict == REPRODUCED  # exactly 2.0x holds
    assert cq.fewer_models(rows, None, 499).verdict == PARTLY  # 1.996x: the ratio fails


def test_fewer_models_adds_the_refit_spread_but_not_the_refits_biased_mean():
    """The refits widen the interval by their spread; their mean (bootstrap resamples hold
    ~63% distinct rows, so they over-fit more) does not move the estimate."""
    rows = _rows(_point("qwyc_joint", 0.0, differs=20, models=150.0))  # 0.2% [0.13, 0.31]
    assert cq.fewer_models(rows, None, 500).verdict == REPRODUCED
    steady = _refits("qwyc_joint", 0.0, [80, 81, 79, 80], [150.0] * 4)  # mean 0.8%, sd ~0
    f = cq.fewer_models(rows, steady, 500)
    assert f.verdict == REPRODUCED and f.interval.estimate == pytest.approx(0.2)
    spread = _refits("qwyc_joint", 0.0, [0, 40, 5, 45], [150.0] * 4)  # sd 0.24 pt
    f = cq.fewer_models(rows, spread, 500)
    assert f.verdict == INCONCLUSIVE and f.interval.high > 0.5
    assert f.interval.n == 4 and "refits" in f.repeats_needed or "10x" in f.repeats_needed


def test_fewer_models_says_a_speed_up_beyond_the_band_is_outside_it():
    f = cq.fewer_models(_rows(_point("qwyc_joint", 0.0, differs=10, models=50.0)), None, 500)
    assert "within the paper's 2x-4x: not reproduced" in f.ours
    assert "more models saved than the paper reports" in f.ours
    assert ">= 2x, faster at all: reproduced" in f.ours


def test_fewer_models_picks_the_cheapest_faithful_alpha_else_the_lowest():
    rows = _rows(
        _point("qwyc_joint", 0.0, differs=10, models=200.0),
        _point("qwyc_joint", 0.01, differs=40, models=50.0),  # 0.4%: cheapest at <= 0.5%
        _point("qwyc_joint", 0.05, differs=300, models=20.0),
    )
    assert "alpha = 0.01 " in cq.fewer_models(rows, None, 500).ours
    high = _rows(_point("qwyc_joint", 0.0, differs=90), _point("qwyc_joint", 0.01, differs=95))
    assert "alpha = 0 " in cq.fewer_models(high, None, 500).ours


def test_one_fit_needed_names_refits_then_test_rows_out_of_reach():
    test = Interval(0.4, 0.3, 0.48, "Wilson", 1000)
    assert cq.one_fit_needed(test, [0.40, 0.41], high=0.5) == "about 3 refits"
    wide = Interval(0.4, 0.3, 0.52, "Wilson", 1000)
    assert cq.one_fit_needed(wide, [], high=0.5) == (
        "out of reach with this data set (needs about 2x its test rows, 2000, has 1000)"
    )
    assert cq.one_fit_needed(wide, [0.1, 0.9], high=0.5) == (
        "out of reach with this data set (undecided even with 10x the refits and 10x its "
        "1000 test rows)"
    )


def test_rows_needed_beyond_the_test_rows_is_out_of_reach():
    """An interval over all the test rows cannot be narrowed by more of them: Adult's
    more_accurate_than_fan asked for 56k-132k rows against its 16,281."""
    iv = Interval(0.0553, -0.0504, 0.161, "t", 16281)
    need = cq.rows_needed(iv, low=0.0)
    assert need.startswith("out of reach with this data set (needs about ")
    assert need.endswith("test rows, has 16281)")
    assert cq.rows_needed(Interval(0.2, 0.1, 0.3, "t", 100), low=0.0) == ""


# ---------------------------------------------------------------- beats_fixed_orders
@pytest.mark.parametrize(
    ("q_models", "verdict"),
    [(30.0, REPRODUCED), (150.0, NOT_REPRODUCED), (90.0, INCONCLUSIVE)],
)
def test_beats_fixed_orders_paired_over_test_rows(q_models, verdict):
    rows = _rows(
        _point("qwyc_joint", 0.0, differs=30, models=q_models, noise=5),
        _point("qwyc_natural", 0.0, differs=30, models=90.0, noise=5),
        _point("qwyc_random", 0.0, differs=30, models=300.0, rep=0),
        _point("qwyc_random", 0.0, differs=30, models=310.0, rep=1),
    )
    f = cq.beats_fixed_orders(rows, None, [0.5])
    assert f.verdict == verdict
    assert "best other QWYC thr., natural order" in f.ours
    assert (f.repeats_needed != "") == (verdict == INCONCLUSIVE)


def test_beats_fixed_orders_refits_pair_up_and_levels_combine():
    rows = _rows(
        _point("qwyc_joint", 0.0, differs=30, models=30.0, noise=5),
        _point("qwyc_natural", 0.0, differs=30, models=90.0, noise=5),
    )
    both = pd.concat(
        [
            _refits("qwyc_joint", 0.0, [30] * 4, [30.0, 32.0, 31.0, 29.0]),
            _refits("qwyc_natural", 0.0, [30] * 4, [90.0, 88.0, 95.0, 91.0]),
        ]
    )
    assert cq.beats_fixed_orders(rows, both, [0.5]).verdict == REPRODUCED
    flipped = pd.concat(
        [
            _refits("qwyc_joint", 0.0, [30] * 4, [95.0, 96.0, 97.0, 99.0]),
            _refits("qwyc_natural", 0.0, [30] * 4, [90.0, 88.0, 91.0, 92.0]),
        ]
    )
    f = cq.beats_fixed_orders(rows, flipped, [0.5])
    assert f.verdict == PARTLY and "refits" in f.ours  # rows say yes, refits say no
    # a level QWYC* cannot reach: 0.9% [0.73, 1.1] lies above 0.5%, the rival reaches it
    far = _rows(
        _point("qwyc_joint", 0.0, differs=90, models=30.0),
        _point("qwyc_natural", 0.0, differs=30, models=90.0),
    )
    assert cq.beats_fixed_orders(far, None, [0.5]).verdict == NOT_REPRODUCED
    assert cq.beats_fixed_orders(far, None, [0.5, 1.0]).verdict == PARTLY


def test_beats_fixed_orders_leaves_out_the_crossfit_extension_and_smaller_gbts():
    rows = _rows(
        _point("qwyc_joint", 0.0, differs=30, models=30.0, noise=5),
        _point("qwyc_crossfit", 0.0, differs=30, models=10.0),
        _point("smaller_same_lr", 10.0, differs=30, models=10.0),
        _point("qwyc_natural", 0.0, differs=30, models=90.0, noise=5),
    )
    assert cq.beats_fixed_orders(rows, None, [0.5]).verdict == REPRODUCED


# ---------------------------------------------------------------- fan_below_smaller
def _fan_vs_smaller(fan_differs, fan_correct, small_differs, small_correct):
    return _rows(
        *[
            _point("fan_individual_mse", g, differs=fan_differs, models=m, correct=fan_correct)
            for g, m in ((1.0, 30.0), (2.0, 80.0), (3.0, 130.0))
        ],
        *[
            _point(
                "smaller_same_lr",
                float(t),
                differs=small_differs,
                models=float(t),
                correct=small_correct,
            )
            for t in (10, 50, 100, 200, 500)
        ],
    )


def test_fan_below_smaller_gamma_2_style_is_decisively_not_reproduced():
    """Fan* at 0.39% differences vs ~5.2% for the smaller GBTs (Adult at gamma = 2): a
    finding against the paper, decided on one fit's test rows."""
    rows = _fan_vs_smaller(39, 8700, 520, 8640)
    f = cq.fan_below_smaller(rows)
    assert f.verdict == NOT_REPRODUCED and "finding against the paper" in f.ours
    assert f.interval.high < 0  # Fan* - smaller GBT in differences, wholly below 0
    assert f.repeats_needed == ""


def test_fan_below_smaller_holds_when_worse_on_both_and_undecided_when_close():
    assert cq.fan_below_smaller(_fan_vs_smaller(600, 8500, 100, 8700)).verdict == REPRODUCED
    # worse on differences only (same accuracy): no point holds, none fails
    close = cq.fan_below_smaller(_fan_vs_smaller(101, 8700, 100, 8700))
    assert close.verdict == INCONCLUSIVE and close.repeats_needed


def test_fan_below_smaller_share_edge(monkeypatch):
    """All 3 Fan* points fail: more than any share below 1 -> not reproduced; a share of 1
    (3 is not more than 3) leaves a decided mix -> partly."""
    rows = _fan_vs_smaller(39, 8700, 520, 8640)
    monkeypatch.setattr(cq, "QWYC_POINT_SHARE", 0.99)
    assert cq.fan_below_smaller(rows).verdict == NOT_REPRODUCED
    monkeypatch.setattr(cq, "QWYC_POINT_SHARE", 1.0)
    assert cq.fan_below_smaller(rows).verdict == PARTLY


# ---------------------------------------------------------------- faster_than_fan
def _timing(ratio, q_pct=0.5, runs=10, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    q = 1e-6 * (1 + noise * rng.standard_normal(runs))
    fan = q * ratio * (1 + noise * rng.standard_normal(runs))
    summary = pd.DataFrame(
        {
            "split": 0,
            "learning_rate": 0.05,
            "method": ["qwyc_joint", "fan_individual_mse"],
            "target_differences_pct": 0.5,
            "test_differences_pct": [q_pct, 0.4],
        }
    )
    runs_df = pd.concat(
        [
            pd.DataFrame(
                {
                    "split": 0,
                    "method": m,
                    "target_differences_pct": 0.5,
                    "run": range(runs),
                    "per_example_seconds": t,
                }
            )
            for m, t in (("qwyc_joint", q), ("fan_individual_mse", fan))
        ]
    )
    return summary, runs_df


@pytest.mark.parametrize(
    ("ratio", "q_pct", "verdict"),
    [
        (2.0, 0.5, REPRODUCED),
        (0.5, 0.5, NOT_REPRODUCED),
        (1.0, 0.5, INCONCLUSIVE),
        (2.0, 0.76, NOT_REPRODUCED),  # faster, but QWYC* past 1.5x the level: not there
        (2.0, 0.75, REPRODUCED),  # edge: exactly 1.5x the level is matched
        (5.0, 0.5, PARTLY),  # faster, but beyond the paper's 1.8x-4x (Nomao: 4.2x)
        (1.5, 0.5, PARTLY),  # faster, but below 1.8x
    ],
)
def test_faster_than_fan_paired_over_timing_runs(ratio, q_pct, verdict):
    f = cq.faster_than_fan(*_timing(ratio, q_pct))
    assert f.verdict == verdict
    assert f.interval.n == 10
    assert f.ours.startswith("on the benchmark GBT (a stand-in for the paper's real-world lattice")
    assert f.band == (1.8, 4.0)
    if verdict == INCONCLUSIVE:
        assert "timing runs" in f.repeats_needed or "10x" in f.repeats_needed


# ---------------------------------------------------------------- the two new claims
def test_fan_vs_algorithm2_many_orderings():
    """Adult's natural order at <= 0.5%: Fan 72.2 vs Algorithm 2 93.0 models."""
    rows = _rows(
        _point("fan_natural", 2.0, differs=40, models=72.2, noise=3),
        _point("qwyc_natural", 0.005, differs=45, models=93.0, noise=3),
        _point("fan_individual_mse", 2.0, differs=40, models=93.0, noise=3),
        _point("qwyc_individual_mse", 0.005, differs=45, models=72.0, noise=3),
    )
    f = cq.fan_vs_algorithm2(rows)
    assert f.verdict == REPRODUCED  # better on 1 of 2 = 50%: "many" at the 50% share
    assert f.effect.estimate == pytest.approx(93.0 / 72.2, rel=1e-2)  # the natural order's
    worse = _rows(
        _point("fan_natural", 2.0, differs=40, models=100.0, noise=3),
        _point("qwyc_natural", 0.005, differs=45, models=93.0, noise=3),
        _point("fan_individual_mse", 2.0, differs=40, models=93.0, noise=3),
        _point("qwyc_individual_mse", 0.005, differs=45, models=72.0, noise=3),
    )
    assert cq.fan_vs_algorithm2(worse).verdict == NOT_REPRODUCED
    tied = _rows(
        _point("fan_natural", 2.0, differs=40, models=93.0, noise=3),
        _point("qwyc_natural", 0.005, differs=45, models=93.0, noise=3),
        _point("fan_individual_mse", 2.0, differs=40, models=93.0, noise=3),
        _point("qwyc_individual_mse", 0.005, differs=45, models=72.0, noise=3),
    )
    f = cq.fan_vs_algorithm2(tied)
    assert f.verdict == INCONCLUSIVE and "natural" in f.repeats_needed


def test_more_accurate_than_fan_paired_accuracy():
    def rows(q_correct, fan_correct, shift=0):
        return _rows(
            _point("qwyc_joint", 0.0, differs=40, models=40.0, correct=q_correct),
            _point(
                "fan_individual_mse", 2.0, differs=40, models=80.0, correct=fan_correct, shift=shift
            ),
        )

    assert cq.more_accurate_than_fan(rows(8700, 8600)).verdict == REPRODUCED
    assert cq.more_accurate_than_fan(rows(8600, 8700)).verdict == NOT_REPRODUCED
    f = cq.more_accurate_than_fan(rows(8700, 8700, shift=100))  # equal, 200 discordant rows
    assert f.verdict == INCONCLUSIVE and f.repeats_needed


# ---------------------------------------------------------------- evaluate, registry
def test_evaluate_rows_robust_to_counts_decided_settings_only():
    main = _rows(
        _point("qwyc_joint", 0.0, differs=10, models=150.0),
        _point("qwyc_natural", 0.0, differs=10, models=200.0),
        _point("fan_individual_mse", 2.0, differs=10, models=150.0),
    )
    flip = _rows(_point("qwyc_joint", 0.0, differs=100, models=300.0))
    unsure = _rows(_point("qwyc_joint", 0.0, differs=50, models=150.0))
    fan_only = _rows(_point("fan_individual_mse", 2.0, differs=10, models=150.0))
    out = cq.evaluate(
        {"adult": main},
        {},
        {},
        {},
        {},
        {
            "adult": {
                "fit_on_train": flip,
                "budget_rule_uniform": unsure,
                "fan_score_sigmoid": fan_only,
            }
        },
        datasets=["adult", "nomao"],
        n_trees=500,
        target_differences=[0.005],
    )
    by = {(r["claim_id"], r["dataset"]): r for r in out}
    fm = by[("qwyc.fewer_models", "adult")]
    assert fm["robust_to"] == (
        "1 of 2 (flips under: fit_on_train); undecided under: budget_rule_uniform"
    )
    # reproduced on the main fit, not under fit_on_train (an unreported choice): fragile
    assert fm["verdict"] == PARTLY and fm["fragile"] == "fit_on_train"
    assert fm["ours"].endswith(
        "; fragile: reproduced under the main setting, not under fit_on_train (choices the "
        "paper does not report)"
    )
    assert by[("qwyc.ordering_4approx", "adult")]["verdict"] == NOT_TESTABLE
    assert by[("qwyc.fewer_models", "nomao")]["verdict"] == NOT_TESTABLE
    assert by[("qwyc.faster_than_fan", "adult")]["verdict"] == NOT_TESTABLE
    assert ("qwyc.fan_below_smaller", "nomao") not in by


def test_registry_rule_text_is_built_from_the_evaluators_margins():
    used = {
        "qwyc.fewer_models": (f"{cq.QWYC_FAITHFUL_PCT}%", f"{cq.QWYC_MIN_SPEEDUP:g}x"),
        "qwyc.faster_than_fan": (f"above {cq.QWYC_FASTER_THAN:g}", f"{cq.QWYC_MATCH_FACTOR:g}x"),
        "qwyc.fan_below_smaller": (f"{cq.QWYC_POINT_SHARE:.0%}",),
        "qwyc.fan_vs_algorithm2": (f"{cq.QWYC_MANY_SHARE:.0%}", f"{cq.QWYC_COMPARE_PCT}%"),
        "qwyc.more_accurate_than_fan": (f"{cq.QWYC_COMPARE_PCT}%",),
    }
    for cid, texts in used.items():
        claim = CLAIMS[cid]
        for t in texts:
            assert t in claim.rule + claim.metric, (cid, t)
    # one source: the evaluator's margins are the margins module's
    for name in ("QWYC_FAITHFUL_PCT", "QWYC_MIN_SPEEDUP", "QWYC_MATCH_FACTOR"):
        assert getattr(cq, name) == getattr(margins, name)


def test_registry_rule_text_follows_a_changed_margin(monkeypatch):
    import importlib

    from ensemble_repro.papers.qwyc import claim_list

    monkeypatch.setattr(margins, "QWYC_MIN_SPEEDUP", 3.0)
    try:
        reloaded = importlib.reload(claim_list)
        fewer_models = next(c for c in reloaded.CLAIMS if c.id == "qwyc.fewer_models")
        assert "inside the paper's 3x-4x" in fewer_models.rule
    finally:
        monkeypatch.undo()
        importlib.reload(claim_list)


# ---------------------------------------------------------------- the experiment side
@pytest.fixture(scope="module")
def arrays(tmp_path_factory):
    return ex.model_job("adult", config(), 7, adult_tables(tmp_path_factory.mktemp("prep")))[2]


def test_main_split_is_the_rate_most_splits_choose():
    a = {"n_splits": np.array(4)}
    a.update({f"s{s}_learning_rate": np.array(r) for s, r in enumerate([0.1, 0.05, 0.05, 0.1])})
    assert ex.main_split(a, {"fit_on": "train_full"}) == 0  # tie: the first split's rate
    a["s3_learning_rate"] = np.array(0.05)
    assert ex.main_split(a, {"fit_on": "train_full"}) == 1
    assert ex.main_split(a, {"fit_on": "train_full", "learning_rate": 0.1}) == 0
    assert ex.main_split(a, {"fit_on": "validation"}) == 0


def test_per_row_table_matches_a_naive_recomputation(arrays):
    q = config()
    per_row = []
    sw = ex.sweep_job(arrays, "adult", "qwyc_joint", q, 7, per_row)
    rows = pd.concat(per_row, ignore_index=True)
    split = ex.main_split(arrays, q)
    assert set(rows["split"]) == {split}  # only the main fit's rows
    v = ex.Views(arrays).view(split, q)
    full = v.base + v.F_test.sum(axis=1) >= 0
    for alpha in q["alpha_grid"]:
        dec, nev = QuitWhenYouCan(alpha).fit_scores(v.base, v.F).evaluate(v.F_test)
        r = rows[rows["value"] == np.float32(alpha)].sort_values("row")
        np.testing.assert_array_equal(r["differs"], dec != full)
        np.testing.assert_array_equal(r["correct"], dec == arrays["y_test"].astype(bool))
        np.testing.assert_array_equal(r["n_evaluated"], nev)
        agg = sw[(sw.split == split) & (sw.value == alpha)].iloc[0]
        pts = cq.points(rows)
        p = pts[pts["value"] == np.float32(alpha)].iloc[0]
        assert p["differences_pct"] == pytest.approx(agg.test_differences_pct)
        assert p["models"] == pytest.approx(agg.test_mean_evaluated)
        assert p["accuracy"] == pytest.approx(agg.test_accuracy)
        assert agg.test_sd_evaluated == pytest.approx(np.std(nev, ddof=1))
    assert rows["n_evaluated"].dtype == np.int16 and rows["differs"].dtype == bool


def test_per_row_random_orders_keep_every_repetition(arrays):
    per_row = []
    ex.sweep_job(arrays, "adult", "qwyc_random", config(), 7, per_row)
    rows = pd.concat(per_row, ignore_index=True)
    assert sorted(rows["repetition"].unique()) == [0, 1]
    assert len(rows) == 2 * 2 * 300  # repetitions x alphas x test rows


def test_smaller_rows_are_prefixes_of_the_main_gbt(arrays):
    q = config()
    rows = ex.smaller_rows(arrays, q)
    v = ex.Views(arrays).view(ex.main_split(arrays, q), q)
    full = v.base + v.F_test.sum(axis=1) >= 0
    for t in (4, 8, 12):
        r = rows[rows["value"] == t].sort_values("row")
        dec = v.base + v.F_test[:, :t].sum(axis=1) >= 0
        np.testing.assert_array_equal(r["differs"], dec != full)
        assert (r["n_evaluated"] == t).all()


def test_refits_are_deterministic_given_the_seed_and_vary_with_it(arrays):
    q = config()
    sweeps = pd.concat(
        [
            ex.sweep_job(arrays, "adult", m, q, 7)
            for m in ("qwyc_joint", "qwyc_natural", "fan_individual_mse")
        ]
    )
    a = ex.refit_job(arrays, sweeps, "adult", q, 7).drop(columns="fit_seconds")
    b = ex.refit_job(arrays, sweeps, "adult", q, 7).drop(columns="fit_seconds")
    c = ex.refit_job(arrays, sweeps, "adult", q, 8).drop(columns="fit_seconds")
    pd.testing.assert_frame_equal(a, b)
    assert sorted(a["refit"].unique()) == [0, 1, 2]
    assert set(a["method"]) == {"qwyc_joint", "qwyc_natural", "fan_individual_mse"}
    assert not a["test_mean_evaluated"].equals(c["test_mean_evaluated"])
    # each refit is QWYC* refitted on the bootstrap rows, the GBT held fixed
    v = ex.Views(arrays).view(ex.main_split(arrays, q), q)
    idx = ex.bootstrap_rows(len(v.F), 7, 1)
    r = a[(a.refit == 1) & (a.method == "qwyc_joint")].iloc[0]
    dec, nev = QuitWhenYouCan(r.value).fit_scores(v.base, v.F[idx]).evaluate(v.F_test)
    assert r.test_mean_evaluated == pytest.approx(nev.mean())
    assert r.test_differences == int(np.sum(dec != (v.base + v.F_test.sum(axis=1) >= 0)))
    assert r.n_fit_distinct == len(np.unique(idx)) < len(v.F)
    f = a[(a.refit == 0) & (a.method == "fan_individual_mse")].iloc[0]
    fan = FanEarlyStopping(f.value, n_bins=4, ordering="individual_mse", min_bin_count=5)
    idx0 = ex.bootstrap_rows(len(v.F), 7, 0)
    _, nev = fan.fit_scores(v.base, v.F[idx0]).evaluate(v.F_test)
    assert f.test_mean_evaluated == pytest.approx(nev.mean())


def test_refit_points_are_the_claims_operating_points():
    sweeps = pd.DataFrame(
        {
            "split": 0,
            "method": "qwyc_joint",
            "value": [0.0, 0.002, 0.005, 0.01],
            "test_differences_pct": [0.4, 0.45, 0.9, 1.5],
            "test_mean_evaluated": [40.0, 35.0, 30.0, 20.0],
        }
    )
    got = ex.refit_points(sweeps, {"timing": {"target_differences": [0.005, 0.01]}}, 0)
    assert got == {"qwyc_joint": [0.0, 0.002, 0.005]}


def test_timing_every_distinct_fit_with_paired_runs(arrays):
    q = config()
    sweeps = pd.concat(
        [ex.sweep_job(arrays, "adult", m, q, 7) for m in ("qwyc_joint", "fan_individual_mse")]
    )
    summary, runs = ex.timing_job(arrays, sweeps, "adult", q, 7)
    distinct = {ex.Views(arrays).view(s, q).key for s in range(2)}
    assert summary["split"].nunique() == len(distinct)
    assert {"learning_rate", "split"} <= set(summary.columns)
    per = runs.groupby(["split", "method", "target_differences_pct"]).size()
    assert (per == q["timing"]["runs"]).all()


@pytest.mark.parametrize("method", ["qwyc_random", "fan_individual_mse"])
def test_sweep_progress_counts_every_split(arrays, caplog, method):
    """The sweep counted its steps over every split against one split's total ("4/3 ...,
    eta -1.0s" in the smoke run's log); a split reusing an earlier fit counts as done."""
    caplog.set_level(logging.INFO)
    ex.sweep_job(arrays, "adult", method, config(), 7)
    counts = [
        (int(m[1]), int(m[2]))
        for r in caplog.records
        if (m := re.search(rf"adult {method}\D* (\d+)/(\d+) ", r.getMessage()))
    ]
    assert counts and all(done <= total for done, total in counts), counts
    assert counts[-1][0] == counts[-1][1]


def test_fragile_leaves_undecided_and_steady_verdicts_alone():
    assert cq.fragile(INCONCLUSIVE, "x", "- (the main verdict is undecided)") == (INCONCLUSIVE, "x")
    assert cq.fragile(REPRODUCED, "x", "2 of 2 (a, b)") == (REPRODUCED, "x")
    v, text = cq.fragile(NOT_REPRODUCED, "x", "1 of 2 (flips under: lr_0.1)")
    assert v == PARTLY and "not reproduced under the main setting, reproduced under lr_0.1" in text


def test_fan_below_smaller_counts_test_rows_not_points():
    rows = _rows(
        _point("fan_individual_mse", 1.0, differs=300, models=60.0, correct=8000),
        _point("fan_individual_mse", 3.0, differs=200, models=90.0, correct=8100),
        _point("smaller_same_lr", 50.0, differs=100, models=50.0, correct=8500),
        _point("smaller_same_lr", 100.0, differs=50, models=100.0, correct=8600),
    )
    f = cq.fan_below_smaller(rows)
    assert f.n_repeats == N  # the interval is over the test rows, not the 2 Fan* points
    assert f.effect is None or f.effect.n == N


# ---------------------------------------------------------------- ordering_4approx
def test_ordering_4approx_worst_case_rule():
    f = cq.ordering_4approx(pd.DataFrame({"ratio": [1.0, 1.02, 1.08, 1.0]}))
    assert f.verdict == REPRODUCED and f.n_repeats == 4
    assert f.band == (1.0, 4.0) and f.effect.estimate == pytest.approx(1.025)
    assert "largest 1.08" in f.ours and "above 4: 0 of 4" in f.ours
    f = cq.ordering_4approx(pd.DataFrame({"ratio": [1.0, 4.5, 1.1]}))
    assert f.verdict == NOT_REPRODUCED and "above 4: 1 of 3" in f.ours
    assert cq.ordering_4approx(pd.DataFrame({"ratio": [4.0, 4.0]})).verdict == REPRODUCED
    assert cq.ordering_4approx(pd.DataFrame({"ratio": [1.0]})).verdict == NOT_TESTABLE


def test_ordering_4approx_row_from_evaluate():
    main = _rows(_point("qwyc_joint", 0.0, differs=10, models=150.0))
    out = cq.evaluate(
        {"adult": main},
        {},
        {"adult": pd.DataFrame({"ratio": [1.0, 1.08, 1.01]})},
        {},
        {},
        {},
        datasets=["adult"],
        n_trees=500,
        target_differences=[0.005],
    )
    row = next(r for r in out if r["claim_id"] == "qwyc.ordering_4approx")
    assert row["verdict"] == REPRODUCED and row["n_repeats"] == 3
    assert (row["band_low"], row["band_high"]) == (1.0, 4.0)


def test_every_qwyc_claim_states_its_effect_and_items_quote_only_the_paper():
    qwyc = [c for c in CLAIMS.values() if c.paper == "qwyc"]
    assert "qwyc.ordering_4approx" in {c.id for c in qwyc}
    assert all(c.effect for c in qwyc), [c.id for c in qwyc if not c.effect]
    # our numbers (Adult's natural order: 72.2 vs 93.0 models) are not the paper's item
    assert not re.search(r"\d+\.\d", CLAIMS["qwyc.fan_vs_algorithm2"].item)


def test_approximation_job_recomputes_each_draw(arrays):
    """Each draw's ratio is QWYC*'s greedy cost over the exhaustive optimum on the block
    ensemble the draw's seed makes; rerunning gives the same table."""
    from ensemble_repro.qwyc.exhaustive import approximation_ratio

    q = config()
    df = ex.approximation_job(arrays, "adult", q, 7)
    assert len(df) == 3 and (df["ratio"] >= 1 - 1e-12).all()
    assert (df["n_rows"] == 120).all() and (df["trees_per_model"] == 2).all()
    v = ex.Views(arrays).view(ex.main_split(arrays, q), q)
    rng = np.random.default_rng([7, 8, 1])
    idx = np.sort(rng.choice(len(v.F), 120, replace=False))
    F = ex.block_ensemble(v.F[idx, :8], 4, rng)
    assert df["ratio"].iloc[1] == pytest.approx(approximation_ratio(v.base, F)[2])
    again = ex.approximation_job(arrays, "adult", q, 7)
    assert df.drop(columns="seconds").equals(again.drop(columns="seconds"))
