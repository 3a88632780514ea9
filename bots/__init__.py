"""Kaitaku bots: the bot interface, built-in bots and the in-process runner."""

from collections.abc import Callable

from .base import Bot
from .greedy import GreedyBot
from .local import GameResult, IllegalBotAction, LazyView, play_game
from .random_bot import RandomBot

BUILTIN_BOTS: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot, "greedy": GreedyBot}
"""Built-in bots by name; each is called with a seed (or None)."""

__all__ = [
    "BUILTIN_BOTS", "Bot", "GameResult", "GreedyBot", "IllegalBotAction", "LazyView",
    "RandomBot", "play_game",
]
