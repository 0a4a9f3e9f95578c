"""Snakemake reads every config file through the project's strict loader.

Snakemake parses each ``--configfile`` (and the Snakefile's ``configfile:``) as a YTE template
before the Snakefile runs, so an overlay holding ``__use_yte__: true`` and a
``?__import__('os').system(...)`` value would run that code; nothing in the Snakefile can
intervene that early. This module replaces Snakemake's config-file reader with
:func:`ensemble_repro.config.load_yaml_file`, which parses the file as data only and refuses
templates with the file, line and fix named.

It is installed as a ``.pth`` file in the environment's ``site-packages`` (:func:`install`,
run by the Makefile's install step):
at every interpreter start-up it registers an import hook that patches
``snakemake.common.configfile`` when, and only when, Snakemake is imported. The workflow
refuses to run where the hook is missing (:func:`check_installed`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: The Snakemake module whose ``_load_configfile`` reads every config file.
TARGET = "snakemake.common.configfile"

#: Name of the ``.pth`` file that installs the hook at interpreter start-up.
PTH_NAME = "ensemble_repro_config_guard.pth"

# One line, run by ``site`` at start-up; it does nothing once the package is uninstalled.
_PTH_LINE = (
    "import importlib.util as u; u.find_spec('ensemble_repro') and "
    "__import__('ensemble_repro.snakemake_guard').snakemake_guard.register()\n"
)


def _strict_load(original):
    """A ``_load_configfile`` that reads config files with the strict loader."""

    def load(configpath_or_obj, filetype="Config"):
        if filetype != "Config":  # the schema Snakemake's validate() reads
            return original(configpath_or_obj, filetype)
        from pathlib import Path

        from snakemake_interface_common.exceptions import WorkflowError

        from .config import ConfigError, load_yaml_file

        if not isinstance(configpath_or_obj, str | Path):
            raise WorkflowError(
                f"config {configpath_or_obj!r} is not a file path: ensemble-repro reads config "
                "files by path only (with its strict loader)"
            )
        try:
            return load_yaml_file(configpath_or_obj)
        except ConfigError as err:
            raise WorkflowError(str(err)) from None

    load.ensemble_repro_guard = True
    return load


def patch(module) -> None:
    """Replace ``module._load_configfile`` (Snakemake's reader) by the strict one, once."""
    if not getattr(module._load_configfile, "ensemble_repro_guard", False):
        module._load_configfile = _strict_load(module._load_configfile)


class _Finder:
    """Import hook: patches :data:`TARGET` right after Snakemake first executes it."""

    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


class _PatchingLoader:
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        patch(module)


def register() -> None:
    """Patch Snakemake's config reader now if it is loaded, else when it is imported."""
    if TARGET in sys.modules:
        patch(sys.modules[TARGET])
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def is_active() -> bool:
    """Whether Snakemake's config reader in this process is the strict one."""
    module = sys.modules.get(TARGET)
    return module is not None and getattr(module._load_configfile, "ensemble_repro_guard", False)


def check_installed() -> str | None:
    """``None`` when config files are read strictly here, else the message saying how to fix it."""
    if is_active():
        return None
    return (
        f"Snakemake in this Python ({sys.executable}) reads config files without ensemble-repro's "
        f"strict loader, so a config file could run code (YTE templates). Install the guard: "
        f"`{sys.executable} -c 'import ensemble_repro.snakemake_guard as g; g.install()'` (the "
        "Makefile's install step does it), then run again"
    )


def install(site_packages: str | Path | None = None) -> Path:
    """Write :data:`PTH_NAME` into ``site_packages`` (default: this environment's ``purelib``)."""
    import sysconfig
    from pathlib import Path

    folder = Path(site_packages or sysconfig.get_paths()["purelib"])
    pth = folder / PTH_NAME
    pth.write_text(_PTH_LINE, encoding="utf-8")
    return pth
