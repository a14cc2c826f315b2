"""One native build: Cython, then the C compiler, on the generated source, in a private folder.

Why a module of its own: a build runs other programs on this machine, and every way they can
misbehave is handled here and nowhere else. Each step runs in a process group of its own under a
CPU-time limit (a small trampoline sets it, then becomes the step), so a timeout, Ctrl-C, or a
SIGTERM or SIGHUP to vbr stops the step and whatever it started (the C compiler's own passes); a
step that outlives a vbr killed outright still stops at its CPU limit, and on Linux the step
itself is killed with its parent.
"""
from __future__ import annotations

import hashlib
import importlib.machinery
import os
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time

from vbr import stop_signals
from vbr.errors import UsageError
from vbr.interpreter import native_training

BUILD_SECONDS = 900  # each step (Cython, the C compiler, on one part): wall clock, and CPU of each process
CFLAGS = ("-O2", "-fPIC")  # compiling each part's C
LDFLAGS = ("-shared",)  # linking the parts into one shared library


class NativeUnavailable(UsageError):
    """Native code cannot be had here: the reason, in words a user can act on (the CLI prints it
    as a usage error: the command asked for what this machine cannot give)."""


class BuildStopped(SystemExit):
    """vbr was told to stop (SIGTERM, SIGHUP) while a step ran: the step is stopped and its folder
    removed on the way out, and vbr exits as the signal asks (128 + its number)."""


def unavailable() -> str | None:
    """Why no native build can be made on this machine, or None when one can be tried."""
    try:
        import Cython  # noqa: F401
    except ImportError:
        return "native code needs Cython: install vbr with the `native` extra (pip install 'vbr[native]')"
    if compiler() is None:
        return "native code needs a C compiler (`cc`, or the one in $CC) and none was found"
    if not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
        return "native code needs Python's C headers (Python.h), and this Python has none (python3-dev)"
    return None


def compiler() -> list[str] | None:
    """The C compiler's command, its program as an absolute path (the steps run in the build
    folder, where a relative `./cc` would name nothing)."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    try:
        argv = shlex.split(cc)
    except ValueError:  # an unclosed quote in $CC
        return None
    found = shutil.which(argv[0]) if argv else None
    return [os.path.abspath(found), *argv[1:]] if found else None


def cpus() -> int:
    """The CPUs this process may run on (its affinity, where the platform says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def suffix() -> str:
    return importlib.machinery.EXTENSION_SUFFIXES[0]


def part_names(name: str, parts: int) -> list[str]:
    """The modules one built file holds: one per part of the generated source."""
    return [f"{name}_{i}" for i in range(parts)]


def build(texts: list[str], name: str, folder: str, path: str, headers: dict[str, str] | None = None,
          train=None) -> bytes:
    """Build `texts` as the extension modules `part_names(name, len(texts))`, all in the one
    shared library at `path`: the steps in a private folder, each part's Cython and C compiler
    running at once with the other parts' (as many at a time as there are CPUs: the C compiler
    takes most of a build, about 100 s for 500,000 characters at -O2), the result moved into
    place whole (a process starting meanwhile never reads half a file), its hash written beside
    it last; `headers` (name: text) are written beside the sources, for their cimports. With
    `train(data)`, which plays games on the library whose bytes it is given, the build is
    profile-guided where it can be (native_training.py). Returns the built file's bytes."""
    with tempfile.TemporaryDirectory(dir=folder) as work:
        parts = part_names(name, len(texts))
        sources, c_files, objects = ([os.path.join(work, n + ext) for n in parts] for ext in (".py", ".c", ".o"))
        for source, text in [*zip(sources, texts), *((os.path.join(work, n), t) for n, t in (headers or {}).items())]:
            with open(source, "w", encoding="utf-8") as f:
                f.write(text)
        # -I and the private folder as the working directory: no `cython.py` lying where the user
        # stands (beside a rule file, say) is ever imported in Cython's place
        run_all([[sys.executable, "-I", "-m", "cython", "-3", "--fast-fail", source, "-o", c_file]
                 for source, c_file in zip(sources, c_files)], "Cython", work)
        built = os.path.join(work, name + suffix())
        profile = ()
        if train is not None and native_training.GAMES > 0:
            with stop_signals.raising(_stopped):  # SIGTERM, SIGHUP: BuildStopped, through the cleanup
                if native_training.possible(compiler()):
                    profile = _trained(c_files, objects, built, work, train)
        data = _compiled(c_files, objects, built, work, profile)
        os.replace(built, path)
        tmp = os.path.join(work, "sha256")  # removed with the folder if the write fails
        with open(tmp, "w", encoding="ascii") as f:
            f.write(hashlib.sha256(data).hexdigest() + "\n")
        os.replace(tmp, path + ".sha256")
    return data


def _compiled(c_files: list[str], objects: list[str], built: str, work: str, flags: tuple = (),
              link: tuple = ()) -> bytes:
    """Compile every part (at once) with `flags` added, and link them into `built` with `link`
    added; the library's bytes."""
    include = sysconfig.get_paths()["include"]
    run_all([[*compiler(), *CFLAGS, *flags, "-I", include, "-c", c_file, "-o", obj]
             for c_file, obj in zip(c_files, objects)], "the C compiler", work)
    run([*compiler(), *LDFLAGS, *link, *_platform_flags(), *objects, "-o", built], "the C compiler", work)
    with open(built, "rb") as f:
        return f.read()


def _trained(c_files: list[str], objects: list[str], built: str, work: str, train) -> tuple:
    """The flags of the final compile: USE once an instrumented build has been trained (its
    profile is then beside the objects), none if it could not be (a compiler without profiling
    support, a training that did not finish)."""
    try:
        data = _compiled(c_files, objects, built, work, native_training.GENERATE, native_training.GENERATE)
    except NativeUnavailable:
        return ()
    return native_training.USE if native_training.trained(lambda: train(data)) else ()


# Run as `python -I -c LIMITED SECONDS PROGRAM ARGS...`: limits its own CPU time, asks Linux to
# kill it when vbr dies, and becomes PROGRAM; a PROGRAM that cannot be run is one line and exit 127.
LIMITED = """\
import os, sys
try:
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (int(sys.argv[1]), int(sys.argv[1]) + 5))
except (ImportError, ValueError, OSError):
    pass
if sys.platform.startswith("linux"):
    try:
        import ctypes, signal
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as exc:
    print(f"cannot run {sys.argv[2]}: {exc.strerror}", file=sys.stderr)
    sys.exit(127)
"""
CANNOT_RUN = 127


def run(argv: list[str], what: str, cwd: str) -> None:
    run_all([argv], what, cwd)


def run_all(steps: list[list[str]], what: str, cwd: str) -> None:
    """Steps that do not depend on each other, as many at once as there are CPUs, each in a
    process group of its own and stopped with all it started if it takes longer than
    BUILD_SECONDS, or with every other step if one fails or vbr is interrupted or told to stop."""
    waiting = list(steps)
    running: list[tuple[subprocess.Popen, object, float]] = []  # (step, its output, its deadline)
    at_once = cpus()
    with stop_signals.raising(_stopped):  # SIGTERM, SIGHUP: BuildStopped, through the cleanup
        try:
            while waiting or running:
                while waiting and len(running) < at_once:
                    _start(waiting.pop(0), what, cwd, running)
                time.sleep(0.02)
                for entry in list(running):
                    step, log, deadline = entry
                    if step.poll() is not None:
                        running.remove(entry)
                        try:
                            if step.returncode != 0:
                                _kill(step)  # what a failed step started (a compiler wrapper's passes)
                            _check(step.returncode, log, what)
                        finally:
                            log.close()
                    elif time.monotonic() > deadline:
                        raise NativeUnavailable(f"{what} took more than {BUILD_SECONDS} s on the generated code")
        finally:
            # left running only when the build stops (a failure, a signal, Ctrl-C): every group is
            # killed first, which never blocks, so that a second signal while waiting for them
            # leaves nothing running
            for step, _, _ in running:
                _kill(step)
            for step, log, _ in running:
                log.close()
                step.wait()


def _start(argv: list[str], what: str, cwd: str, running: list) -> None:
    # the step's output in a file of its own: steps running at once never wait on a full pipe
    log = tempfile.TemporaryFile("w+", dir=cwd, encoding="utf-8", errors="replace")
    try:
        step = subprocess.Popen([sys.executable, "-I", "-c", LIMITED, str(BUILD_SECONDS), *argv],
                                stdout=log, stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True)
    except BaseException as exc:
        log.close()
        if isinstance(exc, OSError):
            raise NativeUnavailable(f"{what} could not be run: {exc.strerror}") from None
        raise
    running.append((step, log, time.monotonic() + BUILD_SECONDS))


def _check(code: int, log, what: str) -> None:
    if code == 0:
        return
    log.seek(0)
    last = log.read().strip().splitlines()[-3:]
    if code == CANNOT_RUN and last and last[-1].startswith("cannot run "):
        raise NativeUnavailable(f"{what} could not be run: {last[-1][len('cannot run '):]}")
    if code == -getattr(signal, "SIGXCPU", 0):
        raise NativeUnavailable(f"{what} used more than {BUILD_SECONDS} s of CPU time on the generated code")
    how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
    raise NativeUnavailable(f"{what} failed on the generated code ({how})" + (": " + " / ".join(last) if last else ""))


def _kill(step: subprocess.Popen) -> None:
    """Kill the step's process group (the step and all it started); does not wait."""
    try:
        os.killpg(step.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups here, or the group is gone
        if step.poll() is None:
            step.kill()


def _stopped(signum, frame):
    raise BuildStopped(128 + signum)


def _platform_flags() -> list[str]:
    return ["-undefined", "dynamic_lookup"] if sys.platform == "darwin" else []
