"""vbr: a declarative rules language for volleyball tabletop games, and its toolchain."""
from vbr.errors import VbrError

__version__ = "0.1.0"

ENGINES = ("auto", "c", "python")  # what `engine=` (and every command's --engine) takes


def load(path, options=None, native=False, engine="auto", note=None):
    """Load, check and compile a rule file (a path or a bundled name like "siatka"). `engine`:
    "auto" (the default): the C engine when a C compiler builds the file, else the Python
    engine, the reason it is not C handed to `note` (a function of one line of text; by default
    a warning); "c" or "python", the typed program's engines (vbr/engines/game.py: the same games
    in both). `native=True` is another spelling of engine="c". A file using a construct the typed
    program does not express raises EngineUnavailable, located, under every engine; any other
    engine is a ValueError."""
    if native:
        if engine not in ("auto", "c"):
            raise ValueError(f"native=True is engine='c'; it does not go with engine={engine!r}")
        engine = "c"
    check_engine(engine)
    options = _options(options)
    if engine == "auto":
        from vbr.sim import auto_game
        return auto_game(lambda engine: _load(path, options, engine), lambda text: (note or _warn)(f"engine='auto': {text}"))[1]
    return _load(path, options, engine)


def _options(options) -> dict:
    """`load`'s options as a dict (vbr.checker.option_map: a TypeError for anything but a
    mapping of option names)."""
    from vbr.checker import option_map
    return option_map(options)


def check_engine(engine: str) -> None:
    """A ValueError for an engine vbr does not have (no_engine's words)."""
    if engine not in ENGINES:
        raise ValueError(no_engine(engine))


def no_engine(engine, choices: tuple = ENGINES) -> str:
    """The words for an engine not among `choices`: the one meant where one is close (`C`,
    `pyhton`: did you mean c?), the ones there are, and for `closure` that it was retired."""
    import difflib
    close = difflib.get_close_matches(str(engine).lower(), choices, n=1)
    meant = f"; did you mean {close[0]}?" if close else ""
    retired = "; the closure engine was retired" if engine == "closure" else ""
    return f"no engine {engine!r}{meant} (engines: {', '.join(choices)}){retired}"


def _load(path, options: dict, engine: str):
    from vbr.engines.game import load as typed
    return typed(path, options, engine=engine)


def _warn(text: str) -> None:
    """A note of vbr.load's, as a warning shown at the caller's line."""
    import warnings
    warnings.warn(text, stacklevel=5)


__all__ = ["load", "VbrError", "__version__"]
