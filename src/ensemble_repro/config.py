"""Config validation with messages a user can act on.

``snakemake.utils.validate`` reports the first schema violation as a jsonschema dump; this
module checks the same schema first and turns every violation into one sentence that names the
key, the bad value, what is expected, and the file (or command-line option) that set it. The
cross-field rules the schema cannot express (at least one paper switched on, then each
paper's own) follow in :func:`check_semantics`. :func:`with_papers` adds the plug-in papers a
config names, with their default values and schema (:func:`schema_with_papers`).
``python -m ensemble_repro.config [OVERLAY...]`` runs the same checks.

:func:`load_config` is the one way to read a config outside the workflow: ``config/config.yaml``
with overlay files such as ``config/smoke.yaml`` merged on top, as Snakemake merges them.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml


class ConfigError(ValueError):
    """A configuration value is missing, misspelled or out of range."""


def load_schema(schema_path: str | Path) -> dict:
    with open(schema_path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def with_papers(config: dict) -> dict:
    """Register the plug-in papers the config's ``plugins`` names
    (:func:`ensemble_repro.paper_loader.use_plugins`), then put their default values in
    (:func:`with_plugin_defaults`).

    Raises
    ------
    ConfigError
        When ``plugins`` is not a list of folder names, or a plug-in cannot be used.
    """
    from .paper_loader import PaperError, use_plugins

    folders = config.get("plugins", [])
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise ConfigError(
            f"config value plugins = {folders!r} is invalid. Expected a list of folders, each "
            "holding a paper's package (e.g. 'plugins: [../my_paper]')"
        )
    try:
        use_plugins(folders)
    except PaperError as err:
        raise ConfigError(str(err)) from None
    return with_plugin_defaults(config)


def with_plugin_defaults(config: dict) -> dict:
    """``config`` with each registered plug-in's default values under its key (below the
    values the config sets) and its switch ``experiments.<key>`` (on unless set)."""
    from .paper_loader import PAPERS

    for key, paper in PAPERS.items():
        if paper.config_defaults:
            section = config.get(key, {})
            if isinstance(section, Mapping):
                config[key] = merge(load_yaml_file(paper.config_defaults), section)
            switches = config.setdefault("experiments", {})
            if isinstance(switches, dict):
                switches.setdefault(key, True)
    return config


def schema_with_papers(schema: dict) -> dict:
    """``schema`` with the section and the switch ``experiments.<key>`` of each plug-in paper
    registered (its ``config_schema`` file)."""
    import copy

    from .paper_loader import PAPERS

    out = copy.deepcopy(schema)
    for key, paper in PAPERS.items():
        if paper.config_schema:
            out["properties"][key] = load_yaml_file(paper.config_schema)
            out["required"].append(key)
            switches = out["properties"]["experiments"]
            switches["properties"][key] = {
                "type": "boolean",
                "description": f"run the experiments of {paper.title} (true/false)",
            }
            switches["required"].append(key)
    return out


#: Most nodes a config file may expand to once its aliases are followed (the shipped files
#: have a few hundred; an "alias bomb" of a few lines expands to billions).
MAX_NODES = 100_000

#: Deepest nesting of mappings and lists a config file may have (the shipped files nest 4 deep;
#: thousands of levels would exhaust Python's recursion limit).
MAX_DEPTH = 50

#: Keys that switch on or feed Snakemake's YTE templating, which runs Python code in the file.
_YTE_KEYS = ("__use_yte__", "__definitions__", "__variables__")

_LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+")


class _ConfigYAMLError(yaml.MarkedYAMLError):
    """A strict-loader refusal, located like a syntax error; ``fix`` says what to do."""

    def __init__(self, problem: str, mark, fix: str):
        super().__init__(problem=problem, problem_mark=mark)
        self.fix = fix


class _StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` without the surprises of YAML 1.1 and of repeated keys.

    A key given twice in one mapping (the last one would silently win), a key that is not
    text (``1``, ``~``, ``true``), a number written with a leading zero (``010`` is octal 8) or
    in base 60 (``1:30`` is 90), a YTE template (a ``__use_yte__`` key or a ``?`` expression,
    which Snakemake would run as Python), nesting deeper than :data:`MAX_DEPTH` and a file
    whose aliases expand to more than :data:`MAX_NODES` nodes are refused with their line and
    column.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self._sizes: dict[int, int] = {}
        self._depth = 0

    def compose_node(self, parent, index):
        if self._depth >= MAX_DEPTH:
            raise _ConfigYAMLError(
                f"the values here are nested more than {MAX_DEPTH} levels deep",
                self.peek_event().start_mark,
                "flatten the file: the config nests a few levels only",
            )
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:str":
            _refuse_template(node)
        if id(node) not in self._sizes:
            if isinstance(node, yaml.MappingNode):
                children = [n for pair in node.value for n in pair]
            elif isinstance(node, yaml.SequenceNode):
                children = node.value
            else:
                children = []
            self._sizes[id(node)] = 1 + sum(self._sizes.get(id(c), 1) for c in children)
            if self._sizes[id(node)] > MAX_NODES:
                raise _ConfigYAMLError(
                    f"the aliases (*name) here expand the file to more than {MAX_NODES} values",
                    node.start_mark,
                    "write the values out instead of nesting aliases of aliases",
                )
        return node

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, str):
                    raise _ConfigYAMLError(
                        f"the key {key_node.value or '~'} is read as {type(key).__name__} "
                        f"{key!r}, not as text (config keys are names)",
                        key_node.start_mark,
                        f"quote it ('{key_node.value}') if it is a name, or remove it",
                    )
                if key in _YTE_KEYS:
                    raise _ConfigYAMLError(
                        f"the key {key} switches on Snakemake's YTE templates, which run "
                        "Python code written in the file",
                        key_node.start_mark,
                        "remove it: a config file holds values only",
                    )
                try:
                    first = seen.get(key)
                except TypeError:  # unhashable: the base class reports it
                    continue
                if first is not None:
                    raise _ConfigYAMLError(
                        f"the key {key!r} appears twice in one mapping (first on line "
                        f"{first.line + 1}); the last one would silently win",
                        key_node.start_mark,
                        "keep one of them",
                    )
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)

    def _number(self, node, kind):
        text = self.construct_scalar(node)
        if ":" in text:
            raise _ConfigYAMLError(
                f"{text} is read by YAML 1.1 as a base-60 {kind}",
                node.start_mark,
                f"write the number itself, or quote it ('{text}') if it is text",
            )
        if kind == "integer" and _LEADING_ZERO.fullmatch(text):
            raise _ConfigYAMLError(
                f"{text} has a leading zero, which YAML 1.1 reads as an octal number",
                node.start_mark,
                f"drop the leading zero(s), or quote it ('{text}') if it is text",
            )

    def construct_yaml_int(self, node):
        self._number(node, "integer")
        return super().construct_yaml_int(node)

    def construct_yaml_float(self, node):
        self._number(node, "number")
        return super().construct_yaml_float(node)


def _refuse_template(node: yaml.ScalarNode) -> None:
    """Refuse a plain or quoted text starting with ``?``: YTE evaluates it as Python."""
    if node.value.startswith("?"):
        raise _ConfigYAMLError(
            f"{node.value!r:.60} is a YTE expression, which Snakemake would run as Python code",
            node.start_mark,
            "write the value itself (a config file holds values only)",
        )


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)
_StrictLoader.add_constructor("tag:yaml.org,2002:map", _StrictLoader.construct_yaml_map)


def _located(
    path, text: str, line: int, column: int, problem: str, fix: str, what: str = "valid YAML"
) -> ConfigError:
    """A ConfigError naming ``path``, the 0-based ``line`` / ``column``, showing the line."""
    lines = text.splitlines()
    shown = lines[line].rstrip() if 0 <= line < len(lines) else ""
    shown = "".join(c if c.isprintable() or c == "\t" else "?" for c in shown)
    return ConfigError(
        f"config file {path} is not {what}: line {line + 1}, column {column + 1}: "
        f"{problem}.\n    {shown}\n    {' ' * column}^\n{fix}."
    )


def _line_column(text, offset: int) -> tuple[int, int]:
    """0-based line and column of ``offset`` in ``text`` (str or bytes)."""
    newline = "\n" if isinstance(text, str) else b"\n"
    line = text.count(newline, 0, offset)
    return line, offset - (text.rfind(newline, 0, offset) + 1)


def _yaml_files(directory: Path) -> list[Path]:
    """The YAML files in ``directory``, sorted."""
    return sorted(p for p in directory.glob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def _missing_file(path: Path) -> str:
    """Why ``path`` is not there: where it was looked for, and a close file name if any."""
    where = "" if path.is_absolute() else f" (looked for {path.absolute()})"
    if path.parent.is_dir():
        names = [p.name for p in _yaml_files(path.parent)]
        close = difflib.get_close_matches(path.name, names, n=1)
        if close:
            return (
                f"config file {path} does not exist{where}: did you mean {path.parent / close[0]}?"
            )
        folder = path.absolute().parent
        held = f"{folder} holds {', '.join(names)}" if names else f"{folder} holds no YAML file"
        return f"config file {path} does not exist{where}: check the path ({held})"
    return (
        f"config file {path} does not exist{where}: its directory {path.parent} does not exist "
        "either; a relative path is read from the directory the command runs in"
    )


def _read_regular(path: Path) -> bytes:
    """The bytes of ``path``; :class:`ConfigError` when it is not a regular file.

    Opened without blocking and checked on the open descriptor, so a FIFO or a device is
    refused at once (a plain ``open`` of a FIFO waits for a writer forever).
    """
    import os
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb", closefd=True) as fh:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(mode):
            kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "not a regular file"
            raise ConfigError(
                f"config file {path} is {kind}: give the path of a YAML file saved on disk "
                "(a pipe or device is not read, so the run cannot hang waiting on it)"
            )
        return fh.read()


def load_yaml_file(path: str | Path) -> Any:
    """Parse a YAML (or JSON) config file strictly; every failure names the file, line and column.

    Refused besides syntax errors: a path that is not a regular file (a FIFO, a device),
    bytes that are not UTF-8, control characters, a key given twice in one mapping or that is
    not text, YTE templates, YAML 1.1 octal / base-60 numbers, nesting past :data:`MAX_DEPTH`,
    aliases expanding past :data:`MAX_NODES` values, an empty file and a top level that is not
    a mapping of keys. (Snakemake's own message for a config file it cannot parse names
    neither file nor line.)

    Parameters
    ----------
    path : str or Path
        The config file.

    Returns
    -------
    dict
        The file's mapping.
    """
    try:
        raw = _read_regular(Path(path))
    except FileNotFoundError:
        raise ConfigError(_missing_file(Path(path))) from None
    except IsADirectoryError:
        yaml_files = _yaml_files(Path(path))
        inside = f" such as {yaml_files[0]}" if yaml_files else ""
        raise ConfigError(
            f"config file {path} is a directory: give the path of one YAML file{inside} "
            f"(--configfile takes files, later ones overriding earlier ones)"
        ) from None
    except OSError as err:
        raise ConfigError(f"config file {path} cannot be read: {err.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line, column = _line_column(raw, err.start)
        shown = raw.decode("utf-8", errors="replace")
        raise _located(
            path,
            shown,
            line,
            column,
            f"byte {raw[err.start]:#04x} is not UTF-8 text",
            "Save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)",
        ) from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except _ConfigYAMLError as err:
        mark = err.problem_mark
        fix = err.fix[0].upper() + err.fix[1:]
        raise _located(
            path, text, mark.line, mark.column, err.problem, fix, what="a usable config"
        ) from None
    except yaml.reader.ReaderError as err:
        line, column = _line_column(text, err.position)
        char = chr(err.character) if isinstance(err.character, int) else str(err.character)
        raise _located(
            path,
            text,
            line,
            column,
            f"the character {char!r} (U+{ord(char):04X}) cannot appear in YAML",
            "Remove it (or write it as an escape inside a double-quoted string)",
        ) from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        context = (
            f" ({err.context} on line {err.context_mark.line + 1})"
            if (err.context and err.context_mark)
            else ""
        )
        raise _located(
            path,
            text,
            mark.line,
            mark.column,
            f"{err.problem}{context}",
            "Fix the syntax there (indent with spaces, not tabs; close every bracket and quote; "
            "put a space after each ':')",
        ) from None
    if data is None:
        raise ConfigError(
            f"config file {path} is empty (or only comments); Snakemake refuses such a file. "
            "Put at least one key in it (e.g. 'seed: 0'), or leave it out"
        )
    if not isinstance(data, dict):
        raise _located(
            path,
            text,
            0,
            0,
            f"the file holds {type(data).__name__} {data!r:.40}, not a mapping of keys",
            "A config file maps keys to values, e.g. 'seed: 0' or 'data: {retries: 5}'",
            what="a usable config",
        )
    return data


def merge(base: dict, overlay: Mapping[str, Any]) -> dict:
    """``overlay`` applied on ``base`` key by key, as Snakemake merges config files."""
    for k, v in overlay.items():
        if isinstance(v, Mapping) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


def ordered_like(config: Mapping[str, Any], template: Mapping[str, Any]) -> dict:
    """``config`` with its keys in ``template``'s order, at every level (keys ``template``
    lacks follow in their own order).

    Snakemake merges ``--configfile`` files under the Snakefile's ``configfile:`` with the
    overlays' keys first; in the base's order, a section such as ``knapsack.sa`` passed whole
    to a job's params is the same whichever file set its values.

    Examples
    --------
    >>> ordered_like({"b": 1, "a": {"y": 2, "x": 3}}, {"a": {"x": 0, "y": 0}, "b": 0})
    {'a': {'x': 3, 'y': 2}, 'b': 1}
    """
    out: dict = {}
    for k in [*(k for k in template if k in config), *(k for k in config if k not in template)]:
        v, t = config[k], template.get(k)
        out[k] = ordered_like(v, t) if isinstance(v, Mapping) and isinstance(t, Mapping) else v
    return out


#: The base config, relative to the run directory: the Snakefile's ``configfile:``. Every other
#: config file (``config/quick.yaml``, ``config/smoke.yaml``, a user's) is an overlay on it.
BASE_CONFIG = "config/config.yaml"

#: This checkout's base config, used when the run directory has none of its own.
CHECKOUT_BASE = Path(__file__).resolve().parents[2] / BASE_CONFIG


def base_config(workdir: str | Path = ".", fallback: str | Path = CHECKOUT_BASE) -> Path:
    """The base config of a run in ``workdir``, as the Snakefile picks it: the run directory's
    own ``config/config.yaml`` when it has one, else ``fallback`` (this checkout's)."""
    own = Path(workdir) / BASE_CONFIG
    return own if own.is_file() else Path(fallback)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def config_layers(
    *files: str | Path, workdir: str | Path = ".", base: str | Path | None = None
) -> list[tuple[str, dict]]:
    """(file name, mapping) of the base config and then of each overlay file, in order.

    ``base`` defaults to :func:`base_config` of ``workdir``; an overlay that is the base file
    itself is not read twice. Every file is parsed by :func:`load_yaml_file`.
    """
    base = Path(base) if base is not None else base_config(workdir)
    paths = [base] + [Path(f) for f in files if not _same_file(Path(f), base)]
    return [(str(p), load_yaml_file(p)) for p in paths]


def load_config(
    *files: str | Path, workdir: str | Path = ".", base: str | Path | None = None
) -> dict:
    """The config a run reads: ``config/config.yaml`` with each overlay file merged on top.

    The same config Snakemake builds from the Snakefile's ``configfile:`` and each
    ``--configfile`` in order (nested keys merged key by key, lists replaced whole), not yet
    checked (:func:`validate_config`) and without ``$ENSEMBLE_REPRO_MIRROR``
    (:func:`apply_env_overrides`).

    Parameters
    ----------
    *files : str or Path
        Overlay files, lowest precedence first (e.g. ``config/smoke.yaml``).
    workdir : str or Path, default "."
        The run directory: its ``config/config.yaml`` is the base when it has one, else this
        checkout's (:func:`base_config`).
    base : str or Path, optional
        Another base file.

    Returns
    -------
    dict
        The merged config.

    Examples
    --------
    >>> load_config("config/smoke.yaml")["jab"]["n_trials"]  # doctest: +SKIP
    2
    """
    config: dict = {}
    for _, data in config_layers(*files, workdir=workdir, base=base):
        merge(config, data)
    return config


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "<top level>"


def _subschema(schema: dict, path) -> dict:
    node = schema
    for p in path:
        node = expand_refs(schema, node)
        props = node.get("properties", {})
        node = props.get(p, node.get("items", {}) if isinstance(p, int) else {})
    return expand_refs(schema, node)


def expand_refs(schema: dict, node: Mapping) -> dict:
    """``node`` with the schemas its ``$ref`` and ``allOf`` name merged in (its own keys win)."""
    refs = [node["$ref"]] if "$ref" in node else []
    refs += [c["$ref"] for c in node.get("allOf", []) if "$ref" in c]
    if not refs:
        return dict(node)
    out: dict = {}
    for ref in refs:
        out.update(expand_refs(schema, _resolve(schema, ref)))
    out.update({k: v for k, v in node.items() if k not in ("$ref", "allOf")})
    return out


def _resolve(schema: dict, ref: str) -> dict:
    node: Any = schema
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


#: Hint added when a bad value came from ``--config`` (Snakemake reads nested values as text).
OVERLAY_HINT = (
    'Snakemake reads a nested --config value such as data={"retries": 5} as text, so its '
    "entries arrive as strings: put nested overrides in an overlay config file instead (a YAML "
    "file with only the keys to change, e.g. 'data: {retries: 5}', given after the base file: "
    "--configfile config/config.yaml my-overlay.yaml; see docs/configuration.md)."
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
        # the missing key's own path: no layer sets it, so the base config is blamed
        missing = error.message.split(" ")[0].strip("'")
        return [*path, missing], (
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


def _is_integer(checker, instance) -> bool:
    """JSON Schema's "integer" in the Python sense: 7 is one, 7.0 and True are not."""
    return isinstance(instance, int) and not isinstance(instance, bool)


#: Draft 2020-12 with integers that are ints: the jobs pass them to ``range`` and NumPy seeds,
#: which refuse 7.0 (the standard checker accepts any float with no fractional part).
_StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


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
    schema = schema_with_papers(load_schema(schema_path))
    validator = _StrictValidator(schema)
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
        where = source_of(path, layers, layers[0][0] if layers else source)
        from_cli |= where == COMMAND_LINE
        preposition = "on" if where == COMMAND_LINE else "in"
        lines.append(f"{text.rstrip('.')}. Fix it {preposition} {where}.")
    msg = "Invalid configuration:\n  - " + "\n  - ".join(lines)
    return msg + ("\n" + OVERLAY_HINT if from_cli else "")


def check_semantics(config: Mapping[str, Any]) -> list[tuple[list, str]]:
    """Cross-field rules a JSON schema cannot express, as (path, sentence) pairs: at least one
    paper switched on, then each paper's own rules (:attr:`.papers.paper.Paper.check_config`),
    in report order."""
    from .paper_loader import PAPERS

    out: list[tuple[list, str]] = []
    if not any(config["experiments"].values()):
        *others, last = [f"experiments.{key}" for key in PAPERS]
        switches = f"{', '.join(others)} and {last} are all" if others else f"{last} is"
        example = ", ".join(f"{key}: {str(i == 0).lower()}" for i, key in enumerate(PAPERS))
        msg = (
            f"nothing is switched on: {switches} false, so the run would build nothing. Set "
            f"at least one of them to true (e.g. 'experiments: {{{example}}}')"
        )
        out.append((["experiments"], msg))
    for paper in PAPERS.values():
        out += paper.check_config(config)
    return out


#: Environment variable that overrides ``data.mirror`` (the Makefile's ``MIRROR=`` sets it).
MIRROR_ENV = "ENSEMBLE_REPRO_MIRROR"
#: Environment variable naming the container image (a .sif file or a docker:// URI) that
#: `snakemake --sdm apptainer` runs every rule in (the Dockerfile builds it).
CONTAINER_ENV = "ENSEMBLE_REPRO_CONTAINER"


def apply_env_overrides(config: dict) -> dict:
    """Set ``data.mirror`` from ``$ENSEMBLE_REPRO_MIRROR`` when that is set and non-empty."""
    import os

    if os.environ.get(MIRROR_ENV):
        config.setdefault("data", {})["mirror"] = os.environ[MIRROR_ENV]
    return config


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ensemble_repro.config [OVERLAY...]``: check a config as the workflow would.

    ``config/config.yaml`` with the overlay files merged on top in order (:func:`load_config`,
    as Snakemake's ``configfile:`` plus ``--configfile`` do), checked against the schema and
    the cross-field rules; the exit status is 1 with the messages on stderr when anything is
    wrong.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(
        prog="python -m ensemble_repro.config", description=main.__doc__
    )
    parser.add_argument("files", nargs="*", type=Path, help="overlay files, in order")
    parser.add_argument("--schema", type=Path, default=Path("workflow/schemas/config.schema.yaml"))
    args = parser.parse_args(argv)
    try:
        layers = config_layers(*args.files)
        config: dict = {}
        for _, data in layers:
            merge(config, data)
        with_papers(config)
        validate_config(
            apply_env_overrides(config), args.schema, source=layers[-1][0], layers=layers
        )
    except (ConfigError, OSError) as err:
        print(err, file=sys.stderr)
        return 1
    print(f"config OK: {' + '.join(source for source, _ in layers)} (schema and cross-field rules)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
