"""What every paper's claims share: the claim record, the output files, the scale label.

Each :class:`Claim` names its paper item, quotes the paper, and states the metric, the
decision rule with its tolerance and the result tables it reads. The claims of a paper live in
its package (``ensemble_repro.papers.<paper>.claim_list``, listed by
:data:`ensemble_repro.paper_loader.CLAIMS`); their evaluators apply exactly these rules, and the
verdict pages are generated from their output. Output file names are defined here and imported
by the workflow rules.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

#: Every paper's claims merged (one row per claim x data set).
CLAIMS_CSV = "results/claims.csv"
#: The verdict pages generated from CLAIMS_CSV.
VERDICT_MD = "results/paper_vs_ours.md"
VERDICT_HTML = "results/paper_vs_ours.html"
#: The verdict summary included by the report's front page (workflow/report/workflow.rst).
VERDICT_SUMMARY_RST = "results/claims_summary.rst"
#: The published paper-scale run (``make record``): the only verdicts that decide about the
#: papers; smaller scales' pages point to it.
PAPER_RECORD = "record/paper"
#: HTML renderings of result tables for the Snakemake report: results/<table>.csv ->
#: TABLE_HTML.format(table=<table>).
TABLE_HTML = "results/html/{table}.html"
#: Columns of every claims table, in order.
COLUMNS = (
    "paper",
    "claim_id",
    "item",
    "dataset",
    "paper_says",
    "ours",
    "verdict",
    "repeats_needed",
    "reason",
    "scale",
    "made_on",
    "n_repeats",
    "interval",
    "robust_to",
    "fragile",
    "rule",
    "timing",
    "effect",
    "effect_cell",
    "effect_low",
    "effect_high",
    "band_low",
    "band_high",
    "effect_log",
)
#: Scale names of the shipped config files (``config/<stem>.yaml``).
SCALES = {"config": "paper", "quick": "quick", "smoke": "smoke"}
#: The scale label of verdicts made with the paper config (``config/config.yaml``).
PAPER_SCALE = SCALES["config"]
#: Environment variable holding each paper's scale label as JSON, set when the workflow is
#: parsed (``workflow/rules/claims.smk``). The label is made from the values the verdicts rest
#: on, and any change of those reruns the claims anyway: as a param it would only add reruns.
SCALE_ENV = "ENSEMBLE_REPRO_SCALES"
#: Changed keys a custom scale label names before "and N more".
SCALE_KEYS_SHOWN = 3
_MISSING = object()


def shipped_scales(config_dir: str | Path) -> dict[str, dict]:
    """The shipped config files as a run reads them (each over ``config.yaml``), by scale name.

    Parameters
    ----------
    config_dir : str or Path
        The directory holding ``config.yaml``, ``quick.yaml`` and ``smoke.yaml``.

    Returns
    -------
    dict
        Scale name (:data:`SCALES`) -> config.
    """
    from ..config import load_config

    config_dir = Path(config_dir)
    return {
        scale: load_config(
            *([] if stem == "config" else [config_dir / f"{stem}.yaml"]),
            base=config_dir / "config.yaml",
        )
        for stem, scale in SCALES.items()
    }


def _value(config: Mapping, dotted: str):
    node = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def scale_label(config: Mapping, keys: Iterable[str], shipped: Mapping[str, Mapping]) -> str:
    """Which config made a paper's verdicts, told from the config values they rest on.

    Parameters
    ----------
    config : mapping
        The run's config.
    keys : iterable of str
        The dotted keys the verdicts rest on
        (:func:`ensemble_repro.rule_keys.verdict_keys`).
    shipped : mapping
        Scale name -> config of the shipped config files (:func:`shipped_scales`).

    Returns
    -------
    str
        The first scale whose config agrees with ``config`` on every key; else
        ``custom (<nearest>; changed: <keys>)``, the scale differing on the fewest keys and
        those keys (the first :data:`SCALE_KEYS_SHOWN`). Keys no verdict rests on (how data
        are fetched, another paper's settings) never change it.

    Examples
    --------
    >>> shipped = {"paper": {"seed": 1, "jab": {"n_trials": 20}},
    ...            "smoke": {"seed": 1, "jab": {"n_trials": 2}}}
    >>> run = {"seed": 1, "jab": {"n_trials": 2}, "data": {"timeout_seconds": 5}}
    >>> scale_label(run, ["seed", "jab.n_trials"], shipped)
    'smoke'
    >>> scale_label({**run, "seed": 7}, ["seed", "jab.n_trials"], shipped)
    'custom (smoke; changed: seed)'
    """
    keys = list(keys)
    changed = {
        scale: [k for k in keys if _value(config, k) != _value(cfg, k)]
        for scale, cfg in shipped.items()
    }
    nearest = min(changed, key=lambda s: len(changed[s]))
    diff = changed[nearest]
    if not diff:
        return nearest
    shown = ", ".join(diff[:SCALE_KEYS_SHOWN])
    more = len(diff) - SCALE_KEYS_SHOWN
    return f"custom ({nearest}; changed: {shown}{f' and {more} more' if more > 0 else ''})"


def run_scale(paper: str) -> str:
    """The scale label of ``paper``'s verdicts in the running workflow (:data:`SCALE_ENV`)."""
    return json.loads(os.environ[SCALE_ENV])[paper]


@dataclass(frozen=True)
class Claim:
    """One claim of one paper, as the pipeline checks it."""

    id: str
    paper: str
    item: str
    quote: str
    metric: str
    rule: str
    inputs: tuple[str, ...]
    timing: bool = False
    #: What the ``effect`` columns of its rows measure (the forest plot's axis).
    effect: str = ""
    #: A short title in the paper's words (the forest plot's panel title).
    title: str = ""
