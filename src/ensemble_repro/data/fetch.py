"""Fetch one raw file from the first source that works: mirror, official URL, OpenML.

Every file is written to a temporary file beside its destination, checked against its
registered sha256 (MEPS, which has none, against the SAS XPORT header), and renamed only
after the check passes; a failed or corrupt copy is deleted, never used.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import http.client
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..io import atomic_path
from ..logs import get_logger
from .catalog import DataError, RawFile, raw_file

CHUNK = 1 << 20
#: First 80-byte record of every SAS XPORT (v5) file.
XPORT_MAGIC = b"HEADER RECORD*******LIBRARY HEADER RECORD!!!!!!!000000000000000000000000000000  "
MIRROR_HINT = (
    "set data.mirror (or the environment variable ENSEMBLE_REPRO_MIRROR) to a directory "
    "laid out like ../shared/data"
)

log = get_logger("data")


class ChecksumError(DataError):
    """A copy of a raw file does not have the registered sha256."""


class DiskFullError(DataError):
    """The file system receiving a raw file is full (no other source can help)."""


#: ``errno`` values meaning the destination file system has no room (disk full, quota).
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def raise_if_disk_full(err: BaseException, dest: Path, size: int | None) -> None:
    """Raise :class:`DiskFullError` naming ``dest``'s directory when ``err`` is a full disk."""
    if not (isinstance(err, OSError) and err.errno in NO_SPACE):
        return
    try:
        free = f"{shutil.disk_usage(dest.parent).free / 1e6:.1f} MB free"
    except OSError:
        free = "free space unknown"
    need = f"{size / 1e6:.1f} MB" if size else "its size"
    raise DiskFullError(
        f"the disk is full: no space left in {dest.parent} ({os.strerror(err.errno)}, {free}) "
        f"while writing {dest.name}, which needs {need}. Free space on that file system (or run "
        f"from a directory on a larger one) and rerun; the partial copy was deleted."
    ) from None


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def gunzip_sha256(path: str | os.PathLike) -> str:
    """sha256 of the decompressed content of a gzip file; DataError if it is not valid gzip."""
    h = hashlib.sha256()
    try:
        with gzip.open(path, "rb") as fh:
            for block in iter(lambda: fh.read(CHUNK), b""):
                h.update(block)
    except PermissionError:
        raise  # unreadable, not corrupt: the caller says how to get access
    except (EOFError, OSError, zlib.error) as err:
        raise DataError(f"{path} is not a complete gzip file ({err}).") from None
    return h.hexdigest()


def resolve_mirror(data_cfg: Mapping[str, Any]) -> Path | None:
    """The configured mirror directory (relative paths are relative to the working directory)."""
    mirror = data_cfg.get("mirror")
    return Path(mirror).expanduser().absolute() if mirror else None


def mirror_candidates(mirror: Path, raw: RawFile) -> list[Path]:
    """Where the mirror may hold ``raw``: ``<group>/<filename>.gz``; MEPS also as zip or plain."""
    base = mirror / raw.group
    if raw.sha256 is None:  # MEPS: the AHRQ zip, the plain transport file, or gzip
        return [
            base / Path(urllib.parse.urlparse(raw.url).path).name,
            base / raw.filename,
            base / f"{raw.filename}.gz",
        ]
    return [base / f"{raw.filename}.gz"]


def official_url(raw: RawFile, base_url: str | None) -> str:
    """The official URL, with scheme+host replaced by ``base_url`` when it is set."""
    if not base_url:
        return raw.url
    parts = urllib.parse.urlsplit(raw.url)
    return base_url.rstrip("/") + parts.path


def verify(path: Path, raw: RawFile, origin: str) -> None:
    """Raise ChecksumError unless ``path`` is the registered file (see module docstring)."""
    if raw.sha256 is None:
        with open(path, "rb") as fh:
            head = fh.read(len(XPORT_MAGIC))
        if head != XPORT_MAGIC:
            raise ChecksumError(
                f"{origin} did not give a SAS XPORT file (first bytes {head[:20]!r})."
            )
        return
    actual = sha256_file(path)
    if actual != raw.sha256:
        raise ChecksumError(
            f"{origin} gave a corrupt copy of {raw.filename}: sha256 {actual}, "
            f"expected {raw.sha256}; the copy was deleted."
        )


def _extract_member(archive: Path, raw: RawFile, dest: Path, origin: str) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            names = [n for n in zf.namelist() if Path(n).name.lower() == raw.member.lower()]
            if not names:
                raise ChecksumError(f"{origin} has no member {raw.member}.")
            with zf.open(names[0]) as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, CHUNK)
    except (zipfile.BadZipFile, EOFError, zlib.error) as err:
        raise ChecksumError(f"{origin} is not a valid zip archive ({err}).") from None


def _from_mirror(src: Path, raw: RawFile, tmp: Path) -> None:
    try:
        with open(src, "rb"):
            pass
    except PermissionError:
        raise DataError(
            f"mirror file {src} cannot be read (permission denied; the file is not corrupt): "
            "give your user read access or ask its owner"
        ) from None
    if src.name.endswith(".gz"):
        try:
            with gzip.open(src, "rb") as fh, open(tmp, "wb") as out:
                shutil.copyfileobj(fh, out, CHUNK)
        except (EOFError, OSError, zlib.error) as err:
            raise_if_disk_full(err, tmp, raw.size)
            raise ChecksumError(f"mirror file {src} is not a complete gzip file ({err}).") from None
    elif src.suffix == ".zip":
        _extract_member(src, raw, tmp, f"mirror file {src}")
    else:
        try:
            shutil.copyfile(src, tmp)
        except OSError as err:
            raise_if_disk_full(err, tmp, raw.size)
            raise
    verify(tmp, raw, f"mirror file {src}")


def _download(url: str, dest: Path, timeout: float) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as resp, open(dest, "wb") as out:
        expected = resp.headers.get("Content-Length")
        n = 0
        for block in iter(lambda: resp.read(CHUNK), b""):
            out.write(block)
            n += len(block)
    if expected is not None and n != int(expected):
        raise ChecksumError(f"{url} sent {n} of {expected} bytes (connection cut).")


def _from_url(url: str, raw: RawFile, tmp: Path, timeout: float, retries: int) -> None:
    """Download (and unzip) with ``retries`` attempts; the last error is raised."""
    for attempt in range(1, retries + 1):
        try:
            if raw.member and urllib.parse.urlsplit(url).path.lower().endswith(".zip"):
                fd, archive = tempfile.mkstemp(
                    prefix=f".{raw.filename}.", suffix=".zip", dir=tmp.parent
                )
                os.close(fd)
                try:
                    _download(url, Path(archive), timeout)
                    _extract_member(Path(archive), raw, tmp, url)
                finally:
                    Path(archive).unlink(missing_ok=True)
            else:
                _download(url, tmp, timeout)
            verify(tmp, raw, url)
            return
        except urllib.error.HTTPError as err:
            last: Exception = DataError(f"{url}: HTTP {err.code} {err.reason}")
            if 400 <= err.code < 500 and err.code not in (408, 429):
                break
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            raise_if_disk_full(err, tmp, raw.size)
            last = DataError(f"{url}: {getattr(err, 'reason', err) or type(err).__name__}")
        except ChecksumError as err:
            last = err
        log.warning("attempt %d/%d failed: %s", attempt, retries, last)
        if attempt < retries:
            time.sleep(min(0.5 * 2 ** (attempt - 1), 10.0))
    raise DataError(f"{last} (after {attempt} attempt(s))")


def _openml_url(raw: RawFile) -> str:
    """The download URL OpenML records for ``raw`` (dataset description lookup only)."""
    import openml

    ds = openml.datasets.get_dataset(
        raw.openml_id,
        download_data=False,
        download_qualities=False,
        download_features_meta_data=False,
    )
    if str(raw.openml_file_id) not in ds.url:
        raise DataError(
            f"OpenML dataset {raw.openml_id} now points at {ds.url}, not file {raw.openml_file_id}."
        )
    return ds.url


def fetch_raw(
    group: str, filename: str, data_cfg: Mapping[str, Any], out_path: str | os.PathLike
) -> str:
    """Write raw file ``group/filename`` to ``out_path``; return a description of its source."""
    raw = raw_file(group, filename)
    out_path = Path(out_path)
    mirror = resolve_mirror(data_cfg)
    timeout = float(data_cfg.get("timeout_seconds", 60))
    retries = int(data_cfg.get("retries", 3))
    tried: list[str] = []
    for source in data_cfg["sources"]:
        try:
            with atomic_path(out_path) as tmp:
                if source == "mirror":
                    if mirror is None:
                        tried.append("mirror: data.mirror is not set")
                        raise _Skip
                    found = [p for p in mirror_candidates(mirror, raw) if p.is_file()]
                    if not found:
                        where = ", ".join(map(str, mirror_candidates(mirror, raw)))
                        tried.append(f"mirror: none of {where} exists")
                        raise _Skip
                    _from_mirror(found[0], raw, tmp)
                    origin = f"mirror {found[0]}"
                elif source == "url":
                    url = official_url(raw, data_cfg.get("base_url"))
                    _from_url(url, raw, tmp, timeout, retries)
                    origin = url
                elif source == "openml":
                    if raw.openml_file_id is None:
                        tried.append(f"openml: {filename} is not distributed by OpenML as-is")
                        raise _Skip
                    try:
                        url = _openml_url(raw)
                    except Exception as err:  # the openml client raises its own error types
                        raise DataError(
                            f"OpenML lookup of dataset {raw.openml_id} failed "
                            f"({type(err).__name__}: {err})"
                        ) from None
                    _from_url(url, raw, tmp, timeout, retries)
                    origin = f"OpenML dataset {raw.openml_id} ({url})"
                else:
                    raise DataError(
                        f"data.sources contains {source!r}; expected mirror, url or openml."
                    )
        except _Skip:
            continue
        except DiskFullError:
            raise
        except DataError as err:
            tried.append(f"{source}: {err}")
            log.warning("%s: %s failed: %s", raw.key, source, err)
            continue
        log.info("fetched %s from %s", raw.key, origin)
        return origin
    raise DataError(
        f"Could not fetch {raw.key} into {out_path}. Tried, in the order of data.sources "
        f"{list(data_cfg['sources'])}: " + "; ".join(tried) + ". To fix it, "
        f"{MIRROR_HINT}, or make the official URL {raw.url} reachable (data.base_url replaces its "
        f"host), or place the file at {out_path} yourself."
    )


class _Skip(Exception):
    """A source that does not apply to this file (not an error)."""
