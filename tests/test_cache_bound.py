"""vbr's cache is bounded (vbr.engines.c_cache, vbr.cache_folder): the C builds' folder holds at
most $VBR_C_CACHE_MB megabytes, the entries used least recently deleted whole, never one another
process is building or loading, never anything through a link; what no entry needs goes too. The
built parsers and parsed files keep those used last. `vbr cache` shows it, `vbr cache clear`
empties vbr's own files and leaves anyone else's. Each test has a cache folder of its own
(XDG_CACHE_HOME); the entries are written as a build writes them (a library, its sealed sums, its
lock, a sealed reference naming it)."""
import fcntl
import hashlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT
from vbr import private_cache
from vbr.engines import c_cache

HOUR = 3600


@pytest.fixture
def c_folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("VBR_C_CACHE_MB", raising=False)
    folder = private_cache.folder("c")
    assert folder is not None
    return folder


def digest_of(n: int) -> str:
    return hashlib.sha256(f"source {n}".encode()).hexdigest()


def entry(folder: Path, n: int, size: int = 64 << 10, used: float | None = None, refs: int = 1) -> str:
    """Entry n as a build leaves it: a library of `size` bytes, its sealed sums, its lock, and
    `refs` sealed load references naming it; last used `used` seconds after the epoch."""
    digest = digest_of(n)
    lib, sums = c_cache.library_files(folder, digest)
    lib.write_bytes(os.urandom(size))
    assert private_cache.write_sealed(sums, b"c-engine:" + digest.encode(), hashlib.sha256(lib.read_bytes()).digest())
    (folder / f"vbr-{digest[:32]}.lock").touch()
    for r in range(refs):
        key = hashlib.sha256(f"load {n} {r}".encode()).hexdigest()
        assert private_cache.write_sealed(c_cache.reference_file(folder, key), key.encode(), digest.encode())
    if used is not None:
        os.utime(lib, (used, used))
    return digest


def entry_files(folder: Path, digest: str) -> set[str]:
    """The names of the files of one entry: library, sums, lock, and references naming it."""
    names = {f"vbr-{digest[:32]}{end}" for end in (".so", ".sha256", ".lock")}
    for ref in folder.glob("vbr-load-*.ref"):
        if ref.read_bytes()[32:] == digest.encode():
            names.add(ref.name)
    return names


def on_disk(folder: Path, names) -> int:
    """Bytes the named files take on disk, as du counts them."""
    return sum(os.stat(folder / n).st_blocks * 512 for n in names)


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


# ---------------------------------------------------------------------------------- the bound
def test_pruning_past_the_bound_keeps_the_entries_used_last_and_deletes_the_others_whole(c_folder):
    now = time.time()
    digests = [entry(c_folder, n, used=now - (4 - n) * HOUR) for n in range(4)]  # entry 3 used last
    files = [entry_files(c_folder, d) for d in digests]
    sizes = [on_disk(c_folder, f) for f in files]
    assert len(set(sizes)) == 1  # alike: the bound below is counted in entries
    # four entries against a bound of three: over it, so down to 90% of it, 2.7 entries: two stay
    done = c_cache.prune(c_folder, 3 * sizes[0])
    assert names(c_folder) == files[2] | files[3]
    assert done.entries == 2 and done.in_use == 0 and done.left == 2 * sizes[0]


def test_a_folder_within_its_bound_loses_no_entry(c_folder):
    digests = [entry(c_folder, n) for n in range(3)]
    before = names(c_folder)
    size = on_disk(c_folder, before)
    assert c_cache.prune(c_folder, size).entries == 0  # exactly at the bound is within it
    assert names(c_folder) == before == set().union(*(entry_files(c_folder, d) for d in digests))


def test_a_library_used_again_outlives_one_built_after_it(c_folder):
    from vbr.engines.c_engine import build_library
    first = build_library("int vbr_first(void) { return 1; }\n")
    second = build_library("int vbr_second(void) { return 2; }\n")
    past = time.time() - HOUR
    os.utime(first, (past - 60, past - 60))  # built first ...
    os.utime(second, (past, past))
    assert build_library("int vbr_first(void) { return 1; }\n") == first  # ... and found again since
    total = on_disk(c_folder, names(c_folder))
    second_files = {p.name for p in c_folder.glob(second.stem + ".*")}
    assert on_disk(c_folder, second_files) >= total // 10  # one entry is more than a tenth of the folder
    # a byte over the bound: down to 90% of it, which deleting the entry used least recently reaches
    c_cache.prune(c_folder, total - 1)
    assert first.exists() and not any((c_folder / n).exists() for n in second_files)


def test_the_folder_is_scanned_when_its_count_of_writes_is_due(c_folder, monkeypatch):
    """The documented rule: a scan when the count file is missing or reaches PRUNE_EVERY writes,
    none between; with a bound of 0 a scan keeps only the entry in use (the one just built)."""
    from vbr.engines.c_engine import build_library
    monkeypatch.setenv("VBR_C_CACHE_MB", "0")
    a = build_library("int vbr_a(void) { return 1; }\n")  # no count file yet: a scan, which keeps a (in use)
    count = c_folder / c_cache.COUNT
    assert a.exists() and count.stat().st_size == 0
    b = build_library("int vbr_b(void) { return 2; }\n")  # one write counted: no scan
    assert a.exists() and b.exists() and count.stat().st_size == 1
    count.write_bytes(b"." * (c_cache.PRUNE_EVERY - 1))
    c = build_library("int vbr_c(void) { return 3; }\n")  # the PRUNE_EVERY-th write: a scan
    assert c.exists() and not a.exists() and not b.exists()
    assert count.stat().st_size == 0
    assert {p.suffix for p in c_folder.iterdir()} == {".so", ".sha256", ".lock", ".count"}


# ---------------------------------------------------------------------------------- what no entry needs
def test_a_scan_deletes_what_no_entry_needs_and_nothing_else(c_folder):
    kept = entry_files(c_folder, entry(c_folder, 0))
    gone_lib, no_sums, no_lib = digest_of(1), digest_of(2), digest_of(3)
    # references: to a library that is gone, and to none at all
    assert private_cache.write_sealed(c_cache.reference_file(c_folder, "a" * 64), b"k", gone_lib.encode())
    assert private_cache.write_sealed(c_cache.reference_file(c_folder, "b" * 64), b"k", b"no digest")
    (c_folder / f"vbr-{no_sums[:32]}.so").write_bytes(b"a library never sealed")
    (c_folder / f"vbr-{no_lib[:32]}.sha256").write_bytes(b"sums of a library gone")
    (c_folder / f"vbr-{no_lib[:32]}.lock").touch()  # a finished build's lock, its library gone
    old = time.time() - 2 * HOUR  # older than any build lasts
    for name in (f"vbr-{no_lib[:32]}.sha256.4242.tmp", f"vbr-load-{'c' * 32}.ref.4242.tmp"):
        (c_folder / name).write_bytes(b"half written")
        os.utime(c_folder / name, (old, old))
    stale = c_folder / "tmpabcd_123"  # a killed build's temporary folder
    stale.mkdir()
    (stale / "engine.c").write_text("int x;\n")
    os.utime(stale, (old, old))
    fresh = c_folder / "tmpefgh_456"  # a build under way
    fresh.mkdir()
    (fresh / "engine.c").write_text("int y;\n")
    young = f"vbr-{no_lib[:32]}.sha256.4343.tmp"
    (c_folder / young).write_bytes(b"being written")
    others = {"notes.txt", "vbr-1234.so", f"vbr-{'d' * 31}.lock", "vbr-load-x.ref"}  # no names of vbr's
    for name in others:
        (c_folder / name).write_bytes(b"someone's")
    done = c_cache.prune(c_folder, 1 << 30)
    assert names(c_folder) == kept | {fresh.name, young} | others
    assert done.entries == 0 and done.files == 8  # 2 references, library, sums, lock, 2 files and a folder


# ---------------------------------------------------------------------------------- what is in use
HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_SH if sys.argv[2] == "shared" else fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def held_lock():
    """Hold a lock file from another process, as a build (exclusive) or a load (shared) does."""
    holders = []

    def hold(path: Path, how: str):
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), how], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        holders.append(proc)
        assert proc.stdout.readline() == "held\n"
    yield hold
    for proc in holders:
        proc.communicate(timeout=60)


@pytest.mark.parametrize("how", ["exclusive", "shared"])
def test_an_entry_another_process_builds_or_loads_is_not_pruned(c_folder, held_lock, how):
    now = time.time()
    busy = entry(c_folder, 0, used=now - 2 * HOUR)  # used least recently, yet its lock is held
    idle = entry(c_folder, 1, used=now - HOUR)
    busy_files = entry_files(c_folder, busy)
    held_lock(c_folder / f"vbr-{busy[:32]}.lock", how)
    done = c_cache.prune(c_folder, 0)
    assert names(c_folder) == busy_files
    assert done.entries == 1 and done.in_use == 1
    assert not (c_folder / f"vbr-{idle[:32]}.so").exists()


def test_the_files_of_a_build_under_way_are_no_orphans(c_folder, held_lock):
    # a build writes its sums, then moves its library into place, holding its lock throughout
    building = digest_of(5)
    (c_folder / f"vbr-{building[:32]}.sha256").write_bytes(b"sums already sealed")
    lock = c_folder / f"vbr-{building[:32]}.lock"
    lock.touch()
    held_lock(lock, "exclusive")
    c_cache.prune(c_folder, 0)
    assert names(c_folder) == {lock.name, f"vbr-{building[:32]}.sha256"}


def test_a_lock_deleted_while_waited_for_is_taken_anew_at_its_name(c_folder):
    """The pruner deletes an entry's lock file while it holds it: a process that waited on that
    file then holds a file no longer at the name, and must take the one there, else two processes
    would each hold "the" lock of one entry."""
    digest = digest_of(6)
    lock = c_folder / f"vbr-{digest[:32]}.lock"
    waiter_holds, release = threading.Event(), threading.Event()

    def waiter():
        with c_cache.locked(c_folder, digest):
            waiter_holds.set()
            release.wait(60)

    with c_cache.locked(c_folder, digest):
        thread = threading.Thread(target=waiter)
        thread.start()
        time.sleep(0.2)  # the waiter is blocked on the file about to be deleted
        lock.unlink()
    assert waiter_holds.wait(60)
    fd = os.open(lock, os.O_RDWR)  # the file at the name now is the one the waiter holds
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
        release.set()
        thread.join(60)


# ---------------------------------------------------------------------------------- links
def test_pruning_follows_no_link_out_of_the_folder(c_folder, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.so"
    victim.write_bytes(b"someone's library")
    (outside / "engine.c").write_text("int mine;\n")
    digest = digest_of(7)
    (c_folder / f"vbr-{digest[:32]}.so").symlink_to(victim)  # a link where a library would be
    (c_folder / f"vbr-{digest[:32]}.sha256").symlink_to(victim)
    (c_folder / "tmpzzzz_999").symlink_to(outside, target_is_directory=True)  # where a build's folder would be
    os.utime(c_folder / "tmpzzzz_999", (0, 0), follow_symlinks=False)
    c_cache.prune(c_folder, 0)
    assert victim.read_bytes() == b"someone's library" and (outside / "engine.c").exists()
    assert all((c_folder / n).is_symlink() for n in (f"vbr-{digest[:32]}.so", "tmpzzzz_999"))


def test_a_link_in_place_of_the_c_folder_is_not_pruned_through(c_folder, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir(mode=0o700)
    (outside / f"vbr-{digest_of(8)[:32]}.so").write_bytes(b"not in vbr's cache")
    (outside / f"vbr-load-{'e' * 32}.ref").write_bytes(b"x" * 32 + b"f" * 64)  # an orphan, were it vbr's
    c_folder.rmdir()
    c_folder.symlink_to(outside, target_is_directory=True)
    before = names(outside)
    c_cache.prune(c_folder, 0)
    c_cache.clear(c_folder)
    assert names(outside) == before


# ---------------------------------------------------------------------------------- the variable
def test_a_bound_that_is_no_whole_number_of_megabytes_stops_the_c_engine_saying_so(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "VBR_C_CACHE_MB": "1G"}
    proc = subprocess.run([sys.executable, "-m", "vbr", "run", ROOT / "docs" / "tutorial" / "bump.vbr", "--engine",
                           "c", "--quiet"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 1
    assert proc.stderr == ("vbr: error: the C engine cannot run here: VBR_C_CACHE_MB='1G' is not a whole number "
                           "of megabytes\n")


@pytest.mark.parametrize("value,bound", [("", 1024 << 20), ("0", 0), ("250", 250 << 20)])
def test_the_bound_is_the_variables_megabytes_else_one_gibibyte(monkeypatch, value, bound):
    monkeypatch.setenv("VBR_C_CACHE_MB", value)
    assert c_cache.limit() == bound


# ---------------------------------------------------------------------------------- parsers and parses
def test_writing_a_new_parser_keeps_the_four_used_last(tmp_path, monkeypatch):
    from vbr.grammar import parser as P
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = private_cache.folder()
    now = time.time()
    older = [folder / f"parser-{n:032x}.lark" for n in range(5)]  # earlier vbr versions' parsers
    for n, path in enumerate(older):
        path.write_bytes(b"an older parser")
        os.utime(path, (now - (5 - n) * HOUR,) * 2)  # the last one used last
    P._lark.cache_clear()
    try:
        P.parse('game "g"\nstart p\nphase p {\n  end draw\n}\n')  # builds this grammar's parser, and writes it
    finally:
        P._lark.cache_clear()
    (mine,) = {p.name for p in folder.glob("parser-*.lark")} - {p.name for p in older}
    assert {p.name for p in folder.glob("parser-*.lark")} == {mine, *(p.name for p in older[2:])}


def test_a_parser_loaded_from_the_cache_counts_as_used(tmp_path, monkeypatch):
    from vbr.grammar import parser as P
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    text = 'game "g"\nstart p\nphase p {\n  end draw\n}\n'
    P._lark.cache_clear()
    try:
        P.parse(text)
        (built,) = (tmp_path / "vbr").glob("parser-*.lark")
        old = time.time() - HOUR
        os.utime(built, (old, old))
        P._lark.cache_clear()
        P.parse(text)  # loaded from the file
    finally:
        P._lark.cache_clear()
    assert built.stat().st_mtime > old + HOUR / 2


def test_a_parse_read_back_counts_as_used(tmp_path, monkeypatch):
    from vbr import loader as L
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(L, "_parsed", {})
    monkeypatch.setattr(L, "_AST_FILES", 2)
    files = []
    for i in range(3):
        files.append(tmp_path / f"g{i}.vbr")
        files[-1].write_text(f'game "g{i}"\nstart p\nphase p {{ end draw }}\n')
    L.parse_file(files[0])
    L.parse_file(files[1])
    kept = tmp_path / "cache" / "vbr" / "ast"
    first = Path(L._ast_file(files[0], files[0].read_text())[0])
    assert first.exists()
    old = time.time() - HOUR
    for p in kept.iterdir():  # g0's written before g1's
        os.utime(p, (old - 60, old - 60) if p == first else (old, old))
    L._parsed.clear()
    L.parse_file(files[0])  # read back from the disk: used now, so g1's is the one used least recently
    L.parse_file(files[2])
    assert first.exists() and len(list(kept.iterdir())) == 2


# ---------------------------------------------------------------------------------- vbr cache
def vbr(cache: Path, *args):
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("VBR_C_CACHE_MB", None)
    return subprocess.run([sys.executable, "-m", "vbr", *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=600)


def test_vbr_cache_names_the_folder_and_what_each_part_holds(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    folder = private_cache.folder("c")
    entry(folder, 0, refs=2)
    entry(folder, 1, refs=1)
    c_size = on_disk(folder, names(folder))
    proc = vbr(cache, "cache")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == str(cache / "vbr")
    assert lines[1] == (f"  C engine builds (c/): 2 libraries, 3 load references; 9 files, "
                        f"{c_size / (1 << 20):.1f} MB")
    assert lines[2:4] == ["  built parsers (parser-*.lark): 0 files, 0.0 MB", "  parsed rule files (ast/): 0 files, 0.0 MB"]
    assert lines[4] == f"  total: {c_size / (1 << 20):.1f} MB; the C builds are kept under 1,024 MB (VBR_C_CACHE_MB)"


def test_vbr_cache_clear_deletes_vbrs_files_and_leaves_everything_else(tmp_path):
    cache = tmp_path / "cache"
    assert vbr(cache, "check", ROOT / "docs" / "tutorial" / "bump.vbr").returncode == 0  # a parser and a parse
    top = cache / "vbr"
    (top / "c").mkdir(mode=0o700)
    outside = tmp_path / "outside.lark"
    outside.write_bytes(b"someone's")
    others = {top / "notes.txt", top / "parser-old.lark", top / "ast" / "README", top / "c" / "notes.txt",
              top / "c" / "vbr-mine.so"}
    for path in others:
        path.write_bytes(b"someone's")
    link = top / f"parser-{'f' * 32}.lark"  # a link at a parser's name: not vbr's file
    link.symlink_to(outside)
    (top / "native").mkdir()  # the Cython builds of an earlier vbr
    (top / "native" / "old.so").write_bytes(b"retired")
    ours = {p for p in top.rglob("*") if p.is_file() and not p.is_symlink()} - others - {top / "secret"}
    assert {p.parent.name for p in ours} == {"vbr", "ast", "native"}  # a parser, a parse, a retired build
    proc = vbr(cache, "cache", "clear")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("removed 3 files (")  # the parser, the parse, the native folder
    assert all(p.read_bytes() == b"someone's" for p in others)
    assert link.is_symlink() and outside.read_bytes() == b"someone's"
    assert (top / "secret").is_file() and not (top / "native").exists()
    assert not any(p.exists() for p in ours)


def test_vbr_cache_refuses_a_folder_others_may_write(tmp_path):
    cache = tmp_path / "cache"
    (cache / "vbr").mkdir(parents=True)
    (cache / "vbr").chmod(0o777)
    mine = cache / "vbr" / f"parser-{'0' * 32}.lark"
    mine.write_bytes(b"planted")
    for args in (["cache"], ["cache", "clear"]):
        proc = vbr(cache, *args)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr == (f"vbr: error: {cache / 'vbr'} may be written by others (mode 777): vbr neither "
                               "reads nor changes it\n")
    assert mine.exists()


def test_vbr_cache_says_a_bound_that_is_no_whole_number_of_megabytes(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "VBR_C_CACHE_MB": "-5"}
    proc = subprocess.run([sys.executable, "-m", "vbr", "cache"], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == "vbr: error: VBR_C_CACHE_MB='-5' is not a whole number of megabytes\n"
