"""A simple greedy bot: takes the best-looking legal action by fixed priorities.

It reads only its view and its legal actions (plus the public board
geometry), like any remote bot. Priorities: city > settlement > development
card > road towards a free settlement spot > a bank trade that completes a
build > end the turn. It makes no domestic offers; it takes one (or a
proposal, on its turn) that brings the build it is nearest to closer without
giving more cards than it gets, unless the other seat is two points (or
less) from winning. Placement scores intersections by production (pips)
and resource variety; the robber goes where it hurts the leader most.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.rules import (
    AcceptProposal,
    AcceptTrade,
    Action,
    BuildCity,
    BuildNeutralRoad,
    BuildNeutralSettlement,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    Discard,
    EndTurn,
    GiveBack,
    MaritimeTrade,
    MoveRobber,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RejectProposal,
    RejectTrade,
    RollDice,
    Steal,
    TokenRobberHome,
)
from protocol.rules.board import DESERT, pips

from .base import Bot, board_geometry

_COSTS: dict[str, tuple[int, ...]] = {
    "city": (0, 0, 0, 2, 3),
    "settlement": (1, 1, 1, 1, 0),
    "dev": (0, 0, 1, 1, 1),
    "road": (1, 1, 0, 0, 0),
}


def node_value(view: Mapping[str, Any], node: int) -> float:
    """Production pips at ``node`` plus a bonus per distinct resource."""
    board = view["board"]
    terrain, numbers = board["terrain"], board["numbers"]
    total = 0.0
    kinds = set()
    for h in board_geometry(view).node_hexes[node]:
        if terrain[h] != DESERT:
            total += pips(numbers[h])
            kinds.add(terrain[h])
    return total + 1.5 * len(kinds)


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        self.reason = None
        if len(legal) == 1:
            return legal[0]
        first = legal[0]
        phase = view["phase"]
        if phase in ("discard", "give_back"):
            return self._discard(view, legal)
        if phase in ("neutral_road", "neutral_settlement"):
            return self._neutral(view, legal)
        if phase == "move_robber":
            return self._robber(view, legal)
        if phase == "steal":
            seats = view["seats"]
            return max(legal, key=lambda a: seats[a.victim].get("cards", 0)
                       if isinstance(a, Steal) else -1)
        if phase == "setup_settlement" or (
            isinstance(first, BuildSettlement) and phase not in ("main", "special_build")
        ):
            return max(legal, key=lambda a: node_value(view, a.node)
                       if isinstance(a, BuildSettlement) else -1.0)
        if phase in ("setup_road", "road_building"):
            return self._best_road(view, legal)
        if phase == "trade":
            trade = view["trade"]
            if trade is None or trade["offerer"] == view["seat"]:
                return legal[-1]  # cancel: the greedy bot makes no offers
            # from our side: we give what the offerer gets
            ok = self._answer(view, int(trade["offerer"]), trade["get"], trade["give"],
                              AcceptTrade() in legal)
            return AcceptTrade() if ok else RejectTrade()
        if phase == "pre_roll":
            for a in legal:
                if isinstance(a, PlayKnight) and self._robber_on_me(view):
                    return a
            return next(a for a in legal if isinstance(a, RollDice))
        return self._main(view, legal)

    # -- main phase --------------------------------------------------------------

    def _main(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        for q, p in enumerate(view["proposals"]):
            if p is not None:  # p from the proposer's side: we give p[1], get p[0]
                ok = self._answer(view, q, p[1], p[0], AcceptProposal(q) in legal)
                return AcceptProposal(q) if ok else RejectProposal(q)
        cities = [a for a in legal if isinstance(a, BuildCity)]
        if cities:
            return max(cities, key=lambda a: node_value(view, a.node))
        settlements = [a for a in legal if isinstance(a, BuildSettlement)]
        if settlements:
            return max(settlements, key=lambda a: node_value(view, a.node))
        for a in legal:
            if isinstance(a, PlayYearOfPlenty | PlayMonopoly | PlayRoadBuilding | PlayKnight):
                return self._dev_choice(view, legal, a)
        hand = view["you"]["hand"]
        roads = [a for a in legal if isinstance(a, BuildRoad)]
        pieces = view["seats"][view["seat"]]["pieces"]
        if roads and pieces[1] > 0 and not self._has_open_spot(view):
            return self._best_road(view, roads)
        if any(isinstance(a, BuyDevCard) for a in legal):
            return next(a for a in legal if isinstance(a, BuyDevCard))
        trade = self._useful_trade(hand, legal)
        if trade is not None:
            return trade
        for a in legal:  # two-player game: chase the robber off our own hex
            if isinstance(a, TokenRobberHome) and self._robber_on_me(view):
                return a
        return next((a for a in legal if isinstance(a, EndTurn)), legal[-1])

    def _dev_choice(self, view: Mapping[str, Any], legal: Sequence[Action],
                    a: Action) -> Action:
        hand = view["you"]["hand"]
        if isinstance(a, PlayMonopoly):
            monos = [x for x in legal if isinstance(x, PlayMonopoly)]
            want = min(range(5), key=lambda r: hand[r])
            return next(x for x in monos if x.resource == want)
        if isinstance(a, PlayYearOfPlenty):
            yops = [x for x in legal if isinstance(x, PlayYearOfPlenty)]
            need = self._missing(hand, _COSTS["city"] if hand[4] >= 2 else _COSTS["settlement"])
            return max(yops, key=lambda x: sum(
                1 for r in (x.first, x.second) if r is not None and need[r] > 0))
        return a

    # -- answers to offers and proposals ------------------------------------------

    def _builds(self, view: Mapping[str, Any]) -> list[tuple[int, ...]]:
        """The costs of what we could build with the cards: a city (on a
        settlement of ours), a settlement (at a spot our roads reach) and a
        development card, as far as pieces and the deck allow."""
        me = view["seat"]
        pieces = view["seats"][me]["pieces"]
        out = []
        if pieces[2] > 0 and any(b[1] == me and b[2] == 1 for b in view["buildings"]):
            out.append(_COSTS["city"])
        if pieces[1] > 0 and self._has_open_spot(view):
            out.append(_COSTS["settlement"])
        if view["dev_deck"]:
            out.append(_COSTS["dev"])
        return out

    def _answer(self, view: Mapping[str, Any], other: int, give: Sequence[int],
                get: Sequence[int], can: bool) -> bool:
        """Take a trade giving ``give`` for ``get`` with seat ``other``? Yes when
        it brings the build we are nearest to (of those we cannot make yet)
        closer and keeps every build we can make now. Sets :attr:`reason`.
        ``can``: the engine lets us (we hold ``give``)."""
        hand = view["you"]["hand"]
        builds = self._builds(view)

        def short(h: Sequence[int], cost: Sequence[int]) -> int:
            return sum(self._missing(h, cost))

        ready = [c for c in builds if short(hand, c) == 0]
        target = min((c for c in builds if short(hand, c)), key=lambda c: short(hand, c),
                     default=None)
        kept = [*ready, *([] if target is None else [target])]
        keeps = any(give[r] and hand[r] - give[r] < c[r] for c in kept for r in range(5))
        if not can:
            self.reason = "keeps"
        elif view["seats"][other]["vp"] >= view["vp_target"] - 2:
            self.reason = "leader"
        elif sum(give) > sum(get):
            self.reason = "too_much"
        else:
            after = [hand[r] - give[r] + get[r] for r in range(5)]
            if (target is not None and short(after, target) < short(hand, target)
                    and all(short(after, c) == 0 for c in ready)):
                self.reason = "completes" if short(after, target) == 0 else "closer"
                return True
            self.reason = "keeps" if keeps else "no_use"
        return False

    @staticmethod
    def _missing(hand: Sequence[int], cost: Sequence[int]) -> list[int]:
        return [max(0, cost[r] - hand[r]) for r in range(5)]

    def _useful_trade(self, hand: Sequence[int], legal: Sequence[Action]) -> Action | None:
        trades = [a for a in legal if isinstance(a, MaritimeTrade)]
        if not trades:
            return None
        for goal in ("city", "settlement", "dev"):
            need = self._missing(hand, _COSTS[goal])
            if sum(need) != 1:
                continue
            for t in trades:
                if need[t.get] and hand[t.give] - _COSTS[goal][t.give] >= 2:
                    return t
        return None

    # -- placement ---------------------------------------------------------------

    @staticmethod
    def _occupied(view: Mapping[str, Any]) -> set[int]:
        return {b[0] for b in view["buildings"]}

    def _has_open_spot(self, view: Mapping[str, Any]) -> bool:
        me = view["seat"]
        occupied = self._occupied(view)
        mine = {r[0] for r in view["roads"] if r[1] == me}
        geo = board_geometry(view)
        for e in mine:
            for n in geo.edge_nodes[e]:
                if n not in occupied and not any(m in occupied for m in geo.node_nodes[n]):
                    return True
        return False

    def _best_road(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        occupied = self._occupied(view)
        geo = board_geometry(view)

        def score(a: Action) -> float:
            if not isinstance(a, BuildRoad):
                return -1.0
            best = 0.0
            for n in geo.edge_nodes[a.edge]:
                if n not in occupied and not any(m in occupied for m in geo.node_nodes[n]):
                    best = max(best, node_value(view, n))
            return best + self._rng.random() * 0.1

        return max(legal, key=score)

    # -- robber and discards -----------------------------------------------------

    def _robber_on_me(self, view: Mapping[str, Any]) -> bool:
        me = view["seat"]
        nodes = board_geometry(view).hex_nodes[view["robber"]]
        return any(b[1] == me and b[0] in nodes for b in view["buildings"])

    def _robber(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        me = view["seat"]
        seats = view["seats"]
        numbers = view["board"]["numbers"]
        owner = {b[0]: (b[1], b[2]) for b in view["buildings"]}

        def score(a: Action) -> float:
            if not isinstance(a, MoveRobber):
                return -1e9
            value = 0.0
            for n in board_geometry(view).hex_nodes[a.hex]:
                if n in owner:
                    who, level = owner[n]
                    if who == me:
                        value -= 10 * level
                    elif who < len(seats):  # neutral players (2-player game) hold no cards
                        value += level * (1 + seats[who]["vp"]) * (1 + pips(numbers[a.hex]))
            return value

        return max(legal, key=score)

    def _neutral(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """Put the free neutral piece where it takes the best spot from the opponent."""

        def score(a: Action) -> float:
            if isinstance(a, BuildNeutralSettlement):
                return node_value(view, a.node)
            if isinstance(a, BuildNeutralRoad):
                return self._rng.random()
            return -1.0

        return max(legal, key=score)

    def _discard(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        hand = view["you"]["hand"]

        def keep_score(a: Action) -> float:
            if not isinstance(a, Discard | GiveBack):
                return -1e9
            left: list[int] = [hand[r] - a.cards[r] for r in range(5)]
            shortfall = sum(sum(self._missing(left, c)) for c in _COSTS.values())
            return -float(shortfall) - 0.1 * max(left)

        return max(legal, key=keep_score)
