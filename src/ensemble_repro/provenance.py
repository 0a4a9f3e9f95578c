"""Provenance sidecars: which config, seed, raw data and software produced a result.

Every result table ``X.csv`` gets ``X.provenance.json`` beside it.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from . import __version__
from .io import read_json, write_json


def software_versions() -> dict[str, str]:
    """Versions of Python and of the numeric stack that can change results.

    matplotlib is listed where it is installed: the experiment jobs' environment
    (envs/library.yaml) leaves it out.
    """
    from importlib.metadata import PackageNotFoundError, version

    import numba
    import numpy
    import pandas
    import scipy
    import sklearn

    out = {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "pandas": pandas.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
    }
    try:
        out["matplotlib"] = version("matplotlib")
    except PackageNotFoundError:
        pass
    out["ensemble_repro"] = __version__
    return out


def input_checksums(prepared_json: Iterable[str | os.PathLike]) -> dict[str, Any]:
    """Raw-data sha256 of the prepared data sets a result was computed from.

    ``prepared_json`` are the sidecars written by ``ensemble_repro.data.prepare``.
    """
    out: dict[str, Any] = {}
    for p in prepared_json:
        meta = read_json(p)
        out[meta["name"]] = meta.get("sources", {})
    return out


def sidecar_path(table_path: str | os.PathLike) -> Path:
    p = Path(table_path)
    return p.with_name(p.name.rsplit(".", 1)[0] + ".provenance.json")


def write_provenance(
    table_path: str | os.PathLike,
    *,
    config: Mapping[str, Any],
    seed: Any = None,
    inputs: Iterable[str | os.PathLike] = (),
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write the provenance sidecar of ``table_path`` and return its path.

    ``config`` holds the config values that affect the table (not the whole config), ``inputs``
    the prepared-data sidecars it read. Nothing time- or machine-dependent goes in, so equal
    configs give byte-identical sidecars.
    """
    meta = {
        "table": Path(table_path).name,
        "config": dict(config),
        "seed": seed,
        "raw_data_sha256": input_checksums(inputs),
        "software": software_versions(),
    }
    if extra:
        meta.update(extra)
    path = sidecar_path(table_path)
    write_json(path, meta)
    return path
