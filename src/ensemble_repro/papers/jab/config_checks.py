"""The J+aB config rules a JSON schema cannot express (:attr:`..paper.Paper.check_config`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...config_rules import MAX_SEED
from ...data.catalog import DATASETS


def check(config: Mapping[str, Any]) -> list[tuple[list, str]]:
    """The timing ratio on the main grid, m below n without replacement, trial seeds within
    NumPy's range, each grid's n below the rows of every data set."""
    out: list[tuple[list, str]] = []
    jab = config["jab"]
    ratios = jab["main"]["m_ratios"]
    if jab["timing_m_ratio"] not in ratios:
        msg = (
            f"config value jab.timing_m_ratio = {jab['timing_m_ratio']!r} is not one of "
            f"jab.main.m_ratios {ratios}; the wall-clock tables are read off the main grid"
        )
        out.append((["jab", "timing_m_ratio"], msg))
    n_main = jab["main"]["n"]
    too_big = [r for r in jab["without_replacement"]["m_ratios"] if round(r * n_main) > n_main - 1]
    if jab["without_replacement"]["enabled"] and too_big:
        msg = (
            f"config value jab.without_replacement.m_ratios has {too_big}, giving m > "
            f"main.n - 1 = {n_main - 1}: subsampling without replacement then leaves no model "
            f"out of bag for some point; use m/n below {(n_main - 0.5) / n_main:.3g}"
        )
        out.append((["jab", "without_replacement", "m_ratios"], msg))
    last = jab["trial_seed_base"] + jab["n_trials"] - 1
    if last > MAX_SEED:
        msg = (
            f"config value jab.trial_seed_base = {jab['trial_seed_base']} gives trial seeds "
            f"up to trial_seed_base + n_trials - 1 = {last}, beyond {MAX_SEED} (2**32 - 1, "
            f"the largest seed NumPy accepts). Lower jab.trial_seed_base"
        )
        out.append((["jab", "trial_seed_base"], msg))
    grids = [("main", jab["main"])]
    if jab["fixed_vs_random"].get("enabled", True):
        grids.append(("fixed_vs_random", jab["fixed_vs_random"]))
    for grid, g in grids:
        for name in jab["datasets"]:
            rows = DATASETS[name].n_rows
            if g["n"] >= rows:
                msg = (
                    f"config value jab.{grid}.n = {g['n']} is too large for the data set "
                    f"{name}: it has {rows} rows and every trial needs at least one test row "
                    f"outside the n training rows. Use n <= {rows - 1} or remove {name} "
                    f"from jab.datasets"
                )
                out.append((["jab", grid, "n"], msg))
    return out
