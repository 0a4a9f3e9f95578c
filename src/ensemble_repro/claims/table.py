"""Claims tables: one row per claim x data set, per paper and merged."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from ..io import ragged_csv
from ..paper_loader import CLAIMS, PAPERS
from .claim import COLUMNS
from .rules import INCONCLUSIVE, NOT_TESTABLE, VERDICTS, Interval, flips_in

#: The numeric columns of a claims table (the forest plot reads them).
EFFECT_COLUMNS = ("effect", "effect_low", "effect_high", "band_low", "band_high")


def claim_row(
    claim_id: str,
    dataset: str,
    *,
    ours: str,
    verdict: str,
    interval: Interval | str = "",
    n_repeats: int = 0,
    robust_to: str = "no sensitivity setting",
    reason: str = "",
    repeats_needed: str = "",
    effect: Interval | None = None,
    band: tuple[float, float] = (-math.inf, math.inf),
    cell: str = "",
) -> dict:
    """One row of a claims table (``scale`` and ``made_on`` are filled by :func:`claims_frame`).

    Parameters
    ----------
    claim_id : str
        A key of :data:`ensemble_repro.paper_loader.CLAIMS`.
    dataset : str
        The data set (or pool, or setting) the row is about.
    ours : str
        Our numbers, in words.
    verdict : str
        One of :data:`ensemble_repro.claims.rules.VERDICTS`.
    interval : Interval or str
        The interval the verdict rests on.
    n_repeats : int
        Independent repeats behind the interval.
    robust_to : str
        See :func:`ensemble_repro.claims.rules.robust_to`; the settings it says the verdict
        flips under fill the ``fragile`` column (:func:`ensemble_repro.claims.rules.flips_in`).
    reason : str
        Why the claim is not testable (required for that verdict).
    repeats_needed : str
        The repeats that would decide an ``inconclusive`` verdict (required for it; see
        :func:`ensemble_repro.claims.rules.repeats_needed`).
    effect : Interval, optional
        The claim's effect as it is decided (the forest plot's point and bar).
    band : (float, float)
        The region ``effect`` must lie in for the claim to hold (ends may be infinite).
    cell : str
        The cell ``effect`` is taken from when it is not the row's own pooled effect (e.g.
        ``"ridge, m/n=0.4"``, the least covered cell); the forest plot names it in its margin.

    Returns
    -------
    dict

    Examples
    --------
    >>> claim_row("knapsack.kaggle", "Kaggle", ours="-", verdict="not testable here",
    ...           reason="leaderboards not downloaded")["item"]
    'Section V (Kaggle experiment)'
    """
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}; got {verdict!r} for {claim_id}")
    if verdict == NOT_TESTABLE and not reason:
        raise ValueError(f"{claim_id} ({dataset}): a 'not testable here' verdict needs its reason")
    if verdict == INCONCLUSIVE and not repeats_needed:
        raise ValueError(
            f"{claim_id} ({dataset}): an 'inconclusive' verdict needs repeats_needed, the "
            "repeats that would decide it (rules.repeats_needed)"
        )
    if effect is not None and not effect.bounded and verdict != INCONCLUSIVE:
        raise ValueError(
            f"{claim_id} ({dataset}): verdict {verdict!r} rests on an unbounded interval "
            f"{effect.text()}; only 'inconclusive' may"
        )
    c = CLAIMS[claim_id]
    nan = math.nan
    return {
        "paper": c.paper,
        "claim_id": c.id,
        "item": c.item,
        "dataset": dataset,
        "paper_says": c.quote,
        "ours": ours,
        "verdict": verdict,
        "repeats_needed": repeats_needed,
        "reason": reason,
        "n_repeats": int(n_repeats),
        "interval": interval.text() if isinstance(interval, Interval) else interval,
        "robust_to": robust_to,
        "fragile": flips_in(robust_to),
        "rule": c.rule,
        "timing": c.timing,
        "effect": effect.estimate if effect else nan,
        "effect_cell": cell if effect else "",
        "effect_low": effect.low if effect else nan,
        "effect_high": effect.high if effect else nan,
        "band_low": band[0] if effect else nan,
        "band_high": band[1] if effect else nan,
        "effect_log": bool(effect.log) if effect else False,
    }


def untestable(claim_id: str, dataset: str, reason: str) -> dict:
    """The row of a claim that cannot be checked here, with the reason."""
    return claim_row(
        claim_id, dataset, ours="-", verdict=NOT_TESTABLE, reason=reason, robust_to="-"
    )


def claims_frame(rows: list[dict], *, scale: str, made_on: str) -> pd.DataFrame:
    """The rows as a claims table with the columns of :data:`.claim.COLUMNS`, marked with scale and date."""
    df = pd.DataFrame(rows, columns=[c for c in COLUMNS if c not in ("scale", "made_on")])
    df.insert(COLUMNS.index("scale"), "scale", scale)
    df.insert(COLUMNS.index("made_on"), "made_on", made_on)
    return df[list(COLUMNS)]


#: Columns a claims table written before they existed may lack: read as empty.
LATER_COLUMNS = ("fragile", "effect_cell")


def read_claims(path: str | os.PathLike) -> pd.DataFrame:
    """A claims table, checked: the columns of :data:`.claim.COLUMNS`, every row complete, only the verdict
    words. A column of :data:`LATER_COLUMNS` that the table lacks (a record published before
    it existed) is read as empty."""
    ragged = ragged_csv(path)
    if ragged:
        raise ValueError(f"{path}: {ragged}; regenerate it with the workflow")
    try:
        df = pd.read_csv(path, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise ValueError(
            f"{path}: not a readable claims table ({err}); regenerate it with the workflow"
        ) from None
    for col in LATER_COLUMNS:
        if col not in df.columns:
            df[col] = ""
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{path}: claims table lacks columns {missing}; regenerate it with the "
            "workflow (rule <paper>_claims)"
        )
    bad = sorted(set(df["verdict"]) - set(VERDICTS))
    if bad:
        raise ValueError(f"{path}: verdicts {bad} are not among {list(VERDICTS)}")
    for col in EFFECT_COLUMNS:
        df[col] = pd.to_numeric(df[col], errors="coerce")
    df["effect_log"] = df["effect_log"].astype(str).str.lower() == "true"
    return df[list(COLUMNS)]


def merge_claims(paper_files: Mapping[str, str | os.PathLike]) -> pd.DataFrame:
    """Every paper's claims rows in claim-list order. ``paper_files`` maps paper -> its
    ``claims.csv``; a paper whose file does not exist (never run) is left out, a switched-off
    paper's earlier file keeps its rows with the scale and date it was made at."""
    unknown = [p for p in paper_files if p not in PAPERS]
    if unknown:
        raise ValueError(f"unknown papers {unknown}; expected some of {list(PAPERS)}")
    frames = [
        read_claims(paper_files[p])
        for p in PAPERS
        if p in paper_files and Path(paper_files[p]).exists()
    ]
    if not frames:
        return pd.DataFrame(columns=list(COLUMNS))
    return pd.concat(frames, ignore_index=True)


def run_independent(df: pd.DataFrame) -> pd.DataFrame:
    """The part of a claims table that must be identical across reruns of one config: rows of
    wall-clock claims and the ``made_on`` date dropped."""
    timing = df["timing"].astype(str).str.lower() == "true"
    return df.loc[~timing].drop(columns=["made_on"]).reset_index(drop=True)
