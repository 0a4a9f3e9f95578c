"""Running the Snakemake workflow from tests: in a scratch directory, on the offline mirror."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAKEFILE = REPO / "Snakefile"
BASE = REPO / "config" / "config.yaml"
SMOKE = REPO / "config" / "smoke.yaml"
DEFAULT_PROFILE = REPO / "workflow" / "profiles" / "default"
#: The test being run (set by conftest.py): Snakemake may only be started from a ``workflow`` test.
CURRENT_TEST = None
#: Runs started in the background at the start of the session, by name (:func:`background`).
_BACKGROUND: dict[str, _Run] = {}


def merged_config(*overlays: Path) -> dict:
    """config/config.yaml with ``overlays`` merged on top: the config of a run given them as
    ``--configfile`` files (``ensemble_repro.config.load_config``)."""
    from ensemble_repro.config import load_config

    return load_config(*overlays, base=BASE)


def smoke_config() -> dict:
    """The config of a smoke run: every key, config/smoke.yaml's values over config.yaml's."""
    return merged_config(SMOKE)


def mirror_dir() -> Path:
    """The offline mirror: $ENSEMBLE_REPRO_MIRROR, else ../shared/data beside the checkout."""
    env = os.environ.get("ENSEMBLE_REPRO_MIRROR")
    return Path(env) if env else REPO.parent / "shared" / "data"


def mirror_missing() -> str | None:
    """Why the tests cannot use the mirror, or None when it is there."""
    path = mirror_dir()
    if (path / "MANIFEST.tsv").is_file():
        return None
    return (
        f"raw-data mirror not found at {path}: point ENSEMBLE_REPRO_MIRROR (make: MIRROR=) "
        "at a copy of it"
    )


def snakemake_cmd(
    workdir: Path,
    *args: str,
    configfile: Path = SMOKE,
    cores: int = 2,
    profile: Path | None = DEFAULT_PROFILE,
) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--directory",
        str(workdir),
        "--configfile",
        str(configfile),
        "--cores",
        str(cores),
    ]
    if profile is not None:
        cmd += ["--workflow-profile", str(profile)]
    return cmd + list(args)


def workflow_env(mirror: Path | None = None) -> dict[str, str]:
    """The environment of a Snakemake run from a test (every such run asks for it)."""
    test = CURRENT_TEST
    # a background run (:func:`start_background`) belongs to the workflow tests that wait for it
    in_main = threading.current_thread() is threading.main_thread()
    if in_main and test is not None and test.get_closest_marker("workflow") is None:
        raise RuntimeError(
            f"{test.nodeid} runs Snakemake but is not marked workflow: add "
            "@pytest.mark.workflow (the unit tier runs no workflow)"
        )
    env = dict(os.environ)
    env["ENSEMBLE_REPRO_MIRROR"] = str(mirror or mirror_dir())
    return env


def run_snakemake(
    workdir: Path, *args: str, mirror: Path | None = None, timeout: float = 1500, **kw
) -> subprocess.CompletedProcess:
    """Run snakemake in ``workdir`` and return the finished process (stdout+stderr merged)."""
    workdir.mkdir(parents=True, exist_ok=True)
    return run(snakemake_cmd(workdir, *args, **kw), workflow_env(mirror), timeout=timeout)


_FORKSERVER = None


def _snakemake_main(args: list[str], env: dict[str, str], cwd: str | None, log: str) -> None:
    """``python -m snakemake *args`` inside a process forked from the fork server."""
    os.environ.clear()
    os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    fd = os.open(log, os.O_WRONLY | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.argv = ["snakemake", *args]
    from snakemake.cli import main

    main(args)


def run(
    cmd: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 1500
) -> subprocess.CompletedProcess:
    """Run ``cmd`` like ``subprocess.run`` (stdout+stderr merged into ``stdout``, text).

    ``python -m snakemake ...`` runs in a new process forked from a server that imported
    Snakemake and the workflow's modules once (tests/snakemake_preload.py): the same run as in
    a new interpreter, without paying those imports again for each of the suite's many dry runs.
    """
    if cmd[:3] != [sys.executable, "-m", "snakemake"]:
        return subprocess.run(
            cmd,
            env=env,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
        )
    with tempfile.NamedTemporaryFile(prefix="snakemake-", suffix=".log") as log:
        proc = _forkserver().Process(
            target=_snakemake_main,
            args=(cmd[3:], env, None if cwd is None else str(cwd), log.name),
        )
        proc.start()
        proc.join(timeout)
        if proc.exitcode is None:
            proc.kill()
            proc.join()
            raise subprocess.TimeoutExpired(cmd, timeout, Path(log.name).read_text())
        out = Path(log.name).read_text(errors="replace")
    return subprocess.CompletedProcess(cmd, proc.exitcode, out)


def _forkserver():
    """The fork server's multiprocessing context, started on first use (in the main thread:
    :func:`start_background` starts it before any run's thread)."""
    global _FORKSERVER
    if _FORKSERVER is None:
        import multiprocessing
        import multiprocessing.forkserver

        _FORKSERVER = multiprocessing.get_context("forkserver")
        _FORKSERVER.set_forkserver_preload(["snakemake_preload"])
        # the server is a new interpreter: it finds tests/snakemake_preload.py on PYTHONPATH
        saved = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "tests"), saved]))
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            if saved is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = saved
    return _FORKSERVER


def start_background(runs: dict[str, Callable[[], object]]) -> None:
    """Start each of ``runs`` (name -> function) in a thread of its own, once per name.

    The session's long runs (the shared smoke run, the interrupted --cores 1 run, the SLURM
    run, the clean-venv install) then overlap the one-threaded tests and each other's waits;
    :func:`background` hands a fixture the result. The threads are daemons: an aborted
    session does not wait for them.
    """
    _forkserver()
    for name, fn in runs.items():
        if name not in _BACKGROUND:
            _BACKGROUND[name] = _Run(fn, name=f"background-{name}")
            _BACKGROUND[name].start()


def stop_background() -> None:
    """Kill the processes of this session's background runs that are still going (all child
    processes of the session: the runs and the fork server they run in)."""
    if not any(run.is_alive() for run in _BACKGROUND.values()):
        return
    import psutil

    children = psutil.Process().children(recursive=True)
    for child in children:
        child.kill()
    psutil.wait_procs(children, timeout=30)


def background(name: str, fn: Callable[[], object]):
    """``fn()``: the result of the run :func:`start_background` started under ``name``, or,
    when none was started (a single test selected by hand), computed now."""
    run = _BACKGROUND.get(name)
    return fn() if run is None else run.result()


class _Run(threading.Thread):
    """A daemon thread computing ``fn()``; :meth:`result` waits and returns it (or raises what
    ``fn`` raised, pytest's skip and fail included)."""

    def __init__(self, fn: Callable[[], object], name: str):
        super().__init__(name=name, daemon=True)
        self.fn, self.value, self.error = fn, None, None

    def run(self) -> None:
        try:
            self.value = self.fn()
        except BaseException as exc:
            self.error = exc

    def result(self):
        self.join()
        if self.error is not None:
            raise self.error
        return self.value


def scratch_dir(prefix: str) -> Path:
    """A new directory for a background run (removed at the end of the session)."""
    path = Path(tempfile.mkdtemp(prefix=f"ensemble-repro-{prefix}-"))
    SCRATCH.append(path)
    return path


#: Directories of :func:`scratch_dir`, removed by conftest.py when the session ends.
SCRATCH: list[Path] = []


def result_tables(workdir: Path) -> dict[str, bytes]:
    """Every result table (CSV without its timing columns) and provenance sidecar, as bytes."""
    import pandas as pd

    from ensemble_repro.claims.claim import CLAIMS_CSV
    from ensemble_repro.claims.table import run_independent
    from ensemble_repro.io import drop_timing

    root = Path(workdir) / "results"
    out: dict[str, bytes] = {}
    for p in sorted(root.rglob("*.csv")):
        if "benchmarks" in p.relative_to(root).parts:
            continue
        df = drop_timing(pd.read_csv(p))
        if p.name == Path(CLAIMS_CSV).name:  # claims tables: wall-clock verdicts and dates vary
            df = run_independent(df)
        out[p.relative_to(root).as_posix()] = df.to_csv(index=False).encode()
    for p in sorted(root.rglob("*.provenance.json")):
        out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out


def same_tables(part: dict[str, bytes], whole: dict[str, bytes], papers) -> list[str]:
    """Tables of a run of some ``papers`` that are missing from, or differ from, a run of them
    all (``result_tables`` of each); an empty list when the part matches. Every table of
    those papers in ``whole`` must be in ``part``."""
    mine = sorted(k for k in whole if k.split("/", 1)[0] in papers)
    if not mine or sorted(part) != mine:
        return [f"tables of {sorted(papers)}: {sorted(part)} != {mine}"]
    return [k for k in mine if part[k] != whole[k]]


def partial_files(workdir: Path) -> list[str]:
    """Files under results/ that are temp leftovers or do not parse completely."""
    import json

    import pandas as pd

    bad = []
    for p in sorted((Path(workdir) / "results").rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(workdir).as_posix()
        if p.name.startswith(".") and p.name != ".snakemake_timestamp":
            bad.append(rel + " (temp file)")
            continue
        try:
            if p.suffix == ".csv":
                pd.read_csv(p)
            elif p.suffix == ".parquet":
                pd.read_parquet(p)
            elif p.suffix == ".json":
                json.loads(p.read_text())
            elif p.suffix == ".png":
                assert b"IEND" in p.read_bytes()[-12:], "PNG without its end chunk"
            elif p.suffix == ".pdf":
                assert b"%%EOF" in p.read_bytes()[-64:], "PDF without %%EOF"
        except Exception as exc:  # noqa: BLE001 - any parse failure is a partial file
            bad.append(f"{rel} ({type(exc).__name__})")
    return bad
