"""One-feature member pools (knapsack.member_features), MAXSTEP from eq. (29) with its bounds
and the fixed-MAXSTEP sensitivity setting, the small brute-force pools and the two-panel
stopping-savings figure."""

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from workflow_helpers import merged_config

from ensemble_repro.config import check_semantics
from ensemble_repro.knapsack import (
    affordable_size,
    exhaustive,
    fit_beta,
    majority_vote_accuracy,
    stirling_maxstep,
)
from ensemble_repro.knapsack.pools import build_pool
from ensemble_repro.papers.knapsack import cells as kx
from ensemble_repro.papers.knapsack import cost as kcost
from ensemble_repro.papers.knapsack import measured_costs as kc

CONFIG = Path(__file__).resolve().parents[3] / "config"


def _full(name="smoke"):
    return merged_config(CONFIG / f"{name}.yaml")


def _cfg(name="smoke"):
    return _full(name)["knapsack"]


def _one_informative(rows=240, seed=0):
    """Column 0 carries the label (a little noise); columns 1-5 are pure noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    X = rng.normal(size=(rows, 6))
    X[:, 0] = y + 0.15 * rng.normal(size=rows)
    return X, y


def _pool(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return build_pool(X, y, seed=3, **kw)


def test_each_member_fits_on_its_own_random_feature():
    X, y = _one_informative()
    pool, correct = _pool(X, y, member_features=1)
    feats = pool["features"].str.split()
    assert (feats.str.len() == 1).all()
    assert feats.str[0].nunique() > 1  # drawn per member, not one column for all
    sees_label = feats.str[0] == "0"
    # a member seeing only noise is near chance; one seeing column 0 is near perfect
    assert pool.loc[sees_label, "p"].min() > 0.9
    assert pool.loc[~sees_label, "p"].max() < 0.75
    # the draw is the seed's: the same pool twice
    again, _ = _pool(X, y, member_features=1)
    assert again["features"].tolist() == pool["features"].tolist()
    assert again["p"].tolist() == pool["p"].tolist()
    full, _ = _pool(X, y)
    assert set(full["features"]) == {"0 1 2 3 4 5"}


@pytest.mark.parametrize("bad", [0, 7, 1.5])
def test_member_features_out_of_range_is_refused(bad):
    X, y = _one_informative(rows=40)
    msg = rf"member_features must be None or an integer from 1 to the 6 feature columns; got {bad}"
    with pytest.raises(ValueError, match=msg.replace(".", r"\.")):
        build_pool(X, y, seed=0, member_features=bad)


def test_measured_costs_are_keyed_by_member_features(tmp_path):
    split = {"select": 0.25, "test": 0.25}
    full, one = kc.pool_key("wdbc", 7, split), kc.pool_key("wdbc", 7, split, 1)
    pool = pd.DataFrame({"member": ["a"], "train_seconds": [0.5]})
    src = tmp_path / "measured.csv"
    kc.measured_costs(pool, full, 1).to_csv(src, index=False)
    kc.install([src], tmp_path)
    path = kc.costs_path(tmp_path, "wdbc")
    assert kc.has_costs(path, full) and not kc.has_costs(path, one)
    with pytest.raises(kc.MissingCosts, match="member_features 1"):
        kc.read_costs(path, one)
    kc.measured_costs(pool.assign(train_seconds=0.1), one, 1).to_csv(src, index=False)
    kc.install([src], tmp_path)  # the one-feature pool's rows join, the full pool's stay
    assert kc.read_costs(path, full)["train_seconds"].tolist() == [0.5]
    assert kc.read_costs(path, one)["train_seconds"].tolist() == [0.1]


def test_shipped_configs_weaken_the_saturating_pools_only():
    mf = _cfg("config")["member_features"]
    assert mf == {"wdbc": 1, "spambase": 1, "banknote": 1}


# ---------------------------------------------------------------- MAXSTEP from eq. (29)


def _cell_cfg(**kw):
    cfg = _cfg()
    return {**cfg, "n_seeds": 1, "stop_rules": ["left_tail@0.05"], **kw}


def test_eq29_maxstep_bounds_every_run_and_records_the_uncapped_value():
    rng = np.random.default_rng(0)
    p, t = rng.uniform(0.55, 0.8, 12), rng.uniform(0.1, 1.0, 12)
    cfg = _cell_cfg(MAXSTEP="eq29", maxstep_bounds={"floor": 10, "cap": 60})
    runs, _ = kx.selection_cell(p, t, 5, cfg, seeds=[0])
    budget = kx.cell_budget(t, 5)
    a, b = fit_beta(p, cfg["beta_fit"])
    ell = affordable_size(p, t, budget, a, b, cfg["size_estimate"])
    raw = stirling_maxstep(12, ell, floor=None, cap=None)
    assert raw > 60  # the cap binds on this pool
    assert set(runs["maxstep_eq29_uncapped"]) == {raw}
    assert set(runs["maxstep_eq29"]) == {60}
    searches = runs[
        runs["strategy"].isin(kx.SEARCHES) & (runs["strategy"] != "simulated_annealing")
    ]
    free = searches[searches["variant"] == "stop=none"]
    assert (free["evaluations"] == 60).all()  # MC and SS run to the eq. (29) MAXSTEP
    # a fixed MAXSTEP still sets the free runs' budget
    fixed, _ = kx.selection_cell(p, t, 5, {**cfg, "MAXSTEP": 25}, seeds=[0])
    mc = fixed[(fixed["strategy"] == "monte_carlo") & (fixed["variant"] == "stop=none")]
    assert (mc["evaluations"] == 25).all()


def test_fixed_maxstep_is_a_sensitivity_setting_with_the_primary_rule():
    cfg = _cell_cfg(stop_rules=["left_tail@0.05", "tail@0.05"], maxstep_sensitivity=[100])
    plans = {s: c for s, _kind, c, _o in kx.selection_plans(cfg, uci=False)}
    assert plans["maxstep=100"]["MAXSTEP"] == 100
    assert plans["maxstep=100"]["stop_rules"] == ["left_tail@0.05"]
    assert plans[""]["MAXSTEP"] == "eq29"


def test_cost_estimate_bounds_eq29_runs_by_the_cap():
    cfg = _cell_cfg(maxstep_sensitivity=[], sa_init_check=[], budget_multiples=[3])
    cfg["maxstep_bounds"] = {"floor": 10, "cap": 70}
    # 1 budget x 1 seed x 70 steps x 3 searches x (no rule + 1 rule)
    assert kcost.selection_evaluations(cfg, uci=False) == 70 * 3 * 2


def test_config_refuses_a_floor_above_the_cap_and_the_main_maxstep_as_sensitivity():
    full = _full()
    full["knapsack"] = {
        **full["knapsack"],
        "maxstep_bounds": {"floor": 300, "cap": 200},
        "MAXSTEP": 100,
        "maxstep_sensitivity": [100],
    }
    msgs = [m for _path, m in check_semantics(full)]
    assert (
        "config value knapsack.maxstep_bounds.floor = 300 is above knapsack.maxstep_bounds.cap "
        "= 200, so no MAXSTEP satisfies both. Lower the floor or raise the cap" in msgs
    )
    assert any(
        m.startswith("config value knapsack.maxstep_sensitivity.0 = 100 is the main") for m in msgs
    )


def test_paper_config_caps_eq29_and_keeps_the_old_budget_as_sensitivity():
    k = _cfg("config")
    assert k["MAXSTEP"] == "eq29"
    assert k["maxstep_sensitivity"] == [10000]
    assert k["maxstep_bounds"]["floor"] == 1000


# ---------------------------------------------------------------- small brute-force pools


def test_small_pools_brute_force_agrees_with_branch_and_bound():
    cfg = {
        **_cfg(),
        "small_pools": {"sizes": [5, 7], "pools_per_size": 4, "budget_share": 0.4, "seeds": 2},
    }
    table = kx.small_pools(cfg, seed=1)
    assert len(table) == 8
    for row in table.to_dict("records"):
        p, t = (np.array(row[c].split(), dtype=float) for c in ("p", "t"))
        assert p.size == row["n"] and row["budget"] == pytest.approx(0.4 * t.sum())
        budget = row["budget"]
        assert row["best_odd"] == pytest.approx(exhaustive(p, t, budget).accuracy, abs=1e-12)
        assert row["optimum_free"] == pytest.approx(
            exhaustive(p, t, float(t.sum())).accuracy, abs=1e-12
        )
    # Lemma I.1 holds: an even size never beats the best odd one; backward never beats the optimum
    assert (table["best_any"] - table["best_odd"]).abs().max() <= 1e-12
    assert (table["backward"] <= table["optimum_free"] + 1e-12).all()
    assert table["found_within_eq29"].between(0, 1).all()


def test_all_subsets_scores_match_a_naive_loop():
    subsets = kx._all_subsets(4)
    assert subsets.shape == (15, 4) and len({tuple(s) for s in subsets}) == 15
    p = np.array([0.9, 0.6, 0.7, 0.55])
    q = majority_vote_accuracy(np.broadcast_to(p, subsets.shape), subsets)
    for s, qs in zip(subsets, q, strict=True):
        assert qs == pytest.approx(majority_vote_accuracy(p[s]))


# ---------------------------------------------------------------- stopping-savings figure


def test_savings_points_hold_savings_and_loss_of_unsaturated_cells(tmp_path):
    savings = pd.DataFrame(
        {
            "pool": ["a", "a", "a", "b"],
            "budget_multiple": [3, 5, 3, 3],
            "strategy": ["stochastic_search"] * 4,
            "rule": [
                "stop=left_tail@0.05",
                "stop=left_tail@0.05",
                "stop=tail@0.05",
                "stop=left_tail@0.05",
            ],
            "runs": [4, 4, 4, 4],
            "evaluations_free": [100.0, 200.0, 100.0, 100.0],
            "evaluations_rule": [10.0, 50.0, 1.0, 100.0],
            "saved_fraction": [0.9, 0.75, 0.99, 0.0],
            "accuracy_loss_mean": [0.001, 0.003, 0.02, 0.0],
            "accuracy_loss_max": [0.004, 0.01, 0.05, 0.0],
            "saturated": [False, False, False, True],
        }
    )
    points = kx.savings_points(savings, "stop=left_tail@0.05")
    assert points["pool"].tolist() == ["a"]  # b is saturated; tail@0.05 is another rule
    row = points.iloc[0]
    assert row["saved_fraction"] == pytest.approx(0.825)
    assert row["accuracy_loss_mean"] == pytest.approx(0.002)
    assert row["accuracy_loss_max"] == 0.01 and row["cells"] == 2 and row["runs"] == 8
    from ensemble_repro.papers.knapsack import plots as kp

    kp.savings_figure(points, tmp_path / "s.pdf", tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0
    assert not math.isnan(row["evaluations_rule"])


def test_backward_over_odd_sizes_walks_down_while_q_rises():
    # q(top 5) < q(top 3) < q(top 1): walks to the single best member
    p = [0.95, 0.6, 0.6, 0.55, 0.55]
    assert kx.backward_odd(p) == pytest.approx(0.95)
    # q(top 3) > q(top 1) and > q(top 5): stops at 3
    p = [0.8, 0.8, 0.8, 0.51, 0.51]
    assert kx.backward_odd(p) == pytest.approx(majority_vote_accuracy([0.8, 0.8, 0.8]))
