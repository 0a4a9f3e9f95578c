"""A record's manifest (``record.json``) and the integrity check of every file read from it.

The manifest lists, per file of the record, its size and sha256: under ``files`` the files
published from a run (with their slice and source time), under ``record_files`` the record's
own :data:`CONFIG_NAME` and :data:`NOTES_NAME`; under ``publishes`` one entry per publish.
Every command that reads a record reads each file through :func:`checked`: a file that is not
listed, is not a regular file (a symlink is refused, not followed), or differs in size or
sha256 from its entry is refused by name, so an edited, truncated or replaced record file is
never used.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..config import ConfigError, load_yaml_file
from ..io import read_json

#: The record's manifest, its effective config, its notes on the machine's load, and the page
#: generated from them (:mod:`ensemble_repro.record.runmd`; its last section is the notes).
MANIFEST = "record.json"
CONFIG_NAME = "config.yaml"
NOTES_NAME = "notes.md"
RUN_MD = "RUN.md"
#: The record's own files the manifest seals (under ``record_files``), besides the published.
OWN_FILES = (CONFIG_NAME, NOTES_NAME)
#: Files of a record folder that the manifest does not list: itself, and :data:`RUN_MD`
#: (generated from the listed files).
UNLISTED = (MANIFEST, RUN_MD)
_SHA256 = re.compile(r"[0-9a-f]{64}")


class RecordError(RuntimeError):
    """A record cannot be published, restored or read as asked (the message says why and the fix)."""


def sha256(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_entry(path: str | os.PathLike) -> dict[str, Any]:
    """``bytes`` and ``sha256`` of a file, as the manifest lists it."""
    return {"bytes": Path(path).stat().st_size, "sha256": sha256(path)}


def _fix(record: Path) -> str:
    return f"restore the record from git (git checkout -- {record}) or republish it"


def empty_manifest() -> dict:
    """The manifest of a record not yet published."""
    return {"files": {}, "record_files": {}, "publishes": []}


def read_manifest(record: str | os.PathLike, missing_ok: bool = False) -> dict:
    """The record's :data:`MANIFEST`, checked for its shape.

    Parameters
    ----------
    record : str or Path
        The record folder.
    missing_ok : bool
        Return :func:`empty_manifest` for a record without a manifest (what a first publish
        starts from); otherwise a missing manifest is an error.

    Raises
    ------
    RecordError
        The record is not a folder, or the manifest is missing, not JSON, or not a mapping of
        ``files`` and ``record_files`` (each path -> ``bytes``, ``sha256``) and ``publishes``
        (a list).
    """
    record = Path(record)
    path = record / MANIFEST
    if record.exists() and not record.is_dir():
        raise RecordError(f"record {record} is not a folder: give a record folder (record/paper)")
    if not path.exists() and not path.is_symlink():
        if missing_ok:
            return empty_manifest()
        raise RecordError(
            f"{path} is missing: {record} is not a record written by publish, or its manifest "
            f"was deleted; {_fix(record)}"
        )
    if path.is_symlink() or not path.is_file():
        raise RecordError(f"{path} is not a regular file: {_fix(record)}")
    try:
        data = read_json(path)
    except (ValueError, UnicodeDecodeError) as err:
        raise RecordError(f"{path} is not valid JSON ({err}): {_fix(record)}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{path} holds {type(data).__name__}, not a mapping: {_fix(record)}")
    data.setdefault("record_files", {})
    for key, kind in (("files", dict), ("record_files", dict), ("publishes", list)):
        if not isinstance(data.get(key), kind):
            raise RecordError(
                f"{path}: '{key}' is {type(data.get(key)).__name__}, not a "
                f"{'mapping of path -> entry' if kind is dict else 'list'}: {_fix(record)}"
            )
    for key in ("files", "record_files"):
        for rel, entry in data[key].items():
            if not (
                isinstance(entry, dict)
                and isinstance(entry.get("bytes"), int)
                and not isinstance(entry.get("bytes"), bool)
                and isinstance(entry.get("sha256"), str)
                and _SHA256.fullmatch(entry["sha256"])
            ):
                raise RecordError(
                    f"{path}: the entry of {rel!r} under '{key}' is {entry!r:.80}, not "
                    f"{{'bytes': int, 'sha256': 64 hex digits}}: {_fix(record)}"
                )
    return data


def _entry(manifest: dict, rel: str) -> dict | None:
    section = "record_files" if rel in OWN_FILES else "files"
    return manifest[section].get(rel)


def checked(record: str | os.PathLike, rel: str, manifest: dict) -> Path:
    """The record's file ``rel``, after checking it against ``manifest``.

    Parameters
    ----------
    record : str or Path
        The record folder.
    rel : str
        The file's path relative to it (POSIX).
    manifest : dict
        The record's manifest (:func:`read_manifest`).

    Returns
    -------
    Path
        ``record / rel``.

    Raises
    ------
    RecordError
        The file is not listed, missing, not a regular file (a symlink included), or its size
        or sha256 is not the listed one.
    """
    record = Path(record)
    path = record / rel
    entry = _entry(manifest, rel)
    if entry is None:
        raise RecordError(f"{path} is not listed in {record / MANIFEST}: {_fix(record)}")
    try:
        st = path.lstat()
    except FileNotFoundError:
        raise RecordError(f"{path} is listed in {MANIFEST} but missing: {_fix(record)}") from None
    if not stat.S_ISREG(st.st_mode):
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise RecordError(f"{path} is {what}: {_fix(record)}")
    if st.st_size != entry["bytes"]:
        raise RecordError(
            f"{path} holds {st.st_size} bytes, {MANIFEST} lists {entry['bytes']} (edited or "
            f"truncated): {_fix(record)}"
        )
    if sha256(path) != entry["sha256"]:
        raise RecordError(
            f"{path}: sha256 differs from the one {MANIFEST} lists (edited): {_fix(record)}"
        )
    return path


def checked_all(record: str | os.PathLike, manifest: dict, rels: Iterable[str]) -> list[Path]:
    """:func:`checked` of each of ``rels``."""
    return [checked(record, rel, manifest) for rel in rels]


def unlisted(record: str | os.PathLike, manifest: dict) -> list[str]:
    """Files (and symlinks) of the record folder that the manifest does not list, hidden
    files and :data:`UNLISTED` aside."""
    record = Path(record)
    out = []
    for p in record.rglob("*"):
        rel = p.relative_to(record)
        if p.is_dir() and not p.is_symlink():
            continue
        if any(part.startswith(".") for part in rel.parts) or rel.as_posix() in UNLISTED:
            continue
        if _entry(manifest, rel.as_posix()) is None:
            out.append(rel.as_posix())
    return sorted(out)


def check_record(record: str | os.PathLike) -> dict:
    """Check a whole record: every file the manifest lists, and no file beside them.

    Returns
    -------
    dict
        The manifest.

    Raises
    ------
    RecordError
        As :func:`checked`, or the record holds a file the manifest does not list.
    """
    record = Path(record)
    manifest = read_manifest(record)
    extra = unlisted(record, manifest)
    if extra:
        raise RecordError(
            f"{record / extra[0]} is not listed in {record / MANIFEST} ({len(extra)} such "
            f"file(s)): {_fix(record)}"
        )
    checked_all(record, manifest, manifest["files"])
    checked_all(record, manifest, manifest["record_files"])
    return manifest


def read_config(record: str | os.PathLike, manifest: dict) -> dict:
    """The record's :data:`CONFIG_NAME`, checked (:func:`checked`) and parsed by the project's
    strict loader (:func:`ensemble_repro.config.load_yaml_file`)."""
    record = Path(record)
    if not (record / CONFIG_NAME).exists():
        raise RecordError(
            f"{record / CONFIG_NAME} is missing: republish the record (publish writes it)"
        )
    path = checked(record, CONFIG_NAME, manifest)
    try:
        return load_yaml_file(path)
    except ConfigError as err:
        raise RecordError(f"the record's config is not usable: {err}") from None


def seal_own_files(record: str | os.PathLike, manifest: dict) -> dict:
    """Set ``manifest['record_files']`` to the entries of the record's own files
    (:data:`OWN_FILES` that exist) as they are now; returns ``manifest``."""
    record = Path(record)
    manifest["record_files"] = {
        name: file_entry(record / name) for name in OWN_FILES if (record / name).is_file()
    }
    return manifest
