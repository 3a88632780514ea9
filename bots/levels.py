"""Bot levels for players: Easy, Normal and Hard, each a built-in bot.

The one place that says which bot plays at which level (the game window's
menus, ``kaitaku play --level``). Measured with ``kaitaku bench bots``
(docs/BOTS.md): the greedy bot loses to the heuristic one, and the search bot
wins about 47% of its games against three heuristic bots.
"""

from __future__ import annotations

LEVELS: dict[str, str] = {"easy": "greedy", "normal": "heuristic", "hard": "search"}
"""Level -> built-in bot kind (``bots.BUILTIN_BOTS``), weakest first."""
DEFAULT_LEVEL = "normal"


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
