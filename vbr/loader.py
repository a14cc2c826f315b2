"""Finding, reading and merging rule files: paths, bundled names, and `extends` chains."""
from __future__ import annotations

import difflib
import hashlib
import os
import pickle
import re
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from vbr.errors import Diagnostic, Span, UsageError, VbrCheckError, VbrError
from vbr import cache_folder, private_cache
from vbr.grammar import ast as A
from vbr.grammar.parser import cache_dir, count_tokens, parse
from vbr.limits import MAX_EXTENDS_DEPTH, MAX_FILE_BYTES, MAX_TOKENS
from vbr.source_files import Unreadable, decode, is_rule_text, normalize_newlines, read_bytes


RULE_FILE, SCENARIO_FILE = "rule file", "scenario file"  # what a file is read as (its errors say which)
_STARTS = {RULE_FILE: '`game "Title"`', SCENARIO_FILE: '`tests for "RULES"`'}


def bundled_dirs() -> list[Path]:
    """Where bundled rule files live: inside an installed wheel, or the checkout's rules/."""
    here = Path(__file__).resolve().parent
    return [d for d in (here / "_bundled_rules", here.parent / "rules") if d.is_dir()]


def bundled_names() -> list[str]:
    names: set[str] = set()
    for d in bundled_dirs():
        names.update(p.stem for p in d.glob("*.vbr"))
    return sorted(names)


def resolve(name: str | Path, relative_to: Path | None = None, kind: str = RULE_FILE) -> Path:
    """A path as given, relative to the including file, or a bundled rule file's name. An empty
    name (an unset shell variable's) is a UsageError naming `kind`, what the file is wanted as: as
    a path it would be the current folder."""
    if isinstance(name, str) and not name and kind == SCENARIO_FILE:
        raise UsageError("an empty scenario file name: give a scenario file's path (a rule file's scenarios are "
                         "kept in tests/NAME.vbr beside it)")
    if isinstance(name, str) and not name:
        raise UsageError("an empty rule file name: give a .vbr file's path or a bundled rule file's name ("
                         + ", ".join(bundled_names()) + ")")
    p = Path(name)
    candidates = []
    if relative_to is not None and not p.is_absolute():
        candidates.append(relative_to.parent / p)
    candidates.append(p)
    for d in bundled_dirs():
        candidates += [d / p, d / f"{p}.vbr", d / "tests" / p]
    for c in candidates:
        if _probe(c.is_file):
            return c
    return p  # read_source reports it missing, with the name the user gave


def _probe(test) -> bool:
    """`test()` (a Path's `exists` or `is_file`), False where the file system refuses the name
    itself (too long, say): reading the file then says why, at the line that names it."""
    try:
        return test()
    except OSError:
        return False


def resolve_extends(name: str, including: Path, span: Span, *, up: bool = False) -> Path:
    """What `extends "NAME"` in `including` names: a bundled rule file's name, or a `.vbr` file in
    the including file's own folder or below it. Nothing else is opened, so a shared variant cannot
    make vbr read (and show a line of) any other file the user can read. `up=True` (a scenario
    file's `tests for "../rules.vbr"`) also allows `..`, still to a `.vbr` file only."""
    bundled = bundled_names()
    if name in bundled:  # a bundled name has no folder in it
        return next(d / f"{name}.vbr" for d in bundled_dirs() if (d / f"{name}.vbr").is_file())
    what = (("`tests for`" if up else "`extends`") + " takes a bundled rule file's name (" + ", ".join(bundled)
            + ") or the path of a .vbr file " + ("relative to this file" if up else "in this file's folder or below it")
            + f", not {name!r}")
    p = Path(name)
    if not name or p.is_absolute() or p.drive or p.suffix != ".vbr":
        close = difflib.get_close_matches(name, bundled, n=1)
        raise VbrCheckError([Diagnostic(span, what + (f"; did you mean {close[0]}?" if close else ""))])
    folder = including.parent.resolve()
    target = (including.parent / p).resolve()
    if not up and target != folder and folder not in target.parents:
        raise VbrCheckError([Diagnostic(span, what + " (it leads out of the folder)")])
    if _probe(target.exists) and target.suffix != ".vbr":  # a link named x.vbr to a file that is none
        raise VbrCheckError([Diagnostic(span, what + " (it is a link to a file that is not a .vbr file)")])
    local = including.parent / p
    if not _probe(local.exists) and p.stem in bundled and p.name == name:  # `extends "siatka.vbr"`
        return next(d / p for d in bundled_dirs() if (d / p).is_file())
    return local


class MissingFileError(VbrError):
    """A file named on the command line (or to the API) that cannot be read as a rule file. Such a
    file has no line to point at, so it is shown as `FILE: error: ...`, without a position (its
    span's line and column are 0)."""

    def render(self) -> str:
        from vbr.terminal import clean
        return "\n".join(clean(f"{d.span.file}: {d.severity}: {d.message}") for d in self.diagnostics)


def _nowhere(path: Path, message: str, span: Span | None) -> VbrError:
    if span is not None:
        return VbrError.at(span, message)
    return MissingFileError([Diagnostic(Span(file=str(path), line=0, col=0, end_line=0, end_col=0), message)])


def _not_found(path: Path, kind: str = RULE_FILE) -> str:
    if kind == SCENARIO_FILE:
        return _scenarios_not_found(path)
    bundled = bundled_names()
    close = difflib.get_close_matches((path.stem if path.suffix == ".vbr" else str(path)).lower(), bundled, n=1)
    if close:
        return f"cannot find rule file {str(path)!r}; did you mean {close[0]}?"
    hint = f" (bundled rule files: {', '.join(bundled)})" if bundled else ""
    return f"cannot find rule file {str(path)!r}{hint}"


def _scenarios_not_found(path: Path) -> str:
    """A missing scenario file in words, naming the bundled scenario file its name is closest to
    by its full path (which every command takes, wherever it is run)."""
    kept = {p.stem: p for d in bundled_dirs() for p in sorted((d / "tests").glob("*.vbr"))}
    close = difflib.get_close_matches(path.stem.lower(), list(kept), n=1)
    hint = f"; did you mean {kept[close[0]]}, the scenarios of the bundled {close[0]}?" if close else ""
    return f"cannot find scenario file {str(path)!r}{hint}"


def read_source(path: Path, span: Span | None = None, kind: str = RULE_FILE) -> str:
    """The text of a rule or scenario file: a regular file (not a device, a pipe or a directory)
    of at most `limits.MAX_FILE_BYTES`, in UTF-8. A byte-order mark is dropped, and line ends
    (`\\r\\n` or a lone `\\r`) become `\\n`, so positions count lines as editors do. `kind`
    (RULE_FILE or SCENARIO_FILE): what the file is read as, which its errors call it."""
    try:
        data = read_bytes(path)
    except Unreadable as exc:
        raise _nowhere(path, _unreadable(path, exc, kind), span) from None
    try:
        text = decode(data)
    except UnicodeDecodeError as exc:
        line = normalize_newlines(data[: exc.start].decode("utf-8", "replace")).count("\n") + 1
        col = exc.start - max(data.rfind(b"\n", 0, exc.start), data.rfind(b"\r", 0, exc.start))
        utf16 = "; it starts with a UTF-16 byte-order mark: save it as UTF-8" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise VbrError.at(Span(file=str(path), line=line, col=col, end_line=line, end_col=col),
                          f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x}){utf16}") from None
    if not text.strip():
        raise VbrError.at(Span(file=str(path)), f"the file is empty; a {kind} starts with {_STARTS[kind]}")
    return text


def _unreadable(path: Path, exc: Unreadable, kind: str) -> str:
    if exc.kind == "missing":
        return _not_found(path, kind)
    if exc.kind == "directory":
        return f"{path} is a directory, not a {kind}" + _files_in(path)
    if exc.kind == "special":
        return (f"{path} is not a regular file (a device, a pipe or a socket); "
                f"vbr reads {kind}s only from regular files")
    if exc.kind == "too big":
        return _too_big(path, kind)
    return f"cannot read {path}: {exc.detail}"


def _files_in(folder: Path) -> str:
    """`: name a .vbr file in it (a.vbr, b.vbr, ...)`, the first few the folder holds, or nothing."""
    try:
        names = sorted(p.name for p in folder.glob("*.vbr"))
    except OSError:
        return ""
    if not names:
        return ""
    return f": name a .vbr file in it ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"


def _too_big(path: Path, kind: str = RULE_FILE) -> str:
    return f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB, the most vbr reads from a {kind}"


@dataclass
class RuleSet:
    """A rule file with everything it extends merged in: the input to the checker."""

    path: Path
    title: str
    decls: list[A.Decl]
    sources: dict[str, str] = field(default_factory=dict)
    chain: list[str] = field(default_factory=list)  # files, most derived first
    problems: list[Diagnostic] = field(default_factory=list)  # from merging: reported by the checker
    replaced: list = field(default_factory=list)  # (a base's declaration, the `override` that replaced it)


def load_rules(name: str | Path, *, tests: Path | None = None, span: Span | None = None) -> RuleSet:
    """A rule file with the chain of files it `extends` merged in. The chain is followed in a loop
    (at most `limits.MAX_EXTENDS_DEPTH` files); problems of merging (an `override` of nothing, a
    name declared again) are kept in `RuleSet.problems` for the checker to report with the rest.

    `tests`: the scenario file whose `tests for "NAME"` (at `span`) names the rule file; then NAME
    must be a bundled name or a relative path of a `.vbr` file (see `resolve_extends`)."""
    sources: dict[str, str] = {}
    if tests is not None:
        try:
            path = resolve_extends(str(name), Path(tests), span or Span(file=str(tests)), up=True)
        except VbrError as exc:
            raise VbrCheckError(exc.diagnostics) from None
    else:
        path = resolve(name)
    chain: list[tuple[Path, A.GameFile, list[A.Decl]]] = []
    seen: list[Path] = []
    tokens = 0  # in the files of the chain so far: together at most MAX_TOKENS
    while True:
        if path.resolve() in seen:
            raise VbrCheckError([Diagnostic(span or Span(file=str(path)), f"`extends` goes round in a circle through {path}")],
                                sources)
        if len(chain) >= MAX_EXTENDS_DEPTH:
            raise VbrCheckError([Diagnostic(span, f"`extends` chains at most {MAX_EXTENDS_DEPTH} files "
                                                  f"(the limit on `extends` depth); this chain is longer")], sources)
        text = read_source(path, span)
        tokens += count_tokens(text, str(path), MAX_TOKENS - tokens, chain=bool(chain))
        tree, text = parse_file(path, span, text)
        sources[str(path)] = text
        if not isinstance(tree, A.GameFile):
            raise VbrCheckError([Diagnostic(tree.span, "this is a scenario file (`tests for ...`), not a rule file")], sources)
        parents = [d for d in tree.decls if isinstance(d, A.Extends)]
        if len(parents) > 1:
            raise VbrCheckError([Diagnostic(parents[1].span, "a rule file extends at most one other file")], sources)
        chain.append((path, tree, [d for d in tree.decls if not isinstance(d, A.Extends)]))
        if not parents:
            break
        seen.append(path.resolve())
        span = parents[0].span
        try:
            path = resolve_extends(parents[0].path, path, span)
        except VbrError as exc:
            raise VbrCheckError(exc.diagnostics, sources) from None
    decls: list[A.Decl] = chain[-1][2]
    problems: list[Diagnostic] = [Diagnostic(d.span, f"`override {d.name.lstrip('@')}` overrides nothing: this file `extends` no "
                                                     "other file (drop `override`, or add `extends \"BASE\"`)")
                                  for d in _overrides(decls)]
    replaced: list[tuple[A.Decl, A.Decl]] = []
    for _, _, own in reversed(chain[:-1]):
        decls, more = merge(decls, own, replaced)
        problems += more
    top_path, top, _ = chain[0]
    return RuleSet(top_path, top.title, decls, sources, [str(p) for p, _, _ in chain], problems, replaced)


def parse_file(path: Path, span: Span | None = None, text: str | None = None, kind: str = RULE_FILE):
    """The file's AST and text (`text`: as `read_source` gave it, already read; `kind`: what it is
    read as, which its errors call it, as `read_source`'s). The file is read
    every time; the last few ASTs are kept by (path, text), so a file read twice unchanged (`vbr
    check` looks at what a file is, then loads it) is parsed once. ASTs are frozen, so sharing one
    is safe."""
    text = read_source(path, span, kind) if text is None else text
    if not is_rule_text(path, text):
        # not named as a rule file and not one: say so without showing any of it (a log or a
        # command line may name any file the user can read)
        other = SCENARIO_FILE if kind == RULE_FILE else RULE_FILE
        raise _nowhere(path, f"{path} is not a {kind}: a {kind} starts with {_STARTS[kind]}, a {other} "
                             f"with {_STARTS[other]}", span)
    key = (str(path), text)
    tree = _parsed.get(key)
    if tree is not None:
        return tree, text
    kept = _ast_file(path, text)
    tree = _read_ast(*kept) if kept else None
    if tree is None:
        try:
            tree = parse(text, str(path))
        except VbrError as exc:
            exc.sources.setdefault(str(path), text)
            raise
        if kept:
            _write_ast(*kept, tree)
    if len(_parsed) >= 8:
        _parsed.pop(next(iter(_parsed), None), None)  # another thread may have taken it
    _parsed[key] = tree
    return tree, text


# ------------------------------------------------------------------ ASTs kept on disk
# A file's AST is kept in the user's cache directory (`vbr/ast/`, beside the built parser), so
# that checking a file again unchanged does not parse it (nor load the parser): reading it back
# costs about a third of parsing. One file per rule file's absolute path, at most `_AST_FILES` of
# them (the one read or written least recently goes first: vbr.cache_folder); each starts with its key, a hash of the code that builds
# ASTs, the versions of Python, pydantic and Lark, the path as given (spans name it) and the text,
# and a file whose key does not match is never read further. Only a parse that succeeded is kept.
_AST_FILES = 32
_AST_FILE = re.compile(r"ast-[0-9a-f]{32}\.pickle")
_AST_CODE = ("grammar/vbr.lark", "grammar/parser.py", "grammar/transformer.py", "grammar/ast.py", "errors.py",
             "limits.py", "grammar/glued.py", "grammar/misspelt.py")  # the last two refuse some texts that parse


def _ast_file(path: Path, text: str) -> tuple[str, bytes] | None:
    """Where the file's AST is kept and the key it must carry; None: no cache."""
    code = _code_key()
    folder = cache_dir("ast") if code else None
    if folder is None:
        return None
    where = os.path.abspath(path).encode("utf-8", "surrogatepass")
    name = f"ast-{hashlib.sha256(where).hexdigest()[:32]}.pickle"
    key = hashlib.sha256(b"\0".join([code, str(path).encode("utf-8", "surrogatepass"),
                                     text.encode("utf-8", "surrogatepass")])).digest()
    return os.path.join(folder, name), key


@lru_cache(maxsize=1)
def _code_key() -> bytes:
    """A hash of what builds an AST: vbr's parsing code and the libraries' versions (b"" when the
    code cannot be read: then nothing is kept)."""
    import importlib.util

    import pydantic
    h = hashlib.sha256("\0".join([sys.version, pydantic.VERSION]).encode())
    root = os.path.dirname(os.path.abspath(__file__))
    try:
        lark = importlib.util.find_spec("lark")  # its __init__.py, which names its version, not imported
        for name in [*(os.path.join(root, n) for n in _AST_CODE), lark.origin]:
            with open(name, "rb") as f:
                h.update(b"\0" + f.read())
    except (OSError, AttributeError, TypeError, ImportError, ValueError):
        return b""
    return h.digest()


def _read_ast(file: str, key: bytes):
    """The kept AST, when the file is the user's own and sealed under the user's secret for this
    key (vbr.private_cache); it is unpickled only then."""
    data = private_cache.read_sealed(Path(file), key)
    if data is None:
        return None
    try:
        tree = pickle.loads(data)
    except Exception:  # sealed by us, yet not loadable (another Python): parse instead
        return None
    if not isinstance(tree, (A.GameFile, A.TestFile)):
        return None
    cache_folder.touch(Path(file))
    return tree


def _write_ast(file: str, key: bytes, tree) -> None:
    """Sealed, written under a name of its own and moved into place whole; then those used
    least recently go, past _AST_FILES."""
    try:
        if not private_cache.write_sealed(Path(file), key, pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)):
            return
        cache_folder.keep_newest(Path(file).parent, _AST_FILE, _AST_FILES)
    except Exception:  # no room, no right, too deep to pickle: nothing is kept
        pass


_parsed: dict[tuple[str, str], object] = {}  # (path, text) -> AST, the last few parsed


def _overrides(decls: list[A.Decl]) -> list[A.Decl]:
    """The declarations marked `override`, inside stages too."""
    out = []
    for d in decls:
        if d.override:
            out.append(d)
        if isinstance(d, A.Stage):
            out += _overrides(d.members)
    return out


def _key(d: A.Decl) -> str:
    return f"{type(d).__name__}:{d.name}" if isinstance(d, (A.Handler,)) else d.name


def merge(base: list[A.Decl], own: list[A.Decl],
          replaced: list | None = None) -> tuple[list[A.Decl], list[Diagnostic]]:
    """A variant's declarations over its base's: `override` replaces, anything else must be new.

    Handlers are never replaced by name (several may listen to one event); they are added.
    Stages are looked into, so that a variant can override one phase inside a stage.
    `replaced`, when given, gets (the base's declaration, the `override` that replaced it) for
    each replacement made (`override seats` aside).
    """
    problems: list[Diagnostic] = []
    out, own = _override_seats(base, own)
    index = _index(out)
    overridden: dict[str, A.Decl] = {}  # this file's overrides by name: a second one of a name is refused
    for d in own:
        if d.override and d.name in overridden and not isinstance(d, A.Handler):
            problems.append(Diagnostic(d.span, f"`{d.name.lstrip('@')}` is overridden twice in this file; the first "
                                               f"`override` is at {overridden[d.name].span}, and this one would "
                                               "silently replace it: keep one"))
            continue
        if d.override:
            overridden[d.name] = d
        if isinstance(d, A.Handler) and not d.override:
            out.append(d)
            continue
        if isinstance(d, A.Handler):
            problems.append(Diagnostic(d.span, f"`override {d.name}`: a handler is never replaced; an `on` in a variant "
                                               "adds a handler to the base's (drop `override`, or override what emits "
                                               "the event or what its handlers call)"))
            continue
        path = index.get(d.name)
        if d.override:
            if path is None:
                name = d.name.lstrip("@")  # `@start`, `@setup`: a declaration a file has one of
                close = _close_base_name(d, base, index)
                if not close.startswith("; did you mean"):
                    close += "; without `override` it is a declaration of this file's own"
                problems.append(Diagnostic(d.span, f"`override {name}` overrides nothing: the base file has no "
                                                   f"`{name}`{close}"))
                continue
            changed = _option_kind_changed(_at(out, path), d)
            if changed:
                problems.append(changed)
                continue
            if replaced is not None:
                replaced.append((_at(out, path), d))
            out = _replace(out, path, d.model_copy(update={"override": False}))
        elif d.name in overridden:
            problems.append(Diagnostic(d.span, f"`{d.name.lstrip('@')}` is defined twice; the first is at {overridden[d.name].span}"))
        elif path is not None and d.name and not isinstance(d, A.Handler):
            prev = _at(out, path)
            problems.append(Diagnostic(d.span, f"`{d.name.lstrip('@')}` is already defined at {prev.span}; write `override` "
                                               "to replace it"))
        else:
            out.append(d)
    return out, problems


def _override_seats(base: list[A.Decl], own: list[A.Decl]) -> tuple[list[A.Decl], list[A.Decl]]:
    """A variant's `override seats` declarations replace every `seats` declaration of the base
    together (a base may have several, each with its `when`): they take the place of the base's
    first one, in the variant's order. Gives the base so changed and the variant's declarations
    left to merge. A variant without `override seats`, or a base without `seats`, is left as it is
    (`merge` then says what is wrong with it)."""
    mine = [d for d in own if isinstance(d, A.Seats) and d.override]
    where = [i for i, d in enumerate(base) if isinstance(d, A.Seats)]
    if not mine or not where:
        return list(base), own
    new = [d.model_copy(update={"override": False}) for d in mine]
    out = [d for i, d in enumerate(base) if i not in where]
    out[where[0]:where[0]] = new
    return out, [d for d in own if not (isinstance(d, A.Seats) and d.override)]


_OPTION_KINDS = {A.IntLit: "a number", A.BoolLit: "true or false", A.StrLit: "a string", A.Name: "a member of an enum"}


def _option_kind_changed(base: A.Decl, new: A.Decl) -> Diagnostic | None:
    """An `override option` whose default is of another type than the base option's (a string for
    a number): refused at the new default, since the base's rules use the option as the type it
    declared and would fail in the base file, far from the change. None when both are options of
    one type, or either is not an option."""
    if not (isinstance(base, A.Option) and isinstance(new, A.Option)):
        return None
    was, now = _OPTION_KINDS.get(type(base.default)), _OPTION_KINDS.get(type(new.default))
    if was is None or now is None or was == now:
        return None
    return Diagnostic(new.default.span, f"an `override option` keeps the option's type: the base's `{new.name}` is "
                                        f"{was} (declared at {base.span}), and its rules use it so; give {was} "
                                        f"here, not {now}")


def _close_base_name(d: A.Decl, base: list[A.Decl], index: dict[str, tuple]) -> str:
    """`; did you mean `NAME`?` for the base's declaration closest in spelling to what `d` names,
    one of `d`'s own sort first (`override phase atack` → `attack`); else the base's names of
    that sort when they are few (`; its options: target, ...`); else nothing."""
    same = [name for name, path in index.items() if type(_at(base, path)) is type(d)]
    for pool in (same, list(index)):
        close = difflib.get_close_matches(d.name, pool, n=1)
        if close:
            return f"; did you mean `{close[0]}`?"
    sort = _SORTS.get(type(d).__name__)
    if sort is None or not same or len(same) > 12:
        return ""
    return f"; its {sort}: {', '.join(same)}"


# what the base's declarations of one sort are called, when they are listed
_SORTS = {"Option": "options", "Phase": "phases", "Proc": "procedures", "Fn": "functions", "Var": "vars",
          "Const": "consts", "Die": "dice", "Enum": "enums", "Kind": "kinds", "Zone": "zones", "Event": "events"}


def _index(decls: list[A.Decl], prefix: tuple = ()) -> dict[str, tuple]:
    idx: dict[str, tuple] = {}
    for i, d in enumerate(decls):
        if d.name and not isinstance(d, A.Handler):
            idx[d.name] = prefix + (i,)
        if isinstance(d, A.Stage):
            idx.update(_index(d.members, prefix + (i,)))
    return idx


def _at(decls, path):
    d = decls[path[0]]
    for i in path[1:]:
        d = d.members[i]
    return d


def _replace(decls: list[A.Decl], path: tuple, new: A.Decl) -> list[A.Decl]:
    decls = list(decls)
    if len(path) == 1:
        decls[path[0]] = new
        return decls
    stage = decls[path[0]]
    decls[path[0]] = stage.model_copy(update={"members": _replace(stage.members, path[1:], new)})
    return decls
