"""The search bot's own policy: the heuristic bot with a harder-bargaining domestic trade.

:class:`TraderBot` is :class:`bots.heuristic.HeuristicBot` except in domestic
trade:

- **Its offers** (on its own turn): it asks the players before the bank
  whatever the bank's rate and makes up to :data:`MAX_OFFERS` offers a turn
  (the heuristic: two). It first asks two cards for one of its spare cards
  (the missing card the others most likely hold, by the heuristic's estimate
  of their hands from public events, plus a second card it needs), then one
  for one, then two spare cards for one.
- **Its answers** (to another player's offer): where the heuristic would
  accept, or even refuse, it counter-offers the same trade with one more
  card for itself, a card the offerer most likely holds, when that makes the
  trade clearly good for it — but never asks a player to give more than one
  card beyond what they get (:data:`bots.heuristic.MAX_OVERPAY`, the most
  the heuristic itself ever gives). A person's offer (``humans``) it takes
  where the heuristic would, and counter-offers only one the heuristic
  would refuse: people read a counter to a fair offer as a refusal.
- **Proposals** (R-TRADE-2): off its turn it proposes like the heuristic, up
  to twice a turn. On its turn, a proposal it would not accept is countered
  the same way (an offer to the proposer with one more card for itself) when
  that makes it clearly good, else rejected.

Everything else — which builds, the robber, development cards — is the
heuristic's. :class:`bots.search.SearchBot` uses it as its prior move and for
its own seat in rollouts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.rules import (
    AcceptProposal,
    AcceptTrade,
    Action,
    CounterOffer,
    OfferTrade,
    RejectProposal,
)

from .heuristic import MAX_OVERPAY, HeuristicBot, _covers, _Ctx, _Goal, _vec

MAX_OFFERS = 6
"""Domestic offers per turn."""
MAX_MISSING = 3
"""Offer only when at most this many cards are missing for the goal."""
LIKELY = 0.6
"""Ask a player for a card only if they hold at least this many of it (estimated)."""

_Terms = tuple[list[int], list[int]]


class TraderBot(HeuristicBot):
    """The heuristic bot, bargaining harder with the other players."""

    name = "trader"
    ask_players_at = 2  # ask the players first whatever the bank's rate
    max_proposals = 2

    def _answer_proposal(self, ctx: _Ctx, q: int, p: Sequence[Sequence[int]],
                         goals: Sequence[_Goal], legal_set: set[Action],
                         domestic: bool) -> Action | None:
        give_q, get_q = list(p[0]), list(p[1])  # from the proposer's side
        if self._proposal_value(ctx, q, give_q, get_q, goals) > 0 and (
                AcceptProposal(q) in legal_set):
            return super()._answer_proposal(ctx, q, p, goals, legal_set, domestic)
        if domestic and self.offers and self._offers < MAX_OFFERS:
            counter = self._counter_terms(ctx, q, give_q, get_q, goals)
            if counter is not None:
                key = (_vec(get_q), _vec(counter))
                if key not in self._offered:
                    self._offered.add(key)
                    self._offers += 1
                    self.reason = None  # an offer of its own, not an answer
                    return OfferTrade(key[0], key[1], q)
        self.reason = self._proposal_refusal(ctx, q, give_q, get_q, goals)
        return RejectProposal(q)

    def _offer(self, ctx: _Ctx, goal: _Goal, goals: Sequence[_Goal], surplus: Sequence[int],
               miss: Sequence[int]) -> Action | None:
        if self._offers >= MAX_OFFERS or sum(miss) > MAX_MISSING:
            return None
        partners = [q for q in ctx.opponents()
                    if ctx.cards[q] > 0 and ctx.vps[q] < ctx.target - 2]
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
        need = self._need(goals)
        tries: list[_Terms] = []
        for want in wants:  # two for one: the missing card and another we can use
            second = _second_card(want, wants, miss, need, ctx.hand, gives)
            if second is None:
                continue
            get_v = [0] * 5
            get_v[want] += 1
            get_v[second] += 1
            for g in order:
                give_v = [0] * 5
                give_v[g] = 1
                tries.append((give_v, get_v))
        for sweet in (0, 1):  # then one for one, then two of ours for one
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
            to = self._address(ctx, max(range(5), key=lambda r: (get_v[r], -r)))
            if to == -1:
                return None
            self._offered.add(key)
            self._offers += 1
            return OfferTrade(key[0], key[1], to)
        return None

    def _trade(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        t = ctx.trade
        if t is not None and t["offerer"] != ctx.me and AcceptTrade() in legal:
            if int(t["offerer"]) in self.humans:
                # A person's offer: taken when the heuristic would take it;
                # bargained for only when it would not.
                plain = super()._trade(ctx, legal)
                if isinstance(plain, AcceptTrade):
                    return plain
                why = self.reason
                counter = self._counter(ctx, t)
                self.reason = "counter" if counter is not None else why
                return counter if counter is not None else plain
            counter = self._counter(ctx, t)
            if counter is not None:
                self.reason = "counter"
                return counter
        return super()._trade(ctx, legal)

    def _counter(self, ctx: _Ctx, t: Mapping[str, Any]) -> Action | None:
        """The offer with one more card for us, if the offerer may accept it and it
        is clearly good for us; None to answer as the heuristic does."""
        give, get = list(t["give"]), list(t["get"])  # the offerer's side
        best = self._counter_terms(ctx, int(t["offerer"]), give, get, self._goals(ctx))
        if best is None:
            return None
        return CounterOffer(_vec(get), _vec(best))

    def _counter_terms(self, ctx: _Ctx, other: int, give: list[int], get: list[int],
                       goals: Sequence[_Goal]) -> list[int] | None:
        """``give`` (what ``other`` gives, from its side) with one more card for
        us, a card ``other`` most likely holds, if ``other`` may still accept it
        and it is clearly good for us; None otherwise."""
        if ctx.vps[other] >= ctx.target - 2:
            return None  # the heuristic refuses the leader anyway
        if sum(give) + 1 - sum(get) > MAX_OVERPAY:
            return None  # they would refuse it
        if not _covers(ctx.hand, get):
            return None
        before = self._hand_value(ctx, ctx.hand, goals)
        margin = self._accept_margin(ctx, other)
        est = self._estimate(ctx, other)
        need = self._need(goals)
        best: list[int] | None = None
        best_v = before + margin
        for r in range(5):
            if get[r] or est[r] - give[r] < LIKELY:
                continue
            ours = give[:]
            ours[r] += 1
            after = [ctx.hand[x] - get[x] + ours[x] for x in range(5)]
            v = self._hand_value(ctx, after, goals) + (0.005 if need[r] > ctx.hand[r] else 0.0)
            if v > best_v:
                best, best_v = ours, v
        return best


def _second_card(want: int, wants: Sequence[int], miss: Sequence[int], need: Sequence[int],
                 hand: Sequence[int], gives: Sequence[int]) -> int | None:
    """The second card of a two-for-one ask: another missing card, else one the
    next goals need, else any card we do not give away."""
    for r in wants:
        if miss[r] - (r == want) > 0:
            return r
    for r in range(5):
        if r not in gives and need[r] > hand[r] + (r == want):
            return r
    for r in range(5):
        if r not in gives and r != want:
            return r
    return None


__all__ = ["LIKELY", "MAX_MISSING", "MAX_OFFERS", "TraderBot"]
