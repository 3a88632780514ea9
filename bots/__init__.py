"""Kaitaku bots: the bot interface, built-in bots and the in-process runner."""

from collections.abc import Callable

from .base import Bot
from .greedy import GreedyBot
from .hard import HardBot
from .heuristic import HeuristicBot
from .local import GameResult, IllegalBotAction, LazyView, play_game
from .random_bot import RandomBot
from .search import SearchBot


def _search_bot(seed: int | None = None) -> Bot:
    return SearchBot(seed=seed)


def _hard_bot(seed: int | None = None) -> Bot:
    return HardBot(seed=seed)


BUILTIN_BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot, "greedy": GreedyBot, "heuristic": HeuristicBot, "search": _search_bot,
    "hard": _hard_bot}
"""Built-in bots by name; each is called with a seed (or None). ``search`` and
``hard`` think up to half a second per decision (their default budget)."""


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from a spec: a built-in name (random, greedy, heuristic, search,
    hard) or ``module:Class`` (a class importable from ``module``, constructed
    with ``seed`` if it takes an argument); ``SPEC@S`` gives a searching bot
    (one with a ``budget``) ``S`` seconds per decision, e.g. ``hard@2``."""
    import importlib
    import inspect

    base, at, secs = spec.rpartition("@") if "@" in spec else (spec, "", "")
    if at:
        try:
            budget = float(secs)
        except ValueError:
            raise ValueError(f"bad budget in {spec!r}: {secs!r} is not seconds") from None
        if not (0.0 < budget <= 600.0):
            raise ValueError(f"bad budget in {spec!r}: between 0 and 600 seconds")
        bot = make_bot(base, seed)
        if not hasattr(bot, "budget"):
            raise ValueError(f"{base} does not search: it takes no budget")
        bot.budget = budget
        return bot
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


def check_bot_spec(spec: str) -> None:
    """Raise ValueError, with the reason, unless ``spec`` makes a bot
    (:func:`make_bot`: an unknown name, a module that does not import, a
    missing class, a class that is not a bot, a bad budget)."""
    try:
        make_bot(spec, 0)
    except (ImportError, AttributeError, TypeError) as exc:
        raise ValueError(f"{spec!r}: {exc}") from None


__all__ = [
    "BUILTIN_BOTS", "Bot", "GameResult", "GreedyBot", "HardBot", "HeuristicBot", "IllegalBotAction",
    "LazyView", "RandomBot", "SearchBot", "check_bot_spec", "make_bot", "play_game",
]
