"""The checker's small type lattice, as strings: int bool seat cell dir zone none any,
`enum:E`, `ent:K` (or `ent`), `list:T`."""


def is_numeric(t: str) -> bool:
    return t in ("int", "seat", "any")


def item_type(t: str) -> str | None:
    """What iterating over a value of type t gives, or None if it is not a collection."""
    if t.startswith("list:"):
        return t[5:]
    if t == "zone":
        return "ent"
    if t.startswith("zone:"):
        return "ent:" + t[5:]
    if t == "any":
        return "any"
    return None


def compatible(a: str, b: str) -> bool:
    """Can a value of type a stand where b is expected (or be compared with it)?"""
    if a == b or "any" in (a, b) or "none" in (a, b):
        return True
    if {a, b} <= {"int", "seat"}:
        return True
    if a.startswith("ent") and b.startswith("ent") and ("ent" in (a, b)):
        return True
    if a.startswith("zone") and b.startswith("zone"):
        return True
    if a.startswith("list:") and b.startswith("list:"):
        return compatible(a[5:], b[5:])
    return False


def show(t: str) -> str:
    if t.startswith("enum:"):
        return t[5:]
    if t.startswith("ent:"):
        return t[4:]
    if t == "ent":
        return "entity"
    if t.startswith("list:"):
        return "list of " + show(t[5:])
    return t
