"""Caches you can trust (issue 38, item 1): a file planted in vbr's cache folder (the built
parser, a parsed rule file, a compiled C engine) is never unpickled or loaded, whatever key it
carries, and a cache folder others may write is not used at all. Each planted payload, if it ran,
would create a marker file; the tests run the real CLI in a subprocess with its own cache."""
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MARK = "planted-payload-ran"


class _Payload:
    """Unpickling this runs `touch MARKER`: what a planted pickle could do."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def vbr(cache: Path, *args):
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=600)


def copied(made: Path, tmp_path: Path) -> Path:
    """A test's own copy of a cache folder a run made, its files' and folders' modes kept (the
    cache's secret with it, so its sums still hold)."""
    return Path(shutil.copytree(made, tmp_path / "cache", symlinks=True))


@pytest.fixture(scope="module")
def checked_once(tmp_path_factory):
    cache = tmp_path_factory.mktemp("checked") / "cache"
    assert vbr(cache, "check", "siatka").returncode == 0
    return cache


@pytest.fixture
def cache(checked_once, tmp_path):
    """A cache made by a first real run: the parser and the engines' files exist."""
    return copied(checked_once, tmp_path)


def test_a_planted_parser_cache_is_never_unpickled(cache, tmp_path):
    marker = tmp_path / MARK
    (parser,) = (cache / "vbr").glob("parser-*")
    fresh = tmp_path / "fresh.vbr"  # a file no parse is kept of, so the parser is needed
    # Lark's own cache format: a hash line, then the pickles it loads before comparing the hash;
    # and a bare pickle: neither is loaded
    for planted in (b"0" * 64 + b"\n" + pickle.dumps(_Payload(marker)), pickle.dumps(_Payload(marker))):
        parser.write_bytes(planted)
        fresh.write_text(f'game "F{len(planted)}"\nseats 2\nstart p\nphase p {{\n  end winner 0\n}}\n', encoding="utf-8")
        assert vbr(cache, "check", fresh).returncode == 0
    assert not marker.exists()


def test_a_planted_parsed_file_is_never_unpickled(cache, tmp_path):
    marker = tmp_path / MARK
    rules = tmp_path / "r.vbr"
    rules.write_text('game "R"\nseats 2\nstart p\nphase p {\n  end winner 0\n}\n', encoding="utf-8")
    assert vbr(cache, "check", rules).returncode == 0
    kept = list((cache / "vbr" / "ast").glob("ast-*"))
    assert kept
    for k in kept:  # the key in front is the one the old format compared: computable by anyone
        data = k.read_bytes()
        k.write_bytes(data[:32] + pickle.dumps(_Payload(marker)))
    assert vbr(cache, "check", rules).returncode == 0
    assert not marker.exists()


def test_a_planted_c_engine_with_a_matching_digest_is_never_loaded(cache, tmp_path):
    import hashlib
    marker = tmp_path / MARK
    assert vbr(cache, "run", "siatka", "--engine", "c", "--quiet").returncode == 0
    (lib,) = (cache / "vbr" / "c").glob("vbr-*.so")
    src = tmp_path / "evil.c"
    src.write_text(f'#include <stdlib.h>\n__attribute__((constructor)) static void run(void) {{ system("touch {marker}"); }}\n')
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    lib.with_suffix(".sha256").write_text(hashlib.sha256(lib.read_bytes()).hexdigest())
    proc = vbr(cache, "run", "siatka", "--engine", "c", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


def test_a_planted_whole_game_caller_with_a_matching_digest_is_never_loaded(cache, tmp_path):
    """The compiled module a run of random games calls the C engine through
    (vbr/engines/whole_game_call.c) is cached beside the engines, under the same seal."""
    import hashlib
    marker = tmp_path / MARK
    assert vbr(cache, "run", "siatka", "--engine", "c", "--quiet").returncode == 0
    engines = set((cache / "vbr" / "c").glob("vbr-*.so"))
    assert vbr(cache, "sim", "siatka", "-n", "3", "--engine", "c", "--workers", "1").returncode == 0
    (lib,) = set((cache / "vbr" / "c").glob("vbr-*.so")) - engines
    src = tmp_path / "evil.c"
    src.write_text(f'#include <stdlib.h>\n__attribute__((constructor)) static void run(void) {{ system("touch {marker}"); }}\n'
                   'void *PyInit_vbr_whole_game_call(void) { return 0; }\n')
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    lib.with_suffix(".sha256").write_text(hashlib.sha256(lib.read_bytes()).hexdigest())
    proc = vbr(cache, "sim", "siatka", "-n", "3", "--engine", "c", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


def test_a_cache_folder_others_may_write_is_not_used_and_a_warning_says_so(cache, tmp_path):
    marker = tmp_path / MARK
    folder = cache / "vbr"
    (parser,) = folder.glob("parser-*")
    parser.write_bytes(pickle.dumps(_Payload(marker)))
    folder.chmod(0o777)
    proc = vbr(cache, "check", "siatka")
    assert proc.returncode == 0
    assert "vbr: warning: not caching:" in proc.stderr and "may be written by others" in proc.stderr
    assert not marker.exists()
    engine = vbr(cache, "run", "siatka", "--engine", "c", "--quiet")
    assert engine.returncode != 0 and "may be written by others" in engine.stderr


def test_a_cache_folder_of_another_user_is_not_used(cache):
    if os.geteuid() != 0:
        pytest.fail("giving the folder to another user takes root (the CI machine's tests run as root)")
    os.chown(cache / "vbr", 65534, 65534)
    proc = vbr(cache, "check", "siatka")
    assert proc.returncode == 0 and "belongs to another user" in proc.stderr


def test_the_cache_folder_and_its_secret_are_the_users_alone(cache):
    assert (cache / "vbr").stat().st_mode & 0o777 == 0o700
    assert (cache / "vbr" / "secret").stat().st_mode & 0o777 == 0o600


def test_processes_starting_at_once_seal_with_one_secret_never_one_half_written(tmp_path, monkeypatch):
    """Two makers of the first secret, one of them stopped mid-write: the other neither reads the
    half-written key (sealing nothing) nor keeps a key of its own that the first overwrites."""
    import threading

    from vbr import private_cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "vbr").mkdir(mode=0o700)
    writing, other_done = threading.Event(), threading.Event()
    draw = os.urandom

    def urandom_that_stalls_the_first_maker(n):
        if threading.current_thread() is first:
            writing.set()
            other_done.wait(60)
        return draw(n)

    monkeypatch.setattr(os, "urandom", urandom_that_stalls_the_first_maker)
    sealed = {}
    first = threading.Thread(target=lambda: sealed.update(first=private_cache.seal(b"k", b"payload")))
    first.start()
    assert writing.wait(60)
    sealed["other"] = private_cache.seal(b"k", b"payload")
    other_done.set()
    first.join(60)
    assert sealed["other"] is not None and sealed["first"] == sealed["other"]
    assert private_cache.unseal(b"k", sealed["other"]) == b"payload"
    assert sorted(p.name for p in (tmp_path / "vbr").iterdir()) == ["secret"]  # no temporary file left


def test_a_secret_that_is_no_key_is_named_with_what_to_do(cache):
    # an emptied secret seals nothing, so no C build can be trusted: the warning says which file
    # and how to get a good one back, rather than only that the build cannot be sealed
    secret = cache / "vbr" / "secret"
    secret.write_bytes(b"")
    proc = vbr(cache, "run", "siatka", "--engine", "c", "--quiet")
    assert f"vbr: warning: not caching: {secret} is not a sealing key of vbr's (32 bytes, this one 0); delete it " \
           "and vbr makes a new one" in proc.stderr
    secret.unlink()
    assert vbr(cache, "run", "siatka", "--engine", "c", "--quiet").returncode == 0


# ------------------------------------------------------------------------------ named pipes
# Opening a named pipe waits for the other end: one at a cache file's name once held vbr forever.
# Every file vbr opens in its cache is opened without waiting and used only if it is a regular file.
HANG_GUARD = 60  # seconds: each run below takes a few on a busy machine, a hang forever
BUMP = Path(__file__).resolve().parent.parent / "docs" / "tutorial" / "bump.vbr"


def vbr_within_guard(cache: Path, *args):
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=HANG_GUARD)


@pytest.fixture(scope="module")
def built_once(tmp_path_factory):
    cache = tmp_path_factory.mktemp("built") / "cache"
    proc = vbr_within_guard(cache, "run", BUMP, "--engine", "c", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return cache


@pytest.fixture
def built(built_once, tmp_path):
    """A cache in which bump was played through the C engine: its parser, parse, library, sums,
    lock and load reference are there."""
    return copied(built_once, tmp_path)


def as_named_pipe(path: Path) -> None:
    path.unlink()
    os.mkfifo(path, 0o600)


def refused_until_deleted(built, path, what: str, delete) -> None:
    """A C run refused in one line naming `path`, a `what` where a regular file belongs, and
    saying to delete it; once `delete()` has, as it says, the build goes on."""
    proc = vbr_within_guard(built, "run", BUMP, "--engine", "c", "--quiet")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (f"vbr: error: the C engine cannot run here: the C engine cannot build: {path} is a {what}, "
                           "not a regular file: vbr uses only regular files in its cache; delete it\n")
    delete()
    assert vbr_within_guard(built, "run", BUMP, "--engine", "c", "--quiet").returncode == 0


def test_a_named_pipe_at_the_c_build_lock_is_refused_at_once_in_one_line(built):
    folder = built / "vbr" / "c"
    (lock,) = folder.glob("vbr-*.lock")
    as_named_pipe(lock)
    for ref in folder.glob("vbr-load-*.ref"):  # without its reference the load builds, under the lock
        ref.unlink()
    refused_until_deleted(built, lock, "named pipe", lock.unlink)


@pytest.mark.parametrize("pattern,unneeded", [
    ("parser-*.lark", "ast/ast-*"),  # the parser is needed only for a file whose parse is not kept
    ("ast/ast-*", None), ("c/vbr-????????????????????????????????.so", None), ("c/vbr-*.sha256", None),
    ("c/vbr-load-*.ref", None)])
def test_a_named_pipe_at_a_cached_file_is_not_read_and_is_made_again(built, pattern, unneeded):
    # what the cache holds can be made again: a pipe in its place is a file not kept, and the run
    # makes it again, a regular file
    (kept,) = (built / "vbr").glob(pattern)
    as_named_pipe(kept)
    for other in (built / "vbr").glob(unneeded or "-"):
        other.unlink()
    proc = vbr_within_guard(built, "run", BUMP, "--engine", "c", "--quiet")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert kept.is_file()


def test_a_named_pipe_as_the_secret_is_named_in_a_warning_not_waited_on(built):
    secret = built / "vbr" / "secret"
    as_named_pipe(secret)
    proc = vbr_within_guard(built, "check", BUMP)
    assert proc.returncode == 0
    assert f"vbr: warning: not caching: {secret} is not a regular file\n" in proc.stderr


@pytest.mark.parametrize("pattern", ["vbr-????????????????????????????????.so", "vbr-*.sha256"])
def test_a_folder_at_the_c_library_or_its_sums_is_named_with_what_to_do(built, pattern):
    # nothing can be moved over a folder: the build says which and to delete it (it said only
    # "cannot build in FOLDER: Is a directory", or "cannot seal its build")
    (kept,) = (built / "vbr" / "c").glob(pattern)
    kept.unlink()
    kept.mkdir(mode=0o700)
    refused_until_deleted(built, kept, "folder", kept.rmdir)
