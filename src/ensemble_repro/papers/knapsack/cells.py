"""Experiment cells of the knapsack paper (Hajdu et al. 2020); each returns tidy tables.

The workflow scripts call these; figures are in :mod:`.plots`. ``cfg`` is the
``knapsack:`` config section.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from ...io import read_parquet
from ...knapsack import (
    STRATEGIES,
    affordable_size,
    beta_gof,
    exhaustive,
    fit_beta,
    greedy_backward,
    greedy_forward,
    majority_vote_accuracy,
    q_identical,
    q_moment_curve,
    stirling_maxstep,
    stochastic_search,
    stopping_rule,
)
from ...knapsack.pools import empirical_vote_accuracy, synthetic_pool
from .margins import (
    KN_GOF_DRAWS,
    KN_GOF_LEVEL,
    KN_GOF_POWER,
    KN_GOF_POWER_DRAWS,
    KN_GOF_POWER_REPS,
    KN_GOF_SIZE_MULTIPLES,
    KN_LOSS_MARGIN,
    KN_SATURATED,
)
from .names import KNAPSACK_PAGE_SETTINGS, KNAPSACK_PAGE_TABLES, synthetic_size

SEARCHES = ("monte_carlo", "simulated_annealing", "stochastic_search")
#: Setting of the runs under a MAXSTEP of ``knapsack.maxstep_sensitivity``: ``maxstep=<m>``.
MAXSTEP_SETTING = "maxstep="
_TOL = 1e-12
#: Cells whose optimum reaches this q (or holds the whole pool) are saturated: every search
#: ties there, so they are flagged and left out of every average (the claims' margin).
SATURATED = KN_SATURATED
#: Accuracy a stopping rule may lose for its saving to count in ``saved_within_loss`` (the
#: stopping claim's non-inferiority margin).
LOSS_TOL = KN_LOSS_MARGIN


def settings(cfg: dict) -> dict:
    """The [I] switches and parameters that shape every knapsack result (named in paper_vs_ours,
    :data:`.names.KNAPSACK_PAGE_SETTINGS`)."""
    return {k: cfg[k] for k in KNAPSACK_PAGE_SETTINGS}


def _even(cfg):
    return "strict" if cfg["majority"] == "strict" else "drop_min"


def search_options(name: str, cfg: dict, *, maxstep: int, sampler: str | None = None) -> dict:
    """Keyword options of one search strategy from the config, with ``maxstep`` evaluations;
    ``sampler``, when given, replaces ``mc_sampler`` (which is then not read)."""
    base = {"even": _even(cfg), "maxstep": int(maxstep)}
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
    return pd.DataFrame(rows)


#: Fig. 1 of the paper: Beta(α_p, β_p) laws of p with μ_p above, at and below 1/2 (the three
#: limits of Lemma IV.1; the paper's parameters are not given [I]), and the odd sizes drawn.
FIG1_BETAS = ((8.0, 4.0), (5.0, 5.0), (4.0, 8.0))
FIG1_MAX_SIZE = 99


def lemma_iv1_table() -> pd.DataFrame:
    """Fig. 1 data: E[q_ℓ] and Var[q_ℓ] of the Beta model at odd ℓ up to :data:`FIG1_MAX_SIZE`
    for each law of :data:`FIG1_BETAS`, with their Lemma IV.1 limits (:func:`q_moment_curve`)."""
    sizes = range(1, FIG1_MAX_SIZE + 1, 2)
    return pd.concat(
        [q_moment_curve(sizes, a, b).assign(beta_a=a, beta_b=b) for a, b in FIG1_BETAS],
        ignore_index=True,
    )


#: Propositions II.1-4: pool families on which each greedy strategy's error approaches 1/2.
#: ``crowd``: D1 = (1/2 + 2ε, cost T) and m members (1/2 + ε, cost T/(m + 1)); accuracy-keyed
#: greedy keeps D1 (the most accurate member) alone, while the m-member crowd fits and its q
#: tends to 1 as ε√m grows. ``adversarial``: section III's pool (:func:`adversarial_pool`);
#: usefulness-keyed greedy takes the cheap members and never D1 = (1 − β, T). Each entry is
#: (ε, m) or (β, ε, n).
PROP_CROWD = ((0.05, 101), (0.02, 2001), (0.01, 40001), (0.005, 250001))
PROP_ADVERSARIAL = ((0.2, 0.01, 10), (0.05, 0.005, 10), (0.01, 0.001, 10), (0.01, 0.001, 50))
#: Largest crowd on which the accuracy-keyed greedy strategies are run by the library. On
#: larger crowds their path is the same: forward compares sets of D1 and one or two crowd
#: members whatever m; backward always removes a crowd member (that leaves a higher q than
#: removing the more accurate D1, q being increasing in every member's accuracy), so both end
#: at {D1}.
PROP_LIBRARY_MAX = 101
#: Random pools (p ~ U(1/2, 1), costs ~ U(0.1, 1), T = 1/3 of the total) searched for a greedy
#: error above 1/2, and their size.
PROP_RANDOM_POOLS, PROP_RANDOM_SIZE = 300, 9
#: (proposition, strategy, key) of Propositions II.1-4.
PROPOSITIONS = (
    ("II.1", "greedy_forward", "accuracy"),
    ("II.2", "greedy_backward", "accuracy"),
    ("II.3", "greedy_forward", "usefulness"),
    ("II.4", "greedy_backward", "usefulness"),
)


def _greedy(strategy, key, p, t, budget, cfg):
    kw = {"key": key, "even": _even(cfg)}
    if strategy == "greedy_forward":
        kw["step"] = cfg["greedy_step"]
    return STRATEGIES[strategy](p, t, budget, **kw)


def greedy_worst_case(cfg: dict, seed: int) -> pd.DataFrame:
    """Propositions II.1-4: greedy selection can miss the optimum by up to 1/2.

    For each proposition's strategy (forward / backward, by accuracy / by usefulness eq. 4):
    its error q* − q_greedy on a family of pools where the error approaches 1/2
    (:data:`PROP_CROWD` for the accuracy keys, :data:`PROP_ADVERSARIAL` for usefulness), where
    q* is the q of the best ensemble known (the exhaustive optimum on the adversarial pools, the
    affordable crowd on the crowd pools: a lower bound on the error there); and its largest
    error over :data:`PROP_RANDOM_POOLS` random pools with every p > 1/2 (exhaustive optimum),
    a search for an error above the bound. Returns one row per strategy and pool.
    """
    rows = []
    for prop, strategy, key in PROPOSITIONS:
        if key == "accuracy":
            for eps, m in PROP_CROWD:
                p1, pc = 0.5 + 2 * eps, 0.5 + eps
                crowd = float(q_identical(m - (1 - m % 2), pc))
                if m > PROP_LIBRARY_MAX:
                    q, size, how = p1, 1, "same path as the library run on smaller crowds"
                else:
                    p = np.array([p1] + [pc] * m)
                    if strategy == "greedy_forward":  # the error holds without a time constraint
                        t, budget = np.ones(m + 1), float(m + 1)
                    else:
                        t, budget = np.array([1.0] + [1.0 / (m + 1)] * m), 1.0
                    res = _greedy(strategy, key, p, t, budget, cfg)
                    q, size, how = res.accuracy, len(res.members), "library run"
                rows.append(
                    {
                        "proposition": prop,
                        "strategy": strategy,
                        "key": key,
                        "pool": f"crowd eps={eps:g} m={m}",
                        "n": m + 1,
                        "best_known": crowd,
                        "greedy": q,
                        "greedy_size": size,
                        "error": crowd - q,
                        "greedy_how": how,
                    }
                )
        else:
            for beta, eps, n in PROP_ADVERSARIAL:
                p, t = adversarial_pool(n, beta, eps)
                opt = exhaustive(p, t, 1.0).accuracy
                res = _greedy(strategy, key, p, t, 1.0, cfg)
                rows.append(
                    {
                        "proposition": prop,
                        "strategy": strategy,
                        "key": key,
                        "pool": f"adversarial beta={beta:g} eps={eps:g} n={n}",
                        "n": n,
                        "best_known": opt,
                        "greedy": res.accuracy,
                        "greedy_size": len(res.members),
                        "error": opt - res.accuracy,
                        "greedy_how": "library run",
                    }
                )
        rng = np.random.default_rng(seed)
        worst = -np.inf
        for _ in range(PROP_RANDOM_POOLS):
            p = rng.uniform(0.5, 1.0, PROP_RANDOM_SIZE)
            t = rng.uniform(0.1, 1.0, PROP_RANDOM_SIZE)
            budget = float(t.sum() / 3)
            opt = exhaustive(p, t, budget).accuracy
            worst = max(worst, opt - _greedy(strategy, key, p, t, budget, cfg).accuracy)
        rows.append(
            {
                "proposition": prop,
                "strategy": strategy,
                "key": key,
                "pool": f"{PROP_RANDOM_POOLS} random pools, largest error",
                "n": PROP_RANDOM_SIZE,
                "best_known": np.nan,
                "greedy": np.nan,
                "greedy_size": np.nan,
                "error": worst,
                "greedy_how": "library run, exhaustive optimum",
            }
        )
    return pd.DataFrame(rows)


#: Random-order fills drawn per pool and budget to measure the size that fits (eq. 33 claim).
SIZE_FILLS = 200


def size_estimates(cfg: dict, seed: int) -> pd.DataFrame:
    """Eq. (33) vs eq. (22): estimated ensemble sizes ℓ_T against the sizes that fit.

    ``knapsack.size_draws`` synthetic pools per size of ``knapsack.synthetic.sizes`` (p ~
    Beta(a, b), costs from the time profile λ = 1 − p, section IV-B: the setting of eq. 33),
    at every budget multiple. Per pool and budget: ℓ_T by eq. (33) (``poisson``, the Poisson
    upper 5% quantile, and ``poisson_normal``), by the time-profile mean (``time_profile``,
    our reading of eq. 22) and the budget's ``affordable`` size, next to ``fill_mean``: the
    mean size of :data:`SIZE_FILLS` random-order fills of the budget (members added in random
    order while they fit, the sizes the searches build).
    """
    syn = cfg["synthetic"]
    rng = np.random.default_rng(seed)
    rows = []
    for n in syn["sizes"]:
        for draw in range(cfg["size_draws"]):
            p, t = synthetic_pool(
                n, syn["beta_a"], syn["beta_b"], cost="time_profile", random_state=rng
            )
            a, b = fit_beta(p, cfg["beta_fit"])
            for multiple in cfg["budget_multiples"]:
                budget = cell_budget(t, multiple)
                fills = []
                for _ in range(SIZE_FILLS):
                    c = np.cumsum(t[rng.permutation(n)])
                    fills.append(int(np.searchsorted(c, budget * (1 + _TOL), side="right")))
                row = {"n": n, "draw": draw, "budget_multiple": multiple}
                row |= {
                    f"ell_{m}": affordable_size(p, t, budget, a, b, m)
                    for m in ("poisson", "poisson_normal", "time_profile", "affordable")
                }
                row["fill_mean"] = float(np.mean(fills))
                rows.append(row)
    return pd.DataFrame(rows)


def beta_fit_table(pool_paths, seed: int, beta_fit: str) -> pd.DataFrame:
    """Goodness of fit of the Beta model to each UCI pool's member accuracies (section IV-A).

    The accuracies lie on the grid of the ``grid_rows`` selection rows they were measured on;
    :mod:`~ensemble_repro.knapsack.beta_gof` tests the Beta-binomial law on that grid
    (``bb_a``, ``bb_b``: its moments fit; ``cvm_statistic``, ``cvm_pvalue``: discrete
    Cramér-von Mises, :data:`.margins.KN_GOF_DRAWS` parametric-bootstrap draws) and gives its
    ``power`` against the two-point law of the same mean and variance at ``power_level``
    (:data:`.margins.KN_GOF_LEVEL` over the pools, the strictest step of Holm's procedure);
    ``members_for_power`` is the smallest pool of :data:`.margins.KN_GOF_SIZE_MULTIPLES` times
    the members whose power reaches :data:`.margins.KN_GOF_POWER` (0: none of them; empty: the
    pool's own size does). ``a``, ``b`` are the ``beta_fit`` fit the stopping rule uses. Each
    pool's draws are seeded by ``seed`` and its position.
    """
    from ...logs import Progress

    rows = []
    level = KN_GOF_LEVEL / max(len(pool_paths), 1)
    progress = Progress(
        len(pool_paths), "knapsack Beta-model fit (grid bootstrap and its power), pool"
    )
    for i, path in enumerate(pool_paths):
        pool = pd.read_csv(path)
        p = pool["p"].to_numpy(float)
        m = beta_gof.accuracy_grid(p)
        counts = np.round(p * m).astype(int)
        rng = np.random.default_rng([seed, i])
        test = beta_gof.gof_test(counts, m, draws=KN_GOF_DRAWS, rng=rng)

        def power_at(k, test=test, m=m, rng=rng):
            return beta_gof.power(
                test["a"],
                test["b"],
                m,
                k,
                level=level,
                reps=KN_GOF_POWER_REPS,
                draws=KN_GOF_POWER_DRAWS,
                rng=rng,
            )

        pw = power_at(p.size)
        needed = None
        if pw < KN_GOF_POWER:
            sizes = [p.size * f for f in KN_GOF_SIZE_MULTIPLES]
            needed = next((k for k in sizes if power_at(k) >= KN_GOF_POWER), 0)
        a, b = fit_beta(np.clip(p, 1e-6, 1 - 1e-6), beta_fit)
        progress.step(Path(path).stem)
        rows.append(
            {
                "pool": Path(path).stem,
                "members": p.size,
                "grid_rows": m,
                "distinct_accuracies": int(np.unique(p).size),
                "a": a,
                "b": b,
                "bb_a": test["a"],
                "bb_b": test["b"],
                "cvm_statistic": test["statistic"],
                "cvm_pvalue": test["pvalue"],
                "power": pw,
                "power_level": level,
                "members_for_power": needed,
            }
        )
    cols = ["pool", "members", "grid_rows", "distinct_accuracies", "a", "b", "bb_a", "bb_b"]
    cols += ["cvm_statistic", "cvm_pvalue", "power", "power_level", "members_for_power"]
    return pd.DataFrame(rows, columns=cols)


def rule_variants(cfg: dict) -> list[str]:
    """Names of the stopping-rule variants run per search: ``stop=none``, then one per entry of
    ``stop_rules`` (``<rule>@<STOP>`` or ``expected``); the first after ``stop=none`` is the
    primary rule (the paper's left-sided test), the others are sensitivity settings."""
    return ["stop=none"] + [f"stop={rule}" for rule in cfg["stop_rules"]]


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
        maxstep_floor=cfg["maxstep_bounds"]["floor"],
        maxstep_cap=cfg["maxstep_bounds"]["cap"],
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


def adversarial_plans(adv: dict) -> list[tuple[str, str, str]]:
    """(strategy, Monte Carlo sampler, SA move set) of each search of the adversarial example
    (``knapsack.adversarial``): SA per move set, stochastic search, Monte Carlo per sampler."""
    plans = [("simulated_annealing", "", m) for m in adv["sa_moves"]]
    plans += [("stochastic_search", "", "")]
    return plans + [("monte_carlo", smp, "") for smp in adv["mc_samplers"]]


def adversarial(cfg: dict, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Section III: D1 = (1 − β, T), D2..Dn = (1/2 + ε, T/n); does a search find the optimum?

    Every search gets the same number N of energy evaluations, ``adversarial.evaluations``,
    fixed in config before the run (each Monte Carlo draw counts, feasible or not); the
    success rate is read at each checkpoint up to N and at N, for every pool size n and Monte
    Carlo sampler, next to the exact rate 1 − (1 − P)^N of Monte Carlo (P from
    :func:`adversarial_hit_probability`). Returns (runs, rates).
    """
    adv = cfg["adversarial"]
    budget = int(adv["evaluations"])
    if max(adv["checkpoints"]) > budget:
        raise ValueError(
            f"knapsack.adversarial.checkpoints must not exceed knapsack.adversarial.evaluations "
            f"= {budget}; got {adv['checkpoints']}: lower them or raise evaluations"
        )
    from ...logs import Progress

    checkpoints = sorted({int(c) for c in adv["checkpoints"]} | {budget})
    runs = []
    plans = adversarial_plans(adv)
    progress = Progress(
        len(adv["sizes"]) * len(plans), f"knapsack adversarial pool, {adv['n_seeds']} seeds of"
    )
    for n in adv["sizes"]:
        p, t = adversarial_pool(n, adv["beta"], adv["eps"])
        opt = exhaustive(p, t, 1.0).accuracy
        for name, sampler, moves in plans:
            opts = search_options(name, cfg, maxstep=budget, sampler=sampler or None)
            if moves:
                opts["moves"] = moves
            for k in range(adv["n_seeds"]):
                res = STRATEGIES[name](p, t, 1.0, random_state=seed + k, **opts)
                hit = res.trace[res.trace[:, 1] >= opt - _TOL]
                runs.append(
                    {
                        "n": n,
                        "strategy": name,
                        "sampler": sampler,
                        "moves": moves,
                        "seed": seed + k,
                        "evaluations": res.evaluations,
                        "accuracy": res.accuracy,
                        "optimum": opt,
                        "found_optimum": bool(hit.size),
                        "evaluations_to_optimum": int(hit[0, 0]) if hit.size else -1,
                    }
                )
            progress.step(f"n = {n}, " + " ".join(x for x in (name, sampler, moves) if x))
    runs = pd.DataFrame(runs)
    rates = []
    keys = ["n", "strategy", "sampler", "moves"]
    for (n, name, sampler, moves), grp in runs.groupby(keys, sort=False):  # config order
        reached = grp["evaluations_to_optimum"].to_numpy()
        per_draw = adversarial_hit_probability(n, sampler) if name == "monte_carlo" else np.nan
        for cp in checkpoints:
            rates.append(
                {
                    "n": n,
                    "strategy": name,
                    "sampler": sampler,
                    "moves": moves,
                    "within_evaluations": int(cp),
                    "success_rate": float(((reached > 0) & (reached <= cp)).mean()),
                    "exact_rate": 1 - (1 - per_draw) ** cp,
                    "runs": len(grp),
                }
            )
    return runs, pd.DataFrame(rates)


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
        # unknown optimum (pool above exhaustive_max_n): NaN, so optimum_rate is NaN, not 0
        "reached_optimum": float(res.accuracy >= opt - _TOL) if np.isfinite(opt) else np.nan,
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


#: ``knapsack.MAXSTEP`` value that takes MAXSTEP from eq. (29) per pool and budget.
EQ29 = "eq29"


def eq29_maxstep(p, t, budget: float, cfg: dict) -> tuple[int, int]:
    """MAXSTEP of eq. (29) for one pool and budget: (bounded, uncapped).

    Stirling's count of the C(n, ℓ_T) ensembles of the estimated size ℓ_T
    (:func:`~ensemble_repro.knapsack.stirling_maxstep`); the bounded value lies within
    ``maxstep_bounds`` [I]: the floor is the paper's "sufficiently large value" for small
    pools, the cap our choice for compute (the uncapped value is reported beside it).
    """
    a, b = fit_beta(p, cfg["beta_fit"])
    ell = affordable_size(p, t, budget, a, b, cfg["size_estimate"])
    bounds = cfg["maxstep_bounds"]
    raw = stirling_maxstep(len(p), ell, floor=None, cap=None)
    return stirling_maxstep(len(p), ell, floor=bounds["floor"], cap=bounds["cap"]), raw


def _maxstep(rule, cfg, eq29: int) -> int:
    """Evaluations a run may use: with ``MAXSTEP: eq29`` the cell's eq. (29) MAXSTEP
    ``eq29`` for every run; with a fixed MAXSTEP, that number without a rule and with one the
    rule's eq. (29) MAXSTEP when it is smaller (so a stopped run is the free run cut short)."""
    if cfg["MAXSTEP"] == EQ29:
        return int(eq29)
    if rule is None or rule.maxstep is None:
        return int(cfg["MAXSTEP"])
    return int(min(cfg["MAXSTEP"], rule.maxstep))


def cell_budget(t, multiple: float) -> float:
    """T = ``multiple`` × the median member cost (at least the cheapest member's cost), so the
    optimum holds a handful of members whatever the spread of the costs."""
    t = np.asarray(t, float)
    return float(max(multiple * np.median(t), t.min()))


def selection_cell(
    p, t, multiple: float, cfg: dict, seeds, correct=None, *, searches=SEARCHES, baselines=True
):
    """All strategies on one pool and budget T = ``multiple`` × median cost (:func:`cell_budget`).

    Searches (``searches``) run per seed without and with each stopping rule; ``baselines``:
    the exhaustive optimum and the greedy strategies too. Every row carries the exhaustive
    optimum's q and size and whether the cell is ``saturated`` (the budget affords the whole
    pool, or the optimum's q >= :data:`SATURATED` or it holds the whole pool): there every
    search ties, and the
    summaries leave such cells out. Returns (runs, traces): one row per run, and the
    best-so-far curve of every search run.
    """
    p, t = np.asarray(p, float), np.asarray(t, float)
    budget = cell_budget(t, multiple)
    if baselines and p.size <= cfg["exhaustive_max_n"]:
        ex, secs = _timed(exhaustive, p, t, budget)
        opt = ex.accuracy
        rows = [_run_row("exhaustive", "", ex, secs, opt, correct)]
    else:
        opt, rows = np.nan, []
    for name in ("greedy_forward", "greedy_backward") if baselines else ():
        for key in ("accuracy", "usefulness"):
            kw = {"key": key, "even": _even(cfg)}
            if name == "greedy_forward":
                kw["step"] = cfg["greedy_step"]
            res, secs = _timed(STRATEGIES[name], p, t, budget, **kw)
            rows.append(_run_row(name, key, res, secs, opt, correct))
    variants = rule_variants(cfg)
    rule_objs = {v: _rule_of(v, p, t, budget, cfg) for v in variants}
    eq29, eq29_uncapped = eq29_maxstep(p, t, budget, cfg)
    traces = []
    for name in searches:
        for v in variants:
            for s in seeds:
                res, secs = _timed(
                    STRATEGIES[name],
                    p,
                    t,
                    budget,
                    random_state=int(s),
                    stop=rule_objs[v],
                    **search_options(name, cfg, maxstep=_maxstep(rule_objs[v], cfg, eq29)),
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
    runs.insert(0, "budget_multiple", multiple)
    opt_size = len(ex.members) if baselines and np.isfinite(opt) else np.nan
    runs["budget"], runs["optimum_size"] = budget, opt_size
    runs["maxstep_eq29"], runs["maxstep_eq29_uncapped"] = eq29, eq29_uncapped
    affords_all = budget >= t.sum() * (1 - 1e-12)  # every member fits: nothing to select
    optimum_ties = np.isfinite(opt) and (opt >= SATURATED or opt_size == p.size)
    runs["saturated"] = bool(affords_all or optimum_ties)
    for v, obj in rule_objs.items():
        if obj is not None:
            at = runs["variant"] == v
            runs.loc[at, "rule_threshold"], runs.loc[at, "ell_T"] = obj.threshold, obj.ell_T
            runs.loc[at, "rule_maxstep"] = _maxstep(obj, cfg, eq29)
            runs.loc[at, "rule_mean"] = obj.mean
    traces = pd.concat(traces, ignore_index=True) if traces else pd.DataFrame()
    traces.insert(0, "budget_multiple", multiple)
    return runs, traces


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread over seeds per pool, budget, strategy and variant, with the cell's
    budget, optimum q and size and its ``saturated`` flag."""
    g = runs.groupby(["pool", "budget_multiple", "strategy", "variant"], sort=True, dropna=False)
    out = g.agg(
        budget=("budget", "first"),
        optimum=("optimum", "first"),
        optimum_size=("optimum_size", "first"),
        saturated=("saturated", "first"),
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


def paired_savings(runs: pd.DataFrame) -> pd.DataFrame:
    """Each stopped search run beside the same search and seed without a rule: evaluations
    saved, accuracy lost, and ``saved_within_loss`` (the saved share counted only when the run
    lost at most :data:`LOSS_TOL`, else 0: savings only together with the accuracy lost)."""
    s = runs[runs["strategy"].isin(SEARCHES)]
    free = s[s["variant"] == "stop=none"]
    ruled = s[s["variant"] != "stop=none"]
    keys = ["pool", "budget_multiple", "strategy", "seed"]
    m = free.merge(ruled, on=keys, suffixes=("_free", "_rule"))
    m["evaluations_saved"] = m["evaluations_free"] - m["evaluations_rule"]
    m["saved_fraction"] = m["evaluations_saved"] / m["evaluations_free"]
    m["accuracy_loss"] = m["accuracy_free"] - m["accuracy_rule"]
    m["wall_saved_seconds"] = m["wall_seconds_free"] - m["wall_seconds_rule"]
    m["saved_within_loss"] = np.where(m["accuracy_loss"] <= LOSS_TOL, m["saved_fraction"], 0.0)
    return m


def stopping_savings(runs: pd.DataFrame) -> pd.DataFrame:
    """Evaluations (and wall time) saved by each stopping rule, per cell (means over seeds of
    :func:`paired_savings`); saturated cells are flagged."""
    m = paired_savings(runs)
    out = (
        m.groupby(["pool", "budget_multiple", "strategy", "variant_rule"], sort=True)
        .agg(
            runs=("seed", "size"),
            evaluations_free=("evaluations_free", "mean"),
            evaluations_rule=("evaluations_rule", "mean"),
            evaluations_saved=("evaluations_saved", "mean"),
            saved_fraction=("saved_fraction", "mean"),
            saved_within_loss=("saved_within_loss", "mean"),
            accuracy_loss_mean=("accuracy_loss", "mean"),
            accuracy_loss_max=("accuracy_loss", "max"),
            saturated=("saturated_free", "first"),
            stopped_by_rule=("stopped_by_rule", lambda x: float(np.mean(x == "rule"))),
            wall_saved_mean_seconds=("wall_saved_seconds", "mean"),
        )
        .reset_index()
    )
    return out.rename(columns={"variant_rule": "rule"})


def savings_points(savings: pd.DataFrame, rule: str) -> pd.DataFrame:
    """Every point of the stopping-savings figure: per pool and search, under ``rule``, the
    means over the unsaturated budget cells of :func:`stopping_savings`' per-cell means
    (evaluations, share saved, best q lost) and the largest loss of a run."""
    s = savings[(savings["rule"] == rule) & ~savings["saturated"].astype(bool)]
    out = (
        s.groupby(["pool", "strategy"], sort=True)
        .agg(
            cells=("runs", "size"),
            runs=("runs", "sum"),
            evaluations_free=("evaluations_free", "mean"),
            evaluations_rule=("evaluations_rule", "mean"),
            saved_fraction=("saved_fraction", "mean"),
            accuracy_loss_mean=("accuracy_loss_mean", "mean"),
            accuracy_loss_max=("accuracy_loss_max", "max"),
        )
        .reset_index()
    )
    out.insert(2, "rule", rule)
    return out


def stopping_levels(savings: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """Per strategy and rule variant (STOP level): evaluations saved vs accuracy lost.

    Means over the unsaturated pool x budget cells of the per-cell means of
    :func:`stopping_savings`, with the share of rule-stopped runs that still reached the
    exhaustive optimum.
    """
    savings = savings[~savings["saturated"].astype(bool)]
    summary = summary[~summary["saturated"].astype(bool)]
    g = savings.groupby(["strategy", "rule"], sort=True)
    out = g.agg(
        cells=("runs", "size"),
        runs=("runs", "sum"),
        saved_fraction=("saved_fraction", "mean"),
        saved_within_loss=("saved_within_loss", "mean"),
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
    """Where the stopping threshold sits, per pool and budget (a check of section IV's rule).

    ℓ_T and E[q_{ℓ_T}] of the Beta model, each variant's threshold, the accuracy of SA's
    starting point (greedy forward by usefulness), the optimum and its size.
    """
    ruled = runs.dropna(subset=["rule_threshold"]) if "rule_threshold" in runs else runs.iloc[:0]
    keys = ["pool", "budget_multiple"]
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


def selection_plans(cfg: dict, uci: bool) -> list[tuple[str, str | None, dict, dict]]:
    """The runs of one pool's selection job, each over every budget: (setting, cost kind,
    config, :func:`selection_cell` options). The main runs (setting ``""``; on a UCI pool with
    the configured cost kind, on a synthetic pool with its own costs, kind None); on a UCI
    pool each cost kind of ``cost_sensitivity`` without a rule and with the primary rule only;
    on every pool each MAXSTEP of ``maxstep_sensitivity`` likewise; SA alone from each start
    of ``sa_init_check`` (no rule, the main runs' costs)."""
    main = cfg["cost"] if uci else None
    plans = [("", main, cfg, {})]
    primary = {**cfg, "stop_rules": cfg["stop_rules"][:1]}
    if uci:
        plans += [(f"cost={kind}", kind, primary, {}) for kind in cfg["cost_sensitivity"]]
    plans += [
        (f"{MAXSTEP_SETTING}{m}", main, {**primary, "MAXSTEP": m}, {})
        for m in cfg["maxstep_sensitivity"]
    ]
    sa_only = {"searches": ("simulated_annealing",), "baselines": False}
    return plans + [
        (
            f"sa_init={init}",
            main,
            {**cfg, "stop_rules": [], "sa": {**cfg["sa"], "init": init}},
            sa_only,
        )
        for init in cfg["sa_init_check"]
    ]


def select_pool(
    pool_name: str, cfg: dict, seed: int, pool_path=None, votes_path=None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every budget of one pool: ``synthetic_n<size>``, or a UCI data set's pool read from
    ``pool_path`` (classifier table) and ``votes_path`` (test votes).

    A UCI pool is also run with each cost kind of ``cost_sensitivity`` (without a rule and
    with the primary rule only); those rows have ``setting = cost=<kind>``, the main runs an
    empty ``setting``. Every pool also runs SA from each start of ``sa_init_check`` (no rule,
    the same seeds): ``setting = sa_init=<start>``, the check that SA is "independent of the
    initial conditions". The traces are those of the main runs.
    """
    from ...logs import Progress

    seeds = range(seed, seed + cfg["n_seeds"])
    budgets = cfg["budget_multiples"]
    size = synthetic_size(pool_name)
    if size is not None:
        syn = cfg["synthetic"]
        p, t = synthetic_pool(
            size, syn["beta_a"], syn["beta_b"], cost=syn["costs"], random_state=seed + size
        )
        costs, correct = {None: t}, None
    else:
        pool = pd.read_csv(pool_path)
        correct = read_parquet(votes_path)[list(pool["member"])]
        p = pool["p"].to_numpy()
        kinds = [cfg["cost"], *cfg["cost_sensitivity"]]
        costs = {kind: pool_costs(pool, kind) for kind in kinds}
    plans = selection_plans(cfg, uci=size is None)
    progress = Progress(len(budgets) * len(plans), f"knapsack selection {pool_name}")
    runs, traces = [], []
    for setting, kind, plan_cfg, only in plans:
        for b in budgets:
            r, tr = selection_cell(p, costs[kind], b, plan_cfg, seeds, correct, **only)
            runs.append(r.assign(setting=setting))
            if not setting:
                traces.append(tr)
            progress.step(f"{setting or 'main'} T={b:g}")
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
    """The main-setting selection runs of every pool (``knapsack_select`` outputs) as one
    table (the ``cost_sensitivity`` rows are read by the claims only)."""
    runs = pd.concat(
        [pd.read_csv(p, keep_default_na=False, na_values=[""]) for p in paths], ignore_index=True
    )
    runs[["variant", "setting"]] = runs[["variant", "setting"]].fillna("")
    return runs[runs["setting"] == ""].reset_index(drop=True)


def summary_tables(
    runs: pd.DataFrame, pool_paths, *, seed: int, beta_fit: str
) -> dict[str, pd.DataFrame]:
    """The summary tables, keyed like :data:`~.names.KNAPSACK_TABLES` (which names their files
    and titles): strategies, stopping savings, STOP levels, threshold check, cost model and
    the Beta fit of each UCI pool (:func:`beta_fit_table`, seeded by ``seed``)."""
    summary, savings = summarize(runs), stopping_savings(runs)
    return {
        "summary": summary,
        "savings": savings,
        "levels": stopping_levels(savings, summary),
        "rule_check": rule_diagnostics(runs),
        "costs": cost_model_check(pool_paths),
        "beta_fit": beta_fit_table(pool_paths, seed, beta_fit),
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
    per pool), stopping savings and accuracy lost at the primary STOP level
    (``savings_figure``: (csv of every point, pdf, png)) and model vs empirical accuracy
    (``empirical_figure``: (pdf, png))."""
    from ...io import write_csv
    from . import plots as kp

    for runs_path, traces_path, pdf, png in convergence:
        pool_runs = read_runs([runs_path])
        kp.convergence_figure(
            read_parquet(traces_path), pool_runs, pool_runs["pool"].iloc[0], pdf, png
        )
    primary = rule_variants(cfg)[1:2]
    points = savings_points(savings, primary[0]) if primary else savings.iloc[:0]
    csv, pdf, png = savings_figure
    write_csv(points, csv)
    kp.savings_figure(points, pdf, png)
    kp.model_vs_empirical_figure(runs[runs["strategy"] != "exhaustive"], *empirical_figure)


def paper_vs_ours_text(
    claims_csv, worked_path, rates_path, tables: dict[str, pd.DataFrame], cfg: dict
) -> str:
    """Markdown of the paper's quantities next to ours, from the worked example and adversarial
    tables (``knapsack_examples`` outputs) and :func:`summary_tables`, below the verdict rows
    of the claims table ``claims_csv`` (copied, not recomputed)."""
    from ...claims.render import verdict_section
    from ...claims.table import read_claims
    from .page import paper_vs_ours

    rates = pd.read_csv(rates_path, keep_default_na=False, na_values=[""])
    rates[["sampler", "moves"]] = rates[["sampler", "moves"]].fillna("")
    return paper_vs_ours(
        pd.read_csv(worked_path),
        rates,
        tables["summary"],
        tables["levels"],
        tables["rule_check"],
        cfg["adversarial"]["evaluations"],
        settings(cfg),
        verdict_section(read_claims(claims_csv), Path(claims_csv).as_posix()),
    )


def read_page_tables(paths: dict) -> dict[str, pd.DataFrame]:
    """The tables of :data:`.names.KNAPSACK_PAGE_TABLES` read back from their CSV files (``paths``: name ->
    file, as written by the summary job)."""
    from ...claims.build import read_table

    return {name: read_table(paths[name]) for name in KNAPSACK_PAGE_TABLES}


def _all_subsets(n: int) -> np.ndarray:
    """Every non-empty subset of n members as a (2^n − 1, n) bool mask."""
    codes = np.arange(1, 2**n)
    return (codes[:, None] >> np.arange(n)) & 1 == 1


def small_pool(size: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """One small random pool of ``knapsack.small_pools``: p ~ U(1/2, 1), t ~ U(0.1, 1) [I]."""
    return rng.uniform(0.5, 1.0, size), rng.uniform(0.1, 1.0, size)


def backward_odd(p) -> float:
    """Backward selection without a cost limit over odd sizes (section II with Lemma I.1) [I]:
    from the largest odd set of the most accurate members, leave the two least accurate out
    while q rises; returns the q where it stops.

    Examples
    --------
    >>> backward_odd([0.9, 0.6, 0.55])  # q(0.9, 0.6, 0.55) = 0.7 < 0.9: drop the two weakest
    0.9
    """
    p = np.sort(np.asarray(p, float))[::-1]
    k = p.size - (1 - p.size % 2)
    q = majority_vote_accuracy(p[:k])
    while k > 1 and (smaller := majority_vote_accuracy(p[: k - 2])) > q:
        k, q = k - 2, smaller
    return float(q)


def small_pools(cfg: dict, seed: int) -> pd.DataFrame:
    """Brute force on small random pools (``knapsack.small_pools``): Lemma I.1, backward
    selection without a cost limit (section II) and eq. (29)'s MAXSTEP (section VI).

    Per pool (:func:`small_pool`, its ``p`` and ``t`` written out, T = ``budget_share`` of
    the total cost): ``best_any`` and ``best_odd``, the best strict-majority q (eq. 1, ties
    are errors) over every affordable subset and over the odd-sized ones; ``backward``
    (:func:`backward_odd`: backward selection by accuracy stepping between odd sizes),
    ``backward_single`` (the library's :func:`~ensemble_repro.knapsack.greedy_backward`, one
    member per step: an even set scores as the odd set below it, so its first even step never
    raises q and it stops there) and ``optimum_free``, the best q over every subset when every
    member fits; ``maxstep_eq29``, eq. (29) without floor or cap at ℓ_T of the cost-limited
    pool; and over ``seeds`` runs of the stochastic search (Algorithm 1, steps counted as
    constructions, as the paper's MAXSTEP) the share that reach ``best_any`` within
    ``maxstep_eq29`` steps and within the floor ``maxstep_bounds.floor``.
    """
    sp = cfg["small_pools"]
    rng = np.random.default_rng(seed)
    rows = []
    for size in sp["sizes"]:
        subsets = _all_subsets(size)
        odd = subsets.sum(axis=1) % 2 == 1
        for draw in range(sp["pools_per_size"]):
            p, t = small_pool(size, rng)
            budget = float(sp["budget_share"] * t.sum())
            q = majority_vote_accuracy(np.broadcast_to(p, subsets.shape), subsets)
            fits = subsets @ t <= budget * (1 + _TOL)
            best_any = float(q[fits].max())
            a, b = fit_beta(p, cfg["beta_fit"])
            ell = affordable_size(p, t, budget, a, b, cfg["size_estimate"])
            eq29 = stirling_maxstep(size, ell, floor=None, cap=None)
            row = {
                "n": size,
                "draw": draw,
                "p": " ".join(f"{v:.17g}" for v in p),
                "t": " ".join(f"{v:.17g}" for v in t),
                "budget": budget,
                "best_any": best_any,
                "best_odd": float(q[fits & odd].max()),
                "optimum_free": float(q.max()),
                "backward": backward_odd(p),
                "backward_single": greedy_backward(p, t, float(t.sum()), even=_even(cfg)).accuracy,
                "ell_T": ell,
                "maxstep_eq29": eq29,
            }
            for name, steps in (("eq29", eq29), ("floor", cfg["maxstep_bounds"]["floor"])):
                hits = [
                    stochastic_search(
                        p,
                        t,
                        budget,
                        random_state=rng,
                        evaluate=cfg["stochastic_evaluate"],
                        even=_even(cfg),
                        maxstep=int(steps),
                    ).accuracy
                    >= best_any - _TOL
                    for _ in range(sp["seeds"])
                ]
                row[f"found_within_{name}"] = float(np.mean(hits))
            rows.append(row)
    return pd.DataFrame(rows)
