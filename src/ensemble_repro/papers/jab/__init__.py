"""Kim, Xu & Barber (2020), *Predictive inference is free with the jackknife+-after-bootstrap*.

The pipeline's slice of the paper: the experiment cells of Section 5 and Appendix D.3
(:mod:`.cells`), Figures 1, 2, S1-S10 and Tables S1-S3 (:mod:`.report`), the claims checked
(:mod:`.claim_list`, :mod:`.margins`) and their evaluator (:mod:`.claims`), the cost of its jobs
(:mod:`.cost`), output names (:mod:`.names`) and the config keys of its rules (:mod:`.keys`).
The method itself is the library's :mod:`ensemble_repro.conformal`.
"""

from ..paper import Paper
from . import claim_list, config_checks, cost_units, keys, names, record_cells

PAPER = Paper.declare(
    "jab",
    "Jackknife+-after-bootstrap (Kim, Xu & Barber 2020)",
    "Jackknife+-after-bootstrap",
    keys=keys,
    names=names,
    claim_list=claim_list,
    order=1,
    package=__name__,
    check_config=config_checks.check,
    cost_units=cost_units,
    cells=record_cells,
)
