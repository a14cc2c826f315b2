"""vbr: a declarative rules language for volleyball tabletop games, and its toolchain."""
from vbr.errors import VbrError

__version__ = "0.1.0"


def load(path, options=None, native=False, engine="closure"):
    """Load, check and compile a rule file (a path or a bundled name like "siatka"). `engine`:
    "closure" (the default), or a typed engine, "python" or "c" (vbr/engines/game.py: the same
    games in both). `native=True` is another spelling of engine="c"."""
    if native:
        if engine not in ("closure", "c"):
            raise ValueError(f"native=True is engine='c'; it does not go with engine={engine!r}")
        engine = "c"
    if engine in ("python", "c"):
        from vbr.engines.game import load as _typed

        return _typed(path, options or {}, engine=engine)
    if engine != "closure":
        raise ValueError(f"no engine {engine!r} (engines: closure, python, c)")
    from vbr.interpreter.game import load as _load

    return _load(path, options or {})


__all__ = ["load", "VbrError", "__version__"]
