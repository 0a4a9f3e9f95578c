"""Progress logging for workflow scripts: one line per unit of work, into the rule's log."""

from __future__ import annotations

import atexit
import json
import logging
import os
import resource
import sys
import time
from collections.abc import Mapping

LOGGER_NAME = "ensemble_repro"
#: Suffix of a benchmark file's sidecar holding the job's own CPU seconds, written as the job
#: exits (:func:`setup_logging`): Snakemake samples a job's CPU time every 0.5 s for 15 s and
#: then every 30 s, so its benchmark file misses up to 30 s of each job.
JOB_CPU_SUFFIX = ".cpu"


#: Where the jobs' ``benchmark:`` and ``log:`` files live (a rule's two mirror each other).
BENCHMARK_DIR, LOG_DIR = "results/benchmarks", "results/logs"


def benchmark_file(place: str, wildcards: str = "") -> str:
    """A rule's ``benchmark:`` file: ``results/benchmarks/<place>[/<wildcards>].tsv``.

    Examples
    --------
    >>> benchmark_file("qwyc/model", "{qwyc_data}"), benchmark_file("jab/collect")
    ('results/benchmarks/qwyc/model/{qwyc_data}.tsv', 'results/benchmarks/jab/collect.tsv')
    """
    return f"{BENCHMARK_DIR}/{place}{'/' + wildcards if wildcards else ''}.tsv"


def paper_benchmarks(paper: str, rules: Mapping[str, str | tuple[str, str]]) -> dict[str, str]:
    """Rule -> ``benchmark:`` file of a paper's rules, each named ``<paper>_<name>``.

    ``rules`` maps ``name`` to the wildcards of its jobs' file name (``""``: one job), or to
    ``(place, wildcards)`` when its files are not under ``<paper>/<name>``. The paper's
    claims rule, ``<paper>_claims``, measures itself in ``claims/<paper>.tsv``.

    Examples
    --------
    >>> paper_benchmarks("qwyc", {"model": "{qwyc_data}"})["qwyc_model"]
    'results/benchmarks/qwyc/model/{qwyc_data}.tsv'
    >>> paper_benchmarks("jab", {"main_cell": ("main", "{jab_data}")})["jab_main_cell"]
    'results/benchmarks/jab/main/{jab_data}.tsv'
    >>> paper_benchmarks("jab", {})
    {'jab_claims': 'results/benchmarks/claims/jab.tsv'}
    """
    files = {}
    for name, spec in rules.items():
        place, wildcards = spec if isinstance(spec, tuple) else (name, spec)
        files[f"{paper}_{name}"] = benchmark_file(f"{paper}/{place}", wildcards)
    return {**files, f"{paper}_claims": benchmark_file(f"claims/{paper}")}


def log_of_benchmark(benchmark: str) -> str:
    """The ``log:`` file of the job whose ``benchmark:`` file is ``benchmark`` (the inverse of
    :func:`benchmark_of_log`).

    Examples
    --------
    >>> log_of_benchmark("results/benchmarks/qwyc/model/{qwyc_data}.tsv")
    'results/logs/qwyc/model/{qwyc_data}.log'
    """
    head, sep, rest = benchmark.partition(f"{BENCHMARK_DIR}/")
    if not sep or not rest.endswith(".tsv"):
        raise ValueError(
            f"{benchmark!r} is not a benchmark file ({BENCHMARK_DIR}/<place>.tsv); "
            "make it with benchmark_file"
        )
    return f"{head}{LOG_DIR}/{rest[: -len('.tsv')]}.log"


def benchmark_of_log(log_path: str) -> str | None:
    """The ``benchmark:`` file of the job whose ``log:`` is ``log_path``: every rule's mirrors
    its log (``results/logs/X.log`` -> ``results/benchmarks/X.tsv``), None for another path.

    Examples
    --------
    >>> benchmark_of_log("results/logs/qwyc/model/adult.log")
    'results/benchmarks/qwyc/model/adult.tsv'
    >>> benchmark_of_log("elsewhere.log") is None
    True
    """
    head, sep, rest = str(log_path).partition(f"{LOG_DIR}/")
    if not sep or not rest.endswith(".log"):
        return None
    return f"{head}{BENCHMARK_DIR}/{rest[: -len('.log')]}.tsv"


def job_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _write_job_cpu(path: str) -> None:
    """Write the job's CPU seconds to ``path`` (a benchmark file's sidecar), atomically."""
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"cpu_seconds": round(job_cpu_seconds(), 3)}, fh)
        os.replace(tmp, path)
    except OSError:  # the measurement is a courtesy to the estimate: never fail the job for it
        pass


#: Benchmark files whose sidecar this process writes at exit.
_MEASURED: set[str] = set()


def setup_logging(log_path: str | None = None, level: int = logging.INFO) -> logging.Logger:
    """Send the package logger to ``log_path`` (a Snakemake ``log:`` file) and stderr; at exit,
    write the job's CPU seconds beside its benchmark file (:data:`JOB_CPU_SUFFIX`)."""
    logger = logging.getLogger(LOGGER_NAME)
    logger.setLevel(level)
    for h in list(logger.handlers):
        logger.removeHandler(h)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        handlers.append(logging.FileHandler(log_path, mode="w", encoding="utf-8"))
    for h in handlers:
        h.setFormatter(fmt)
        logger.addHandler(h)
    logger.propagate = False
    bench = benchmark_of_log(log_path) if log_path else None
    if bench and bench not in _MEASURED:
        _MEASURED.add(bench)
        sidecar = bench + JOB_CPU_SUFFIX
        try:  # an earlier run's figure must not stand for this one if this one fails
            os.remove(sidecar)
        except OSError:
            pass
        # registered first, so it runs last: after the executors' own exit hooks reap workers
        atexit.register(_write_job_cpu, sidecar)
    return logger


def get_logger(name: str | None = None) -> logging.Logger:
    return logging.getLogger(LOGGER_NAME if not name else f"{LOGGER_NAME}.{name}")


class Progress:
    """Log ``done/total`` with elapsed time and a naive ETA after each step."""

    def __init__(self, total: int, what: str, logger: logging.Logger | None = None):
        self.total, self.what, self.done = int(total), what, 0
        self.logger = logger or get_logger()
        self.start = time.perf_counter()

    def step(self, detail: str = "", steps: int = 1) -> None:
        """Count ``steps`` more done (steps skipped at no cost count too) and log."""
        self.done += steps
        el = time.perf_counter() - self.start
        eta = el / self.done * (self.total - self.done)
        self.logger.info(
            "%s %d/%d %s (elapsed %.1fs, eta %.1fs)",
            self.what,
            self.done,
            self.total,
            detail,
            el,
            eta,
        )
