"""Decision rules and interval helpers of the claim verdicts (issue 16).

A verdict is one of :data:`VERDICTS`. Every rule decides from an interval over repeated
randomness (trials, seeds, splits), never from one draw: a claim is ``reproduced`` only when
its whole interval lies inside the region the claim allows, ``not reproduced`` when the whole
interval lies outside it, and ``partly reproduced`` when the interval straddles the border.
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
NOT_TESTABLE = "not testable here"
#: The only words a verdict may take.
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTABLE)
#: Confidence level of every interval.
LEVEL = 0.95
#: Fewest repeats a percentile bootstrap is trusted with (with 2 trials it has 3 distinct
#: resamples and a spuriously narrow interval); fewer give an unbounded interval.
MIN_BOOTSTRAP = 5


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided interval, the method that made it and the repeats used."""

    estimate: float
    low: float
    high: float
    method: str
    n: int

    def text(self, fmt: str = ".3g") -> str:
        """``"0.91 [0.88, 0.94] (t 95%, 10 trials)"``-style rendering."""
        lo = "-inf" if self.low == -math.inf else format(self.low, fmt)
        hi = "inf" if self.high == math.inf else format(self.high, fmt)
        return f"{self.estimate:{fmt}} [{lo}, {hi}] ({self.method}, n = {self.n})"


def _values(values: Iterable[float], name: str) -> np.ndarray:
    v = np.asarray(list(values), dtype=float)
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be a non-empty sequence of finite numbers; got {v.tolist()}")
    return v


def t_interval(values: Iterable[float], level: float = LEVEL) -> Interval:
    """Mean of ``values`` with its Student-t interval over the repeats.

    Parameters
    ----------
    values : iterable of float
        One number per independent repeat (trial, seed, split).
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
    half = stats.t.ppf(0.5 + level / 2, v.size - 1) * v.std(ddof=1) / math.sqrt(v.size)
    return Interval(mean, mean - half, mean + half, method, int(v.size))


def bootstrap_ratio(
    numerator: Sequence[float],
    denominator: Sequence[float],
    *,
    seed: int,
    level: float = LEVEL,
    n_boot: int = 2000,
) -> Interval:
    """Ratio of means ``mean(numerator) / mean(denominator)`` with a paired percentile bootstrap.

    The repeats (e.g. trials, where both methods saw the same split) are resampled in pairs.
    With fewer than :data:`MIN_BOOTSTRAP` repeats the interval is unbounded.

    Parameters
    ----------
    numerator, denominator : sequence of float
        Paired per-repeat values, same length, denominators positive.
    seed : int
        Seed of the bootstrap draws (results are deterministic).
    level : float
        Two-sided confidence level.
    n_boot : int
        Bootstrap resamples.

    Returns
    -------
    Interval

    Examples
    --------
    >>> bootstrap_ratio([2.0] * 5, [1.0] * 5, seed=0).text(".2f")
    '2.00 [2.00, 2.00] (paired bootstrap 95%, n = 5)'
    >>> bootstrap_ratio([2.0, 2.1], [1.0, 1.0], seed=0).text(".2f")
    '2.05 [-inf, inf] (paired bootstrap 95%, n = 2)'
    """
    a, b = _values(numerator, "numerator"), _values(denominator, "denominator")
    if a.shape != b.shape:
        raise ValueError(
            f"numerator and denominator must pair up; got {a.size} and {b.size} values"
        )
    if np.any(b <= 0):
        raise ValueError(f"denominator values must be positive; got {b.tolist()}")
    ratio = float(a.mean() / b.mean())
    method = f"paired bootstrap {level:.0%}"
    if a.size < MIN_BOOTSTRAP:
        return Interval(ratio, -math.inf, math.inf, method, int(a.size))
    idx = np.random.default_rng(seed).integers(0, a.size, size=(n_boot, a.size))
    boot = a[idx].mean(axis=1) / b[idx].mean(axis=1)
    lo, hi = np.quantile(boot, [0.5 - level / 2, 0.5 + level / 2])
    return Interval(ratio, float(lo), float(hi), method, int(a.size))


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


def band_verdict(interval: Interval, low: float = -math.inf, high: float = math.inf) -> str:
    """Verdict of "the quantity lies in [low, high]": ``reproduced`` when the interval lies
    inside the band, ``not reproduced`` when it lies wholly outside, else ``partly reproduced``.

    Examples
    --------
    >>> band_verdict(Interval(0.9, 0.88, 0.92, "t", 10), 0.85, 0.95)
    'reproduced'
    >>> band_verdict(Interval(0.7, 0.65, 0.75, "t", 10), 0.85, 0.95)
    'not reproduced'
    """
    if low > high:
        raise ValueError(f"band [{low}, {high}] is empty: low must be <= high")
    if interval.low >= low and interval.high <= high:
        return REPRODUCED
    if interval.high < low or interval.low > high:
        return NOT_REPRODUCED
    return PARTLY


def combine(verdicts: Iterable[str]) -> str:
    """One verdict from several cells of one claim: all ``reproduced`` -> reproduced, all
    ``not reproduced`` -> not reproduced, none testable -> not testable here, else partly.

    Examples
    --------
    >>> combine(["reproduced", "not reproduced"])
    'partly reproduced'
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
    return PARTLY


def tally(verdicts: Sequence[str]) -> str:
    """``"2 reproduced, 1 partly reproduced of 3"``: how the cells of a claim came out."""
    parts = [f"{sum(v == w for v in verdicts)} {w}" for w in VERDICTS if w in verdicts]
    return ", ".join(parts) + f" of {len(verdicts)}"


def robust_to(main: str, settings: dict[str, str]) -> str:
    """Under how many sensitivity settings the verdict (or outcome) ``main`` stays the same.

    Examples
    --------
    >>> robust_to("reproduced", {"median": "reproduced", "trimmed_mean": "not reproduced"})
    '1 of 2 (flips under: trimmed_mean)'
    >>> robust_to("reproduced", {})
    'no sensitivity setting'
    """
    if not settings:
        return "no sensitivity setting"
    flips = [s for s, v in settings.items() if v != main]
    same = len(settings) - len(flips)
    tail = f"flips under: {', '.join(flips)}" if flips else ", ".join(settings)
    return f"{same} of {len(settings)} ({tail})"


def robust_across(main: str, check: Callable[[object], str], settings: Mapping[str, object]) -> str:
    """:func:`robust_to` of the verdict ``main`` over the sensitivity settings of a claim.

    The one call every paper's evaluator makes for ``robust_to`` (see
    ``notes/claims-robust-api.md``): ``check`` is the claim's decision rule (data -> verdict),
    the same function that gave ``main`` on the default setting's data, and ``settings`` maps
    each sensitivity setting's name to its data. A setting on which the claim cannot be judged
    (``check`` returns ``""`` or ``not testable here``) is not counted and is named apart.

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
