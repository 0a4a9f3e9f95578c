"""Verdicts on the QWYC claims (Wang, Gupta & You 2018) from results/qwyc/<data>/*.csv.

Every claim is a criterion checked per carve-out (split); the verdict is the share of splits
meeting it with its Wilson interval (``registry._QWYC_SPLIT``). Tables without a ``split``
column hold one split, which gives at most ``partly reproduced``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..experiments.names import CROSSFIT
from ..experiments.qwyc import LABELS
from ..experiments.qwyc_report import frontier, with_unaffected
from .rules import LEVEL, REPRODUCED, band_verdict, repeats_needed, robust_to, wilson
from .table import claim_row, untestable

#: Test-difference level (%) of the 2x-4x claim: the paper's ~0.5% operating point.
FAITHFUL_PCT = 0.5
#: QWYC*'s timing point counts as matched when within this factor of the target level.
MATCH_FACTOR = 1.5
QWYC_STAR, FAN_STAR = "qwyc_joint", "fan_individual_mse"

Check = Callable[[pd.DataFrame], "tuple[bool, str] | None"]


def _splits(df: pd.DataFrame) -> list[pd.DataFrame]:
    """One frame per independent split. Under ``fit_on: train_full`` splits that chose the
    same learning rate share one GBT and one fit (the GBT draws no rows), so they count once:
    repeating a deterministic fit is not a repeat."""
    if "split" not in df:
        return [df]
    frames = [g for _, g in df.groupby("split", sort=True)]
    if "fit_on" not in df or "learning_rate" not in df or set(df["fit_on"]) != {"train_full"}:
        return frames
    seen, out = set(), []
    for g in frames:
        key = tuple(sorted(g["learning_rate"].unique()))
        if key not in seen:
            seen.add(key)
            out.append(g)
    return out


def fewer_models(points: pd.DataFrame, n_trees: int) -> tuple[bool, str] | None:
    """QWYC* reaches <= 0.5% test differences with at most T / 2 mean models."""
    nq = frontier(points, QWYC_STAR, FAITHFUL_PCT)
    if math.isnan(nq):
        return False, f"no QWYC* point at <= {FAITHFUL_PCT}% test differences"
    return n_trees / nq >= 2, f"{n_trees / nq:.2f}x fewer models ({nq:.1f} of {n_trees})"


def beats_fixed_orders(points: pd.DataFrame, targets: Sequence[float]) -> tuple[bool, str] | None:
    """At each target level some method reaches, QWYC* reaches it with the fewest models."""
    ok, parts = [], []
    # the cross-fitted QWYC* is an extension beyond the paper, not a pre-selected ordering
    others = [m for m in points["method"].unique() if m not in (QWYC_STAR, CROSSFIT)]
    for target in targets:
        nq = frontier(points, QWYC_STAR, target)
        rivals = {m: frontier(points, m, target) for m in others}
        reached = {m: v for m, v in rivals.items() if not math.isnan(v)}
        if math.isnan(nq) and not reached:
            continue
        best = min(reached, key=reached.get) if reached else None
        win = not math.isnan(nq) and all(nq < v for v in reached.values())
        ok.append(win)
        parts.append(
            f"<= {target:g}%: QWYC* {nq:.1f} vs best other "
            + (f"{LABELS[best]} {reached[best]:.1f}" if best else "none")
        )
    if not ok:
        return None
    return all(ok), "; ".join(parts)


def fan_below_smaller(points: pd.DataFrame, smaller: pd.DataFrame) -> tuple[bool, str] | None:
    """More than half the Fan* points are worse than smaller GBTs on accuracy AND differences."""
    s = smaller[smaller["method"] == "smaller_same_lr"]
    f = points[points["method"] == FAN_STAR]
    if "split" in s and "split" in f and len(f):  # the smaller GBTs of the same split
        s = s[s["split"] == f["split"].iloc[0]]
    s = s.sort_values("n_trees")
    if not len(s) or not len(f):
        return None
    x = f["test_mean_evaluated"].to_numpy()
    acc = int(
        np.sum(f["test_accuracy"].to_numpy() < np.interp(x, s["n_trees"], s["test_accuracy"]))
    )
    diff = int(
        np.sum(
            f["test_differences_pct"].to_numpy()
            > np.interp(x, s["n_trees"], s["test_differences_pct"])
        )
    )
    half = len(f) / 2
    return (
        acc > half and diff > half,
        (
            f"Fan* worse on accuracy at {acc} of {len(f)} points, on differences at {diff} of "
            f"{len(f)}"
        ),
    )


def faster_than_fan(
    timing: pd.DataFrame, target_pct: float = FAITHFUL_PCT
) -> tuple[bool, str] | None:
    """Per-example time Fan* / QWYC* at the target level: delta-method interval over the timing
    runs above 1, QWYC* within ``MATCH_FACTOR`` of the target."""
    at = timing[np.isclose(timing["target_differences_pct"], target_pct)].set_index("method")
    if QWYC_STAR not in at.index or FAN_STAR not in at.index:
        return None
    q, f = at.loc[QWYC_STAR], at.loc[FAN_STAR]
    ratio = f.per_example_mean_seconds / q.per_example_mean_seconds
    runs = int(q.runs)
    rel = math.hypot(
        f.per_example_sd_seconds / f.per_example_mean_seconds,
        q.per_example_sd_seconds / q.per_example_mean_seconds,
    ) / math.sqrt(runs)
    half = stats.norm.ppf(0.5 + LEVEL / 2) * ratio * rel
    matched = q.test_differences_pct <= MATCH_FACTOR * target_pct
    return (
        ratio - half > 1 and matched,
        (
            f"{ratio:.2f}x [{ratio - half:.2f}, {ratio + half:.2f}] over {runs} timing runs "
            f"(QWYC* at {q.test_differences_pct:.2f}%, Fan* at {f.test_differences_pct:.2f}% "
            "differences)"
        ),
    )


def lowest_differences(points: pd.DataFrame) -> str:
    """``"; QWYC* at alpha = 0: 0.45 +- 0.12% test differences, <= 0.5% on 4 of 7 splits"``:
    QWYC*'s lowest reachable test differences, mean +- sd over splits and how often they
    meet the paper's ~0.5% level."""
    if "value" not in points:
        return ""
    at0 = [
        g[(g["method"] == QWYC_STAR) & (g["value"] == 0)]["test_differences_pct"]
        for g in _splits(points)
    ]
    v = np.array([float(x.iloc[0]) for x in at0 if len(x)])
    if not v.size:
        return ""
    sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
    ok = int(np.sum(v <= FAITHFUL_PCT + 1e-12))
    return (
        f"; QWYC* at alpha = 0: {v.mean():.3g} +- {sd:.2g}% test differences, "
        f"<= {FAITHFUL_PCT}% on {ok} of {v.size} splits"
    )


def _over_splits(frames: list[pd.DataFrame], check: Check):
    results = [r for r in (check(f) for f in frames) if r is not None]
    if not results:
        return None
    k = sum(ok for ok, _ in results)
    iv = wilson(k, len(results))
    verdict = band_verdict(iv, low=0.5)
    detail = "; ".join(
        f"split {i}: {'meets' if ok else 'fails'} ({d})" for i, (ok, d) in enumerate(results)
    )
    return verdict, iv, k, len(results), detail


def evaluate(
    points: Mapping[str, pd.DataFrame],
    smaller: Mapping[str, pd.DataFrame],
    timing: Mapping[str, pd.DataFrame],
    sensitivity: Mapping[str, Mapping[str, pd.DataFrame]],
    *,
    datasets: Sequence[str],
    n_trees: int,
    target_differences: Sequence[float],
) -> list[dict]:
    """Claims rows of the QWYC paper (registry claims ``qwyc.*``), one per claim x data set.

    Parameters
    ----------
    points, smaller, timing : mapping of str to DataFrame
        Data set -> its ``figure1.csv`` / ``smaller_ensembles.csv`` / ``timing.csv``. A
        ``split`` column, when present, marks independent carve-outs.
    sensitivity : mapping of str to mapping of str to DataFrame
        Data set -> {setting: ``sensitivity_<setting>.csv``}, counted in ``robust_to``.
    datasets : sequence of str
        Configured data sets; one absent from ``points`` gets ``not testable here``.
    n_trees : int
        T, the full ensemble's size (the 2x-4x claim).
    target_differences : sequence of float
        Difference levels (fractions) at which orderings are compared.

    Returns
    -------
    list of dict
        Rows for :func:`ensemble_repro.claims.table.claims_frame`.
    """
    targets = [100 * t for t in target_differences]
    rows = []
    for ds in datasets:
        if ds not in points:
            for cid in ("qwyc.fewer_models", "qwyc.beats_fixed_orders", "qwyc.faster_than_fan"):
                rows.append(untestable(cid, ds, f"{ds} was not run (prepared data absent)"))
            continue
        p, sens = points[ds], sensitivity.get(ds, {})
        checks: list[tuple[str, Callable, bool]] = [
            ("qwyc.fewer_models", lambda d: fewer_models(d, n_trees), True),
            ("qwyc.beats_fixed_orders", lambda d: beats_fixed_orders(d, targets), True),
        ]
        if ds == "adult" and ds in smaller:
            checks.append(
                ("qwyc.fan_below_smaller", lambda d, s=smaller[ds]: fan_below_smaller(d, s), True)
            )
        checks.append(("qwyc.faster_than_fan", None, False))
        for cid, check, on_points in checks:
            if on_points:
                res = _over_splits(_splits(p), check)
                flips = {}
                for setting, sp in sens.items():
                    r = _over_splits(_splits(with_unaffected(p, sp, setting)), check)
                    if r is not None:
                        flips[setting] = r[0]  # the verdict, not its split count
            else:
                res = _over_splits(_splits(timing[ds]), faster_than_fan) if ds in timing else None
                flips = {}
            if res is None:
                rows.append(untestable(cid, ds, "no table row this claim can be read from"))
                continue
            verdict, iv, k, n, detail = res
            spread = lowest_differences(p) if cid == "qwyc.fewer_models" else ""
            if cid == "qwyc.fan_below_smaller" and verdict != REPRODUCED:
                spread += (
                    "; where Fan* is not worse than the smaller GBTs on both accuracy and "
                    "differences, that is a finding against the paper's statement"
                )
            n_all = p["split"].nunique() if on_points and "split" in p else n
            if n_all != n:
                spread += (
                    f" ({n_all} carve-outs, {n} distinct fit(s): under train_full the splits "
                    "that chose the same learning rate share one GBT and count once)"
                )
            rows.append(
                claim_row(
                    cid,
                    ds,
                    ours=f"criterion met on {k} of {n} splits{spread}: {detail}",
                    verdict=verdict,
                    interval=iv,
                    n_repeats=n,
                    repeats_needed=repeats_needed(iv, low=0.5, unit="splits"),
                    effect=iv,
                    band=(0.5, 1.0),
                    robust_to=robust_to(verdict, flips),
                )
            )
    rows.append(
        untestable(
            "qwyc.real_world",
            "real-world lattices",
            "the lattice ensembles and data of Experiments 3-6 are internal to the authors",
        )
    )
    return rows
