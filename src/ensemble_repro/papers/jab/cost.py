"""CPU time of the J+aB jobs (``workflow/rules/jab.smk``), in measured unit costs.

A cell runs all ``n_trials`` trials of one grid, data set, learner and m/n (Kim, Xu & Barber
2020, Section 5 and Appendix D.3). Per trial, the models it fits and the rows they predict:

- main grid, and its sampling setting without replacement: J+aB's E[B] fits of size m,
  predicting the n training and n_test test rows, B drawn as the cell draws it (B-tilde
  matched per leave-one-out set, :func:`~ensemble_repro.conformal.core.paper_n_resamples`;
  success probability :func:`~ensemble_repro.conformal.core.binomial_probability`); then
  J+ensemble's n x B fits of size m, each predicting n_test + 1 rows;
- J+non-ensemble: n fits of size n - 1, each predicting n_test + 1 rows;
- fixed vs random B: B fits, then E[B] matched in fitted models, each predicting n + n_test
  rows (:func:`trial_models`).

m is :func:`.jab.resample_size`, n_test :func:`.jab.n_test_rows`, n and B come from the grid
the cell reads (:func:`.jab.kind_grid`). Seconds per fit are interpolated log-log in m between
the measured sizes (constant beyond them); a prediction costs rows x models x seconds per
model-row. The out-of-bag aggregation and the interval arithmetic are left out (compiled
kernels, under 5% of a cell once models are non-trivial). A cell starts with ``jab_start``
(kernels loaded, fit workers started); MEPS, never measured, is priced as Blog
(:data:`.cost_units.STAND_INS`); a data set with neither unit costs nor a stand-in stops the
estimate (:func:`.cost_units.needed_unit_costs`). Collectors,
figures, tables and the claims are light jobs.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...conformal.core import binomial_probability, paper_n_resamples
from ...cost.basic import light
from ...cost.dag import Job
from ...cost.units import UnitCosts
from .cells import (
    JAB,
    JAB_FIXED,
    JAB_RANDOM,
    JPLUS,
    JPLUS_ENSEMBLE,
    RULE_KINDS,
    kind_grid,
    n_test_rows,
    resample_size,
)
from .cost_units import measured_as
from .names import jab_figure_ids


def expected_models(n: int, m: int, target: int, matched: str, replace: bool = True) -> float:
    """E[B] of a J+aB ensemble: the mean of the cell's Binomial draw of B.

    Examples
    --------
    >>> round(expected_models(4, 2, 3, "loo"), 2)  # floor(3 / (0.64 * 0.5625)) * 0.64
    5.12
    """
    p = binomial_probability(n, m, replace)
    return paper_n_resamples(target, n, m, matched, replace) * p


def trial_models(
    kind: str, jab: Mapping, m_ratio: float | None, n_total: int
) -> list[tuple[str, float, int, int]]:
    """What one trial of a cell fits and predicts, per method (the ``method`` of its rows).

    Parameters
    ----------
    kind : str
        ``main``, ``jplus``, ``fixed_vs_random`` or ``without_replacement``
        (:data:`.jab.RULE_KINDS`).
    jab : mapping
        The config's ``jab`` section.
    m_ratio : float or None
        m/n (None for J+non-ensemble).
    n_total : int
        Rows of the data set.

    Returns
    -------
    list of (method, models, fit size, rows each model predicts)
        ``models`` is the expected count where the cell draws it.
    """
    grid = kind_grid(kind, jab)
    n, B = grid["n"], grid["n_resamples"]
    n_test = n_test_rows(n_total, n, jab["max_test_points"])
    if kind == "jplus":
        return [(JPLUS, n, n - 1, n_test + 1)]
    m = resample_size(n, m_ratio)
    if kind == "fixed_vs_random":
        return [
            (JAB_FIXED, B, m, n + n_test),
            (JAB_RANDOM, expected_models(n, m, B, "fits"), m, n + n_test),
        ]
    return [
        (JAB, expected_models(n, m, B, "loo", replace=kind == "main"), m, n + n_test),
        (JPLUS_ENSEMBLE, n * B, m, n_test + 1),
    ]


def cell_seconds(
    units: UnitCosts, kind: str, dataset: str, learner: str, jab: Mapping, m_ratio: float | None
) -> float:
    """CPU seconds of the work of one cell (all trials, :func:`trial_models`), without its
    start."""
    measured = measured_as(dataset)
    key = f"{measured}/{learner}"
    rows = units.get("rows", measured)
    predict = units.get("jab_predict", key)
    trial = sum(
        models * (units.at("jab_fit", key, size) + predicted * predict)
        for _, models, size, predicted in trial_models(kind, jab, m_ratio, round(rows))
    )
    return jab["n_trials"] * trial


def cell(job: Job, config: Mapping, units: UnitCosts) -> float:
    """One J+aB cell (any grid): its start and :func:`cell_seconds`."""
    wc = job.wildcards
    m_ratio = float(wc["jab_m"]) if "jab_m" in wc else None
    work = cell_seconds(
        units, RULE_KINDS[job.rule], wc["jab_data"], wc["jab_learner"], config["jab"], m_ratio
    )
    return units.get("jab_start") + work


def figures(job: Job, config: Mapping, units: UnitCosts) -> float:
    """The figures job: a ``light_job`` (a start-up and a plot) per figure it draws."""
    jab = config["jab"]
    n = len(jab_figure_ids(jab["aggregations"], jab["fixed_vs_random"]["enabled"]))
    return n * units.get("light_job")


#: Unit cost of the start of each threaded rule's jobs: one process, before the trials spread
#: over its threads.
SERIAL = dict.fromkeys(RULE_KINDS, "jab_start")
#: Cost function of each J+aB rule.
COSTS = {
    **dict.fromkeys(RULE_KINDS, cell),
    **dict.fromkeys(("jab_collect", "jab_tables", "jab_claims"), light),
    "jab_figures": figures,
}
