"""Hajdu, Terdik, Tiba & Tomán (2020), *A stochastic approach to handle knapsack problems in
the creation of ensembles*.

The pipeline's slice of the paper: the worked examples and selection runs of Sections II-VI
(:mod:`.cells`), the classifier pools' measured training times (:mod:`.measured_costs`), the
figures and the paper-vs-ours table (:mod:`.plots`), the claims checked (:mod:`.claim_list`,
:mod:`.margins`) and their evaluator (:mod:`.claims`), the cost of its jobs (:mod:`.cost`),
pool and output names (:mod:`.names`) and the config keys of its rules (:mod:`.keys`). The
method itself is the library's :mod:`ensemble_repro.knapsack`.
"""

from ..paper import Paper
from . import claim_list, config_checks, cost_units, keys, names

PAPER = Paper.declare(
    "knapsack",
    "Stochastic knapsack ensemble selection (Hajdu et al. 2020)",
    "Knapsack ensembles",
    keys=keys,
    names=names,
    claim_list=claim_list,
    order=3,
    package=__name__,
    check_config=config_checks.check,
    cost_units=cost_units,
)
