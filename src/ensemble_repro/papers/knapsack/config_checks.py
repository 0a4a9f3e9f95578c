"""The knapsack config rules a JSON schema cannot express (:attr:`..paper.Paper.check_config`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...config_rules import normalised_repeats


def check(config: Mapping[str, Any]) -> list[tuple[list, str]]:
    """The settings (:func:`_check_knapsack_settings`), then the split leaving rows to train."""
    out: list[tuple[list, str]] = []
    knap = config["knapsack"]
    out += _check_knapsack_settings(config)
    select, test = knap["split"]["select"], knap["split"]["test"]
    if select + test >= 1:
        msg = (
            f"config values knapsack.split.select = {select} and knapsack.split.test = "
            f"{test} add up to {select + test:g}, leaving no rows to train the pool. Make "
            f"their sum less than 1"
        )
        out.append((["knapsack", "split"], msg))
    return out


def _main_among_sensitivity(k: dict, sensitivity: str, main: str) -> list[tuple[list, str]]:
    """A knapsack sensitivity setting equal to the main value would confirm itself."""
    return [
        (
            ["knapsack", sensitivity, i],
            f"config value knapsack.{sensitivity}.{i} = {v!r} is the main {main} "
            f"(knapsack.{main} = {k[main]}), so it would count as its own confirmation. "
            f"Remove it, or change knapsack.{main}",
        )
        for i, v in enumerate(k[sensitivity])
        if v == k[main]
    ]


def _check_knapsack_settings(config: Mapping[str, Any]) -> list[tuple[list, str]]:
    """Knapsack: stopping rules distinct as numbers, cost sensitivity other than the main
    cost, synthetic pools small enough for the stopping rule, MAXSTEP floor within its cap,
    checkpoints within the evaluations."""
    k, out = config["knapsack"], []

    def rule(spec):
        name, _, level = spec.partition("@")
        return (name, float(level)) if level else (name, None)

    out += normalised_repeats("knapsack.stop_rules", list(k["stop_rules"]), rule)
    out += _main_among_sensitivity(k, "cost_sensitivity", "cost")
    from ...knapsack.beta import MAX_ELL

    for i, size in enumerate(k["synthetic"]["sizes"]):
        if size > MAX_ELL:
            msg = (
                f"config value knapsack.synthetic.sizes.{i} = {size} is above {MAX_ELL} "
                "(ensemble_repro.knapsack.MAX_ELL), the largest ensemble whose stopping rule "
                f"the run computes (its exact moments take O(size^3) time and O(size^2) "
                f"memory). Use sizes up to {MAX_ELL}"
            )
            out.append((["knapsack", "synthetic", "sizes", i], msg))
    bounds = k["maxstep_bounds"]
    if bounds["floor"] > bounds["cap"]:
        msg = (
            f"config value knapsack.maxstep_bounds.floor = {bounds['floor']} is above "
            f"knapsack.maxstep_bounds.cap = {bounds['cap']}, so no MAXSTEP satisfies both. "
            "Lower the floor or raise the cap"
        )
        out.append((["knapsack", "maxstep_bounds"], msg))
    out += _main_among_sensitivity(k, "maxstep_sensitivity", "MAXSTEP")
    adv = k["adversarial"]
    for i, c in enumerate(adv["checkpoints"]):
        if c > adv["evaluations"]:
            msg = (
                f"config value knapsack.adversarial.checkpoints.{i} = {c} is above "
                f"knapsack.adversarial.evaluations = {adv['evaluations']}, the evaluations "
                "every search gets, so it would never be reached. Lower it or raise evaluations"
            )
            out.append((["knapsack", "adversarial", "checkpoints", i], msg))
    return out
