"""Names of the J+aB outputs (Kim, Xu & Barber 2020, Section 5 and Appendix D.3): paper
figure and table ids, their file names and report labels, and the benchmark file of each rule.

The rules (``workflow/rules/jab.smk``) import them to build their job lists and output paths,
the experiment modules to label what they write.
"""

from __future__ import annotations

from ...logs import paper_benchmarks

#: Paper figure numbers: (grid, aggregation, metric) -> figure id.
JAB_FIGURES = {
    ("main", "mean", "coverage"): "1",
    ("main", "mean", "mean_width"): "2",
    ("main", "median", "coverage"): "S1",
    ("main", "median", "mean_width"): "S2",
    ("main", "trimmed_mean", "coverage"): "S3",
    ("main", "trimmed_mean", "mean_width"): "S4",
    ("fixed_vs_random", "mean", "coverage"): "S5",
    ("fixed_vs_random", "mean", "mean_width"): "S6",
    ("fixed_vs_random", "median", "coverage"): "S7",
    ("fixed_vs_random", "median", "mean_width"): "S8",
    ("fixed_vs_random", "trimmed_mean", "coverage"): "S9",
    ("fixed_vs_random", "trimmed_mean", "mean_width"): "S10",
}
_BY_ID = {fid: key for key, fid in JAB_FIGURES.items()}
#: Paper tables: data set -> table id (wall clock, Tables S1-S3).
JAB_TABLES = {"meps": "S1", "blog": "S2", "communities": "S3"}
#: How figures and tables name the aggregations.
AGG_LABEL = {"mean": "Mean", "median": "Median", "trimmed_mean": "Trimmed mean"}

#: The ``benchmark:`` file of each J+aB rule that declares one (its ``log:`` mirrors it):
#: ``jab_<grid>_cell`` -> results/benchmarks/jab/<grid>/<wildcards>.tsv.
BENCHMARKS = paper_benchmarks(
    "jab",
    {
        "main_cell": ("main", "{jab_data}_{jab_learner}_m{jab_m}"),
        "jplus_cell": ("jplus", "{jab_data}_{jab_learner}"),
        "fixed_vs_random_cell": ("fixed_vs_random", "{jab_data}_{jab_learner}_m{jab_m}"),
        "without_replacement_cell": ("without_replacement", "{jab_data}_{jab_learner}_m{jab_m}"),
        "collect": "",
        "figures": "",
        "tables": "",
    },
)


def jab_figure_ids(aggregations, fixed_vs_random: bool) -> list[str]:
    """Ids of the figures a J+aB run draws: the configured aggregations' figures, and the
    fixed-vs-random ones (S5-S10) only when that grid runs; in the paper's order."""
    grids = ("main", "fixed_vs_random") if fixed_vs_random else ("main",)
    return [
        fid for (grid, agg, _), fid in JAB_FIGURES.items() if grid in grids and agg in aggregations
    ]


def jab_figure_name(fid: str) -> str:
    """File stem of a J+aB figure (``figure_<id>``, written as .pdf and .png)."""
    return f"figure_{fid}"


def jab_table_name(dataset: str) -> str:
    """File stem of a J+aB wall-clock table (``table_<id>_<data set>``, .csv and .md)."""
    return f"table_{JAB_TABLES[dataset]}_{dataset}"


def jab_figure_labels(figure_id: str) -> dict[str, str]:
    """Labels of one J+aB figure's report entry: the paper figure and what it shows.

    Examples
    --------
    >>> jab_figure_labels("S7")["shows"]
    'coverage vs m/n, Median aggregation, J+aB with fixed vs random B (Appendix D.3)'
    """
    if figure_id not in _BY_ID:
        raise ValueError(f"figure_id must be one of {', '.join(_BY_ID)}; got {figure_id!r}")
    grid, agg, metric = _BY_ID[figure_id]
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
