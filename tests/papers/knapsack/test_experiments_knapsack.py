"""Knapsack experiment cells (ensemble_repro.papers.knapsack.cells): budgets that bind,
the evaluation budget N from config, the stopping-rule variants, Fig. 1 / Lemma IV.1, and no
verdict words outside the claims package."""

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from workflow_helpers import merged_config

from ensemble_repro.knapsack import exhaustive
from ensemble_repro.knapsack.pools import synthetic_pool
from ensemble_repro.papers.knapsack import cells as kx
from ensemble_repro.papers.knapsack import page as kpage
from ensemble_repro.papers.knapsack import plots as kp

CONFIG = Path(__file__).resolve().parents[3] / "config"


def _cfg(name="smoke"):
    return merged_config(CONFIG / f"{name}.yaml")["knapsack"]


def _adversarial_cfg(**adv):
    base = {
        "sizes": [6],
        "beta": 0.2,
        "eps": 0.01,
        "n_seeds": 300,
        "evaluations": 20,
        "checkpoints": [5, 20],
        "mc_samplers": ["uniform_subset", "uniform_size", "bernoulli"],
        "sa_moves": ["swap"],
    }
    return {**_cfg(), "adversarial": {**base, **adv}}


def test_adversarial_success_rates_match_exact_monte_carlo_rates():
    runs, rates = kx.adversarial(_adversarial_cfg(), seed=0)
    assert set(runs["evaluations"]) <= {20}  # equal budget for every search
    mc = rates[rates["strategy"] == "monte_carlo"]
    assert len(mc) == 6
    for r in mc.itertuples():  # binomial 4-sigma band
        band = 4 * np.sqrt(r.exact_rate * (1 - r.exact_rate) / r.runs) + 1 / r.runs
        assert abs(r.success_rate - r.exact_rate) <= band, r
    at20 = rates[rates["within_evaluations"] == 20].set_index(["strategy", "sampler"])
    rate = at20["success_rate"]
    assert rate[("simulated_annealing", "")] > 0.8 > 0.5 > rate[("monte_carlo", "uniform_subset")]
    assert kx.adversarial_hit_probability(6, "uniform_subset") == 2.0**-6


def test_adversarial_evaluation_budget_n_comes_from_config():
    # N = 30 is not a checkpoint: every search still gets exactly N evaluations and the rates
    # are reported at N (not at max(checkpoints), and not at an N chosen after the runs)
    runs, rates = kx.adversarial(_adversarial_cfg(n_seeds=3, evaluations=30), seed=0)
    assert set(runs["evaluations"]) == {30}
    assert sorted(rates["within_evaluations"].unique()) == [5, 20, 30]
    with pytest.raises(ValueError, match=r"checkpoints must not exceed .*evaluations = 10"):
        kx.adversarial(_adversarial_cfg(n_seeds=3, evaluations=10), seed=0)
    for name in ("smoke", "quick", "config"):
        adv = _cfg(name)["adversarial"]
        assert max(adv["checkpoints"]) <= adv["evaluations"]


def test_budget_is_a_multiple_of_the_median_cost_and_saturated_cells_are_flagged():
    p = np.array([0.9, 0.85, 0.8, 0.75, 0.7, 0.7, 0.65])
    t = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 100.0])
    assert kx.cell_budget(t, 3) == 12.0  # 3 x median 4
    assert kx.cell_budget(t, 0.1) == 1.0  # at least the cheapest member
    cfg = {**_cfg(), "stop_rules": ["left_tail@0.05"], "MAXSTEP": 50}
    runs = pd.concat(
        [kx.selection_cell(p, t, m, cfg, seeds=[0, 1])[0] for m in (3, 40)], ignore_index=True
    )
    runs.insert(0, "pool", "hand")
    cells = kx.summarize(runs).groupby("budget_multiple")[["optimum", "optimum_size", "saturated"]]
    cells = cells.first()
    for m, budget in ((3, 12.0), (40, 160.0)):
        ex = exhaustive(p, t, budget)
        assert cells.loc[m, "optimum"] == pytest.approx(ex.accuracy)
        assert cells.loc[m, "optimum_size"] == len(ex.members)
    # T = 12 binds; T = 160 affords the whole pool (q 0.986 < 0.999 but nothing is chosen)
    assert not cells.loc[3, "saturated"] and cells.loc[40, "saturated"]
    levels = kx.stopping_levels(kx.stopping_savings(runs), kx.summarize(runs))
    assert (levels["cells"] == 1).all()  # the saturated cell is left out of the averages


def test_whole_pool_budget_is_saturated_and_an_unknown_optimum_is_nan_not_zero():
    p = np.array([0.9, 0.85, 0.8, 0.75, 0.7, 0.7, 0.65])
    t = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 100.0])
    # the optimum is not computed (exhaustive_max_n below the pool size): a budget that affords
    # the whole pool is still saturated, and the share reaching the optimum is unknown
    cfg = {**_cfg(), "stop_rules": ["left_tail@0.05"], "MAXSTEP": 50, "exhaustive_max_n": 1}
    runs = pd.concat(
        [kx.selection_cell(p, t, m, cfg, seeds=[0])[0] for m in (3, 1000)], ignore_index=True
    )
    runs.insert(0, "pool", "hand")
    cells = kx.summarize(runs).groupby("budget_multiple")
    assert not cells["saturated"].first()[3] and cells["saturated"].first()[1000]
    assert cells["optimum_rate"].apply(lambda r: r.isna().all()).all()


def test_stop_rules_order_thresholds_and_stopping_times():
    cfg = {**_cfg(), "stop_rules": ["tail@0.05", "tail@0.01", "tail@0.1"], "MAXSTEP": 400}
    assert kx.rule_variants(cfg) == [
        "stop=none",
        "stop=tail@0.05",
        "stop=tail@0.01",
        "stop=tail@0.1",
    ]
    rng = np.random.default_rng(4)
    p, t = rng.beta(8, 4, 30), np.ones(30)
    runs, _ = kx.selection_cell(p, t, 5, cfg, seeds=[0, 1])
    runs.insert(0, "pool", "syn")
    thr = runs.groupby("variant")["rule_threshold"].first()
    assert thr["stop=tail@0.01"] > thr["stop=tail@0.05"] > thr["stop=tail@0.1"]
    s = runs[runs["strategy"].isin(kx.SEARCHES)].set_index(["strategy", "seed", "variant"])
    ev = s["evaluations"].unstack("variant")  # the same run, truncated earlier
    assert (ev["stop=tail@0.01"] >= ev["stop=tail@0.05"]).all()
    assert (ev["stop=tail@0.05"] >= ev["stop=tail@0.1"]).all()
    assert (ev["stop=none"] >= ev["stop=tail@0.01"]).all()
    levels = kx.stopping_levels(kx.stopping_savings(runs), kx.summarize(runs))
    assert len(levels) == 3 * len(kx.SEARCHES)
    assert (levels["accuracy_loss_mean"] >= -1e-12).all()
    check = kx.rule_diagnostics(runs)
    # unit costs, T = 5 x median = 5: five members fit
    assert check["ell_T"].iloc[0] == 5 and check["optimum_size"].iloc[0] == 5


def test_savings_count_only_runs_within_the_loss_tolerance():
    runs = pd.DataFrame(
        [
            {"variant": v, "seed": s, "accuracy": acc, "evaluations": ev}
            | {"pool": "x", "budget_multiple": 3, "strategy": "stochastic_search"}
            | {"wall_seconds": 1.0, "stopped_by": "rule", "saturated": False}
            for s, loss in ((0, 0.001), (1, 0.02))
            for v, acc, ev in (("stop=none", 0.9, 1000), ("stop=left_tail@0.05", 0.9 - loss, 100))
        ]
    )
    paired = kx.paired_savings(runs).set_index("seed")
    assert paired.loc[0, "saved_within_loss"] == pytest.approx(0.9)
    assert paired.loc[1, "saved_within_loss"] == 0.0 and paired.loc[1, "saved_fraction"] == 0.9


def test_lemma_iv1_limits_and_fig1_table():
    table = kx.lemma_iv1_table()
    assert sorted(table["ell"].unique())[:3] == [1, 3, 5]
    assert {(a, b) for a, b in zip(table["beta_a"], table["beta_b"], strict=True)} == set(
        kx.FIG1_BETAS
    )
    means = set()
    for (a, b), grp in table.groupby(["beta_a", "beta_b"]):
        last = grp.iloc[-1]
        # the three limits of Fig. 1 are reached: mean 1 / 1/2 / 0, variance 0 or
        # arcsin(4 var_p) / (2 pi) at mu_p = 1/2 (about 0.0145 for Beta(5, 5))
        assert abs(last["mean"] - last["mean_limit"]) < 0.02, (a, b)
        assert abs(last["var"] - last["var_limit"]) < 0.002, (a, b)
        means.add(last["mean_limit"])
    assert means == {0.0, 0.5, 1.0}


def test_fig1_and_numbers_page_carry_no_verdict_words(tmp_path):
    kp.lemma_figure(kx.lemma_iv1_table(), tmp_path / "f.pdf", tmp_path / "f.png")
    assert (tmp_path / "f.pdf").stat().st_size > 0 and (tmp_path / "f.png").stat().st_size > 0
    worked = kx.worked_example()
    assert "holds" not in worked.columns
    _, rates = kx.adversarial(_adversarial_cfg(n_seeds=3), seed=0)
    rates = rates.assign(sampler=rates["sampler"].fillna(""), moves=rates["moves"].fillna(""))
    rng = np.random.default_rng(0)
    runs, _ = kx.selection_cell(rng.beta(8, 4, 12), rng.exponential(1, 12), 3, _cfg(), [0, 1])
    runs.insert(0, "pool", "syn")
    tables = kx.summary_tables(runs, [], seed=0, beta_fit="moments")
    text = kpage.paper_vs_ours(
        worked, rates, tables["summary"], tables["levels"], tables["rule_check"], 20, {}, []
    )
    words = r"\b(holds|yes|no|True|False|reproduced|not observed)\b"
    assert not re.search(words, text.replace("paper vs ours", "")), re.search(words, text)


def test_quick_config_synthetic_cells_bind():
    """Every quick comparison cell binds (optimum q < 0.999, fewer members than the
    pool); the synthetic pools are checked here (the UCI pools need the data)."""
    quick = merged_config(CONFIG / "quick.yaml")
    cfg, seed = quick["knapsack"], quick["seed"]
    syn = cfg["synthetic"]
    for n in syn["sizes"]:
        p, t = synthetic_pool(
            n, syn["beta_a"], syn["beta_b"], cost=syn["costs"], random_state=seed + n
        )
        for m in cfg["budget_multiples"]:
            ex = exhaustive(p, t, kx.cell_budget(t, m))
            assert ex.accuracy < kx.SATURATED and len(ex.members) < n, (n, m, ex.accuracy)


def test_convergence_figure_skips_evaluations_no_run_has_reached(tmp_path):
    """The summary's 'Mean of empty slice' warning: every run's first feasible ensemble comes
    after evaluation 1 (SA from the empty set), so the first grid points have no value."""
    traces = pd.DataFrame(
        {
            "budget_multiple": 3,
            "stop_rule": "none",
            "strategy": "simulated_annealing",
            "seed": [0, 0, 1, 1],
            "evaluation": [5, 50, 7, 60],
            "best": [0.8, 0.9, 0.8, 0.85],
        }
    )
    runs = pd.DataFrame({"budget_multiple": [3], "strategy": ["exhaustive"], "accuracy": [0.95]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        kp.convergence_figure(traces, runs, "x", tmp_path / "c.pdf", tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 0
