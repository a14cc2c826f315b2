"""vbr: a declarative rules language for volleyball tabletop games, and its toolchain."""
from vbr.errors import VbrError

__version__ = "0.1.0"


def load(path, options=None, native=False, engine="auto", note=None):
    """Load, check and compile a rule file (a path or a bundled name like "siatka"). `engine`:
    "auto" (the default): the C engine when a C compiler builds the file, else the Python
    engine, else (a construct the typed program does not express) the closure engine, the
    reason for each step down handed to `note` (a function of one line of text; by default a
    warning); "c" or "python", the typed program's engines (vbr/engines/game.py: the same games
    in both), or "closure". `native=True` is another spelling of engine="c"."""
    if native:
        if engine not in ("auto", "closure", "c"):
            raise ValueError(f"native=True is engine='c'; it does not go with engine={engine!r}")
        engine = "c"
    if engine == "auto":
        from vbr.sim import auto_game
        return auto_game(lambda engine: _load(path, options or {}, engine), lambda text: (note or _warn)(f"engine='auto': {text}"))[1]
    if engine not in ("c", "python", "closure"):
        raise ValueError(f"no engine {engine!r} (engines: auto, c, python, closure)")
    return _load(path, options or {}, engine)


def _load(path, options: dict, engine: str):
    if engine == "closure":
        from vbr.interpreter.game import load as closure
        return closure(path, options)
    from vbr.engines.game import load as typed
    return typed(path, options, engine=engine)


def _warn(text: str) -> None:
    """A note of vbr.load's, as a warning shown at the caller's line."""
    import warnings
    warnings.warn(text, stacklevel=5)


__all__ = ["load", "VbrError", "__version__"]
