"""The J+aB cell tables a record keeps: a later run resumes a partly-run grid from them
(:func:`ensemble_repro.record.files.restore`)."""

from __future__ import annotations

from collections.abc import Mapping

from ..paper import RecordCells

#: Cell rule -> its grid (``results/jab/cells/<grid>/``), the config section holding the m/n
#: ratios of its jobs (None: its jobs have no m/n) and that section's on/off switch.
CELL_GRIDS = {
    "jab_main_cell": ("main", "main", None),
    "jab_jplus_cell": ("jplus", None, None),
    "jab_fixed_vs_random_cell": ("fixed_vs_random", "fixed_vs_random", "enabled"),
    "jab_without_replacement_cell": ("without_replacement", "without_replacement", "enabled"),
}
_CELL = r"jab/cells/{grid}/(?P<jab_data>[^/]+)/(?P<jab_learner>[^/]+)"
_M_RATIO = r"/m(?P<jab_m>[^/]+)"


def in_config(rule: str, wildcards: Mapping[str, str], config: Mapping) -> bool:
    """Whether ``config`` runs the J+aB cell job ``rule`` with ``wildcards``.

    Examples
    --------
    >>> config = {"experiments": {"jab": True}, "jab": {"datasets": ["blog"], "learners": ["nn"],
    ...           "main": {"m_ratios": [0.6]}}}
    >>> wc = {"jab_data": "blog", "jab_learner": "nn", "jab_m": "0.6"}
    >>> in_config("jab_main_cell", wc, config), in_config("jab_main_cell", {**wc, "jab_m": "1"}, config)
    (True, False)
    """
    jab = config.get("jab", {})
    if not config.get("experiments", {}).get("jab"):
        return False
    if wildcards["jab_data"] not in jab.get("datasets", ()):
        return False
    if wildcards["jab_learner"] not in jab.get("learners", ()):
        return False
    _, grid, switch = CELL_GRIDS[rule]
    if grid is None:
        return True
    section = jab.get(grid, {})
    if switch is not None and not section.get(switch):
        return False
    return wildcards["jab_m"] in {f"{r:g}" for r in section.get("m_ratios", ())}


RECORD_CELLS = RecordCells(
    folder="jab/cells/",
    suffix=".parquet",
    rules=tuple(
        (_CELL.format(grid=folder) + ("" if grid is None else _M_RATIO), rule)
        for rule, (folder, grid, _) in CELL_GRIDS.items()
    ),
    in_config=in_config,
    data_wildcard="jab_data",
    label="J+aB cell",
)
