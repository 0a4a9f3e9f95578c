"""Decision rules and interval helpers of the claim verdicts.

A verdict is one of :data:`VERDICTS`, decided from an interval over repeated randomness
(trials, seeds, refits, test rows), never from one draw. A claim is ``reproduced`` when its
whole interval lies inside the region the claim allows, ``not reproduced`` when the whole
interval lies outside it, and ``inconclusive`` when the interval straddles the border or is
unbounded: the row then states, in ``repeats_needed``, how many repeats would decide it at
the observed variance (:func:`repeats_needed`). ``partly reproduced`` is kept for mixed
findings whose parts are each decided (:func:`combine_parts`, :func:`with_cells`). Every
interval is two-sided at :data:`LEVEL`: a one-sided claim is decided on the relevant end (a
test at 2.5%), an equivalence claim on both ends (two one-sided tests at 2.5%).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

REPRODUCED = "reproduced"
PARTLY = "partly reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NOT_TESTABLE = "not testable here"
#: The only words a verdict may take.
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, INCONCLUSIVE, NOT_TESTABLE)
#: The verdicts that decide a claim (``robust_to`` counts only these).
DECIDED = (REPRODUCED, PARTLY, NOT_REPRODUCED)
#: Confidence level of every interval.
LEVEL = 0.95
#: Family-wise error level of the per-cell checks (:func:`holm`).
CELL_LEVEL = 0.05
#: How :func:`robust_to` names the settings a verdict flips under (:func:`flips_in` reads it).
FLIPS = "flips under: "
#: ``repeats_needed`` beyond this multiple of the run's repeats reads "more than 10x this scale".
SCALE_LIMIT = 10


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided interval, the method that made it and the repeats used.

    ``log`` marks an interval made symmetric on the log scale (ratios): :func:`repeats_needed`
    and :func:`random_effects` then work on the logs.
    """

    estimate: float
    low: float
    high: float
    method: str
    n: int
    log: bool = False

    @property
    def bounded(self) -> bool:
        """Both ends finite."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    def text(self, fmt: str = ".3g") -> str:
        """``"0.91 [0.88, 0.94] (t 95%, n = 10)"``-style rendering."""
        lo = "-inf" if self.low == -math.inf else format(self.low, fmt)
        hi = "inf" if self.high == math.inf else format(self.high, fmt)
        return f"{self.estimate:{fmt}} [{lo}, {hi}] ({self.method}, n = {self.n})"


def _values(values: Iterable[float], name: str) -> np.ndarray:
    v = np.asarray(list(values), dtype=float)
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be a non-empty sequence of finite numbers; got {v.tolist()}")
    return v


def _t_half(v: np.ndarray, level: float) -> float:
    return float(stats.t.ppf(0.5 + level / 2, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size))


def t_interval(values: Iterable[float], level: float = LEVEL) -> Interval:
    """Mean of ``values`` with its Student-t interval over the repeats.

    Parameters
    ----------
    values : iterable of float
        One number per independent repeat (trial, seed, refit, test row).
    level : float
        Two-sided confidence level.

    Returns
    -------
    Interval
        With one repeat the interval is unbounded (no spread can be estimated).

    Examples
    --------
    >>> t_interval([1.0, 2.0, 3.0]).text(".2f")
    '2.00 [-0.48, 4.48] (t 95%, n = 3)'
    """
    v = _values(values, "values")
    mean = float(v.mean())
    method = f"t {level:.0%}"
    if v.size < 2:
        return Interval(mean, -math.inf, math.inf, method, 1)
    half = _t_half(v, level)
    return Interval(mean, mean - half, mean + half, method, int(v.size))


#: Proportions are kept this far inside (0, 1) before :func:`logit` (a rate of 0 or 1 has no
#: finite logit).
PROPORTION_CLIP = 1e-4


def logit(p: float | np.ndarray) -> float | np.ndarray:
    """``log(p / (1 - p))`` of ``p`` clipped to [PROPORTION_CLIP, 1 - PROPORTION_CLIP].

    Examples
    --------
    >>> float(logit(0.5)), float(logit(1.0)) == float(logit(1 - PROPORTION_CLIP))
    (0.0, True)
    """
    q = np.clip(np.asarray(p, dtype=float), PROPORTION_CLIP, 1 - PROPORTION_CLIP)
    return np.log(q / (1 - q))


def expit(x: float | np.ndarray) -> float | np.ndarray:
    """Inverse of :func:`logit`: ``1 / (1 + exp(-x))``.

    Examples
    --------
    >>> round(float(expit(logit(0.9))), 12)
    0.9
    """
    return 1 / (1 + np.exp(-np.asarray(x, dtype=float)))


def logit_t_interval(values: Iterable[float], level: float = LEVEL) -> Interval:
    """A proportion's Student-t interval made on the logit scale and mapped back, so that it
    stays inside [0, 1]: ``expit`` of the mean logit of ``values`` (each a proportion per
    repeat, e.g. one trial's test coverage) with ``expit`` of its t interval's ends.

    Examples
    --------
    >>> logit_t_interval([0.85, 0.9, 0.92]).text(".3f")
    '0.893 [0.774, 0.953] (t on logits 95%, n = 3)'
    """
    v = _values(values, "values")
    if np.any(v < 0) or np.any(v > 1):
        raise ValueError(f"logit_t_interval takes proportions in [0, 1]; got {v.tolist()}")
    iv = t_interval(logit(v), level)
    ends = [float(expit(x)) if math.isfinite(x) else float(x > 0) for x in (iv.low, iv.high)]
    return Interval(float(expit(iv.estimate)), *ends, f"t on logits {level:.0%}", iv.n)


def paired_log_ratio(
    numerator: Sequence[float], denominator: Sequence[float], level: float = LEVEL
) -> Interval:
    """Geometric-mean ratio ``numerator / denominator`` with a paired t interval on the
    per-repeat log ratios, exponentiated (valid from 2 repeats).

    Parameters
    ----------
    numerator, denominator : sequence of float
        Paired per-repeat positive values (e.g. both methods on the same trial's split).
    level : float
        Two-sided confidence level.

    Returns
    -------
    Interval
        On the ratio scale, with ``log=True``.

    Examples
    --------
    >>> paired_log_ratio([2.0, 2.2, 1.8], [1.0, 1.0, 1.0]).text(".2f")
    '1.99 [1.55, 2.56] (paired t on log ratios 95%, n = 3)'
    """
    a, b = _values(numerator, "numerator"), _values(denominator, "denominator")
    if a.shape != b.shape:
        raise ValueError(
            f"numerator and denominator must pair up; got {a.size} and {b.size} values"
        )
    if np.any(a <= 0) or np.any(b <= 0):
        raise ValueError(
            f"ratios need positive values; got numerator {a.tolist()}, denominator {b.tolist()}"
        )
    logs = t_interval(np.log(a / b), level)
    return Interval(
        math.exp(logs.estimate),
        math.exp(logs.low),
        math.exp(logs.high),
        f"paired t on log ratios {level:.0%}",
        logs.n,
        log=True,
    )


def wilson(successes: int, n: int, level: float = LEVEL) -> Interval:
    """Success rate ``successes / n`` with its Wilson score interval.

    Examples
    --------
    >>> wilson(19, 20).text(".3f")
    '0.950 [0.764, 0.991] (Wilson 95%, n = 20)'
    """
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n >= 1; got successes={successes}, n={n}")
    z = stats.norm.ppf(0.5 + level / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), f"Wilson {level:.0%}", n)


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, level: float = LEVEL) -> Interval:
    """Difference of two independent proportions ``k1/n1 - k2/n2`` with Newcombe's hybrid
    score interval (built from the two Wilson intervals; Newcombe 1998, method 10).

    Examples
    --------
    >>> newcombe_diff(96, 100, 11, 100).text(".3f")
    '0.850 [0.754, 0.903] (Newcombe 95%, n = 100)'
    >>> newcombe_diff(100, 100, 100, 100).text(".3f")
    '0.000 [-0.037, 0.037] (Newcombe 95%, n = 100)'
    """
    a, b = wilson(k1, n1, level), wilson(k2, n2, level)
    d = a.estimate - b.estimate
    low = d - math.hypot(a.estimate - a.low, b.high - b.estimate)
    high = d + math.hypot(a.high - a.estimate, b.estimate - b.low)
    return Interval(d, low, high, f"Newcombe {level:.0%}", min(n1, n2))


def band_verdict(interval: Interval, low: float = -math.inf, high: float = math.inf) -> str:
    """Verdict of "the quantity lies in [low, high]": ``reproduced`` when the interval lies
    inside the band, ``not reproduced`` when it lies wholly outside, else (or when the
    interval is unbounded) ``inconclusive``.

    Examples
    --------
    >>> band_verdict(Interval(0.9, 0.88, 0.92, "t", 10), 0.85, 0.95)
    'reproduced'
    >>> band_verdict(Interval(0.7, 0.65, 0.75, "t", 10), 0.85, 0.95)
    'not reproduced'
    >>> band_verdict(Interval(0.86, 0.84, 0.88, "t", 10), 0.85, 0.95)
    'inconclusive'
    """
    if low > high:
        raise ValueError(f"band [{low}, {high}] is empty: low must be <= high")
    if not interval.bounded:
        return INCONCLUSIVE
    if interval.low >= low and interval.high <= high:
        return REPRODUCED
    if interval.high < low or interval.low > high:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def one_sided(interval: Interval, *, low: float | None = None, high: float | None = None) -> str:
    """Verdict of a directional claim: "at least ``low``" or "at most ``high``" (one bound).

    Examples
    --------
    >>> one_sided(Interval(8.2, 5.0, 12.0, "t", 3, log=True), low=1.0)
    'reproduced'
    """
    if (low is None) == (high is None):
        raise ValueError("one_sided takes exactly one bound: low= or high=")
    return band_verdict(
        interval, -math.inf if low is None else low, math.inf if high is None else high
    )


def equivalence(interval: Interval, low: float, high: float) -> str:
    """Verdict of "the same within [low, high]" (two one-sided tests at 2.5%).

    Examples
    --------
    >>> equivalence(Interval(1.0, 0.95, 1.04, "t", 10, log=True), 0.9, 1.1)
    'reproduced'
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"an equivalence band needs two finite ends; got [{low}, {high}]")
    return band_verdict(interval, low, high)


def _scale(interval: Interval, x: float) -> float:
    """``x`` on the scale the interval is symmetric on (a ratio bound of 0 is -inf on logs)."""
    if not interval.log:
        return x
    return math.log(x) if x > 0 else -math.inf


def repeats_needed(
    interval: Interval,
    low: float = -math.inf,
    high: float = math.inf,
    unit: str = "trials",
    available: int | None = None,
) -> str:
    """How many repeats would decide the band ``[low, high]`` at the observed variance.

    The interval's half-width is taken to shrink like ``t(n - 1) / sqrt(n)`` (on the log scale
    for ratio intervals); the answer is the smallest ``n`` whose interval around the same
    estimate no longer straddles the nearest finite bound. Empty when the interval already
    decides.

    Parameters
    ----------
    interval : Interval
        The interval that did not decide.
    low, high : float
        The claim's band (one end may be infinite).
    unit : str
        What a repeat is ("trials", "seeds", "refits", "test rows").
    available : int, optional
        The most repeats the data can give (the test rows a data set holds): a need beyond it
        is said to be out of reach rather than asked for.

    Returns
    -------
    str
        ``"about 14 trials"``, ``"more than 10x this scale (over 30 trials)"``, when one
        repeat gave no spread ``"2 or more trials (one repeat has no spread)"``, and beyond
        ``available`` ``"out of reach with this data set (needs about 499 test rows, has
        143)"``.

    Examples
    --------
    >>> repeats_needed(Interval(0.90, 0.80, 1.00, "t", 5), low=0.85)
    'about 13 trials'
    >>> repeats_needed(Interval(0.85, 0.80, 0.90, "t", 5), low=0.85)
    'more than 10x this scale (over 50 trials)'
    >>> repeats_needed(Interval(0.90, 0.80, 1.00, "t", 5), low=0.85, unit="test rows", available=8)
    'out of reach with this data set (needs about 13 test rows, has 8)'
    """
    need = _repeats_needed(interval, low, high, unit)
    if available is None or not need:
        return need
    if need.startswith("about "):
        if int(need.split()[1]) <= available:
            return need
        return f"out of reach with this data set (needs {need}, has {available})"
    limit = SCALE_LIMIT * interval.n
    if need.startswith("more than") and limit > available:
        return f"out of reach with this data set (needs over {limit} {unit}, has {available})"
    return need


def _repeats_needed(interval: Interval, low: float, high: float, unit: str) -> str:
    if band_verdict(interval, low, high) != INCONCLUSIVE:
        return ""
    n = interval.n
    if n < 2 or not interval.bounded:
        return f"2 or more {unit} (one repeat has no spread)"
    est = _scale(interval, interval.estimate)
    half = (_scale(interval, interval.high) - _scale(interval, interval.low)) / 2
    bounds = [x for x in (_scale(interval, low), _scale(interval, high)) if math.isfinite(x)]
    dist = min(abs(est - b) for b in bounds)
    limit = SCALE_LIMIT * n
    if dist == 0 or half == 0:
        return f"more than {SCALE_LIMIT}x this scale (over {limit} {unit})"
    spread = half * math.sqrt(n) / stats.t.ppf(0.5 + LEVEL / 2, n - 1)
    for m in range(n + 1, limit + 1):
        if stats.t.ppf(0.5 + LEVEL / 2, m - 1) * spread / math.sqrt(m) < dist:
            return f"about {m} {unit}"
    return f"more than {SCALE_LIMIT}x this scale (over {limit} {unit})"


def combine_parts(verdicts: Iterable[str]) -> str:
    """One verdict from a claim's parts (data sets, pools, the halves of a two-part claim).

    All parts ``reproduced`` -> reproduced; all ``not reproduced`` -> not reproduced; parts
    decided both ways (or a part already ``partly``) -> partly reproduced; an undecided part
    otherwise -> inconclusive; nothing testable -> not testable here.

    Examples
    --------
    >>> combine_parts(["reproduced", "not reproduced"])
    'partly reproduced'
    >>> combine_parts(["reproduced", "inconclusive"])
    'inconclusive'
    """
    tested = [v for v in verdicts if v != NOT_TESTABLE]
    for v in tested:
        if v not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {v!r}")
    if not tested:
        return NOT_TESTABLE
    if all(v == REPRODUCED for v in tested):
        return REPRODUCED
    if all(v == NOT_REPRODUCED for v in tested):
        return NOT_REPRODUCED
    if PARTLY in tested or (REPRODUCED in tested and NOT_REPRODUCED in tested):
        return PARTLY
    return INCONCLUSIVE


def holm(pvalues: Sequence[float], level: float = CELL_LEVEL) -> list[bool]:
    """Holm's step-down rejections of ``pvalues`` at family-wise ``level``.

    Examples
    --------
    >>> holm([0.001, 0.04, 0.03])
    [True, False, False]
    >>> holm([0.001, 0.02, 0.02])
    [True, True, True]
    """
    p = np.asarray(pvalues, dtype=float)
    reject = [False] * p.size
    for rank, i in enumerate(np.argsort(p, kind="stable")):
        if p[i] > level / (p.size - rank):
            break
        reject[int(i)] = True
    return reject


def p_outside(values: Iterable[float], low: float = -math.inf, high: float = math.inf) -> float:
    """One-sided t-test p-value that the mean of ``values`` lies outside ``[low, high]``:
    the smaller of the p-values of "mean < low" and "mean > high" (1 with one value or no
    spread on the right side).

    Examples
    --------
    >>> round(p_outside([0.70, 0.72, 0.71, 0.69], low=0.85), 6)
    0.0
    >>> p_outside([0.9], low=0.85)
    1.0
    """
    v = _values(values, "values")
    if v.size < 2:
        return 1.0
    se = v.std(ddof=1) / math.sqrt(v.size)
    mean = float(v.mean())
    if se == 0:
        return 0.0 if (mean < low or mean > high) else 1.0
    ps = [1.0]
    if math.isfinite(low):
        ps.append(float(stats.t.cdf((mean - low) / se, v.size - 1)))
    if math.isfinite(high):
        ps.append(float(stats.t.sf((mean - high) / se, v.size - 1)))
    return min(ps)


def p_inside(values: Iterable[float], low: float = -math.inf, high: float = math.inf) -> float:
    """One-sided t-test p-value that the mean of ``values`` lies inside ``[low, high]`` (two
    one-sided tests when both ends are finite: the larger p-value).

    Examples
    --------
    >>> round(p_inside([0.99, 1.01, 1.0, 1.0], low=0.9, high=1.1), 6)
    0.0
    """
    ps = [p_outside(values, high=low)] if math.isfinite(low) else []
    ps += [p_outside(values, low=high)] if math.isfinite(high) else []
    if not ps:
        raise ValueError("p_inside needs at least one finite end")
    return max(ps)


def with_cells(pooled: str, p_wrong: Mapping[str, float], p_right: Mapping[str, float]) -> tuple:
    """The pooled verdict of a claim checked cell by cell (Holm at :data:`CELL_LEVEL`).

    A pooled ``reproduced`` with a cell decisively on the wrong side (``p_wrong``, Holm), or a
    pooled ``not reproduced`` with a cell decisively on the claim's side (``p_right``), is a
    mixed finding: ``partly reproduced``. Returns the verdict and the names of the decisive
    cells of each side.

    Examples
    --------
    >>> with_cells("reproduced", {"a": 0.001, "b": 0.6}, {})
    ('partly reproduced', ['a'], [])
    """
    wrong = [k for k, r in zip(p_wrong, holm(list(p_wrong.values())), strict=True) if r]
    right = [k for k, r in zip(p_right, holm(list(p_right.values())), strict=True) if r]
    if (pooled == REPRODUCED and wrong) or (pooled == NOT_REPRODUCED and right):
        return PARTLY, wrong, right
    return pooled, wrong, right


def random_effects(intervals: Sequence[Interval], level: float = LEVEL) -> tuple[Interval, str]:
    """Stratified overall estimate of several strata (data sets, pools): the
    DerSimonian-Laird random-effects mean of their estimates (on the log scale for ratio
    intervals), with the heterogeneity it found.

    Each stratum's standard error is read from its interval (half-width / z). Returns the
    overall interval (``n`` = the smallest stratum's repeats) and a text such as
    ``"heterogeneous: I2 = 87%, Q p = 0.001"`` or ``"homogeneous: I2 = 0%, Q p = 0.62"``.

    Examples
    --------
    >>> iv, het = random_effects([Interval(1.0, 0.9, 1.1, "t", 10), Interval(1.0, 0.8, 1.2, "t", 10)])
    >>> iv.text(".2f"), het
    ('1.00 [0.91, 1.09] (random effects 95%, n = 10)', 'homogeneous: I2 = 0%, Q p = 1')
    """
    if not intervals:
        raise ValueError("random_effects needs at least one stratum")
    log = all(iv.log for iv in intervals)
    z = stats.norm.ppf(0.5 + level / 2)
    n = min(iv.n for iv in intervals)
    method = f"random effects {level:.0%}"
    if not all(iv.bounded for iv in intervals):
        est = float(np.mean([iv.estimate for iv in intervals]))
        return Interval(est, -math.inf, math.inf, method, n, log), "an unbounded stratum"
    y = np.array([_scale(iv, iv.estimate) for iv in intervals])
    se = np.array([(_scale(iv, iv.high) - _scale(iv, iv.low)) / (2 * z) for iv in intervals])
    se = np.maximum(se, 1e-12)
    w = 1 / se**2
    fixed = float(np.sum(w * y) / np.sum(w))
    q = float(np.sum(w * (y - fixed) ** 2))
    k = len(intervals)
    tau2 = max(0.0, (q - (k - 1)) / (np.sum(w) - np.sum(w**2) / np.sum(w))) if k > 1 else 0.0
    wr = 1 / (se**2 + tau2)
    mean = float(np.sum(wr * y) / np.sum(wr))
    half = z / math.sqrt(float(np.sum(wr)))
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    p = float(stats.chi2.sf(q, k - 1)) if k > 1 else 1.0
    flag = "heterogeneous" if k > 1 and p < CELL_LEVEL else "homogeneous"
    back = math.exp if log else float
    iv = Interval(back(mean), back(mean - half), back(mean + half), method, n, log)
    return iv, f"{flag}: I2 = {i2:.0%}, Q p = {p:.2g}"


def logit_random_effects(
    intervals: Sequence[Interval], level: float = LEVEL
) -> tuple[Interval, str]:
    """:func:`random_effects` of proportions (success rates, shares) on the logit scale,
    back-transformed, so the overall interval stays inside [0, 1].

    Each stratum's interval is moved to the logit scale (its ends through :func:`logit`),
    pooled by DerSimonian-Laird there, and the pooled mean and ends are mapped back by
    :func:`expit`. A stratum without spread on the logit scale (every repeat tied, or both
    ends clipped) gets the smallest half-width of the others (1 when none has any), so it
    does not outweigh every measured stratum.

    Examples
    --------
    >>> iv, _ = logit_random_effects([Interval(0.99, 0.97, 1.0, "t", 20),
    ...                               Interval(0.98, 0.95, 1.0, "t", 20)])
    >>> 0 <= iv.low <= iv.estimate <= iv.high <= 1
    True
    """
    for iv in intervals:
        if not (0 <= iv.estimate <= 1):
            raise ValueError(
                f"logit_random_effects pools proportions; got estimate {iv.estimate} "
                f"({iv.method}): use random_effects for other quantities"
            )
    moved = [
        Interval(
            float(logit(iv.estimate)),
            float(logit(iv.low)) if math.isfinite(iv.low) else -math.inf,
            float(logit(iv.high)) if math.isfinite(iv.high) else math.inf,
            iv.method,
            iv.n,
        )
        for iv in intervals
    ]
    halves = [(v.high - v.low) / 2 for v in moved if v.bounded and v.high > v.low]
    floor = min(halves) if halves else 1.0
    moved = [
        v
        if v.high > v.low or not v.bounded
        else Interval(v.estimate, v.estimate - floor, v.estimate + floor, v.method, v.n)
        for v in moved
    ]
    pooled, note = random_effects(moved, level)
    back = Interval(
        float(expit(pooled.estimate)),
        float(expit(pooled.low)),
        float(expit(pooled.high)),
        f"random effects on logits {level:.0%}",
        pooled.n,
    )
    return back, note


def tally(verdicts: Sequence[str]) -> str:
    """``"2 reproduced, 1 inconclusive of 3"``: how the parts of a claim came out."""
    parts = [f"{sum(v == w for v in verdicts)} {w}" for w in VERDICTS if w in verdicts]
    return ", ".join(parts) + f" of {len(verdicts)}"


def robust_to(main: str, settings: dict[str, str]) -> str:
    """Under how many sensitivity settings the decided verdict ``main`` stays the same.

    Only decided verdicts count (:data:`DECIDED`): an undecided main verdict cannot be called
    robust, and a setting whose verdict is undecided is named apart.

    Examples
    --------
    >>> robust_to("reproduced", {"median": "reproduced", "trimmed_mean": "not reproduced"})
    '1 of 2 (flips under: trimmed_mean)'
    >>> robust_to("reproduced", {"median": "reproduced", "wor": "inconclusive"})
    '1 of 1 (median); undecided under: wor'
    >>> robust_to("inconclusive", {"median": "reproduced"})
    '- (the main verdict is undecided)'
    >>> robust_to("reproduced", {})
    'no sensitivity setting'
    """
    if not settings:
        return "no sensitivity setting"
    if main not in DECIDED:
        return "- (the main verdict is undecided)"
    decided = {k: v for k, v in settings.items() if v in DECIDED}
    undecided = [k for k in settings if k not in decided]
    tail = f"; undecided under: {', '.join(undecided)}" if undecided else ""
    if not decided:
        return f"0 of 0{tail}"
    flips = [s for s, v in decided.items() if v != main]
    same = len(decided) - len(flips)
    named = f"{FLIPS}{', '.join(flips)}" if flips else ", ".join(decided)
    return f"{same} of {len(decided)} ({named}){tail}"


def flips_in(robust: str) -> str:
    """The sensitivity settings a :func:`robust_to` text says the verdict flips under
    (``""`` when none): a claims row with any is flagged ``fragile``.

    Examples
    --------
    >>> flips_in("1 of 3 (flips under: fit_on_train, learning_rate_0.1); undecided under: x")
    'fit_on_train, learning_rate_0.1'
    >>> flips_in("2 of 2 (median, trimmed_mean)")
    ''
    """
    _, sep, tail = robust.partition(FLIPS)
    return tail.split(")")[0] if sep else ""


def robust_across(main: str, check: Callable[[object], str], settings: Mapping[str, object]) -> str:
    """:func:`robust_to` of the verdict ``main`` over the sensitivity settings of a claim.

    The one call every paper's evaluator makes for ``robust_to``: ``check`` is the claim's
    decision rule (data -> verdict), the same function that gave ``main`` on the default
    setting's data, and ``settings`` maps each sensitivity setting's name to its data. A
    setting on which the claim cannot be judged (``check`` returns ``""`` or ``not testable
    here``) is not counted and is named apart.

    Parameters
    ----------
    main : str
        The verdict on the default setting.
    check : callable
        Data -> verdict (one of :data:`VERDICTS`, or ``""`` when there is nothing to judge).
    settings : mapping of str to data
        Sensitivity setting name -> the data the claim is judged on under that setting.

    Returns
    -------
    str

    Examples
    --------
    >>> def rule(x):
    ...     return "" if x is None else "reproduced" if x >= 0.85 else "not reproduced"
    >>> robust_across("reproduced", rule, {"median": 0.9, "without replacement": 0.8})
    '1 of 2 (flips under: without replacement)'
    >>> robust_across("reproduced", rule, {"median": 0.9, "fvr": None})
    '1 of 1 (median); not testable under: fvr'
    """
    verdicts = {name: check(data) for name, data in settings.items()}
    tested = {k: v for k, v in verdicts.items() if v and v != NOT_TESTABLE}
    untested = [k for k in verdicts if k not in tested]
    text = robust_to(main, tested)
    return text + (f"; not testable under: {', '.join(untested)}" if untested else "")
