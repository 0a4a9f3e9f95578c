"""Figures 1, 2, S1-S10 and Tables S1-S3 of Kim, Xu & Barber (2020) (verdicts on its claims:
:mod:`.claims`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ...io import read_parquet
from .cells import JAB, JAB_FIXED, JAB_RANDOM, JPLUS, JPLUS_ENSEMBLE, derived_seed
from .names import AGG_LABEL, JAB_FIGURES, JAB_TABLES
from .paper_seconds import PAPER_SECONDS

DATASET_LABEL = {"meps": "MEPS", "blog": "Blog", "communities": "Communities"}
LEARNER_LABEL = {"ridge": "Ridge", "rf": "RF", "nn": "NN"}
MISSING = "needs the AHRQ file"

#: Level and resamples of the percentile-bootstrap interval of the J+ensemble / J+aB time ratio.
RATIO_LEVEL, N_BOOTSTRAP = 0.95, 2000
#: How Tables S1-S3 times are taken (:func:`.cells.run_job`), for their headers.
TIMING_NOTE = (
    "each method timed alone in one process with one BLAS thread, its model fits in "
    "sequence (as in the paper), whatever the worker count; *_cpu_* columns: CPU "
    "seconds of that process over the same spans (immune to other processes sharing "
    "the core); ratio = mean J+ensemble / mean J+aB seconds with a "
    f"{RATIO_LEVEL:.0%} percentile-bootstrap interval over trials (trials resampled, "
    "J+aB and J+ensemble of a trial kept together)"
)

METHOD_STYLE = {
    JPLUS: "#7f7f7f",
    JPLUS_ENSEMBLE: "#1f77b4",
    JAB: "#d62728",
    JAB_RANDOM: "#d62728",
    JAB_FIXED: "#2ca02c",
}


def expand_jplus(main: pd.DataFrame, jplus: pd.DataFrame, aggregations) -> pd.DataFrame:
    """J+non-ensemble rows repeated at every m/n and aggregation of the main grid (for plotting)."""
    parts = []
    for ratio in sorted(main["m_ratio"].unique()):
        for agg in aggregations:
            parts.append(jplus.assign(m_ratio=ratio, aggregation=agg))
    return pd.concat([main] + parts, ignore_index=True) if parts else main


def grid_figure(
    df: pd.DataFrame,
    *,
    metric: str,
    aggregation: str,
    methods,
    datasets,
    available,
    learners,
    alpha: float,
    title: str,
):
    """Grid of box plots over trials (rows data sets, columns learners, x = m/n)."""
    import matplotlib.pyplot as plt

    from ...plotting import paper_style

    paper_style()
    fig, axes = plt.subplots(
        len(datasets),
        len(learners),
        figsize=(2.4 * len(learners) + 0.6, 1.9 * len(datasets) + 0.6),
        squeeze=False,
    )
    sub = df[df["aggregation"] == aggregation]
    ratios = sorted(sub["m_ratio"].dropna().unique())
    width = 0.8 / max(len(methods), 1)
    for r, ds in enumerate(datasets):
        for c, lrn in enumerate(learners):
            ax = axes[r, c]
            if r == 0:
                ax.set_title(LEARNER_LABEL[lrn])
            if c == 0:
                ax.set_ylabel(
                    f"{DATASET_LABEL[ds]}\n{'Coverage' if metric == 'coverage' else 'Width'}"
                )
            if r == len(datasets) - 1:
                ax.set_xlabel("m/n")
            if ds not in available:
                ax.text(
                    0.5,
                    0.5,
                    f"{DATASET_LABEL[ds]}:\n{MISSING}",
                    ha="center",
                    va="center",
                    transform=ax.transAxes,
                )
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            cell = sub[(sub["dataset"] == ds) & (sub["learner"] == lrn)]
            for k, method in enumerate(methods):
                data = [
                    cell[(cell["method"] == method) & np.isclose(cell["m_ratio"], x)][
                        metric
                    ].to_numpy()
                    for x in ratios
                ]
                pos = np.arange(len(ratios)) + (k - (len(methods) - 1) / 2) * width
                keep = [i for i, d in enumerate(data) if len(d)]
                if not keep:
                    continue
                bp = ax.boxplot(
                    [data[i] for i in keep],
                    positions=pos[keep],
                    widths=width * 0.85,
                    patch_artist=True,
                    manage_ticks=False,
                    showfliers=True,
                    flierprops={"markersize": 2},
                    medianprops={"color": "black"},
                )
                for patch in bp["boxes"]:
                    patch.set_facecolor(METHOD_STYLE[method])
                    patch.set_alpha(0.6)
            ax.set_xticks(np.arange(len(ratios)))
            ax.set_xticklabels([f"{x:g}" for x in ratios])
            if metric == "coverage":
                ax.axhline(1 - alpha, color="black", lw=0.8)
    handles = [plt.Rectangle((0, 0), 1, 1, color=METHOD_STYLE[m], alpha=0.6) for m in methods]
    labels = list(methods)
    if metric == "coverage":
        handles.append(plt.Line2D([], [], color="black", lw=0.8))
        labels.append(f"target 1 - alpha = {1 - alpha:g}")
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    return fig


def ratio_interval(
    numerator, denominator, rng, level: float = RATIO_LEVEL, n_bootstrap: int = N_BOOTSTRAP
) -> tuple[float, float, float]:
    """Ratio of mean times over paired trials and its percentile-bootstrap interval.

    Parameters
    ----------
    numerator, denominator : array-like of shape (n_trials,)
        Seconds of the two methods, entry t from trial t (e.g. J+ensemble and J+aB).
    rng : numpy.random.RandomState
        Draws the bootstrap resamples of trial indices (a pair stays together).
    level : float
        Two-sided level of the interval.
    n_bootstrap : int
        Number of bootstrap resamples.

    Returns
    -------
    ratio, low, high : float
        mean(numerator) / mean(denominator) and the (1 - level) / 2 and (1 + level) / 2
        percentiles of the same ratio over the resamples.

    Examples
    --------
    >>> ratio, low, high = ratio_interval([2.0, 2.2, 1.8], [1.0, 1.0, 1.0],
    ...                                   np.random.RandomState(0))
    >>> ratio, 1.8 <= low <= ratio <= high <= 2.2
    (2.0, True)
    """
    num, den = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    if num.ndim != 1 or num.shape != den.shape or not len(num):
        raise ValueError(
            f"ratio_interval needs two equally long 1-D arrays of per-trial seconds, "
            f"one entry per trial; got shapes {num.shape} and {den.shape}"
        )
    idx = rng.randint(len(num), size=(n_bootstrap, len(num)))
    boot = num[idx].mean(axis=1) / den[idx].mean(axis=1)
    low, high = np.percentile(boot, [50 * (1 - level), 50 * (1 + level)])
    return float(num.mean() / den.mean()), float(low), float(high)


def _paired_seconds(cell: pd.DataFrame, column: str = "total_seconds") -> pd.DataFrame:
    """``column`` per trial (rows) of J+aB and J+ensemble (columns), trials with both."""
    wide = cell.pivot_table(index="trial", columns="method", values=column)
    return wide.reindex(columns=[JAB, JPLUS_ENSEMBLE]).dropna()


#: Tables S1-S3 columns per clock: (clock's column in main.csv / jplus.csv, names of the mean
#: seconds of J+aB, J+ensemble, J+non-ensemble, of the ratio J+ensemble / J+aB and of its
#: interval). Named ``*_seconds``: they vary run to run (io.drop_timing).
CLOCKS = {
    "wall": (
        "total_seconds",
        (
            "jab_seconds",
            "jplus_ensemble_seconds",
            "jplus_non_ensemble_seconds",
            "ensemble_over_jab_seconds",
            "ensemble_over_jab_low_seconds",
            "ensemble_over_jab_high_seconds",
        ),
    ),
    "cpu": (
        "total_cpu_seconds",
        (
            "jab_cpu_seconds",
            "jplus_ensemble_cpu_seconds",
            "jplus_non_ensemble_cpu_seconds",
            "ensemble_over_jab_cpu_seconds",
            "ensemble_over_jab_cpu_low_seconds",
            "ensemble_over_jab_cpu_high_seconds",
        ),
    ),
}


def time_ratio(cell: pd.DataFrame, column: str, rng) -> tuple[float, float, float]:
    """The J+ensemble / J+aB time ratio of one Tables S1-S3 cell with its interval.

    Parameters
    ----------
    cell : pandas.DataFrame
        Rows of main.csv for one data set, learner, aggregation and m/n (columns ``trial``,
        ``method`` and ``column``).
    column : str
        The clock: "total_seconds" (wall) or "total_cpu_seconds".
    rng : numpy.random.RandomState
        Draws the bootstrap resamples (:func:`ratio_interval`).

    Returns
    -------
    ratio, low, high : float
        Mean J+ensemble / mean J+aB ``column`` over the trials that have both, and its
        percentile-bootstrap interval.

    Examples
    --------
    >>> cell = pd.DataFrame({"trial": [0, 0, 1, 1], "method": [JAB, JPLUS_ENSEMBLE] * 2,
    ...                      "total_seconds": [1.0, 20.0, 1.0, 24.0]})
    >>> time_ratio(cell, "total_seconds", np.random.RandomState(0))[0]
    22.0
    """
    pairs = _paired_seconds(cell, column)
    return ratio_interval(pairs[JPLUS_ENSEMBLE], pairs[JAB], rng)


def _clock_columns(cell: pd.DataFrame, jplus: pd.DataFrame, clock: str, rng) -> dict:
    """One clock's columns of a Tables S1-S3 row from the cell's and J+non-ensemble's rows."""
    column, names = CLOCKS[clock]
    pairs = _paired_seconds(cell, column)
    ratio = time_ratio(cell, column, rng)
    means = (pairs[JAB].mean(), pairs[JPLUS_ENSEMBLE].mean(), jplus[column].mean())
    return dict(zip(names, means + ratio, strict=False))


def wallclock_table(
    main: pd.DataFrame,
    jplus: pd.DataFrame,
    *,
    dataset: str,
    m_ratio: float,
    learners,
    aggregations,
    available: bool,
    seed: int,
) -> pd.DataFrame:
    """Tables S1-S3: mean seconds over trials at m = m_ratio * n, wall clock and CPU, with the
    ratio J+ensemble / J+aB and its interval (:func:`ratio_interval`, resamples seeded from
    ``seed`` and the table cell), next to the paper's seconds."""
    rows = []
    for lrn in learners:
        for agg in aggregations:
            paper = PAPER_SECONDS[dataset].get((lrn, agg), (np.nan,) * 3)
            row = {"learner": lrn, "aggregation": agg}
            if available:
                cell = main[
                    (main["dataset"] == dataset)
                    & (main["learner"] == lrn)
                    & (main["aggregation"] == agg)
                    & np.isclose(main["m_ratio"], m_ratio)
                ]
                jp = jplus[(jplus["dataset"] == dataset) & (jplus["learner"] == lrn)]
                for clock in CLOCKS:
                    rng = np.random.RandomState(derived_seed(seed, "wallclock", dataset, lrn, agg))
                    row.update(_clock_columns(cell, jp, clock, rng))
                row.update(trials=len(_paired_seconds(cell)), status="measured")
            else:
                row.update({name: np.nan for _, names in CLOCKS.values() for name in names})
                row.update(trials=0, status=MISSING)
            row.update(
                paper_jab=paper[0],
                paper_jplus_ensemble=paper[1],
                paper_jplus_non_ensemble=paper[2],
                paper_ensemble_over_jab=paper[1] / paper[0],
            )
            rows.append(row)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- workflow outputs
def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    keys = [
        c for c in ("dataset", "learner", "method", "aggregation", "m_ratio", "trial") if c in df
    ]
    return df.sort_values(keys, kind="stable").reset_index(drop=True) if len(df) else df


def _read_all(paths) -> pd.DataFrame:
    frames = [read_parquet(p) for p in paths]
    return _sorted(pd.concat(frames, ignore_index=True)) if frames else pd.DataFrame()


def write_collected(
    cells: Mapping[str, Sequence],
    tables: Mapping[str, str],
    *,
    params: Mapping,
    meta: Sequence = (),
) -> None:
    """One tidy table per grid from its job files, with a provenance sidecar.

    ``cells`` maps each grid name (main, jplus, fvr) to its job parquet files, ``tables`` to the
    CSV to write; ``params`` is the config subset the rule declares (the sidecar records it),
    ``meta`` the prepared-data sidecars.
    """
    from ...io import write_csv
    from ...provenance import write_provenance

    for key, path in tables.items():
        write_csv(_read_all(list(cells[key])), path)
        write_provenance(path, config=params, seed=params["seed"], inputs=list(meta))


def _read_csv(path) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def write_figures(
    main, jplus, fvr, figures: Mapping[str, tuple], *, jab_cfg: dict, missing
) -> None:
    """Each paper figure of ``figures`` (figure id -> (pdf path, png path)) from the tidy
    tables ``main``, ``jplus`` and ``fvr`` (CSV paths)."""
    from ...plotting import save_figure

    main, jplus, fvr = _read_csv(main), _read_csv(jplus), _read_csv(fvr)
    datasets = list(jab_cfg["datasets"])
    available = [d for d in datasets if d not in missing]
    by_id = {fid: key for key, fid in JAB_FIGURES.items()}
    for fid, (pdf, png) in figures.items():
        grid, agg, metric = by_id[fid]
        if grid == "main":
            df = expand_jplus(main, jplus, jab_cfg["aggregations"]) if len(main) else main
            methods = [JPLUS, JPLUS_ENSEMBLE, JAB]
            n = jab_cfg["main"]["n"]
        else:
            df, methods, n = fvr, [JAB_RANDOM, JAB_FIXED], jab_cfg["fixed_vs_random"]["n"]
        what = "coverage" if metric == "coverage" else "interval width"
        title = (
            f"Figure {fid}: {what}, aggregation = {AGG_LABEL[agg]}, n = {n}, "
            f"{jab_cfg['n_trials']} trials"
        )
        fig = grid_figure(
            df,
            metric=metric,
            aggregation=agg,
            methods=methods,
            datasets=datasets,
            available=available,
            learners=jab_cfg["learners"],
            alpha=jab_cfg["alpha"],
            title=title,
        )
        save_figure(fig, pdf, png)


def write_tables(
    main,
    jplus,
    tables: Mapping[str, tuple],
    *,
    params: Mapping,
    missing,
    meta: Sequence = (),
) -> None:
    """Tables S1-S3 (``tables``: data set -> (csv path, md path); CSV + Markdown + provenance
    from ``params``, the rule's config subset) from the tidy tables. The verdicts on the
    paper's claims are made by :mod:`.claims`, not here."""
    from ...io import write_csv, write_markdown
    from ...provenance import write_provenance

    jab_cfg = params["jab"]
    main, jplus = _read_csv(main), _read_csv(jplus)
    for ds, (csv, md) in tables.items():
        tab = wallclock_table(
            main,
            jplus,
            dataset=ds,
            m_ratio=jab_cfg["timing_m_ratio"],
            learners=jab_cfg["learners"],
            aggregations=jab_cfg["aggregations"],
            available=ds not in missing,
            seed=params["seed"],
        )
        title = (
            f"Table {JAB_TABLES[ds]}: mean seconds (wall clock, CPU) over "
            f"{jab_cfg['n_trials']} trials, {DATASET_LABEL[ds]}, "
            f"m = {jab_cfg['timing_m_ratio']:g} n; {TIMING_NOTE} "
            "(paper's seconds: MacBook Air 2018; only ratios compare)"
        )
        write_csv(tab, csv)
        write_markdown(tab, md, title=title, floatfmt=".3g")
        write_provenance(csv, config=params, seed=params["seed"], inputs=list(meta))
