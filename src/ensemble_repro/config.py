"""Config validation with messages a user can act on.

``snakemake.utils.validate`` reports the first schema violation as a jsonschema dump; this
module checks the same schema first and turns every violation into one sentence that names the
key, the bad value, what is expected, and the file to fix.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Mapping

import jsonschema
import yaml


class ConfigError(ValueError):
    """A configuration value is missing, misspelled or out of range."""


def load_schema(schema_path: str | Path) -> dict:
    with open(schema_path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<top level>"


def _subschema(schema: dict, path) -> dict:
    node = schema
    for p in path:
        if "$ref" in node:
            node = _resolve(schema, node["$ref"])
        for combo in node.get("allOf", []):
            if "$ref" in combo:
                node = {**_resolve(schema, combo["$ref"]), **{k: v for k, v in node.items() if k != "allOf"}}
        props = node.get("properties", {})
        node = props.get(p, node.get("items", {}) if isinstance(p, int) else {})
    return node


def _resolve(schema: dict, ref: str) -> dict:
    node: Any = schema
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def explain(error: jsonschema.ValidationError, schema: dict, source: str) -> str:
    """One readable sentence for one schema violation."""
    where = _key(error.absolute_path)
    if error.validator == "additionalProperties":
        parent = _subschema(schema, error.absolute_path)
        allowed = sorted(parent.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        prefix = f"{where}." if error.absolute_path else ""
        hints = []
        for e in extra:
            close = difflib.get_close_matches(e, allowed, n=1)
            hints.append(f"'{prefix}{e}'" + (f" (did you mean '{prefix}{close[0]}'?)" if close else ""))
        return (f"unknown config key {', '.join(hints)} in {source}. "
                f"Allowed keys here: {', '.join(allowed)}. Fix the spelling or remove the key.")
    if error.validator == "required":
        return f"config key {error.message.split(' ')[0]} is missing under {where} in {source}; add it (see config/config.yaml for the default)."
    path = list(error.absolute_path)
    desc = _subschema(schema, path).get("description")
    if not desc and path and isinstance(path[-1], int):  # an item of a described list
        desc = _subschema(schema, path[:-1]).get("description")
    if error.validator == "enum" and not desc:
        desc = "one of " + ", ".join(map(str, error.validator_value))
    expected = f" Expected {desc}." if desc else ""
    return (f"config value {where} = {error.instance!r} is invalid ({error.message}).{expected} "
            f"Fix it in {source}.")


def validate_config(config: Mapping[str, Any], schema_path: str | Path,
                    source: str = "the config file") -> None:
    """Raise :class:`ConfigError` listing every violation of the schema, one per line."""
    schema = load_schema(schema_path)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(dict(config)), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = [explain(e, schema, source) for e in errors]
        raise ConfigError("Invalid configuration:\n  - " + "\n  - ".join(lines))
    _check_semantics(config, source)


def _check_semantics(config: Mapping[str, Any], source: str) -> None:
    """Cross-field rules a JSON schema cannot express."""
    jab = config.get("jab", {})
    if jab and jab["timing_m_ratio"] not in jab["main"]["m_ratios"]:
        raise ConfigError(
            f"Invalid configuration:\n  - config value jab.timing_m_ratio = {jab['timing_m_ratio']!r} "
            f"is not one of jab.main.m_ratios {jab['main']['m_ratios']}; the wall-clock tables are "
            f"read off the main grid. Fix it in {source}.")


#: Environment variable that overrides ``data.mirror`` (the Makefile's ``MIRROR=`` sets it).
MIRROR_ENV = "ENSEMBLE_REPRO_MIRROR"


def apply_env_overrides(config: dict) -> dict:
    """Set ``data.mirror`` from ``$ENSEMBLE_REPRO_MIRROR`` when that is set and non-empty."""
    import os

    if os.environ.get(MIRROR_ENV):
        config.setdefault("data", {})["mirror"] = os.environ[MIRROR_ENV]
    return config
