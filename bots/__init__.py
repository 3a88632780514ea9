"""Kaitaku bots: the bot interface, built-in bots and the in-process runner."""

from collections.abc import Callable

from .base import Bot
from .greedy import GreedyBot
from .heuristic import HeuristicBot
from .local import GameResult, IllegalBotAction, LazyView, play_game
from .random_bot import RandomBot
from .search import SearchBot


def _search_bot(seed: int | None = None) -> Bot:
    return SearchBot(seed=seed)


BUILTIN_BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot, "search": _search_bot}
"""Built-in bots by name; each is called with a seed (or None). ``search`` thinks
up to half a second per decision (:class:`SearchBot`'s default budget)."""


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from a spec: a built-in name (random, greedy, heuristic, search) or
    ``module:Class`` (a class importable from ``module``, constructed with
    ``seed`` if it takes an argument)."""
    import importlib
    import inspect

    if spec in BUILTIN_BOTS:
        return BUILTIN_BOTS[spec](seed)
    module_name, sep, class_name = spec.partition(":")
    if not sep or not module_name or not class_name:
        raise ValueError(f"unknown bot {spec!r}: a built-in ({', '.join(BUILTIN_BOTS)}) "
                         "or module:Class")
    cls = getattr(importlib.import_module(module_name), class_name)
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    bot = cls(seed) if params else cls()
    if not callable(getattr(bot, "act", None)):
        raise TypeError(f"{spec} has no act(view, legal) method")
    return bot  # type: ignore[no-any-return]

__all__ = [
    "BUILTIN_BOTS", "Bot", "GameResult", "GreedyBot", "HeuristicBot", "IllegalBotAction",
    "LazyView", "RandomBot", "SearchBot", "make_bot", "play_game",
]
