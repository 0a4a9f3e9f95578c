"""Forest plots of the verdicts: each claim's effect with its interval against its margin.

One figure per paper, one panel per claim (each claim has its own units), one line per data
set or pool, as replication studies show their results. Drawn from a claims table's
``effect*`` and ``band*`` columns, so the picture and the verdict page cannot disagree.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd

from ..papers import CLAIMS, PAPERS
from .rules import INCONCLUSIVE, NOT_REPRODUCED, PARTLY, REPRODUCED

#: Marker colour and shape of each verdict.
VERDICT_STYLE = {
    REPRODUCED: ("#1b7837", "o"),
    PARTLY: ("#e08214", "D"),
    NOT_REPRODUCED: ("#c51b7d", "X"),
    INCONCLUSIVE: ("#2166ac", "s"),
}
#: Colour of the region a claim allows.
BAND_COLOUR = "#d9f0d3"


#: A paper's forest plot (``paper``: a key of :data:`ensemble_repro.papers.PAPERS`; ``ext``: pdf or png).
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


def forest_plot(
    claims: pd.DataFrame, paper: str, pdf_path: str | os.PathLike, png_path: str | os.PathLike
) -> pd.DataFrame:
    """Draw ``paper``'s forest plot from a claims table (:func:`claims.table.read_claims`).

    Each row with an effect is a point (marker: its verdict) with its interval; the green
    region is what the claim allows; an unbounded end is an arrow; the right margin gives the
    repeats behind each interval. Rows without an effect (``not testable here``) are listed
    under the figure. Returns the rows drawn, in drawing order.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    from ..plotting import paper_style, save_figure

    paper_style()
    rows = claims[claims["paper"] == paper]
    shown = rows[np.isfinite(rows["effect"].astype(float))]
    untested = rows[~np.isfinite(rows["effect"].astype(float))]
    ids = list(dict.fromkeys(shown["claim_id"]))
    heights = [max(1, int((shown["claim_id"] == c).sum())) * 0.32 + 0.55 for c in ids] or [1.0]
    fig, axes = plt.subplots(
        len(heights),
        1,
        figsize=(7.0, sum(heights) + 0.9),
        gridspec_kw={"height_ratios": heights},
        squeeze=False,
    )
    for ax, cid in zip(axes[:, 0], ids, strict=False):
        sub = shown[shown["claim_id"] == cid].reset_index(drop=True)
        log = bool(sub["effect_log"].iloc[0])
        lo_lim, hi_lim = _limits(sub, log)
        band_lo = max(float(sub["band_low"].iloc[0]), lo_lim)
        band_hi = min(float(sub["band_high"].iloc[0]), hi_lim)
        ax.axvspan(band_lo, band_hi, color=BAND_COLOUR, zorder=0)
        for y, r in sub.iterrows():
            colour, marker = VERDICT_STYLE[r["verdict"]]
            left = r["effect_low"] if math.isfinite(r["effect_low"]) else lo_lim
            right = r["effect_high"] if math.isfinite(r["effect_high"]) else hi_lim
            ax.plot([left, right], [y, y], color=colour, lw=1.4)
            for end, edge, direction in (
                (r["effect_low"], lo_lim, "<"),
                (r["effect_high"], hi_lim, ">"),
            ):
                if not math.isfinite(end):
                    ax.plot([edge], [y], marker=direction, color=colour, ms=5)
            ax.plot([r["effect"]], [y], marker=marker, color=colour, ms=6, mec="white", mew=0.5)
            ax.annotate(
                f"n = {int(r['n_repeats'])}",
                (1.01, y),
                xycoords=("axes fraction", "data"),
                va="center",
                fontsize=6,
            )
        ax.set_yticks(range(len(sub)), sub["dataset"])
        ax.set_ylim(len(sub) - 0.5, -0.5)
        if log:
            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(lo_lim, hi_lim)
        ax.set_xlabel(CLAIMS[cid].effect or "effect", labelpad=1)
        ax.set_title(f"{cid} ({CLAIMS[cid].item})", loc="left", fontsize=7)
    if not ids:
        axes[0, 0].text(0.5, 0.5, "no claim with an effect in this run", ha="center")
        axes[0, 0].set_axis_off()
    handles = [
        Line2D([], [], color=c, marker=m, lw=1.4, label=v) for v, (c, m) in VERDICT_STYLE.items()
    ] + [Patch(color=BAND_COLOUR, label="what the claim allows")]
    fig.legend(
        handles=handles, loc="upper center", ncol=5, bbox_to_anchor=(0.5, 1.0), frameon=False
    )
    fig.suptitle(
        f"{PAPERS[paper].title}: each claim's effect with its 95% interval against its margin",
        y=1.0 + 0.35 / (sum(heights) + 0.9),
    )
    if len(untested):
        fig.text(
            0.01,
            -0.01,
            "Not testable here: "
            + "; ".join(f"{r.claim_id} ({r.dataset})" for r in untested.itertuples()),
            fontsize=6,
            va="top",
            wrap=True,
        )
    fig.tight_layout(rect=(0, 0, 0.96, 1 - 0.3 / (sum(heights) + 0.9)))
    save_figure(fig, pdf_path, png_path)
    return shown.set_index("claim_id").loc[ids].reset_index() if ids else shown
