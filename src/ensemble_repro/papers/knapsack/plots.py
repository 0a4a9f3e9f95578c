"""Figures and the paper-vs-ours table of the knapsack experiments (Hajdu et al. 2020)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...plotting import paper_style, plt, save_figure
from .margins import KN_LOSS_MARGIN, KN_SAVED_MIN

COLORS = {
    "simulated_annealing": "tab:blue",
    "stochastic_search": "tab:red",
    "monte_carlo": "tab:gray",
}
MARKERS = {"simulated_annealing": "o", "stochastic_search": "s", "monte_carlo": "^"}
LABELS = {
    "simulated_annealing": "SA",
    "stochastic_search": "stochastic search (Alg. 1)",
    "monte_carlo": "Monte Carlo",
}


def _curves(traces: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    """Best-so-far of each run (rows) at each grid evaluation count (step functions)."""
    out = []
    for _, run in traces.groupby("seed", sort=True):
        idx = np.searchsorted(run["evaluation"].to_numpy(), grid, side="right") - 1
        best = run["best"].to_numpy()
        out.append(np.where(idx >= 0, best[np.maximum(idx, 0)], np.nan))
    return np.array(out)


def convergence_figure(traces: pd.DataFrame, runs: pd.DataFrame, pool: str, pdf: str, png: str):
    """Best model accuracy vs energy evaluations, mean and 10-90% band over seeds (no rule).

    Evaluation counts before any run of a search has found a feasible ensemble are left out
    (no mean of an empty slice)."""
    paper_style()
    budgets = sorted(traces["budget_multiple"].unique())
    fig, axes = plt.subplots(
        1, len(budgets), figsize=(2.4 * len(budgets) + 0.6, 2.3), squeeze=False
    )
    grid = np.unique(np.geomspace(1, max(int(traces["evaluation"].max()), 2), 80).astype(int))
    for ax, b in zip(axes[0], budgets, strict=False):
        tr = traces[(traces["budget_multiple"] == b) & (traces["stop_rule"] == "none")]
        for name in COLORS:
            c = _curves(tr[tr["strategy"] == name], grid)
            found = np.isfinite(c).any(axis=0) if c.size else np.zeros(0, bool)
            if not found.any():
                continue
            at, c = grid[found], c[:, found]
            mean = np.nanmean(c, axis=0)
            lo, hi = np.nanpercentile(c, 10, axis=0), np.nanpercentile(c, 90, axis=0)
            ax.plot(
                at,
                mean,
                color=COLORS[name],
                label=LABELS[name],
                lw=1.2,
                marker=MARKERS[name],
                markevery=0.12,
                ms=3,
            )
            ax.fill_between(at, lo, hi, color=COLORS[name], alpha=0.2, lw=0)
        opt = runs[(runs["budget_multiple"] == b) & (runs["strategy"] == "exhaustive")]["accuracy"]
        if len(opt):
            # a wide pale line under the curves: a search that reaches the optimum stays visible
            ax.axhline(
                float(opt.iloc[0]), color="0.75", lw=3.5, zorder=0, label="exhaustive optimum"
            )
        ax.set_xscale("log")
        ax.set_xlabel("energy evaluations")
        ax.set_title(f"{pool}, T = {b:g} x median cost")
    axes[0, 0].set_ylabel("best model accuracy q (eq. 1)")
    # one legend beside the panels, where it hides no curve
    handles, labels = axes[0, -1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(f"Hajdu et al. (2020), search convergence (sections IV-V): {pool}")
    fig.tight_layout()
    save_figure(fig, pdf, png)


def savings_figure(points: pd.DataFrame, pdf: str, png: str) -> None:
    """Two panels per pool and strategy (:func:`~.cells.savings_points`): the share of
    evaluations the stopping rule saved, and the best q it lost (mean bar, largest as a dot),
    each beside the claim's margin."""
    paper_style()
    pools = list(dict.fromkeys(points["pool"]))
    names = [n for n in COLORS if n in set(points["strategy"])]
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(max(4.0, 0.9 * len(pools) + 2.5), 4.6), sharex=True
    )
    width = 0.8 / max(len(names), 1)
    x = np.arange(len(pools))
    at = points.set_index(["pool", "strategy"])
    for k, name in enumerate(names):

        def col(c, name=name):
            return [at.loc[(p, name), c] if (p, name) in at.index else np.nan for p in pools]

        pos = x - 0.4 + width * (k + 0.5)
        top.bar(pos, col("saved_fraction"), width, color=COLORS[name], label=LABELS[name])
        bottom.bar(pos, col("accuracy_loss_mean"), width, color=COLORS[name], alpha=0.6)
        bottom.scatter(pos, col("accuracy_loss_max"), s=10, color=COLORS[name], zorder=3)
    top.axhline(
        KN_SAVED_MIN, color="k", lw=0.8, ls="--", label=f"claim: saved >= {KN_SAVED_MIN:.0%}"
    )
    bottom.axhline(
        KN_LOSS_MARGIN, color="k", lw=0.8, ls="--", label=f"claim: lost < {KN_LOSS_MARGIN:g}"
    )
    bottom.scatter([], [], s=10, color="k", label="largest loss of a run")
    top.set_ylim(0, 1.05)
    top.set_ylabel("share of evaluations saved\n(mean over runs)")
    bottom.set_ylabel("best q lost\n(mean bar, largest dot)")
    bottom.set_xticks(x, pools, rotation=30, ha="right")
    top.set_title(
        "Hajdu et al. (2020), stopping rule (section VI): savings and accuracy lost\n"
        f"rule {points['rule'].iloc[0].removeprefix('stop=') if len(points) else '-'}, "
        "unsaturated cells"
    )
    # beside the axes, clear of the rotated pool names
    top.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.02, 0.5))
    bottom.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    save_figure(fig, pdf, png)


def model_vs_empirical_figure(runs: pd.DataFrame, pdf: str, png: str) -> None:
    """Model accuracy (independent members) vs held-out majority-vote accuracy of chosen sets."""
    paper_style()
    r = runs.dropna(subset=["empirical_accuracy"])
    fig, ax = plt.subplots(figsize=(3.2, 3.0))
    for k, (pool, grp) in enumerate(r.groupby("pool", sort=True)):
        ax.scatter(
            grp["accuracy"],
            grp["empirical_accuracy"],
            s=6,
            alpha=0.6,
            label=pool,
            color=plt.cm.tab10(k % 10),
        )
    lo = float(min(r["accuracy"].min(), r["empirical_accuracy"].min())) if len(r) else 0.5
    ax.plot([lo, 1], [lo, 1], color="k", lw=0.8, ls="--", label="model = data")
    ax.set_xlabel("model accuracy q (independent members)")
    ax.set_ylabel("majority-vote accuracy on held-out data")
    ax.set_title("Hajdu et al. (2020), eq. (1):\nmodel vs held-out accuracy")
    ax.legend(fontsize=6)
    fig.tight_layout()
    save_figure(fig, pdf, png)


def lemma_figure(table: pd.DataFrame, pdf: str, png: str) -> None:
    """Fig. 1 / Lemma IV.1: mean and variance of q_ℓ against the ensemble size ℓ for each Beta
    law of p (lines), with the lemma's limits (dashed)."""
    paper_style()
    fig, axes = plt.subplots(1, 2, figsize=(6.4, 2.6))
    for k, ((a, b), grp) in enumerate(table.groupby(["beta_a", "beta_b"], sort=False)):
        color = plt.cm.tab10(k % 10)
        mu = a / (a + b)
        for ax, col in zip(axes, ("mean", "var"), strict=True):
            ax.plot(
                grp["ell"],
                grp[col],
                color=color,
                marker="o",
                ms=2,
                lw=1.0,
                label=f"Beta({a:g}, {b:g}), μ_p = {mu:.2f}",
            )
            ax.axhline(
                float(grp[f"{col}_limit"].iloc[0]),
                color=color,
                ls="--",
                lw=0.8,
                label=f"limit for μ_p = {mu:.2f}",
            )
    axes[0].set_ylabel("E[q_ℓ] (mean ensemble accuracy)")
    axes[1].set_ylabel("Var[q_ℓ]")
    for ax in axes:
        ax.set_xlabel("ensemble size ℓ")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=6)
    fig.suptitle("Hajdu et al. (2020), Fig. 1 / Lemma IV.1: limits of the Beta model")
    fig.tight_layout()
    save_figure(fig, pdf, png)
