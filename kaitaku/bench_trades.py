"""How the bots answer a person's trade offers (``kaitaku bench trades``).

Positions come from seeded games of heuristic bots: the start of each main
phase (after the roll). At each one the player on turn plays "the person"
and makes, to each other seat in turn, offers built from outside the bots,
by what that seat holds and what it can build:

- the seat's **next build** is the one it is fewest cards short of among a
  city (it has a settlement to upgrade and a city piece), a settlement (a
  free spot its roads reach and a settlement piece) and a development card
  (the deck is not empty);
- a card it **can spare** is one it holds more of than that build needs;
- **completes**: the seat is one card short of its next build and the person
  gives that card for one spare card, one for one;
- **closer**: the seat is two or three cards short and the person gives one
  of the missing cards for one spare card;
- **leader**: a completes offer from a person two points or less from
  winning (the offers that may hand the leader the game).

Each offer is made to a fresh bot of each level (``bots.levels``) that knows
the offerer is a person (``Bot.humans``, as the SDK sets it from the
server's ``table`` messages); its answer (accept, reject, counter-offer) and
the reason it gives are counted. The same offers, from a bot instead of a
person (``--from-bots``), show how the bots answer each other.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bots import HeuristicBot, make_bot, play_game
from bots.levels import LEVELS
from protocol.rules import (
    AcceptTrade,
    Action,
    Cards,
    CounterOffer,
    GameState,
    OfferTrade,
    Phase,
    RollDice,
    Settings,
    apply,
    legal_actions,
    observe,
)
from protocol.rules.board import NODE_NODES
from protocol.rules.state import CITIES, SETTLEMENTS

KINDS = ("completes", "closer", "leader")
BUILDS: dict[str, tuple[int, ...]] = {
    "city": (0, 0, 0, 2, 3),
    "settlement": (1, 1, 1, 1, 0),
    "dev": (0, 0, 1, 1, 1),
}


@dataclass(frozen=True, slots=True)
class Offer:
    """One offer of the person (seat ``person``, on turn) to seat ``to``."""

    kind: str
    state: GameState  # the position before the offer (main phase, the person on turn)
    person: int
    to: int
    give: int  # the card the person gives (the one the seat lacks)
    get: int  # the spare card the person asks for
    build: str


def _one(resource: int) -> Cards:
    """One card of ``resource``."""
    c = [0, 0, 0, 0, 0]
    c[resource] = 1
    return (c[0], c[1], c[2], c[3], c[4])


def _missing(hand: list[int], cost: tuple[int, ...]) -> list[int]:
    return [max(0, cost[r] - hand[r]) for r in range(5)]


def next_build(s: GameState, seat: int) -> str | None:
    """The build ``seat`` is fewest cards short of (None: it can build nothing)."""
    hand = s.hands[seat]
    builds = []
    if s.pieces[seat][CITIES] and any(
            s.node_owner[n] == seat and s.node_level[n] == 1 for n in range(len(s.node_owner))):
        builds.append("city")
    no = s.node_owner
    if s.pieces[seat][SETTLEMENTS] and any(
            no[n] < 0 and all(no[m] < 0 for m in NODE_NODES[n]) for n in s.reach[seat]):
        builds.append("settlement")
    if any(s.dev_deck):
        builds.append("dev")
    if not builds:
        return None
    return min(builds, key=lambda b: sum(_missing(hand, BUILDS[b])))


def offers_at(s: GameState) -> list[Offer]:
    """The offers the person on turn makes at position ``s`` (at most one per
    seat: completes or leader when the seat is one card short, else closer)."""
    p = s.current
    target = s.settings.vp_target
    leading = s.vp[p] >= target - 2  # public points, as the bots see them
    out = []
    for q in range(s.settings.players):
        if q == p:
            continue
        build = next_build(s, q)
        if build is None:
            continue
        cost = BUILDS[build]
        hand = s.hands[q]
        miss = _missing(hand, cost)
        short = sum(miss)
        if short == 1:
            kind = "leader" if leading else "completes"
        elif short in (2, 3) and not leading:
            kind = "closer"
        else:
            continue
        gives = [r for r in range(5) if miss[r] and s.hands[p][r]]
        spare = [r for r in range(5) if hand[r] > cost[r] and not miss[r]]
        if not gives or not spare:
            continue
        give = gives[0]
        get = max(spare, key=lambda r: (hand[r] - cost[r], -r))
        out.append(Offer(kind, s.copy(), p, q, give, get, build))
    return out


def positions(seed: int, games: int) -> list[GameState]:
    """The start of every main phase (after the roll) in ``games`` seeded games
    of four heuristic bots."""
    found: list[GameState] = []

    def step(s: GameState, seat: int, action: Action, events: list[Any]) -> None:
        if isinstance(action, RollDice) and s.phase == Phase.MAIN.value:
            found.append(s.copy())

    for g in range(games):
        bots = [HeuristicBot(seed * 1000 + g * 4 + q) for q in range(4)]
        play_game(bots, Settings(players=4), seed * 1_000_003 + g, on_step=step,
                  keep_log=False)
    return found


def answer(level: str, offer: Offer, from_person: bool, seed: int) -> tuple[str, str | None]:
    """The answer of a fresh bot of ``level`` at seat ``offer.to``: ``accept``,
    ``reject`` or ``counter``, and the reason it gives."""
    s = offer.state.copy()
    apply(s, OfferTrade(_one(offer.give), _one(offer.get), offer.to), offer.person)
    bot = make_bot(LEVELS[level], seed)
    bot.humans = frozenset({offer.person}) if from_person else frozenset()
    legal = legal_actions(s, offer.to)
    action = bot.act(observe(s, offer.to, legal), legal)
    kind = ("accept" if isinstance(action, AcceptTrade)
            else "counter" if isinstance(action, CounterOffer) else "reject")
    return kind, bot.reason


def bench_trades(per_kind: int, seed: int, from_person: bool = True,
                 max_games: int = 400) -> dict[str, Any]:
    """Up to ``per_kind`` offers of each kind, answered at each level."""
    offers: dict[str, list[Offer]] = {k: [] for k in KINDS}
    games = 0
    batch = 5
    while games < max_games and any(len(v) < per_kind for v in offers.values()):
        for s in positions(seed + games, batch):
            for o in offers_at(s):
                if len(offers[o.kind]) < per_kind:
                    offers[o.kind].append(o)
        games += batch
    result: dict[str, Any] = {"seed": seed, "games": games, "from": "person" if from_person
                              else "bot", "levels": {}}
    for level in LEVELS:
        row: dict[str, Any] = {}
        for kind in KINDS:
            answers: Counter[str] = Counter()
            reasons: Counter[str] = Counter()
            for i, o in enumerate(offers[kind]):
                a, why = answer(level, o, from_person, seed * 7919 + i)
                answers[a] += 1
                reasons[f"{a}:{why}"] += 1
            row[kind] = {"offers": len(offers[kind]), **{a: answers[a] for a in
                                                          ("accept", "reject", "counter")},
                         "reasons": dict(sorted(reasons.items()))}
        result["levels"][level] = row
    return result


def main_trades(per_kind: int, seed: int, as_json: bool, from_bots: bool) -> int:
    result = bench_trades(per_kind, seed, not from_bots)
    if as_json:
        print(json.dumps(result))
        return 0
    who = "a bot" if from_bots else "a person"
    print(f"offers from {who}; positions from {result['games']} seeded games (seed {seed})")
    print(f"{'level':<8}{'offer':<11}{'accepted':>14}{'countered':>11}{'rejected':>10}")
    for level, row in result["levels"].items():
        for kind in KINDS:
            r = row[kind]
            n = r["offers"]
            share = f"{r['accept']}/{n} ({100 * r['accept'] / n:.0f}%)" if n else "-"
            print(f"{level:<8}{kind:<11}{share:>14}{r['counter']:>11}{r['reject']:>10}")
    print("reasons given (answer:reason count):")
    for level, row in result["levels"].items():
        for kind in KINDS:
            text = ", ".join(f"{k} {v}" for k, v in row[kind]["reasons"].items())
            print(f"  {level} {kind}: {text}")
    return 0


__all__ = ["BUILDS", "KINDS", "Offer", "bench_trades", "main_trades", "next_build",
           "offers_at", "positions"]
