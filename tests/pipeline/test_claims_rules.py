"""The decision rules every verdict is drawn with, against naive references and at each edge."""

import math

import numpy as np
import pytest
from scipy import stats

from ensemble_repro.claims import rules
from ensemble_repro.claims.rules import (
    DECIDED,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    PARTLY,
    REPRODUCED,
    Interval,
    band_verdict,
    combine_parts,
    equivalence,
    holm,
    newcombe_diff,
    one_sided,
    p_inside,
    p_outside,
    paired_log_ratio,
    random_effects,
    repeats_needed,
    robust_to,
    t_interval,
    wilson,
    with_cells,
)


def test_logit_t_interval_is_a_t_interval_on_logits_and_stays_inside_0_1():
    v = [0.97, 0.995, 0.999, 0.93]
    z = np.log(np.array(v) / (1 - np.array(v)))
    lo, hi = stats.t.interval(0.95, len(v) - 1, loc=z.mean(), scale=stats.sem(z))
    iv = rules.logit_t_interval(v)
    naive = 1 / (1 + np.exp(-np.array([z.mean(), lo, hi])))
    assert (iv.estimate, iv.low, iv.high) == tuple(pytest.approx(x) for x in naive)
    assert 0 <= iv.low <= iv.high <= 1 and t_interval(v).high > 1  # the plain t leaves [0, 1]
    assert "t on logits" in iv.method and iv.n == 4


def test_logit_clips_to_the_shared_proportion_clip_and_expit_inverts_it():
    c = rules.PROPORTION_CLIP
    assert rules.logit(0.0) == pytest.approx(np.log(c / (1 - c)))
    assert rules.logit(1.0) == pytest.approx(-rules.logit(0.0))
    p = np.array([0.01, 0.5, 0.9])
    assert rules.expit(rules.logit(p)) == pytest.approx(p)


def test_logit_t_interval_with_one_repeat_is_the_whole_unit_interval_and_undecided():
    iv = rules.logit_t_interval([0.9])
    assert (iv.low, iv.high, iv.n) == (0.0, 1.0, 1)
    assert band_verdict(iv, 0.85, 0.95) == INCONCLUSIVE
    assert repeats_needed(iv, 0.85, 0.95) == "2 or more trials (one repeat has no spread)"


def test_logit_t_interval_names_a_value_outside_0_1():
    with pytest.raises(ValueError, match=r"proportions in \[0, 1\]; got \[0.9, 1.2\]"):
        rules.logit_t_interval([0.9, 1.2])


def test_t_interval_matches_scipy():
    v = [0.88, 0.91, 0.93, 0.87, 0.9]
    iv = t_interval(v)
    lo, hi = stats.t.interval(0.95, len(v) - 1, loc=np.mean(v), scale=stats.sem(v))
    assert (iv.low, iv.high, iv.n) == (pytest.approx(lo), pytest.approx(hi), 5)
    assert not t_interval([0.9]).bounded  # one repeat: no spread, no bounded interval


def test_paired_log_ratio_is_the_t_interval_of_the_log_ratios_and_works_from_two_trials():
    a, b = np.array([14.5, 26.8, 19.0]), np.array([1.0, 1.1, 0.9])
    iv = paired_log_ratio(a, b)
    logs = np.log(a / b)
    lo, hi = stats.t.interval(0.95, 2, loc=logs.mean(), scale=stats.sem(logs))
    assert (iv.low, iv.high) == (pytest.approx(math.exp(lo)), pytest.approx(math.exp(hi)))
    assert iv.estimate == pytest.approx(math.exp(logs.mean())) and iv.log
    two = paired_log_ratio([20.0, 18.0], [1.0, 1.0])
    assert two.bounded and one_sided(two, low=1.0) == REPRODUCED
    with pytest.raises(ValueError, match="positive values"):
        paired_log_ratio([1.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="pair up; got 2 and 3"):
        paired_log_ratio([1.0, 2.0], [1.0, 1.0, 1.0])


def test_wilson_and_newcombe_match_textbook_values():
    iv = wilson(0, 10)
    assert iv.low == 0 and iv.high == pytest.approx(0.2775, abs=1e-4)
    with pytest.raises(ValueError, match="successes=3, n=2"):
        wilson(3, 2)
    # Newcombe (1998), Table II, example (a): 56/70 - 48/80 = 0.2000, [0.0524, 0.3339]
    d = newcombe_diff(56, 70, 48, 80)
    assert (d.estimate, d.low, d.high) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)
    # a tie at 100% is bounded and excludes the paper's 85-point gap
    tie = newcombe_diff(100, 100, 100, 100)
    assert tie.bounded and tie.high < 0.1


@pytest.mark.parametrize(
    "low, high, verdict",
    [
        (0.86, 0.94, REPRODUCED),  # holds: inside the band
        (0.70, 0.80, NOT_REPRODUCED),  # fails: wholly outside
        (0.85, 0.95, REPRODUCED),  # on the edge of the band: the band is closed
        (0.849, 0.95, INCONCLUSIVE),  # just over the edge: straddles the border
        (0.70, 0.8499, NOT_REPRODUCED),  # wholly below by a hair
        (0.70, 0.85, INCONCLUSIVE),  # touches the band from outside: not wholly outside
        (-math.inf, math.inf, INCONCLUSIVE),  # unbounded: never a verdict
    ],
)
def test_band_verdict_holds_fails_inconclusive_and_edges(low, high, verdict):
    assert band_verdict(Interval(0.9, low, high, "t", 10), 0.85, 0.95) == verdict


def test_one_sided_and_equivalence_take_their_bounds():
    iv = Interval(1.0, 0.97, 1.03, "t", 10, log=True)
    assert one_sided(iv, low=0.95) == REPRODUCED and one_sided(iv, high=0.95) == NOT_REPRODUCED
    assert equivalence(iv, 0.9, 1.1) == REPRODUCED and equivalence(iv, 1.0, 1.1) == INCONCLUSIVE
    with pytest.raises(ValueError, match="exactly one bound"):
        one_sided(iv, low=0.9, high=1.1)
    with pytest.raises(ValueError, match="two finite ends"):
        equivalence(iv, 0.9, math.inf)


def test_repeats_needed_decides_at_the_number_it_names():
    rng = np.random.default_rng(4)
    v = 0.9 + 0.08 * rng.standard_normal(5)
    iv = t_interval(v)
    bound = iv.estimate - 0.6 * (iv.estimate - iv.low)  # straddled: undecided at n = 5
    assert band_verdict(iv, bound) == INCONCLUSIVE
    text = repeats_needed(iv, bound)
    m = int(text.split()[1])
    sd = float(np.std(v, ddof=1))
    # an interval of m repeats with the same mean and spread decides; one of m - 1 does not
    for k, decides in ((m, True), (m - 1, False)):
        half = stats.t.ppf(0.975, k - 1) * sd / math.sqrt(k)
        assert bool(iv.estimate - half >= bound) is decides
    assert repeats_needed(Interval(0.9, 0.88, 0.92, "t", 10), 0.85) == ""  # decided already
    on_bound = Interval(0.85, 0.8, 0.9, "t", 5)
    assert repeats_needed(on_bound, 0.85) == "more than 10x this scale (over 50 trials)"
    one = repeats_needed(t_interval([0.9]), 0.85, unit="refits")
    assert one == "2 or more refits (one repeat has no spread)"


def test_repeats_needed_works_on_the_log_scale_for_ratios():
    iv = paired_log_ratio([1.2, 0.95, 1.1], [1.0, 1.0, 1.0])
    assert one_sided(iv, low=1.0) == INCONCLUSIVE
    m = int(repeats_needed(iv, 1.0, unit="trials").split()[1])
    logs = np.log([1.2, 0.95, 1.1])
    half = stats.t.ppf(0.975, m - 1) * np.std(logs, ddof=1) / math.sqrt(m)
    assert logs.mean() - half > 0


def test_combine_parts_keeps_partly_for_mixed_decided_findings():
    assert combine_parts([REPRODUCED, REPRODUCED]) == REPRODUCED
    assert combine_parts([NOT_REPRODUCED, NOT_TESTABLE]) == NOT_REPRODUCED
    assert combine_parts([REPRODUCED, NOT_REPRODUCED]) == PARTLY
    assert combine_parts([REPRODUCED, INCONCLUSIVE]) == INCONCLUSIVE
    assert combine_parts([PARTLY, INCONCLUSIVE]) == PARTLY
    assert combine_parts([NOT_TESTABLE]) == NOT_TESTABLE
    with pytest.raises(ValueError, match="'holds'"):
        combine_parts(["holds"])


def _naive_holm(p, level=0.05):
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, stop = [False] * len(p), False
    for rank, i in enumerate(order):
        stop = stop or p[i] > level / (len(p) - rank)
        out[i] = not stop
    return out


def test_holm_matches_a_naive_step_down():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = list(rng.uniform(0, 0.06, rng.integers(1, 8)))
        assert holm(p) == _naive_holm(p)


def test_p_outside_and_inside_are_one_sided_t_tests():
    v = [0.80, 0.82, 0.79, 0.81]
    t = (np.mean(v) - 0.85) / stats.sem(v)
    assert p_outside(v, low=0.85) == pytest.approx(stats.t.cdf(t, 3))
    assert p_inside(v, low=0.85) == pytest.approx(stats.t.sf(t, 3))
    assert p_outside([0.9], low=0.85) == 1.0


def test_with_cells_makes_a_contradicted_verdict_partly():
    assert with_cells(REPRODUCED, {"a": 0.001, "b": 0.5}, {})[0] == PARTLY
    assert with_cells(REPRODUCED, {"a": 0.03, "b": 0.04}, {})[0] == REPRODUCED  # Holm: no
    assert with_cells(NOT_REPRODUCED, {}, {"a": 0.0001})[0] == PARTLY
    assert with_cells(INCONCLUSIVE, {"a": 0.0001}, {"b": 0.0001})[0] == INCONCLUSIVE


def test_random_effects_matches_dersimonian_laird_by_hand():
    ivs = [Interval(0.90, 0.88, 0.92, "t", 10), Interval(0.95, 0.94, 0.96, "t", 10)]
    iv, het = random_effects(ivs)
    z = stats.norm.ppf(0.975)
    y, se = np.array([0.90, 0.95]), np.array([0.02, 0.01]) / z
    w = 1 / se**2
    q = np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2)
    tau2 = (q - 1) / (w.sum() - (w**2).sum() / w.sum())
    wr = 1 / (se**2 + tau2)
    assert iv.estimate == pytest.approx(np.sum(wr * y) / wr.sum())
    assert iv.high - iv.estimate == pytest.approx(z / math.sqrt(wr.sum()))
    assert het.startswith("heterogeneous")
    same, het = random_effects([ivs[0], ivs[0]])
    assert same.estimate == pytest.approx(0.9) and het.startswith("homogeneous")
    ratio, _ = random_effects([paired_log_ratio([2.0, 2.2], [1.0, 1.0])] * 2)
    assert ratio.log and ratio.estimate == pytest.approx(math.sqrt(2.0 * 2.2))


def test_robust_to_counts_only_decided_verdicts():
    assert robust_to(REPRODUCED, {"median": REPRODUCED, "wor": NOT_REPRODUCED}) == (
        "1 of 2 (flips under: wor)"
    )
    assert robust_to(REPRODUCED, {"median": INCONCLUSIVE}) == "0 of 0; undecided under: median"
    assert robust_to(INCONCLUSIVE, {"median": REPRODUCED}).startswith("-")
    assert set(DECIDED) == {REPRODUCED, PARTLY, NOT_REPRODUCED}


def test_registry_rule_texts_are_written_over_the_margins_the_evaluators_use():
    from ensemble_repro.paper_loader import CLAIMS
    from ensemble_repro.papers.jab import margins as mg

    def has(claim_id, *values):
        rule = CLAIMS[claim_id].rule
        missing = [v for v in values if f"{v}" not in rule]
        assert not missing, f"{claim_id} rule text lacks {missing}: {rule}"

    has("jab.coverage", mg.COVERAGE_MARGIN, rules.CELL_LEVEL)
    has("jab.theorem1", mg.THEOREM1_FACTOR)
    has("jab.width_no_winner", *mg.EQUAL_WIDTH)
    has("jab.bagging_helps_rf", mg.RIDGE_NOT_NARROWER)
    has("jab.bagging_helps_nn", mg.NO_GAIN)
    has("jab.fixed_vs_random_b", mg.FVR_COVERAGE_TOL, *mg.FVR_WIDTH)
    has("jab.cheaper_than_ensemble", mg.CHEAPER_THAN, *mg.PAPER_ENSEMBLE_RATIO)
    has("jab.faster_than_non_ensemble", mg.FASTER_THAN)
    has("jab.fits_o_b", mg.FITS_PER_B)
    has("jab.aggregation_robust", mg.AGG_COVERAGE_TOL, *mg.AGG_WIDTH)


def test_a_row_whose_verdict_flips_under_a_setting_is_flagged_fragile():
    from ensemble_repro.claims.rules import robust_to
    from ensemble_repro.claims.table import claim_row

    robust = robust_to("reproduced", {"fit_on_train": "not reproduced", "lr_0.1": "reproduced"})
    row = claim_row(
        "qwyc.beats_fixed_orders", "nomao", ours="-", verdict="reproduced", robust_to=robust
    )
    assert row["fragile"] == "fit_on_train"
    steady = robust_to("reproduced", {"lr_0.1": "reproduced"})
    assert (
        claim_row(
            "qwyc.beats_fixed_orders", "nomao", ours="-", verdict="reproduced", robust_to=steady
        )["fragile"]
        == ""
    )


def test_a_need_beyond_the_data_is_out_of_reach_not_a_request():
    from ensemble_repro.claims.rules import Interval, repeats_needed

    iv = Interval(0.90, 0.80, 1.00, "wilson", 143)
    within = repeats_needed(iv, low=0.85, unit="test rows", available=10_000)
    assert within.startswith("about ") and within.endswith(" test rows")
    needed = int(within.split()[1])
    assert repeats_needed(iv, low=0.85, unit="test rows", available=needed - 1) == (
        f"out of reach with this data set (needs about {needed} test rows, has {needed - 1})"
    )


def test_logit_random_effects_stays_inside_zero_one():
    """Shares near 1 (stopping savings): the DerSimonian-Laird interval on the raw scale
    passes 1, the one pooled on logits does not, and its centre is the back-transformed mean
    of the logits (a naive reference with equal weights for equal widths)."""
    from ensemble_repro.claims.rules import (
        PROPORTION_CLIP,
        expit,
        logit,
        logit_random_effects,
        random_effects,
    )

    ivs = [Interval(0.999, 0.99, 1.0, "t", 20), Interval(0.6, 0.3, 0.9, "t", 20)]
    raw, _ = random_effects(ivs)
    assert raw.high > 1
    iv, note = logit_random_effects(ivs)
    assert 0 <= iv.low <= iv.estimate <= iv.high <= 1 and "logits" in iv.method
    same = [Interval(0.9, 0.8, 0.95, "t", 10)] * 3
    iv, _ = logit_random_effects(same)
    assert math.isclose(iv.estimate, 0.9) and note.startswith("heterogeneous")
    assert math.isclose(expit(logit(0.3)), 0.3)
    assert math.isclose(logit(0.0), -logit(1.0)) and math.isclose(
        expit(logit(1.0)), 1 - PROPORTION_CLIP
    )
    tied = [Interval(0.0, 0.0, 0.0, "t", 20), Interval(0.9, 0.8, 0.95, "t", 20)]
    assert math.isfinite(logit_random_effects(tied)[0].estimate)
    with pytest.raises(ValueError, match="pools proportions; got estimate 1.5"):
        logit_random_effects([Interval(1.5, 1.0, 2.0, "t", 3)])
