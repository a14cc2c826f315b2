"""vbr: a declarative rules language for volleyball tabletop games, and its toolchain."""
from vbr.errors import VbrError

__version__ = "0.1.0"


def load(path, options=None, native=False):
    """Load, check and compile a rule file (a path or a bundled name like "siatka"); `native`
    compiles it to machine code (vbr/interpreter/native.py)."""
    from vbr.interpreter.game import load as _load

    return _load(path, options or {}, native=native)


__all__ = ["load", "VbrError", "__version__"]
