"""The compiled QWYC timing kernel's cache cannot be planted by another user.

The tests run as root here, so "another user" is simulated by chowning a planted directory
or file to uid 12345; the checks are on ownership and mode, which root does not bypass.
"""

import os
import stat
from pathlib import Path

import pytest

from ensemble_repro.cache import cache_dir
from ensemble_repro.qwyc import timing

OTHER_UID = 12345


def _lib_name():
    return f"cascade_{timing.hashlib.sha256(timing._SOURCE.encode()).hexdigest()[:16]}.so"


@pytest.fixture
def env(monkeypatch, tmp_path):
    """A fresh XDG cache root; no ENSEMBLE_REPRO_CACHE override."""
    monkeypatch.delenv("ENSEMBLE_REPRO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    return tmp_path


def test_default_cache_is_private_dir_in_xdg_cache_home(env):
    timing._library()
    cache = env / "xdg" / "ensemble-repro"
    st = os.stat(cache)
    assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == 0o700
    lib = cache / _lib_name()
    st = os.stat(lib)
    assert stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022
    # compiled atomically: nothing but the library is left behind, nothing in TMPDIR
    assert sorted(os.listdir(cache)) == [lib.name]
    assert not (env / "tmp").exists()


def test_home_cache_when_xdg_unset(monkeypatch, tmp_path):
    monkeypatch.delenv("ENSEMBLE_REPRO_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "ensemble-repro"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # ignored, as the XDG spec says
    assert cache_dir() == tmp_path / ".cache" / "ensemble-repro"


def test_one_cache_folder_as_platformdirs_names_it_for_kernels_and_calibrations(
    monkeypatch, tmp_path
):
    """The timing kernels and the machine calibrations share the folder platformdirs gives the
    distribution's name (the test-only oracle; the library keeps its own three lines)."""
    import platformdirs

    from ensemble_repro.cost import machine
    from ensemble_repro.cost.units import UnitCosts

    reference = UnitCosts().reference_kernels()

    monkeypatch.delenv("ENSEMBLE_REPRO_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    for xdg in (None, str(tmp_path / "xdg")):
        if xdg is None:
            monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_CACHE_HOME", xdg)
        expected = Path(platformdirs.user_cache_dir("ensemble-repro"))
        assert cache_dir() == expected
        machine.machine_units(measure=lambda families: {f: reference[f] for f in families})
        assert [p.parent for p in expected.rglob("*.json")] == [expected]


@pytest.mark.parametrize("override", [False, True])
def test_refuses_directory_owned_by_another_user(env, monkeypatch, override):
    cache = env / "planted" if override else env / "xdg" / "ensemble-repro"
    if override:
        monkeypatch.setenv("ENSEMBLE_REPRO_CACHE", str(cache))
    cache.mkdir(parents=True, mode=0o700)
    os.chown(cache, OTHER_UID, OTHER_UID)
    with pytest.raises(PermissionError, match=rf"{cache}.*owned by uid {OTHER_UID}, not by you"):
        timing._library()
    assert os.listdir(cache) == []  # nothing compiled into it either


def test_refuses_group_writable_directory(env):
    cache = env / "xdg" / "ensemble-repro"
    cache.mkdir(parents=True)
    os.chmod(cache, 0o770)
    with pytest.raises(PermissionError, match=r"writable by group or others \(mode 770\).*chmod"):
        timing._library()


def test_refuses_planted_library_owned_by_another_user(env):
    cache = env / "xdg" / "ensemble-repro"
    cache.mkdir(parents=True, mode=0o700)
    lib = cache / _lib_name()
    lib.write_bytes(b"not a library: loading it would run someone else's code")
    os.chown(lib, OTHER_UID, OTHER_UID)
    with pytest.raises(PermissionError, match=rf"{lib.name}.*owned by uid {OTHER_UID}"):
        timing._library()


def test_refuses_group_writable_library_and_symlink(env, tmp_path):
    cache = env / "xdg" / "ensemble-repro"
    timing._library()
    lib = cache / _lib_name()
    os.chmod(lib, 0o775)
    with pytest.raises(PermissionError, match=r"writable by group or others \(mode 775\)"):
        timing._library()
    lib.unlink()
    target = tmp_path / "elsewhere.so"
    target.write_bytes(b"x")
    os.symlink(target, lib)
    with pytest.raises(PermissionError, match="not a regular file"):
        timing._library()
