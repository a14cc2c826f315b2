"""Python's cyclic garbage collector paused while a large structure is built.

Building a rule file's checked model, typed program and engines makes many objects that live on
and almost no cycles; each full collection walks everything alive, so a program of thousands of
statements spent about two fifths of its building in the collector. `collection_paused` turns
the collector off for the call it wraps and back on after, unless it was already off (a nested
or concurrent build, or a caller who turned it off, is left as it was)."""
from __future__ import annotations

import functools
import gc


def collection_paused(build):
    """`build`, run with the cyclic collector off; reference counting still frees what it drops."""
    @functools.wraps(build)
    def paused(*args, **kwargs):
        was_on = gc.isenabled()
        gc.disable()
        try:
            return build(*args, **kwargs)
        finally:
            if was_on:
                gc.enable()
    return paused
