"""preflight: mirror completeness and integrity, verification cache, MEPS availability."""

import errno
import gzip
import importlib
import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ensemble_repro.data import DataError, preflight
from ensemble_repro.data import fetch as fetch_mod
from ensemble_repro.data.catalog import RAW_FILES
from ensemble_repro.data.fetch import XPORT_MAGIC

# The module (the package exports a function of the same name).
preflight_mod = importlib.import_module("ensemble_repro.data.preflight")

SONAR_SHA = RAW_FILES["uci_binary/sonar.all-data"].sha256
NAMES = ["sonar", "banknote"]


def _cfg(mirror, sources=("mirror",), base_url=None, require_all=False):
    return {
        "mirror": None if mirror is None else str(mirror),
        "sources": list(sources),
        "base_url": base_url,
        "timeout_seconds": 5,
        "retries": 1,
        "require_all": require_all,
    }


#: The two mirror files sonar and banknote need.
SMALL_FILES = ("sonar.all-data.gz", "data_banknote_authentication.txt.gz")


@pytest.fixture
def small(mirror, tmp_path):
    """A copy of the two mirror files sonar and banknote need, and a raw dir beside it."""
    dst = tmp_path / "mirror" / "uci_binary"
    dst.mkdir(parents=True)
    for f in SMALL_FILES:
        shutil.copy(mirror / "uci_binary" / f, dst / f)
    return tmp_path / "mirror", str(tmp_path / "resources" / "raw")


def _count_hashing(monkeypatch):
    calls = []
    real = preflight_mod.gunzip_sha256
    monkeypatch.setattr(preflight_mod, "gunzip_sha256", lambda p: calls.append(p) or real(p))
    return calls


def test_complete_mirror_passes_and_is_cached(small, monkeypatch):
    mirror, raw_dir = small
    plan = preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    assert plan.available == NAMES and plan.warnings == []
    cache = json.loads((mirror.parent / "resources" / ".mirror-verified.json").read_text())
    entry = cache[str((mirror / "uci_binary" / "sonar.all-data.gz").resolve())]
    assert entry["sha256"] == SONAR_SHA
    # The files were copied just now, so their hashes are not trusted yet (racy window) ...
    calls = _count_hashing(monkeypatch)
    preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    assert len(calls) == 2
    # ... once they are older than the window, a second run hashes nothing.
    monkeypatch.setattr(preflight_mod, "RACY_NS", 0)
    preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    calls.clear()
    assert preflight(_cfg(mirror), NAMES, raw_dir=raw_dir).available == NAMES
    assert calls == []
    # A changed file (new size/mtime) is verified again.
    f = mirror / "uci_binary" / "sonar.all-data.gz"
    f.write_bytes(gzip.compress(gzip.decompress(f.read_bytes()), mtime=0))
    assert preflight(_cfg(mirror), NAMES, raw_dir=raw_dir).available == NAMES
    assert calls == [f]


def _flip(path):
    raw = bytearray(gzip.decompress(path.read_bytes()))
    raw[1000] ^= 0x01
    return _stored(bytes(raw))


def _stored(data):
    """gzip without compression: equal-length contents give equal-size files."""
    return gzip.compress(data, compresslevel=0, mtime=0)


def _rewrite_keeping_size_and_mtime(path, content):
    st = path.stat()
    assert len(content) == st.st_size
    path.write_bytes(content)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_repaired_file_with_same_size_and_mtime_is_not_reported_stale(small, monkeypatch):
    """A corrupt copy replaced by a good one (``cp -p``: same size, same mtime) must pass."""
    mirror, raw_dir = small
    monkeypatch.setattr(preflight_mod, "RACY_NS", 0)
    f = mirror / "uci_binary" / "sonar.all-data.gz"
    good = _stored(gzip.decompress(f.read_bytes()))
    bad = _flip(f)
    assert len(bad) == len(good)
    f.write_bytes(bad)
    with pytest.raises(DataError, match="decompressed content is"):
        preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    _rewrite_keeping_size_and_mtime(f, good)
    assert preflight(_cfg(mirror), NAMES, raw_dir=raw_dir).available == NAMES


def test_corrupted_file_with_same_size_and_mtime_is_hashed_again(small, monkeypatch):
    mirror, raw_dir = small
    monkeypatch.setattr(preflight_mod, "RACY_NS", 0)
    f = mirror / "uci_binary" / "sonar.all-data.gz"
    good = _stored(gzip.decompress(f.read_bytes()))
    f.write_bytes(good)
    preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    bad = _flip(f)
    assert len(bad) == len(good)
    _rewrite_keeping_size_and_mtime(f, bad)
    with pytest.raises(DataError, match="decompressed content is"):
        preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)


def test_plan_names_and_raw_paths(small):
    plan = preflight(_cfg(small[0]), ["sonar"], raw_dir=small[1])
    assert plan.raw_paths("spambase", "resources/raw") == [
        "resources/raw/uci_binary/spambase.data",
        "resources/raw/uci_binary/spambase.names",
    ]
    assert plan.raw_paths("adult_test") == [
        "resources/raw/adult/adult.data",
        "resources/raw/adult/adult.test",
    ]
    assert "meps" in plan.all_names and "adult_train" in plan.all_names
    assert set(plan.all_groups) == {
        "communities_and_crime",
        "blogfeedback",
        "adult",
        "nomao",
        "uci_binary",
        "meps_2016",
    }
    assert "h192.ssp" in plan.all_filenames and "communities.names" in plan.all_filenames


def test_missing_mirror_file(small):
    mirror, raw_dir = small
    (mirror / "uci_binary" / "sonar.all-data.gz").unlink()
    with pytest.raises(DataError) as err:
        preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    msg = str(err.value)
    for fragment in (
        "sonar.all-data.gz is missing",
        "data set sonar",
        "re-copy",
        "data.mirror",
        "remove 'mirror' from data.sources",
    ):
        assert fragment in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize("case", ["flipped", "truncated"])
def test_corrupt_mirror_file(small, case):
    mirror, raw_dir = small
    f = mirror / "uci_binary" / "sonar.all-data.gz"
    if case == "flipped":
        raw = bytearray(gzip.decompress(f.read_bytes()))
        raw[1000] ^= 0x01
        f.write_bytes(gzip.compress(bytes(raw)))
    else:
        f.write_bytes(f.read_bytes()[:-20])
    with pytest.raises(DataError) as err:
        preflight(_cfg(mirror), NAMES, raw_dir=raw_dir)
    msg = str(err.value)
    assert "sonar.all-data.gz is corrupt" in msg and "re-copy" in msg, msg
    if case == "flipped":
        assert f"expected {SONAR_SHA}" in msg and "decompressed content is " in msg, msg
    else:
        assert "not a complete gzip file" in msg, msg
    assert not (mirror.parent / "resources" / "raw").exists()


def test_mirror_that_is_not_a_directory(tmp_path):
    with pytest.raises(DataError, match="is not a directory"):
        preflight(_cfg(tmp_path / "nowhere"), NAMES, raw_dir=str(tmp_path / "raw"))


def test_raw_file_already_present_needs_no_source(small, mirror):
    _, raw_dir = small
    for key in ("uci_binary/sonar.all-data", "uci_binary/data_banknote_authentication.txt"):
        dst = small[0].parent / "resources" / "raw" / key
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(gzip.decompress((mirror / f"{key}.gz").read_bytes()))
    assert preflight(_cfg(None), NAMES, raw_dir=raw_dir).available == NAMES
    dst.write_bytes(dst.read_bytes() + b"\n")
    with pytest.raises(
        DataError, match=r"data_banknote_authentication.txt is corrupt: .*Delete it"
    ):
        preflight(_cfg(None), NAMES, raw_dir=raw_dir)


def test_no_source_at_all(tmp_path):
    with pytest.raises(
        DataError, match=r"No source can supply uci_binary/sonar.all-data.*data.mirror is not set"
    ):
        preflight(_cfg(None), ["sonar"], raw_dir=str(tmp_path / "raw"))


def test_meps_absent_is_a_warning(small):
    mirror, raw_dir = small
    plan = preflight(_cfg(mirror), ["meps", "sonar"], raw_dir=raw_dir)
    assert plan.available == ["sonar"]
    (msg,) = plan.warnings
    for fragment in (
        "https://meps.ahrq.gov/mepsweb/data_files/pufs/h192ssp.zip",
        f"{mirror}/meps_2016/h192ssp.zip",
        f"{raw_dir}/meps_2016/h192.ssp",
        "MEPS panels are skipped",
        "data.require_all: true",
    ):
        assert fragment in msg, msg


def test_meps_absent_with_require_all_is_an_error(small):
    mirror, raw_dir = small
    with pytest.raises(DataError, match=r"require_all is true.*h192ssp.zip"):
        preflight(_cfg(mirror, require_all=True), ["meps", "sonar"], raw_dir=raw_dir)


def _meps_file(path, content):
    """``content`` stored as the AHRQ zip (member h192.ssp), gzip or plain, by ``path``'s name."""
    if path.suffix == ".zip":
        import zipfile

        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("H192.SSP", content)
    elif path.suffix == ".gz":
        path.write_bytes(gzip.compress(content))
    else:
        path.write_bytes(content)


@pytest.mark.parametrize("name", ["h192ssp.zip", "h192.ssp", "h192.ssp.gz"])
def test_meps_in_mirror_is_available(small, name):
    mirror, raw_dir = small
    (mirror / "meps_2016").mkdir()
    _meps_file(mirror / "meps_2016" / name, XPORT_MAGIC + b"rest")
    assert preflight(_cfg(mirror), ["meps"], raw_dir=raw_dir).available == ["meps"]


@pytest.mark.parametrize(
    "name, content, problem",
    [
        ("h192ssp.zip", None, "File is not a zip file"),
        ("h192ssp.zip", b"<html>", "starts with b'<html>'"),
        ("h192.ssp.gz", None, "Not a gzipped file"),
        ("h192.ssp", b"x", "starts with b'x', not a SAS XPORT header"),
    ],
)
def test_garbage_meps_in_mirror_stops_at_start(small, name, content, problem):
    mirror, raw_dir = small
    (mirror / "meps_2016").mkdir()
    path = mirror / "meps_2016" / name
    if content is None:
        path.write_bytes(b"garbage, not an archive")
    else:
        _meps_file(path, content)
    with pytest.raises(DataError) as err:
        preflight(_cfg(mirror), ["meps"], raw_dir=raw_dir)
    msg = str(err.value)
    assert msg.startswith(f"Mirror file {path} is not the MEPS 2016 (HC-192) transport file")
    assert problem in msg and "h192ssp.zip" in msg, msg


def test_meps_in_raw_dir_must_be_xport(small):
    mirror, raw_dir = small
    local = mirror.parent / "resources" / "raw" / "meps_2016" / "h192.ssp"
    local.parent.mkdir(parents=True)
    local.write_bytes(XPORT_MAGIC + b"rest")
    assert preflight(_cfg(None), ["meps"], raw_dir=raw_dir).available == ["meps"]
    local.write_bytes(b"<html>not found</html>")
    with pytest.raises(DataError, match="not a SAS XPORT file"):
        preflight(_cfg(None), ["meps"], raw_dir=raw_dir)


def test_meps_url_is_probed_with_head(tmp_path):
    heads = []

    class Handler(BaseHTTPRequestHandler):
        def do_HEAD(self):
            heads.append(self.path)
            self.send_response(200 if self.path.endswith("h192ssp.zip") else 404)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        plan = preflight(_cfg(None, sources=["url"], base_url=url), ["meps"], raw_dir=str(tmp_path))
        assert plan.available == ["meps"] and plan.warnings == []
        assert heads == ["/mepsweb/data_files/pufs/h192ssp.zip"]
    finally:
        httpd.shutdown()
        httpd.server_close()
    plan = preflight(_cfg(None, sources=["url"], base_url=url), ["meps"], raw_dir=str(tmp_path))
    assert plan.available == [] and len(plan.warnings) == 1
    assert not list(tmp_path.rglob("*.ssp"))


# ----------------------------------------------------------------------
# Mirror checks: an unreadable file is not called corrupt; a malformed verification cache is
# ignored (the files are hashed again).
# ----------------------------------------------------------------------
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
