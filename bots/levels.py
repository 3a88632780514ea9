"""Bot levels for players: Easy, Normal and Hard (弱い, 普通, 強い), each a built-in bot.

The one place that says which bot plays at which level (the game window's
menus, ``kaitaku play --level``, the names a server gives the bots it
starts) and which built-ins a server starts. The levels are chosen by
measured strength: :data:`MEASURED` holds the openskill ratings of the
built-in bots from one league of all of them (docs/BOTS.md, "Levels").
Hard is the strongest; Easy and Normal are the two strongest of the bots
that answer at once (not :data:`THINKING`), so the levels a newcomer plays
first never keep a table waiting. A built-in at no level (the random bot,
far below the others, and the hard bot, the learned model's search, rated
between Normal and Hard) is named by its kind (:data:`KIND_LABELS`).
"""

from __future__ import annotations

import re

KIND_LABELS: dict[str, str] = {"random": "Random", "greedy": "Greedy", "heuristic": "Heuristic",
                               "search": "Search", "hard": "Learned"}
"""Each built-in bot (``bots.BUILTIN_BOTS``) and its English name when it
plays at no level, as a server names its bots (none the same as a level's
name)."""

KINDS: tuple[str, ...] = tuple(KIND_LABELS)
"""The built-in bots, the kinds a server starts."""

MEASURED: dict[str, tuple[float, float]] = {
    "random": (-12.07, 5.16),
    "greedy": (21.79, 3.89),
    "heuristic": (35.58, 3.65),
    "search": (41.63, 3.63),
    "hard": (37.81, 3.62),
}
"""openskill Plackett-Luce (mu, sigma) of each built-in bot, measured with
``kaitaku league --entry random --entry greedy --entry heuristic --entry search
--entry hard --games 100 --workers 2`` (four players, seed 1; docs/BOTS.md)."""

THINKING = frozenset({"search", "hard"})
"""The built-ins that search, up to their budget (0.5 s by default) a decision;
the others answer in about a millisecond."""


def ordinal(kind: str) -> float:
    """A built-in bot's measured rating, mu - 3 sigma."""
    mu, sigma = MEASURED[kind]
    return mu - 3 * sigma


def _levels() -> dict[str, str]:
    hard = max(MEASURED, key=ordinal)
    easy, normal = sorted((k for k in MEASURED if k not in THINKING), key=ordinal)[-2:]
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


def _label(kind: str) -> str:
    level = level_of(kind)
    return LABELS[level] if level is not None else KIND_LABELS.get(kind, kind.capitalize())


_KIND_OF_LABEL: dict[str, str] = {_label(k): k for k in KINDS}
"""A server bot's name's label -> its kind (``Normal`` -> ``heuristic``)."""


def bot_name(kind: str, number: int | None = None) -> str:
    """The name a server gives a built-in bot it starts: ``Bot 2 (Normal)`` (the
    seat's number, from 1; a bot at no level by its kind, ``Bot 3 (Random)``),
    ``Bot (Easy)`` without one."""
    label = _label(kind)
    return f"Bot {number} ({label})" if number is not None else f"Bot ({label})"


_NAMED = re.compile(r"Bot(?: ([1-6]))? \(([A-Z][a-z]+)\)")
_OLD_NAMED = re.compile(r"(random|greedy|heuristic|search)-bot(?: ([1-6]))?")
"""How servers before level names named their bots (``heuristic-bot 2``)."""


def parse_bot_name(name: str) -> tuple[str, int | None] | None:
    """The built-in kind and seat number of a name :func:`bot_name` made (or
    an older server's ``heuristic-bot 2``); None for any other name."""
    m = _NAMED.fullmatch(name)
    if m is not None and m.group(2) in _KIND_OF_LABEL:
        return _KIND_OF_LABEL[m.group(2)], int(m.group(1)) if m.group(1) else None
    m = _OLD_NAMED.fullmatch(name)
    if m is not None:
        return m.group(1), int(m.group(2)) if m.group(2) else None
    return None
