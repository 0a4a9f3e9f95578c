"""Config validation with messages a user can act on.

``snakemake.utils.validate`` reports the first schema violation as a jsonschema dump; this
module checks the same schema first and turns every violation into one sentence that names the
key, the bad value, what is expected, and the file (or command-line option) that set it. The
cross-field rules the schema cannot express (sizes against the data sets of
:mod:`ensemble_repro.data.registry`, seeds, at least one experiment switched on) follow in
:func:`check_semantics`. ``python -m ensemble_repro.config FILE...`` runs the same checks.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .data.registry import DATASETS


class ConfigError(ValueError):
    """A configuration value is missing, misspelled or out of range."""


def load_schema(schema_path: str | Path) -> dict:
    with open(schema_path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def load_yaml_file(path: str | Path) -> Any:
    """Parse a YAML config file; a syntax error names the file, the line and the column.

    (Snakemake's own message for a config file it cannot parse names neither.)
    """
    try:
        with open(path, encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        text = Path(path).read_text(encoding="utf-8").splitlines()
        line = text[mark.line].rstrip() if mark.line < len(text) else ""
        context = (
            f" ({err.context} on line {err.context_mark.line + 1})"
            if (err.context and err.context_mark)
            else ""
        )
        raise ConfigError(
            f"config file {path} is not valid YAML: line {mark.line + 1}, column "
            f"{mark.column + 1}: {err.problem}{context}.\n    {line}\n    {' ' * mark.column}^\n"
            f"Fix the syntax there (indent with spaces, not tabs; close every bracket and quote; "
            f"put a space after each ':')."
        ) from None


def merge(base: dict, overlay: Mapping[str, Any]) -> dict:
    """``overlay`` applied on ``base`` key by key, as Snakemake merges config files."""
    for k, v in overlay.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<top level>"


def _subschema(schema: dict, path) -> dict:
    node = schema
    for p in path:
        if "$ref" in node:
            node = _resolve(schema, node["$ref"])
        for combo in node.get("allOf", []):
            if "$ref" in combo:
                rest = {k: v for k, v in node.items() if k != "allOf"}
                node = {**_resolve(schema, combo["$ref"]), **rest}
        props = node.get("properties", {})
        node = props.get(p, node.get("items", {}) if isinstance(p, int) else {})
    return node


def _resolve(schema: dict, ref: str) -> dict:
    node: Any = schema
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


#: Largest seed NumPy's ``RandomState`` and scikit-learn's ``random_state`` accept.
MAX_SEED = 2**32 - 1

#: Hint added when a bad value came from ``--config`` (Snakemake reads nested values as text).
OVERLAY_HINT = (
    'Snakemake reads a nested --config value such as jab={"n_trials": 3} as text, so its '
    "entries arrive as strings: put nested overrides in an overlay config file instead (a YAML "
    "file with only the keys to change, e.g. 'jab: {n_trials: 3}', given after the base file: "
    "--configfile config/config.yaml my-overlay.yaml; see README.md, Configuration)."
)

#: Name of the layer holding ``snakemake --config`` values.
COMMAND_LINE = "the command line (--config)"

#: Where config values come from, lowest precedence first: (name, the mapping that source set).
Layers = Sequence[tuple[str, Mapping[str, Any]]]


def _has_path(node: Any, path) -> bool:
    for p in path:
        if isinstance(node, Mapping) and p in node:
            node = node[p]
        elif isinstance(node, list) and isinstance(p, int) and 0 <= p < len(node):
            node = node[p]
        else:
            return False
    return True


def source_of(path, layers: Layers, default: str) -> str:
    """The name of the last (highest-precedence) layer that sets the value at ``path``."""
    for name, data in reversed(layers):
        if _has_path(data, path):
            return name
    return default


def _repeated(items: list) -> str:
    seen: dict[Any, int] = {}
    for i, v in enumerate(items):
        key = json.dumps(v, sort_keys=True)
        if key in seen:
            return f"{v!r} appears twice (entries {seen[key]} and {i})"
        seen[key] = i
    return "an entry appears twice"


def explain(error: jsonschema.ValidationError, schema: dict) -> tuple[list, str]:
    """The offending key's path and one readable sentence (without the fix) for a violation."""
    path = list(error.absolute_path)
    where = _key(path)
    if error.validator == "additionalProperties":
        parent = _subschema(schema, path)
        allowed = sorted(parent.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        prefix = f"{where}." if path else ""
        hints = []
        for e in extra:
            close = difflib.get_close_matches(e, allowed, n=1)
            hint = f" (did you mean '{prefix}{close[0]}'?)" if close else ""
            hints.append(f"'{prefix}{e}'{hint}")
        return path + extra[:1], (
            f"unknown config key {', '.join(hints)}. Allowed keys here: {', '.join(allowed)}. "
            f"Fix the spelling or remove the key"
        )
    if error.validator == "required":
        return path, (
            f"config key {error.message.split(' ')[0]} is missing under {where}; add it "
            f"(see config/config.yaml for the default)"
        )
    desc = _description(schema, path)
    if error.validator == "uniqueItems":
        return path, (
            f"config value {where} = {error.instance!r} repeats an entry: "
            f"{_repeated(error.instance)}. Each entry becomes rows of a result table, so "
            f"a repeat would duplicate them. Remove the repeated entry"
        )
    if error.validator == "enum" and not desc:
        desc = "one of " + ", ".join(map(str, error.validator_value))
    expected = f" Expected {desc}." if desc else ""
    return path, (
        f"config value {where} = {error.instance!r} is invalid ({error.message}).{expected}"
    )


def _description(schema: dict, path: list) -> str | None:
    desc = _subschema(schema, path).get("description")
    if not desc and path and isinstance(path[-1], int):  # an item of a described list
        desc = _subschema(schema, path[:-1]).get("description")
    return desc


def _non_finite(node: Any, path: list, schema: dict) -> Iterator[tuple[list, str]]:
    """``.nan`` / ``.inf`` anywhere: JSON schema bounds never reject NaN (comparisons are false)."""
    if isinstance(node, float) and not math.isfinite(node):
        desc = _description(schema, path)
        expected = f" Expected {desc}." if desc else ""
        yield path, f"config value {_key(path)} = {node!r} is not a finite number.{expected}"
    elif isinstance(node, Mapping):
        for k, v in node.items():
            yield from _non_finite(v, path + [k], schema)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _non_finite(v, path + [i], schema)


def validate_config(
    config: Mapping[str, Any],
    schema_path: str | Path,
    source: str = "the config file",
    layers: Layers = (),
) -> None:
    """Raise :class:`ConfigError` listing every violation, one per line, each with its fix.

    ``layers`` (name, mapping) says which config file or command-line option set each value,
    lowest precedence first; a violation is blamed on the last layer setting its key, else on
    ``source``. Schema violations are reported first; the cross-field checks
    (:func:`check_semantics`) run once the schema holds.
    """
    schema = load_schema(schema_path)
    validator = jsonschema.Draft202012Validator(schema)
    problems = list(_non_finite(dict(config), [], schema))
    bad = {tuple(p) for p, _ in problems}
    errors = validator.iter_errors(dict(config))
    for e in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        if tuple(e.absolute_path) not in bad:
            problems.append(explain(e, schema))
    if not problems:
        problems = check_semantics(config)
    if problems:
        raise ConfigError(_report(problems, layers, source))


def _report(problems, layers: Layers, source: str) -> str:
    lines, from_cli = [], False
    for path, text in problems:
        where = source_of(path, layers, source)
        from_cli |= where == COMMAND_LINE
        preposition = "on" if where == COMMAND_LINE else "in"
        lines.append(f"{text.rstrip('.')}. Fix it {preposition} {where}.")
    msg = "Invalid configuration:\n  - " + "\n  - ".join(lines)
    return msg + ("\n" + OVERLAY_HINT if from_cli else "")


def check_semantics(config: Mapping[str, Any]) -> list[tuple[list, str]]:
    """Cross-field rules a JSON schema cannot express, as (path, sentence) pairs."""
    out: list[tuple[list, str]] = []
    if not any(config["experiments"].values()):
        msg = (
            "nothing is switched on: experiments.jab, experiments.qwyc and "
            "experiments.knapsack are all false, so the run would build nothing. Set at "
            "least one of them to true (e.g. 'experiments: {jab: true, qwyc: false, "
            "knapsack: false}')"
        )
        out.append((["experiments"], msg))
    jab, qwyc, knap = config["jab"], config["qwyc"], config["knapsack"]
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
    select, test = knap["split"]["select"], knap["split"]["test"]
    if select + test >= 1:
        msg = (
            f"config values knapsack.split.select = {select} and knapsack.split.test = "
            f"{test} add up to {select + test:g}, leaving no rows to train the pool. Make "
            f"their sum less than 1"
        )
        out.append((["knapsack", "split"], msg))
    return out


#: Environment variable that overrides ``data.mirror`` (the Makefile's ``MIRROR=`` sets it).
MIRROR_ENV = "ENSEMBLE_REPRO_MIRROR"


def apply_env_overrides(config: dict) -> dict:
    """Set ``data.mirror`` from ``$ENSEMBLE_REPRO_MIRROR`` when that is set and non-empty."""
    import os

    if os.environ.get(MIRROR_ENV):
        config.setdefault("data", {})["mirror"] = os.environ[MIRROR_ENV]
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ensemble_repro.config FILE...``: check config files as the workflow would.

    The files are merged in order (later files override earlier ones key by key, as Snakemake's
    ``configfile:`` plus ``--configfile`` do), then checked against the schema; the exit status
    is 1 with the messages on stderr when anything is wrong.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m ensemble_repro.config", description=main.__doc__
    )
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--schema", type=Path, default=Path("workflow/schemas/config.schema.yaml"))
    args = parser.parse_args(argv)
    try:
        layers = [(str(f), load_yaml_file(f) or {}) for f in args.files]
        config: dict = {}
        for _, data in layers:
            merge(config, data)
        validate_config(
            apply_env_overrides(config), args.schema, source=str(args.files[-1]), layers=layers
        )
    except (ConfigError, OSError) as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
