"""The claims' interval and test formulas (``ensemble_repro.claims.rules``) against statsmodels.

The project keeps its own short formulas (no statsmodels at run time); statsmodels, a test-only
dependency, is the oracle each is held to, on seeded random inputs and on edge counts.
"""

import math

import numpy as np
import pytest
from scipy import stats

from ensemble_repro.claims import rules

sm_meta = pytest.importorskip("statsmodels.stats.meta_analysis")
from statsmodels.stats.multitest import multipletests  # noqa: E402
from statsmodels.stats.proportion import (  # noqa: E402
    confint_proportions_2indep,
    proportion_confint,
)
from statsmodels.stats.weightstats import DescrStatsW  # noqa: E402

LEVELS = [0.9, 0.95, 0.99]


def samples(seed, count=20):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, 40))
        yield rng.normal(rng.normal(), rng.uniform(0.01, 3.0), size=n)


@pytest.mark.parametrize("level", LEVELS)
def test_t_interval_is_statsmodels_tconfint_mean(level):
    for v in samples(1):
        ours = rules.t_interval(v, level)
        low, high = DescrStatsW(v).tconfint_mean(alpha=1 - level)
        assert ours.estimate == pytest.approx(v.mean(), rel=1e-12)
        assert (ours.low, ours.high) == pytest.approx((low, high), rel=1e-10, abs=1e-12)
        assert ours.n == v.size


@pytest.mark.parametrize("level", LEVELS)
def test_paired_log_ratio_is_the_t_interval_of_the_log_ratios(level):
    rng = np.random.default_rng(2)
    for _ in range(20):
        n = int(rng.integers(2, 30))
        b = rng.uniform(0.5, 5.0, size=n)
        a = b * np.exp(rng.normal(0.3, 0.2, size=n))
        ours = rules.paired_log_ratio(a, b, level)
        low, high = DescrStatsW(np.log(a / b)).tconfint_mean(alpha=1 - level)
        assert (ours.low, ours.high) == pytest.approx((math.exp(low), math.exp(high)), rel=1e-10)
        assert ours.estimate == pytest.approx(math.exp(np.log(a / b).mean()), rel=1e-12)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n", [1, 2, 7, 20, 100, 1000])
def test_wilson_is_statsmodels_wilson(n, level):
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n} - {-1}):
        ours = rules.wilson(k, n, level)
        low, high = proportion_confint(k, n, alpha=1 - level, method="wilson")
        assert (ours.low, ours.high) == pytest.approx((low, high), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_newcombe_diff_is_statsmodels_newcomb(level):
    rng = np.random.default_rng(3)
    cases = [(96, 100, 11, 100), (100, 100, 100, 100), (0, 10, 0, 12), (5, 5, 0, 7)]
    for _ in range(30):
        n1, n2 = (int(x) for x in rng.integers(1, 300, size=2))
        cases.append((int(rng.integers(0, n1 + 1)), n1, int(rng.integers(0, n2 + 1)), n2))
    for k1, n1, k2, n2 in cases:
        ours = rules.newcombe_diff(k1, n1, k2, n2, level)
        low, high = confint_proportions_2indep(
            k1, n1, k2, n2, method="newcomb", compare="diff", alpha=1 - level
        )
        assert ours.estimate == pytest.approx(k1 / n1 - k2 / n2, abs=1e-15)
        assert (ours.low, ours.high) == pytest.approx((low, high), rel=1e-9, abs=1e-12), (
            k1,
            n1,
            k2,
            n2,
        )


def test_holm_is_statsmodels_holm():
    rng = np.random.default_rng(4)
    for _ in range(15):  # statsmodels takes up to 1 s a call on a loaded machine
        level = float(rng.choice([0.01, 0.05, 0.1]))
        p = rng.uniform(0, 0.2, size=int(rng.integers(1, 12))) ** rng.uniform(0.5, 3)
        p[rng.uniform(size=p.size) < 0.2] = level / p.size  # ties, on Holm's first threshold
        expected = multipletests(p, alpha=level, method="holm")[0].tolist()
        assert rules.holm(p, level) == expected, (p, level)


def test_p_outside_is_the_smaller_one_sided_t_test():
    for v in samples(5):
        d = DescrStatsW(v)
        low, high = v.mean() + np.array([-0.5, 0.4]) * v.std(ddof=1)
        below = d.ttest_mean(low, alternative="smaller")[1]  # H1: mean < low
        above = d.ttest_mean(high, alternative="larger")[1]  # H1: mean > high
        assert rules.p_outside(v, low=low) == pytest.approx(below, rel=1e-9, abs=1e-300)
        assert rules.p_outside(v, high=high) == pytest.approx(above, rel=1e-9, abs=1e-300)
        assert rules.p_outside(v, low, high) == pytest.approx(min(below, above), rel=1e-9)


def test_p_inside_is_statsmodels_tost():
    for v in samples(6):
        s = v.std(ddof=1)
        for low, high in [(v.mean() - 2 * s, v.mean() + s), (v.mean() - s / 5, v.mean() + 3 * s)]:
            p_tost = DescrStatsW(v).ttost_mean(low, high)[0]
            assert rules.p_inside(v, low, high) == pytest.approx(p_tost, rel=1e-9, abs=1e-300)
        one = DescrStatsW(v).ttest_mean(v.mean() - s, alternative="larger")[1]
        assert rules.p_inside(v, low=v.mean() - s) == pytest.approx(one, rel=1e-9)


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")  # tau2 < 0
@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_random_effects_is_statsmodels_dersimonian_laird(log, level):
    rng = np.random.default_rng(7 + log)
    z = stats.norm.ppf(0.5 + level / 2)
    truncations = 0
    for _ in range(20):
        k = int(rng.integers(2, 9))
        y = rng.normal(0.2, rng.uniform(0.0, 0.5), size=k)  # estimates (log scale if log)
        se = rng.uniform(0.02, 0.3, size=k)
        back = np.exp if log else (lambda x: x)
        strata = [
            rules.Interval(
                float(back(e)), float(back(e - z * s)), float(back(e + z * s)), "t", 9, log
            )
            for e, s in zip(y, se, strict=True)
        ]
        ours, het = rules.random_effects(strata, level)
        ref = sm_meta.combine_effects(y, se**2, method_re="dl", use_t=False, alpha=1 - level)
        # DerSimonian-Laird truncates tau2 at 0, statsmodels does not: there DL is the
        # fixed-effect estimate. conf_int: (low, high) of fixed effect, random effect, WLS ...
        truncated = ref.tau2 < 0
        truncations += truncated
        mean = ref.mean_effect_fe if truncated else ref.mean_effect_re
        low, high = ref.conf_int(alpha=1 - level, use_t=False)[0 if truncated else 1]
        assert ours.estimate == pytest.approx(float(back(mean)), rel=1e-8)
        assert (ours.low, ours.high) == pytest.approx((back(low), back(high)), rel=1e-8)
        assert ours.log is log and ours.n == 9
        homogeneity = ref.test_homogeneity()
        assert homogeneity.statistic == pytest.approx(ref.q) and homogeneity.df == k - 1
        q_p = homogeneity.pvalue
        assert het == (
            f"{'heterogeneous' if q_p < rules.CELL_LEVEL else 'homogeneous'}: "
            f"I2 = {max(ref.i2, 0.0):.0%}, Q p = {q_p:.2g}"
        )
    assert 0 < truncations < 20  # both cases were met


def test_logit_random_effects_is_statsmodels_dersimonian_laird_on_logits():
    """Proportions pooled on the logit scale: statsmodels' DL on the logits, mapped back."""
    rng = np.random.default_rng(11)
    level = rules.LEVEL
    z = stats.norm.ppf(0.5 + level / 2)
    for _ in range(20):
        k = int(rng.integers(2, 9))
        y = rng.normal(1.5, rng.uniform(0.0, 0.8), size=k)  # logits of rates near 0.8
        se = rng.uniform(0.05, 0.5, size=k)
        expit = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
        strata = [
            rules.Interval(
                float(expit(e)), float(expit(e - z * s)), float(expit(e + z * s)), "t", 9
            )
            for e, s in zip(y, se, strict=True)
        ]
        ours, _ = rules.logit_random_effects(strata, level)
        ref = sm_meta.combine_effects(y, se**2, method_re="dl", use_t=False, alpha=1 - level)
        truncated = ref.tau2 < 0
        mean = ref.mean_effect_fe if truncated else ref.mean_effect_re
        low, high = ref.conf_int(alpha=1 - level, use_t=False)[0 if truncated else 1]
        assert ours.estimate == pytest.approx(float(expit(mean)), rel=1e-7)
        assert (ours.low, ours.high) == pytest.approx((expit(low), expit(high)), rel=1e-7)
        assert 0 <= ours.low <= ours.estimate <= ours.high <= 1
