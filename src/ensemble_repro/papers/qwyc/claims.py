"""Verdicts on the QWYC claims (Wang, Gupta & You 2018) from results/qwyc/<data>/.

The GBT is deterministic under the paper's protocol (``fit_on: train_full``), so what varies is:

* the held-out **test rows**: per-row outcomes of every operating point of the main fit
  (``rows/<method>.parquet``: differs from the full ensemble, correct, models evaluated) give
  binomial intervals on difference rates, paired intervals between methods on the same rows
  (the Wald form of McNemar's test for 0/1 outcomes) and t intervals on models per row;
* the **fitting rows** the ordering and thresholds are fitted on (where the over-fit of
  Algorithm 2's thresholds comes from): ``qwyc.n_refits`` bootstrap refits with the GBT held
  fixed (``refits.csv``), the replicates of the claims about the fitting procedure;
* the **timing runs** (``timing_runs.csv``), paired across methods within a run.

The learning rate is a sensitivity setting, not a replicate. The rules are stated in the
claim list (:mod:`.claim_list`) with the margins of :mod:`.margins`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ...claims.build import PathLike, read_table, write_paper_claims
from ...claims.rules import (
    INCONCLUSIVE,
    LEVEL,
    NOT_REPRODUCED,
    NOT_TESTABLE,
    PARTLY,
    REPRODUCED,
    Interval,
    band_verdict,
    combine_parts,
    flips_in,
    one_sided,
    paired_log_ratio,
    repeats_needed,
    robust_to,
    t_interval,
    wilson,
)
from ...claims.table import claim_row, untestable
from ...io import read_parquet
from .cells import LABELS
from .margins import (
    QWYC_APPROX_FACTOR,
    QWYC_COMPARE_PCT,
    QWYC_FAITHFUL_PCT,
    QWYC_FASTER_THAN,
    QWYC_MANY_SHARE,
    QWYC_MATCH_FACTOR,
    QWYC_MAX_SPEEDUP,
    QWYC_MIN_SPEEDUP,
    QWYC_POINT_SHARE,
    QWYC_SPEEDUP_BAND,
)
from .names import (
    CROSSFIT,
    FAN_STAR,
    QWYC_STAR,
    REFIT_METHODS,
    SMALLER_SAME_LR,
    setting_affects,
)

#: Methods that are not a pre-selected ordering of the paper (never a rival of QWYC*).
NOT_RIVALS = (QWYC_STAR, CROSSFIT, SMALLER_SAME_LR)
#: Claims judged per data set from its test rows, timing and refits, in claim-list order.
CLAIM_IDS = (
    "qwyc.fewer_models",
    "qwyc.beats_fixed_orders",
    "qwyc.fan_below_smaller",
    "qwyc.faster_than_fan",
    "qwyc.fan_vs_algorithm2",
    "qwyc.more_accurate_than_fan",
)
#: Judged per data set from its approximation draws (approximation.csv).
APPROX_ID = "qwyc.ordering_4approx"
_EPS = 1e-9


@dataclass(frozen=True)
class Finding:
    """A claim's verdict on one data set with the interval it rests on."""

    verdict: str
    ours: str
    interval: Interval | str = ""
    effect: Interval | None = None
    band: tuple[float, float] | None = None
    repeats_needed: str = ""
    n_repeats: int = 0


# ------------------------------------------------------------------ reading the per-row table
def points(rows: pd.DataFrame) -> pd.DataFrame:
    """Operating points of a per-row table (:func:`.cells.row_frame`):
    per (method, value) the test rows ``n``, the % test differences, the accuracy and the mean
    # models evaluated (means over random repetitions).

    Examples
    --------
    >>> from ensemble_repro.papers.qwyc.cells import row_frame
    >>> r = row_frame(0, 0.1, "qwyc_joint", 0.0, 0, np.array([1, 0, 1, 1], bool),
    ...               np.array([1, 2, 3, 4]), np.ones(4, bool), np.ones(4))
    >>> points(r)[["method", "n", "differences_pct", "models"]].to_numpy().tolist()
    [['qwyc_joint', 4, 25.0, 2.5]]
    """
    return RowTable(rows).points


def frontier(pts: pd.DataFrame, method: str, target_pct: float) -> pd.Series | None:
    """The method's point with the fewest mean models among those with test differences at
    most ``target_pct`` (None when it has none)."""
    p = pts[(pts["method"] == method) & (pts["differences_pct"] <= target_pct + _EPS)]
    return None if p.empty else p.sort_values(["models", "value"]).iloc[0]


def lowest(pts: pd.DataFrame, method: str) -> pd.Series | None:
    """The method's point with the lowest test differences (then fewest models)."""
    p = pts[pts["method"] == method]
    return None if p.empty else p.sort_values(["differences_pct", "models"]).iloc[0]


class RowTable:
    """A per-row table indexed once: its operating points (:func:`points`) and the per-row
    vectors of each (method, value)."""

    def __init__(self, rows: pd.DataFrame):
        self.rows = rows.assign(method=rows["method"].astype(str))
        self._groups = dict(list(self.rows.groupby(["method", "value"], sort=False)))
        self.points = pd.DataFrame(
            [_summary(m, v, g) for (m, v), g in self._groups.items()],
            columns=["method", "value", "n", "differences", "correct", "models"],
        )
        self.points["differences_pct"] = 100 * self.points["differences"] / self.points["n"]
        self.points["accuracy"] = self.points["correct"] / self.points["n"]

    def vector(self, method: str, value: float, column: str) -> np.ndarray:
        """Per-test-row values of one operating point, in test-row order (means over random
        repetitions)."""
        g = self._groups[(method, np.float32(value))]
        row = g["row"].to_numpy()
        return np.bincount(row, g[column].to_numpy(float)) / np.bincount(row)


def _summary(method, value, g: pd.DataFrame) -> tuple:
    """(method, value, test rows, differences, correct, mean models): sums per repetition,
    averaged over repetitions."""
    reps = g["repetition"].nunique()
    return (
        method,
        value,
        len(g) // reps,
        g["differs"].sum() / reps,
        g["correct"].sum() / reps,
        float(g["n_evaluated"].mean()),
    )


def table(rows) -> RowTable:
    """``rows`` as a :class:`RowTable` (unchanged when it already is one)."""
    return rows if isinstance(rows, RowTable) else RowTable(rows)


def vector(rows, method: str, value: float, column: str) -> np.ndarray:
    """Per-test-row values of one operating point, in test-row order (means over random
    repetitions)."""
    return table(rows).vector(method, value, column)


def _paired(rows, a, b, column: str, scale: float = 1.0) -> Interval:
    """Mean over test rows of (a - b) per row with its t interval (``a``, ``b``: (method,
    value) pairs; 0/1 columns give the Wald interval of a paired difference of proportions,
    the interval form of McNemar's test)."""
    t = table(rows)
    return t_interval(scale * (t.vector(*a, column) - t.vector(*b, column)))


# ------------------------------------------------------------------ the refits
def one_fit_interval(test: Interval, refit_values, level: float = LEVEL) -> Interval:
    """A test statistic of the main fit with both sources of its variation: the test rows
    (``test``, its interval over the test rows) and the rows it was fitted on (the spread of
    the same statistic over bootstrap refits with the GBT held fixed). Each side's half-width
    is the root sum of squares of the test-row half-width and t_{R-1} x the refits' sd.

    The refits' mean is not used: a bootstrap resample holds about 63% distinct rows, and the
    thresholds' over-fit grows as the fitting rows shrink, so refits lean towards more
    differences than the fit on all rows; their spread is the fit-to-fit variation. The
    interval does not narrow with more refits beyond the t quantile: one fit is one draw.

    Parameters
    ----------
    test : Interval
        The main fit's estimate with its test-row interval.
    refit_values : sequence of float
        The statistic on each refit (same units).
    level : float
        Two-sided confidence level.

    Returns
    -------
    Interval
        ``n`` = refits; the test-row interval itself with fewer than 2 refits.

    Examples
    --------
    >>> one_fit_interval(Interval(0.4, 0.3, 0.5, "Wilson 95%", 1000), [0.5, 0.5]).text(".2f")
    '0.40 [0.30, 0.50] (test rows + 2 refits, n = 2)'
    """
    v = np.asarray(refit_values, float)
    if v.size < 2:
        return test
    spread = stats.t.ppf(0.5 + level / 2, v.size - 1) * float(v.std(ddof=1))
    iv = _widen(test, spread)
    return Interval(iv.estimate, iv.low, iv.high, f"test rows + {v.size} refits", int(v.size))


def _widen(test: Interval, spread: float, shrink: float = 1.0) -> Interval:
    lo = test.estimate - math.hypot((test.estimate - test.low) * shrink, spread)
    hi = test.estimate + math.hypot((test.high - test.estimate) * shrink, spread)
    return Interval(test.estimate, lo, hi, test.method, test.n)


def one_fit_needed(test: Interval, refit_values, *, low=None, high=None) -> str:
    """What would decide :func:`one_fit_interval` against the bound (``low``: "at least",
    ``high``: "at most") at the observed spreads: more refits (a smaller t quantile on their
    sd); else more test rows (the test-row half-width shrinking as 1 / sqrt(rows)) with 10x the
    refits, out of reach with the data set's test rows; else out of reach at any scale up to
    10x (the fit-to-fit spread alone spans the bound).

    Examples
    --------
    >>> one_fit_needed(Interval(0.4, 0.3, 0.48, "Wilson", 1000), [0.40, 0.41], high=0.5)
    'about 3 refits'
    >>> one_fit_needed(Interval(0.4, 0.3, 0.52, "Wilson", 1000), [], high=0.5)
    'out of reach with this data set (needs about 2x its test rows, 2000, has 1000)'
    """
    v = np.asarray(refit_values, float)
    sd = float(v.std(ddof=1)) if v.size >= 2 else 0.0
    q = lambda k: stats.t.ppf(0.5 + LEVEL / 2, k - 1)  # noqa: E731
    if v.size >= 2:
        for k in range(v.size + 1, 10 * v.size + 1):
            if one_sided(_widen(test, q(k) * sd), low=low, high=high) != INCONCLUSIVE:
                return f"about {k} refits"
    spread = q(10 * v.size) * sd if v.size >= 2 else 0.0
    for scale in range(2, 11):
        iv = _widen(test, spread, 1 / math.sqrt(scale))
        if one_sided(iv, low=low, high=high) != INCONCLUSIVE:
            return (
                f"out of reach with this data set (needs about {scale}x its test rows, "
                f"{scale * test.n}, has {test.n})"
            )
    return (
        f"out of reach with this data set (undecided even with 10x the refits and 10x its "
        f"{test.n} test rows)"
    )


def rows_needed(interval: Interval, low: float | None = None, high: float | None = None) -> str:
    """The test rows that would decide an interval over all of a data set's test rows against
    the bound (:func:`~ensemble_repro.claims.rules.repeats_needed`): always beyond the rows the
    data set has, so said to be out of reach; empty when it already decides.

    Examples
    --------
    >>> rows_needed(Interval(0.4, 0.3, 0.5, "Wilson", 1000), high=0.45)
    'out of reach with this data set (needs about 3993 test rows, has 1000)'
    """
    return repeats_needed(
        interval,
        low=-math.inf if low is None else low,
        high=math.inf if high is None else high,
        unit="test rows",
        available=interval.n,
    )


def _refit_values(refits, method, value, column) -> np.ndarray:
    if refits is None or refits.empty:
        return np.array([])
    r = refits[(refits["method"] == method) & np.isclose(refits["value"], float(value))]
    return r.sort_values("refit")[column].to_numpy(float)


# ------------------------------------------------------------------ the rules
def fewer_models(rows: pd.DataFrame, refits: pd.DataFrame | None, n_trees: int) -> Finding:
    """QWYC* at <= ``QWYC_FAITHFUL_PCT``% test differences with ``QWYC_MIN_SPEEDUP``x to
    ``QWYC_MAX_SPEEDUP``x fewer models than T (the abstract's "2x-4x ... classifying
    faithfully").

    The operating point is QWYC*'s alpha with the fewest models among those at <= the level
    on the main fit's test rows (else its lowest-differences alpha). Two parts: differences at
    most the level (one-sided), T / models inside the band (:func:`band_verdict`: not
    reproduced when wholly outside, on either side), each with the spread over the bootstrap
    refits at that alpha added to the test rows' (:func:`one_fit_interval`); without refits,
    on the test rows of the main fit alone (Wilson; t over rows). Parts combined by
    ``combine_parts``; whether T / models is at least the band's low end (faster at all) is
    stated beside them.
    """
    rows = table(rows)
    pts = rows.points
    pt = frontier(pts, QWYC_STAR, QWYC_FAITHFUL_PCT)
    if pt is None:
        pt = lowest(pts, QWYC_STAR)
    if pt is None:
        return Finding(NOT_TESTABLE, "no QWYC* point")
    n, alpha = int(pt["n"]), float(pt["value"])
    w = wilson(int(round(pt["differences"])), n)
    test_d = Interval(100 * w.estimate, 100 * w.low, 100 * w.high, w.method, n)
    m_t = t_interval(vector(rows, QWYC_STAR, alpha, "n_evaluated"))
    diff_r = 100 * _refit_values(refits, QWYC_STAR, alpha, "test_differences") / n
    models_r = _refit_values(refits, QWYC_STAR, alpha, "test_mean_evaluated")
    d_iv = one_fit_interval(test_d, diff_r)
    m_iv = one_fit_interval(m_t, models_r)
    ratio = Interval(
        n_trees / m_iv.estimate,
        n_trees / m_iv.high,
        n_trees / m_iv.low if m_iv.low > 0 else math.inf,
        m_iv.method,
        m_iv.n,
    )
    need_d = one_fit_needed(test_d, diff_r, high=QWYC_FAITHFUL_PCT)
    if diff_r.size >= 2:
        fits = (
            f"main fit, test rows + spread over {diff_r.size} bootstrap refits (GBT fixed; "
            f"refits' mean {diff_r.mean():.3g}% differences, sd {diff_r.std(ddof=1):.2g} pt)"
        )
    else:
        fits = "main fit, test rows only (no refits)"
    v_d = one_sided(d_iv, high=QWYC_FAITHFUL_PCT)
    v_m = one_sided(ratio, low=QWYC_MIN_SPEEDUP)
    v_b = band_verdict(ratio, QWYC_MIN_SPEEDUP, QWYC_MAX_SPEEDUP)
    verdict = combine_parts([v_d, v_b])
    near = n_trees / (QWYC_MIN_SPEEDUP if ratio.estimate < QWYC_MIN_SPEEDUP else QWYC_MAX_SPEEDUP)
    need_b = one_fit_needed(
        m_t, models_r, **({"high": near} if near < m_t.estimate else {"low": near})
    )
    need = "; ".join(
        f"{what}: {txt}"
        for what, v, txt in (("differences", v_d, need_d), ("magnitude", v_b, need_b))
        if v == INCONCLUSIVE
    )
    band = f"{QWYC_MIN_SPEEDUP:g}x-{QWYC_MAX_SPEEDUP:g}x"
    ours = (
        f"QWYC* at alpha = {alpha:g} ({fits}): test differences {d_iv.text('.3g')} % "
        f"(<= {QWYC_FAITHFUL_PCT}%: {v_d}; test rows alone {test_d.text('.3g')}); T / models "
        f"{ratio.text('.3g')} (within the paper's {band}: {v_b}"
        + (
            ", more models saved than the paper reports"
            if v_b == NOT_REPRODUCED and ratio.low > QWYC_MAX_SPEEDUP
            else ""
        )
        + f"; >= {QWYC_MIN_SPEEDUP:g}x, faster at all: {v_m})"
    )
    return Finding(verdict, ours, d_iv, d_iv, (0.0, QWYC_FAITHFUL_PCT), need, d_iv.n)


def _models_ratio(rows, a, b) -> tuple[str, Interval, Interval]:
    """Paired test over test rows that ``b`` (a rival) evaluates more models than ``a``:
    verdict of "mean models of b - a > 0", the difference interval and the ratio b / a."""
    d = _paired(rows, b, a, "n_evaluated")
    ma = float(vector(rows, *a, "n_evaluated").mean())
    ratio = Interval(1 + d.estimate / ma, 1 + d.low / ma, 1 + d.high / ma, d.method, d.n)
    return one_sided(d, low=0.0), d, ratio


def beats_fixed_orders(
    rows: pd.DataFrame, refits: pd.DataFrame | None, targets: Sequence[float]
) -> Finding:
    """At every target level (% test differences), QWYC* reaches it with fewer mean models than
    the best pre-selected ordering (Algorithm 2 or Fan) reaching it.

    Per level: each method's point with the fewest models at <= the level on the main fit; a
    paired t interval over test rows on models per row (rival - QWYC*), one-sided above 0; when
    the rival is also refitted (``REFIT_METHODS``), a paired log-ratio t interval over the
    refits at the same parameter values, one-sided above 1. A level QWYC* cannot reach fails
    when its lowest-differences point's Wilson interval lies above the level. Parts (tests and
    levels) combined by ``combine_parts``.
    """
    rows = table(rows)
    pts = rows.points
    rivals = [m for m in pts["method"].unique() if m not in NOT_RIVALS]
    parts, texts, needs = [], [], []
    effect = shown = None
    for target in targets:
        q = frontier(pts, QWYC_STAR, target)
        reach = {m: frontier(pts, m, target) for m in rivals}
        reach = {m: p for m, p in reach.items() if p is not None}
        if q is None and not reach:
            continue
        if q is None:
            lo = lowest(pts, QWYC_STAR)
            w = wilson(int(round(lo["differences"])), int(lo["n"]))
            iv = Interval(100 * w.estimate, 100 * w.low, 100 * w.high, w.method, w.n)
            v = NOT_REPRODUCED if iv.low > target else INCONCLUSIVE
            shown = shown or iv
            parts.append(v)
            if v == INCONCLUSIVE:
                needs.append(f"<= {target:g}%: {rows_needed(iv, high=target)}")
            texts.append(
                f"<= {target:g}%: QWYC* reaches no point (lowest {iv.text('.3g')} %), "
                f"{len(reach)} other method(s) do: {v}"
            )
            continue
        if not reach:
            parts.append(REPRODUCED)
            texts.append(f"<= {target:g}%: only QWYC* reaches it ({q['models']:.1f} models)")
            continue
        best = min(reach, key=lambda m: reach[m]["models"])
        b = reach[best]
        v_rows, d, ratio = _models_ratio(rows, (QWYC_STAR, q["value"]), (best, b["value"]))
        effect = effect or ratio
        tests = [v_rows]
        text = (
            f"<= {target:g}%: QWYC* {q['models']:.1f} models (alpha {q['value']:g}) vs best "
            f"other {LABELS[best]} {b['models']:.1f}; rival / QWYC* over test rows "
            f"{ratio.text('.3g')}: {v_rows}"
        )
        if v_rows == INCONCLUSIVE:
            needs.append(f"<= {target:g}% (test rows): {rows_needed(d, low=0.0)}")
        if best in REFIT_METHODS:
            qr = _refit_values(refits, QWYC_STAR, q["value"], "test_mean_evaluated")
            br = _refit_values(refits, best, b["value"], "test_mean_evaluated")
            if qr.size >= 2 and qr.size == br.size:
                r_iv = paired_log_ratio(br, qr)
                v_ref = one_sided(r_iv, low=1.0)
                tests.append(v_ref)
                text += f"; over {qr.size} refits {r_iv.text('.3g')}: {v_ref}"
                if v_ref == INCONCLUSIVE:
                    needs.append(
                        f"<= {target:g}% (refits): {repeats_needed(r_iv, low=1.0, unit='refits')}"
                    )
        parts.append(combine_parts(tests))
        texts.append(text)
    if not parts:
        return Finding(NOT_TESTABLE, "no method reaches any target level")
    verdict = combine_parts(parts)
    return Finding(
        verdict,
        "; ".join(texts),
        effect or shown or "",
        effect,
        (1.0, math.inf),
        "; ".join(needs) if verdict == INCONCLUSIVE else "",
        effect.n if effect else 0,
    )


def fan_below_smaller(rows: pd.DataFrame) -> Finding:
    """Fan* worse than the smaller GBTs "in terms of accuracy and classification differences".

    For each Fan* point with m mean models: it **holds** when Fan* is decisively worse on both
    (paired t intervals over test rows: more differences, lower accuracy) than the largest
    smaller GBT with at most m trees; it **fails** when Fan* is decisively better on either
    than the smallest smaller GBT with at least m trees; else undecided. The claim is
    reproduced when more than ``QWYC_POINT_SHARE`` of the points hold, not reproduced when
    more than that share fail, partly when the rest are decided, else inconclusive.
    """
    rows = table(rows)
    pts = rows.points
    small = pts[pts["method"] == SMALLER_SAME_LR].sort_values("value")
    fan = pts[pts["method"] == FAN_STAR].sort_values("value")
    if small.empty or fan.empty:
        return Finding(NOT_TESTABLE, "no Fan* or smaller-GBT rows")
    sizes = small["value"].to_numpy(float)
    holds = fails = 0
    shown, lines = None, []
    show_at = frontier(pts, FAN_STAR, QWYC_COMPARE_PCT)
    for f in fan.itertuples():
        m = f.models
        lo = sizes[sizes <= m + _EPS]
        hi = sizes[sizes >= m - _EPS]
        fk = (FAN_STAR, f.value)
        worse = better = False
        if lo.size:
            t = lo.max()
            dd = _paired(rows, fk, (SMALLER_SAME_LR, t), "differs", 100)
            da = _paired(rows, fk, (SMALLER_SAME_LR, t), "correct", 100)
            worse = dd.low > 0 and da.high < 0
        if hi.size:
            t = hi.min()
            dd = _paired(rows, fk, (SMALLER_SAME_LR, t), "differs", 100)
            da = _paired(rows, fk, (SMALLER_SAME_LR, t), "correct", 100)
            better = dd.high < 0 or da.low > 0
            if show_at is not None and f.value == show_at["value"]:
                shown = dd
            lines.append(
                f"gamma {f.value:g} ({m:.0f} models) vs {t:.0f} trees: differences "
                f"{dd.estimate:+.2f} [{dd.low:+.2f}, {dd.high:+.2f}] pt, accuracy "
                f"{da.estimate:+.2f} [{da.low:+.2f}, {da.high:+.2f}] pt"
            )
        holds += worse
        fails += better and not worse
    n = len(fan)
    if holds > QWYC_POINT_SHARE * n:
        verdict = REPRODUCED
    elif fails > QWYC_POINT_SHARE * n:
        verdict = NOT_REPRODUCED
    elif holds + fails == n:
        verdict = PARTLY
    else:
        verdict = INCONCLUSIVE
    head = (
        f"Fan* decisively worse than a smaller GBT with no more trees on both measures at "
        f"{holds} of {n} points, decisively better than one with no fewer trees at {fails} "
        "(paired over test rows; Fan* - smaller GBT)"
    )
    if verdict == NOT_REPRODUCED:
        head += "; a finding against the paper's statement"
    iv = shown if shown is not None else ""
    n_rows = int(small["n"].iloc[0])
    need = (
        f"out of reach with this data set (undecided points straddle 0 over all its {n_rows} "
        "test rows)"
        if verdict == INCONCLUSIVE
        else ""
    )
    return Finding(
        verdict, head + ": " + "; ".join(lines), iv, shown, (0.0, math.inf), need, n_rows
    )


def faster_than_fan(
    timing: pd.DataFrame, runs: pd.DataFrame, target_pct: float = QWYC_FAITHFUL_PCT
) -> Finding:
    """Per-example time Fan* / QWYC* at the target level, on the benchmark GBT standing in for
    the paper's lattice ensembles: a paired log-ratio t interval over the timing runs (the
    methods take turns within a run) in two parts, one-sided above ``QWYC_FASTER_THAN``
    (faster) and inside ``QWYC_SPEEDUP_BAND`` (the paper's 1.8x-4x), combined by
    ``combine_parts``, when QWYC*'s timing point is within ``QWYC_MATCH_FACTOR`` of the
    level; not reproduced when it is not (QWYC* does not reach the level, so it is not faster
    there)."""
    at = timing[np.isclose(timing["target_differences_pct"], target_pct)].set_index("method")
    r = runs[np.isclose(runs["target_differences_pct"], target_pct)]
    if QWYC_STAR not in at.index or FAN_STAR not in at.index:
        return Finding(NOT_TESTABLE, "no timing row at the target level")
    fan = r[r["method"] == FAN_STAR].sort_values("run")["per_example_seconds"].to_numpy()
    q = r[r["method"] == QWYC_STAR].sort_values("run")["per_example_seconds"].to_numpy()
    iv = paired_log_ratio(fan, q)
    v_speed = one_sided(iv, low=QWYC_FASTER_THAN)
    lo, hi = QWYC_SPEEDUP_BAND
    v_band = band_verdict(iv, lo, hi)
    qd = float(at.loc[QWYC_STAR, "test_differences_pct"])
    matched = qd <= QWYC_MATCH_FACTOR * target_pct + _EPS
    verdict = combine_parts([v_speed, v_band]) if matched else NOT_REPRODUCED
    ours = (
        f"on the benchmark GBT (a stand-in for the paper's real-world lattice ensembles): "
        f"Fan* / QWYC* per-example time {iv.text('.3g')} over {iv.n} timing runs; faster "
        f"(> {QWYC_FASTER_THAN:g}): {v_speed}; within the paper's {lo:g}x-{hi:g}x: {v_band}; "
        f"QWYC* at {qd:.2f}% (matched within {QWYC_MATCH_FACTOR:g}x of {target_pct:g}%: "
        f"{'yes' if matched else 'no'}), Fan* at "
        f"{float(at.loc[FAN_STAR, 'test_differences_pct']):.2f}% differences"
    )
    need = "; ".join(
        f"{what}: {repeats_needed(iv, a, b, unit='timing runs')}"
        for what, v, (a, b) in (
            ("faster", v_speed, (QWYC_FASTER_THAN, math.inf)),
            ("magnitude", v_band, QWYC_SPEEDUP_BAND),
        )
        if v == INCONCLUSIVE and verdict == INCONCLUSIVE
    )
    return Finding(verdict, ours, iv, iv, QWYC_SPEEDUP_BAND, need, iv.n)


def fan_vs_algorithm2(rows: pd.DataFrame, target_pct: float = QWYC_COMPARE_PCT) -> Finding:
    """ "For many pre-selected orderings, the Fan et al. (2002) early stopping mechanism
    performed better than ... Algorithm 2": per ordering run with both, each method's point
    with the fewest models at <= the level; paired t interval over test rows on models per row
    (Algorithm 2 - Fan): Fan better when it lies above 0, worse when below (a method that alone
    reaches the level is better). Reproduced when Fan is better on at least
    ``QWYC_MANY_SHARE`` of the orderings; not reproduced when it is not even counting every
    undecided ordering; else inconclusive."""
    rows = table(rows)
    pts = rows.points
    methods = set(pts["method"])
    orders = [
        m.removeprefix("fan_")
        for m in sorted(methods)
        if m.startswith("fan_") and "qwyc_" + m.removeprefix("fan_") in methods
    ]
    if not orders:
        return Finding(NOT_TESTABLE, "no ordering run with both Fan and Algorithm 2")
    better = undecided = 0
    lines, effect, needs = [], None, []
    for o in orders:
        f = frontier(pts, f"fan_{o}", target_pct)
        a = frontier(pts, f"qwyc_{o}", target_pct)
        if f is None and a is None:
            undecided += 1
            lines.append(f"{o}: neither reaches {target_pct:g}%")
            continue
        if a is None or f is None:
            better += a is None
            lines.append(f"{o}: only {'Fan' if a is None else 'Algorithm 2'} reaches it")
            continue
        v, d, ratio = _models_ratio(rows, (f"fan_{o}", f["value"]), (f"qwyc_{o}", a["value"]))
        if o == "natural" or effect is None:
            effect = ratio
        better += v == REPRODUCED
        undecided += v == INCONCLUSIVE
        if v == INCONCLUSIVE:
            needs.append(f"{o}: {rows_needed(d, low=0.0)}")
        lines.append(
            f"{o}: Fan {f['models']:.1f} vs Algorithm 2 {a['models']:.1f} models, "
            f"Algorithm 2 / Fan {ratio.text('.3g')}: Fan "
            + {REPRODUCED: "better", NOT_REPRODUCED: "worse"}.get(v, "undecided")
        )
    n = len(orders)
    if better >= QWYC_MANY_SHARE * n:
        verdict = REPRODUCED
    elif better + undecided < QWYC_MANY_SHARE * n:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    ours = f"at <= {target_pct:g}% test differences, Fan better on {better} of {n} orderings: " + (
        "; ".join(lines)
    )
    return Finding(
        verdict,
        ours,
        effect or "",
        effect,
        (1.0, math.inf),
        "; ".join(needs) if verdict == INCONCLUSIVE else "",
        effect.n if effect else 0,
    )


def more_accurate_than_fan(rows: pd.DataFrame, target_pct: float = QWYC_COMPARE_PCT) -> Finding:
    """The accuracy half of "QWYC* ... was both faster and more accurate than the Fan et al.
    (2002) early stopping criteria combined with any pre-selected orderings": at matched test
    differences (each method's point with the fewest models at <= the level; QWYC*'s
    lowest-differences point when it reaches none), the paired accuracy difference QWYC* - Fan
    over test rows, one-sided above 0, for every Fan ordering; combined by ``combine_parts``."""
    rows = table(rows)
    pts = rows.points
    q = frontier(pts, QWYC_STAR, target_pct)
    note = ""
    if q is None:
        q = lowest(pts, QWYC_STAR)
        note = f" (QWYC* reaches no point at <= {target_pct:g}%: its lowest, alpha {q['value']:g})"
    fans = sorted(m for m in pts["method"].unique() if m.startswith("fan_"))
    parts, lines, needs, effect = [], [], [], None
    for m in fans:
        f = frontier(pts, m, target_pct)
        if f is None:
            continue
        d = _paired(rows, (QWYC_STAR, q["value"]), (m, f["value"]), "correct", 100)
        v = one_sided(d, low=0.0)
        if m == FAN_STAR or effect is None:
            effect = d
        parts.append(v)
        if v == INCONCLUSIVE:
            needs.append(f"{LABELS[m]}: {rows_needed(d, low=0.0)}")
        lines.append(f"vs {LABELS[m]}: {d.text('.3g')} pt: {v}")
    if not parts:
        return Finding(NOT_TESTABLE, f"no Fan ordering reaches {target_pct:g}%")
    verdict = combine_parts(parts)
    ours = (
        f"accuracy QWYC* - Fan at <= {target_pct:g}% test differences{note}, paired over test "
        "rows: " + "; ".join(lines)
    )
    return Finding(
        verdict,
        ours,
        effect,
        effect,
        (0.0, math.inf),
        "; ".join(needs) if verdict == INCONCLUSIVE else "",
        effect.n,
    )


def ordering_4approx(approx: pd.DataFrame) -> Finding:
    """QWYC's greedy ordering within ``QWYC_APPROX_FACTOR`` of the best ordering.

    Each draw's ratio (greedy / optimal mean # models, alpha = 0, from
    :func:`ensemble_repro.qwyc.exhaustive.approximation_ratio`) is exact; the draws (random
    small ensembles and rows) are the repeats. The bound is a worst-case guarantee, so the
    rule reads the largest ratio: reproduced when no draw exceeds the factor, not reproduced
    when one does. Stated beside it: the Wilson upper bound on the share of such ensembles
    that would exceed it, and the mean ratio's t interval (the effect).

    Examples
    --------
    >>> f = ordering_4approx(pd.DataFrame({"ratio": [1.0, 1.05, 1.2]}))
    >>> f.verdict, f.effect.text(".3g")
    ('reproduced', '1.08 [0.825, 1.34] (t 95%, n = 3)')
    """
    r = approx["ratio"].to_numpy(float)
    if r.size < 2:
        return Finding(NOT_TESTABLE, "fewer than 2 draws of a small ensemble")
    over = int(np.sum(r > QWYC_APPROX_FACTOR + _EPS))
    share = wilson(over, r.size)
    mean = t_interval(r)
    verdict = REPRODUCED if over == 0 else NOT_REPRODUCED
    ours = (
        f"greedy / optimal mean # models over {r.size} random small ensembles: largest "
        f"{r.max():.3g}, mean {mean.text('.3g')}, {int(np.sum(r > 1 + _EPS))} of {r.size} "
        f"above 1 (greedy not optimal); above {QWYC_APPROX_FACTOR:g}: {over} of {r.size} "
        f"(share of such ensembles, Wilson 95%: [{share.low:.2f}, {share.high:.2f}])"
    )
    return Finding(verdict, ours, mean, mean, (1.0, QWYC_APPROX_FACTOR), "", r.size)


# ------------------------------------------------------------------ all claims
def _with_unaffected(main: pd.DataFrame, setting_rows: pd.DataFrame, setting: str) -> pd.DataFrame:
    """A setting's per-row outcomes plus the main fit's rows of the methods it does not affect
    (e.g. QWYC* under a Fan-score setting), so each claim compares like with like."""
    method = main["method"].astype(str)
    keep = method.isin([m for m in method.unique() if not setting_affects(setting, m)])
    return pd.concat(
        [
            main[keep].assign(method=method[keep]),
            setting_rows.assign(method=setting_rows["method"].astype(str)),
        ],
        ignore_index=True,
    )


def fragile(verdict: str, ours: str, robust: str) -> tuple[str, str]:
    """A decided verdict that flips under a sensitivity setting (a choice the paper does not
    report) becomes ``partly reproduced``, the flipping settings named in ``ours``.

    Examples
    --------
    >>> v, text = fragile("reproduced", "x", "3 of 6 (flips under: fit_on_train, lr_0.1)")
    >>> v, text.endswith("not under fit_on_train, lr_0.1 (choices the paper does not report)")
    ('partly reproduced', True)
    >>> fragile("reproduced", "x", "2 of 2 (median, wor)")
    ('reproduced', 'x')
    """
    flips = flips_in(robust)
    if not flips or verdict not in (REPRODUCED, NOT_REPRODUCED):
        return verdict, ours
    other = "not" if verdict == REPRODUCED else "reproduced"
    return PARTLY, (
        f"{ours}; fragile: {verdict} under the main setting, {other} under {flips} (choices "
        "the paper does not report)"
    )


def _robust(main: str, flips: Mapping[str, str]) -> str:
    """``robust_to`` over the settings where the claim can be judged; the others are named."""
    tested = {k: v for k, v in flips.items() if v != NOT_TESTABLE}
    untested = [k for k in flips if k not in tested]
    text = robust_to(main, tested)
    return text + (f"; not testable under: {', '.join(untested)}" if untested else "")


def _judge(cid, rows, refits, timing, runs, n_trees, targets, split):
    if cid == "qwyc.fewer_models":
        return fewer_models(rows, refits, n_trees)
    if cid == "qwyc.beats_fixed_orders":
        return beats_fixed_orders(rows, refits, targets)
    if cid == "qwyc.fan_below_smaller":
        return fan_below_smaller(rows)
    if cid == "qwyc.fan_vs_algorithm2":
        return fan_vs_algorithm2(rows)
    if cid == "qwyc.more_accurate_than_fan":
        return more_accurate_than_fan(rows)
    if timing is None or runs is None or timing.empty:
        return Finding(NOT_TESTABLE, "no timing table")
    t = timing[timing["split"] == split] if "split" in timing else timing
    r = runs[runs["split"] == split] if "split" in runs else runs
    return faster_than_fan(t, r)


def evaluate(
    rows: Mapping[str, pd.DataFrame],
    refits: Mapping[str, pd.DataFrame],
    approximation: Mapping[str, pd.DataFrame],
    timing: Mapping[str, pd.DataFrame],
    timing_runs: Mapping[str, pd.DataFrame],
    sensitivity: Mapping[str, Mapping[str, pd.DataFrame]],
    *,
    datasets: Sequence[str],
    n_trees: int,
    target_differences: Sequence[float],
) -> list[dict]:
    """Claims rows of the QWYC paper (the claims ``qwyc.*``), one per claim x data set.

    Parameters
    ----------
    rows : mapping of str to DataFrame
        Data set -> per-test-row outcomes of the main fit (every sweep method and the smaller
        GBTs; ``rows/*.parquet``).
    refits : mapping of str to DataFrame
        Data set -> its ``refits.csv`` (bootstrap refits, GBT fixed).
    approximation : mapping of str to DataFrame
        Data set -> its ``approximation.csv`` (greedy vs exhaustive orderings).
    timing, timing_runs : mapping of str to DataFrame
        Data set -> its ``timing.csv`` / ``timing_runs.csv`` (every distinct fit; the main
        fit decides, the fits of other learning rates are sensitivity settings).
    sensitivity : mapping of str to mapping of str to DataFrame
        Data set -> {setting: per-row outcomes of the setting's main fit}; judged by the same
        rules on test rows only (the refits are of the main setting), counted in ``robust_to``.
    datasets : sequence of str
        Configured data sets; one absent from ``rows`` gets ``not testable here``.
    n_trees : int
        T, the full ensemble's size.
    target_differences : sequence of float
        Difference levels (fractions) at which orderings are compared.

    Returns
    -------
    list of dict
        Rows for :func:`ensemble_repro.claims.table.claims_frame`.
    """
    targets = [100 * t for t in target_differences]
    out = []
    for ds in datasets:
        if ds not in rows:
            out += [
                untestable(c, ds, f"{ds} was not run (prepared data absent)")
                for c in CLAIM_IDS + (APPROX_ID,)
                if c != "qwyc.fan_below_smaller" or ds == "adult"
            ]
            continue
        main = rows[ds].assign(method=rows[ds]["method"].astype(str))
        split = int(main["split"].iloc[0])
        main_table = RowTable(main)
        tm, rn = timing.get(ds), timing_runs.get(ds)
        sens = sensitivity.get(ds, {})
        sens_tables = {s: RowTable(_with_unaffected(main, sr, s)) for s, sr in sens.items()}
        for cid in CLAIM_IDS:
            if cid == "qwyc.fan_below_smaller" and ds != "adult":
                continue  # the paper states it for Experiment 1 (Adult)
            f = _judge(cid, main_table, refits.get(ds), tm, rn, n_trees, targets, split)
            if f.verdict == NOT_TESTABLE:
                out.append(untestable(cid, ds, f.ours))
                continue
            if cid == "qwyc.faster_than_fan":
                flips = _timing_flips(tm, rn, split)
            else:
                flips = {
                    s: _judge(cid, sens_tables[s], None, None, None, n_trees, targets, 0).verdict
                    for s in sens
                }
            robust = _robust(f.verdict, flips)
            verdict, ours = fragile(f.verdict, f.ours, robust)
            out.append(
                claim_row(
                    cid,
                    ds,
                    ours=ours,
                    verdict=verdict,
                    interval=f.interval,
                    n_repeats=f.n_repeats,
                    robust_to=robust,
                    effect=f.effect,
                    band=f.band or (-math.inf, math.inf),
                    repeats_needed=f.repeats_needed,
                )
            )
        out.append(_approx_row(ds, approximation.get(ds)))
    out.append(
        untestable(
            "qwyc.real_world",
            "real-world lattices",
            "the lattice ensembles and data of Experiments 3-6 are internal to the authors",
        )
    )
    return out


def _approx_row(ds: str, approx: pd.DataFrame | None) -> dict:
    if approx is None:
        return untestable(APPROX_ID, ds, "no approximation table (qwyc_approximation)")
    f = ordering_4approx(approx)
    if f.verdict == NOT_TESTABLE:
        return untestable(APPROX_ID, ds, f.ours)
    return claim_row(
        APPROX_ID,
        ds,
        ours=f.ours,
        verdict=f.verdict,
        interval=f.interval,
        n_repeats=f.n_repeats,
        effect=f.effect,
        band=f.band,
    )


def _timing_flips(timing, runs, split) -> dict[str, str]:
    """The timing verdict on the fits of the other learning rates (sensitivity settings)."""
    if timing is None or runs is None or "split" not in timing:
        return {}
    flips = {}
    for s, g in timing.groupby("split"):
        if s == split:
            continue
        lr = float(g["learning_rate"].iloc[0])
        flips[f"learning_rate_{lr:g}"] = faster_than_fan(g, runs[runs["split"] == s]).verdict
    return flips


def _by_dataset(paths: Iterable[PathLike]) -> dict[str, pd.DataFrame]:
    """Tables of results/qwyc/<data>/X.csv keyed by <data>."""
    return {Path(p).parent.name: read_table(p) for p in paths}


def write_claims(
    rows: Sequence[PathLike],
    refits: Sequence[PathLike],
    approximation: Sequence[PathLike],
    timing: Sequence[PathLike],
    timing_runs: Sequence[PathLike],
    sensitivity_rows: Sequence[PathLike],
    out: PathLike,
    *,
    qwyc_cfg: Mapping,
    scale: str,
) -> None:
    """``results/qwyc/claims.csv`` from each data set's per-test-row tables of the main fit
    (``rows/<method>.parquet``, the smaller GBTs' included), bootstrap refits, timing tables and
    the sensitivity settings' per-row tables (``rows/sensitivity_<setting>.parquet``) and the
    greedy-vs-exhaustive ordering draws (``approximation.csv``)."""
    main: dict[str, list[pd.DataFrame]] = {}
    sens: dict[str, dict[str, pd.DataFrame]] = {}
    for p in rows:
        main.setdefault(Path(p).parent.parent.name, []).append(read_parquet(p))
    for p in sensitivity_rows:
        setting = Path(p).stem.removeprefix("sensitivity_")
        sens.setdefault(Path(p).parent.parent.name, {})[setting] = read_parquet(p)
    rows_by_ds = {
        ds: pd.concat([f.assign(method=f["method"].astype(str)) for f in fs], ignore_index=True)
        for ds, fs in main.items()
    }
    out_rows = evaluate(
        rows_by_ds,
        _by_dataset(refits),
        _by_dataset(approximation),
        _by_dataset(timing),
        _by_dataset(timing_runs),
        sens,
        datasets=qwyc_cfg["datasets"],
        n_trees=qwyc_cfg["gbt"]["n_estimators"],
        target_differences=qwyc_cfg["timing"]["target_differences"],
    )
    write_paper_claims(out_rows, out, scale)
