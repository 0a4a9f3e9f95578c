"""The knapsack paper's numbers page (``results/knapsack/paper_vs_ours.md``): the verdict rows
of its claims table above the paper's quantities next to ours (Hajdu et al. 2020, Sections
II-VI). Markdown only, no plotting: the claims job writes it."""

from __future__ import annotations

import numpy as np
import pandas as pd


def _md_table(df: pd.DataFrame, floatfmt: str = ".4g") -> list[str]:
    """Plain Markdown table lines of a small frame."""
    cells = [
        [format(v, floatfmt) if isinstance(v, float) else str(v) for v in row]
        for row in df.itertuples(index=False)
    ]
    return ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)] + [
        "| " + " | ".join(r) + " |" for r in cells
    ]


def adversarial_table(rates: pd.DataFrame) -> pd.DataFrame:
    """Success rate per pool size n and evaluation budget N, one column per search."""
    label = rates["strategy"] + [
        f"[{s}]" if s else f"[moves={m}]" if m else ""
        for s, m in zip(rates["sampler"], rates["moves"], strict=True)
    ]
    wide = (
        rates.assign(search=label)
        .pivot_table(index=["n", "within_evaluations"], columns="search", values="success_rate")
        .reset_index()
    )
    exact = (
        rates[rates["strategy"] == "monte_carlo"]
        .assign(search=lambda d: "exact " + d["sampler"])
        .pivot_table(index=["n", "within_evaluations"], columns="search", values="exact_rate")
        .reset_index()
    )
    return wide.merge(exact, on=["n", "within_evaluations"], how="left") if len(exact) else wide


def cells_table(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per pool x budget: T, the optimum's q and size, and whether the budget binds
    (``budget``: binds; ``saturated``: optimum q >= 0.999 or the whole pool affordable)."""
    keys = ["pool", "budget_multiple"]
    cols = ["budget", "optimum", "optimum_size", "saturated"]
    out = summary.groupby(keys, sort=True)[cols].first().reset_index()
    out["cell"] = np.where(out.pop("saturated").astype(bool), "saturated", "binds")
    return out


def search_gaps(summary: pd.DataFrame) -> pd.DataFrame:
    """Per search (no rule): mean gap to the optimum and share of runs reaching it, over the
    unsaturated cells only."""
    live = summary[(summary["variant"] == "stop=none") & ~summary["saturated"].astype(bool)]
    return (
        live.groupby("strategy", sort=True)
        .agg(
            cells=("runs", "size"),
            gap_mean=("gap_mean", "mean"),
            optimum_rate=("optimum_rate", "mean"),
        )
        .reset_index()
    )


def paper_vs_ours(
    worked: pd.DataFrame,
    rates: pd.DataFrame,
    summary: pd.DataFrame,
    levels: pd.DataFrame,
    check: pd.DataFrame,
    evaluations: int,
    settings: dict,
    verdicts: list[str],
) -> str:
    """Markdown: the paper's quantities next to what this run measured, below ``verdicts``
    (the lines of :func:`ensemble_repro.claims.render.verdict_section`: the claims rows, copied
    from the claims table)."""
    cells = cells_table(summary)
    saturated = int((cells["cell"] == "saturated").sum())
    lines = [
        "# Knapsack ensemble selection (Hajdu et al. 2020): paper vs ours (numbers)",
        "",
        *verdicts,
        "Settings ([I] switches): " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items())),
        "",
        "## Worked example (section II)",
        "",
        *_md_table(worked, ".6g"),
        "",
        f"## Adversarial pool (section III), N = {evaluations} evaluations per search (config)",
        "",
        "Paper: MC 11%, SA 96%. D1 = (1 − β, T), D2..Dn = (1/2 + ε, T/n); n, β, ε, N and the "
        "Monte Carlo reading are not given (all [I]). `uniform_subset`: uniform over all 2^n "
        "subsets, over-budget draws rejected (P({D1}) = 2^-n per draw); `uniform_size`: a random "
        "odd size filled in random order (P = 1/n); `exact` columns are 1 − (1 − P)^N.",
        "",
        *_md_table(adversarial_table(rates), ".2f"),
        "",
        f"## Cells (T = multiple x median member cost): {saturated} of {len(cells)} saturated",
        "",
        "Saturated cells (optimum q >= 0.999 or the whole pool affordable) are left out of "
        "every average below and of the verdicts.",
        "",
        *_md_table(cells, ".4f"),
        "",
        "## Searches without a stopping rule (unsaturated cells)",
        "",
        *_md_table(search_gaps(summary), ".4g"),
        "",
        "## Stopping rules: evaluations saved vs accuracy lost (unsaturated cells)",
        "",
        "`saved_within_loss`: the saved share counted only in runs that lost <= 0.005.",
        "",
        *_md_table(levels, ".4g"),
    ]
    if len(check):
        lines += [
            "",
            "## Stopping rule check (section IV)",
            "",
            "ℓ_T, E[q_ℓT] of the Beta model fitted to the pool, each rule's threshold, SA's "
            "greedy start and the optimum with its size.",
            "",
            *_md_table(check, ".4f"),
        ]
    return "\n".join(lines) + "\n"
