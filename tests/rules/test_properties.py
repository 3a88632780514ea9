"""Property-based tests of the rules engine over random games (hypothesis).

One example is one game: settings (2 to 6 players, VP target, the R-OPT
options), a seed for :func:`new_game`, a seed for the ``random.Random`` that
picks among ``legal_actions(s, to_act(s)[0])``, a step budget, and a few
knobs: how often domestic trades are injected, a "builder" policy that prefers
building (piece limits, an empty deck), and "enrich", which now and then moves
bank cards into hands and gives the current player development cards or trade
tokens, so that bank shortages and every development card show up often.
Domestic trade offers and counter-offers are never listed by
``legal_actions``: the driver makes up random terms, compares ``validate``
with an independent oracle, and checks that refused ones raise
:class:`RulesError` and leave the state untouched.

Checked:

* after every step: card and token conservation (R-COMP-3/4, R-2P-2), piece
  counts (R-COMP-5, R-BUILD-4), VP and harbor ratios recomputed from scratch
  (R-LA-2, R-TRADE-3, R-OPT-3), road lengths recomputed by an independent
  trail search (R-LR-1), Longest Road / Largest Army holders (R-LR-2/3,
  R-LA-1, R-2P-6), the built-this-turn flag (R-OPT-4), phase bookkeeping, no
  dead ends, one log entry per action, event redaction (R-ROBBER-4,
  R-BUILD-5, R-2P-5);
* at sampled points: hidden information never reaches a view (R-TRADE-5),
  serialisation and replay are exact, and a perft-style check that what
  ``legal_actions`` lists is exactly what ``apply`` accepts.

The default run is derandomized (the same 30 examples each time) and does not
shrink, to stay quick and stable; the ``slow`` variants (``pytest -m slow``)
draw fresh examples and shrink failures to a minimal game and step budget.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HPhase
from hypothesis import strategies as st

from protocol.rules import (
    MAX_PROPOSALS,
    AcceptProposal,
    AcceptTrade,
    Action,
    BuildCity,
    BuildNeutralRoad,
    BuildNeutralSettlement,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    ConfirmTrade,
    CounterOffer,
    Discard,
    DiscardKnight,
    EndTurn,
    Event,
    GameLog,
    GameState,
    GiveBack,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    Phase,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    RollDice,
    RulesError,
    Settings,
    Steal,
    StopRoadBuilding,
    TokenForcedTrade,
    TokenRobberHome,
    WithdrawProposal,
    apply,
    legal_actions,
    longest_road,
    new_game,
    observe,
    redact,
    replay,
    to_act,
    validate,
)
from protocol.rules.board import GENERIC_HARBOR
from protocol.rules.events import (
    DevCardBought,
    ForcedTradeDrawn,
    GameOver,
    GaveBack,
    Stolen,
    TradeCompleted,
    TurnStarted,
)
from protocol.rules.state import (
    KNIGHT,
    NEUTRAL_NODES,
    PIECES,
    TOKEN_STOCK,
    VICTORY_POINT,
)

FAST = settings(  # the default run: quick, the same examples every time, no shrinking
    max_examples=30, deadline=None, derandomize=True,
    phases=(HPhase.explicit, HPhase.reuse, HPhase.generate),
    suppress_health_check=[HealthCheck.too_slow],
)
SLOW = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

Cards5 = tuple[int, int, int, int, int]

# --- the random game driver ------------------------------------------------------


@dataclass(frozen=True)
class GameSpec:
    settings: Settings
    seed: int
    policy_seed: int
    budget: int
    trade_rate: float
    builder: bool
    enrich: bool


def game_specs(max_budget: int) -> st.SearchStrategy[GameSpec]:
    return st.builds(
        GameSpec,
        settings=st.builds(
            Settings,
            players=st.sampled_from([4, 3, 2, 5, 6]),
            vp_target=st.sampled_from([10, 6]),
            balanced_map=st.booleans(),
            shuffle_harbors=st.booleans(),
            harbor_delay=st.booleans(),
            strict_phases=st.booleans(),
        ),
        seed=st.integers(0, 2**64 - 1),
        policy_seed=st.integers(0, 2**32 - 1),
        budget=st.one_of(st.just(max_budget), st.integers(0, max_budget)),
        trade_rate=st.sampled_from([0.0, 0.1, 0.3]),
        builder=st.booleans(),
        enrich=st.booleans(),
    )


_BUILDY = (
    BuildRoad, BuildSettlement, BuildCity, BuyDevCard, PlayKnight, PlayRoadBuilding,
    PlayYearOfPlenty, PlayMonopoly,
)


def snapshot(s: GameState) -> dict[str, Any]:
    """Everything about ``s``: the plain form plus the derived tables ``to_dict`` omits."""
    d = s.to_dict(include_log=False)
    d["_derived"] = {
        "vp": s.vp[:],
        "pieces": [p[:] for p in s.pieces],
        "ratios": [r[:] for r in s.ratios],
        "reach": [sorted(r) for r in s.reach],
        "roads": [sorted(r) for r in s.roads],
        "log_len": None if s.log is None else len(s.log),
    }
    return d


def derived(s: GameState) -> dict[str, Any]:
    return {
        "vp": s.vp,
        "pieces": s.pieces,
        "ratios": s.ratios,
        "reach": [sorted(r) for r in s.reach],
        "roads": [sorted(r) for r in s.roads],
    }


def covers(hand: list[int], cards: tuple[int, ...]) -> bool:
    return all(h >= c for h, c in zip(hand, cards, strict=True))


def terms_ok(give: tuple[int, ...], get: tuple[int, ...], hand: list[int]) -> bool:
    """Oracle for domestic trade terms (R-TRADE-2), from the giving side."""
    return (
        all(x >= 0 for x in give + get)
        and sum(give) > 0
        and sum(get) > 0
        and all(not (give[r] and get[r]) for r in range(5))
        and covers(hand, give)
    )


def random_terms(rnd: random.Random, hand: list[int]) -> tuple[Cards5, Cards5]:
    if rnd.random() < 0.7:  # plausible terms
        give = [rnd.randint(0, min(h, 2)) for h in hand]
        get = [0 if give[r] else (rnd.randint(1, 2) if rnd.random() < 0.35 else 0)
               for r in range(5)]
    else:  # anything, occasionally negative
        give = [rnd.choice([-1, 0, 0, 1, 2, 5]) for _ in range(5)]
        get = [rnd.choice([-1, 0, 0, 1, 2, 5]) for _ in range(5)]
    g, t = tuple(give), tuple(get)
    return (g[0], g[1], g[2], g[3], g[4]), (t[0], t[1], t[2], t[3], t[4])


def expect_refused(s: GameState, action: Action, seat: int) -> None:
    """``action`` by ``seat`` must raise RulesError and change nothing."""
    before = snapshot(s)
    try:
        apply(s, action, seat)
    except RulesError:
        pass
    else:
        pytest.fail(f"seat {seat} was allowed {action!r} in phase {before['phase']}")
    after = snapshot(s)
    assert after == before, f"refused {action!r} by seat {seat} changed the state"


class Driver:
    """Plays one random game step by step."""

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.s = new_game(spec.settings, spec.seed)
        self.rnd = random.Random(spec.policy_seed)
        self.steps = 0
        self.trades_done = 0
        self.built = False

    def _trade_attempt(self, seat: int) -> tuple[int, Action] | None:
        """A random domestic trade action for ``seat`` (or a random other seat, to
        try illegal actors; or, in main, a proposal by a seat not on turn),
        checked against the oracle; the legal one is returned with its actor."""
        s, rnd = self.s, self.rnd
        n = s.settings.players
        actor = seat if rnd.random() < 0.85 else rnd.randrange(n)
        propose = rnd.random() < 0.35
        if propose:
            actor = rnd.randrange(n)
        give, get = random_terms(rnd, s.hands[actor])
        a: Action
        if propose:  # R-TRADE-2: to the current player, in its main phase
            a = ProposeTrade(give, get)
            ok = (s.phase == Phase.MAIN and actor != s.current
                  and terms_ok(give, get, s.hands[actor])
                  and actor not in s.proposals and s.proposals_made[actor] < MAX_PROPOSALS
                  and not (s.built and s.settings.strict_phases))
        elif s.phase == Phase.MAIN:
            to = None if rnd.random() < 0.6 else rnd.randrange(-1, n + 1)
            a = OfferTrade(give, get, to)
            ok = (actor == s.current and terms_ok(give, get, s.hands[actor])
                  and (to is None or (0 <= to < n and to != actor))
                  and not (s.built and s.settings.strict_phases))  # R-OPT-4
        elif s.phase == Phase.TRADE:
            assert s.trade is not None
            a = CounterOffer(give, get)
            ok = s.trade.status[actor] == 0 and terms_ok(give, get, s.hands[actor])
        else:
            a = OfferTrade(give, get) if rnd.random() < 0.5 else CounterOffer(give, get)
            ok = False
        before = snapshot(s)
        try:
            validate(s, a, actor)
            valid = True
        except RulesError:
            valid = False
        assert snapshot(s) == before, "validate changed the state"
        assert valid == ok, f"validate({a!r}, seat {actor}) gave {valid}, oracle says {ok}"
        if not valid:
            expect_refused(s, a, actor)
            return None
        if actor != seat and not propose:  # keep the flow simple: only to_act[0] answers
            return None
        return actor, a

    def choose(self) -> tuple[int, Action]:
        s, rnd = self.s, self.rnd
        if self.spec.enrich and s.phase in (Phase.PRE_ROLL, Phase.MAIN) and rnd.random() < 0.03:
            enrich(s, rnd)
        seat = to_act(s)[0]
        if self.spec.trade_rate and rnd.random() < self.spec.trade_rate:
            move = self._trade_attempt(seat)
            if move is not None:
                return move
        acts = legal_actions(s, seat)
        assert acts, f"seat {seat} must act in phase {Phase(s.phase).name} but has no action"
        if self.spec.builder:
            weights = [6 if isinstance(x, _BUILDY) else 1 for x in acts]
            return seat, rnd.choices(acts, weights)[0]
        return seat, rnd.choice(acts)

    def step(self) -> tuple[int, Action, list[Event]]:
        seat, a = self.choose()
        hands_before = [h[:] for h in self.s.hands]
        phase_before = self.s.phase
        log = self.s.log
        assert log is not None
        logged = len(log)
        events = apply(self.s, a, seat)
        assert len(log) == logged + 1 and log[-1][:2] == (seat, a), "one log entry per action"
        self.steps += 1
        # "Built this turn" (R-OPT-4), tracked independently: paid builds only
        # (a Special Building Phase's too: R-56-8 builds are paid).
        if isinstance(a, BuildCity | BuyDevCard) or (
            isinstance(a, BuildRoad | BuildSettlement)
            and phase_before in (Phase.MAIN, Phase.SPECIAL_BUILD)
        ):
            self.built = True
        for e in events:
            if isinstance(e, TradeCompleted):
                self.trades_done += 1
                check_trade_completed(hands_before, self.s.hands, e)
            if isinstance(e, TurnStarted):
                self.built = False
        if self.s.phase != Phase.GAME_OVER:
            assert self.s.built == self.built, "the built-this-turn flag is wrong"
        return seat, a, events

    def run(self) -> Iterator[tuple[int, Action, list[Event]]]:
        while self.steps < self.spec.budget and self.s.phase != Phase.GAME_OVER:
            yield self.step()


def enrich(s: GameState, rnd: random.Random) -> None:
    """Move cards from the bank to random hands (often emptying the bank of a
    resource) and hand the current player playable development cards (never
    victory points): rare but reachable situations (bank shortage, R-PROD-3,
    R-TRADE-3, R-DEV-6; several development cards) become common. Conservation
    is kept; the action log no longer describes the state."""
    n = s.settings.players
    for r in range(5):
        b = s.bank[r]
        take = rnd.choice([0, 0, b, max(b - 1, 0), max(b - 2, 0), rnd.randint(0, b)])
        for _ in range(take):
            s.hands[rnd.randrange(n)][r] += 1
            s.bank[r] -= 1
    for k in range(4):  # knight, road building, year of plenty, monopoly
        if s.dev_deck[k] and rnd.random() < 0.5:
            s.dev_deck[k] -= 1
            s.dev_hand[s.current][k] += 1
    if s.settings.two_player and s.token_stock and rnd.random() < 0.5:
        take = rnd.randint(1, s.token_stock)
        s.tokens[rnd.randrange(n)] += take
        s.token_stock -= take


def check_trade_completed(before: list[list[int]], after: list[list[int]],
                          e: TradeCompleted) -> None:
    for r in range(5):
        assert after[e.seat][r] == before[e.seat][r] - e.gave[r] + e.got[r]
        assert after[e.partner][r] == before[e.partner][r] + e.gave[r] - e.got[r]
    for q in range(len(before)):
        if q not in (e.seat, e.partner):
            assert after[q] == before[q]


# --- independent recomputations ---------------------------------------------------


def trail_length(s: GameState, q: int) -> int:
    """Longest trail over q's roads (no edge twice), not passing through an
    opponent's building (R-LR-1); written independently of the engine."""
    adj: dict[int, list[tuple[int, int]]] = {}
    for e in range(s.info.num_edges):
        if s.edge_owner[e] == q:
            a, b = s.info.edge_nodes[e]
            adj.setdefault(a, []).append((e, b))
            adj.setdefault(b, []).append((e, a))
    best = 0

    def walk(node: int, used: frozenset[int], length: int) -> None:
        nonlocal best
        best = max(best, length)
        if length and s.node_owner[node] not in (-1, q):
            return
        for e, other in adj.get(node, ()):
            if e not in used:
                walk(other, used | {e}, length + 1)

    for node in adj:
        walk(node, frozenset(), 0)
    return best


_TRAIL_CACHE: dict[tuple[tuple[int, ...], tuple[int, ...], int], int] = {}


def cached_trail_length(s: GameState, q: int) -> int:
    key = (tuple(s.edge_owner), tuple(s.node_owner), q)
    if key not in _TRAIL_CACHE:
        if len(_TRAIL_CACHE) > 20000:
            _TRAIL_CACHE.clear()
        _TRAIL_CACHE[key] = trail_length(s, q)
    return _TRAIL_CACHE[key]


def recount_vp(s: GameState, q: int) -> int:
    vp = 0
    for node in range(s.info.num_nodes):
        if s.node_owner[node] == q:
            vp += s.node_level[node]
    if s.lr_holder == q:
        vp += 2
    if s.la_holder == q:
        vp += 2
    return vp


def recount_ratios(s: GameState, q: int) -> list[int]:
    """R-TRADE-3 (and R-OPT-3: harbors settled this turn wait in pending_harbors)."""
    ratios = [4] * 5
    kinds = s.board.node_harbors()
    pending = set(s.pending_harbors)
    for v in range(s.info.num_nodes):
        if s.node_owner[v] == q and kinds[v] >= 0 and (q, v) not in pending:
            if kinds[v] == GENERIC_HARBOR:
                ratios = [min(r, 3) for r in ratios]
            else:
                ratios[kinds[v]] = 2
    return ratios


def check_invariants(s: GameState) -> None:
    n = s.settings.players
    owners = s.settings.owners  # players, plus the two neutrals of the 2-player game
    two = s.settings.two_player
    ph = s.phase
    # R-COMP-3, R-56-5: 19 (24) cards of each resource between the bank and the hands.
    for r in range(5):
        assert s.bank[r] >= 0
        assert all(s.hands[q][r] >= 0 for q in range(n))
        assert s.bank[r] + sum(s.hands[q][r] for q in range(n)) == s.settings.bank_per_resource, (
            f"resource {r}: bank {s.bank[r]} + hands {[h[r] for h in s.hands]} != "
            f"{s.settings.bank_per_resource}")
    # R-COMP-4: development cards are in the deck, in hands, or played (R-2P-6:
    # a played knight may be discarded for tokens and leaves the game).
    for k in range(5):
        assert s.dev_deck[k] >= 0
        held = sum(s.dev_hand[q][k] for q in range(n))
        if k == KNIGHT:
            total = s.dev_deck[k] + held + sum(s.knights)
            assert total <= s.settings.dev_deck[k] if two else total == s.settings.dev_deck[k]
        elif k == VICTORY_POINT:
            assert s.dev_deck[k] + held == s.settings.dev_deck[k]
        else:
            assert s.dev_deck[k] + held <= s.settings.dev_deck[k]
        for q in range(n):
            assert 0 <= s.dev_new[q][k] <= s.dev_hand[q][k]
    # R-2P-2: 20 trade tokens.
    if two:
        assert min(s.tokens) >= 0 and s.token_stock >= 0
        assert sum(s.tokens) + s.token_stock == TOKEN_STOCK
    else:
        assert s.tokens == [0] * n and s.token_stock == 0
    # R-COMP-5 / R-BUILD-4: pieces on the board + in supply.
    for q in range(owners):
        roads = [e for e in range(s.info.num_edges) if s.edge_owner[e] == q]
        settlements = sum(1 for v in range(s.info.num_nodes)
                          if s.node_owner[v] == q and s.node_level[v] == 1)
        cities = sum(1 for v in range(s.info.num_nodes)
                     if s.node_owner[v] == q and s.node_level[v] == 2)
        assert len(roads) + s.pieces[q][0] == PIECES[0]
        assert settlements + s.pieces[q][1] == PIECES[1]
        assert cities + s.pieces[q][2] == PIECES[2]
        assert min(s.pieces[q]) >= 0
        assert sorted(s.roads[q]) == roads
        # R-LA-2: VP tracked incrementally == VP recomputed from the position.
        assert s.vp[q] == recount_vp(s, q), f"owner {q}: vp {s.vp[q]} != {recount_vp(s, q)}"
        # R-LR-1: road length, by the engine and by an independent search.
        lr = longest_road(s, q)
        assert s.road_len[q] == lr, f"owner {q}: road_len {s.road_len[q]} != {lr}"
        assert lr == cached_trail_length(s, q)
        if q < n:
            assert s.ratios[q] == recount_ratios(s, q), f"seat {q}: harbor ratios"
        else:  # R-2P-4: neutrals build settlements and roads only
            assert cities == 0
    assert all(0 <= o < owners for o in s.node_owner + s.edge_owner if o != -1)
    for v in range(s.info.num_nodes):
        assert (s.node_owner[v] < 0) == (s.node_level[v] == 0)
        if s.node_owner[v] >= 0:  # distance rule (R-BUILD-2, R-SETUP-3)
            assert all(s.node_owner[m] < 0 for m in s.info.node_nodes[v])
    if two:  # R-2P-1
        assert s.node_owner[NEUTRAL_NODES[0]] == 2 and s.node_owner[NEUTRAL_NODES[1]] == 3
    check_networks(s)
    # The same derived tables, rebuilt from scratch by the engine.
    c = s.copy()
    c.rebuild_derived()
    assert derived(c) == derived(s), "derived tables drifted from the position"
    # R-LR-2/3: the holder is at 5+ and nobody is longer; the card is aside only
    # when there is no single longest owner at 5+.
    lens = s.road_len
    best = max(lens)
    if s.lr_holder >= 0:
        assert lens[s.lr_holder] >= 5 and lens[s.lr_holder] == best, (s.lr_holder, lens)
    else:
        assert not (best >= 5 and lens.count(best) == 1), ("Longest Road aside", lens)
    # R-LA-1 (and R-2P-6: after a discarded knight the card may go aside on a tie).
    army = s.knights
    if s.la_holder >= 0:
        assert s.la_holder < n
        assert army[s.la_holder] >= 3 and army[s.la_holder] == max(army), (s.la_holder, army)
    elif two:
        top = max(army)
        assert not (top >= 3 and army.count(top) == 1), ("Largest Army aside", army)
    else:
        assert max(army) < 3, army
    assert 0 <= s.robber < s.info.num_hexes
    # Phase bookkeeping.
    if ph != Phase.DISCARD:
        assert not any(s.discard_owed)
    else:
        owing = [q for q in range(n) if s.discard_owed[q]]
        assert owing
        for q in owing:  # R-ROBBER-2
            assert sum(s.hands[q]) >= 8 and s.discard_owed[q] == sum(s.hands[q]) // 2
    # R-TRADE-2: open proposals are by seats not on turn, after the roll, at
    # most MAX_PROPOSALS a seat a turn; they end with the turn and, with strict
    # phases, with the first build (R-OPT-4).
    for q, (give, get) in s.proposals.items():
        assert q != s.current and 0 <= q < n and 1 <= s.proposals_made[q] <= MAX_PROPOSALS
        assert sum(give) and sum(get) and not any(give[r] and get[r] for r in range(5))
    assert all(0 <= m <= MAX_PROPOSALS for m in s.proposals_made)
    if s.proposals:
        assert s.rolled and ph not in (Phase.PRE_ROLL, Phase.DISCARD, Phase.GAME_OVER)
        assert not (s.built and s.settings.strict_phases)
    if ph == Phase.PRE_ROLL and not s.rolls_done:
        assert not s.proposals and not any(s.proposals_made)
    if ph == Phase.ROAD_BUILDING:
        assert (StopRoadBuilding() in legal_actions(s, s.current)) == (s.free_roads == 1)
    assert (s.trade is not None) == (ph == Phase.TRADE)
    if s.trade is not None:
        assert s.trade.offerer == s.current and s.trade.status[s.current] == -1
    if ph == Phase.STEAL:
        assert len(s.steal_from) >= 2
        on_hex = {s.node_owner[v] for v in s.info.hex_nodes[s.robber]}
        assert all(v in on_hex and v != s.current and v < n for v in s.steal_from)
    if ph == Phase.ROAD_BUILDING:
        assert s.free_roads >= 1
    assert (s.give_back > 0) == (ph == Phase.GIVE_BACK)
    if ph in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        assert s.turn == 0 and not s.rolled
    if ph == Phase.PRE_ROLL:
        assert not s.rolled and s.rolls_done < s.settings.rolls_per_turn
    if ph in (Phase.MAIN, Phase.TRADE, Phase.GIVE_BACK, Phase.SPECIAL_BUILD):
        assert s.rolled and s.rolls_done == s.settings.rolls_per_turn
    if ph == Phase.DISCARD:
        assert s.rolls_done >= 1
    # R-56-8: the Special Building Phase follows a 5–6 player turn; nothing but
    # building happens in it, and the seat whose turn ended does not build.
    if ph == Phase.SPECIAL_BUILD:
        assert s.settings.players >= 5 and 0 <= s.special_from < n
        assert s.special_from != s.current and not s.proposals and s.trade is None
    else:
        assert s.special_from == -1
    turn_seat = s.special_from if ph == Phase.SPECIAL_BUILD else s.current
    if s.settings.harbor_delay:  # R-OPT-3: only the current turn's settlements wait
        assert all(s.node_owner[v] == q == turn_seat for q, v in s.pending_harbors)
        if ph in (Phase.PRE_ROLL, Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
            assert s.pending_harbors == []
    else:
        assert s.pending_harbors == []
    # Who acts; the game never dead-ends; R-WIN-1/2.
    waiting = to_act(s)
    if ph == Phase.GAME_OVER:
        assert waiting == ()
        assert all(legal_actions(s, q) == [] for q in range(n))
        if s.winner is not None:
            assert s.winner == s.current and s.winner < n
            assert s.total_vp(s.winner) >= s.settings.vp_target
        else:
            assert s.settings.turn_cap and s.turn > s.settings.turn_cap
    else:
        assert waiting and all(0 <= q < n for q in waiting)
        assert legal_actions(s, waiting[0])
        assert s.winner is None
        if ph >= Phase.PRE_ROLL and ph != Phase.SPECIAL_BUILD:  # R-56-9: nobody wins there
            assert s.total_vp(s.current) < s.settings.vp_target


def find(parent: list[int], x: int) -> int:
    """Union-find root of ``x``."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def check_networks(s: GameState) -> None:
    """Every component of an owner's roads holds one of its buildings, and every
    player's building touches one of its roads (R-BUILD-1/2, R-SETUP-3; the
    neutral settlements of R-2P-1 start without a road)."""
    n = s.settings.players
    for q in range(s.settings.owners):
        parent = list(range(s.info.num_nodes))
        touched: set[int] = set()
        for e in range(s.info.num_edges):
            if s.edge_owner[e] == q:
                a, b = s.info.edge_nodes[e]
                touched.update((a, b))
                parent[find(parent, a)] = find(parent, b)
        own = [v for v in range(s.info.num_nodes) if s.node_owner[v] == q]
        with_building = {find(parent, v) for v in own}
        assert all(find(parent, v) in with_building for v in touched), (
            f"seat {q}: detached road")
        for v in own:
            if q >= n or (s.phase == Phase.SETUP_ROAD and v == s.setup_node):
                continue
            assert v in touched, f"seat {q}: building at {v} without a road"


def check_redaction(events: list[Event], n: int) -> None:
    """R-ROBBER-4 / R-BUILD-5: what ``for_seat`` hides, and nothing else."""
    for q in [None, *range(n)]:
        red = redact(events, q)
        assert red == [e.for_seat(q) for e in events]
        for e, r in zip(events, red, strict=True):
            assert type(r) is type(e)
            if isinstance(e, DevCardBought):
                assert isinstance(r, DevCardBought)
                assert e.card is not None
                if q == e.seat:
                    assert r == e
                else:
                    assert r.card is None and replace(r, card=e.card) == e
            elif isinstance(e, ForcedTradeDrawn | GaveBack):  # R-2P-5
                assert e.cards is not None and sum(e.cards) == e.count
                partner = e.victim if isinstance(e, ForcedTradeDrawn) else e.partner
                if q in (e.seat, partner):
                    assert r == e
                else:
                    assert isinstance(r, ForcedTradeDrawn | GaveBack)
                    assert r.cards is None and replace(r, cards=e.cards) == e
            elif isinstance(e, Stolen):
                assert isinstance(r, Stolen)
                assert (e.resource is None) == (e.count == 0)
                if q in (e.thief, e.victim):
                    assert r == e
                else:
                    assert r.resource is None and replace(r, resource=e.resource) == e
            else:
                assert r == e
            msgpack.packb(r.to_dict())


# --- 1. invariants after every step ------------------------------------------------


def invariants_case(spec: GameSpec) -> None:
    g = Driver(spec)
    check_invariants(g.s)
    game_overs = 0
    for _seat, _action, events in g.run():
        check_invariants(g.s)
        check_redaction(events, spec.settings.players)
        game_overs += sum(isinstance(e, GameOver) for e in events)
    assert game_overs == (g.s.phase == Phase.GAME_OVER)


@FAST
@given(game_specs(1200))
def test_invariants_after_every_step(spec: GameSpec) -> None:
    invariants_case(spec)


@pytest.mark.slow
@SLOW
@given(game_specs(5000))
def test_invariants_after_every_step_slow(spec: GameSpec) -> None:
    invariants_case(spec)


@FAST
@given(game_specs(1200).map(lambda sp: replace(sp, trade_rate=0.5)))
def test_domestic_trades_oracle(spec: GameSpec) -> None:
    """Lots of random offers/counter-offers: validate agrees with the oracle,
    refusals leave the state unchanged, completed trades move exactly the terms."""
    g = Driver(spec)
    for _ in g.run():
        check_invariants(g.s)


def test_trade_driver_completes_trades() -> None:
    """Sanity check of the driver itself: domestic trades really happen."""
    done = 0
    for seed in range(5):
        g = Driver(GameSpec(Settings(players=4), seed, seed, 1500, 0.5, False, False))
        for _ in g.run():
            pass
        done += g.trades_done
    assert done >= 5


# --- 2. hidden information --------------------------------------------------------


def hidden_variant(s: GameState, seat: int | None, rnd: random.Random) -> GameState:
    """A copy of ``s`` that differs only in facts hidden from ``seat``."""
    s2 = s.copy(keep_log=True)
    n = s.settings.players
    others = [q for q in range(n) if q != seat]
    over = s.phase == Phase.GAME_OVER
    # Another seat's hand composition (counts kept; the public bank is kept too,
    # so cards are swapped between two hidden hands).
    if len(others) >= 2:
        for _ in range(4):
            b, c = rnd.sample(others, 2)
            pairs = [(x, y) for x in range(5) for y in range(5)
                     if x != y and s2.hands[b][x] and s2.hands[c][y]]
            if pairs:
                x, y = rnd.choice(pairs)
                s2.hands[b][x] -= 1
                s2.hands[b][y] += 1
                s2.hands[c][y] -= 1
                s2.hands[c][x] += 1
    # Other seats' development cards against the deck (counts kept); VP cards
    # are revealed at the end (R-DEV-8), so they stay put once the game is over.
    kinds = [k for k in range(5) if not (over and k == VICTORY_POINT)]
    for b in others:
        old = [x for x in kinds if s2.dev_hand[b][x] > s2.dev_new[b][x]]
        pool = [y for y in kinds if s2.dev_deck[y]]
        pairs = [(x, y) for x in old for y in pool if x != y]
        if pairs:
            x, y = rnd.choice(pairs)
            s2.dev_hand[b][x] -= 1
            s2.dev_deck[x] += 1
            s2.dev_hand[b][y] += 1
            s2.dev_deck[y] -= 1
    # The deck's composition (size kept) and the randomness.
    pool = [y for y in kinds if s2.dev_deck[y]]
    if pool:
        x = rnd.choice(pool)
        y = rnd.choice(kinds)
        s2.dev_deck[x] -= 1
        s2.dev_deck[y] += 1
    s2.rng.state = rnd.getrandbits(64)
    s2.seed = rnd.getrandbits(63)
    return s2


def hidden_info_case(spec: GameSpec) -> None:
    g = Driver(spec)
    rnd = random.Random(spec.policy_seed ^ 0x5EED)
    checkpoints = {0, spec.budget, *rnd.sample(range(spec.budget + 1), min(4, spec.budget))}
    n = spec.settings.players

    def check() -> None:
        s = g.s
        before = snapshot(s)
        views = {q: observe(s, q) for q in [None, *range(n)]}
        assert snapshot(s) == before, "observe changed the state"
        assert views[None]["you"] is None and views[None]["seat"] is None
        for q in [None, *range(n)]:
            v = views[q]
            assert msgpack.unpackb(msgpack.packb(v)) == v
            for _ in range(3):
                s2 = hidden_variant(s, q, rnd)
                assert s2.to_dict() != s.to_dict()
                assert observe(s2, q) == v, f"view of seat {q} depends on hidden facts"
            if q is not None:
                # The server passes the legal actions it has: the same view.
                assert observe(s, q, legal_actions(s, q)) == v
                assert v["you"] is not None and v["you"]["hand"] == s.hands[q]
                # Sanity: the seat's own hand is visible to it.
                s3 = s.copy()
                s3.hands[q][0] += 1
                assert observe(s3, q) != v

    if 0 in checkpoints:
        check()
    for _ in g.run():
        if g.steps in checkpoints:
            check()
    check()


@FAST
@given(game_specs(1500))
def test_views_hide_hidden_information(spec: GameSpec) -> None:
    hidden_info_case(spec)


@pytest.mark.slow
@SLOW
@given(game_specs(5000))
def test_views_hide_hidden_information_slow(spec: GameSpec) -> None:
    hidden_info_case(spec)


# --- 3. serialisation and replay --------------------------------------------------


def check_roundtrips(s: GameState, history: list[tuple[int, dict[str, Any]]]) -> None:
    d = s.to_dict()
    s2 = GameState.from_dict(d)
    assert s2 == s
    assert derived(s2) == derived(s), "derived tables differ after from_dict"
    wire = msgpack.unpackb(msgpack.packb(d))
    s3 = GameState.from_dict(wire)
    assert s3 == s and derived(s3) == derived(s)
    log = GameLog.of(s)
    r = replay(log)
    assert r == s and derived(r) == derived(s)
    log2 = GameLog.from_dict(msgpack.unpackb(msgpack.packb(log.to_dict())))
    assert log2 == log
    assert replay(log2) == s
    for k, snap in history:
        assert snapshot(replay(log, upto=k)) == snap, f"replay upto {k} differs"


def check_continuation(s: GameState, seed: int, steps: int) -> None:
    """A restored state and a copy go on exactly like the original would."""
    before = snapshot(s)
    twins = [
        GameState.from_dict(msgpack.unpackb(msgpack.packb(s.to_dict()))),
        s.copy(keep_log=True),
    ]
    rnds = [random.Random(seed) for _ in twins]
    for _ in range(steps):
        if twins[0].phase == Phase.GAME_OVER:
            break
        evs = []
        for t, rnd in zip(twins, rnds, strict=True):
            seat = to_act(t)[0]
            evs.append(apply(t, rnd.choice(legal_actions(t, seat)), seat))
        assert evs[0] == evs[1]
        assert twins[0] == twins[1] and derived(twins[0]) == derived(twins[1])
    assert snapshot(s) == before, "playing on a copy changed the original"


def serialization_case(spec: GameSpec) -> None:
    g = Driver(replace(spec, enrich=False))  # enriching is not in the log
    rnd = random.Random(spec.policy_seed ^ 0xD1C7)
    checkpoints = set(rnd.sample(range(spec.budget + 1), min(5, spec.budget)))
    history: list[tuple[int, dict[str, Any]]] = [(0, snapshot(g.s))]
    check_roundtrips(g.s, history)
    for _ in g.run():
        if g.steps in checkpoints:
            history.append((g.steps, snapshot(g.s)))
            check_roundtrips(g.s, history)
            check_continuation(g.s, rnd.getrandbits(32), 25)
    history.append((g.steps, snapshot(g.s)))
    check_roundtrips(g.s, history)


@FAST
@given(game_specs(1500))
def test_serialize_and_replay_are_exact(spec: GameSpec) -> None:
    serialization_case(spec)


@pytest.mark.slow
@SLOW
@given(game_specs(5000))
def test_serialize_and_replay_are_exact_slow(spec: GameSpec) -> None:
    serialization_case(spec)


# --- 4. perft: legal_actions == what apply accepts ----------------------------------


def candidate_actions(s: GameState) -> list[Action]:
    """Every non-trade action with every argument in range, plus out-of-range ones."""
    n = s.settings.players
    out: list[Action] = [TokenForcedTrade(), TokenRobberHome(), DiscardKnight()]
    owners = (0, 1, 2, 3, 4) if n == 2 else (0, 2, 3)
    out += [BuildNeutralRoad(o, e) for o in owners for e in range(-1, s.info.num_edges + 1)]
    out += [BuildNeutralSettlement(o, v) for o in owners for v in range(-1, s.info.num_nodes + 1)]
    out += [BuildRoad(e) for e in range(-1, s.info.num_edges + 1)]
    out += [BuildSettlement(v) for v in range(-1, s.info.num_nodes + 1)]
    out += [BuildCity(v) for v in range(-1, s.info.num_nodes + 1)]
    out += [MoveRobber(h) for h in range(-1, s.info.num_hexes + 1)]
    out += [MaritimeTrade(a, b) for a in range(-1, 6) for b in range(-1, 6)]
    out += [PlayMonopoly(r) for r in range(-1, 6)]
    # Year of Plenty in canonical order only (first <= second; see the
    # separate ordering check below).
    out += [PlayYearOfPlenty(a, b) for a in range(5) for b in range(a, 5)]
    out += [PlayYearOfPlenty(a, None) for a in range(5)]
    out += [PlayYearOfPlenty(5, 0), PlayYearOfPlenty(0, 5), PlayYearOfPlenty(-1, None)]
    out += [Steal(v) for v in range(-1, n + 1)]
    out += [ConfirmTrade(q) for q in range(-1, n + 1)]
    out += [AcceptProposal(q) for q in range(-1, n + 1)]
    out += [RejectProposal(q) for q in range(-1, n + 1)]
    out += [RollDice(), EndTurn(), BuyDevCard(), PlayKnight(), PlayRoadBuilding(),
            AcceptTrade(), RejectTrade(), CancelTrade(), StopRoadBuilding(),
            WithdrawProposal()]
    return out


def discard_candidates(s: GameState, seat: int, rnd: random.Random) -> list[Action]:
    """Discards (and 2-player give-backs) of about the owed size, mostly not all legal."""
    out: list[Action] = []
    hand = s.hands[seat]
    for cls, owed in ((Discard, s.discard_owed[seat]), (GiveBack, s.give_back)):
        out += [cls((1, 0, 0, 0, 0)), cls((0, 0, 0, 0, 0)),
                cls((hand[0], hand[1], hand[2], hand[3], hand[4])),
                cls((-1, owed + 1, 0, 0, 0))]
        # The right total with a negative count, on cards the seat does hold.
        most = max(range(5), key=lambda r: hand[r])
        neg = [0] * 5
        neg[most] = owed + 1
        neg[(most + 1) % 5] = -1
        out.append(cls((neg[0], neg[1], neg[2], neg[3], neg[4])))
        # The whole hand, minus the excess taken from the smallest count.
        least = min(range(5), key=lambda r: hand[r])
        neg = hand[:]
        neg[least] -= sum(hand) - owed
        out.append(cls((neg[0], neg[1], neg[2], neg[3], neg[4])))
        for k in (owed - 1, owed, owed + 1):
            for _ in range(6):
                cut = sorted(rnd.randint(0, max(k, 0)) for _ in range(4))
                parts = [b - a for a, b in zip([0, *cut], [*cut, max(k, 0)], strict=True)]
                out.append(cls((parts[0], parts[1], parts[2], parts[3], parts[4])))
    return out


def check_perft(s: GameState, rnd: random.Random) -> None:
    n = s.settings.players
    before = snapshot(s)
    waiting = to_act(s)
    cands = candidate_actions(s)
    if waiting:
        assert legal_actions(s) == legal_actions(s, waiting[0])
    for seat in range(n):
        listed = legal_actions(s, seat)
        assert len(set(listed)) == len(listed), "duplicate legal actions"
        if seat not in waiting and not (s.phase == Phase.TRADE and seat == s.current):
            # A proposer owes nothing but may take its proposal back (R-TRADE-2).
            expected = [WithdrawProposal()] if seat in s.proposals else []
            assert listed == expected, f"seat {seat} is not to act but has {listed[:3]}"
        for a in listed:
            try:
                validate(s, a, seat)
            except RulesError as exc:
                pytest.fail(f"listed {a!r} for seat {seat} is refused: {exc}")
        assert snapshot(s) == before, "validate changed the state"
        lset = set(listed)
        for a in cands + discard_candidates(s, seat, rnd):
            if a not in lset:
                expect_refused(s, a, seat)
        # Year of Plenty given in the other order: refused, or the same as the
        # listed canonical form.
        for r1 in range(5):
            for r2 in range(r1 + 1, 5):
                swapped, canon = PlayYearOfPlenty(r2, r1), PlayYearOfPlenty(r1, r2)
                if canon in lset:
                    c1, c2 = s.copy(), s.copy()
                    apply(c1, swapped, seat)
                    apply(c2, canon, seat)
                    assert c1.to_dict(include_log=False) == c2.to_dict(include_log=False)
                else:
                    expect_refused(s, swapped, seat)


def perft_case(spec: GameSpec) -> None:
    g = Driver(spec)
    rnd = random.Random(spec.policy_seed ^ 0x9E7F)
    checkpoints = set(rnd.sample(range(spec.budget + 1), min(4, spec.budget)))
    check_perft(g.s, rnd)
    for _ in g.run():
        if g.steps in checkpoints:
            check_perft(g.s, rnd)
    check_perft(g.s, rnd)


@FAST
@given(game_specs(1500))
def test_legal_actions_are_exactly_what_apply_accepts(spec: GameSpec) -> None:
    perft_case(spec)


@pytest.mark.slow
@SLOW
@given(game_specs(5000))
def test_legal_actions_are_exactly_what_apply_accepts_slow(spec: GameSpec) -> None:
    perft_case(spec)


def perft_whole_game(seed: int, every: int, players: int | None = None) -> None:
    settings = Settings(players=players or 2 + seed % 3, strict_phases=seed % 4 == 3,
                        harbor_delay=seed % 4 == 2)
    g = Driver(GameSpec(settings, seed, seed, 3000, 0.1, seed % 3 != 0, seed % 2 == 1))
    rnd = random.Random(seed)
    check_perft(g.s, rnd)
    for _ in g.run():
        if g.steps % every == 0:
            check_perft(g.s, rnd)
    check_perft(g.s, rnd)


def test_perft_through_a_whole_game() -> None:
    """Deterministic: the perft check every few steps of one whole game."""
    perft_whole_game(11, 15)


@pytest.mark.parametrize("players", [5, 6])
def test_perft_through_a_whole_game_R_56_8(players: int) -> None:
    """The same on the large board, through its Special Building Phases."""
    perft_whole_game(3, 25, players)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_perft_every_step_of_whole_games_slow(seed: int) -> None:
    perft_whole_game(seed, 1)


# --- 5. seats that do not exist ------------------------------------------------------


def check_non_seats(s: GameState) -> None:
    """Seat numbers outside 0..players-1 have nothing to do, and every action by
    them is refused with a RulesError (no IndexError, no wrap-around)."""
    n = s.settings.players
    before = snapshot(s)
    for q in (-1, -n, n, n + 3):
        listed = legal_actions(s, q)
        assert listed == [], (
            f"non-seat {q} has legal actions in phase {Phase(s.phase).name}: {listed[:2]}")
        for a in (EndTurn(), RollDice(), Discard((1, 1, 1, 1, 0)), AcceptTrade(), BuildRoad(0)):
            expect_refused(s, a, q)
    assert snapshot(s) == before


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_non_seats_have_no_legal_actions(seed: int) -> None:
    g = Driver(GameSpec(Settings(players=4 - seed), seed, seed, 2000, 0.2, False, True))
    phases: set[int] = set()
    for _ in g.run():
        if g.s.phase not in phases or g.steps % 50 == 0:
            phases.add(g.s.phase)
            check_non_seats(g.s)


# --- 6. a targeted check of the Largest Army invariant (2-player) ---------------------


def to_main_of(s: GameState, seat: int, rnd: random.Random) -> None:
    """Play on (ending turns as soon as possible, no knights) until ``seat`` is in main."""
    while not (s.current == seat and s.phase == Phase.MAIN):
        q = to_act(s)[0]
        acts = [a for a in legal_actions(s, q) if not isinstance(a, PlayKnight | DiscardKnight)]
        ends = [a for a in acts if isinstance(a, EndTurn)]
        apply(s, ends[0] if ends else rnd.choice(acts), q)


def test_largest_army_set_aside_goes_to_a_new_sole_leader_R_2P_6() -> None:
    """Seat A holds Largest Army with 4 knights against B's 3 (reachable: A plays
    3, B plays 3, A plays a 4th). A discards a knight: 3-3, the card goes aside.
    B then discards one: A alone has 3+ and strictly more, so A takes it
    (R-2P-6 "it goes to whoever has 3+ and strictly more"; R-LA-1)."""
    rnd = random.Random(1)
    s = new_game(Settings(players=2), 1)
    to_main_of(s, s.first_seat, rnd)
    a, b = s.current, 1 - s.current
    s.knights[a], s.knights[b] = 4, 3
    s.dev_deck[KNIGHT] -= 7  # the played knights came from the deck
    s.la_holder = a
    s.vp[a] += 2
    check_invariants(s)
    apply(s, DiscardKnight(), a)
    assert s.knights[a] == s.knights[b] == 3 and s.la_holder == -1
    check_invariants(s)
    to_main_of(s, b, rnd)
    apply(s, DiscardKnight(), b)
    assert s.knights == [3, 2] if a == 0 else s.knights == [2, 3]
    assert s.la_holder == a, "A is the only player with 3+ knights but Largest Army stays aside"
    check_invariants(s)


# --- 7. perft in every phase, and negative counts ----------------------------------


def test_perft_in_every_phase() -> None:
    """Rare phases (give-back, neutral pieces, steal, road building...) seldom fall
    on a random checkpoint: check each phase's first few states in a handful of
    games of every player count."""
    checked: dict[int, int] = {}
    for seed in range(12):
        settings = Settings(players=2 + seed % 5 if seed < 10 else 6,
                            strict_phases=seed % 4 == 1, harbor_delay=seed % 4 == 2)
        g = Driver(GameSpec(settings, seed, seed, 1500, 0.15, True, seed % 2 == 0))
        rnd = random.Random(seed)
        for _ in g.run():
            key = g.s.phase * 10 + settings.players
            if checked.get(key, 0) < 1:
                checked[key] = checked.get(key, 0) + 1
                check_perft(g.s, rnd)
    phases = {k // 10 for k in checked}
    assert phases >= set(Phase) - {Phase.GAME_OVER}, sorted(Phase(p).name for p in phases)


def test_negative_card_counts_are_refused() -> None:
    """Every action that carries resource counts refuses negative ones, whatever
    the sum (action_from_dict already refuses them on the wire; apply must too,
    for in-process callers such as bots)."""
    found: set[str] = set()
    for seed in range(40):
        s = new_game(Settings(players=2 + seed % 3), seed)
        rnd = random.Random(seed)
        while s.phase != Phase.GAME_OVER and s.turn < 200:
            seat = to_act(s)[0]
            hand = s.hands[seat]
            owed = {Phase.DISCARD: s.discard_owed[seat], Phase.GIVE_BACK: s.give_back}
            cls = {Phase.DISCARD: Discard, Phase.GIVE_BACK: GiveBack}.get(Phase(s.phase))
            if cls is not None:
                found.add(cls.name)
                for x in range(5):
                    for y in range(5):
                        if x != y and hand[x] >= owed[Phase(s.phase)] + 1:
                            cards = [0] * 5
                            cards[x] = owed[Phase(s.phase)] + 1
                            cards[y] = -1
                            expect_refused(s, cls((cards[0], cards[1], cards[2], cards[3],
                                                   cards[4])), seat)
            acts = legal_actions(s, seat)
            forced = [a for a in acts if isinstance(a, TokenForcedTrade)]
            apply(s, forced[0] if forced else rnd.choice(acts), seat)
    assert found == {"discard", "give_back"}
