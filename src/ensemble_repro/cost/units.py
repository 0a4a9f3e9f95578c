"""The measured unit costs: CPU seconds per unit of work (``unit_costs.csv``).

``benchmarks/calibrate_costs.py`` writes the table (CPU time with one BLAS thread, so it holds
on a loaded machine). Each row is one unit (``job_start``, a paper's fit or sweep, ...) for
one key (a data set, a data set and learner or method) at one size; ``rows`` and
``pool_size`` rows are counts, ``calibration`` rows the measured / estimated factor of a
rule's jobs over whole runs, ``job_overhead`` rows the CPU seconds a rule's jobs spend beyond
that (measured less estimated, per job, over small runs), ``kernel`` rows the reference times
of the machine calibration (:mod:`.machine`).
"""

from __future__ import annotations

import copy
import csv
import itertools
import math
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path

#: A unit cost's kernel family, or a function of the row's key giving it.
Family = str | Callable[[str], str]

#: Unit-cost table shipped with the package (``benchmarks/calibrate_costs.py`` writes it).
UNIT_COSTS = "unit_costs.csv"
#: Unit of the reference kernel times (key: the kernel family, :mod:`.machine`).
KERNEL_UNIT = "kernel"
#: Family of the unit costs of every run (a paper's own: its ``Paper.unit_families``).
START_FAMILIES = {
    "job_start": "start",
    "light_job": "start",
    "job_overhead": "start",
    "run_start": "start",
}
#: Units of the table that are counts, factors or kernel times, not CPU costs.
UNSCALED_UNITS = frozenset({"rows", "pool_size", "calibration", KERNEL_UNIT})


def key_learner(key: str) -> str:
    """The family of a unit cost keyed ``<data set>/<learner>``: its learner's kernel.

    Examples
    --------
    >>> key_learner("blog/nn")
    'nn'
    """
    return key.rsplit("/", 1)[-1]


def unit_family(unit: str, key: str, families: Mapping[str, Family]) -> str | None:
    """The kernel family whose speed a unit cost follows, None for counts and factors.

    Parameters
    ----------
    unit, key : str
        A row of the table.
    families : mapping
        Unit -> its family, or a function of the row's key giving it (:data:`START_FAMILIES`
        and every paper's ``unit_families``).

    Examples
    --------
    >>> families = {**START_FAMILIES, "fit": key_learner, "sweep": "numeric"}
    >>> [unit_family(*row, families) for row in [("fit", "blog/nn"), ("sweep", "adult"), ("rows", "")]]
    ['nn', 'numeric', None]
    """
    if unit in UNSCALED_UNITS:
        return None
    if unit not in families:
        raise ValueError(
            f"unit cost {unit!r} (key {key!r}) has no kernel family: add it to the "
            "UNIT_FAMILIES of its paper's cost_units module"
        )
    family = families[unit]
    return family if isinstance(family, str) else family(key)


def at_reference(
    rows: list[tuple[str, str, float, float]],
    factors: dict[str, float],
    families: Mapping[str, Family],
) -> list[tuple[str, str, float, float]]:
    """Unit costs measured on another machine, brought to the reference machine's speed: each
    CPU cost divided by that machine's factor for its family (the inverse of
    :meth:`UnitCosts.scaled`), counts and factors unchanged.

    Parameters
    ----------
    rows : list of (unit, key, size, cpu_seconds)
        As measured there.
    factors : dict
        Family -> that machine's kernel time / the reference machine's
        (:meth:`.machine.MachineCalibration.factors`).
    families : mapping
        As for :func:`unit_family`.

    Returns
    -------
    list of (unit, key, size, cpu_seconds)

    Examples
    --------
    >>> at_reference([("fit", "blog/nn", 40, 0.4), ("rows", "blog", 0, 9.0)], {"nn": 0.8},
    ...              {"fit": key_learner})
    [('fit', 'blog/nn', 40, 0.5), ('rows', 'blog', 0, 9.0)]
    """
    out = []
    for unit, key, size, secs in rows:
        family = unit_family(unit, key, families)
        if family is not None and family not in factors:
            raise KeyError(f"no machine factor for the family {family!r} of unit {unit!r}")
        out.append((unit, key, size, secs if family is None else secs / factors[family]))
    return out


class UnitCosts:
    """The table of measured unit costs (columns unit, key, size, cpu_seconds, source).

    Parameters
    ----------
    path : str or Path, optional
        CSV file; the package's ``unit_costs.csv`` by default.
    calibrated : bool, default True
        Apply the per-rule ``calibration`` factors (measured / estimated CPU time of whole
        runs, :func:`ensemble_repro.estimate.calibration_rows`) and ``job_overhead`` costs
        (:func:`ensemble_repro.estimate.overhead_rows`); False gives the bare unit-cost model.
    """

    def __init__(self, path=None, calibrated: bool = True):
        self.calibrated, self.source = calibrated, path
        if path is None:
            text = resources.files("ensemble_repro").joinpath(UNIT_COSTS).read_text()
            self.path = UNIT_COSTS
        else:
            text, self.path = Path(path).read_text(), str(path)
        self.rows = {}
        for r in csv.DictReader(text.splitlines()):
            self.rows.setdefault((r["unit"], r["key"]), []).append(
                (float(r["size"]), float(r["cpu_seconds"]))
            )
        for v in self.rows.values():
            v.sort()

    def get(self, unit: str, key: str = "") -> float:
        """CPU seconds per unit of ``unit`` for ``key`` (the only size measured)."""
        try:
            return self.rows[(unit, key)][0][1]
        except KeyError:
            raise KeyError(
                f"{self.path} has no unit cost {unit!r} for {key!r}: rerun "
                "benchmarks/calibrate_costs.py"
            ) from None

    def at(self, unit: str, key: str, size: float) -> float:
        """CPU seconds per unit at ``size``: log-log interpolation between measured sizes."""
        pts = self.rows.get((unit, key))
        if pts is None:
            self.get(unit, key)
        if size <= pts[0][0] or len(pts) == 1:
            return pts[0][1]
        if size >= pts[-1][0]:
            return pts[-1][1]
        for (s0, c0), (s1, c1) in itertools.pairwise(pts):
            if s0 <= size <= s1:
                w = math.log(size / s0) / math.log(s1 / s0)
                return math.exp((1 - w) * math.log(c0) + w * math.log(c1))
        raise AssertionError(size)

    def has(self, unit: str, key: str = "") -> bool:
        """Whether the table holds ``unit`` for ``key``."""
        return (unit, key) in self.rows

    def factor(self, rule: str) -> float:
        """Calibration factor of ``rule``'s jobs (1 when none was measured or not calibrated)."""
        if not self.calibrated or not self.has("calibration", rule):
            return 1.0
        return self.get("calibration", rule)

    def overhead(self, rule: str) -> float:
        """CPU seconds each of ``rule``'s jobs spends beyond its calibrated cost (0 when none
        was measured or not calibrated; may be negative)."""
        if not self.calibrated or not self.has("job_overhead", rule):
            return 0.0
        return self.get("job_overhead", rule)

    def without(self, unit: str) -> UnitCosts:
        """A copy without the rows of ``unit`` (e.g. the ``job_overhead`` rows)."""
        out = copy.copy(self)
        out.rows = {k: v for k, v in self.rows.items() if k[0] != unit}
        return out

    def reference_kernels(self) -> dict[str, float]:
        """CPU seconds of each machine-calibration kernel where these unit costs were measured
        (the table's ``kernel`` rows; :func:`.machine.time_kernels`)."""
        return {key: pts[0][1] for (unit, key), pts in self.rows.items() if unit == KERNEL_UNIT}

    def scaled(self, factors: dict[str, float], families: Mapping[str, Family]) -> UnitCosts:
        """These unit costs on another machine: every CPU cost times its family's factor
        (:func:`unit_family`); counts, calibration factors and kernel times unchanged.

        Parameters
        ----------
        factors : dict
            Family -> that machine's kernel time / the reference machine's
            (:meth:`.machine.MachineCalibration.factors`).
        families : mapping
            As for :func:`unit_family`.

        Returns
        -------
        UnitCosts
            A copy; ``self`` is left as it is.
        """
        family_of = {(u, k): unit_family(u, k, families) for u, k in self.rows}
        missing = sorted(set(family_of.values()) - set(factors) - {None}, key=str)
        if missing:
            raise KeyError(f"no machine factor for the unit-cost families {missing}")
        out = object.__new__(UnitCosts)
        out.calibrated, out.source, out.path = self.calibrated, self.source, self.path
        out.rows = {}
        for (unit, key), pts in self.rows.items():
            family = family_of[(unit, key)]
            f = 1.0 if family is None else factors[family]
            out.rows[(unit, key)] = [(size, cpu * f) for size, cpu in pts]
        return out
