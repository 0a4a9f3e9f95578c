"""The papers of a run: the built-in ones and the plug-ins its config names.

This is the one shared module that imports the papers' packages; everything else reads
:data:`PAPERS` and :data:`CLAIMS` from here. A paper is a package whose ``PAPER`` is a
:class:`~ensemble_repro.papers.paper.Paper`:

- the built-in papers are the subpackages of :mod:`ensemble_repro.papers` that define one;
- a plug-in is a folder named in the config's ``plugins`` list, holding such a package
  (``__init__.py`` defining ``PAPER``), its rules file and its config defaults and schema
  (``docs/development.md``, "Adding a paper"). Its code runs in the workflow, so its folder and
  every file in it must belong to the current user or root and be writable by nobody else.

Both are listed in report order (:attr:`Paper.order`, then key). :func:`use_plugins` adds the
plug-ins and names them in the environment variable :data:`PLUGINS_ENV`, from which this
module loads them again in the processes the workflow starts (its jobs, the estimate's parse).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pkgutil
import stat
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from importlib import import_module
from pathlib import Path

from .papers.paper import Paper, RecordCells, union

__all__ = [
    "CLAIMS",
    "PAPERS",
    "Paper",
    "PaperError",
    "RecordCells",
    "check_owner",
    "follow",
    "load_plugin",
    "union",
    "use_plugins",
]

#: Environment variable naming the plug-in folders in use (a JSON list of absolute paths), set
#: by :func:`use_plugins` for the processes the workflow starts.
PLUGINS_ENV = "ENSEMBLE_REPRO_PLUGINS"
#: The package the plug-ins are imported under: a plug-in folder ``my_paper`` is ``<this>.my_paper``.
PLUGIN_NAMESPACE = "ensemble_repro_plugins"
#: The package of the built-in papers.
BUILTIN_PACKAGE = "ensemble_repro.papers"

#: Key -> paper, in report order: the built-in papers and the plug-ins in use.
PAPERS: dict[str, Paper] = {}
#: Claim id -> claim, every paper's, in report order.
CLAIMS: dict = {}
#: Functions rebuilding tables derived from :data:`PAPERS` (:func:`follow`).
_FOLLOWERS: list[Callable[[], None]] = []


class PaperError(ValueError):
    """A plug-in paper cannot be used: missing, unsafe to import, or not a paper."""


def builtin_papers() -> list[Paper]:
    """The papers of :data:`BUILTIN_PACKAGE`'s subpackages that define ``PAPER``."""
    package = import_module(BUILTIN_PACKAGE)
    found = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.ispkg:
            paper = getattr(import_module(f"{BUILTIN_PACKAGE}.{info.name}"), "PAPER", None)
            if isinstance(paper, Paper):
                found.append(paper)
    return found


def check_owner(path: Path) -> None:
    """Refuse ``path`` unless it belongs to the current user or root and only its owner may
    write it (code loaded from a place others can change would run as the current user). A
    symbolic link is checked, and so is the file it points to."""
    link, target = path.lstat(), path.stat()
    uid = os.getuid()
    for owner in (link.st_uid, target.st_uid):
        if owner not in (uid, 0):
            raise PaperError(
                f"plug-in path {path} belongs to user id {owner}, not to you (user id {uid}) "
                f"or root, so its code is not run. Copy the plug-in into a folder of your own, "
                f"or `chown -R {uid} {path}` if it is yours"
            )
    if target.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise PaperError(
            f"plug-in path {path} (mode {stat.filemode(target.st_mode)}) can be written by "
            f"other users than its owner, so its code is not run. Remove their write access: "
            f"`chmod -R go-w {path}`"
        )


def _checked_tree(folder: Path) -> None:
    check_owner(folder)
    for sub in sorted(folder.rglob("*")):
        check_owner(sub)


def _namespace() -> types.ModuleType:
    module = sys.modules.get(PLUGIN_NAMESPACE)
    if module is None:
        module = types.ModuleType(PLUGIN_NAMESPACE, "The plug-in papers in use (paper_loader).")
        module.__path__ = []
        sys.modules[PLUGIN_NAMESPACE] = module
    return module


def _import_plugin(folder: Path) -> types.ModuleType:
    name = f"{PLUGIN_NAMESPACE}.{folder.name}"
    init = folder / "__init__.py"
    loaded = sys.modules.get(name)
    if loaded is not None:
        if Path(loaded.__file__ or "") == init:
            return loaded
        raise PaperError(
            f"plug-in folders {Path(loaded.__file__ or '').parent} and {folder} have the same "
            f"name {folder.name!r}, under which both would be imported. Rename one of them"
        )
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[str(folder)]
    )
    module = importlib.util.module_from_spec(spec)
    setattr(_namespace(), folder.name, module)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_plugin(folder: str | os.PathLike) -> Paper:
    """The paper declared by the plug-in folder ``folder``, its files as absolute paths.

    Parameters
    ----------
    folder : str or path-like
        A folder holding a package (``__init__.py`` defining ``PAPER``, a :class:`Paper`
        declared with the names of its files in the folder: ``rules``, ``config_defaults``,
        ``config_schema``, and ``docs``); relative to the working directory.

    Returns
    -------
    Paper
        The paper, with ``folder`` set and its files' paths absolute.

    Raises
    ------
    PaperError
        When the folder is missing, is not a package, belongs to another user or can be
        written by others (:func:`check_owner`, for it and every file in it), defines no
        ``PAPER``, or lacks a file its ``PAPER`` names.
    """
    path = Path(folder).absolute()
    if not path.is_dir():
        raise PaperError(
            f"plug-in folder {folder} (config key plugins) does not exist (looked for {path}). "
            "Give the path of the folder holding the paper's package, relative to the "
            "directory the run starts in"
        )
    if not path.name.isidentifier():
        raise PaperError(
            f"plug-in folder {path} is named {path.name!r}, not a Python name, so it cannot be "
            "imported. Rename it (letters, digits and _, e.g. my_paper)"
        )
    if not (path / "__init__.py").is_file():
        raise PaperError(
            f"plug-in folder {path} holds no __init__.py: a plug-in is a package whose "
            "__init__.py defines PAPER (a Paper; see docs/development.md, Adding a paper)"
        )
    _checked_tree(path)
    paper = getattr(_import_plugin(path), "PAPER", None)
    if not isinstance(paper, Paper):
        raise PaperError(
            f"plug-in {path / '__init__.py'} defines no PAPER (found {type(paper).__name__}): "
            "declare one with Paper.declare(...) (see docs/development.md, Adding a paper)"
        )
    files = {
        f: str(path / getattr(paper, f))
        for f in ("rules", "docs", "config_defaults", "config_schema")
    }
    missing = [f"{f} = {Path(p).name}" for f, p in files.items() if not Path(p).is_file()]
    if missing:
        raise PaperError(
            f"plug-in {path} names files it does not hold ({', '.join(missing)}): a plug-in "
            "keeps its rules file, its docs page and its config defaults and schema in its "
            "folder"
        )
    return replace(paper, folder=str(path), **files)


def _register(papers: Iterable[Paper]) -> None:
    """Make :data:`PAPERS` and :data:`CLAIMS` these papers', in report order."""
    by_key: dict[str, Paper] = {}
    for paper in papers:
        other = by_key.get(paper.key)
        if other is not None:
            raise PaperError(
                f"two papers have the key {paper.key!r}: {_where(other)} and {_where(paper)}. "
                "Give the plug-in another key (its config section, switch and results folder)"
            )
        by_key[paper.key] = paper
    ordered = sorted(by_key.values(), key=lambda p: (p.order, p.key))
    claims: dict = {}
    for paper in ordered:
        for claim in paper.claims:
            if claim.id in claims:
                raise PaperError(
                    f"the claim id {claim.id!r} is declared by both {claims[claim.id].paper} "
                    f"and {paper.key}. Claim ids are unique across papers: rename one"
                )
            claims[claim.id] = claim
    PAPERS.clear()
    PAPERS.update((p.key, p) for p in ordered)
    CLAIMS.clear()
    CLAIMS.update(claims)
    for refresh in _FOLLOWERS:
        refresh()


def follow(refresh: Callable[[], None]) -> None:
    """Call ``refresh`` now and whenever the papers in use change (:func:`use_plugins`).

    A module keeping a table derived from :data:`PAPERS` (a rule -> its keys, say) builds it
    in ``refresh``, so that it holds the plug-ins added after the module was imported.
    """
    _FOLLOWERS.append(refresh)
    refresh()


def _where(paper: Paper) -> str:
    return f"the plug-in {paper.folder}" if paper.folder else f"the package {paper.package}"


def use_plugins(folders: Sequence[str | os.PathLike]) -> dict[str, Paper]:
    """Register the built-in papers and the plug-ins in ``folders`` (the config's ``plugins``).

    The folders (made absolute) are also put in :data:`PLUGINS_ENV`, so that the processes
    started from this one load the same papers when they import this module.

    Returns
    -------
    dict
        :data:`PAPERS`.

    Raises
    ------
    PaperError
        As :func:`load_plugin`, and when two papers share a key or a claim id.
    """
    paths = [str(Path(f).absolute()) for f in folders]
    _register([*builtin_papers(), *(load_plugin(p) for p in paths)])
    if paths:
        os.environ[PLUGINS_ENV] = json.dumps(paths)
    else:
        os.environ.pop(PLUGINS_ENV, None)
    return PAPERS


def _from_environment() -> list[str]:
    text = os.environ.get(PLUGINS_ENV, "")
    try:
        folders = json.loads(text) if text else []
    except json.JSONDecodeError:
        folders = None
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise PaperError(
            f"the environment variable {PLUGINS_ENV} = {text!r} is not a JSON list of folders. "
            f"Unset it (the workflow sets it from the config key plugins)"
        )
    return folders


_register([*builtin_papers(), *(load_plugin(p) for p in _from_environment())])
