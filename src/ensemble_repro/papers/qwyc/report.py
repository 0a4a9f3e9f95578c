"""Figures and tables of the QWYC reproduction (Wang, Gupta & You 2018, Section 5).

Figure 1 (accuracy and % differences vs mean # base models), the sensitivity figure, the
paper's claims next to the measured numbers, and the table writer (CSV + Markdown +
provenance). The runs that produce their inputs are in :mod:`.qwyc`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .cells import LABELS, main_split_of, setting_switches, split_mean, switches
from .names import (
    CROSSFIT,
    FAN_STAR,
    QWYC_STAR,
    SENSITIVITY_METHODS,
    SMALLER_SAME_LR,
    setting_affects,
)

#: The paper's experiment number of each benchmark data set (Section 5).
EXPERIMENT = {"adult": 1, "nomao": 2}


# ------------------------------------------------------------------ figures and claims
def plot_figure1(table: pd.DataFrame, dataset: str, pdf, png) -> None:
    """Figure 1 of the paper: test accuracy and % classification differences vs mean # base
    models, every point of ``table`` (:func:`.cells.figure_table`: one fit) on a curve."""
    import matplotlib.pyplot as plt

    from ...plotting import paper_style, save_figure

    paper_style()
    lr = float(table.loc[table.method == QWYC_STAR, "learning_rate"].iloc[0])
    split = int(table["split"].iloc[0])
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 3.1))
    colors = {
        "joint": "k",
        "natural": "tab:blue",
        "random": "tab:orange",
        "individual_mse": "tab:green",
        "greedy_mse": "tab:purple",
        "crossfit": "tab:red",
        "same_lr": "tab:brown",
        "tuned_lr": "tab:gray",
    }
    names = {
        SMALLER_SAME_LR: f"smaller GBT (lr {lr:g}, sizes {_sizes(table, SMALLER_SAME_LR)})",
        "smaller_tuned_lr": "smaller GBT (lr validated per size, sizes "
        f"{_sizes(table, 'smaller_tuned_lr')})",
    }
    for method, g in table.groupby("method", sort=False):
        g = g.sort_values("test_mean_evaluated")
        family, variant = method.split("_", 1)
        star = method in (QWYC_STAR, FAN_STAR)
        st = dict(
            color=colors[variant],
            lw=1.8 if star else 0.9,
            ls={"qwyc": "-", "fan": "--"}.get(family, ":" if variant == "same_lr" else "-."),
            marker={"qwyc": "o", "fan": "s"}.get(family, "^" if variant == "same_lr" else "v"),
            ms=3.5 if star else 2.5,
        )
        for ax, col in zip(axes, ("test_accuracy", "test_differences_pct"), strict=True):
            ax.plot(g.test_mean_evaluated, g[col], label=names.get(method, LABELS[method]), **st)
    full = axes[0].axhline(float(table.full_test_accuracy.iloc[0]), color="grey", lw=0.6)
    for ax, yl in zip(
        axes,
        ("test accuracy", "% test examples classified\ndifferently from the full ensemble"),
        strict=True,
    ):
        ax.set_xscale("log")
        ax.set_xlabel("mean # base models evaluated\nper test example")
        ax.set_ylabel(yl)
        ax.grid(alpha=0.3, lw=0.4)
    axes[0].set_title("accuracy")
    axes[1].set_title("classification differences")
    handles, labels = axes[1].get_legend_handles_labels()
    axes[1].legend(
        handles + [full],
        labels + ["full ensemble (accuracy)"],
        loc="center left",
        bbox_to_anchor=(1.02, 0.5),
        frameon=False,
        fontsize="x-small",
    )
    fig.suptitle(
        f"Wang, Gupta & You (2018), Figure 1 (Experiment {EXPERIMENT.get(dataset, '-')}): "
        f"{dataset}, one GBT fit (learning rate {lr:g}, split {split})"
    )
    fig.tight_layout()
    save_figure(fig, pdf, png)


def _sizes(table: pd.DataFrame, method: str) -> str:
    v = table.loc[table.method == method, "value"].astype(int).sort_values()
    return f"{v.iloc[0]}-{v.iloc[-1]}" if len(v) else "none"


def plot_sensitivity(
    points: pd.DataFrame, sensitivity: pd.DataFrame, dataset: str, q: dict, pdf, png
) -> None:
    """Main setting vs sensitivity settings for QWYC*, natural order and Fan*. Left: % test
    differences vs mean # models (Figure 1, right panel); right: % differences on the fitting
    set vs on test (points above the diagonal: thresholds over-fitted to the fitting set)."""
    import matplotlib.pyplot as plt

    from ...plotting import paper_style, save_figure

    paper_style()
    points, sensitivity = split_mean(points), split_mean(sensitivity)
    main = f"fit_on={q['fit_on']}, budget={q['budget_rule']} (main)"
    parts = [points[points.method.isin(SENSITIVITY_METHODS)].assign(setting=main)]
    parts += [
        g.assign(setting=", ".join(f"{k}={v}" for k, v in setting_switches(s).items()))
        for s, g in sensitivity.groupby("setting", sort=False)
    ]
    colors = {QWYC_STAR: "k", "qwyc_natural": "tab:blue", FAN_STAR: "tab:green"}
    styles = ["-", "--", ":", "-."]
    legend_in = 0.14 * math.ceil((len(parts) * len(colors) + 1) / 2) + 0.1  # legend below, 2 cols
    height = 2.9 + legend_in
    fig, axes = plt.subplots(1, 2, figsize=(7.0, height))
    hi = 0.0
    for i, part in enumerate(parts):
        for method, g in part.groupby("method", sort=False):
            g = g.sort_values("test_mean_evaluated")
            st = dict(
                color=colors[method],
                ls=styles[i % len(styles)],
                lw=1.2,
                ms=3,
                marker="o" if i == 0 else "x",
                label=f"{LABELS[method]}; {g.setting.iloc[0]}",
            )
            axes[0].plot(g.test_mean_evaluated, g.test_differences_pct, **st)
            axes[1].plot(g.fit_differences_pct, g.test_differences_pct, **st)
            hi = max(hi, g.fit_differences_pct.max(), g.test_differences_pct.max())
    diagonal = axes[1].plot([0, hi], [0, hi], color="grey", lw=0.6)[0]
    axes[0].set_xscale("log")
    axes[0].set_xlabel("mean # base models evaluated (test)")
    axes[1].set_xlabel("% differences on the fitting set")
    for ax in axes:
        ax.set_ylabel("% test differences\nfrom the full ensemble")
        ax.grid(alpha=0.3, lw=0.4)
    axes[0].set_title(f"{dataset}: trade-off")
    axes[1].set_title(f"{dataset}: fitting set vs test")
    fig.suptitle(
        f"Wang, Gupta & You (2018), Figure 1 under inferred-setting changes: {dataset} "
        "(mean over splits)"
    )
    fig.tight_layout()
    fig.subplots_adjust(bottom=(0.5 + legend_in) / height)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles + [diagonal],
        labels + ["fitting set = test (right)"],
        loc="lower center",
        ncol=2,
        frameon=False,
        fontsize="x-small",
    )
    save_figure(fig, pdf, png)


def with_unaffected(points: pd.DataFrame, setting_points: pd.DataFrame, setting: str):
    """A setting's points plus the main points of the methods it does not affect (e.g. QWYC*
    under a Fan-score setting), so each claim compares like with like."""
    keep = [not setting_affects(setting, m) for m in points["method"]]
    return pd.concat([points[keep], setting_points], ignore_index=True)


def frontier(points: pd.DataFrame, method: str, target_pct: float) -> float:
    """Fewest mean models evaluated among a method's points with test differences <= target."""
    p = points[(points.method == method) & (points.test_differences_pct <= target_pct + 1e-12)]
    return float(p.test_mean_evaluated.min()) if len(p) else np.nan


def _spread(values, unit: str = "") -> str:
    """``"0.45 +- 0.12% (n = 5 carve-outs)"`` over distinct fits; ``"0.45% (one fit)"``."""
    v = np.asarray(values, dtype=float)
    if v.size == 1:
        return f"{v[0]:.3g}{unit} (one fit)"
    return f"{v.mean():.3g} +- {v.std(ddof=1):.2g}{unit} (n = {v.size} carve-outs)"


def _fits(p: pd.DataFrame) -> list[pd.DataFrame]:
    """A data set's points per distinct fit: under ``fit_on: train_full`` the main fit alone
    (:func:`.cells.main_split_of`; splits of one learning rate share the fit, another rate is a
    sensitivity setting, not a repeat), under a carve-out ``fit_on`` one per split."""
    if "split" not in p:
        return [p]
    if (p["fit_on"] == "train_full").all():
        return [p[p["split"] == main_split_of(p)]]
    return [g for _, g in p.groupby("split", sort=True)]


def _setting_rows(ds: str, p: pd.DataFrame, q: dict, setting: str) -> list[dict]:
    """Numbers over splits for one data set's points under one setting: QWYC*'s lowest test
    differences (alpha = 0), and per target level each method's fewest mean models with the
    share of fits reaching the level."""
    splits, T = _fits(p), q["gbt"]["n_estimators"]
    base = {"dataset": ds, "setting": setting}
    rows = []
    q0 = [g[(g.method == QWYC_STAR) & (g.value == 0)] for g in splits]
    q0 = [g for g in q0 if len(g)]
    if q0:
        rows.append(
            {
                **base,
                "item": "QWYC* at alpha = 0: % test differences; mean # models",
                "paper": "about 0.5% differences at the timing points (Tables 2-3, real-world)",
                "ours": f"{_spread([float(g.test_differences_pct.iloc[0]) for g in q0], '%')}; "
                f"{_spread([float(g.test_mean_evaluated.iloc[0]) for g in q0])} models",
            }
        )
    for target in [100 * t for t in q["timing"]["target_differences"]]:
        for m in [QWYC_STAR] + [x for x in p.method.unique() if x != QWYC_STAR]:
            got = [frontier(g, m, target) for g in splits]
            hit = [x for x in got if x == x]
            speed = m == QWYC_STAR and hit and f"; T / models {_spread([T / x for x in hit])}"
            rows.append(
                {
                    **base,
                    "item": f"{LABELS[m]}: fewest mean # models at <= {target:g}% differences",
                    "paper": {QWYC_STAR: "2x-4x fewer than T", CROSSFIT: "(extension)"}.get(
                        m, "more than QWYC*"
                    ),
                    "ours": f"{len(hit)} of {len(got)} fits reach it"
                    + (f"; models {_spread(hit)}{speed or ''}" if hit else ""),
                }
            )
    return rows


def _fan_vs_smaller(ds: str, p: pd.DataFrame, smaller: pd.DataFrame) -> dict | None:
    """Fan* points against the smaller GBTs (same learning rate) at equal mean # models: how
    many are below on accuracy and above on differences, per distinct fit."""
    f_all = p[p.method == FAN_STAR]
    s_all = smaller[(smaller.dataset == ds) & (smaller.method == "smaller_same_lr")]
    if not len(f_all) or not len(s_all):
        return None
    acc, diff, n = [], [], 0
    for f in _fits(p[p.method == FAN_STAR]):
        s = s_all[s_all.split == f.split.iloc[0]] if "split" in f and "split" in s_all else s_all
        s = s.sort_values("n_trees")
        x = f.test_mean_evaluated
        acc.append(int(np.sum(f.test_accuracy < np.interp(x, s.n_trees, s.test_accuracy))))
        diff.append(
            int(np.sum(f.test_differences_pct > np.interp(x, s.n_trees, s.test_differences_pct)))
        )
        n = len(f)
    return {
        "dataset": ds,
        "setting": "main",
        "item": "Fan* points worse than smaller GBTs with as many trees (of each fit's "
        f"{n}): on accuracy; on differences",
        "paper": "Fan* worse in accuracy and classification differences",
        "ours": f"accuracy {_spread(acc)}; differences {_spread(diff)}",
    }


def paper_vs_ours(
    points: pd.DataFrame,
    smaller: pd.DataFrame,
    timing: pd.DataFrame,
    q: dict,
    sensitivity: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The paper's statements next to our numbers (per distinct fit, :func:`_fits`: one fit, or
    mean +- sd over carve-outs, and the share of fits reaching each target), for the main
    setting and every sensitivity setting. ``points`` may hold Figure 1's smaller-GBT rows
    (:func:`.cells.figure_table`); they are read from ``smaller``. The verdicts are made in
    :mod:`ensemble_repro.claims` (``results/claims.csv``), not here."""
    points = points[~points["method"].str.startswith("smaller")]
    rows = []
    for ds, p in points.groupby("dataset", sort=False):
        rows += _setting_rows(ds, p, q, "main")
        if sensitivity is not None:
            for setting, ps in sensitivity[sensitivity.dataset == ds].groupby(
                "setting", sort=False
            ):
                rows += _setting_rows(ds, with_unaffected(p, ps, setting), q, setting)
        fan = _fan_vs_smaller(ds, p, smaller) if ds == "adult" else None
        rows += [fan] if fan else []
    if "split" not in timing:
        timing = timing.assign(split=0, learning_rate=np.nan)
    keys = ["dataset", "split", "target_differences_pct"]
    fan_t = timing[timing.method == FAN_STAR].set_index(keys)
    for r in timing[timing.method == QWYC_STAR].itertuples():
        fan_pct = fan_t.test_differences_pct[(r.dataset, r.split, r.target_differences_pct)]
        rows.append(
            {
                "dataset": r.dataset,
                "setting": f"fit of split {r.split} (learning rate {r.learning_rate:g})",
                "item": f"per-example time at the sweep points closest to "
                f"{r.target_differences_pct:g}% differences: Fan* / QWYC*, full / QWYC*",
                "paper": "~1.5x (abstract); 1.8x-4x (Tables 2-4)",
                "ours": f"{r.speedup_vs_fan:.2f}x, {r.speedup_vs_full:.2f}x "
                f"(QWYC* at {r.test_differences_pct:.2f}%, Fan* at {fan_pct:.2f}% differences)",
            }
        )
    return pd.DataFrame(rows)


def write_table(df: pd.DataFrame, csv, md, title: str, params: dict, inputs=()) -> None:
    """CSV + Markdown + provenance sidecar; ``params`` is the config subset the rule declares
    (``seed`` and the ``qwyc:`` keys it reads, [I] switches included)."""
    from ...io import write_csv, write_markdown
    from ...provenance import write_provenance

    write_csv(df, csv)
    write_markdown(df, md, title=title)
    write_provenance(csv, config=params, seed=params.get("seed"), inputs=inputs)


def write_paper_vs_ours(table: pd.DataFrame, claims_csv, path, q: dict) -> None:
    """The paper's numbers page: the verdict rows of ``claims_csv`` (the paper's claims table,
    copied: :func:`ensemble_repro.claims.render.verdict_section`), then ``table``
    (:func:`paper_vs_ours`)."""
    from ...claims.render import verdict_section
    from ...claims.table import read_claims
    from ...io import markdown_table, write_text

    head = (
        "# Quit When You Can (Wang, Gupta & You 2018): paper vs ours\n\n"
        "Measured on the test split; models counted per example (unit costs). Settings: "
        + ", ".join(f"{k}={v}" for k, v in switches(q).items())
        + f"; T={q['gbt']['n_estimators']}, alpha grid {q['alpha_grid']}, "
        f"gamma grid {q['fan']['gamma_grid']}. Rows of a sensitivity setting repeat the "
        f"numbers with one switch changed (sensitivity settings {q['sensitivity']}). Timing "
        "rows depend on the machine. Under fit_on: train_full a number is of one fit (the "
        "carve-outs that chose the same learning rate share it; another rate is a sensitivity "
        "setting, not a repeat); under a carve-out fit_on it is mean +- sd over the carve-outs, "
        "n their number."
        "\n\n"
    )
    verdicts = "\n".join(verdict_section(read_claims(claims_csv), Path(claims_csv).as_posix()))
    write_text(path, head + verdicts + "\n## Measured numbers\n\n" + markdown_table(table))
