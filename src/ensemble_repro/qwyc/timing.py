"""Deployment-style timing of early-exit cascades (QWYC paper, Tables 2-4).

A small C kernel evaluates one example at a time: it walks the trees in the cascade's order
(the same flat node arrays as :class:`~ensemble_repro.qwyc.trees.FlatForest`), adds each
leaf value to the running score and applies the step's stop test (bin lookup by binary search
for Fan, one comparison pair for QWYC), so elapsed time is proportional to the trees actually
evaluated. The full ensemble is timed with the same kernel and a never-stopping cascade. The
kernel is compiled with the system C compiler on first use into the user's cache directory
(:func:`ensemble_repro.cache.cache_dir`: ``~/.cache/ensemble-repro`` unless
``XDG_CACHE_HOME`` or ``ENSEMBLE_REPRO_CACHE`` say otherwise), keyed by the source's hash. The
directory and the library must be the user's own and not writable by group or others, no
directory or link on the way to them may be changeable by another user, and the library is
loaded from the very descriptor that was checked; else loading is refused.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
import hashlib
import numbers
import os
import shutil
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ..cache import cache_dir
from .cascade import Cascade
from .trees import FlatForest

_SOURCE = r"""
#include <math.h>
void cascade_eval(const double *X, long n, long d,
                  const int *feature, const double *thr, const int *left, const int *right,
                  const unsigned char *mleft, const double *value, const int *roots,
                  const long *order, long T, const long *bin_ptr, const double *edges,
                  const double *lo, const double *hi, double base, double beta,
                  unsigned char *decision, long *n_eval)
{
    for (long i = 0; i < n; i++) {
        const double *x = X + i * d;
        double g = base;
        long r = 0;
        int done = 0;
        for (; r < T; r++) {
            int node = roots[order[r]];
            while (left[node] != node) {
                double v = x[feature[node]];
                int go_left = isnan(v) ? mleft[node] : (v <= thr[node]);
                node = go_left ? left[node] : right[node];
            }
            g += value[node];
            if (r == T - 1) break;
            long a = bin_ptr[r], nb = bin_ptr[r + 1] - a;
            const double *e = edges + a - r;
            long l = 0, h = nb - 1;            /* bin = #{edges <= g} */
            while (l < h) { long mid = (l + h) / 2; if (e[mid] <= g) l = mid + 1; else h = mid; }
            if (g > hi[a + l]) { decision[i] = 1; done = 1; break; }
            if (g < lo[a + l]) { decision[i] = 0; done = 1; break; }
        }
        if (!done) decision[i] = g >= beta;
        n_eval[i] = r + 1;
    }
}
"""


#: Symbolic links followed at most on the way to the cache (the kernel allows 40 too).
_MAX_SYMLINKS = 40


def _refuse(path, why: str, fix: str) -> PermissionError:
    return PermissionError(
        f"refusing to use the compiled-kernel cache {path}: {why}, so another "
        f"user could make this process run their code; {fix} (or set "
        "ENSEMBLE_REPRO_CACHE to a directory of your own)"
    )


def _check_own(st: os.stat_result, path: Path) -> None:
    """Refuse ``path`` (already opened and fstat'ed) unless it is this user's and group and
    others cannot write it."""
    if st.st_uid != os.geteuid():
        why = f"it is owned by uid {st.st_uid}, not by you (uid {os.geteuid()})"
        raise _refuse(path, why, "remove it")
    if st.st_mode & 0o022:
        why = f"it is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
        raise _refuse(path, why, f"run `chmod go-w {path}`")


def _trusted_owner(uid: int) -> bool:
    return uid in (0, os.geteuid())


def _open_private_dir(path: Path) -> int:
    """Open ``path`` as a directory no other user can change, creating missing parts (0700).

    The path is walked one component at a time from ``/`` with ``openat`` and ``O_NOFOLLOW``,
    so what is checked is what is opened. Every directory on the way must be owned by root or
    by this user, and not writable by group or others unless it has the sticky bit (as
    ``/tmp``), where others cannot rename or replace the entries they do not own. A symbolic
    link on the way is followed only when it is owned by root or by this user (its directory
    having passed the same checks, nobody else can flip it); any other is refused. The last
    directory must be this user's own and not writable by group or others.

    Returns
    -------
    int
        A file descriptor of the directory (the caller closes it).
    """
    todo = list(reversed(Path(os.path.abspath(path)).parts[1:]))
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    shown = Path("/")
    links = 0
    try:
        while todo:
            st = os.fstat(fd)
            name = todo.pop()
            if name in ("", "."):
                continue
            if not _trusted_owner(st.st_uid):
                raise _refuse(path, f"its ancestor {shown} is owned by uid {st.st_uid}", "move it")
            if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
                mode = stat.S_IMODE(st.st_mode)
                raise _refuse(
                    path,
                    f"its ancestor {shown} is writable by group or others (mode {mode:o})",
                    "use a cache outside it",
                )
            try:
                lst = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, mode=0o700, dir_fd=fd)
                lst = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(lst.st_mode):
                if not _trusted_owner(lst.st_uid):
                    raise _refuse(
                        path,
                        f"{shown / name} is a symbolic link owned by uid {lst.st_uid}, "
                        "who can point it elsewhere at any time",
                        "remove it",
                    )
                links += 1
                if links > _MAX_SYMLINKS:
                    raise _refuse(path, "it has too many symbolic links", "shorten it")
                target = os.readlink(name, dir_fd=fd)
                todo.extend(reversed(Path(target).parts))
                if os.path.isabs(target):
                    todo.pop()  # the leading "/"
                    os.close(fd)
                    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                    shown = Path("/")
                continue
            try:
                new = os.open(
                    name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd
                )
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise _refuse(
                    path,
                    f"{shown / name} is not a directory or changed while it was checked",
                    "remove it",
                ) from exc
            os.close(fd)
            fd = new
            shown = shown.parent if name == ".." else shown / name
        _check_own(os.fstat(fd), path)
        return fd
    except BaseException:
        os.close(fd)
        raise


def _check_library(fd: int, path: Path) -> os.stat_result:
    """Refuse the open library ``fd`` unless it is a regular file of this user's that group
    and others cannot write."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, "it is not a regular file (not a symlink)", "remove it")
    _check_own(st, path)
    return st


def _compile(cache: Path, lib: Path) -> None:
    """Compile the kernel in a private build directory inside ``cache`` and rename it to
    ``lib`` (atomic: a concurrent process sees either no library or a complete one)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise RuntimeError("the timing evaluator needs a C compiler (cc or gcc, or set CC)")
    with tempfile.TemporaryDirectory(dir=cache, prefix=".build-") as build:
        src, out = Path(build) / "cascade.c", Path(build) / lib.name
        src.write_text(_SOURCE)
        done = subprocess.run(
            [cc, "-O2", "-shared", "-fPIC", "-o", str(out), str(src), "-lm"],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            said = done.stderr.strip() or done.stdout.strip() or "no message"
            raise RuntimeError(
                f"{cc} could not compile the timing kernel into {cache} (exit status "
                f"{done.returncode}): {said[-500:]}\nFree space there if it is full, or set "
                "ENSEMBLE_REPRO_CACHE to another directory of your own"
            )
        os.chmod(out, 0o700)
        os.replace(out, lib)


#: Libraries loaded by this process, by (device, inode).
_LOADED: dict[tuple[int, int], ctypes.CDLL] = {}


def _library() -> ctypes.CDLL:
    """Compile (once) and load the C kernel.

    The cache directory is opened by :func:`_open_private_dir` (no component another user
    can change), the library inside it with ``O_NOFOLLOW``; the open descriptor is checked
    (regular file, this user's, not group/other-writable) and that same descriptor is what
    the dynamic loader opens (``/proc/self/fd/N``), so nothing can be swapped between the
    check and the load.
    """
    tag = hashlib.sha256(_SOURCE.encode()).hexdigest()[:16]
    cache = cache_dir()
    lib = cache / f"cascade_{tag}.so"
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    dfd = _open_private_dir(cache)
    try:
        try:
            fd = os.open(lib.name, flags, dir_fd=dfd)
        except FileNotFoundError:
            _compile(cache, lib)
            fd = os.open(lib.name, flags, dir_fd=dfd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENXIO):
            raise
        raise _refuse(lib, "it is not a regular file (not a symlink)", "remove it") from exc
    finally:
        os.close(dfd)
    try:
        st = _check_library(fd, lib)
        key = (st.st_dev, st.st_ino)
        if key not in _LOADED:
            fd_dir = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
            try:
                dll = ctypes.CDLL(f"{fd_dir}/{fd}")
                dll.cascade_eval.restype = None
            except (OSError, AttributeError) as exc:
                raise OSError(
                    f"the compiled timing kernel {lib} cannot be loaded ({exc}): the file is "
                    "damaged (a full disk or an interrupted copy?). Delete it; it is compiled "
                    "again on next use"
                ) from None
            _LOADED[key] = dll
        return _LOADED[key]
    finally:
        os.close(fd)


def _ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)


def never_stop(T: int, beta: float = 0.0) -> Cascade:
    """The full ensemble as a cascade: natural order, no early stop.

    Parameters
    ----------
    T : int
        Number of base models.
    beta : float, default=0.0
        Decision threshold.

    Returns
    -------
    Cascade

    Examples
    --------
    >>> from ensemble_repro.qwyc import evaluate_cascade, never_stop
    >>> evaluate_cascade(never_stop(3), np.array([[5.0, -1.0, -1.0]]), 0.0)
    (array([ True]), array([3]))
    """
    if isinstance(T, bool | np.bool_) or not isinstance(T, numbers.Integral) or T < 1:
        raise ValueError(f"T must be a positive integer (the number of base models); got {T!r}")
    if isinstance(beta, bool | np.bool_) or not (
        isinstance(beta, numbers.Real) and np.isfinite(beta)
    ):
        raise ValueError(f"beta must be a finite number (the decision threshold); got {beta!r}")
    return Cascade.from_steps(
        np.arange(T), [[]] * (T - 1), [[-np.inf]] * (T - 1), [[np.inf]] * (T - 1), beta
    )


class CascadeTimer:
    """Per-example evaluation of a fitted cascade on the trees of ``forest``, in C.

    Deployment-style timing for the QWYC paper's Tables 2-4: one example at a time, tree by
    tree in the cascade's order, stopping as the cascade says. The C kernel is compiled on
    first use (see the module docstring for the cache and its checks).

    Parameters
    ----------
    forest : FlatForest
        The model's trees (:func:`flatten_model`).
    base : float
        The model's initial score b0.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> from ensemble_repro.qwyc import CascadeTimer, QuitWhenYouCan, flatten_model
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> gbt = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    >>> qwyc = QuitWhenYouCan(0.01, estimator=gbt).fit(X)
    >>> base, forest = flatten_model(gbt)
    >>> decision, n_evaluated, seconds = CascadeTimer(forest, base).run(qwyc.cascade_, X)
    >>> bool((n_evaluated == qwyc.n_evaluated(X)).all())
    True
    """

    def __init__(self, forest: FlatForest, base: float):
        if not isinstance(forest, FlatForest):
            raise ValueError(
                f"forest must be a FlatForest (from flatten_model); got {type(forest).__name__}"
            )
        if isinstance(base, bool) or not (
            isinstance(base, numbers.Real) and np.isfinite(float(base))
        ):
            raise ValueError(f"base must be a finite number (from flatten_model); got {base!r}")
        self.forest = forest
        self.base = float(base)
        self._lib = _library()

    def run(self, cascade: Cascade, X):
        """Evaluate every row of ``X`` in turn with the cascade, timed.

        Parameters
        ----------
        cascade : Cascade
            A cascade over this forest's trees.
        X : array-like of shape (N, n_features)
            Examples.

        Returns
        -------
        decision : ndarray of bool, shape (N,)
            Early-exit decisions.
        n_evaluated : ndarray of int, shape (N,)
            Trees evaluated per example.
        seconds : float
            Wall time of the C loop over all N examples.
        """
        # checked again here (arrays can be changed in place after construction): an index
        # out of range would make the C loop read outside its arrays
        fo = dataclasses.replace(self.forest)
        cascade = dataclasses.replace(cascade)
        if cascade.order.size != fo.n_trees:
            raise ValueError(
                f"cascade has {cascade.order.size} steps but the forest {fo.n_trees} trees"
            )
        X = fo.prepare(X)
        n = X.shape[0]
        dec = np.zeros(n, dtype=np.uint8)
        nev = np.zeros(n, dtype=np.int64)
        arrays = [
            np.ascontiguousarray(a)
            for a in (
                fo.feature,
                fo.threshold,
                fo.left,
                fo.right,
                fo.missing_left,
                fo.value,
                fo.roots,
                cascade.order.astype(np.int64),
                cascade.bin_ptr.astype(np.int64),
                cascade.edges,
                cascade.lo,
                cascade.hi,
            )
        ]
        args = [_ptr(X), ctypes.c_long(n), ctypes.c_long(X.shape[1])]
        args += [_ptr(a) for a in arrays[:7]]
        args += [_ptr(arrays[7]), ctypes.c_long(fo.n_trees)]
        args += [_ptr(a) for a in arrays[8:]]
        args += [ctypes.c_double(self.base), ctypes.c_double(cascade.beta), _ptr(dec), _ptr(nev)]
        t0 = time.perf_counter()
        self._lib.cascade_eval(*args)
        seconds = time.perf_counter() - t0
        return dec.astype(bool), nev, seconds

    def per_example_times(self, cascades: dict, X, runs: int) -> dict:
        """Mean per-example time of each named cascade in each of ``runs`` rounds.

        The cascades take turns within a round so machine load affects them alike.

        Parameters
        ----------
        cascades : dict
            Name -> Cascade.
        X : array-like of shape (N, n_features)
            Examples.
        runs : int
            Rounds.

        Returns
        -------
        dict
            Name -> ndarray of shape (runs,), seconds per example in each round.
        """
        if isinstance(runs, bool) or not (isinstance(runs, numbers.Integral) and runs >= 1):
            raise ValueError(f"runs must be a positive integer; got {runs!r}")
        out = {name: np.empty(runs) for name in cascades}
        n = np.asarray(X).shape[0]
        for r in range(runs):
            for name, cas in cascades.items():
                out[name][r] = self.run(cas, X)[2] / n
        return out
