"""Forest plots of the verdicts: each claim's effect with its interval against its margin.

One figure per paper, one panel per claim (each claim has its own units), one line per data
set or pool, as replication studies show their results. Drawn from a claims table's
``effect*`` and ``band*`` columns, so the picture and the verdict page cannot disagree.
"""

from __future__ import annotations

import math
import os
import textwrap

import numpy as np
import pandas as pd

from ..paper_loader import CLAIMS, PAPERS
from .rules import INCONCLUSIVE, NOT_REPRODUCED, NOT_TESTABLE, PARTLY, REPRODUCED

#: Marker colour and shape of each verdict.
VERDICT_STYLE = {
    REPRODUCED: ("#1b7837", "o"),
    PARTLY: ("#e08214", "D"),
    NOT_REPRODUCED: ("#c51b7d", "X"),
    INCONCLUSIVE: ("#2166ac", "s"),
}
#: Length of a panel title cut from a claim's quote (a claim without ``title``).
TITLE_CHARS = 70
#: Width at which a row label wraps.
LABEL_CHARS = 36
#: Headings of the lists under a forest plot (:func:`unplotted`).
NO_EFFECT = "Decided without an effect interval"
UNTESTED = "Not testable here"
#: Colour of the region a claim allows.
BAND_COLOUR = "#d9f0d3"


#: A paper's forest plot (``paper``: a key of :data:`ensemble_repro.paper_loader.PAPERS`;
#: ``ext``: pdf or png).
FOREST_FIGURE = "results/figures/forest_{paper}.{ext}"


def _limits(sub: pd.DataFrame, log: bool) -> tuple[float, float]:
    vals = pd.concat([sub["effect"], sub["effect_low"], sub["effect_high"]])
    vals = pd.concat([vals, sub["band_low"], sub["band_high"]])
    vals = vals[np.isfinite(vals)]
    if log:
        vals = vals[vals > 0]
    lo, hi = float(vals.min()), float(vals.max())
    if log:
        return lo / 1.3, hi * 1.3
    pad = 0.08 * (hi - lo or abs(hi) or 1.0)
    return lo - pad, hi + pad


def panel_title(claim_id: str) -> str:
    """A forest panel's title: the claim's short title in the paper's words (its quote cut
    at :data:`TITLE_CHARS` when it has none) and the paper item."""
    c = CLAIMS[claim_id]
    words = c.title or textwrap.shorten(c.quote, TITLE_CHARS, placeholder=" ...")
    return f"\u201c{words}\u201d ({c.item})"


def _split(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A paper's rows as drawn (an effect to plot), decided without an effect interval, and
    not testable here."""
    untestable = rows["verdict"] == NOT_TESTABLE
    has_effect = np.isfinite(rows["effect"].astype(float))
    return rows[has_effect & ~untestable], rows[~has_effect & ~untestable], rows[untestable]


def unplotted(rows: pd.DataFrame) -> list[tuple[str, list[str]]]:
    """The lists under a paper's forest plot, from its claims rows: rows decided without an
    effect interval (with their verdicts), then rows not testable here; a list without rows
    is left out."""
    _, no_effect, untested = _split(rows)
    lists = (
        (NO_EFFECT, [f"{r.claim_id} ({r.dataset}): {r.verdict}" for r in no_effect.itertuples()]),
        (UNTESTED, [f"{r.claim_id} ({r.dataset})" for r in untested.itertuples()]),
    )
    return [(head, items) for head, items in lists if items]


def _check_effect_texts(shown: pd.DataFrame) -> None:
    bare = [c for c in dict.fromkeys(shown["claim_id"]) if not CLAIMS[c].effect]
    if bare:
        raise ValueError(
            f"claims {bare} have rows with an effect to plot but no effect text for the "
            "forest plot's axis: give each Claim(..., effect='<what its effect columns "
            "measure>') in its paper's claim list (ensemble_repro.papers.<paper>.claim_list)"
        )


def _text(value) -> str:
    """A text cell of a claims table ('' for an empty one, read or constructed)."""
    return value if isinstance(value, str) else ""


def _margin(row) -> str:
    cell = _text(row.effect_cell)
    return f"{cell}; n = {int(row.n_repeats)}" if cell else f"n = {int(row.n_repeats)}"


def forest_plot(
    claims: pd.DataFrame, paper: str, pdf_path: str | os.PathLike, png_path: str | os.PathLike
) -> pd.DataFrame:
    """Draw ``paper``'s forest plot from a claims table (:func:`claims.table.read_claims`).

    Each row with an effect is a point (marker: its verdict; hollow when the verdict flips
    under a sensitivity setting, the ``fragile`` column) with its interval; the green region
    is what the claim allows; an unbounded end is an arrow; the right margin names the cell
    the effect is taken from (``effect_cell``) and the repeats behind the interval. Each
    panel is titled with the claim's words (:func:`panel_title`) and its axis with the
    claim's quantity (``Claim.effect``). Rows decided without an effect interval (exact
    computations, tests) and rows not testable here are listed under the figure, apart.
    Returns the rows drawn, in drawing order.

    Raises
    ------
    ValueError
        A claim with rows to draw has no ``effect`` text.
    """
    import matplotlib.pyplot as plt

    from ..plotting import paper_style, save_figure

    paper_style()
    rows = claims[claims["paper"] == paper]
    shown = _split(rows)[0]
    _check_effect_texts(shown)
    ids = list(dict.fromkeys(shown["claim_id"]))
    heights = _panel_heights(shown, ids)
    fig, axes = plt.subplots(
        len(heights),
        1,
        figsize=(7.0, sum(heights) + 0.9),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    for ax, cid in zip(axes[:, 0], ids, strict=False):
        _draw_panel(ax, shown[shown["claim_id"] == cid].reset_index(drop=True), cid)
    if not ids:
        axes[0, 0].text(0.5, 0.5, "no claim with an effect in this run", ha="center")
        axes[0, 0].set_axis_off()
    fig.legend(
        handles=_legend_handles(),
        loc="upper center",
        ncol=6,
        bbox_to_anchor=(0.5, 1.0),
        frameon=False,
    )
    fig.suptitle(
        f"{PAPERS[paper].title}: each claim's effect with its 95% interval against its margin",
        y=1.0 + 0.35 / (sum(heights) + 0.9),
    )
    notes = [f"{head}: " + "; ".join(items) for head, items in unplotted(rows)]
    if notes:
        fig.text(0.01, -0.01, "\n".join(notes), fontsize=6, va="top", wrap=True)
    fig.tight_layout(rect=(0, 0, 0.9, 1 - 0.3 / (sum(heights) + 0.9)))
    save_figure(fig, pdf_path, png_path)
    return shown.set_index("claim_id").loc[ids].reset_index() if ids else shown


def _panel_heights(shown: pd.DataFrame, ids: list[str]) -> list[float]:
    """Each claim's panel height in inches: its rows' (one line of label, or more when it
    wraps) and room for title and axis; one inch when there is no panel."""
    labels = [textwrap.fill(d, LABEL_CHARS) for d in shown["dataset"]]
    row_h = pd.Series([max(0.32, 0.13 * (t.count("\n") + 1) + 0.1) for t in labels], shown.index)
    return [float(row_h[shown["claim_id"] == c].sum()) + 0.7 for c in ids] or [1.0]


def _draw_panel(ax, sub: pd.DataFrame, cid: str) -> None:
    """One claim's panel: the region it allows, a line per row (:func:`_draw_row`), its
    axis (log when the claim's effect is a ratio) and title."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    log = bool(sub["effect_log"].iloc[0])
    lo_lim, hi_lim = _limits(sub, log)
    band_lo = max(float(sub["band_low"].iloc[0]), lo_lim)
    band_hi = min(float(sub["band_high"].iloc[0]), hi_lim)
    ax.axvspan(band_lo, band_hi, color=BAND_COLOUR, zorder=0)
    for y, r in enumerate(sub.itertuples()):
        _draw_row(ax, y, r, lo_lim, hi_lim)
    ax.set_yticks(range(len(sub)), [textwrap.fill(d, LABEL_CHARS) for d in sub["dataset"]])
    ax.set_ylim(len(sub) - 0.5, -0.5)
    if log:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(lo_lim, hi_lim)
    ax.set_xlabel(CLAIMS[cid].effect, labelpad=1)
    ax.set_title(panel_title(cid), loc="left", fontsize=7)
    ax.annotate(cid, (1.01, -0.04), xycoords="axes fraction", va="top", fontsize=5, color="#666666")


def _draw_row(ax, y: int, r, lo_lim: float, hi_lim: float) -> None:
    """One row at height ``y``: its interval (an arrow at an unbounded end), its effect
    (marker: its verdict, hollow when fragile) and the right-margin note (:func:`_margin`)."""
    colour, marker = VERDICT_STYLE[r.verdict]
    left = r.effect_low if math.isfinite(r.effect_low) else lo_lim
    right = r.effect_high if math.isfinite(r.effect_high) else hi_lim
    ax.plot([left, right], [y, y], color=colour, lw=1.4)
    for end, edge, direction in ((r.effect_low, lo_lim, "<"), (r.effect_high, hi_lim, ">")):
        if not math.isfinite(end):
            ax.plot([edge], [y], marker=direction, color=colour, ms=5)
    fragile = bool(_text(r.fragile))
    ax.plot(
        [r.effect],
        [y],
        marker=marker,
        ms=6,
        mfc="white" if fragile else colour,
        mec=colour if fragile else "white",
        mew=1.2 if fragile else 0.5,
    )
    ax.annotate(_margin(r), (1.01, y), xycoords=("axes fraction", "data"), va="center", fontsize=6)


def _legend_handles() -> list:
    """The legend: a marker per verdict, the hollow fragile marker and the allowed region."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    return [
        Line2D([], [], color=c, marker=m, lw=1.4, label=v) for v, (c, m) in VERDICT_STYLE.items()
    ] + [
        Line2D([], [], color="#555555", marker="o", mfc="white", lw=0, label="fragile (hollow)"),
        Patch(color=BAND_COLOUR, label="what the claim allows"),
    ]
