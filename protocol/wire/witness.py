"""What one client can check of a game's committed chance on its own.

A :class:`ChanceWitness` is fed the messages of one game as they arrive
(``game_started``, ``view``, ``events``, ``game_over``): it keeps the
commitment the game's start carried, the board and starting seat it saw at
the start and every roll, and at ``game_over`` checks the revealed secret
against them (:func:`protocol.rules.chance.check_seen`). The window and the
bot SDK both keep one. Everything it is given is checked, since it comes
from the server it is checking.
"""

from __future__ import annotations

from typing import Any

from protocol.rules import Board, RulesError, Settings
from protocol.rules.chance import Reveal, Verdict, check_seen

MAX_ROLLS = 20_000
"""Rolls kept for the check at the game's end (a capped game has far fewer)."""


class ChanceWitness:
    """See the module docstring."""

    def __init__(self) -> None:
        self.announced: str | None = None
        """The commitment the game's start carried (the first one sent)."""
        self.announced_twice = False
        """A different commitment came later: a lie."""
        self.rolls: list[tuple[int, int, tuple[int, int]]] = []
        self.deal_seen: tuple[dict[str, Any], int] | None = None
        """The board and starting seat of a view of the game's very start."""
        self.verdict: Verdict | None = None
        """At game over with the revealed secret: what the check found."""
        self.pending = False
        """The game is over but its secret is revealed later (a duplicate set)."""
        self._turn = 0
        self._roll = 0

    def game_started(self, msg: dict[str, Any]) -> None:
        chance = msg.get("chance")
        if not isinstance(chance, dict):
            return
        c = chance.get("commitment")
        if not isinstance(c, str) or len(c) != 64:
            return
        if self.announced is None:
            self.announced = c.lower()
        elif c.lower() != self.announced:
            self.announced_twice = True

    def view(self, view: Any) -> None:
        if (self.deal_seen is None and isinstance(view, dict)
                and view.get("phase") == "setup_settlement" and not view.get("buildings")
                and isinstance(view.get("board"), dict)
                and isinstance(view.get("current"), int)):
            self.deal_seen = (view["board"], view["current"])

    def events(self, events: Any) -> None:
        if not isinstance(events, list):
            return
        for event in events:
            if not isinstance(event, dict):
                continue
            kind = event.get("type")
            if kind == "turn_started" and type(event.get("turn")) is int:
                self._turn, self._roll = event["turn"], 0
            elif kind == "dice_rolled":
                d = event.get("dice")
                if (len(self.rolls) < MAX_ROLLS and isinstance(d, list) and len(d) == 2
                        and all(type(x) is int for x in d)):
                    self.rolls.append((self._turn, self._roll, (d[0], d[1])))
                self._roll += 1

    def game_over(self, msg: dict[str, Any], settings: Any) -> Verdict | None:
        """Check the reveal ``game_over`` carries (``settings``: the game's, as
        a map); None when the game was not committed."""
        chance = msg.get("chance")
        self.verdict, self.pending = None, False
        if not isinstance(chance, dict):
            return None
        if "secret" not in chance:
            self.pending = True
            return None
        try:
            reveal = Reveal.from_dict(chance)
            rules = Settings.from_dict(settings if isinstance(settings, dict) else {})
            board, first = None, None
            if self.deal_seen is not None:
                board, first = Board.from_dict(self.deal_seen[0]), self.deal_seen[1]
        except (ValueError, TypeError, KeyError, RulesError) as exc:
            self.verdict = Verdict(False, f"the revealed chance is malformed: {exc}", -1)
            return self.verdict
        if self.announced_twice:
            self.verdict = Verdict(False, "the server sent two different commitments", -1)
        else:
            self.verdict = check_seen(reveal, self.announced, rules, board, first, self.rolls)
        return self.verdict
