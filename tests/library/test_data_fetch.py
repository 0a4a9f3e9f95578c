"""Fetching raw files: mirror, HTTP (a local server laid out like the official URLs), failures."""

import errno
import gzip
import hashlib
import io
import os
import socket
import threading
import urllib.parse
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ensemble_repro.data import DataError, fetch_raw
from ensemble_repro.data.catalog import RAW_FILES

SONAR = RAW_FILES["uci_binary/sonar.all-data"]
GERMAN = RAW_FILES["uci_binary/german.data"]
BLOG = RAW_FILES["blogfeedback/blogData_train.csv"]


def _cfg(sources, mirror=None, base_url=None, retries=2):
    return {
        "mirror": None if mirror is None else str(mirror),
        "sources": sources,
        "base_url": base_url,
        "timeout_seconds": 10,
        "retries": retries,
        "require_all": False,
    }


def _raw(mirror, key):
    return gzip.decompress((mirror / f"{key}.gz").read_bytes())


def _leftovers(directory):
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


class _Server:
    """Serves ``files`` (URL path -> bytes); ``faults`` (path -> list of 'fail'/'truncate'/'wrong')
    are consumed one per request before the file is served normally."""

    def __init__(self, files):
        self.files, self.faults, self.hits = files, {}, {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                outer.hits[path] = outer.hits.get(path, 0) + 1
                fault = outer.faults.get(path, []).pop(0) if outer.faults.get(path) else None
                body = outer.files.get(path)
                if body is None or fault == "fail":
                    self.send_error(404 if body is None else 503)
                    return
                if fault == "wrong":
                    body = body[:-10] + b"0123456789"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if fault == "truncate" else body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def server(mirror):
    blog_zip = io.BytesIO()
    with zipfile.ZipFile(blog_zip, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("blogData_train.csv", _raw(mirror, BLOG.key))
        zf.writestr("blogData_test-2012.02.01.00_00.csv", b"1,2\n")
    files = {urllib.parse.urlsplit(r.url).path: _raw(mirror, r.key) for r in (SONAR, GERMAN)}
    files[urllib.parse.urlsplit(BLOG.url).path] = blog_zip.getvalue()
    srv = _Server(files)
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def _sonar_path():
    return urllib.parse.urlsplit(SONAR.url).path


@pytest.mark.parametrize("raw", [SONAR, BLOG], ids=["plain", "zip-member"])
def test_http_fetch_has_the_registered_sha256(server, tmp_path, raw):
    out = tmp_path / raw.group / raw.filename
    origin = fetch_raw(raw.group, raw.filename, _cfg(["url"], base_url=server.url), out)
    assert origin == server.url + urllib.parse.urlsplit(raw.url).path
    assert hashlib.sha256(out.read_bytes()).hexdigest() == raw.sha256
    assert _leftovers(out.parent) == [raw.filename]


def test_http_retries_after_server_errors(server, tmp_path):
    server.hits.clear()
    server.faults[_sonar_path()] = ["fail", "truncate"]
    out = tmp_path / "sonar.all-data"
    fetch_raw("uci_binary", "sonar.all-data", _cfg(["url"], base_url=server.url, retries=3), out)
    assert server.hits[_sonar_path()] == 3
    assert hashlib.sha256(out.read_bytes()).hexdigest() == SONAR.sha256


@pytest.mark.parametrize(
    "fault, message",
    [
        ("truncate", r"sent \d+ of \d+ bytes"),
        (
            "wrong",
            rf"corrupt copy of sonar.all-data: sha256 [0-9a-f]{{64}}, expected {SONAR.sha256}",
        ),
    ],
)
def test_http_bad_file_is_an_error_and_leaves_nothing(server, tmp_path, fault, message):
    server.hits.clear()
    server.faults[_sonar_path()] = [fault, fault]
    out = tmp_path / "uci_binary" / "sonar.all-data"
    with pytest.raises(DataError, match=message):
        fetch_raw(
            "uci_binary", "sonar.all-data", _cfg(["url"], base_url=server.url, retries=2), out
        )
    assert server.hits[_sonar_path()] == 2
    assert _leftovers(out.parent) == []


def test_http_404_is_not_retried(server, tmp_path):
    server.hits.clear()
    out = tmp_path / "wdbc.data"
    with pytest.raises(DataError, match="HTTP 404"):
        fetch_raw("uci_binary", "wdbc.data", _cfg(["url"], base_url=server.url, retries=3), out)
    assert sum(server.hits.values()) == 1


def test_offline_without_mirror_names_file_url_and_config_key(tmp_path):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens on this port any more
    out = tmp_path / "adult" / "adult.data"
    with pytest.raises(DataError) as err:
        fetch_raw(
            "adult", "adult.data", _cfg(["mirror", "url"], base_url=f"http://127.0.0.1:{port}"), out
        )
    msg = str(err.value)
    for fragment in (
        "adult/adult.data",
        "mirror: data.mirror is not set",
        f"http://127.0.0.1:{port}/ml/machine-learning-databases/adult/adult.data",
        "after 2 attempt(s)",
        "data.mirror",
        "ENSEMBLE_REPRO_MIRROR",
    ):
        assert fragment in msg, msg
    assert _leftovers(out.parent) == []


def test_mirror_fetch_gunzips_and_checks(mirror, tmp_path):
    out = tmp_path / "german.data"
    origin = fetch_raw("uci_binary", "german.data", _cfg(["mirror", "url"], mirror=mirror), out)
    assert origin.endswith("uci_binary/german.data.gz")
    assert hashlib.sha256(out.read_bytes()).hexdigest() == GERMAN.sha256


def _small_mirror(tmp_path, mirror, content):
    d = tmp_path / "mirror" / "uci_binary"
    d.mkdir(parents=True)
    if content is not None:
        (d / "sonar.all-data.gz").write_bytes(content)
    return tmp_path / "mirror"


@pytest.mark.parametrize(
    "case, message",
    [
        (
            "flipped",
            rf"corrupt copy of sonar.all-data: sha256 [0-9a-f]{{64}}, expected {SONAR.sha256}",
        ),
        ("truncated", r"sonar.all-data.gz is not a complete gzip file"),
        ("missing", r"mirror: none of .*sonar.all-data.gz exists"),
    ],
)
def test_bad_mirror_file_is_an_error_and_leaves_nothing(mirror, tmp_path, case, message):
    good = (mirror / "uci_binary" / "sonar.all-data.gz").read_bytes()
    if case == "flipped":
        raw = bytearray(gzip.decompress(good))
        raw[500] ^= 1
        content = gzip.compress(bytes(raw))
    else:
        content = good[: len(good) // 2] if case == "truncated" else None
    small = _small_mirror(tmp_path, mirror, content)
    out = tmp_path / "raw" / "uci_binary" / "sonar.all-data"
    with pytest.raises(DataError, match=message):
        fetch_raw("uci_binary", "sonar.all-data", _cfg(["mirror"], mirror=small), out)
    assert _leftovers(out.parent) == []


def test_bad_mirror_falls_back_to_url(mirror, server, tmp_path):
    good = (mirror / "uci_binary" / "sonar.all-data.gz").read_bytes()
    small = _small_mirror(tmp_path, mirror, good[:100])
    out = tmp_path / "sonar.all-data"
    origin = fetch_raw(
        "uci_binary",
        "sonar.all-data",
        _cfg(["mirror", "url"], mirror=small, base_url=server.url),
        out,
    )
    assert origin.startswith(server.url)
    assert hashlib.sha256(out.read_bytes()).hexdigest() == SONAR.sha256


def test_openml_is_only_used_for_files_it_distributes_as_is(tmp_path):
    out = tmp_path / "sonar.all-data"
    with pytest.raises(
        DataError, match="openml: sonar.all-data is not distributed by OpenML as-is"
    ):
        fetch_raw("uci_binary", "sonar.all-data", _cfg(["openml"]), out)
    assert RAW_FILES["nomao/nomao.arff"].openml_file_id == 1592278
    assert RAW_FILES["adult/adult.data"].openml_id == 1590


def test_unknown_raw_file():
    with pytest.raises(DataError, match="no registered raw file 'uci_binary/iris.data'"):
        fetch_raw("uci_binary", "iris.data", _cfg(["url"]), "x")


def test_openml_source_downloads_the_recorded_file(server, mirror, tmp_path, monkeypatch):
    nomao = RAW_FILES["nomao/nomao.arff"]
    server.files["/data/v1/download/1592278/nomao.arff"] = _raw(mirror, nomao.key)
    monkeypatch.setattr(
        "ensemble_repro.data.fetch._openml_url",
        lambda raw: f"{server.url}/data/v1/download/{raw.openml_file_id}/nomao.arff",
    )
    out = tmp_path / "nomao.arff"
    origin = fetch_raw("nomao", "nomao.arff", _cfg(["openml"]), out)
    assert origin.startswith("OpenML dataset 1486")
    assert hashlib.sha256(out.read_bytes()).hexdigest() == nomao.sha256


def test_openml_client_failure_is_a_data_error(tmp_path, monkeypatch):
    def boom(raw):
        raise ConnectionError("no route to host")

    monkeypatch.setattr("ensemble_repro.data.fetch._openml_url", boom)
    out = tmp_path / "nomao.arff"
    with pytest.raises(DataError, match=r"OpenML lookup of dataset 1486 failed \(ConnectionError"):
        fetch_raw("nomao", "nomao.arff", _cfg(["openml"]), out)
    assert _leftovers(tmp_path) == []


class _FullDisk:
    """``open`` for the fetch module whose files opened for writing fail with ENOSPC."""

    def __init__(self, real_open):
        self.real_open = real_open

    def __call__(self, path, mode="r", *args, **kwargs):
        fh = self.real_open(path, mode, *args, **kwargs)
        if "w" not in mode:
            return fh

        class Full:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fh.close()

            def write(self, data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        return Full()


@pytest.mark.parametrize("sources", [["mirror", "url"], ["url"]])
def test_full_disk_is_reported_as_a_full_disk(mirror, server, tmp_path, monkeypatch, sources):
    monkeypatch.setattr("ensemble_repro.data.fetch.open", _FullDisk(open), raising=False)
    out = tmp_path / "raw" / "uci_binary" / "sonar.all-data"
    with pytest.raises(DataError) as err:
        fetch_raw(
            "uci_binary", "sonar.all-data", _cfg(sources, mirror=mirror, base_url=server.url), out
        )
    msg = str(err.value)
    assert msg.startswith(f"the disk is full: no space left in {out.parent} "), msg
    assert "MB free" in msg and "Free space on that file system" in msg
    for misleading in ("gzip", "corrupt", "attempt"):
        assert misleading not in msg, msg
    assert _leftovers(out.parent) == []
