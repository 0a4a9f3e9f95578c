"""Verdicts on the knapsack claims (Hajdu et al. 2020) from results/knapsack/*.csv."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .rules import (
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Interval,
    band_verdict,
    combine,
    robust_to,
    t_interval,
    tally,
    wilson,
)
from .table import claim_row, untestable

#: Printed precision of the worked example (4 decimals).
WORKED_TOL = 5e-5
#: Accuracy loss the stopping rule may cost, and the savings called "large" / "none".
LOSS_TOL = 0.005
LARGE_SAVING, SMALL_SAVING = 0.5, 0.2
#: Stochastic search within this much of SA's best q counts as competitive.
COMPETITIVE_TOL = 0.005
#: Cells whose optimum reaches this q are saturated (every search ties) and left out.
SATURATED = 0.999
#: Independence model vs held-out majority vote.
INDEPENDENCE_TOL = 0.02
NO_RULE = "stop=none"
SA, SS = "simulated_annealing", "stochastic_search"


def _worked(worked: pd.DataFrame) -> dict:
    ok = [bool(abs(r.ours - r.paper) <= WORKED_TOL) for r in worked.itertuples()]
    verdict = REPRODUCED if all(ok) else NOT_REPRODUCED if not any(ok) else PARTLY
    ours = "; ".join(f"{r.quantity} {r.ours:.6g} (paper {r.paper:g})" for r in worked.itertuples())
    worst = max(abs(worked["ours"] - worked["paper"]))
    iv = Interval(worst, worst, worst, "exact, largest |ours - paper|", 1)
    return claim_row(
        "knapsack.worked_example",
        "worked example",
        ours=ours,
        verdict=verdict,
        interval=iv,
        n_repeats=1,
    )


def mc_vs_sa(rates: pd.DataFrame, n: int, sampler: str) -> tuple[str, str, Interval, Interval]:
    """SA vs Monte Carlo (reading ``sampler``) at pool size n and the largest budget N."""
    largest = rates["within_evaluations"].max()
    at = rates[(rates["n"] == n) & (rates["within_evaluations"] == largest)]
    sa = at[at["strategy"] == SA].iloc[0]
    mc = at[(at["strategy"] == "monte_carlo") & (at["sampler"] == sampler)].iloc[0]
    sa_iv = wilson(round(sa.success_rate * sa.runs), int(sa.runs))
    mc_iv = wilson(round(mc.success_rate * mc.runs), int(mc.runs))
    if sa_iv.low > mc_iv.high:
        verdict = REPRODUCED
    elif mc_iv.low >= sa_iv.high:
        verdict = NOT_REPRODUCED
    else:
        verdict = PARTLY
    ours = (
        f"N = {int(sa.within_evaluations)} evaluations: SA {sa.success_rate:.0%}, MC "
        f"[{sampler}] {mc.success_rate:.0%}"
    )
    return verdict, ours, sa_iv, mc_iv


def _mc_vs_sa_rows(rates: pd.DataFrame, main_sampler: str) -> list[dict]:
    rows = []
    samplers = sorted(set(rates.loc[rates["strategy"] == "monte_carlo", "sampler"].dropna()))
    main = main_sampler if main_sampler in samplers else samplers[0]
    for n in sorted(rates["n"].unique()):
        verdict, ours, sa_iv, mc_iv = mc_vs_sa(rates, n, main)
        flips = {f"mc_sampler={s}": mc_vs_sa(rates, n, s)[0] for s in samplers if s != main}
        rows.append(
            claim_row(
                "knapsack.mc_vs_sa",
                f"adversarial pool n={n}",
                ours=ours,
                verdict=verdict,
                interval=f"SA {sa_iv.text()}; MC {mc_iv.text()}",
                n_repeats=sa_iv.n,
                robust_to=robust_to(verdict, flips),
            )
        )
    return rows


def _paired_runs(runs: pd.DataFrame, strategy: str, variant: str) -> pd.DataFrame:
    """Per (budget, seed): accuracy and evaluations without the rule and with ``variant``."""
    s = runs[runs["strategy"] == strategy]
    keys = ["budget_fraction", "seed"]
    free = s[s["variant"] == NO_RULE].set_index(keys)[["accuracy", "evaluations", "optimum"]]
    rule = s[s["variant"] == variant].set_index(keys)[["accuracy", "evaluations"]]
    return free.join(rule.add_suffix("_rule"), how="inner")


def stopping_saves(runs: pd.DataFrame, variant: str) -> tuple[str, str, list[Interval]]:
    """Per strategy run with ``variant``: saving and accuracy loss against no rule."""
    verdicts, parts, ivs = [], [], []
    for strategy in sorted(runs.loc[runs["variant"] == variant, "strategy"].unique()):
        p = _paired_runs(runs, strategy, variant)
        if not len(p):
            continue
        saved = float(np.mean(1 - p["evaluations_rule"] / p["evaluations"]))
        loss = t_interval(p["accuracy"] - p["accuracy_rule"])
        if saved >= LARGE_SAVING and loss.high <= LOSS_TOL:
            v = REPRODUCED
        elif saved < SMALL_SAVING or loss.low > LOSS_TOL:
            v = NOT_REPRODUCED
        else:
            v = PARTLY
        verdicts.append(v)
        ivs.append(loss)
        parts.append(f"{strategy}: {saved:.0%} saved, loss {loss.estimate:.4f}")
    return combine(verdicts), "; ".join(parts) + f" ({tally(verdicts)} strategies)", ivs


def ss_competitive(runs: pd.DataFrame, variant: str) -> tuple[str, str, Interval | None]:
    """Best q of the stochastic search minus SA's, unsaturated cells only."""
    keys = ["budget_fraction", "seed"]
    s = runs[runs["variant"] == variant]
    ss = s[s["strategy"] == SS].set_index(keys)
    sa = s[s["strategy"] == SA].set_index(keys)
    both = ss[["accuracy", "optimum"]].join(sa[["accuracy"]].add_suffix("_sa"), how="inner")
    live = both[both["optimum"] < SATURATED]
    if not len(live):
        return "", f"all {len(both)} runs in saturated cells (optimum q >= {SATURATED})", None
    iv = t_interval(live["accuracy"] - live["accuracy_sa"])
    verdict = band_verdict(iv, low=-COMPETITIVE_TOL)
    return (
        verdict,
        (
            f"SS - SA best q {iv.estimate:+.4f} over {len(live)} runs "
            f"({len(both) - len(live)} saturated runs left out)"
        ),
        iv,
    )


def evaluate(
    worked: pd.DataFrame | None,
    rates: pd.DataFrame | None,
    runs: Mapping[str, pd.DataFrame],
    *,
    mc_sampler: str,
    stop_variants: Sequence[str],
    uci_pools: Sequence[str],
) -> list[dict]:
    """Claims rows of the knapsack paper (registry claims ``knapsack.*``).

    Parameters
    ----------
    worked, rates : DataFrame or None
        ``worked_example.csv`` and ``adversarial.csv`` (None or empty: rows left out).
    runs : mapping of str to DataFrame
        Pool name -> its ``runs/<pool>.csv`` (every strategy x budget x seed x variant).
    mc_sampler : str
        Monte Carlo reading of the main verdict (``knapsack.mc_sampler``); the adversarial
        table's other readings are sensitivity settings.
    stop_variants : sequence of str
        Stopped variants (``stop=tail@0.05``, ...): the first decides, the others are
        sensitivity settings.
    uci_pools : sequence of str
        Pools with held-out votes (the independence claim).

    Returns
    -------
    list of dict
        Rows for :func:`ensemble_repro.claims.table.claims_frame`.
    """
    rows = []
    if worked is not None and len(worked):
        rows.append(_worked(worked))
    if rates is not None and len(rates):
        rows += _mc_vs_sa_rows(rates, mc_sampler)
    main, others = (stop_variants[0], list(stop_variants[1:])) if stop_variants else (None, [])
    for pool, r in runs.items():
        if main is not None and (r["variant"] == main).any():
            verdict, ours, ivs = stopping_saves(r, main)
            flips = {v: stopping_saves(r, v)[0] for v in others if (r["variant"] == v).any()}
            rows.append(
                claim_row(
                    "knapsack.stopping_saves",
                    pool,
                    ours=f"{main}: {ours}",
                    verdict=verdict,
                    interval="; ".join(iv.text() for iv in ivs),
                    n_repeats=ivs[0].n,
                    robust_to=robust_to(verdict, flips),
                )
            )
        else:
            rows.append(
                untestable(
                    "knapsack.stopping_saves",
                    pool,
                    "no stopped runs (stop_rule none or no stop levels)",
                )
            )
        verdict, ours, iv = ss_competitive(r, NO_RULE)
        if not verdict:
            rows.append(
                untestable(
                    "knapsack.ss_competitive",
                    pool,
                    ours + ": the budget does not bind, every search ties",
                )
            )
        else:
            flips = {
                v: ss_competitive(r, v)[0] or "not testable"
                for v in stop_variants
                if (r["variant"] == v).any()
            }
            rows.append(
                claim_row(
                    "knapsack.ss_competitive",
                    pool,
                    ours=ours,
                    verdict=verdict,
                    interval=iv,
                    n_repeats=iv.n,
                    robust_to=robust_to(verdict, flips),
                )
            )
        if pool in uci_pools:
            searched = r[(r["variant"] == NO_RULE) & r["strategy"].isin([SA, SS])]
            diff = (searched["accuracy"] - searched["empirical_accuracy"]).dropna()
            if len(diff):
                iv = t_interval(diff)
                rows.append(
                    claim_row(
                        "knapsack.independence",
                        pool,
                        verdict=band_verdict(iv, -INDEPENDENCE_TOL, INDEPENDENCE_TOL),
                        interval=iv,
                        n_repeats=iv.n,
                        ours=f"model q - held-out vote accuracy {iv.estimate:+.4f}",
                    )
                )
    rows.append(
        untestable(
            "knapsack.kaggle",
            "Kaggle challenges",
            "the challenges are not named and leaderboards are not downloaded; "
            "synthetic Beta pools stand in (synthetic_n* rows above)",
        )
    )
    return rows
