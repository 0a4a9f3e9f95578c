"""Mirror checks: an unreadable file is not called corrupt; a malformed verification cache is
ignored (the files are hashed again)."""

import errno
import gzip
import json
import shutil

import pytest

from ensemble_repro.data import DataError, preflight
from ensemble_repro.data import fetch as fetch_mod
from ensemble_repro.data.registry import RAW_FILES

NAMES = ["sonar", "banknote"]
FILES = ("sonar.all-data.gz", "data_banknote_authentication.txt.gz")


def _cfg(mirror):
    return {
        "mirror": str(mirror),
        "sources": ["mirror"],
        "base_url": None,
        "timeout_seconds": 5,
        "retries": 1,
        "require_all": False,
    }


@pytest.fixture
def small(mirror, tmp_path):
    dst = tmp_path / "mirror" / "uci_binary"
    dst.mkdir(parents=True)
    for f in FILES:
        shutil.copy(mirror / "uci_binary" / f, dst / f)
    return tmp_path / "mirror", str(tmp_path / "resources" / "raw")


def _deny(monkeypatch, name):
    """Reading ``name`` fails as for a file of another user with mode 600 (the tests run as
    root, which chmod cannot lock out)."""
    real = gzip.open

    def guarded(path, *args, **kwargs):
        if str(path).endswith(name):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(fetch_mod.gzip, "open", guarded)


def test_unreadable_mirror_file_is_permission_denied_not_corrupt(small, monkeypatch):
    mirror, raw_dir = small
    _deny(monkeypatch, "sonar.all-data.gz")
    with pytest.raises(DataError) as err:
        preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    msg = str(err.value)
    path = mirror / "uci_binary" / "sonar.all-data.gz"
    assert msg.startswith(f"Mirror file {path} cannot be read: permission denied"), msg
    assert f"`ls -l {path}`" in msg and "chmod u+r" in msg, msg
    assert "corrupt" not in msg.replace("is not at fault", "") and "re-copy" not in msg, msg


def test_unreadable_mirror_file_when_fetching(small, monkeypatch, tmp_path):
    mirror, _ = small
    raw = RAW_FILES["uci_binary/sonar.all-data"]
    real_open = open

    def guarded(path, *args, **kwargs):
        if str(path).endswith("sonar.all-data.gz"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", guarded)
    with pytest.raises(DataError, match=r"cannot be read \(permission denied; the file is not"):
        fetch_mod._from_mirror(mirror / "uci_binary" / "sonar.all-data.gz", raw, tmp_path / "x")


@pytest.mark.parametrize(
    "content",
    [
        "[]",
        "42",
        '{"x": []}',
        "not json",
        None,  # an entry of the right file without hashed_ns / sha256
    ],
)
def test_malformed_verification_cache_is_ignored(small, content):
    mirror, raw_dir = small
    preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    cache = mirror.parent / "resources" / ".mirror-verified.json"
    if content is None:
        entries = json.loads(cache.read_text())
        for entry in entries.values():
            del entry["hashed_ns"]
            del entry["sha256"]
        content = json.dumps(entries)
    cache.write_text(content)
    plan = preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    assert plan.available == NAMES
    rewritten = json.loads(cache.read_text())
    assert isinstance(rewritten, dict) and all("sha256" in e for e in rewritten.values())
