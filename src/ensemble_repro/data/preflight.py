"""Start-of-run check of every raw file a run needs (no downloads, no jobs).

``preflight`` fails early, with one paragraph saying what to fix, when the mirror is missing a
file or holds a corrupt one, and decides whether MEPS (which cannot be mirrored) is available.
Mirror verifications are cached in ``resources/.mirror-verified.json`` keyed by path, inode, size,
mtime and ctime (see :class:`_HashCache` for when a hit is trusted), so only the first invocation
pays for decompressing and hashing.
"""

from __future__ import annotations

import gzip
import threading
import time
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..io import read_json, write_json
from .catalog import (
    DATASETS,
    MEPS_URL,
    RAW_FILES,
    DataError,
    RawFile,
    prepared_names_for,
    raw_files_for,
)
from .fetch import (
    XPORT_MAGIC,
    gunzip_sha256,
    mirror_candidates,
    official_url,
    resolve_mirror,
    sha256_file,
)

#: Seconds the MEPS HEAD request may take before MEPS counts as unreachable.
MEPS_HEAD_TIMEOUT = 3.0


@dataclass
class DataPlan:
    """What ``preflight`` found: the buildable data sets and the names for wildcard constraints."""

    available: list[str]
    warnings: list[str] = field(default_factory=list)
    all_names: list[str] = field(default_factory=lambda: list(DATASETS))
    all_groups: list[str] = field(
        default_factory=lambda: sorted({f.group for f in RAW_FILES.values()})
    )
    all_filenames: list[str] = field(
        default_factory=lambda: sorted({f.filename for f in RAW_FILES.values()})
    )

    @staticmethod
    def raw_paths(name: str, raw_dir: str = "resources/raw") -> list[str]:
        """The raw files (under ``raw_dir``) the recipe of ``name`` reads."""
        return [f"{raw_dir}/{f.group}/{f.filename}" for f in raw_files_for(name)]


#: A cached hash is trusted only for a file last changed this long before it was hashed: file
#: systems with coarse timestamps can give a file rewritten just after hashing the same times.
RACY_NS = 2_000_000_000


class _HashCache:
    """sha256 values of files keyed by absolute path, inode, size, mtime and ctime.

    A hit is used only when every key field matches, the file had not changed within
    ``RACY_NS`` before it was hashed, and the cached value is the expected one: a mismatch is
    about to stop the run, so it is always confirmed by hashing the file again.
    """

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, dict] = {}
        if path.is_file():
            try:
                entries = read_json(path)
            except (ValueError, OSError):  # unreadable or malformed: hash again
                entries = {}
            if isinstance(entries, dict):
                self.entries = {k: v for k, v in entries.items() if isinstance(v, dict)}
        self.dirty = False

    def sha256(self, path: Path, gz: bool, expected: str | None) -> str:
        started_ns = time.time_ns()
        st = path.stat()
        stamp = {
            "inode": st.st_ino,
            "size": st.st_size,
            "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns,
        }
        key = str(path.resolve())
        hit = self.entries.get(key)
        hashed_ns = hit.get("hashed_ns") if hit else None
        if (
            hit
            and {k: hit.get(k) for k in stamp} == stamp
            and hit.get("sha256") == expected
            and isinstance(hashed_ns, int)
            and max(st.st_mtime_ns, st.st_ctime_ns) + RACY_NS < hashed_ns
        ):
            return hit["sha256"]
        digest = gunzip_sha256(path) if gz else sha256_file(path)
        self.entries[key] = {**stamp, "hashed_ns": started_ns, "sha256": digest}
        self.dirty = True
        return digest

    def save(self) -> None:
        if self.dirty:
            write_json(self.path, self.entries)


def _fix(path: Path) -> str:
    return (
        f"Fix: re-copy {path.name} from the original mirror (../shared/data/"
        f"{path.parent.name}/{path.name}), or point data.mirror (or ENSEMBLE_REPRO_MIRROR) at a "
        f"complete mirror, or remove 'mirror' from data.sources to download the file from its "
        f"official URL instead."
    )


def _check_mirror_file(mirror: Path, raw: RawFile, cache: _HashCache, needed_by: str) -> None:
    path = mirror_candidates(mirror, raw)[0]
    if not path.is_file():
        raise DataError(
            f"Mirror file {path} is missing (needed for the data set {needed_by}). " + _fix(path)
        )
    try:
        actual = cache.sha256(path, gz=True, expected=raw.sha256)
    except PermissionError:
        raise DataError(
            f"Mirror file {path} cannot be read: permission denied (needed for the data set "
            f"{needed_by}); the file itself is not at fault. Fix: give your user read access "
            f"(`ls -l {path}` shows its owner and mode; `chmod u+r` if it is yours, otherwise "
            "ask its owner), or point data.mirror (or ENSEMBLE_REPRO_MIRROR) at a mirror you "
            "can read, or remove 'mirror' from data.sources to download the file instead."
        ) from None
    except DataError as err:
        raise DataError(f"Mirror file {path} is corrupt: {err} " + _fix(path)) from None
    if actual != raw.sha256:
        raise DataError(
            f"Mirror file {path} is corrupt: the sha256 of its decompressed content is "
            f"{actual}, expected {raw.sha256} (needed for the data set {needed_by}). " + _fix(path)
        )


def _is_xport(path: Path) -> bool:
    return _head(path) == XPORT_MAGIC


def _check_meps_mirror_file(path: Path, raw: RawFile) -> None:
    """Refuse a mirrored MEPS file (AHRQ zip, gzip or plain) that does not hold a SAS transport
    file, at start rather than in the job that unpacks it."""
    try:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as zf:
                names = [n for n in zf.namelist() if Path(n).name.lower() == raw.member.lower()]
                if not names:
                    raise ValueError(f"it has no member {raw.member}")
                with zf.open(names[0]) as fh:
                    head = fh.read(len(XPORT_MAGIC))
        elif path.suffix == ".gz":
            with gzip.open(path, "rb") as fh:
                head = fh.read(len(XPORT_MAGIC))
        else:
            head = _head(path)
        if head != XPORT_MAGIC:
            raise ValueError(f"its content starts with {head[:20]!r}, not a SAS XPORT header")
    except (zipfile.BadZipFile, EOFError, zlib.error, gzip.BadGzipFile, ValueError) as err:
        raise DataError(
            f"Mirror file {path} is not the MEPS 2016 (HC-192) transport file: {err}. Fix: "
            f"replace it with {MEPS_URL} (the AHRQ zip, unchanged), or remove it to skip the "
            "MEPS panels."
        ) from None


def _head(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(len(XPORT_MAGIC))


def _url_answers(url: str, timeout: float) -> bool:
    """Whether a HEAD request to ``url`` succeeds within ``timeout`` seconds (DNS included)."""
    answer: list[bool] = []

    def probe() -> None:
        req = urllib.request.Request(url, method="HEAD")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                answer.append(resp.status < 400)
        except (urllib.error.URLError, OSError, ValueError):
            answer.append(False)

    thread = threading.Thread(target=probe, daemon=True)  # the socket timeout does not cover DNS
    thread.start()
    thread.join(timeout)
    return bool(answer and answer[0])


def meps_missing_message(raw_dir: str, mirror: Path | None, fatal: bool = False) -> str:
    where = f"{mirror}/meps_2016/h192ssp.zip" if mirror else "<mirror>/meps_2016/h192ssp.zip"
    status = "and data.require_all is true" if fatal else "so the MEPS panels are skipped"
    switch = (
        "Or set data.require_all: false to skip the MEPS panels with a warning."
        if fatal
        else "Set data.require_all: true to make this an error instead of a warning."
    )
    return (
        f"MEPS 2016 (HC-192) is not available, {status}. To include the MEPS panels, "
        f"download {MEPS_URL} (AHRQ public-use file; its data use agreement applies) and "
        f"put it at {where} (or unzip it and put h192.ssp at {raw_dir}/meps_2016/h192.ssp). "
        f"{switch}"
    )


def _meps_available(data_cfg: Mapping[str, Any], raw_dir: str, mirror: Path | None) -> bool:
    raw = RAW_FILES["meps_2016/h192.ssp"]
    local = Path(raw_dir) / raw.group / raw.filename
    if local.is_file():
        if not _is_xport(local):
            raise DataError(
                f"{local} is not a SAS XPORT file (wrong download?). Delete it and "
                f"download {MEPS_URL} again."
            )
        return True
    sources = data_cfg["sources"]
    if mirror is not None and "mirror" in sources:
        found = [p for p in mirror_candidates(mirror, raw) if p.is_file()]
        if found:
            _check_meps_mirror_file(found[0], raw)
            return True
    if "url" in sources:
        return _url_answers(official_url(raw, data_cfg.get("base_url")), MEPS_HEAD_TIMEOUT)
    return False


def preflight(
    data_cfg: Mapping[str, Any], prepared_names, raw_dir: str = "resources/raw"
) -> DataPlan:
    """Check that every raw file needed by ``prepared_names`` can be obtained (see module doc)."""
    names = prepared_names_for(prepared_names)
    sources = list(data_cfg["sources"])
    mirror = resolve_mirror(data_cfg)
    use_mirror = mirror is not None and "mirror" in sources
    if use_mirror and not mirror.is_dir():
        raise DataError(
            f"data.mirror = {data_cfg['mirror']} ({mirror}) is not a directory. Point "
            f"data.mirror (or ENSEMBLE_REPRO_MIRROR) at a copy of ../shared/data, or set "
            f"it to null and remove 'mirror' from data.sources."
        )
    cache = _HashCache(Path(raw_dir).parent / ".mirror-verified.json")
    plan = DataPlan(available=[])
    try:
        checked: set[str] = set()
        for name in names:
            if name == "meps":
                if _meps_available(data_cfg, raw_dir, mirror):
                    plan.available.append(name)
                elif data_cfg.get("require_all"):
                    raise DataError(meps_missing_message(raw_dir, mirror, fatal=True))
                else:
                    plan.warnings.append(meps_missing_message(raw_dir, mirror))
                continue
            for raw in raw_files_for(name):
                if raw.key not in checked:
                    _check_raw(raw, data_cfg, raw_dir, mirror if use_mirror else None, cache, name)
                    checked.add(raw.key)
            plan.available.append(name)
    finally:
        cache.save()
    return plan


def _check_raw(
    raw: RawFile,
    data_cfg: Mapping[str, Any],
    raw_dir: str,
    mirror: Path | None,
    cache: _HashCache,
    name: str,
) -> None:
    local = Path(raw_dir) / raw.group / raw.filename
    if local.is_file():
        actual = cache.sha256(local, gz=False, expected=raw.sha256)
        if actual == raw.sha256:
            return
        raise DataError(
            f"{local} is corrupt: sha256 {actual}, expected {raw.sha256}. Delete it "
            f"(rm {local}) and rerun; it will be fetched again."
        )
    if mirror is not None:
        _check_mirror_file(mirror, raw, cache, name)
        return
    sources = data_cfg["sources"]
    if "url" in sources or ("openml" in sources and raw.openml_file_id is not None):
        return
    raise DataError(
        f"No source can supply {raw.key} (needed for the data set {name}): "
        f"data.sources = {sources} and data.mirror is "
        f"{'not set' if not data_cfg.get('mirror') else 'not listed in data.sources'}. "
        f"Set data.mirror (or ENSEMBLE_REPRO_MIRROR) to a copy of ../shared/data, or add "
        f"'url' to data.sources, or put the file at {local}."
    )
