"""`vbr graph --option/--sim` leaves out the arrows the chosen options rule out. A name the rules
bind themselves (a procedure's or handler's parameter, a `let`, a `for` or `choose` variable) is
not the option it happens to share its name with: a test on it is decided by play, so its arrows stay."""
from __future__ import annotations

from vbr.visualizer import command
from vbr.visualizer.graph import END

# Every way to the game's end goes through a test on a name bound in the rules that the option
# `fast` (false) shares: seat 0's choice, a `let`, a `for` variable, a procedure's parameter.
SHADOWED = '''game "Shadowed"
seats 2
start a
option fast = false
event hit(fast: bool)
phase a "A" {
  choose fast from [true, false] by 0 as "pick"
  if fast {
    end draw
  }
  goto b
}
phase b "B" {
  let fast = true
  if fast {
    end winner 0
  }
  goto c
}
phase c "C" {
  for fast in [true, false] {
    if fast {
      end winner 1
    }
  }
  goto d
}
phase d "D" {
  choose x from [true, false] by 1 as "pick"
  emit hit(x)
  finish(x)
  goto a
}
proc finish(fast: bool) {
  if fast {
    end draw
  }
}
on hit(fast: bool) {
  if fast {
    goto a
  }
}
'''


def folded(tmp_path, options):
    path = tmp_path / "shadowed.vbr"
    path.write_text(SHADOWED)
    return command.load_graph(str(path), options, fold=True)[2]


def test_a_choose_let_or_for_variable_named_like_an_option_is_not_folded_as_the_option(tmp_path):
    g = folded(tmp_path, {"fast": False})
    assert g.has_edge("a", END) and g.edges["a", END]["guard"] == "fast"  # seat 0 chose true
    assert g.has_edge("b", END)  # the let is always true: b always ends the game
    assert g.has_edge("c", END)  # the loop's first `fast` is true


def test_a_parameter_named_like_an_option_is_not_folded_as_the_option(tmp_path):
    g = folded(tmp_path, {"fast": False})
    assert g.has_edge("finish()", END)  # finish(x) ends the game when seat 1 chose true
    assert g.has_edge("d", "a") and "x" in g.edges["d", "a"]["guards"]  # the handler of hit(x) when x


def test_the_option_itself_is_still_folded_beside_a_shadowing_name(tmp_path):
    text = SHADOWED.replace('phase d "D" {\n', 'phase d "D" {\n  if fast {\n    goto b\n  }\n')
    (tmp_path / "shadowed.vbr").write_text(text)
    g = command.load_graph(str(tmp_path / "shadowed.vbr"), {"fast": False}, fold=True)[2]
    assert not g.has_edge("d", "b")  # here `fast` is the option, false
    g = command.load_graph(str(tmp_path / "shadowed.vbr"), {"fast": True}, fold=True)[2]
    assert g.has_edge("d", "b")
