"""What the cost estimate needs of the J+aB jobs beside their cost functions (:mod:`.cost`):
the kernel family of each unit cost, the modules a cell starts with, and the unit costs the
config's data sets and learners are priced with."""

from __future__ import annotations

from collections.abc import Mapping

from ...cost.units import key_learner

#: Unit cost -> its machine-calibration family: a fit or prediction follows its learner's.
UNIT_FAMILIES = {"jab_start": "start", "jab_fit": key_learner, "jab_predict": key_learner}
#: What a cell imports before its first trial.
START_MODULES = (f"{__package__}.cells",)
#: Data set -> the data set whose unit costs stand in for it (MEPS cannot be mirrored, so it
#: was never measured: it is priced as Blog).
STAND_INS = {"meps": "blog"}


def measured_as(dataset: str) -> str:
    """The data set whose unit costs price ``dataset``'s cells (:data:`STAND_INS`)."""
    return STAND_INS.get(dataset, dataset)


def needed_unit_costs(config: Mapping) -> list[tuple[str, str, str]]:
    """``(unit, key, why)`` of each unit cost the J+aB cells of ``config`` are priced with.

    Examples
    --------
    >>> config = {"experiments": {"jab": True}, "jab": {"datasets": ["meps"], "learners": ["nn"]}}
    >>> [u[:2] for u in needed_unit_costs(config)]
    [('rows', 'blog'), ('jab_fit', 'blog/nn'), ('jab_predict', 'blog/nn')]
    """
    if not config["experiments"]["jab"]:
        return []
    out = []
    for dataset in config["jab"]["datasets"]:
        measured = measured_as(dataset)
        why = f"J+aB data set {dataset!r} of jab.datasets" + (
            f" (priced as {measured!r})" if measured != dataset else ""
        )
        out.append(("rows", measured, why))
        for learner in config["jab"]["learners"]:
            key = f"{measured}/{learner}"
            out += [("jab_fit", key, why), ("jab_predict", key, why)]
    return out
