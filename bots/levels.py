"""Bot levels for players: Easy, Normal and Hard (弱い, 普通, 強い), each a built-in bot.

The one place that says which bot plays at which level (the game window's
menus, ``kaitaku play --level``, the names a server gives the bots it starts).
The levels are chosen by measured strength: :data:`MEASURED` holds the
openskill ratings of the four built-in bots from one league of all of them
(docs/BOTS.md, "Levels"), and the three strongest, weakest first, are Easy,
Normal and Hard. The random bot, far below the others, plays at no level.
"""

from __future__ import annotations

import re

MEASURED: dict[str, tuple[float, float]] = {
    "random": (-10.84, 5.00),
    "greedy": (23.61, 3.67),
    "heuristic": (38.87, 3.50),
    "search": (46.22, 3.56),
}
"""openskill Plackett-Luce (mu, sigma) of each built-in bot, measured with
``kaitaku league --entry random --entry greedy --entry heuristic --entry search
--games 96 --workers 2`` (four players, seed 1; docs/BOTS.md)."""


UNRATED: dict[str, str] = {
    "hard": "search over a learned win model (bots.hard); measured 1-vs-3 against the "
            "heuristic and the search bot (docs/BOTS.md), not yet in a league of all",
}
"""Built-in bots not rated by the league above, with what is known of them:
they play at no level until a league of all the built-ins rates them."""


def ordinal(kind: str) -> float:
    """A built-in bot's measured rating, mu - 3 sigma."""
    mu, sigma = MEASURED[kind]
    return mu - 3 * sigma


def _levels() -> dict[str, str]:
    easy, normal, hard = sorted(MEASURED, key=ordinal)[-3:]
    return {"easy": easy, "normal": normal, "hard": hard}


LEVELS: dict[str, str] = _levels()
"""Level -> built-in bot kind (``bots.BUILTIN_BOTS``), weakest first."""
DEFAULT_LEVEL = "normal"
LABELS: dict[str, str] = {"easy": "Easy", "normal": "Normal", "hard": "Hard"}
"""The levels' English names, as a server names its bots (the window translates them)."""


def bot_for_level(level: str) -> str:
    """The built-in bot kind that plays at ``level``."""
    try:
        return LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown level {level!r} (choose from {', '.join(LEVELS)})") from None


def level_of(kind: str) -> str | None:
    """The level a built-in bot kind plays at (None: not one of the levels)."""
    for level, k in LEVELS.items():
        if k == kind:
            return level
    return None


def bot_name(kind: str, number: int | None = None) -> str:
    """The name a server gives a built-in bot it starts: ``Bot 2 (Normal)`` (the
    seat's number, from 1), ``Bot (Random)`` for the random bot without one."""
    level = level_of(kind)
    if level is not None:
        label = LABELS[level]
    elif kind in UNRATED:
        label = kind  # lower case: never read as a level's name
    else:
        label = kind.capitalize()
    return f"Bot {number} ({label})" if number is not None else f"Bot ({label})"


_NAMED = re.compile(r"Bot(?: ([1-6]))? \((Easy|Normal|Hard|Random)\)")
_UNRATED_NAMED = re.compile(r"Bot(?: ([1-6]))? \((" + "|".join(UNRATED) + r")\)")
_OLD_NAMED = re.compile(r"(random|greedy|heuristic|search)-bot(?: ([1-6]))?")
"""How servers before level names named their bots (``heuristic-bot 2``)."""


def parse_bot_name(name: str) -> tuple[str, int | None] | None:
    """The built-in kind and seat number of a name :func:`bot_name` made (or
    an older server's ``heuristic-bot 2``); None for any other name."""
    m = _NAMED.fullmatch(name)
    if m is not None:
        label = m.group(2)
        kind = "random" if label == "Random" else LEVELS[label.lower()]
        return kind, int(m.group(1)) if m.group(1) else None
    m = _UNRATED_NAMED.fullmatch(name)
    if m is not None:
        return m.group(2), int(m.group(1)) if m.group(1) else None
    m = _OLD_NAMED.fullmatch(name)
    if m is not None:
        return m.group(1), int(m.group(2)) if m.group(2) else None
    return None
