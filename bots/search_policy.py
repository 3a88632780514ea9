"""The search bot's own policy: the heuristic bot with a more active domestic trade.

:class:`TraderBot` is :class:`bots.heuristic.HeuristicBot` except when it
trades with other players on its own turn: it asks the players before the bank
whatever the bank's rate, makes up to :data:`MAX_OFFERS` offers a turn (the
heuristic: two), and tries the missing cards the others are most likely to
hold (by the heuristic's own estimate of their hands from public events) with
each of its spare cards in turn, one for one before two for one. Everything
else — which builds, the robber, answers to others' offers — is the
heuristic's. :class:`bots.search.SearchBot` uses it as its prior move and for
its own seat in rollouts.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.rules import Action, OfferTrade

from .heuristic import HeuristicBot, _covers, _Ctx, _Goal, _vec

MAX_OFFERS = 6
"""Domestic offers per turn."""
MAX_MISSING = 3
"""Offer only when at most this many cards are missing for the goal."""


class TraderBot(HeuristicBot):
    """The heuristic bot, trading more with the other players."""

    name = "trader"
    ask_players_at = 2  # ask the players first whatever the bank's rate

    def _offer(self, ctx: _Ctx, goal: _Goal, goals: Sequence[_Goal], surplus: Sequence[int],
               miss: Sequence[int]) -> Action | None:
        if self._offers >= MAX_OFFERS or sum(miss) > MAX_MISSING:
            return None
        partners = [q for q in ctx.opponents()
                    if ctx.seats[q]["cards"] > 0 and ctx.seats[q]["vp"] < ctx.target - 2]
        if not partners:
            return None
        terms = self._offer_terms(goal, goals, surplus, miss)
        if terms is None:
            return None
        spare, gets, gives = terms
        held = [0.0] * 5
        for q in partners:
            est = self._estimate(ctx, q)
            for r in range(5):
                held[r] += est[r]
        wants = sorted(gets, key=lambda r: (-held[r], ctx.my_prod[r], r))
        order = sorted(gives, key=lambda r: (-spare[r], -ctx.st.scarcity[r], r))
        tries: list[tuple[list[int], list[int]]] = []
        for sweet in (0, 1):
            for want in wants:
                for g in order:
                    give_v = [0] * 5
                    give_v[g] += 1
                    if sweet:
                        extra = [r for r in order if spare[r] - give_v[r] > 0]
                        if not extra:
                            continue
                        r2 = max(extra, key=lambda r: (spare[r] - give_v[r], r))
                        give_v[r2] += 1
                    get_v = [0] * 5
                    get_v[want] = 1
                    tries.append((give_v, get_v))
        for give_v, get_v in tries:
            key = (_vec(give_v), _vec(get_v))
            if key in self._offered or not _covers(ctx.hand, give_v):
                continue
            self._offered.add(key)
            self._offers += 1
            return OfferTrade(key[0], key[1], None)
        return None


__all__ = ["MAX_OFFERS", "TraderBot"]
