"""The knapsack claims (Hajdu et al. 2020) on constructed inputs: each rule holds, fails,
is inconclusive, and flips at the edges of its margin; the registry states the margins the
evaluators use."""

import math

import numpy as np
import pandas as pd
import pytest

from ensemble_repro.claims.rules import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    PARTLY,
    REPRODUCED,
    newcombe_diff,
)
from ensemble_repro.paper_loader import CLAIMS
from ensemble_repro.papers.knapsack import cells as kx
from ensemble_repro.papers.knapsack import claims as kc
from ensemble_repro.papers.knapsack import margins as mg

SA, SS = kc.SA, kc.SS
PRIMARY = "stop=left_tail@0.05"


def _evaluate(runs=None, **kw):
    args = dict(
        mc_sampler="uniform_subset",
        evaluations=100,
        stop_variants=[PRIMARY],
        uci_pools=[],
    )
    return kc.evaluate(kw.pop("worked", None), kw.pop("rates", None), runs or {}, **(args | kw))


def _of(rows, claim):
    return {r["dataset"]: r for r in rows if r["claim_id"] == claim}


# ---------------------------------------------------------------- MC vs SA (section III)
def _rates(k_sa, k_mc, runs=100, at=100, n=10, samplers=("uniform_subset",), moves=("swap",)):
    rows = [
        {"n": n, "strategy": SA, "sampler": np.nan, "moves": m, "within_evaluations": at}
        | {"success_rate": k_sa / runs, "runs": runs}
        for m in moves
    ]
    rows += [
        {"n": n, "strategy": kc.MC, "sampler": s, "moves": np.nan, "within_evaluations": at}
        | {"success_rate": k_mc / runs, "runs": runs}
        for s in samplers
    ]
    return pd.DataFrame(rows)


def _mc_sa(k_sa, k_mc, runs=100):
    return kc.mc_vs_sa(_rates(k_sa, k_mc, runs), 10, "uniform_subset", "swap", 100)[0]


def test_mc_vs_sa_tests_the_size_of_the_gap():
    assert _mc_sa(96, 11) == REPRODUCED  # the paper's 96% vs 11%
    assert _mc_sa(100, 100) == NOT_REPRODUCED  # a tie is decisively no gap
    assert _mc_sa(60, 10) == INCONCLUSIVE  # gap 0.5, interval straddles 0.425


def test_mc_vs_sa_flips_at_the_margin():
    # the smallest SA count whose Newcombe low end reaches the margin (MC 10 of 100)
    k = next(k for k in range(101) if newcombe_diff(k, 100, 10, 100).low >= mg.KN_GAP_MARGIN)
    assert _mc_sa(k, 10) == REPRODUCED and _mc_sa(k - 1, 10) == INCONCLUSIVE
    # the largest SA count whose high end stays below the margin
    k = max(k for k in range(101) if newcombe_diff(k, 100, 10, 100).high < mg.KN_GAP_MARGIN)
    assert _mc_sa(k, 10) == NOT_REPRODUCED and _mc_sa(k + 1, 10) == INCONCLUSIVE


def test_mc_vs_sa_one_row_per_reading_the_primary_deciding():
    rates = _rates(100, 100, samplers=("uniform_subset", "uniform_size"), moves=("swap", "ar"))
    rates.loc[(rates["sampler"] == "uniform_subset"), "success_rate"] = 0.05
    rows = _of(_evaluate(rates=rates), "knapsack.mc_vs_sa")
    assert len(rows) == 5  # 4 readings and the every-reading row
    primary = rows["adversarial pool n=10: MC uniform_subset, SA swap (primary reading)"]
    assert primary["verdict"] == REPRODUCED
    assert "flips under" in primary["robust_to"] and "uniform_size" in primary["robust_to"]
    other = rows["adversarial pool n=10: MC uniform_size, SA swap (sensitivity reading)"]
    assert other["verdict"] == NOT_REPRODUCED
    assert primary["band_low"] == mg.KN_GAP_MARGIN and primary["effect_high"] <= 1


def test_mc_vs_sa_reads_the_success_rates_at_n_from_config():
    rates = pd.concat([_rates(96, 5, at=30), _rates(100, 100, at=300)])
    rows = _of(_evaluate(rates=rates, evaluations=300), "knapsack.mc_vs_sa")
    row = rows["adversarial pool n=10: MC uniform_subset, SA swap (primary reading)"]
    assert row["verdict"] == NOT_REPRODUCED and row["ours"].startswith("N = 300 evaluations")
    with pytest.raises(ValueError, match=r"no success rates at N = 1000"):
        kc.mc_vs_sa(rates, 10, "uniform_subset", "swap", 1000)


def _budgets(mc: dict, sa: dict, sampler="uniform_subset", moves="swap", n=10, runs=200):
    """Success rates per budget: ``mc`` maps N to (sampled, exact) MC rates, ``sa`` N to SA's."""
    rows = [
        {"n": n, "strategy": SA, "sampler": np.nan, "moves": moves, "within_evaluations": at}
        | {"success_rate": r, "exact_rate": np.nan, "runs": runs}
        for at, r in sa.items()
    ]
    rows += [
        {"n": n, "strategy": kc.MC, "sampler": sampler, "moves": np.nan, "within_evaluations": at}
        | {"success_rate": r, "exact_rate": e, "runs": runs}
        for at, (r, e) in mc.items()
    ]
    return pd.DataFrame(rows)


def _record_like():
    """The record's n = 10 adversarial rates: uniform_subset gives the paper's pair at N = 100,
    uniform_size succeeds at 69.5% from N = 10."""
    sa = {10: 0.59, 30: 0.965, 100: 1.0, 1000: 1.0}
    subset = {10: (0.02, 0.0097), 30: (0.03, 0.0289), 100: (0.085, 0.0931)}
    subset |= {1000: (0.605, 0.6236)}
    size = {10: (0.695, 0.6513), 30: (0.97, 0.9576), 100: (1.0, 1.0), 1000: (1.0, 1.0)}
    return pd.concat(
        [_budgets(subset, sa), _budgets(size, {}, sampler="uniform_size")], ignore_index=True
    )


def test_mc_vs_sa_primary_reading_is_the_one_the_papers_numbers_identify():
    """The configured sampler (uniform_size) cannot give MC 11%: the reading that gives the
    paper's pair at one budget (uniform_subset, N = 100) is primary, with the evidence."""
    rows = _of(
        _evaluate(rates=_record_like(), mc_sampler="uniform_size", evaluations=1000),
        "knapsack.mc_vs_sa",
    )
    primary = rows["adversarial pool n=10: MC uniform_subset, SA swap (primary reading)"]
    assert "n = 10, N = 100: MC 9.3% (sampled 8.5%) vs SA 100.0%" in primary["ours"]
    assert "96.5% at n = 10, N = 30" in primary["ours"]
    other = rows["adversarial pool n=10: MC uniform_size, SA swap (sensitivity reading)"]
    assert "cannot produce the paper's MC 11%" in other["ours"]
    dist, _ = kc.reading_match(_record_like(), "uniform_size", "swap")
    assert dist > mg.KN_READING_TOL


def test_mc_vs_sa_exact_rate_decides():
    """At N = 1000 MC's exact rate 0.624 against SA 200/200 puts the gap (at most 0.376)
    below the 0.425 margin: decided, not 'inconclusive, about 1032 seeds' as the sampled
    rate (121/200) left it."""
    rates = _record_like()
    verdict, ours, iv = kc.mc_vs_sa(rates, 10, "uniform_subset", "swap", 1000)
    assert verdict == NOT_REPRODUCED
    assert math.isclose(iv.high, 1 - 0.6236) and "exact" in iv.method
    assert "62.4% exact" in ours
    sampled = rates.assign(exact_rate=np.nan)
    assert kc.mc_vs_sa(sampled, 10, "uniform_subset", "swap", 1000)[0] == INCONCLUSIVE


def test_mc_vs_sa_every_reading_row_is_partly_when_readings_disagree():
    rates = _rates(100, 100, samplers=("uniform_subset", "uniform_size"), moves=("swap",))
    rates.loc[(rates["sampler"] == "uniform_subset"), "success_rate"] = 0.05
    row = _of(_evaluate(rates=rates), "knapsack.mc_vs_sa")["every reading"]
    assert row["verdict"] == PARTLY and row["ours"].startswith("reading-dependent")
    assert "MC uniform_subset, SA swap: n=10 reproduced" in row["ours"]
    assert "MC uniform_size, SA swap: n=10 not reproduced" in row["ours"]
    same = _of(_evaluate(rates=_rates(100, 100)), "knapsack.mc_vs_sa")["every reading"]
    assert same["verdict"] == NOT_REPRODUCED and same["ours"].startswith("the same")


# ---------------------------------------------------------------- search claims
def _runs(
    *,
    pool="p",
    loss=0.0,
    loss_sd=0.0,
    saved=0.9,
    gap=0.0,
    gap_sd=0.0,
    init_gap=0.0,
    init_sd=0.0,
    seeds=10,
    saturated=False,
    seed=0,
    reach=None,
):
    """Selection runs of SA and SS on one pool: 2 budgets x ``seeds``; free runs use 1000
    evaluations, stopped runs ``(1 - saved) * 1000`` at ``loss`` (+- ``loss_sd``) below; SS is
    ``gap`` (+- ``gap_sd``) below SA; SA from the greedy start ``init_gap`` above; ``reach``
    maps each search to its reached_optimum flags, cycled over seeds."""
    rng = np.random.default_rng(seed)
    reach = reach or {SA: [True], SS: [True]}
    rows = []
    for b in (3, 5):
        for s in range(seeds):
            base = {"pool": pool, "budget_multiple": b, "seed": s, "optimum": 0.95}
            base |= {"saturated": saturated, "wall_seconds": 1.0, "setting": ""}
            sa = 0.93
            ss = sa - gap - gap_sd * rng.standard_normal()
            for st, acc in ((SA, sa), (SS, ss)):
                free = base | {"strategy": st, "accuracy": acc, "members": "0 1 2"}
                free |= {"reached_optimum": reach[st][s % len(reach[st])]}
                rows.append(free | {"variant": "stop=none", "evaluations": 1000})
                lost = loss + loss_sd * rng.standard_normal()
                rows.append(
                    free
                    | {"variant": PRIMARY, "accuracy": acc - lost}
                    | {"evaluations": round((1 - saved) * 1000), "stopped_by": "rule"}
                )
            rows.append(
                base
                | {"strategy": SA, "variant": "stop=none", "setting": "sa_init=greedy_forward"}
                | {"accuracy": sa + init_gap + init_sd * rng.standard_normal()}
                | {"evaluations": 1000, "members": "0 1 2", "saturated": False}
            )
    df = pd.DataFrame(rows)
    df["stopped_by"] = df["stopped_by"].fillna("maxstep")
    return df


def test_stopping_saves_two_parts():
    rows = lambda **kw: _of(_evaluate({"p": _runs(**kw)}), "knapsack.stopping_saves")["p"]  # noqa: E731
    assert rows(loss=0.001)["verdict"] == REPRODUCED
    # 90% saved but 0.05 lost: saved holds, accurate fails -> a mixed, decided finding
    assert rows(loss=0.05)["verdict"] == PARTLY
    assert rows(loss=0.05, saved=0.1)["verdict"] == NOT_REPRODUCED
    r = rows(loss=0.004, loss_sd=0.01)
    assert r["verdict"] == INCONCLUSIVE and "loss" in r["repeats_needed"]
    assert r["band_high"] == mg.KN_LOSS_MARGIN


def test_stopping_saves_edges_of_both_margins():
    at = lambda **kw: kc.stopping_verdict(kc.stopping_parts(_runs(**kw), PRIMARY))  # noqa: E731
    eps = 1e-4
    assert at(loss=mg.KN_LOSS_MARGIN - eps) == REPRODUCED
    assert at(loss=mg.KN_LOSS_MARGIN + eps) == PARTLY
    assert at(loss=0.0, saved=mg.KN_SAVED_MIN + 0.01) == REPRODUCED
    assert at(loss=0.0, saved=mg.KN_SAVED_MIN - 0.01) == PARTLY


def test_stopping_saves_shows_the_tradeoff_per_stop_level():
    runs = _runs(loss=0.001)
    other = runs[runs["variant"] == PRIMARY].assign(variant="stop=expected", evaluations=500)
    runs = pd.concat([runs, other], ignore_index=True)
    rows = _evaluate({"p": runs}, stop_variants=[PRIMARY, "stop=expected"])
    ours = _of(rows, "knapsack.stopping_saves")["p"]["ours"]
    assert "left_tail@0.05: 90% saved at loss 0.0010" in ours
    assert "expected: 50% saved at loss 0.0010" in ours


def test_search_claims_leave_out_saturated_cells():
    rows = _evaluate({"p": _runs(saturated=True)})
    for claim in ("knapsack.stopping_saves", "knapsack.ss_competitive"):
        assert _of(rows, claim)["p"]["verdict"] == "not testable here"


def test_ss_competitive_per_pool_and_random_effects_overall():
    runs = {"a": _runs(pool="a", gap=0.0), "b": _runs(pool="b", gap=0.02, gap_sd=0.001)}
    rows = _of(_evaluate(runs), "knapsack.ss_competitive")
    assert rows["a"]["verdict"] == REPRODUCED and rows["b"]["verdict"] == NOT_REPRODUCED
    overall = rows["all pools (random effects)"]
    assert "heterogeneous" in overall["ours"] and overall["n_repeats"] == 2
    inc = _of(_evaluate({"c": _runs(pool="c", gap=0.004, gap_sd=0.01)}), "knapsack.ss_competitive")
    assert inc["c"]["verdict"] == INCONCLUSIVE and "runs" in inc["c"]["repeats_needed"]


def test_ss_competitive_edge_of_the_margin():
    iv = lambda g: kc.competitive(_runs(gap=g, gap_sd=1e-5))  # noqa: E731
    from ensemble_repro.claims.rules import one_sided

    m = mg.KN_COMPETITIVE_MARGIN
    assert one_sided(iv(m - 1e-4), low=-m) == REPRODUCED
    assert one_sided(iv(m + 1e-4), low=-m) == NOT_REPRODUCED


def test_sa_initial_conditions_is_an_equivalence():
    rows = lambda **kw: _of(_evaluate({"p": _runs(**kw)}), "knapsack.sa_initial_conditions")["p"]  # noqa: E731
    m = mg.KN_INIT_MARGIN
    assert rows(init_gap=0.0)["verdict"] == REPRODUCED
    assert rows(init_gap=m - 1e-4, init_sd=1e-6)["verdict"] == REPRODUCED
    assert rows(init_gap=m + 1e-4, init_sd=1e-6)["verdict"] == NOT_REPRODUCED
    assert rows(init_gap=-(m + 1e-4), init_sd=1e-6)["verdict"] == NOT_REPRODUCED
    r = rows(init_gap=0.004, init_sd=0.01)
    assert r["verdict"] == INCONCLUSIVE and r["repeats_needed"]


def test_cost_setting_is_a_sensitivity_setting():
    a = _runs(pool="a")
    flops = _runs(pool="a", gap=0.02, gap_sd=0.001)
    flops = flops[flops["setting"] == ""].assign(setting="cost=flops")
    rows = _of(
        _evaluate({"a": pd.concat([a, flops], ignore_index=True)}), "knapsack.ss_competitive"
    )
    assert (
        rows["a"]["verdict"] == REPRODUCED and "flips under: cost=flops" in rows["a"]["robust_to"]
    )


def test_ss_adapts_better_compares_rates_of_reaching_the_optimum():
    rows = lambda reach: _of(_evaluate({"p": _runs(reach=reach)}), "knapsack.ss_adapts_better")  # noqa: E731
    worse = rows({SA: [True], SS: [True, False]})["p"]  # SS reaches it half as often
    assert worse["verdict"] == NOT_REPRODUCED and math.isclose(worse["effect"], -0.5)
    better = rows({SA: [True, False, False, False], SS: [True]})["p"]
    assert better["verdict"] == REPRODUCED and better["band_low"] == 0.0
    assert rows({SA: [True], SS: [True]})["p"]["verdict"] == NOT_REPRODUCED  # a tie is not better
    mixed = rows({SA: [True, False, True, False, True], SS: [True, True, False, False, True]})
    assert mixed["p"]["verdict"] == INCONCLUSIVE and mixed["p"]["repeats_needed"]
    assert CLAIMS["knapsack.ss_adapts_better"].effect


def test_sa_near_global_tolerance():
    runs = _runs()  # SA at 0.93 against an optimum of 0.95: 0.02 away
    row = _of(_evaluate({"p": runs}), "knapsack.sa_near_global")["p"]
    assert row["verdict"] == NOT_REPRODUCED and math.isclose(row["effect"], 0.02)
    close = runs.assign(optimum=0.93 + mg.KN_NEAR_GLOBAL / 2)
    row = _of(_evaluate({"p": close, "q": close.assign(pool="q")}), "knapsack.sa_near_global")
    assert row["p"]["verdict"] == REPRODUCED and row["p"]["band_high"] == mg.KN_NEAR_GLOBAL
    assert row["all pools (random effects)"]["verdict"] == REPRODUCED
    sat = _of(_evaluate({"p": _runs(saturated=True)}), "knapsack.sa_near_global")["p"]
    assert sat["verdict"] == NOT_TESTABLE


# ---------------------------------------------------------------- independence (section VII)
def _votes(rows=200, members=5, shared=0.0, seed=0):
    """Member correctness on test rows: each right with p = 0.7, ``shared`` of the rows
    decided by one common coin (dependence)."""
    rng = np.random.default_rng(seed)
    own = rng.random((rows, members)) < 0.7
    common = rng.random(rows) < 0.7
    use = rng.random(rows) < shared
    x = np.where(use[:, None], common[:, None], own)
    return pd.DataFrame(x, columns=[f"m{i}" for i in range(members)])


def _chosen(members="0 1 2 3 4"):
    return pd.DataFrame(
        [{"strategy": st, "variant": "stop=none", "members": members} for st in (SA, SS)]
    )


def test_independence_bootstrap_is_deterministic_and_over_test_rows():
    v = _votes()
    a = kc.independence(_chosen(), v, seed=3)
    b = kc.independence(_chosen(), v, seed=3)
    c = kc.independence(_chosen(), v, seed=4)
    assert a == b and a != c and a.n == 200 and "test-row bootstrap" in a.method


def test_independence_holds_for_independent_members_and_fails_for_dependent_ones():
    from ensemble_repro.claims.rules import equivalence

    band = (-mg.KN_INDEPENDENCE_MARGIN, mg.KN_INDEPENDENCE_MARGIN)
    indep = kc.independence(_chosen(), _votes(rows=4000), seed=0)
    assert equivalence(indep, *band) == REPRODUCED
    dep = kc.independence(_chosen(), _votes(rows=4000, shared=0.8), seed=0)
    assert dep.estimate > 0.05 and equivalence(dep, *band) == NOT_REPRODUCED
    small = kc.independence(_chosen(), _votes(rows=60, shared=0.15), seed=0)
    assert equivalence(small, *band) == INCONCLUSIVE


def test_independence_row_reads_the_uci_votes():
    runs = _runs(pool="sonar")
    rows = _evaluate({"sonar": runs}, uci_pools=["sonar"], votes={"sonar": _votes(rows=60)})
    (row,) = _of(rows, "knapsack.independence").values()
    assert row["n_repeats"] == 60 and row["band_high"] == mg.KN_INDEPENDENCE_MARGIN


def test_independence_on_members_without_errors_is_not_testable():
    """Members right on every test row (or wrong on every one) make eq. (1) equal the vote
    whatever their dependence: the row says the pool cannot test it instead of calling the
    zero difference a reproduction. A member with one error and its pool stay testable."""
    perfect = _votes(rows=80)
    perfect[:] = True
    perfect["m4"] = False  # always wrong: still no information on dependence
    runs = _runs(pool="banknote")
    rows = _evaluate({"banknote": runs}, uci_pools=["banknote"], votes={"banknote": perfect})
    (row,) = _of(rows, "knapsack.independence").values()
    assert row["verdict"] == NOT_TESTABLE
    assert "saturated pool" in row["reason"] and "80 test rows" in row["reason"]
    one_error = perfect.copy()
    one_error.loc[0, "m0"] = False
    one_error.loc[0, "m1"] = False  # with m4 always wrong, row 0's vote is wrong: not constant
    assert kc.independence_untestable(_chosen(), one_error) is None
    rows = _evaluate({"banknote": runs}, uci_pools=["banknote"], votes={"banknote": one_error})
    (row,) = _of(rows, "knapsack.independence").values()
    assert row["verdict"] != NOT_TESTABLE


def test_independence_on_a_constant_vote_is_not_testable():
    """Banknote-like: members with a few errors each, on different rows, so the majority vote
    is right on every test row and eq. (1) equals it to rounding."""
    v = _votes(rows=80)
    v[:] = True
    for i in range(4):
        v.loc[i, f"m{i}"] = False
    assert "constant over the 80 test rows" in kc.independence_untestable(_chosen(), v)


def test_independence_says_when_the_test_rows_needed_are_out_of_reach():
    runs = _runs(pool="sonar")
    votes = _votes(rows=60, shared=0.15)
    (row,) = _of(
        _evaluate({"sonar": runs}, uci_pools=["sonar"], votes={"sonar": votes}),
        "knapsack.independence",
    ).values()
    assert row["verdict"] == INCONCLUSIVE
    assert row["repeats_needed"].startswith("out of reach with this data set (needs")
    assert row["repeats_needed"].endswith("has 60)")


# ---------------------------------------------------------------- exact claims
def test_lemma_iv1_from_the_fig1_table():
    table = kx.lemma_iv1_table()
    row = _of(_evaluate(lemma=table), "knapsack.lemma_iv1")["Fig. 1 laws"]
    assert row["verdict"] == REPRODUCED
    bad = table.copy()
    last = bad.groupby(["beta_a", "beta_b"])["ell"].transform("max") == bad["ell"]
    bad.loc[last & (bad["beta_a"] > bad["beta_b"]), "mean"] -= 2 * mg.KN_LEMMA_MEAN_TOL
    row = _of(_evaluate(lemma=bad), "knapsack.lemma_iv1")["Fig. 1 laws"]
    assert row["verdict"] == PARTLY


def _greedy_table(reached, random_worst=0.3):
    return pd.DataFrame(
        [
            {"proposition": "II.1", "strategy": "greedy_forward", "key": "accuracy"}
            | {"pool": "family", "best_known": 0.99, "greedy": 0.99 - reached}
            | {"error": reached, "greedy_how": "library run"},
            {"proposition": "II.1", "strategy": "greedy_forward", "key": "accuracy"}
            | {"pool": "random", "best_known": np.nan, "greedy": np.nan}
            | {"error": random_worst, "greedy_how": "library run"},
        ]
    )


def test_greedy_error_bound_reached_missed_and_broken():
    v = lambda t: kc.greedy_error(t, "II.1")[0]  # noqa: E731
    assert v(_greedy_table(0.5 - mg.KN_PROP_TOL)) == REPRODUCED
    assert v(_greedy_table(0.5 - mg.KN_PROP_TOL - 1e-3)) == INCONCLUSIVE
    assert v(_greedy_table(0.49, random_worst=0.51)) == NOT_REPRODUCED
    row = _of(_evaluate(greedy=_greedy_table(0.3)), "knapsack.greedy_error")["Proposition II.1"]
    assert row["verdict"] == INCONCLUSIVE and row["repeats_needed"]


def test_greedy_worst_case_table_reaches_the_bound_on_the_paper_families():
    cfg = {"greedy_step": 1, "majority": "drop_min"}
    table = kx.greedy_worst_case(cfg, seed=0)
    for prop, *_ in kx.PROPOSITIONS:
        assert kc.greedy_error(table, prop)[0] == REPRODUCED, prop
    assert table["error"].max() <= 0.5


def _sizes(ratio, sd=0.0, draws=20, seed=0):
    rng = np.random.default_rng(seed)
    fill = np.full(draws, 5.0)
    r = ratio * np.exp(sd * rng.standard_normal(draws))
    return pd.DataFrame(
        {"n": 20, "draw": range(draws), "budget_multiple": 3, "fill_mean": fill}
        | {"ell_poisson": fill * r, "ell_time_profile": fill}
    )


def test_eq33_slightly_too_large():
    v = lambda t: _of(_evaluate(sizes=t), "knapsack.eq33_sizes")["synthetic n=20"]  # noqa: E731
    assert v(_sizes(1.2, 0.01))["verdict"] == REPRODUCED
    assert v(_sizes(2.0, 0.01))["verdict"] == PARTLY  # larger, but not slightly
    assert v(_sizes(0.8, 0.01))["verdict"] == PARTLY  # not larger (and so within the factor)
    assert v(_sizes(mg.KN_SLIGHT_FACTOR * 1.01, 0.001))["verdict"] == PARTLY
    assert v(_sizes(mg.KN_SLIGHT_FACTOR * 0.99, 0.001))["verdict"] == REPRODUCED
    r = v(_sizes(1.5, 0.5))
    assert r["verdict"] == INCONCLUSIVE and "pool draws" in r["repeats_needed"]


def _fit(pvalues, power=0.9, needed=None):
    k = len(pvalues)
    return pd.DataFrame(
        {"pool": list("ab")[:k], "members": 31, "grid_rows": 100, "distinct_accuracies": 20}
        | {"a": 8.0, "b": 2.0, "bb_a": 8.0, "bb_b": 2.0, "cvm_statistic": 0.1}
        | {"cvm_pvalue": pvalues, "power": power, "power_level": 0.025}
        | {"members_for_power": needed}
    )


def test_beta_fit_rejections_by_holm():
    rows = _of(_evaluate(beta_fit=_fit([0.001, 0.5])), "knapsack.beta_fit")
    assert rows["a"]["verdict"] == NOT_REPRODUCED and rows["b"]["verdict"] == REPRODUCED
    assert rows["all UCI pools"]["verdict"] == PARTLY
    # each below 0.05, but not after Holm over two pools
    assert _of(_evaluate(beta_fit=_fit([0.03, 0.04])), "knapsack.beta_fit")["a"]["verdict"] == (
        REPRODUCED
    )


def test_beta_fit_not_rejected_counts_only_with_power():
    rows = _of(_evaluate(beta_fit=_fit([0.5, 0.6], power=0.3, needed=124)), "knapsack.beta_fit")
    assert rows["a"]["verdict"] == INCONCLUSIVE
    assert rows["a"]["repeats_needed"].startswith("about 124 members")
    assert "power 30%" in rows["a"]["ours"]
    assert rows["all UCI pools"]["verdict"] == INCONCLUSIVE
    none = _of(_evaluate(beta_fit=_fit([0.5], power=0.3, needed=0)), "knapsack.beta_fit")["a"]
    assert none["repeats_needed"].startswith("more than 496 members")
    assert kc.beta_fit_verdict(True, 0.1) == NOT_REPRODUCED
    assert kc.beta_fit_verdict(False, mg.KN_GOF_POWER) == REPRODUCED


def _grid_pool(tmp_path, counts, m, name="x"):
    p = np.asarray(counts) / m
    path = tmp_path / f"{name}.csv"
    pd.DataFrame({"member": range(p.size), "p": p}).to_csv(path, index=False)
    return path


def test_beta_fit_table_on_a_beta_binomial_pool(tmp_path):
    """Accuracies of Beta-distributed members measured on 40 rows (heavy ties): the grid test
    does not reject them; the grid and its row count are found from the values."""
    rng = np.random.default_rng(0)
    path = _grid_pool(tmp_path, rng.binomial(40, rng.beta(8, 3, 31)), 40)
    a = kx.beta_fit_table([path], 1, "moments")
    assert a.equals(kx.beta_fit_table([path], 1, "moments"))
    assert a["cvm_pvalue"].iloc[0] > 0.05 and a["members"].iloc[0] == 31
    assert a["grid_rows"].iloc[0] == 40 and 0 <= a["power"].iloc[0] <= 1


# ---------------------------------------------------------------- one source for each rule
@pytest.mark.parametrize(
    "claim, constants",
    [
        ("knapsack.worked_example", [f"{mg.KN_WORKED_TOL:g}"]),
        ("knapsack.greedy_error", [f"{mg.KN_PROP_TOL:g}"]),
        ("knapsack.mc_vs_sa", [f"{mg.KN_GAP_MARGIN:g}"]),
        ("knapsack.lemma_iv1", [f"{mg.KN_LEMMA_MEAN_TOL:g}", f"{mg.KN_LEMMA_VAR_TOL:g}"]),
        ("knapsack.eq33_sizes", [f"{mg.KN_SLIGHT_FACTOR:g}x"]),
        ("knapsack.beta_fit", [f"{mg.KN_GOF_LEVEL:g}", f"{mg.KN_GOF_POWER:.0%}"]),
        ("knapsack.mc_vs_sa", [f"{mg.KN_READING_TOL:g}"]),
        ("knapsack.sa_near_global", [f"{mg.KN_NEAR_GLOBAL:g}"]),
        (
            "knapsack.stopping_saves",
            [f"{mg.KN_SAVED_MIN:.0%}", f"{mg.KN_LOSS_MARGIN:g}", f"{mg.KN_SATURATED:g}"],
        ),
        ("knapsack.ss_competitive", [f"-{mg.KN_COMPETITIVE_MARGIN:g}"]),
        ("knapsack.sa_initial_conditions", [f"+-{mg.KN_INIT_MARGIN:g}"]),
        ("knapsack.independence", [f"+-{mg.KN_INDEPENDENCE_MARGIN:g}", str(mg.KN_BOOTSTRAP)]),
    ],
)
def test_registry_rule_text_states_the_evaluators_constants(claim, constants):
    text = CLAIMS[claim].metric + " " + CLAIMS[claim].rule
    for c in constants:
        assert c in text, (claim, c)


def test_experiments_use_the_claims_margins():
    assert kx.SATURATED == mg.KN_SATURATED and kx.LOSS_TOL == mg.KN_LOSS_MARGIN
    assert math.isclose(mg.KN_GAP_MARGIN, (mg.KN_PAPER_SA - mg.KN_PAPER_MC) / 2)
