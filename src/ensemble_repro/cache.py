"""The one per-user cache folder of the package (compiled timing kernels, machine calibrations)."""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable that names the cache folder outright.
CACHE_ENV = "ENSEMBLE_REPRO_CACHE"
#: The folder's name under the XDG cache root (the distribution's name).
CACHE_NAME = "ensemble-repro"


def cache_dir() -> Path:
    """``$ENSEMBLE_REPRO_CACHE``, else ``$XDG_CACHE_HOME/ensemble-repro``, else
    ``~/.cache/ensemble-repro``; a relative ``XDG_CACHE_HOME`` is ignored, as the XDG Base
    Directory specification says."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return root / CACHE_NAME
