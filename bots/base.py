"""The bot interface every Kaitaku bot implements.

A bot gets exactly what a human client gets: its seat's view (see
``protocol.rules.observe``) and its legal actions, and returns one action.
The same class runs in-process against the engine (:mod:`bots.local`) and
over the network through the bot SDK (:mod:`bots.client`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.rules import Action, Event
from protocol.rules.board import Geometry, geometry_of


def board_geometry(view: Mapping[str, Any]) -> Geometry:
    """The geometry of a view's board (19 hexes, or 30 with 5–6 players)."""
    return geometry_of(len(view["board"]["terrain"]))

SAFE_NAMES = ("roll_dice", "end_turn", "stop_road_building", "reject_trade", "cancel_trade")
"""The actions :func:`safe_action` takes when they are legal (in this order)."""


def safe_action(legal: Sequence[Action], rng: random.Random) -> Action:
    """The action to take when there is no time to think (a turn timer ran out,
    a bot was too slow or failed): roll, end the turn, place no more free roads,
    reject or cancel a trade; any other decision is a random legal choice."""
    by_name = {a.name: a for a in legal}
    for name in SAFE_NAMES:
        if name in by_name:
            return by_name[name]
    return legal[int(rng.random() * len(legal))]


class Bot:
    """Base class: override :meth:`act`; the hooks are optional."""

    name = "bot"
    humans: frozenset[int] = frozenset()
    """The seats people play (the SDK keeps it up to date from the server's
    ``table`` messages; empty in-process). Bots can spare people prompts:
    the built-ins address their offers to bots first and put at most one
    offer a turn before people."""
    reason: str | None = None
    """Why the trade answer :meth:`act` last returned was given, for the
    people at the table (one of :data:`protocol.wire.TRADE_REASONS`; the SDK
    sends it with the answer), or None. The built-ins set it with every
    answer to an offer or a proposal."""

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` (never empty) for the seat ``view["seat"]``."""
        raise NotImplementedError

    def propose(self, view: Mapping[str, Any]) -> Action | None:
        """Optionally propose a trade to the current player (R-TRADE-2).

        Called when this seat, not on turn, becomes able to propose
        (``view["you"]["may_propose"]``): when the current player's main phase
        starts after the roll, and again after this seat's proposal was
        answered or an offer of the current player ended. Return a
        :class:`~protocol.rules.ProposeTrade` (terms from this seat's side), or
        None to let it pass. A seat makes at most
        :data:`~protocol.rules.MAX_PROPOSALS` proposals a turn."""
        return None

    def act_early(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action | None:
        """Optionally take a choice this seat does not owe yet (its seat is not in
        ``view["to_act"]``): the offerer of a trade is offered ``legal`` as soon
        as some seat accepted or countered, and may confirm that answer at once
        instead of waiting for the others. Return one of ``legal`` to take it
        now, or None (the default) to wait until the choice is owed."""
        return None

    def on_events(self, seat: int, events: Sequence[Event]) -> None:
        """Events this seat may see, after every applied action (optional)."""

    def on_game_over(self, view: Mapping[str, Any]) -> None:
        """The final view (optional)."""
