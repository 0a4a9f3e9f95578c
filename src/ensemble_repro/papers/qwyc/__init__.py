"""Wang, Gupta & You (2018), *Quit When You Can: efficient evaluation of ensembles with
ordering optimization*.

The pipeline's slice of the paper: the experiment cells of Section 5 (:mod:`.cells`: GBT, sweeps
of QWYC* against fixed orderings and Fan et al., sensitivity settings, refits, timing), Figure 1
and the tables (:mod:`.report`), the claims checked (:mod:`.claim_list`, :mod:`.margins`) and
their evaluator (:mod:`.claims`), the cost of its jobs (:mod:`.cost`), method and output names
(:mod:`.names`) and the config keys of its rules (:mod:`.keys`). The method itself is the
library's :mod:`ensemble_repro.qwyc`.
"""

from ..paper import Paper
from . import claim_list, config_checks, cost_units, keys, names

PAPER = Paper.declare(
    "qwyc",
    "Quit When You Can (Wang, Gupta & You 2018)",
    "Quit When You Can",
    keys=keys,
    names=names,
    claim_list=claim_list,
    order=2,
    package=__name__,
    check_config=config_checks.check,
    cost_units=cost_units,
)
