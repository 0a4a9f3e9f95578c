"""Figures and the paper-vs-ours table of the knapsack experiments (Hajdu et al. 2020)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..plotting import paper_style, plt, save_figure

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


def convergence_figure(
    traces: pd.DataFrame, runs: pd.DataFrame, pool: str, maxstep: int, pdf: str, png: str
) -> None:
    """Best model accuracy vs energy evaluations, mean and 10-90% band over seeds (no rule)."""
    paper_style()
    budgets = sorted(traces["budget_fraction"].unique())
    fig, axes = plt.subplots(
        1, len(budgets), figsize=(2.4 * len(budgets) + 0.6, 2.3), squeeze=False
    )
    grid = np.unique(np.geomspace(1, maxstep, 80).astype(int))
    for ax, b in zip(axes[0], budgets, strict=False):
        tr = traces[(traces["budget_fraction"] == b) & (traces["stop_rule"] == "none")]
        for name in COLORS:
            c = _curves(tr[tr["strategy"] == name], grid)
            if c.size == 0:
                continue
            mean = np.nanmean(c, axis=0)
            lo, hi = np.nanpercentile(c, 10, axis=0), np.nanpercentile(c, 90, axis=0)
            ax.plot(
                grid,
                mean,
                color=COLORS[name],
                label=LABELS[name],
                lw=1.2,
                marker=MARKERS[name],
                markevery=0.12,
                ms=3,
            )
            ax.fill_between(grid, lo, hi, color=COLORS[name], alpha=0.2, lw=0)
        opt = runs[(runs["budget_fraction"] == b) & (runs["strategy"] == "exhaustive")]["accuracy"]
        if len(opt):
            # a wide pale line under the curves: a search that reaches the optimum stays visible
            ax.axhline(
                float(opt.iloc[0]), color="0.75", lw=3.5, zorder=0, label="exhaustive optimum"
            )
        ax.set_xscale("log")
        ax.set_xlabel("energy evaluations")
        ax.set_title(f"{pool}, T = {b:g} x total cost")
    axes[0, 0].set_ylabel("best model accuracy q (eq. 1)")
    # one legend beside the panels, where it hides no curve
    handles, labels = axes[0, -1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(f"Hajdu et al. (2020), search convergence (sections IV-V): {pool}")
    fig.tight_layout()
    save_figure(fig, pdf, png)


def savings_figure(savings: pd.DataFrame, pdf: str, png: str) -> None:
    """Mean evaluations to stop without and with the stopping rule, per pool and strategy."""
    paper_style()
    agg = savings.groupby(["pool", "strategy"], sort=True)[
        ["evaluations_free", "evaluations_rule"]
    ].mean()
    pools = sorted(savings["pool"].unique())
    names = [n for n in COLORS if n in set(savings["strategy"])]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(pools) + 1.5), 2.6))
    width = 0.8 / max(len(names), 1)
    x = np.arange(len(pools))
    for k, name in enumerate(names):
        free = [
            agg.loc[(p, name), "evaluations_free"] if (p, name) in agg.index else np.nan
            for p in pools
        ]
        rule = [
            agg.loc[(p, name), "evaluations_rule"] if (p, name) in agg.index else np.nan
            for p in pools
        ]
        pos = x - 0.4 + width * (k + 0.5)
        ax.bar(pos, free, width, color=COLORS[name], alpha=0.35, label=f"{LABELS[name]}, no rule")
        ax.bar(pos, rule, width * 0.5, color=COLORS[name], label=f"{LABELS[name]}, with rule")
    ax.set_yscale("log")
    ax.set_xticks(x, pools, rotation=30, ha="right")
    ax.set_ylabel("energy evaluations until stop\n(mean over seeds and budgets)")
    ax.set_title("Hajdu et al. (2020), stopping rule (section VI): evaluations saved")
    # beside the axes, clear of the rotated pool names
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.02, 0.5))
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
    label = np.where(
        rates["sampler"] != "", rates["strategy"] + "[" + rates["sampler"] + "]", rates["strategy"]
    )
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


def paper_vs_ours(
    worked: pd.DataFrame,
    rates: pd.DataFrame,
    summary: pd.DataFrame,
    savings: pd.DataFrame,
    levels: pd.DataFrame,
    check: pd.DataFrame,
    primary: str | None,
    settings: dict,
) -> str:
    """Markdown: each claim of the paper next to what this run measured."""
    searches = summary[summary["variant"] == "stop=none"]
    opt_rate = searches.groupby("strategy")["optimum_rate"].mean()
    acc = searches.groupby("strategy")["accuracy_mean"].mean()
    greedy = (
        summary[summary["strategy"].str.startswith("greedy")]
        .groupby(["strategy", "variant"])["gap_mean"]
        .mean()
    )
    emp = summary.dropna(subset=["empirical_accuracy_mean"])
    lines = [
        "# Knapsack ensemble selection (Hajdu et al. 2020): paper vs ours",
        "",
        "Settings ([I] switches): " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items())),
        "",
        "| claim (paper) | paper value | ours | holds |",
        "|---|---|---|---|",
    ]
    for row in worked.itertuples():
        lines.append(
            f"| worked example, {row.quantity} | {row.paper:g} | {row.ours:.4f} | "
            f"{'yes' if row.holds else 'no'} |"
        )
    for n, grp in rates.groupby("n", sort=True):
        sa = grp[grp["strategy"] == "simulated_annealing"].set_index("within_evaluations")[
            "success_rate"
        ]
        reach = sa[sa >= 0.96]
        budget = int(reach.index.min() if len(reach) else sa.index.max())
        at = grp[grp["within_evaluations"] == budget]
        where = f"n = {n}, N = {budget} evaluations each"
        for r in at[at["strategy"] == "monte_carlo"].itertuples():
            lines.append(
                f"| adversarial pool: MC finds the optimum, MC = {r.sampler} ({where}) | 11% | "
                f"{r.success_rate:.0%} (exact {r.exact_rate:.0%}) | "
                f"{'yes' if r.success_rate < 0.5 else 'no'} (criterion: MC success < 50%) |"
            )
        lines.append(
            f"| adversarial pool: SA finds the optimum ({where}) | 96% | {sa[budget]:.0%} | "
            f"{'yes' if sa[budget] >= 0.9 else 'no'} (criterion: >= 90%) |"
        )
        ss = at[at["strategy"] == "stochastic_search"]["success_rate"]
        if len(ss):
            lines.append(
                f"| adversarial pool: stochastic search finds the optimum ({where}) | "
                f"not reported | {float(ss.iloc[0]):.0%} | - |"
            )
    for (name, key), gap in greedy.items():
        lines.append(
            f"| greedy {name.split('_')[1]} by {key} can miss the optimum (error up to 1/2) | "
            f"qualitative | mean gap {gap:.3g} | {'yes' if gap > 1e-9 else 'not observed'} |"
        )
    if "stochastic_search" in acc and "simulated_annealing" in acc:
        d = acc["stochastic_search"] - acc["simulated_annealing"]
        lines.append(
            f"| stochastic search is competitive with SA (mean best q, no rule) | paper value unknown | "
            f"SS {acc['stochastic_search']:.4f} vs SA {acc['simulated_annealing']:.4f} (diff {d:+.4f}) | "
            f"{'yes' if d > -0.005 else 'no'} (within 0.005) |"
        )
    for name in opt_rate.index:
        lines.append(
            f"| {name} reaches the exhaustive optimum (share of runs, no rule) | paper value unknown | "
            f"{opt_rate[name]:.0%} | - |"
        )
    for row in levels.itertuples():
        star = " (primary)" if row.rule == primary else ""
        lines.append(
            f"| stopping rule {row.rule}{star} saves search time ({row.strategy}) | paper value "
            f'unknown ("large amount") | {row.saved_fraction:.0%} of evaluations saved, mean '
            f"accuracy loss {row.accuracy_loss_mean:.4f} (max {row.accuracy_loss_max:.4f}) | "
            f"{'yes' if row.saved_fraction > 0.2 else 'no'} (> 20% saved) |"
        )
    if len(emp):
        diff = float((emp["accuracy_mean"] - emp["empirical_accuracy_mean"]).mean())
        lines.append(
            f"| independence model of eq. (1) (members are dependent in reality) | assumption | "
            f"model minus held-out vote accuracy: {diff:+.4f} on average | "
            f"{'close' if abs(diff) < 0.02 else 'off'} (|diff| < 0.02) |"
        )
    lines += [
        "",
        "Paper values marked unknown could not be read (equations and tables lost); "
        "see ../shared/docs/ensembles-spec.md §5.2 and §6.",
        "",
        "## Adversarial pool (section III): protocol and readings",
        "",
        "The paper gives the pool D1 = (1 − β, T), D2..Dn = (1/2 + ε, T/n) and the two rates "
        "(MC 11%, SA 96%), but not n, β, ε, the number N of simulations, nor how MC draws "
        "ensembles. Here every search gets the same N energy evaluations and the success rate "
        "(best-so-far reaches the optimum {D1}) is read at each N. Monte Carlo readings "
        "(`adversarial.mc_samplers`): `uniform_subset` draws subsets uniformly from all 2^n and "
        "rejects those over budget (each draw is one simulation), so a draw is {D1} with "
        "probability 2^-n; `uniform_size` (the previous reading) fills a random odd size with "
        "items in random order that fit, which yields {D1} whenever D1 comes first: 1/n per draw, "
        "the same order as SA's chance to pick D1 in a move, hence no gap between MC and SA. "
        "`exact` columns are 1 − (1 − P)^N. The claim rows above use, per n, the smallest "
        "checkpoint N at which SA reaches the paper's 96% (the paper's unknown budget read off "
        "its SA rate), or the largest N when it never does.",
        "",
    ]
    lines += _md_table(adversarial_table(rates), ".2f")
    if len(check):
        col = f"threshold_{primary.removeprefix('stop=')}" if primary else ""
        passes = (
            float(np.mean(check["greedy_start"] >= check[col] - 1e-12))
            if col in check
            else float("nan")
        )
        bigger = float(np.mean(check["optimum_size"] > check["ell_T"]))
        lines += [
            "",
            "## Stopping rule check (spec §4.5-4.6)",
            "",
            "ℓ_T is the largest odd size ≤ T / mean cost; E[q_ℓT] and the thresholds come from the "
            "Beta law fitted to the whole pool (`tail@s`: the 1 − s quantile of q_ℓT, the paper's "
            "right-side test; `expected`: its mean; `left_tail` is also available: the s quantile, "
            "the left-side test section VI says the paper's experiments used, looser still). "
            f"The greedy start of SA already passes the primary threshold in {passes:.0%} of the "
            f"pool × budget cells, and the optimum has more members than ℓ_T in {bigger:.0%}: "
            "the rule compares the incumbent with a *random* affordable ensemble of the "
            "average affordable size, and any search that prefers accurate or cheap members "
            "beats that bar at once. This follows from the rule as specified; the code was "
            "checked against spec §4.5-4.6 (moments against the spec's table, threshold equal to "
            "the matched-Beta quantile, ℓ_T as defined) and no bug was found. With the rule, SA "
            "therefore returns (about) its greedy start, and MC and the stochastic search the "
            "first draw that beats a random affordable ensemble; `stopping_levels.*` gives the "
            "accuracy this costs per STOP level.",
            "",
        ]
        lines += _md_table(check, ".4f")
    return "\n".join(lines) + "\n"
