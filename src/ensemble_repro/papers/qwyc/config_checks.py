"""The QWYC config rules a JSON schema cannot express (:attr:`..paper.Paper.check_config`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...config_rules import normalised_repeats
from ...data.catalog import DATASETS
from .names import FAN_STAR, qwyc_method_names


def check(config: Mapping[str, Any]) -> list[tuple[list, str]]:
    """Nomao's feature count, the smaller ensembles and the approximation within the GBT's
    trees, then the settings (:func:`_check_qwyc_settings`)."""
    out: list[tuple[list, str]] = []
    qwyc = config["qwyc"]
    width = DATASETS["nomao"].n_features
    if "nomao" in qwyc["datasets"] and qwyc["nomao_n_features"] > width:
        msg = (
            f"config value qwyc.nomao_n_features = {qwyc['nomao_n_features']} is larger "
            f"than the {width} features of the data set nomao. Use at most {width}"
        )
        out.append((["qwyc", "nomao_n_features"], msg))
    trees = qwyc["gbt"]["n_estimators"]
    for i, size in enumerate(qwyc["smaller_ensembles"]):
        if size > trees:
            msg = (
                f"config value qwyc.smaller_ensembles.{i} = {size} is larger than the number "
                f"of trees T = qwyc.gbt.n_estimators = {trees}, so it cannot be a smaller "
                f"ensemble. Remove it or raise qwyc.gbt.n_estimators"
            )
            out.append((["qwyc", "smaller_ensembles", i], msg))
    ap = qwyc["approximation"]
    if ap["n_models"] * ap["trees_per_model"] > trees:
        msg = (
            f"config values qwyc.approximation.n_models = {ap['n_models']} and "
            f"trees_per_model = {ap['trees_per_model']} need {ap['n_models'] * ap['trees_per_model']} "
            f"trees, more than T = qwyc.gbt.n_estimators = {trees}. Lower either"
        )
        out.append((["qwyc", "approximation", "trees_per_model"], msg))
    out += _check_qwyc_settings(config)
    return out


def _rate(setting: str) -> float:
    return float(setting.removeprefix("learning_rate_"))


def _check_qwyc_settings(config: Mapping[str, Any]) -> list[tuple[list, str]]:
    """QWYC: a max_depth per data set in use, Fan* among the sweeps, sensitivity settings
    distinct (as numbers too), each a rate of qwyc.gbt.learning_rates or a switch other than
    the main setting."""
    q, out = config["qwyc"], []
    depth = q["gbt"]["max_depth"]
    missing = [d for d in q["datasets"] if d not in depth]
    if config["experiments"]["qwyc"] and missing:
        msg = (
            f"config value qwyc.gbt.max_depth = {dict(depth)!r} has no depth for "
            f"{', '.join(missing)} (in qwyc.datasets). Add it, e.g. 'max_depth: "
            "{adult: 5, nomao: 9}' (the paper's depths)"
        )
        out.append((["qwyc", "gbt", "max_depth"], msg))
    if config["experiments"]["qwyc"] and FAN_STAR not in qwyc_method_names(q):
        msg = (
            f"config value qwyc.fan.orderings = {list(q['fan']['orderings'])!r} lacks "
            "individual_mse: Fan* (Fan et al. on the individual-MSE ordering) is the baseline "
            "of the QWYC timing table and claims. Add individual_mse to qwyc.fan.orderings"
        )
        out.append((["qwyc", "fan", "orderings"], msg))
    settings = list(q["sensitivity"])
    rates = [float(r) for r in q["gbt"]["learning_rates"]]
    out += normalised_repeats(
        "qwyc.sensitivity", settings, lambda s: _rate(s) if s.startswith("learning_rate_") else s
    )
    main = {
        "fit_on_": q["fit_on"],
        "budget_rule_": q["budget_rule"],
        "fan_score_": q["fan"]["score"],
    }
    main_key = {"fit_on_": "fit_on", "budget_rule_": "budget_rule", "fan_score_": "fan.score"}
    for i, s in enumerate(settings):
        if s.startswith("learning_rate_") and _rate(s) not in rates:
            msg = (
                f"config value qwyc.sensitivity.{i} = {s!r} names the learning rate "
                f"{_rate(s):g}, which is not in qwyc.gbt.learning_rates = {rates} (only those "
                f"rates are refitted). Use one of "
                f"{', '.join(f'learning_rate_{r:g}' for r in rates)}"
            )
            out.append((["qwyc", "sensitivity", i], msg))
        for prefix, value in main.items():
            if s == f"{prefix}{value}":
                msg = (
                    f"config value qwyc.sensitivity.{i} = {s!r} is the main setting "
                    f"(qwyc.{main_key[prefix]} = {value}), so it would count as its own "
                    "confirmation. Remove it, or change the main setting"
                )
                out.append((["qwyc", "sensitivity", i], msg))
    return out
