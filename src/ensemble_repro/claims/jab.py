"""Verdicts on the J+aB claims (Kim, Xu & Barber 2020) from results/jab/*.csv."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from ..experiments.jab import JAB, JAB_FIXED, JAB_RANDOM, JPLUS, JPLUS_ENSEMBLE
from ..experiments.jab_report import expand_jplus
from .rules import (
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    band_verdict,
    bootstrap_ratio,
    combine,
    robust_across,
    t_interval,
    tally,
)
from .table import claim_row, untestable

#: Coverage tolerance around 1 - alpha (jab.coverage).
COVERAGE_TOL = 0.05
#: Width ratios treated as equal (jab.width_no_winner) and the fixed-vs-random bands.
EQUAL_WIDTH = (0.9, 1.1)
FVR_COVERAGE_TOL = 0.02
FVR_WIDTH = (0.95, 1.05)
RIDGE_NOT_NARROWER = 0.95
#: Name of the sampling sensitivity setting in ``robust_to``: resamples drawn without
#: replacement (subsampling; Algorithms 1-2 and Section 2.2 allow either, the experiments
#: bootstrap).
SAMPLING_SETTING = "sampling without replacement"


def _paired(df: pd.DataFrame, a: str, b: str, col: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-trial values of methods ``a`` and ``b`` (trials both have)."""
    wide = df.pivot_table(index="trial", columns="method", values=col, aggfunc="mean")
    wide = wide[[a, b]].dropna()
    return wide[a].to_numpy(), wide[b].to_numpy()


def _cells(df: pd.DataFrame) -> list[tuple[tuple, pd.DataFrame]]:
    return [(k, g) for k, g in df.groupby(["learner", "m_ratio"], sort=True)]


def _label(key: tuple) -> str:
    return key[0] if pd.isna(key[1]) else f"{key[0]} m/n={key[1]:g}"


def _coverage(rows: pd.DataFrame, alpha: float, seed: int) -> tuple[str, str, str, int]:
    target = 1 - alpha
    verdicts, worst, n = [], None, 0
    for key, g in rows.groupby(["learner", "m_ratio", "method"], sort=True, dropna=False):
        iv = t_interval(g["coverage"])
        v = band_verdict(iv, target - COVERAGE_TOL, target + COVERAGE_TOL)
        verdicts.append(v)
        n = max(n, iv.n)
        dist = abs(iv.estimate - target)
        if worst is None or dist > worst[0]:
            worst = (dist, f"{key[2]}, {_label(key)}", iv)
    ours = (
        f"mean coverage within {target:g} +- {COVERAGE_TOL}: {tally(verdicts)} cells; "
        f"furthest: {worst[1]} {worst[2].estimate:.3f}"
    )
    return combine(verdicts), ours, worst[2].text(), n


def _ratio_cells(df: pd.DataFrame, num: str, den: str, col: str, seed: int):
    out = []
    for key, g in _cells(df):
        if not {num, den} <= set(g["method"]):
            continue
        a, b = _paired(g, num, den, col)
        if len(a):
            out.append((key, bootstrap_ratio(a, b, seed=seed)))
    return out


def _width_no_winner(rows: pd.DataFrame, seed: int) -> tuple[str, str, str, int]:
    cells = _ratio_cells(rows, JAB, JPLUS_ENSEMBLE, "mean_width", seed)
    narrower = [k for k, iv in cells if iv.high < 1]
    wider = [k for k, iv in cells if iv.low > 1]
    equal = all(band_verdict(iv, *EQUAL_WIDTH) == REPRODUCED for _, iv in cells)
    if cells and (len(narrower) == len(cells) or len(wider) == len(cells)):
        verdict = NOT_REPRODUCED
    elif (narrower and wider) or equal:
        verdict = REPRODUCED
    else:
        verdict = PARTLY
    lo = min(cells, key=lambda c: c[1].estimate)
    hi = max(cells, key=lambda c: c[1].estimate)
    ours = (
        f"J+aB / J+ensemble width: J+aB narrower in {len(narrower)}, wider in {len(wider)}, "
        f"undecided in {len(cells) - len(narrower) - len(wider)} of {len(cells)} cells; "
        f"ratios {lo[1].estimate:.3f} ({_label(lo[0])}) to {hi[1].estimate:.3f} "
        f"({_label(hi[0])})"
    )
    return verdict, ours, f"{lo[1].text()} .. {hi[1].text()}", lo[1].n


def _bagging_helps(rows: pd.DataFrame, seed: int) -> tuple[str, str, str, int]:
    verdicts, parts, ivs = [], [], []
    for key, iv in _ratio_cells(rows, JAB, JPLUS, "mean_width", seed):
        if key[0] == "rf":
            verdicts.append(band_verdict(iv, high=1.0))
        elif key[0] == "ridge":
            verdicts.append(band_verdict(iv, low=RIDGE_NOT_NARROWER))
        else:
            continue
        parts.append(f"{_label(key)} {iv.estimate:.3f}")
        ivs.append(iv)
    if not verdicts:
        return "", "", "", 0
    ours = f"J+aB / J+non-ensemble width: {'; '.join(parts)} ({tally(verdicts)} cells)"
    return combine(verdicts), ours, "; ".join(iv.text() for iv in ivs), ivs[0].n


def _cheaper(rows: pd.DataFrame, m_ratio: float, seed: int) -> tuple[str, str, str, int]:
    sub = rows[np.isclose(rows["m_ratio"], m_ratio)]
    verdicts, parts, ivs = [], [], []
    for lrn, g in sub.groupby("learner", sort=True):
        a, b = _paired(g, JPLUS_ENSEMBLE, JAB, "total_seconds")
        if not len(a):
            continue
        iv = bootstrap_ratio(a, b, seed=seed)
        verdicts.append(band_verdict(iv, low=1.0))
        parts.append(f"{lrn} {iv.estimate:.1f}x")
        ivs.append(iv)
    if not verdicts:
        return "", "", "", 0
    ours = f"J+ensemble / J+aB seconds at m = {m_ratio:g} n: {', '.join(parts)}"
    return combine(verdicts), ours, "; ".join(iv.text() for iv in ivs), ivs[0].n


def _fixed_vs_random(rows: pd.DataFrame, seed: int) -> tuple[str, str, str, int]:
    verdicts, worst, n = [], None, 0
    for key, g in _cells(rows):
        if not {JAB_FIXED, JAB_RANDOM} <= set(g["method"]):
            continue
        r, f = _paired(g, JAB_RANDOM, JAB_FIXED, "coverage")
        cov = t_interval(r - f)
        wid = bootstrap_ratio(*_paired(g, JAB_RANDOM, JAB_FIXED, "mean_width"), seed=seed)
        vs = [band_verdict(cov, -FVR_COVERAGE_TOL, FVR_COVERAGE_TOL), band_verdict(wid, *FVR_WIDTH)]
        verdicts.append(NOT_REPRODUCED if NOT_REPRODUCED in vs else combine(vs))
        n = max(n, cov.n)
        dist = abs(wid.estimate - 1)
        if worst is None or dist > worst[0]:
            worst = (dist, key, cov, wid)
    if not verdicts:
        return "", "", "", 0
    _, key, cov, wid = worst
    ours = (
        f"{tally(verdicts)} cells essentially the same; largest width gap at {_label(key)}: "
        f"ratio random / fixed {wid.estimate:.3f}, coverage difference {cov.estimate:+.3f}"
    )
    return combine(verdicts), ours, f"coverage diff {cov.text()}; width ratio {wid.text()}", n


def evaluate(
    main: pd.DataFrame,
    jplus: pd.DataFrame,
    fvr: pd.DataFrame,
    without_replacement: pd.DataFrame,
    *,
    alpha: float,
    datasets: Sequence[str],
    missing: Sequence[str],
    aggregations: Sequence[str],
    timing_m_ratio: float,
    seed: int,
) -> list[dict]:
    """Claims rows of the J+aB paper (registry claims ``jab.*``), one per claim x data set.

    Parameters
    ----------
    main, jplus, fvr : DataFrame
        ``results/jab/main.csv``, ``jplus.csv`` and ``fixed_vs_random.csv`` (one row per data
        set x learner x aggregation x method x m/n x trial).
    without_replacement : DataFrame
        ``results/jab/without_replacement.csv``: the main grid's methods with resamples drawn
        without replacement (Section 2.2), the sampling sensitivity setting; empty when the
        setting is switched off.
    alpha : float
        Miscoverage level; coverage is judged around ``1 - alpha`` (paper Section 5).
    datasets : sequence of str
        Configured data sets; one row per claim and data set.
    missing : sequence of str
        Data sets whose raw file is absent: ``not testable here``.
    aggregations : sequence of str
        The first (the paper's mean) decides the verdict; the others are sensitivity settings.
    timing_m_ratio : float
        m / n of the wall-clock claim (Tables S1-S3).
    seed : int
        Seed of the bootstrap intervals.

    Returns
    -------
    list of dict
        Rows for :func:`ensemble_repro.claims.table.claims_frame`. ``robust_to`` counts the
        settings (other aggregations, ``sampling without replacement``) under which the same
        rule on that setting's rows gives the same verdict
        (:func:`ensemble_repro.claims.rules.robust_across`); a setting without rows for the
        claim (e.g. fixed vs random B, not run without replacement) is named apart.
    """
    rows = []
    main_agg, others = aggregations[0], list(aggregations[1:])
    wor = without_replacement

    def with_jplus(df: pd.DataFrame) -> pd.DataFrame:
        return pd.concat([df, jplus], ignore_index=True) if len(jplus) and len(df) else df

    def spread(df: pd.DataFrame) -> pd.DataFrame:
        return expand_jplus(df, jplus, aggregations) if len(jplus) and len(df) else df

    def at(df: pd.DataFrame, agg: str) -> pd.DataFrame:
        return df[df["aggregation"].isin([agg, "none"])] if len(df) else df

    def of(df: pd.DataFrame, ds: str) -> pd.DataFrame:
        return df[df["dataset"] == ds] if len(df) else df

    # claim -> (its table, the same table under sampling without replacement, its rule)
    checks: list[tuple[str, pd.DataFrame, pd.DataFrame, Callable]] = [
        ("jab.coverage", with_jplus(main), with_jplus(wor), lambda d: _coverage(d, alpha, seed)),
        ("jab.width_no_winner", main, wor, lambda d: _width_no_winner(d, seed)),
        ("jab.bagging_helps_rf", spread(main), spread(wor), lambda d: _bagging_helps(d, seed)),
        ("jab.fixed_vs_random_b", fvr, pd.DataFrame(), lambda d: _fixed_vs_random(d, seed)),
        (
            "jab.cheaper_than_ensemble",
            main,
            wor,
            lambda d: _cheaper(d, timing_m_ratio, seed),
        ),
    ]
    for claim_id, table, table_wor, check in checks:

        def verdict_of(d: pd.DataFrame, check=check) -> str:
            return check(d)[0] if len(d) else ""

        for ds in datasets:
            if ds in missing:
                rows.append(
                    untestable(
                        claim_id, ds, f"{ds} raw file absent (MEPS needs the AHRQ file, see README)"
                    )
                )
                continue
            d = of(table, ds)
            verdict, ours, interval, n = check(at(d, main_agg)) if len(d) else ("",) * 3 + (0,)
            if not verdict:
                rows.append(
                    untestable(
                        claim_id,
                        ds,
                        "no rows for it in this run's tables (grid "
                        "switched off, learner or m/n not run)",
                    )
                )
                continue
            settings = {a: at(d, a) for a in others if (d["aggregation"] == a).any()}
            settings[SAMPLING_SETTING] = at(of(table_wor, ds), main_agg)
            rows.append(
                claim_row(
                    claim_id,
                    ds,
                    ours=f"{ours} (aggregation {main_agg}, sampling with replacement)",
                    verdict=verdict,
                    interval=interval,
                    n_repeats=n,
                    robust_to=robust_across(verdict, verdict_of, settings),
                )
            )
    return rows
