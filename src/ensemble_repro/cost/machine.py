"""This machine: the unit costs scaled to its speed, and the share of a core a job gets now.

The unit costs are CPU seconds on the machine they were measured on. A machine calibration
(:func:`machine_calibration`, well under a minute, cached per host name, CPU model and CPU
count) times one small kernel per family of units (:data:`KERNELS`: job start, ridge, RF, MLP,
GBT, knapsack pool, array arithmetic) and scales each family's units by its kernel's time here
over the reference time stored beside the units (``kernel`` rows of ``unit_costs.csv``).
:func:`core_share` (a half-second probe and the load average, less the niced threads that give
way to the run) gives the share of a core each of the run's jobs gets at the current load;
local wall times are divided by it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..cache import cache_dir as user_cache_dir
from ..paper_loader import PAPERS, follow
from .units import START_FAMILIES, UnitCosts


def machine_key() -> dict[str, str | int]:
    """What identifies a machine's speed: host name, CPU model and CPU count."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"hostname": platform.node(), "cpu_model": model, "cores": os.cpu_count() or 1}


def _kernel_data(n: int, p: int, classes: bool = False):
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, p))
    y = X @ rng.normal(size=p) + rng.normal(size=n)
    return X, (y > 0).astype(int) if classes else y


def _kernel_learner(name: str, fits: int) -> None:
    """``fits`` fits of a J+aB learner on 200 rows x 100 features, predicting 2000 rows."""
    from ..learners import make_learner

    X, y = _kernel_data(200, 100)
    for i in range(fits):
        make_learner(name, random_state=i).fit(X, y).predict(X.repeat(10, axis=0))


def _kernel_gbt() -> None:
    """A QWYC-style GBT: 50 trees of depth 5 on 5000 rows x 14 features (one thread)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y = _kernel_data(5000, 14, classes=True)
    HistGradientBoostingClassifier(
        max_iter=50, max_depth=5, max_leaf_nodes=None, early_stopping=False, random_state=0
    ).fit(X, y).predict_proba(X)


def _kernel_pool() -> None:
    """A knapsack pool build (31 classifiers) on 400 rows x 10 features."""
    import pandas as pd

    from ..knapsack.pools import build_pool

    X, y = _kernel_data(400, 10, classes=True)
    build_pool(pd.DataFrame(X), pd.Series(y), seed=0)


def _kernel_numeric() -> None:
    """Array arithmetic of the knapsack energy and the QWYC sweeps: correct-count
    distributions of 2000 subsets of a 31-member pool, 20 times."""
    import numpy as np

    from ..knapsack.energy import correct_count_distribution

    rng = np.random.default_rng(0)
    p, masks = rng.uniform(0.5, 1.0, 31), rng.random((2000, 31)) < 0.5
    for _ in range(20):
        correct_count_distribution(p, masks).cumsum(axis=-1)


#: Code of the ``start`` kernel: a fresh process importing what every job imports (each
#: paper's ``start_modules``).
START_CODE = ""
#: Unit cost -> its kernel family (:func:`.units.unit_family`): those of every run and each
#: paper's.
UNIT_FAMILIES: dict = {}


def _tables() -> None:
    """:data:`START_CODE` and :data:`UNIT_FAMILIES` from the papers in use."""
    global START_CODE
    modules = [m for p in PAPERS.values() for m in p.start_modules]
    START_CODE = "import " + ", ".join(["snakemake.script", *modules, "ensemble_repro.io"])
    UNIT_FAMILIES.clear()
    UNIT_FAMILIES.update(START_FAMILIES)
    UNIT_FAMILIES.update({u: f for p in PAPERS.values() for u, f in p.unit_families.items()})


follow(_tables)


def _kernel_start() -> float:
    """CPU seconds of a fresh Python process importing the experiment modules."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", START_CODE], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


#: The machine-calibration kernels, one per family of unit costs (:func:`.units.unit_family`):
#: what that family's jobs spend their CPU time on, sized to take a fraction of a second.
KERNELS = {
    "start": _kernel_start,
    "ridge": lambda: _kernel_learner("ridge", 20),
    "rf": lambda: _kernel_learner("rf", 1),
    "nn": lambda: _kernel_learner("nn", 2),
    "gbt": _kernel_gbt,
    "pool": _kernel_pool,
    "numeric": _kernel_numeric,
}
KERNEL_FAMILIES = tuple(KERNELS)
#: Environment variable naming the machine-calibration cache folder.
#: Timings of each kernel; the median is kept (the first run pays for lazy imports).
KERNEL_REPEATS = 3


def time_kernels(families=KERNEL_FAMILIES, repeats: int = KERNEL_REPEATS) -> dict[str, float]:
    """Median CPU seconds of each kernel on this machine, with one BLAS / OpenMP thread.

    About 12 CPU seconds in all on the machine the unit costs were measured on.

    Parameters
    ----------
    families : iterable of str
        Keys of :data:`KERNELS`.
    repeats : int
        Timings per kernel.

    Returns
    -------
    dict
        Family -> CPU seconds of one run of its kernel.
    """
    import warnings

    # Load every BLAS / OpenMP library first: threadpool_limits only limits those loaded.
    import scipy.optimize  # noqa: F401
    import sklearn.ensemble  # noqa: F401
    import sklearn.neural_network  # noqa: F401
    from threadpoolctl import threadpool_limits

    out = {}
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MLP convergence, constant features of the pool
        for family in families:
            kernel, times = KERNELS[family], []
            for _ in range(repeats):
                t0 = time.process_time()
                child = kernel()
                times.append(child if child is not None else time.process_time() - t0)
            out[family] = statistics.median(times)
    return out


@dataclass
class MachineCalibration:
    """The kernel times of one machine, as cached.

    Attributes
    ----------
    key : dict
        :func:`machine_key` of the machine.
    kernels : dict
        Family -> CPU seconds of its kernel there (:func:`time_kernels`).
    measured_on : str
        UTC time of the measurement.
    load : float
        The 1-minute load average while it was measured.
    path : Path or None
        The cache file.
    """

    key: dict
    kernels: dict
    measured_on: str = ""
    load: float = math.nan
    path: Path | None = None

    def factors(self, reference: dict[str, float]) -> dict[str, float]:
        """Family -> this machine's kernel time / the reference machine's.

        Raises
        ------
        KeyError
            When the reference lacks a kernel (unit costs older than the calibration).
        """
        missing = [f for f in KERNEL_FAMILIES if f not in reference]
        if missing:
            raise KeyError(
                f"the unit costs hold no reference time for the kernels {missing}: rerun "
                "benchmarks/calibrate_costs.py --only kernels on the machine they were "
                "measured on"
            )
        return {f: self.kernels[f] / reference[f] for f in KERNEL_FAMILIES}

    def describe(self, reference: dict[str, float]) -> str:
        """One line: the machine and its factor per family."""
        f = self.factors(reference)
        return (
            f"{self.key['hostname']} ({self.key['cpu_model']}, {self.key['cores']} CPUs), "
            f"measured {self.measured_on} at load {self.load:.1f}: CPU time x "
            + ", ".join(f"{k} {v:.2f}" for k, v in f.items())
        )


def machine_calibration(
    cache_dir=None,
    key: dict | None = None,
    measure=time_kernels,
    refresh: bool = False,
    log=None,
) -> MachineCalibration:
    """This machine's kernel times: from its cache file, else measured (well under a minute)
    and cached.

    Parameters
    ----------
    cache_dir : str or Path, optional
        Folder of the cache files (:func:`ensemble_repro.cache.cache_dir` by default); one file per
        machine key.
    key : dict, optional
        The machine key (:func:`machine_key` by default).
    measure : callable, default :func:`time_kernels`
        Called with the families to time when the cache holds none for this machine.
    refresh : bool, default False
        Measure again even when cached.
    log : callable, optional
        Called with a message before measuring.

    Returns
    -------
    MachineCalibration
    """
    key = machine_key() if key is None else key
    if not refresh:
        cached = cached_calibration(cache_dir, key)
        if cached is not None:
            return cached
    path = _cache_path(cache_dir, key)
    folder = path.parent
    if log is not None:
        log(
            f"timing {len(KERNEL_FAMILIES)} kernels to calibrate this machine (once; cached in {path})"
        )
    load = os.getloadavg()[0]
    kernels = measure(KERNEL_FAMILIES)
    cal = MachineCalibration(
        key, dict(kernels), datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), load, path
    )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(
            json.dumps(
                {"key": key, "kernels": cal.kernels, "measured_on": cal.measured_on, "load": load},
                indent=1,
            )
        )
        tmp.replace(path)
    except OSError as err:  # an unwritable cache costs a re-measure next time, nothing else
        print(f"machine calibration not cached ({path}: {err.strerror})", file=sys.stderr)
        cal.path = None
    return cal


def _cache_path(cache_dir, key: dict) -> Path:
    """The cache file of the machine ``key`` (one per key) in ``cache_dir``."""
    folder = Path(cache_dir) if cache_dir is not None else user_cache_dir()
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    return folder / f"machine-{digest}.json"


def cached_calibration(cache_dir=None, key: dict | None = None) -> MachineCalibration | None:
    """This machine's calibration when its cache holds one for every kernel family, else None
    (nothing is measured); ``cache_dir`` and ``key`` as for :func:`machine_calibration`.

    Raises
    ------
    ValueError
        When the cache file holds a kernel time that is not a positive number of seconds,
        naming the file and the value (deleting the file makes it measured again).
    """
    key = machine_key() if key is None else key
    path = _cache_path(cache_dir, key)
    try:
        cached = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not (
        isinstance(cached, dict)
        and cached.get("key") == key
        and isinstance(cached.get("kernels"), dict)
        and all(f in cached["kernels"] for f in KERNEL_FAMILIES)
    ):
        return None
    for family in KERNEL_FAMILIES:
        value = cached["kernels"][family]
        if not _positive_seconds(value):
            raise ValueError(
                f"the machine-calibration cache {path} holds kernels.{family} = "
                f"{json.dumps(value)}, "
                "not a positive number of CPU seconds: delete the file (the machine is then "
                "timed again, well under a minute)"
            )
    load = cached.get("load")  # shown only
    load = float(load) if isinstance(load, int | float) and not isinstance(load, bool) else math.nan
    return MachineCalibration(
        key, cached["kernels"], str(cached.get("measured_on", "")), load, path
    )


def _positive_seconds(value) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def machine_units(
    path=None, calibrated: bool = True, cache_dir=None, measure=time_kernels, log=None
) -> tuple[UnitCosts, MachineCalibration]:
    """The unit costs scaled to this machine (:func:`machine_calibration`), and the calibration.

    Parameters
    ----------
    path : str or Path, optional
        Unit-cost CSV; the package's by default.
    calibrated : bool, default True
        As for :class:`UnitCosts`.
    cache_dir : str or Path, optional
        As for :func:`machine_calibration`.
    measure, log : callable
        As for :func:`machine_calibration`.

    Returns
    -------
    (UnitCosts, MachineCalibration)
    """
    units = UnitCosts(path, calibrated)
    cal = machine_calibration(cache_dir, measure=measure, log=log)
    return units.scaled(cal.factors(units.reference_kernels()), UNIT_FAMILIES), cal


#: A busy loop for ``seconds`` of wall time that prints the share of it it got on a core.
_SHARE_CODE = (
    "import sys, time\n"
    "end = time.perf_counter() + float(sys.argv[1]); w0, c0 = time.perf_counter(), "
    "time.process_time()\n"
    "while time.perf_counter() < end: pass\n"
    "print((time.process_time() - c0) / (time.perf_counter() - w0))\n"
)
#: Wall seconds of the load probe (:func:`core_share`).
SHARE_SECONDS = 0.5


def niced_runnable(proc=Path("/proc")) -> int:
    """Threads niced below this process (a higher nice value) that are runnable now.

    The load average counts them, yet they give way to the run's jobs. With autogroup
    scheduling on (``/proc/sys/kernel/sched_autogroup_enabled`` is 1) nice orders threads only
    within a session, so nothing gives way and this is 0; so it is where ``proc`` (Linux's
    ``/proc``) is absent.

    Parameters
    ----------
    proc : Path
        The process table (``/proc/<pid>/task/<tid>/stat``) and ``sys/kernel`` of this machine.

    Returns
    -------
    int
    """
    proc = Path(proc)
    try:
        if (proc / "sys/kernel/sched_autogroup_enabled").read_text().strip() == "1":
            return 0
    except OSError:
        pass
    own, count = os.nice(0), 0
    for stat in proc.glob("[0-9]*/task/[0-9]*/stat"):
        try:
            text = stat.read_text()
            fields = text[text.rindex(")") + 2 :].split()
            # stat fields 3 and 19: state, nice
            count += fields[0] == "R" and int(fields[16]) > own
        except (OSError, ValueError, IndexError):  # a thread that exited
            continue
    return count


def core_share(
    cores: int,
    seconds: float = SHARE_SECONDS,
    load: float | None = None,
    niced: float | None = None,
) -> float:
    """The share of a core each of ``cores`` busy jobs gets on this machine now.

    Two views, the smaller kept: ``cores`` processes spin side by side for ``seconds`` and
    each reports its CPU time over its wall time (what the scheduler gives a job this
    instant, niceness of the other work included); and the 1-minute load average ``L``, the
    queue the jobs join: ``CPUs / (L - N + cores)``, where ``N`` is the niced threads
    runnable during the probe (:func:`niced_runnable`): they give way to the jobs. The probe
    alone misses load that comes and goes within a minute.

    Parameters
    ----------
    cores : int
        Jobs the run will run side by side (``--cores``, at most the CPUs).
    seconds : float
        How long the probe spins.
    load : float, optional
        The 1-minute load average (``os.getloadavg()`` by default).
    niced : float, optional
        The niced threads runnable (the mean of samples taken while the probe spins by
        default).

    Returns
    -------
    float
        The share, in (0, 1]: 1 on an idle machine with at least ``cores`` CPUs.
    """
    cpus = os.cpu_count() or 1
    jobs = max(1, min(cores, cpus))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _SHARE_CODE, str(seconds)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(jobs)
    ]
    samples = []
    while niced is None and any(p.poll() is None for p in procs):
        samples.append(niced_runnable())
        time.sleep(seconds / 5)
    probe = statistics.fmean(float(p.communicate()[0]) for p in procs)
    if niced is None:
        niced = statistics.fmean(samples) if samples else 0.0
    load = os.getloadavg()[0] if load is None else load
    queue = cpus / (max(0.0, load - niced) + jobs)
    return min(1.0, max(1e-3, min(probe, queue)))
