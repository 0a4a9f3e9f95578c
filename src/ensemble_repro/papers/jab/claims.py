"""Verdicts on the J+aB claims (Kim, Xu & Barber 2020) from results/jab/*.csv.

The unit of replication is the trial (one training-test split, Section 5). A claim about
several cells (learner x method x m/n) is tested as one effect: within each trial the cells'
statistics are averaged (log ratios for widths and times), and the per-trial means get a t
interval. Each cell is also tested alone, with a Holm correction, to find mixed findings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ...claims.build import PathLike, read_table, write_paper_claims
from ...claims.rules import (
    INCONCLUSIVE,
    LEVEL,
    NOT_REPRODUCED,
    REPRODUCED,
    Interval,
    band_verdict,
    combine_parts,
    holm,
    logit,
    logit_random_effects,
    logit_t_interval,
    p_inside,
    p_outside,
    paired_log_ratio,
    random_effects,
    repeats_needed,
    robust_across,
    t_interval,
    with_cells,
)
from ...claims.table import claim_row, untestable
from . import margins as mg
from .cells import JAB, JAB_FIXED, JAB_RANDOM, JPLUS, JPLUS_ENSEMBLE, derived_seed
from .names import JAB_TABLES
from .paper_seconds import PAPER_SECONDS
from .report import expand_jplus, ratio_interval

#: Name of the sampling sensitivity setting in ``robust_to``: resamples drawn without
#: replacement (subsampling; Algorithms 1-2 and Section 2.2 allow either, the experiments
#: bootstrap).
SAMPLING_SETTING = "sampling without replacement"
#: Name of the clock sensitivity setting of the wall-clock claim.
CPU_SETTING = "cpu seconds"
#: The row of a claim judged over every data set at once.
ALL_DATASETS = "all data sets"
INF = math.inf
#: How a trials x cells table is pooled and tested: as is, as log ratios, or as proportions on
#: the logit scale (intervals inside [0, 1]).
LINEAR, LOG, LOGIT = "linear", "log", "logit"


@dataclass(frozen=True)
class Part:
    """One tested effect of a claim: its interval, the band it must lie in, its verdict."""

    name: str
    effect: Interval
    band: tuple[float, float]
    verdict: str
    repeats: str = ""
    #: The scale the effect was tested on (:data:`LOGIT` proportions are pooled across data
    #: sets on logits too).
    scale: str = "linear"


@dataclass(frozen=True)
class Outcome:
    """A claim judged on one data set's rows."""

    verdict: str
    ours: str
    parts: tuple[Part, ...]
    shown: Part

    @property
    def repeats(self) -> str:
        """The repeats that would decide the undecided parts."""
        undecided = [p for p in self.parts if p.verdict == INCONCLUSIVE]
        if len(undecided) == 1 and len(self.parts) == 1:
            return undecided[0].repeats
        return "; ".join(f"{p.name}: {p.repeats}" for p in undecided)


def _label(key) -> str:
    key = key if isinstance(key, tuple) else (key,)
    return ", ".join(
        f"m/n={k:g}" if isinstance(k, float) else str(k) for k in key if not pd.isna(k)
    )


def _part(name: str, effect: Interval, band: tuple[float, float], scale: str = LINEAR) -> Part:
    verdict = band_verdict(effect, *band)
    return Part(name, effect, band, verdict, repeats_needed(effect, *band, unit="trials"), scale)


def _per_trial(df: pd.DataFrame, cells: list[str], col: str, num: str = "", den: str = ""):
    """Trials x cells table (complete trials only) of ``col``: its mean per cell, or with
    ``num``/``den`` methods the log ratio ``log(num / den)`` (``den`` prefixed with ``-``:
    the difference ``num - den``)."""
    if df.empty:
        return pd.DataFrame()
    cell = [_label(k) for k in zip(*(df[c] for c in cells), strict=True)]
    d = df.assign(cell=cell)
    if not num:
        series = d.groupby(["cell", "trial"])[col].mean()
    else:
        wide = d.groupby(["cell", "trial", "method"])[col].mean().unstack("method")
        other = den.removeprefix("-")
        if num not in wide or other not in wide:
            return pd.DataFrame()
        series = wide[num] - wide[other] if den.startswith("-") else np.log(wide[num] / wide[other])
    return series.unstack("cell").dropna()


def _bound(x: float, scale: str) -> float:
    """A band end on the scale the test runs on."""
    if scale == LOG:
        return math.log(x) if 0 < x < INF else (-INF if x <= 0 else INF)
    if scale == LOGIT:
        return float(logit(x)) if 0 < x < 1 else (-INF if x <= 0 else INF)
    return x


def _on_scale(values: pd.Series, scale: str) -> np.ndarray:
    """Per-trial values of a cell on the test's scale (log tables hold logs already)."""
    return logit(values.to_numpy()) if scale == LOGIT else values.to_numpy()


def _pooled(table: pd.DataFrame, band: tuple[float, float], name: str, scale: str) -> tuple:
    """The pooled part of a trials x cells table and the cells decisively on either side."""
    per_trial = table.mean(axis=1)
    iv = _cell_interval(per_trial, scale)
    if scale == LOG:
        iv = replace(iv, method=f"paired t on pooled log ratios {LEVEL:.0%}")
    lo, hi = (_bound(x, scale) for x in band)
    part = _part(name, iv, band, scale)
    wrong = {k: p_outside(_on_scale(table[k], scale), lo, hi) for k in table}
    right = {k: p_inside(_on_scale(table[k], scale), lo, hi) for k in table}
    return part, wrong, right


def _cell_interval(values: pd.Series, scale: str) -> Interval:
    if scale == LOGIT:
        return logit_t_interval(values)
    if scale == LOG:
        return paired_log_ratio(np.exp(values.to_numpy()), np.ones(len(values)))
    return t_interval(values)


def _outcome(
    table: pd.DataFrame, band: tuple[float, float], name: str, scale: str, what: str
) -> Outcome | None:
    """One-part claim on a trials x cells table: the pooled verdict, made ``partly`` by
    decisive contrary cells (:func:`rules.with_cells`)."""
    if table.empty:
        return None
    part, wrong, right = _pooled(table, band, name, scale)
    verdict, bad, good = with_cells(part.verdict, wrong, right)
    cells = {k: _cell_interval(table[k], scale).estimate for k in table}
    lo = min(cells, key=cells.get)
    hi = max(cells, key=cells.get)
    ours = (
        f"{what} {part.effect.estimate:.3f} pooled over {table.shape[1]} cells "
        f"(cells {cells[lo]:.3f} at {lo} to {cells[hi]:.3f} at {hi})"
    )
    if bad:
        ours += f"; decisively outside [{band[0]:g}, {band[1]:g}]: {', '.join(bad)}"
    return Outcome(verdict, ours, (part,), part)


def _coverage(rows: pd.DataFrame, alpha: float) -> Outcome | None:
    band = (1 - alpha - mg.COVERAGE_MARGIN, 1 - alpha + mg.COVERAGE_MARGIN)
    table = _per_trial(rows, ["learner", "method", "m_ratio"], "coverage")
    out = _outcome(table, band, "coverage", LOGIT, "coverage")
    if out is None:
        return None
    off = out.shown.effect.estimate - (1 - alpha)
    note = f"; {off:+.3f} against 1 - alpha = {1 - alpha:g} (band +-{mg.COVERAGE_MARGIN:g})"
    return Outcome(out.verdict, out.ours + note, out.parts, out.shown)


def _theorem1(rows: pd.DataFrame, alpha: float) -> Outcome | None:
    bound = 1 - mg.THEOREM1_FACTOR * alpha
    table = _per_trial(rows[rows["method"] == JAB], ["learner", "m_ratio"], "coverage")
    if table.empty:
        return None
    parts = [_part(k, logit_t_interval(table[k]), (bound, INF), LOGIT) for k in table]
    p_below = [p_outside(logit(table[k].to_numpy()), _bound(bound, LOGIT)) for k in table]
    below = [p.name for p, r in zip(parts, holm(p_below), strict=True) if r]
    if below:
        verdict = NOT_REPRODUCED
    elif all(p.verdict == REPRODUCED for p in parts):
        verdict = REPRODUCED
    else:
        verdict = INCONCLUSIVE
    worst = min(parts, key=lambda p: p.effect.estimate)
    ours = (
        f"J+aB coverage >= {bound:g} in every cell: least covered {worst.name} "
        f"{worst.effect.estimate:.3f}; {sum(p.verdict == REPRODUCED for p in parts)} of "
        f"{len(parts)} cells decided above the bound"
        + (f"; decisively below it: {', '.join(below)}" if below else "")
    )
    if verdict == INCONCLUSIVE:  # the undecided cell nearest the bound decides last
        worst = min((p for p in parts if p.verdict == INCONCLUSIVE), key=lambda p: p.effect.low)
    return Outcome(verdict, ours, (worst,), worst)


def _width_no_winner(rows: pd.DataFrame) -> Outcome | None:
    table = _per_trial(rows, ["learner", "m_ratio"], "mean_width", JAB, JPLUS_ENSEMBLE)
    return _outcome(table, mg.EQUAL_WIDTH, "width ratio", LOG, "width ratio J+aB / J+ensemble")


def _bagging_helps(rows: pd.DataFrame) -> Outcome | None:
    """RF's part and Ridge's; None (not testable) unless both learners ran."""
    outs = []
    for learner, band in (("rf", (0.0, 1.0)), ("ridge", (mg.RIDGE_NOT_NARROWER, INF))):
        sub = rows[rows["learner"] == learner]
        table = _per_trial(sub, ["m_ratio"], "mean_width", JAB, JPLUS)
        out = _outcome(table, band, learner.upper() if learner == "rf" else "Ridge", LOG, "")
        if out is None:
            return None
        outs.append(out)
    parts = tuple(o.parts[0] for o in outs)
    verdict = combine_parts(o.verdict for o in outs)
    ours = "J+aB / J+non-ensemble width: " + "; ".join(
        f"{o.parts[0].name} {o.ours.strip()} ({o.verdict})" for o in outs
    )
    return Outcome(verdict, ours, parts, parts[0])


def _nn_gain(rows: pd.DataFrame) -> Outcome | None:
    """NN cells over every data set (the claim is about "some data sets")."""
    nn = rows[rows["learner"] == "nn"]
    table = _per_trial(nn, ["dataset", "m_ratio"], "mean_width", JAB, JPLUS)
    if table.empty:
        return None
    p_gain = {k: p_outside(table[k], low=0.0) for k in table}
    gain_cells = [k for k, g in zip(table, holm(list(p_gain.values())), strict=True) if g]
    ivs = {k: _cell_interval(table[k], LOG) for k in table}
    no_gain = [k for k, iv in ivs.items() if band_verdict(iv, mg.NO_GAIN, INF) == REPRODUCED]
    if gain_cells:
        verdict = REPRODUCED
    elif len(no_gain) == len(ivs):
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    # the deciding cell: the most decisive gain, or when every cell shows none, the one
    # nearest a gain (its interval's low end is the last to clear the no-gain bound)
    if verdict == NOT_REPRODUCED:
        deciding = min(ivs, key=lambda k: ivs[k].low)
    else:
        deciding = min(p_gain, key=p_gain.get)
    part = _part(deciding, ivs[deciding], (0.0, 1.0))
    ours = (
        f"NN J+aB / J+non-ensemble width, deciding cell {deciding} "
        f"{ivs[deciding].estimate:.3f}; decisively narrower (Holm over {len(ivs)} cells): "
        + (", ".join(gain_cells) if gain_cells else "none")
        + f"; no gain (interval >= {mg.NO_GAIN}) in {len(no_gain)} of {len(ivs)} cells"
    )
    return Outcome(verdict, ours, (part,), part)


def _fixed_vs_random(rows: pd.DataFrame) -> Outcome | None:
    cells = ["learner", "m_ratio"]
    cov = _per_trial(rows, cells, "coverage", JAB_RANDOM, f"-{JAB_FIXED}")
    wid = _per_trial(rows, cells, "mean_width", JAB_RANDOM, JAB_FIXED)
    band_cov = (-mg.FVR_COVERAGE_TOL, mg.FVR_COVERAGE_TOL)
    a = _outcome(cov, band_cov, "coverage difference", LINEAR, "coverage random - fixed")
    b = _outcome(wid, mg.FVR_WIDTH, "width ratio", LOG, "width ratio random / fixed")
    if a is None or b is None:
        return None
    verdict = combine_parts([a.verdict, b.verdict])
    ours = f"{a.ours} ({a.verdict}); {b.ours} ({b.verdict})"
    return Outcome(verdict, ours, a.parts + b.parts, b.parts[0])


def _mean_ratio(num: pd.Series, den: pd.Series, seed: int, *key) -> Interval:
    """Ratio of mean seconds ``num / den`` over the trials that have both, with the
    percentile-bootstrap interval of Tables S1-S3 (:func:`.report.ratio_interval`), seeded
    from ``seed`` and ``key``."""
    pairs = pd.concat([num, den], axis=1, keys=["num", "den"]).dropna()
    rng = np.random.RandomState(derived_seed(seed, *key))
    ratio, low, high = ratio_interval(pairs["num"], pairs["den"], rng)
    if len(pairs) < 2:  # one trial: no spread to resample
        low, high = 0.0, INF
    method = f"percentile bootstrap on the ratio of means {LEVEL:.0%}"
    return Interval(ratio, low, high, method, len(pairs), log=True)


def _seconds(rows: pd.DataFrame, method: str, m_ratio: float | None) -> pd.DataFrame:
    """Seconds of one method per trial (rows) and learner (columns)."""
    sub = rows[rows["method"] == method]
    if m_ratio is not None:
        sub = sub[np.isclose(sub["m_ratio"], m_ratio)]
    return sub.groupby(["trial", "learner"])["total_seconds"].mean().unstack("learner")


def _aggregation(rows: pd.DataFrame) -> str:
    return str(rows.loc[rows["method"] == JAB, "aggregation"].iloc[0])


def _paper_times(dataset: str, agg: str, column: int) -> str:
    """The paper's ratios of column ``column`` over J+aB per learner (its Tables S1-S2)."""
    table = PAPER_SECONDS.get(dataset, {})
    rows = {lrn: t[column] / t[0] for (lrn, a), t in sorted(table.items()) if a == agg}
    if not rows:
        return f"{dataset}: no paper table in our text (Table {JAB_TABLES[dataset]})"
    return f"paper's Table {JAB_TABLES[dataset]} at {agg}: " + ", ".join(
        f"{lrn} {r:.1f}x" for lrn, r in rows.items()
    )


def _ratios_text(parts: Sequence[Part]) -> str:
    return ", ".join(f"{p.name} {p.effect.estimate:.2f}x" for p in parts)


def _cheaper(rows: pd.DataFrame, m_ratio: float, seed: int) -> Outcome | None:
    """Per learner, J+ensemble / J+aB mean seconds (Tables S1-S3's estimator and interval):
    above 1 (cheaper) and inside the paper's range of such ratios (its magnitude)."""
    ens, jab = _seconds(rows, JPLUS_ENSEMBLE, m_ratio), _seconds(rows, JAB, m_ratio)
    learners = [lrn for lrn in sorted(jab) if lrn in ens]
    if not learners:
        return None
    ds, agg = str(rows["dataset"].iloc[0]), _aggregation(rows)
    band = mg.PAPER_ENSEMBLE_RATIO
    parts = []
    for lrn in learners:
        iv = _mean_ratio(ens[lrn], jab[lrn], seed, "wallclock", ds, lrn, agg)
        cheaper = band_verdict(iv, mg.CHEAPER_THAN, INF)
        magnitude = band_verdict(iv, *band)
        undecided = (mg.CHEAPER_THAN, INF) if cheaper == INCONCLUSIVE else band
        need = repeats_needed(iv, *undecided, unit="trials")
        parts.append(Part(lrn, iv, band, combine_parts([cheaper, magnitude]), need))
    verdict = combine_parts(p.verdict for p in parts)
    cheaper = combine_parts(band_verdict(p.effect, mg.CHEAPER_THAN, INF) for p in parts)
    magnitude = combine_parts(band_verdict(p.effect, *band) for p in parts)
    ours = (
        f"J+ensemble / J+aB mean seconds at m = {m_ratio:g} n: {_ratios_text(parts)}; "
        f"cheaper (> {mg.CHEAPER_THAN:g}): {cheaper}; within the paper's {band[0]:g}-"
        f"{band[1]:g}x (Tables S1-S2): {magnitude}; {_paper_times(ds, agg, 1)}"
    )
    return Outcome(verdict, ours, tuple(parts), _deciding(parts, verdict))


def _faster(rows: pd.DataFrame, m_ratio: float, seed: int) -> Outcome | None:
    """Per learner, J+non-ensemble / J+aB mean seconds (percentile bootstrap over paired
    trials): above 1, J+aB faster."""
    non, jab = _seconds(rows, JPLUS, None), _seconds(rows, JAB, m_ratio)
    learners = [lrn for lrn in sorted(jab) if lrn in non]
    if not learners:
        return None
    ds, agg = str(rows["dataset"].iloc[0]), _aggregation(rows)
    parts = [
        _part(lrn, _mean_ratio(non[lrn], jab[lrn], seed, "non_ensemble", ds, lrn, agg), band)
        for lrn, band in ((lrn, (mg.FASTER_THAN, INF)) for lrn in learners)
    ]
    verdict = combine_parts(p.verdict for p in parts)
    means = ", ".join(
        f"{lrn} {non[lrn].mean():.3g} s vs {jab[lrn].mean():.3g} s" for lrn in learners
    )
    ours = (
        f"J+non-ensemble / J+aB mean seconds at m = {m_ratio:g} n: {_ratios_text(parts)} "
        f"(J+non-ensemble vs J+aB: {means}); {_paper_times(ds, agg, 2)}"
    )
    return Outcome(verdict, ours, tuple(parts), _deciding(parts, verdict))


def _deciding(parts: Sequence[Part], verdict: str) -> Part:
    """The part shown for a verdict: among the parts that came out as the verdict did (else
    the undecided ones, else all), the one with the lowest interval."""
    pool = [p for p in parts if p.verdict == verdict] or [
        p for p in parts if p.verdict == INCONCLUSIVE
    ]
    return min(pool or parts, key=lambda p: p.effect.low)


def _aggregations(rows: pd.DataFrame, main_agg: str) -> Outcome | None:
    """Each other aggregation against ``main_agg`` (Appendix D.2): the coverage difference and
    the width ratio of J+aB and J+ensemble, pooled per trial over learner x method x m/n."""
    ens = rows[rows["method"].isin([JAB, JPLUS_ENSEMBLE])]
    by_agg = ens.rename(columns={"method": "ensemble", "aggregation": "method"})
    cells = ["learner", "ensemble", "m_ratio"]
    outs = []
    for agg in sorted(set(by_agg["method"]) - {main_agg}):
        cov = _per_trial(by_agg, cells, "coverage", agg, f"-{main_agg}")
        wid = _per_trial(by_agg, cells, "mean_width", agg, main_agg)
        tol = (-mg.AGG_COVERAGE_TOL, mg.AGG_COVERAGE_TOL)
        vs = f"{agg} - {main_agg}"
        outs.append(_outcome(cov, tol, f"{agg} coverage difference", LINEAR, f"coverage {vs}"))
        vs = f"{agg} / {main_agg}"
        outs.append(_outcome(wid, mg.AGG_WIDTH, f"{agg} width ratio", LOG, f"width {vs}"))
    outs = [o for o in outs if o is not None]
    if not outs:
        return None
    parts = tuple(o.parts[0] for o in outs)
    verdict = combine_parts(o.verdict for o in outs)
    ours = "; ".join(f"{o.ours} ({o.verdict})" for o in outs)
    widths = [p for p in parts if p.effect.log]  # the effect shown is a width ratio
    return Outcome(verdict, ours, parts, _deciding(widths or parts, verdict))


def _fits(rows: pd.DataFrame) -> Outcome | None:
    """J+aB's model fits per trial in units of B, the ensemble size (J+ensemble fits n B
    models, Table 1), pooled per trial over learner x m/n cells (log ratios)."""
    fits = _per_trial(rows, ["learner", "m_ratio"], "n_fits", JAB, JPLUS_ENSEMBLE)
    if fits.empty:
        return None
    n = int(rows["n"].iloc[0])
    per_b = fits + math.log(n)  # log(J+aB fits / (J+ensemble fits / n))
    out = _outcome(per_b, (0.0, mg.FITS_PER_B), "J+aB fits / B", LOG, "J+aB fits / B")
    ens = rows.loc[rows["method"] == JPLUS_ENSEMBLE, "n_fits"]
    jab = rows.loc[rows["method"] == JAB, "n_fits"]
    note = (
        f"; J+ensemble fits n B = {ens.min():g}-{ens.max():g} (n = {n}), J+aB "
        f"{jab.min():g}-{jab.max():g} fits (mean {jab.mean():.1f}): "
        f"{ens.mean() / jab.mean():.1f}x fewer"
    )
    return replace(out, ours=out.ours + note)


def _across(outcomes: dict[str, Outcome]) -> Outcome | None:
    """The ``all data sets`` row: per part, the random-effects mean of the data sets' pooled
    effects; decided data sets on the other side make a decided verdict ``partly``."""
    if len(outcomes) < 2:
        return None
    names = [p.name for p in next(iter(outcomes.values())).parts]
    parts, texts = [], []
    for i, name in enumerate(names):
        first = outcomes[next(iter(outcomes))].parts[i]
        ivs = [o.parts[i].effect for o in outcomes.values()]
        iv, het = logit_random_effects(ivs) if first.scale == LOGIT else random_effects(ivs)
        parts.append(_part(name, iv, first.band, first.scale))
        texts.append(f"{name} {iv.estimate:.3f} ({het})")
    pooled = combine_parts(p.verdict for p in parts)
    per_ds = {ds: o.verdict for ds, o in outcomes.items()}
    contrary = [
        ds
        for ds, v in per_ds.items()
        if (pooled == REPRODUCED and v == NOT_REPRODUCED)
        or (pooled == NOT_REPRODUCED and v == REPRODUCED)
    ]
    verdict = combine_parts([pooled, per_ds[contrary[0]]]) if contrary else pooled
    if verdict == INCONCLUSIVE and any("(heterogeneous:" in t for t in texts):
        note = "not by more trials alone: the data sets differ (see their own rows)"
        parts = [replace(p, repeats=note) if p.repeats else p for p in parts]
    ours = (
        "random-effects mean over "
        + ", ".join(f"{ds} ({v})" for ds, v in per_ds.items())
        + ": "
        + "; ".join(texts)
    )
    return Outcome(verdict, ours, tuple(parts), parts[-1])


def _row(claim_id: str, dataset: str, out: Outcome, robust: str, suffix: str) -> dict:
    shown = out.shown
    intervals = "; ".join(
        f"{p.name} {p.effect.text()}" if len(out.parts) > 1 else p.effect.text() for p in out.parts
    )
    return claim_row(
        claim_id,
        dataset,
        ours=out.ours + suffix,
        verdict=out.verdict,
        interval=intervals,
        n_repeats=shown.effect.n,
        robust_to=robust,
        repeats_needed=out.repeats if out.verdict == INCONCLUSIVE else "",
        effect=shown.effect,
        band=shown.band,
    )


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
    """Claims rows of the J+aB paper (the claims ``jab.*``), one per claim x data set.

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
        Miscoverage level; coverage is judged against ``1 - alpha`` (paper Section 5).
    datasets : sequence of str
        Configured data sets; one row per claim and data set.
    missing : sequence of str
        Data sets whose raw file is absent: ``not testable here``.
    aggregations : sequence of str
        The first (the paper's mean) decides the verdict; the others are sensitivity settings.
    timing_m_ratio : float
        m / n of the wall-clock claims (Tables S1-S3).
    seed : int
        Config seed: the bootstrap of the time ratios draws from it as Tables S1-S3 do.

    Returns
    -------
    list of dict
        Rows for :func:`ensemble_repro.claims.table.claims_frame`. Claims judged across data
        sets get an ``all data sets`` row. ``robust_to`` counts the settings (other
        aggregations, ``sampling without replacement``, and for the wall-clock claims ``cpu
        seconds``) under which the same rule gives the same decided verdict
        (:func:`ensemble_repro.claims.rules.robust_across`).
    """
    rows: list[dict] = []
    checks = _checks(
        main, jplus, fvr, without_replacement, aggregations, alpha, timing_m_ratio, seed
    )
    for claim_id, table, table_wor, check, across in checks:
        rows += _claim_rows(
            claim_id, table, table_wor, check, across, datasets, missing, aggregations
        )
    present = [ds for ds in datasets if ds not in missing]
    return rows + _nn_rows(main, jplus, present, aggregations)


#: A claim's check: its id, its table, the table under sampling without replacement, its rule
#: and whether it gets an ``all data sets`` row.
Check = tuple[str, pd.DataFrame, pd.DataFrame, Callable, bool]
#: The wall-clock claims, also judged on the CPU clock (a sensitivity setting).
_TIMED = ("jab.cheaper_than_ensemble", "jab.faster_than_non_ensemble")
#: The claim judged on every aggregation at once: its only setting is the sampling.
_EVERY_AGGREGATION = "jab.aggregation_robust"


def _at(df: pd.DataFrame, agg: str) -> pd.DataFrame:
    """The rows of aggregation ``agg`` (and those without one, J+)."""
    return df[df["aggregation"].isin([agg, "none"])] if len(df) else df


def _of(df: pd.DataFrame, ds: str) -> pd.DataFrame:
    """The rows of data set ``ds``."""
    return df[df["dataset"] == ds] if len(df) else df


def _checks(
    main: pd.DataFrame,
    jplus: pd.DataFrame,
    fvr: pd.DataFrame,
    wor: pd.DataFrame,
    aggregations: Sequence[str],
    alpha: float,
    timing_m_ratio: float,
    seed: int,
) -> list[Check]:
    """Each claim's check on the tables of :func:`evaluate`, in claim-list order."""

    def with_jplus(df: pd.DataFrame) -> pd.DataFrame:
        return pd.concat([df, jplus], ignore_index=True) if len(jplus) and len(df) else df

    def spread(df: pd.DataFrame) -> pd.DataFrame:
        return expand_jplus(df, jplus, aggregations) if len(jplus) and len(df) else df

    main_agg = aggregations[0]
    return [
        ("jab.coverage", with_jplus(main), with_jplus(wor), lambda d: _coverage(d, alpha), True),
        ("jab.theorem1", main, wor, lambda d: _theorem1(d, alpha), False),
        ("jab.width_no_winner", main, wor, _width_no_winner, True),
        ("jab.bagging_helps_rf", spread(main), spread(wor), _bagging_helps, False),
        ("jab.fixed_vs_random_b", fvr, pd.DataFrame(), _fixed_vs_random, True),
        (
            "jab.cheaper_than_ensemble",
            main,
            wor,
            lambda d: _cheaper(d, timing_m_ratio, seed),
            False,
        ),
        (
            "jab.faster_than_non_ensemble",
            with_jplus(main),
            with_jplus(wor),
            lambda d: _faster(d, timing_m_ratio, seed),
            False,
        ),
        ("jab.fits_o_b", main, wor, _fits, True),
        (_EVERY_AGGREGATION, main, wor, lambda d: _aggregations(d, main_agg), True),
    ]


def _claim_rows(
    claim_id: str,
    table: pd.DataFrame,
    table_wor: pd.DataFrame,
    check: Callable,
    across: bool,
    datasets: Sequence[str],
    missing: Sequence[str],
    aggregations: Sequence[str],
) -> list[dict]:
    """One claim's rows: per data set (untestable when its file is missing or it has no
    rows), its verdict robust to the other aggregations, the sampling and, for a wall-clock
    claim, the CPU clock; then the ``all data sets`` row when ``across``."""
    main_agg, others = aggregations[0], list(aggregations[1:])
    whole = claim_id == _EVERY_AGGREGATION
    view = (lambda df, agg: df) if whole else _at
    tail = (
        " (every aggregation against the first, sampling with replacement)"
        if whole
        else f" (aggregation {main_agg}, sampling with replacement)"
    )

    def verdict_of(d: pd.DataFrame) -> str:
        out = check(d) if len(d) else None
        return out.verdict if out else ""

    rows, outcomes = [], {}
    for ds in datasets:
        if ds in missing:
            rows.append(
                untestable(
                    claim_id, ds, f"{ds} raw file absent (MEPS needs AHRQ's file: docs/data.md)"
                )
            )
            continue
        d = _of(table, ds)
        out = check(view(d, main_agg)) if len(d) else None
        if out is None:
            rows.append(
                untestable(
                    claim_id,
                    ds,
                    "no rows for it in this run's tables (grid switched off, learner or "
                    "m/n not run)",
                )
            )
            continue
        outcomes[ds] = out
        aggs = [] if whole else others
        settings = {a: _at(d, a) for a in aggs if (d["aggregation"] == a).any()}
        settings[SAMPLING_SETTING] = view(_of(table_wor, ds), main_agg)
        if claim_id in _TIMED:  # the same rule on the CPU clock
            on_cpu = _at(d, main_agg).assign(total_seconds=lambda x: x["total_cpu_seconds"])
            settings[CPU_SETTING] = on_cpu
            cpu = check(on_cpu)
            if cpu is not None:
                out = replace(out, ours=f"{out.ours}; CPU seconds: {_ratios_text(cpu.parts)}")
        robust = robust_across(out.verdict, verdict_of, settings)
        rows.append(_row(claim_id, ds, out, robust, tail))
    overall = _across(outcomes) if across else None
    if overall is not None:
        rows.append(_row(claim_id, ALL_DATASETS, overall, "-", tail))
    return rows


def _nn_rows(
    main: pd.DataFrame, jplus: pd.DataFrame, present: Sequence[str], aggregations: Sequence[str]
) -> list[dict]:
    """jab.bagging_helps_nn: one row over the data sets present, at the main aggregation."""
    main_agg = aggregations[0]
    suffix = f" (aggregation {main_agg}, sampling with replacement)"
    ours = main[main["dataset"].isin(present)] if len(main) else main
    if len(jplus) and len(ours):
        ours = expand_jplus(ours, jplus, aggregations)
    nn = _nn_gain(_at(ours, main_agg))
    if nn is not None:
        return [_row("jab.bagging_helps_nn", ALL_DATASETS, nn, "-", suffix)]
    return [untestable("jab.bagging_helps_nn", ALL_DATASETS, "no NN rows in this run's tables")]


def write_claims(
    main: PathLike,
    jplus: PathLike,
    fvr: PathLike,
    without_replacement: PathLike,
    out: PathLike,
    *,
    jab_cfg: Mapping,
    missing: Sequence[str],
    scale: str,
    seed: int,
    page: PathLike | None = None,
) -> None:
    """``results/jab/claims.csv`` (and the paper's verdict page ``page``) from main.csv,
    jplus.csv, fixed_vs_random.csv and the sampling setting's without_replacement.csv."""
    rows = evaluate(
        read_table(main),
        read_table(jplus),
        read_table(fvr),
        read_table(without_replacement),
        alpha=jab_cfg["alpha"],
        datasets=jab_cfg["datasets"],
        missing=missing,
        aggregations=jab_cfg["aggregations"],
        timing_m_ratio=jab_cfg["timing_m_ratio"],
        seed=seed,
    )
    write_paper_claims(rows, out, scale, page)
