"""The bot interface every Kaitaku bot implements.

A bot gets exactly what a human client gets: its seat's view (see
``protocol.rules.observe``) and its legal actions, and returns one action.
The same class runs in-process against the engine (:mod:`bots.local`) and,
later, over the network through the bot SDK.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.rules import Action, Event


class Bot:
    """Base class: override :meth:`act`; the hooks are optional."""

    name = "bot"

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` (never empty) for the seat ``view["seat"]``."""
        raise NotImplementedError

    def on_events(self, seat: int, events: Sequence[Event]) -> None:
        """Events this seat may see, after every applied action (optional)."""

    def on_game_over(self, view: Mapping[str, Any]) -> None:
        """The final view (optional)."""
