"""Verdicts on the knapsack claims (Hajdu et al. 2020) from results/knapsack/*.csv."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from ..experiments.knapsack import LOSS_TOL, SATURATED, paired_savings
from .rules import (
    INCONCLUSIVE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Interval,
    band_verdict,
    combine_parts,
    repeats_needed,
    robust_to,
    t_interval,
    tally,
    wilson,
)
from .table import claim_row, untestable

#: Printed precision of the worked example (4 decimals).
WORKED_TOL = 5e-5
#: Share of evaluations saved (counted only in runs losing <= LOSS_TOL) called "large" / "none".
LARGE_SAVING, SMALL_SAVING = 0.5, 0.2
#: Stochastic search within this much of SA's best q counts as competitive.
COMPETITIVE_TOL = 0.005
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


def mc_vs_sa(
    rates: pd.DataFrame, n: int, sampler: str, moves: str, evaluations: int
) -> tuple[str, str, Interval, Interval]:
    """SA (move set ``moves``) vs Monte Carlo (reading ``sampler``) at pool size n after N =
    ``evaluations`` energy evaluations (``knapsack.adversarial.evaluations``, fixed in config)."""
    at = rates[(rates["n"] == n) & (rates["within_evaluations"] == evaluations)]
    if not len(at):
        raise ValueError(
            f"adversarial.csv has no success rates at N = {evaluations} evaluations "
            f"(knapsack.adversarial.evaluations) for n = {n}: rerun knapsack_examples"
        )
    sa = at[(at["strategy"] == SA) & (at["moves"] == moves)].iloc[0]
    mc = at[(at["strategy"] == "monte_carlo") & (at["sampler"] == sampler)].iloc[0]
    sa_iv = wilson(round(sa.success_rate * sa.runs), int(sa.runs))
    mc_iv = wilson(round(mc.success_rate * mc.runs), int(mc.runs))
    if sa_iv.low > mc_iv.high:
        verdict = REPRODUCED
    elif mc_iv.low >= sa_iv.high:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    ours = (
        f"N = {evaluations} evaluations: SA [{moves}] {sa.success_rate:.0%}, MC "
        f"[{sampler}] {mc.success_rate:.0%}"
    )
    return verdict, ours, sa_iv, mc_iv


def _mc_vs_sa_rows(rates: pd.DataFrame, main_sampler: str, evaluations: int) -> list[dict]:
    rows = []
    rates = rates.assign(sampler=rates["sampler"].fillna(""), moves=rates["moves"].fillna(""))
    samplers = sorted(set(rates.loc[rates["strategy"] == "monte_carlo", "sampler"]))
    moves = list(dict.fromkeys(rates.loc[rates["strategy"] == SA, "moves"]))
    main = main_sampler if main_sampler in samplers else samplers[0]
    for n in sorted(rates["n"].unique()):
        verdict, ours, sa_iv, mc_iv = mc_vs_sa(rates, n, main, moves[0], evaluations)
        flips = {
            f"mc_sampler={s}": mc_vs_sa(rates, n, s, moves[0], evaluations)[0]
            for s in samplers
            if s != main
        }
        flips |= {f"sa_moves={m}": mc_vs_sa(rates, n, main, m, evaluations)[0] for m in moves[1:]}
        rows.append(
            claim_row(
                "knapsack.mc_vs_sa",
                f"adversarial pool n={n}",
                ours=ours,
                verdict=verdict,
                interval=f"SA {sa_iv.text()}; MC {mc_iv.text()}",
                repeats_needed="more seeds" if verdict == INCONCLUSIVE else "",
                n_repeats=sa_iv.n,
                robust_to=robust_to(verdict, flips),
            )
        )
    return rows


def stopping_saves(runs: pd.DataFrame, variant: str) -> tuple[str, str, list[Interval]]:
    """Per search run with ``variant`` in unsaturated cells: the share of evaluations saved
    against the same search and seed without a rule, counted only when the run lost at most
    LOSS_TOL accuracy (``saved_within_loss``); a t interval over budget x seed runs."""
    pairs = paired_savings(runs)
    pairs = pairs[(pairs["variant_rule"] == variant) & ~pairs["saturated_free"].astype(bool)]
    verdicts, parts, ivs = [], [], []
    for strategy, p in pairs.groupby("strategy", sort=True):
        iv = t_interval(p["saved_within_loss"])
        if iv.low >= LARGE_SAVING:
            v = REPRODUCED
        elif iv.high < SMALL_SAVING:
            v = NOT_REPRODUCED
        else:
            v = INCONCLUSIVE
        verdicts.append(v)
        ivs.append(iv)
        loss = float(p["accuracy_loss"].mean())
        parts.append(
            f"{strategy}: {iv.estimate:.0%} saved at loss <= {LOSS_TOL} "
            f"({float(p['saved_fraction'].mean()):.0%} saved, mean loss {loss:.4f})"
        )
    if not verdicts:
        return "", "", []
    return combine_parts(verdicts), "; ".join(parts) + f" ({tally(verdicts)} strategies)", ivs


def ss_competitive(runs: pd.DataFrame, variant: str) -> tuple[str, str, Interval | None]:
    """Best q of the stochastic search minus SA's, unsaturated cells only."""
    keys = ["pool", "budget_multiple", "seed"]
    s = runs[runs["variant"] == variant]
    ss = s[s["strategy"] == SS].set_index(keys)
    sa = s[s["strategy"] == SA].set_index(keys)
    cols = ["accuracy", "optimum", "saturated"]
    both = ss[cols].join(sa[["accuracy"]].add_suffix("_sa"), how="inner")
    live = both[~both["saturated"].astype(bool)]
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


def _search_rows(
    pool: str, r: pd.DataFrame, main: str | None, others: list[str], settings: dict
) -> list[dict]:
    """``stopping_saves`` and ``ss_competitive`` on one pool's runs (or all pools'): the main
    verdict on the main setting; other stopping rules and the ``settings`` runs (cost kind)
    are the sensitivity settings."""
    rows = []
    verdict, ours, ivs = stopping_saves(r, main) if main is not None else ("", "", [])
    if verdict:
        flips = {v: stopping_saves(r, v)[0] or "not testable" for v in others}
        flips |= {k: stopping_saves(g, main)[0] or "not testable" for k, g in settings.items()}
        rows.append(
            claim_row(
                "knapsack.stopping_saves",
                pool,
                ours=f"{main}: {ours}",
                verdict=verdict,
                interval="; ".join(iv.text() for iv in ivs),
                n_repeats=sum(iv.n for iv in ivs),
                robust_to=robust_to(verdict, flips),
                repeats_needed="; ".join(
                    repeats_needed(iv, LARGE_SAVING, unit="runs") for iv in ivs
                ).strip("; ")
                or ("more runs" if verdict == INCONCLUSIVE else ""),
            )
        )
    else:
        rows.append(
            untestable(
                "knapsack.stopping_saves",
                pool,
                "no stopped runs in unsaturated cells (no stop_rules, or every cell's "
                f"optimum q >= {SATURATED})",
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
        flips = {k: ss_competitive(g, NO_RULE)[0] or "not testable" for k, g in settings.items()}
        rows.append(
            claim_row(
                "knapsack.ss_competitive",
                pool,
                ours=ours,
                verdict=verdict,
                interval=iv,
                n_repeats=iv.n,
                robust_to=robust_to(verdict, flips),
                repeats_needed=repeats_needed(iv, -COMPETITIVE_TOL, unit="runs"),
                effect=iv,
                band=(-COMPETITIVE_TOL, float("inf")),
            )
        )
    return rows


def evaluate(
    worked: pd.DataFrame | None,
    rates: pd.DataFrame | None,
    runs: Mapping[str, pd.DataFrame],
    *,
    mc_sampler: str,
    evaluations: int,
    stop_variants: Sequence[str],
    uci_pools: Sequence[str],
) -> list[dict]:
    """Claims rows of the knapsack paper (registry claims ``knapsack.*``).

    Parameters
    ----------
    worked, rates : DataFrame or None
        ``worked_example.csv`` and ``adversarial.csv`` (None or empty: rows left out).
    runs : mapping of str to DataFrame
        Pool name -> its ``runs/<pool>.csv`` (every strategy x budget x seed x variant; rows
        with a non-empty ``setting``, e.g. ``cost=flops``, are sensitivity runs). With more
        than one pool, an ``all pools`` row pools their runs.
    mc_sampler : str
        Monte Carlo reading of the main verdict (``knapsack.mc_sampler``); the adversarial
        table's other readings (and SA move sets after the first) are sensitivity settings.
    evaluations : int
        N, the evaluations each adversarial search got (``knapsack.adversarial.evaluations``,
        fixed in config before the run); the success rates are read there.
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
        rows += _mc_vs_sa_rows(rates, mc_sampler, evaluations)
    main, others = (stop_variants[0], list(stop_variants[1:])) if stop_variants else (None, [])
    pooled = {"all pools": pd.concat(runs.values(), ignore_index=True)} if len(runs) > 1 else {}
    for pool, r in {**runs, **pooled}.items():
        r = r.assign(setting=r["setting"].fillna("")) if "setting" in r else r.assign(setting="")
        settings = {k: g for k, g in r.groupby("setting", sort=True) if k}
        r = r[r["setting"] == ""]
        rows += _search_rows(pool, r, main, others, settings)
        if pool in uci_pools:
            searched = r[(r["variant"] == NO_RULE) & r["strategy"].isin([SA, SS])]
            diff = (searched["accuracy"] - searched["empirical_accuracy"]).dropna()
            if len(diff):
                iv = t_interval(diff)
                band = (-INDEPENDENCE_TOL, INDEPENDENCE_TOL)
                rows.append(
                    claim_row(
                        "knapsack.independence",
                        pool,
                        verdict=band_verdict(iv, *band),
                        repeats_needed=repeats_needed(iv, *band, unit="runs"),
                        effect=iv,
                        band=band,
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
