"""Measured training-time costs of the knapsack pools: an input measured once, then read.

The paper selects UCI members "with the training times considered as costs" (Hajdu et al.
2020, section V). Wall times differ from run to run, so a run that timed its own pool would
move the budgets, optima and verdicts. Instead the times are measured by a deliberate step
(``make knapsack-costs``: the workflow target ``knapsack_costs``), written per data set to
:data:`~.names.KNAPSACK_COSTS` in the repository (committed, so a fresh clone has them) and
read by every run's ``knapsack_pool`` job. A row holds one member's median training wall
time over ``pool_timing_repeats`` fits, the machine it ran on and when.

A pool is identified by :data:`POOL_KEY`: its data set, the master seed (splits and
randomised classifiers), the selection / test shares of the split and the feature columns
each member sees (``knapsack.member_features``: a count, or ``all``). A run whose pool has no
measured costs stops before any job with the command that measures them.
"""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from .names import KNAPSACK_COSTS

#: Columns that identify a pool in a costs file.
POOL_KEY = ("dataset", "seed", "split_select", "split_test", "member_features")
#: Columns of a costs file, in order.
COST_COLUMNS = POOL_KEY + (
    "member",
    "train_seconds",
    "repeats",
    "cpu",
    "cores",
    "load_1min",
    "measured_at",
)


class MissingCosts(LookupError):
    """The costs file lacks the pool a run needs (the message names the fix)."""


def pool_key(
    dataset: str, seed: int, split: Mapping[str, float], member_features: int | None = None
) -> dict:
    """The :data:`POOL_KEY` values of one pool (``member_features`` None: ``all``).

    Examples
    --------
    >>> pool_key("sonar", 7, {"select": 0.25, "test": 0.25})
    {'dataset': 'sonar', 'seed': 7, 'split_select': 0.25, 'split_test': 0.25, \
'member_features': 'all'}
    """
    return {
        "dataset": str(dataset),
        "seed": int(seed),
        "split_select": float(split["select"]),
        "split_test": float(split["test"]),
        "member_features": "all" if member_features is None else str(int(member_features)),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """The machine a measurement ran on: CPU model, cores, 1-minute load average."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return {"cpu": _cpu_model(), "cores": os.cpu_count() or 0, "load_1min": round(load, 2)}


def measured_costs(pool: pd.DataFrame, key: Mapping, repeats: int) -> pd.DataFrame:
    """The costs-file rows of one freshly timed pool.

    Parameters
    ----------
    pool : DataFrame
        :func:`~ensemble_repro.knapsack.pools.build_pool`'s pool table, built with
        ``timing_repeats=repeats`` (its ``train_seconds`` is the median of the fits).
    key : mapping
        :func:`pool_key` of the pool.
    repeats : int
        Fits timed per member.

    Returns
    -------
    DataFrame
        :data:`COST_COLUMNS`, one row per member.
    """
    out = pd.DataFrame({"member": pool["member"], "train_seconds": pool["train_seconds"]})
    for k in POOL_KEY:
        out[k] = key[k]
    out["repeats"] = int(repeats)
    for k, v in machine().items():
        out[k] = v
    out["measured_at"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return out[list(COST_COLUMNS)]


def _same_pool(df: pd.DataFrame, key: Mapping) -> pd.Series:
    return (
        (df["dataset"].astype(str) == key["dataset"])
        & (df["seed"].astype(int) == key["seed"])
        & np.isclose(df["split_select"].astype(float), key["split_select"])
        & np.isclose(df["split_test"].astype(float), key["split_test"])
        & (df["member_features"].astype(str) == key["member_features"])
    )


def costs_path(root: str | os.PathLike, dataset: str) -> Path:
    """The committed costs file of ``dataset`` under the repository ``root``."""
    return Path(root) / KNAPSACK_COSTS.format(kn_data=dataset)


def missing_message(key: Mapping, path: str | os.PathLike, config_files: Iterable[str]) -> str:
    """What to do when the pool ``key`` has no measured costs in ``path``."""
    files = [str(f) for f in config_files]
    cfg = files[-1] if files else "config/config.yaml"
    return (
        f"knapsack.cost uses measured training times, but {path} has no costs for the pool "
        f"{key['dataset']} (seed {key['seed']}, split select {key['split_select']:g} / test "
        f"{key['split_test']:g}, member_features {key['member_features']}). Measure them "
        f"once with `make knapsack-costs CONFIG={cfg}` "
        "(times each member's fit pool_timing_repeats times on this machine, then writes "
        f"{path}; commit it), or select with FLOP costs (knapsack.cost: flops)."
    )


def has_costs(path: str | os.PathLike, key: Mapping) -> bool:
    """Whether the costs file ``path`` exists and holds the pool ``key``."""
    if not Path(path).exists():
        return False
    return bool(_same_pool(pd.read_csv(path), key).any())


def read_costs(path: str | os.PathLike, key: Mapping) -> pd.DataFrame:
    """The rows of pool ``key`` in the costs file ``path``.

    Raises
    ------
    MissingCosts
        When the file or the pool is missing.
    """
    if not Path(path).exists():
        raise MissingCosts(missing_message(key, path, []))
    df = pd.read_csv(path)
    rows = df[_same_pool(df, key)]
    if rows.empty:
        raise MissingCosts(missing_message(key, path, []))
    return rows.reset_index(drop=True)


def with_costs(pool: pd.DataFrame, costs: pd.DataFrame | None) -> pd.DataFrame:
    """The pool table with ``train_seconds`` taken from the measured ``costs`` (None: NaN).

    Every member of the pool must have a measured cost; the pool's own timings are dropped.

    Examples
    --------
    >>> pool = pd.DataFrame({"member": ["a", "b"], "p": [0.7, 0.8], "train_seconds": [9, 9]})
    >>> costs = pd.DataFrame({"member": ["b", "a"], "train_seconds": [0.2, 0.1]})
    >>> with_costs(pool, costs)["train_seconds"].tolist()
    [0.1, 0.2]
    """
    out = pool.copy()
    if costs is None:
        out["train_seconds"] = np.nan
        return out
    by_member = costs.set_index("member")["train_seconds"]
    missing = sorted(set(out["member"]) - set(by_member.index))
    if missing:
        raise MissingCosts(
            f"the measured costs lack pool members {missing} (the classifier pool changed "
            "since they were measured): measure them again with `make knapsack-costs`"
        )
    out["train_seconds"] = out["member"].map(by_member).astype(float)
    return out


def install(measured: Iterable[str | os.PathLike], root: str | os.PathLike) -> list[Path]:
    """Write freshly measured costs into the committed files under the repository ``root``.

    Each measured file replaces the rows of its own pool (:data:`POOL_KEY`) in
    ``<root>/`` :data:`~.names.KNAPSACK_COSTS`; rows of other pools are kept.

    Returns
    -------
    list of Path
        The files written.
    """
    from ...io import write_csv

    written = []
    for src in measured:
        new = pd.read_csv(src)
        for key_values, rows in new.groupby(list(POOL_KEY), sort=True):
            key = dict(zip(POOL_KEY, key_values, strict=True))
            features = str(key["member_features"])
            key = pool_key(
                key["dataset"],
                key["seed"],
                {"select": key["split_select"], "test": key["split_test"]},
                None if features == "all" else int(features),
            )
            dest = costs_path(root, key["dataset"])
            old = pd.read_csv(dest) if dest.exists() else pd.DataFrame(columns=COST_COLUMNS)
            kept = old[~_same_pool(old, key)] if len(old) else old
            merged = pd.concat([kept, rows[list(COST_COLUMNS)]], ignore_index=True)
            merged = merged.sort_values(["seed", "split_select", "split_test"], kind="stable")
            dest.parent.mkdir(parents=True, exist_ok=True)
            write_csv(merged, dest)
            written.append(dest)
    return written
