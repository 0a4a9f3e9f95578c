"""Sealed fixture records: a folder laid out like a record, with the manifest publish would
write for its files (so that the commands reading a record accept it)."""

from __future__ import annotations

from pathlib import Path

from ensemble_repro.io import write_json
from ensemble_repro.record.manifest import (
    MANIFEST,
    OWN_FILES,
    UNLISTED,
    empty_manifest,
    file_entry,
    seal_own_files,
)


def seal(record: Path, publishes: list | None = None) -> dict:
    """Write ``record``'s manifest listing each of its files as they are now (hidden files
    and :data:`UNLISTED` aside); returns it."""
    manifest = empty_manifest()
    manifest["publishes"] = list(publishes or [])
    for p in sorted(record.rglob("*")):
        rel = p.relative_to(record).as_posix()
        if not p.is_file() or rel in UNLISTED or rel in OWN_FILES:
            continue
        if any(part.startswith(".") for part in p.relative_to(record).parts):
            continue
        manifest["files"][rel] = {**file_entry(p), "slice": "all"}
    seal_own_files(record, manifest)
    write_json(record / MANIFEST, manifest)
    return manifest
