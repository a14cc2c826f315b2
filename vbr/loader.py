"""Finding, reading and merging rule files: paths, bundled names, and `extends` chains."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vbr.errors import Diagnostic, Span, VbrCheckError, VbrError
from vbr.grammar import ast as A
from vbr.grammar.parser import parse


def bundled_dirs() -> list[Path]:
    """Where bundled rule files live: inside an installed wheel, or the checkout's rules/."""
    here = Path(__file__).resolve().parent
    return [d for d in (here / "_bundled_rules", here.parent / "rules") if d.is_dir()]


def bundled_names() -> list[str]:
    names: set[str] = set()
    for d in bundled_dirs():
        names.update(p.stem for p in d.glob("*.vbr"))
    return sorted(names)


def resolve(name: str | Path, relative_to: Path | None = None) -> Path:
    """A path as given, relative to the including file, or a bundled rule file's name."""
    p = Path(name)
    candidates = []
    if relative_to is not None and not p.is_absolute():
        candidates.append(relative_to.parent / p)
    candidates.append(p)
    for d in bundled_dirs():
        candidates += [d / p, d / f"{p}.vbr", d / "tests" / p]
    for c in candidates:
        if c.is_file():
            return c
    return p  # read_source reports it missing, with the name the user gave


def read_source(path: Path, span: Span | None = None) -> str:
    where = span or Span(file=str(path))
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise VbrError.at(where, f"{path} is a directory, not a rule file") from None
    except FileNotFoundError:
        hint = f" (bundled rule files: {', '.join(bundled_names())})" if bundled_names() else ""
        raise VbrError.at(where, f"cannot find rule file {str(path)!r}{hint}") from None
    except OSError as exc:
        raise VbrError.at(where, f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise VbrError.at(Span(file=str(path), line=line, col=col),
                          f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})") from None
    if not text.strip():
        raise VbrError.at(Span(file=str(path)), "the file is empty; a rule file starts with `game \"Title\"`")
    return text


@dataclass
class RuleSet:
    """A rule file with everything it extends merged in: the input to the checker."""

    path: Path
    title: str
    decls: list[A.Decl]
    sources: dict[str, str] = field(default_factory=dict)
    chain: list[str] = field(default_factory=list)  # files, most derived first


def load_rules(name: str | Path) -> RuleSet:
    path = resolve(name)
    return _load(path, None, [])


def parse_file(path: Path, span: Span | None = None):
    """The file's AST and text. The file is read every time; the last few ASTs are kept by
    (path, text), so a file read twice unchanged (`vbr check` looks at what a file is, then
    loads it) is parsed once. ASTs are frozen, so sharing one is safe."""
    text = read_source(path, span)
    key = (str(path), text)
    tree = _parsed.get(key)
    if tree is not None:
        return tree, text
    try:
        tree = parse(text, str(path))
    except VbrError as exc:
        exc.sources.setdefault(str(path), text)
        raise
    if len(_parsed) >= 8:
        _parsed.pop(next(iter(_parsed)))
    _parsed[key] = tree
    return tree, text


_parsed: dict[tuple[str, str], object] = {}  # (path, text) -> AST, the last few parsed


def _load(path: Path, span: Span | None, seen: list[Path]) -> RuleSet:
    if path.resolve() in seen:
        raise VbrCheckError([Diagnostic(span or Span(file=str(path)), f"`extends` goes round in a circle through {path}")])
    tree, text = parse_file(path, span)
    if not isinstance(tree, A.GameFile):
        raise VbrCheckError([Diagnostic(tree.span, "this is a scenario file (`tests for ...`), not a rule file")],
                            {str(path): text})
    parents = [d for d in tree.decls if isinstance(d, A.Extends)]
    own = [d for d in tree.decls if not isinstance(d, A.Extends)]
    if len(parents) > 1:
        raise VbrCheckError([Diagnostic(parents[1].span, "a rule file extends at most one other file")], {str(path): text})
    if not parents:
        return RuleSet(path, tree.title, own, {str(path): text}, [str(path)])
    base = _load(resolve(parents[0].path, path), parents[0].span, seen + [path.resolve()])
    decls, problems = merge(base.decls, own)
    sources = {**base.sources, str(path): text}
    if problems:
        raise VbrCheckError(problems, sources)
    return RuleSet(path, tree.title, decls, sources, [str(path)] + base.chain)


def _key(d: A.Decl) -> str:
    return f"{type(d).__name__}:{d.name}" if isinstance(d, (A.Handler,)) else d.name


def merge(base: list[A.Decl], own: list[A.Decl]) -> tuple[list[A.Decl], list[Diagnostic]]:
    """A variant's declarations over its base's: `override` replaces, anything else must be new.

    Handlers are never replaced by name (several may listen to one event); they are added.
    Stages are looked into, so that a variant can override one phase inside a stage.
    """
    problems: list[Diagnostic] = []
    index = _index(base)
    out = list(base)
    for d in own:
        if isinstance(d, A.Handler) and not d.override:
            out.append(d)
            continue
        path = index.get(d.name)
        if d.override:
            if path is None:
                problems.append(Diagnostic(d.span, f"`override {d.name}` overrides nothing: the base file has no `{d.name}`"))
                continue
            out = _replace(out, path, d.model_copy(update={"override": False}))
        elif path is not None and d.name and not isinstance(d, A.Handler):
            prev = _at(out, path)
            problems.append(Diagnostic(d.span, f"`{d.name}` is already defined at {prev.span}; write `override` to replace it"))
        else:
            out.append(d)
    return out, problems


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
