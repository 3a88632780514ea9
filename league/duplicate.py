"""Duplicate matches: the same board and the same chance in every seat rotation.

Catan is luck-heavy. In a duplicate block (as in duplicate bridge) every
rotation of the same entries plays the same board with the same starting seat
*and* the same chance, drawn from streams that do not depend on the decisions
made, so each entry faces exactly the luck the others faced in its seat:

* the dice of turn ``t``, roll ``r`` (the 2-player game rolls twice) come from
  their own stream, keyed by the block's seed, ``t`` and ``r``; the second roll
  of a 2-player turn is re-drawn from the same key until it differs from the
  first, as the rules ask;
* the development deck has one fixed order per block: the ``k``-th card bought
  in the game is the ``k``-th card of that order, whoever buys it;
* the ``j``-th steal (or forced-trade draw) of turn ``t`` uses a fixed number
  ``u`` in ``[0, 1)``, keyed by ``t`` and ``j``, mapped onto the victim's hand
  in resource order (lumber first), so the same hand gives the same card.

Chance reaches the engine through ``apply(..., chance=)``, the argument that
replays recorded outcomes, so the engine and ordinary games are untouched, and
a duplicate game's log replays like any other.
"""

from __future__ import annotations

import hashlib

from protocol.rules import (
    Action,
    BuyDevCard,
    GameState,
    MoveRobber,
    RollDice,
    Steal,
    TokenForcedTrade,
    apply,
)
from protocol.rules import events as ev
from protocol.rules.rng import Rng
from protocol.rules.state import DEV_DECK

Chance = tuple[int, ...] | None

_CHANCY = (RollDice, BuyDevCard, MoveRobber, Steal, TokenForcedTrade)
"""The actions that can draw chance (a robber move may steal at once)."""


def _key(seed: int, *parts: object) -> int:
    text = ":".join(["kaitaku-duplicate", str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


class DuplicateChance:
    """The chance of one duplicate block. Call :meth:`outcome` before applying
    each action and pass what it returns as ``apply``'s ``chance``."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.deck_order: tuple[int, ...] = self._shuffled(DEV_DECK)
        """The development deck's order (the base game's 25 cards)."""
        self._large: tuple[int, ...] | None = None
        self._turn = -1
        self._draws = 0  # steals and forced-trade draws so far this turn

    def _shuffled(self, counts: tuple[int, ...]) -> tuple[int, ...]:
        deck = [card for card, n in enumerate(counts) for _ in range(n)]
        Rng(_key(self.seed, "deck")).shuffle(deck)
        return tuple(deck)

    def deck_of(self, s: GameState) -> tuple[int, ...]:
        """The deck's order for ``s``'s game: :attr:`deck_order`, or with 5–6
        players the 34 cards of R-56-5 in an order of the same seed."""
        if s.settings.dev_deck == DEV_DECK:
            return self.deck_order
        if self._large is None:
            self._large = self._shuffled(s.settings.dev_deck)
        return self._large

    def dice(self, turn: int, roll: int, attempt: int = 0) -> tuple[int, int]:
        x = Rng(_key(self.seed, "dice", turn, roll, attempt)).below(36)
        return (x // 6 + 1, x % 6 + 1)

    def unit(self, turn: int, draw: int, card: int) -> float:
        return Rng(_key(self.seed, "draw", turn, draw, card)).below(1 << 53) / (1 << 53)

    @staticmethod
    def _pick(hand: list[int], u: float) -> int:
        i = int(u * sum(hand))
        r = 0
        while i >= hand[r]:
            i -= hand[r]
            r += 1
        return r

    def outcome(self, s: GameState, seat: int, action: Action) -> Chance:
        """The chance ``action`` by ``seat`` gets in state ``s`` (None: it has
        none, or it is illegal and the engine will say so)."""
        if not isinstance(action, _CHANCY):
            return None
        if s.turn != self._turn:
            self._turn, self._draws = s.turn, 0
        trial = s.copy()
        try:
            events = apply(trial, action, seat)
        except Exception:
            return None  # the real apply reports the error
        for e in events:
            if isinstance(e, ev.DiceRolled):
                roll = s.rolls_done
                attempt = 0
                d = self.dice(s.turn, roll, attempt)
                while roll and sum(d) == s.first_sum:  # R-2P-3: the second sum differs
                    attempt += 1
                    d = self.dice(s.turn, roll, attempt)
                return d
            if isinstance(e, ev.DevCardBought):
                order = self.deck_of(s)
                bought = len(order) - sum(s.dev_deck)
                return (order[bought],)
            if isinstance(e, ev.Stolen):
                if e.count == 0:
                    return (-1,)
                self._draws += 1
                return (self._pick(s.hands[e.victim][:], self.unit(s.turn, self._draws, 0)),)
            if isinstance(e, ev.ForcedTradeDrawn):
                self._draws += 1
                pool = s.hands[e.victim][:]
                drawn = []
                for k in range(e.count):
                    r = self._pick(pool, self.unit(s.turn, self._draws, k))
                    pool[r] -= 1
                    drawn.append(r)
                return tuple(drawn)
        return None
