"""Report labels naming the paper figure each report entry regenerates: each figure of the
Snakemake report says which figure it is and what it shows."""

from __future__ import annotations

from ..experiments.jab_report import AGG_LABEL
from ..experiments.names import JAB_FIGURES

_JAB_BY_ID = {fid: key for key, fid in JAB_FIGURES.items()}


def jab_figure_labels(figure_id: str) -> dict[str, str]:
    """Labels of one J+aB figure's report entry: the paper figure and what it shows.

    Examples
    --------
    >>> jab_figure_labels("S7")["shows"]
    'coverage vs m/n, Median aggregation, J+aB with fixed vs random B (Appendix D.3)'
    """
    if figure_id not in _JAB_BY_ID:
        raise ValueError(f"figure_id must be one of {', '.join(_JAB_BY_ID)}; got {figure_id!r}")
    grid, agg, metric = _JAB_BY_ID[figure_id]
    what = "coverage" if metric == "coverage" else "interval width"
    methods = (
        "J+non-ensemble, J+ensemble, J+aB"
        if grid == "main"
        else "J+aB with fixed vs random B (Appendix D.3)"
    )
    return {
        "figure": f"Figure {figure_id}",
        "shows": f"{what} vs m/n, {AGG_LABEL[agg]} aggregation, {methods}",
    }


def jab_figure_caption(figure_id: str) -> str:
    """The first sentence of a J+aB figure's report caption: which paper figure it is and what
    it shows (``workflow/report/jab_figures.rst`` adds the grid and the run's sizes).

    Examples
    --------
    >>> jab_figure_caption("S4")[:60]
    'Figure S4 of Kim, Xu & Barber (2020): interval width vs m/n,'
    """
    labels = jab_figure_labels(figure_id)
    return f"{labels['figure']} of Kim, Xu & Barber (2020): {labels['shows']}."
