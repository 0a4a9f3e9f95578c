"""Experiment cells of the knapsack paper (Hajdu et al. 2020); each returns tidy tables.

The workflow scripts call these; figures are in :mod:`.knapsack_plots`. ``cfg`` is the
``knapsack:`` config section.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..knapsack import (
    STRATEGIES,
    exhaustive,
    greedy_forward,
    majority_vote_accuracy,
    stopping_rule,
)
from ..knapsack.pools import empirical_vote_accuracy
from .names import SYNTHETIC_PREFIX

SEARCHES = ("monte_carlo", "simulated_annealing", "stochastic_search")
_TOL = 1e-12


def settings(cfg: dict) -> dict:
    """The [I] switches and parameters that shape every knapsack result (named in paper_vs_ours)."""
    keys = (
        "cost",
        "majority",
        "beta_fit",
        "size_estimate",
        "stop_rule",
        "tail_law",
        "stop_levels",
        "MAXSTEP",
        "sa",
        "stochastic_evaluate",
        "mc_sampler",
        "greedy_step",
        "exhaustive_max_n",
        "split",
    )
    return {k: cfg[k] for k in keys}


def _even(cfg):
    return "strict" if cfg["majority"] == "strict" else "drop_min"


def search_options(
    name: str, cfg: dict, *, maxstep: int | None = None, sampler: str | None = None
) -> dict:
    """Keyword options of one search strategy from the config; ``maxstep`` and ``sampler``,
    when given, replace ``MAXSTEP`` and ``mc_sampler`` (which are then not read)."""
    base = {"even": _even(cfg), "maxstep": cfg["MAXSTEP"] if maxstep is None else maxstep}
    if name == "simulated_annealing":
        sa = cfg["sa"]
        return {
            **base,
            "init": sa["init"],
            "rho": sa["rho"],
            "accept0": sa["accept0"],
            "tmin_ratio": sa["tmin_ratio"],
            "moves_per_temp": sa["moves_per_temp"],
            "probe_moves": sa["probe_moves"],
        }
    if name == "stochastic_search":  # maxstep counts evaluations, as for SA and MC
        return {**base, "evaluate": cfg["stochastic_evaluate"], "steps": "evaluations"}
    return {**base, "sampler": cfg["mc_sampler"] if sampler is None else sampler}


def worked_example() -> pd.DataFrame:
    """Section II example: p = (0.510, 0.505 x 4); q of the first 1, 3, 5 members; greedy forward."""
    p = np.array([0.510, 0.505, 0.505, 0.505, 0.505])
    rows = [
        {"quantity": f"q{k}(I{k})", "paper": paper, "ours": round(majority_vote_accuracy(p[:k]), 6)}
        for k, paper in ((1, 0.5100), (3, 0.5100), (5, 0.5112))
    ]
    rows.append(
        {
            "quantity": "greedy forward ensemble size",
            "paper": 1.0,
            "ours": float(len(greedy_forward(p, np.ones(5), 5.0, key="accuracy").members)),
        }
    )
    rows.append(
        {
            "quantity": "exhaustive optimum size",
            "paper": 5.0,
            "ours": float(len(exhaustive(p, np.ones(5), 5.0).members)),
        }
    )
    out = pd.DataFrame(rows)
    out["holds"] = np.isclose(out["ours"].round(4), out["paper"], atol=5e-5)
    return out


def rule_variants(cfg: dict) -> list[str]:
    """Names of the stopping-rule variants run per search; the first after ``stop=none`` is primary.

    One variant per STOP level for the tail rules (``stop_levels``, spec §4.6 sensitivity);
    a single one for ``expected``, which has no level.
    """
    rule = cfg["stop_rule"]
    if rule == "none":
        return ["stop=none"]
    if rule == "expected":
        return ["stop=none", "stop=expected"]
    return ["stop=none"] + [f"stop={rule}@{level:g}" for level in cfg["stop_levels"]]


def _rule_of(variant: str, p, t, budget, cfg):
    """The StoppingRule of a variant name (None for ``stop=none``)."""
    spec = variant.removeprefix("stop=")
    if spec == "none":
        return None
    rule, _, level = spec.partition("@")
    return stopping_rule(
        p,
        t,
        budget,
        rule=rule,
        STOP=float(level) if level else 0.05,
        beta_fit=cfg["beta_fit"],
        size_estimate=cfg["size_estimate"],
        tail_law=cfg["tail_law"],
    )


def adversarial_pool(n: int, beta: float, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Section III pool: D1 = (1 − β, T), D2..Dn = (1/2 + ε, T/n), with T = 1."""
    return np.array([1 - beta] + [0.5 + eps] * (n - 1)), np.array([1.0] + [1.0 / n] * (n - 1))


def adversarial_hit_probability(n: int, sampler: str) -> float:
    """Chance that one Monte Carlo draw is the optimum {D1} of the adversarial pool.

    D1 uses the whole budget, so {D1} is the only feasible set containing it.
    ``uniform_subset``: one of 2^n subsets. ``uniform_size``: D1 is first in the random
    order (then nothing else fits), 1/n. ``bernoulli``: D1 is kept and first among the
    kept items, E[1{D1 kept}/|kept|] = (1 − 2^−n)/n.
    """
    if sampler == "uniform_subset":
        return 2.0**-n
    if sampler == "uniform_size":
        return 1.0 / n
    if sampler == "bernoulli":
        return (1 - 2.0**-n) / n
    raise ValueError(
        f"sampler must be 'uniform_subset', 'uniform_size' or 'bernoulli'; got {sampler!r}"
    )


def adversarial(cfg: dict, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Section III: D1 = (1 − β, T), D2..Dn = (1/2 + ε, T/n); does a search find the optimum?

    Every search gets the same number of energy evaluations, max(checkpoints) (each Monte
    Carlo draw counts, feasible or not); the success rate is read at each checkpoint N, for
    every pool size n and Monte Carlo sampler, next to the exact rate 1 − (1 − P)^N of
    Monte Carlo (P from :func:`adversarial_hit_probability`). Returns (runs, rates).
    """
    adv = cfg["adversarial"]
    budget = int(max(adv["checkpoints"]))
    runs = []
    for n in adv["sizes"]:
        p, t = adversarial_pool(n, adv["beta"], adv["eps"])
        opt = exhaustive(p, t, 1.0).accuracy
        plans = [("simulated_annealing", "", {}), ("stochastic_search", "", {})]
        plans += [("monte_carlo", smp, {"sampler": smp}) for smp in adv["mc_samplers"]]
        for name, sampler, extra in plans:
            opts = search_options(name, cfg, maxstep=budget, **extra)
            for k in range(adv["n_seeds"]):
                res = STRATEGIES[name](p, t, 1.0, random_state=seed + k, **opts)
                hit = res.trace[res.trace[:, 1] >= opt - _TOL]
                runs.append(
                    {
                        "n": n,
                        "strategy": name,
                        "sampler": sampler,
                        "seed": seed + k,
                        "evaluations": res.evaluations,
                        "accuracy": res.accuracy,
                        "optimum": opt,
                        "found_optimum": bool(hit.size),
                        "evaluations_to_optimum": int(hit[0, 0]) if hit.size else -1,
                    }
                )
    runs = pd.DataFrame(runs)
    rates = []
    for (n, name, sampler), grp in runs.groupby(["n", "strategy", "sampler"], sort=True):
        reached = grp["evaluations_to_optimum"].to_numpy()
        per_draw = adversarial_hit_probability(n, sampler) if name == "monte_carlo" else np.nan
        for cp in adv["checkpoints"]:
            rates.append(
                {
                    "n": n,
                    "strategy": name,
                    "sampler": sampler,
                    "within_evaluations": int(cp),
                    "success_rate": float(((reached > 0) & (reached <= cp)).mean()),
                    "exact_rate": 1 - (1 - per_draw) ** cp,
                    "runs": len(grp),
                }
            )
    return runs, pd.DataFrame(rates)


def synthetic_pool(size: int, a: float, b: float, seed: int) -> pd.DataFrame:
    """A leaderboard-like pool: p ~ Beta(a, b), unit costs (Kaggle has no costs, spec §5.2)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "member": [f"m{i:03d}" for i in range(size)],
            "p": rng.beta(a, b, size),
            "cost": np.ones(size),
        }
    )


def pool_costs(pool: pd.DataFrame, cost: str) -> np.ndarray:
    """Costs used for selection, normalised to sum 1: FLOP model (deterministic) or wall time."""
    col = {"flops": "flops", "measured": "train_seconds"}[cost]
    t = pool[col].to_numpy(dtype=float)
    return t / t.sum()


def _run_row(name, variant, res, seconds, opt, correct):
    row = {
        "strategy": name,
        "variant": variant,
        "accuracy": res.accuracy,
        "optimum": opt,
        "gap": opt - res.accuracy if np.isfinite(opt) else np.nan,
        "reached_optimum": bool(np.isfinite(opt) and res.accuracy >= opt - _TOL),
        "evaluations": res.evaluations,
        "best_at": res.best_at,
        "stopped_by": res.stopped_by,
        "n_members": len(res.members),
        "cost": res.cost,
        "members": " ".join(map(str, res.members)),
        "wall_seconds": seconds,
    }
    row["empirical_accuracy"] = (
        empirical_vote_accuracy(correct, res.members) if correct is not None else np.nan
    )
    return row


def _timed(fn, *args, **kw):
    start = time.perf_counter()
    res = fn(*args, **kw)
    return res, time.perf_counter() - start


def selection_cell(p, t, budget_fraction: float, cfg: dict, seeds, correct=None):
    """All strategies on one pool and budget T = fraction × Σt (spec §5.2).

    Searches run per seed without and with the stopping rule. Returns (runs, traces): one
    row per run, and the best-so-far curve of every search run.
    """
    p, t = np.asarray(p, float), np.asarray(t, float)
    budget = max(budget_fraction * t.sum(), t.min())
    if p.size <= cfg["exhaustive_max_n"]:
        ex, secs = _timed(exhaustive, p, t, budget)
        opt = ex.accuracy
        rows = [_run_row("exhaustive", "", ex, secs, opt, correct)]
    else:
        opt, rows = np.nan, []
    for name in ("greedy_forward", "greedy_backward"):
        for key in ("accuracy", "usefulness"):
            kw = {"key": key, "even": _even(cfg)}
            if name == "greedy_forward":
                kw["step"] = cfg["greedy_step"]
            res, secs = _timed(STRATEGIES[name], p, t, budget, **kw)
            rows.append(_run_row(name, key, res, secs, opt, correct))
    variants = rule_variants(cfg)
    rule_objs = {v: _rule_of(v, p, t, budget, cfg) for v in variants}
    traces = []
    for name in SEARCHES:
        for v in variants:
            for s in seeds:
                res, secs = _timed(
                    STRATEGIES[name],
                    p,
                    t,
                    budget,
                    random_state=int(s),
                    stop=rule_objs[v],
                    **search_options(name, cfg),
                )
                row = _run_row(name, v, res, secs, opt, correct)
                row["seed"] = int(s)
                rows.append(row)
                traces.append(
                    pd.DataFrame(
                        {
                            "strategy": name,
                            "stop_rule": v.removeprefix("stop="),
                            "seed": int(s),
                            "evaluation": res.trace[:, 0].astype(int),
                            "best": res.trace[:, 1],
                        }
                    )
                )
    runs = pd.DataFrame(rows)
    runs.insert(0, "budget_fraction", budget_fraction)
    for v, obj in rule_objs.items():
        if obj is not None:
            at = runs["variant"] == v
            runs.loc[at, "rule_threshold"], runs.loc[at, "ell_T"] = obj.threshold, obj.ell_T
            runs.loc[at, "rule_mean"] = obj.mean
    traces = pd.concat(traces, ignore_index=True) if traces else pd.DataFrame()
    traces.insert(0, "budget_fraction", budget_fraction)
    return runs, traces


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread over seeds per pool, budget, strategy and variant."""
    g = runs.groupby(["pool", "budget_fraction", "strategy", "variant"], sort=True, dropna=False)
    out = g.agg(
        runs=("accuracy", "size"),
        accuracy_mean=("accuracy", "mean"),
        accuracy_sd=("accuracy", "std"),
        gap_mean=("gap", "mean"),
        optimum_rate=("reached_optimum", "mean"),
        evaluations_mean=("evaluations", "mean"),
        best_at_mean=("best_at", "mean"),
        empirical_accuracy_mean=("empirical_accuracy", "mean"),
        wall_mean_seconds=("wall_seconds", "mean"),
    ).reset_index()
    out["accuracy_sd"] = out["accuracy_sd"].fillna(0.0)
    out["model_minus_empirical"] = out["accuracy_mean"] - out["empirical_accuracy_mean"]
    return out


def stopping_savings(runs: pd.DataFrame) -> pd.DataFrame:
    """Evaluations (and wall time) saved by the stopping rule, paired by seed."""
    s = runs[runs["strategy"].isin(SEARCHES)]
    free = s[s["variant"] == "stop=none"]
    ruled = s[s["variant"] != "stop=none"]
    keys = ["pool", "budget_fraction", "strategy", "seed"]
    m = free.merge(ruled, on=keys, suffixes=("_free", "_rule"))
    m["evaluations_saved"] = m["evaluations_free"] - m["evaluations_rule"]
    m["saved_fraction"] = m["evaluations_saved"] / m["evaluations_free"]
    m["accuracy_loss"] = m["accuracy_free"] - m["accuracy_rule"]
    m["wall_saved_seconds"] = m["wall_seconds_free"] - m["wall_seconds_rule"]
    out = (
        m.groupby(["pool", "budget_fraction", "strategy", "variant_rule"], sort=True)
        .agg(
            runs=("seed", "size"),
            evaluations_free=("evaluations_free", "mean"),
            evaluations_rule=("evaluations_rule", "mean"),
            evaluations_saved=("evaluations_saved", "mean"),
            saved_fraction=("saved_fraction", "mean"),
            accuracy_loss_mean=("accuracy_loss", "mean"),
            accuracy_loss_max=("accuracy_loss", "max"),
            stopped_by_rule=("stopped_by_rule", lambda x: float(np.mean(x == "rule"))),
            wall_saved_mean_seconds=("wall_saved_seconds", "mean"),
        )
        .reset_index()
    )
    return out.rename(columns={"variant_rule": "rule"})


def stopping_levels(savings: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """Per strategy and rule variant (STOP level): evaluations saved vs accuracy lost.

    Means over pools and budgets of the per-cell means of :func:`stopping_savings`, with the
    share of rule-stopped runs that still reached the exhaustive optimum.
    """
    g = savings.groupby(["strategy", "rule"], sort=True)
    out = g.agg(
        cells=("runs", "size"),
        runs=("runs", "sum"),
        saved_fraction=("saved_fraction", "mean"),
        evaluations_saved=("evaluations_saved", "mean"),
        accuracy_loss_mean=("accuracy_loss_mean", "mean"),
        accuracy_loss_max=("accuracy_loss_max", "max"),
        stopped_by_rule=("stopped_by_rule", "mean"),
    ).reset_index()
    opt = summary.groupby(["strategy", "variant"], sort=True)["optimum_rate"].mean()
    out["optimum_rate"] = [
        opt.get((s, r), np.nan) for s, r in zip(out["strategy"], out["rule"], strict=False)
    ]
    free = [opt.get((s, "stop=none"), np.nan) for s in out["strategy"]]
    out["optimum_rate_no_rule"] = free
    return out


def rule_diagnostics(runs: pd.DataFrame) -> pd.DataFrame:
    """Where the stopping threshold sits, per pool and budget (spec §4.5-4.6 check).

    ℓ_T and E[q_{ℓ_T}] of the Beta model, each variant's threshold, the accuracy of SA's
    starting point (greedy forward by usefulness), the optimum and its size.
    """
    ruled = runs.dropna(subset=["rule_threshold"]) if "rule_threshold" in runs else runs.iloc[:0]
    keys = ["pool", "budget_fraction"]
    if ruled.empty:
        return pd.DataFrame(columns=keys)
    out = (
        ruled.groupby(keys, sort=True)
        .agg(ell_T=("ell_T", "first"), model_mean=("rule_mean", "first"))
        .reset_index()
    )
    thr = ruled.groupby(keys + ["variant"], sort=True)["rule_threshold"].first().unstack("variant")
    thr.columns = [f"threshold_{c.removeprefix('stop=')}" for c in thr.columns]
    out = out.merge(thr.reset_index(), on=keys)
    start = runs[(runs["strategy"] == "greedy_forward") & (runs["variant"] == "usefulness")]
    out = out.merge(
        start[keys + ["accuracy"]].rename(columns={"accuracy": "greedy_start"}), on=keys, how="left"
    )
    ex = runs[runs["strategy"] == "exhaustive"][keys + ["accuracy", "n_members"]]
    return out.merge(
        ex.rename(columns={"accuracy": "optimum", "n_members": "optimum_size"}), on=keys, how="left"
    )


def select_pool(
    pool_name: str, cfg: dict, seed: int, pool_path=None, votes_path=None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every budget of one pool: ``synthetic_n<size>``, or a UCI data set's pool read from
    ``pool_path`` (classifier table) and ``votes_path`` (test votes)."""
    from ..logs import Progress

    seeds = range(seed, seed + cfg["n_seeds"])
    if pool_name.startswith(SYNTHETIC_PREFIX):
        size = int(pool_name[len(SYNTHETIC_PREFIX) :])
        syn = cfg["synthetic"]
        pool = synthetic_pool(size, syn["beta_a"], syn["beta_b"], seed + size)
        p, t, correct, budgets = pool["p"].to_numpy(), pool["cost"].to_numpy(), None, syn["budgets"]
    else:
        pool = pd.read_csv(pool_path)
        correct = pd.read_parquet(votes_path)[list(pool["member"])]
        p, t, budgets = pool["p"].to_numpy(), pool_costs(pool, cfg["cost"]), cfg["budgets"]
    progress = Progress(len(budgets), f"knapsack selection {pool_name}")
    runs, traces = [], []
    for b in budgets:
        r, tr = selection_cell(p, t, b, cfg, seeds, correct)
        runs.append(r)
        traces.append(tr)
        progress.step(f"T={b:g}")
    runs, traces = pd.concat(runs, ignore_index=True), pd.concat(traces, ignore_index=True)
    runs.insert(0, "pool", pool_name)
    traces.insert(0, "pool", pool_name)
    return runs, traces


def cost_model_check(pool_paths) -> pd.DataFrame:
    """How well the deterministic FLOP cost ranks classifiers like their measured training time."""
    from scipy.stats import spearmanr

    rows = []
    for path in pool_paths:
        pool = pd.read_csv(path)
        rows.append(
            {
                "pool": str(path).rsplit("/", 1)[-1].removesuffix(".csv"),
                "members": len(pool),
                "flops_share_max": float(pool["flops"].max() / pool["flops"].sum()),
                "spearman_flops_vs_train_seconds": float(
                    spearmanr(pool["flops"], pool["train_seconds"])[0]
                ),
                "total_train_seconds": float(pool["train_seconds"].sum()),
            }
        )
    return pd.DataFrame(rows)


def read_runs(paths) -> pd.DataFrame:
    """The selection runs of every pool (``knapsack_select`` outputs) as one table."""
    runs = pd.concat(
        [pd.read_csv(p, keep_default_na=False, na_values=[""]) for p in paths], ignore_index=True
    )
    runs["variant"] = runs["variant"].fillna("")
    return runs


def summary_tables(runs: pd.DataFrame, pool_paths) -> dict[str, pd.DataFrame]:
    """The summary tables, keyed like :data:`~.names.KNAPSACK_TABLES` (which names their files
    and titles): strategies, stopping savings, STOP levels, threshold check, cost model."""
    summary, savings = summarize(runs), stopping_savings(runs)
    return {
        "summary": summary,
        "savings": savings,
        "levels": stopping_levels(savings, summary),
        "rule_check": rule_diagnostics(runs),
        "costs": cost_model_check(pool_paths),
    }


def write_summary_figures(
    runs: pd.DataFrame,
    savings: pd.DataFrame,
    cfg: dict,
    *,
    convergence,
    savings_figure,
    empirical_figure,
) -> None:
    """Convergence figure of each pool (``convergence``: (runs csv, traces parquet, pdf, png)
    per pool), stopping savings at the primary STOP level and model vs empirical accuracy
    (``savings_figure`` and ``empirical_figure``: (pdf, png))."""
    from . import knapsack_plots as kp

    for runs_path, traces_path, pdf, png in convergence:
        pool_runs = read_runs([runs_path])
        kp.convergence_figure(
            pd.read_parquet(traces_path),
            pool_runs,
            pool_runs["pool"].iloc[0],
            cfg["MAXSTEP"],
            pdf,
            png,
        )
    primary = rule_variants(cfg)[1:2]
    kp.savings_figure(savings[savings["rule"].isin(primary)], *savings_figure)
    kp.model_vs_empirical_figure(runs[runs["strategy"] != "exhaustive"], *empirical_figure)


def paper_vs_ours_text(worked_path, rates_path, tables: dict[str, pd.DataFrame], cfg: dict) -> str:
    """Markdown of the paper's claims next to ours, from the worked example and adversarial
    tables (``knapsack_examples`` outputs) and :func:`summary_tables`."""
    from . import knapsack_plots as kp

    worked = pd.read_csv(worked_path)
    rates = pd.read_csv(rates_path, keep_default_na=False, na_values=[""])
    rates["sampler"] = rates["sampler"].fillna("")
    primary = rule_variants(cfg)[1:2]
    return kp.paper_vs_ours(
        worked,
        rates,
        tables["summary"],
        tables["savings"],
        tables["levels"],
        tables["rule_check"],
        primary[0] if primary else None,
        settings(cfg),
    )
