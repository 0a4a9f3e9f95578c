"""The compiled QWYC timing kernel's cache cannot be planted by another user.

The tests run as root here, so "another user" is simulated by chowning a planted directory
or file to uid 12345; the checks are on ownership and mode, which root does not bypass.
"""

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ensemble_repro.cache import cache_dir
from ensemble_repro.qwyc import timing

OTHER_UID = 12345


def _lib_name():
    return f"cascade_{timing.hashlib.sha256(timing._SOURCE.encode()).hexdigest()[:16]}.so"


@pytest.fixture
def env(monkeypatch, tmp_path):
    """A fresh XDG cache root, no ENSEMBLE_REPRO_CACHE override, and no library loaded yet in
    this process."""
    monkeypatch.delenv("ENSEMBLE_REPRO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr(timing, "_LOADED", {})
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


# ----------------------------------------------------------------------
# The compiled QWYC kernel cannot be swapped between its check and its load.
#
# The tests run as root, so "another user" is simulated by chowning a directory, file or link
# to uid 12345; the checks are on ownership and mode, which root does not bypass.
# ----------------------------------------------------------------------
def _planted_library(path, marker):
    """A shared library that creates ``marker`` as soon as it is loaded."""
    src = path.with_suffix(".c")
    src.write_text(
        textwrap.dedent(
            f"""
            #include <stdio.h>
            __attribute__((constructor)) static void planted(void) {{
                FILE *f = fopen("{marker}", "w");
                if (f) fclose(f);
            }}
            void cascade_eval(void) {{}}
            """
        )
    )
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(path), str(src)], check=True)
    src.unlink()


_FLIPPER = """
import os, sys
hub, good, evil, uid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tmp = hub + ".new"
i = 0
while True:
    i += 1
    try:
        os.symlink(good if i % 2 else evil, tmp)
        os.lchown(tmp, uid, uid)
        os.replace(tmp, hub)
    except FileExistsError:
        os.unlink(tmp)
"""


def test_symlink_flip_raced_against_the_load_never_loads_the_planted_library(env, monkeypatch):
    """Another user owns a directory on the cache path and flips a link in it between the
    victim's own cache and a copy holding a planted library, as fast as it can, while the
    victim loads the kernel again and again (through a new path each time, so the dynamic
    loader's cache of loaded names never answers in place of the file)."""
    good = env / "good"
    good.mkdir(mode=0o700)
    timing._compile(good, good / _lib_name())
    evil = env / "evil"
    evil.mkdir(mode=0o755)
    marker = env / "planted-code-ran"
    _planted_library(evil / _lib_name(), marker)
    attacker = env / "attacker"
    attacker.mkdir(mode=0o755)
    hub = attacker / "hub"
    os.symlink(good, hub)
    os.chown(evil / _lib_name(), OTHER_UID, OTHER_UID)
    os.chown(evil, OTHER_UID, OTHER_UID)
    os.chown(attacker, OTHER_UID, OTHER_UID)
    flipper = subprocess.Popen(
        [sys.executable, "-c", _FLIPPER, str(hub), str(good), str(evil), str(OTHER_UID)]
    )
    refused = 0
    try:
        for i in range(300):
            link = attacker / f"cache{i}"
            os.symlink(hub, link)
            os.lchown(link, OTHER_UID, OTHER_UID)
            monkeypatch.setenv("ENSEMBLE_REPRO_CACHE", str(link))
            try:
                timing._library()
            except PermissionError as exc:
                assert "another user could make this process run their code" in str(exc)
                refused += 1
            assert not marker.exists(), f"the planted library was loaded at attempt {i}"
    finally:
        flipper.kill()
        flipper.wait()
    assert refused == 300


def test_refuses_link_owned_by_another_user(env, monkeypatch):
    own = env / "own"
    own.mkdir(mode=0o700)
    sticky = env / "shared"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    link = sticky / "cache"
    os.symlink(own, link)
    os.lchown(link, OTHER_UID, OTHER_UID)
    monkeypatch.setenv("ENSEMBLE_REPRO_CACHE", str(link))
    with pytest.raises(
        PermissionError, match=rf"{link} is a symbolic link owned by uid {OTHER_UID}"
    ):
        timing._library()
    assert os.listdir(own) == []


def test_refuses_group_writable_ancestor(env, monkeypatch):
    parent = env / "team"
    parent.mkdir()
    os.chmod(parent, 0o775)
    cache = parent / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("ENSEMBLE_REPRO_CACHE", str(cache))
    with pytest.raises(
        PermissionError, match=rf"ancestor {parent} is writable by group or others \(mode 775\)"
    ):
        timing._library()
    assert os.listdir(cache) == []


def test_refuses_ancestor_owned_by_another_user(env, monkeypatch):
    parent = env / "theirs"
    parent.mkdir(mode=0o755)
    cache = parent / "cache"
    cache.mkdir(mode=0o700)
    os.chown(parent, OTHER_UID, OTHER_UID)
    monkeypatch.setenv("ENSEMBLE_REPRO_CACHE", str(cache))
    with pytest.raises(PermissionError, match=rf"ancestor {parent} is owned by uid {OTHER_UID}"):
        timing._library()


def test_own_link_in_own_directory_is_followed(env, monkeypatch):
    """``~/.cache`` linked to a scratch directory of one's own works (nobody else can flip
    it); the cache is created at the link's target."""
    scratch = env / "scratch"
    scratch.mkdir(mode=0o700)
    home = env / "home"
    home.mkdir(mode=0o700)
    os.symlink(scratch, home / "cache")
    monkeypatch.setenv("ENSEMBLE_REPRO_CACHE", str(home / "cache" / "ensemble_repro"))
    dll = timing._library()
    assert hasattr(dll, "cascade_eval")
    assert os.listdir(scratch / "ensemble_repro") == [_lib_name()]


def test_planted_fifo_is_refused_without_hanging(env):
    cache = env / "xdg" / "ensemble-repro"
    cache.mkdir(parents=True, mode=0o700)
    os.mkfifo(cache / _lib_name(), 0o600)
    with pytest.raises(PermissionError, match="not a regular file"):
        timing._library()


_SWAP_AFTER_CHECK = """
import os, sys
from ensemble_repro.qwyc import timing
planted = sys.argv[1]
check = timing._check_library

def check_then_swap(fd, path):
    st = check(fd, path)
    os.replace(planted, path)  # the file at the path changes between the check and the load
    return st

timing._check_library = check_then_swap
timing._library()
"""


def test_the_library_loaded_is_the_one_checked(env):
    """The file at the cache path is replaced right after the check, in a fresh process (no
    library loaded yet): the loader must still open the checked file, not the new one."""
    cache = env / "cache"
    cache.mkdir(mode=0o700)
    lib = cache / _lib_name()
    timing._compile(cache, lib)
    marker = env / "planted-code-ran"
    planted = cache / "planted.so"
    _planted_library(planted, marker)
    os.chmod(planted, 0o700)  # this user's and private: only the swap could let it in
    proc = subprocess.run(
        [sys.executable, "-c", _SWAP_AFTER_CHECK, str(planted)],
        env={**os.environ, "ENSEMBLE_REPRO_CACHE": str(cache)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert not planted.exists()  # the swap happened
    assert not marker.exists(), "the loader opened the file swapped in after the check"


def test_a_damaged_library_is_named(env):
    """A library of the right name that the loader cannot map (e.g. cut short by a full
    disk), in a fresh process (none loaded yet under the same /proc/self/fd name)."""
    cache = env / "cache"
    cache.mkdir(mode=0o700)
    lib = cache / _lib_name()
    lib.write_bytes(b"\x7fELF not really")
    lib.chmod(0o700)
    proc = subprocess.run(
        [sys.executable, "-c", "from ensemble_repro.qwyc import timing; timing._library()"],
        env={**os.environ, "ENSEMBLE_REPRO_CACHE": str(cache)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    last = proc.stderr.rstrip().splitlines()[-1]
    assert last.startswith(f"OSError: the compiled timing kernel {lib} cannot be loaded ("), last
    assert last.endswith("Delete it; it is compiled again on next use"), last


def test_a_failed_compile_shows_what_the_compiler_said(env, monkeypatch):
    """cc's own words (here the "No space left on device" of a full cache disk) and the
    cache folder, not a CalledProcessError."""
    cc = env / "cc"
    cc.write_text(
        "#!/bin/sh\necho 'cc1: fatal error: cannot write: No space left on device' >&2\nexit 1\n"
    )
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    cache = env / "xdg" / "ensemble-repro"
    with pytest.raises(RuntimeError) as info:
        timing._library()
    assert str(info.value) == (
        f"{cc} could not compile the timing kernel into {cache} (exit status 1): cc1: fatal "
        "error: cannot write: No space left on device\nFree space there if it is full, or set "
        "ENSEMBLE_REPRO_CACHE to another directory of your own"
    )
