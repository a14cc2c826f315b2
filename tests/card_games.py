"""Small rule files of cards seat 0 cannot see, for the search and determinization tests: six
cards Card(v: 0..5) made in seat 1's hidden deck, shuffled, and some dealt to seat 1's hand, which
only seat 1 sees (seat 0 pools hand and deck: one kind on one side)."""


def six_cards(title: str, start: str, dealt: int, phases: str) -> str:
    """The rule file titled `title`, starting at phase `start`, `dealt` cards moved from the top
    of seat 1's deck to its hand in setup, then `phases` (indented four spaces, as written
    inside a test's triple-quoted text, for textwrap.dedent)."""
    return f"""
    game "{title}"
    seats 2
    start {start}

    kind Card {{ v: int }}

    zone deck per seat hidden ordered
    zone hand per seat owner
    zone table public

    setup {{
      for v in 0..5 {{
        create Card(v: v) in deck[1]
      }}
      shuffle deck[1]
      repeat {dealt} {{
        move top(deck[1]) to hand[1]
      }}
    }}
{phases}"""
