"""Scenario-building helpers for the rules scenario tests.

A scenario is a game past its set-up on a fixed board (:data:`BOARD`), with
pieces, cards and development cards poked straight into the state. Cards are
always moved from the bank (or the deck), so bank + hands stays 19 per resource.

The fixed board (hex: resource number)::

    0 ore 5     1 wool 10    2 lumber 8
    3 grain 2   4 brick 9    5 wool 11    6 brick 4
    7 grain 6   8 lumber 4   9 desert     10 lumber 3   11 ore 11
    12 lumber 3 13 ore 5     14 grain 6   15 wool 12
    16 brick 8  17 grain 10  18 wool 9

Harbor nodes: 0, 3 generic; 1, 5 grain; 6, 10 ore; 16, 21 lumber; 26, 32 generic;
33, 38 brick; 42, 46 wool; 47, 51 generic; 49, 53 generic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from protocol.rules import (
    Action,
    Board,
    BuildRoad,
    BuildSettlement,
    GameState,
    IllegalAction,
    Phase,
    RollDice,
    Settings,
    apply,
    longest_road,
    new_game,
)
from protocol.rules.board import (
    BRICK,
    DESERT,
    EDGE_NODES,
    GRAIN,
    LUMBER,
    NODE_EDGES,
    ORE,
    WOOL,
    numbers_for,
)
from protocol.rules.events import Event

TERRAIN: tuple[int, ...] = (
    ORE, WOOL, LUMBER,
    GRAIN, BRICK, WOOL, BRICK,
    GRAIN, LUMBER, DESERT, LUMBER, ORE,
    LUMBER, ORE, GRAIN, WOOL,
    BRICK, GRAIN, WOOL,
)
BOARD = Board(TERRAIN, numbers_for(TERRAIN, 0))
DESERT_HEX = 9

KNIGHT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY, VICTORY_POINT = range(5)


def cards(
    lumber: int = 0, brick: int = 0, wool: int = 0, grain: int = 0, ore: int = 0
) -> tuple[int, int, int, int, int]:
    """Five resource counts, by name."""
    return (lumber, brick, wool, grain, ore)


ROAD_COST = cards(lumber=1, brick=1)
SETTLEMENT_COST = cards(lumber=1, brick=1, wool=1, grain=1)
CITY_COST = cards(grain=2, ore=3)
DEV_COST = cards(wool=1, grain=1, ore=1)


def new(players: int = 4, *, seed: int = 1, vp_target: int = 10, first_seat: int = 0,
        board: Board = BOARD) -> GameState:
    """A fresh game in its set-up phase on the fixed board."""
    return new_game(Settings(players=players, vp_target=vp_target), seed=seed, board=board,
                    first_seat=first_seat)


def scenario(players: int = 4, *, current: int = 0, phase: Phase = Phase.MAIN,
             vp_target: int = 10, seed: int = 1) -> GameState:
    """A game past its set-up with an empty board: ``current`` acts in ``phase``
    (MAIN means the dice were rolled without a 7)."""
    s = new(players, seed=seed, vp_target=vp_target)
    s.setup_step = 2 * players
    s.turn = 1
    s.current = current
    s.phase = phase.value
    s.rolled = phase != Phase.PRE_ROLL
    s.rolls_done = 1 if s.rolled else 0
    return s


def edge(a: int, b: int) -> int:
    """The edge joining adjacent nodes ``a`` and ``b``."""
    for e in NODE_EDGES[a]:
        if b in EDGE_NODES[e]:
            return e
    raise ValueError(f"nodes {a} and {b} are not adjacent")


def path(*nodes: int) -> list[int]:
    """The edges along a walk through adjacent ``nodes``."""
    return [edge(a, b) for a, b in zip(nodes, nodes[1:], strict=False)]


def refresh(s: GameState) -> None:
    """Recompute derived tables, and every seat's road length, after poking."""
    s.rebuild_derived()
    for q in range(s.num_players):
        s.road_len[q] = longest_road(s, q)


def build(s: GameState, seat: int, *, settlements: Iterable[int] = (),
          cities: Iterable[int] = (), roads: Iterable[int] = ()) -> None:
    """Put pieces of ``seat`` on the board directly (no cost, no checks but emptiness)."""
    for n in settlements:
        assert s.node_owner[n] < 0, f"node {n} is taken"
        s.node_owner[n] = seat
        s.node_level[n] = 1
    for n in cities:
        assert s.node_owner[n] < 0, f"node {n} is taken"
        s.node_owner[n] = seat
        s.node_level[n] = 2
    for e in roads:
        assert s.edge_owner[e] < 0, f"edge {e} is taken"
        s.edge_owner[e] = seat
    refresh(s)


def give(s: GameState, seat: int, hand: Sequence[int]) -> None:
    """Move resource cards from the bank to ``seat``'s hand."""
    for r, c in enumerate(hand):
        assert s.bank[r] >= c, "the bank does not hold that many"
        s.bank[r] -= c
        s.hands[seat][r] += c


def set_bank(s: GameState, resource: int, left: int, holder: int) -> None:
    """Leave ``left`` cards of ``resource`` in the bank; ``holder`` takes the rest."""
    move = s.bank[resource] - left
    assert move >= 0
    s.bank[resource] -= move
    s.hands[holder][resource] += move


def give_dev(s: GameState, seat: int, card: int, count: int = 1, *, new: bool = False) -> None:
    """Move development cards from the deck to ``seat`` (``new``: bought this turn)."""
    assert s.dev_deck[card] >= count
    s.dev_deck[card] -= count
    s.dev_hand[seat][card] += count
    if new:
        s.dev_new[seat][card] += count


def dice(total: int) -> tuple[int, int]:
    """Two dice summing to ``total``."""
    assert 2 <= total <= 12
    return (1, total - 1) if total <= 7 else (6, total - 6)


def roll(s: GameState, total: int, seat: int | None = None) -> list[Event]:
    """Roll ``total`` (forced dice) for the current seat."""
    return apply(s, RollDice(), s.current if seat is None else seat, chance=dice(total))


def assert_illegal(s: GameState, action: Action, seat: int | None = None,
                   code: str | None = None, chance: tuple[int, ...] | None = None
                   ) -> IllegalAction:
    """``action`` is refused (optionally with ``code``) and the state is unchanged."""
    before = s.to_dict()
    with pytest.raises(IllegalAction) as info:
        apply(s, action, seat, chance)
    assert s.to_dict() == before
    if code is not None:
        assert info.value.code == code, info.value
    return info.value


def of_type(events: Iterable[Event], kind: type[Event]) -> list[Event]:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]


def check_conservation(s: GameState) -> None:
    """19 cards of each resource between bank and hands (R-COMP-3)."""
    for r in range(5):
        assert s.bank[r] + sum(h[r] for h in s.hands) == 19


def play_setup(s: GameState, picks: Sequence[tuple[int, int]]) -> list[list[Event]]:
    """Play set-up steps through ``apply``: each pick is (node, edge) for the seat
    whose step it is. Returns the events of each settlement and road, in order."""
    out: list[list[Event]] = []
    for node, e in picks:
        seat = s.current
        out.append(apply(s, BuildSettlement(node), seat))
        out.append(apply(s, BuildRoad(e), seat))
    return out


# --- two-player variant and options (R-2P-*, R-OPT-*) -------------------------


def new_with(settings: Settings, *, seed: int = 1, first_seat: int = 0,
             board: Board = BOARD) -> GameState:
    """A fresh game with any ``settings``, in its set-up phase, on the fixed board."""
    return new_game(settings, seed=seed, board=board, first_seat=first_seat)


def scenario_with(settings: Settings, *, current: int = 0, phase: Phase = Phase.MAIN,
                  seed: int = 1, board: Board = BOARD) -> GameState:
    """Like :func:`scenario` for any ``settings`` (options, the 2-player game).

    In the 2-player game the neutral settlements stand on their fixed nodes and
    MAIN means both rolls were made (R-2P-3)."""
    s = new_with(settings, seed=seed, board=board)
    s.setup_step = 2 * settings.players
    s.turn = 1
    s.current = current
    s.phase = phase.value
    s.rolled = phase != Phase.PRE_ROLL
    s.rolls_done = settings.rolls_per_turn if s.rolled else 0
    return s


def two_player(*, current: int = 0, phase: Phase = Phase.MAIN, seed: int = 1,
               vp_target: int = 10, board: Board = BOARD, **options: bool) -> GameState:
    """A 2-player scenario (R-2P): seats 0 and 1, neutral owners 2 and 3."""
    settings = Settings(players=2, vp_target=vp_target, **options)
    return scenario_with(settings, current=current, phase=phase, seed=seed, board=board)


def refresh_owners(s: GameState) -> None:
    """:func:`refresh`, and the neutral owners' road lengths too (2-player game)."""
    refresh(s)
    for q in range(s.num_players, s.settings.owners):
        s.road_len[q] = longest_road(s, q)


def build_any(s: GameState, owner: int, *, settlements: Iterable[int] = (),
              cities: Iterable[int] = (), roads: Iterable[int] = ()) -> None:
    """:func:`build` for any owner, neutral players included."""
    build(s, owner, settlements=settlements, cities=cities, roads=roads)
    refresh_owners(s)


def set_tokens(s: GameState, seat: int, count: int) -> None:
    """Move trade tokens between ``seat`` and the stock so ``seat`` holds ``count``."""
    move = count - s.tokens[seat]
    assert s.token_stock >= move
    s.token_stock -= move
    s.tokens[seat] = count


def check_tokens(s: GameState) -> None:
    """20 trade tokens between the stock and the two players (R-2P-2)."""
    assert s.token_stock + sum(s.tokens) == 20
    assert s.token_stock >= 0 and min(s.tokens) >= 0
