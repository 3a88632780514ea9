"""Per-seat views: what one seat (or a spectator) may know.

A view holds the seat's own hand and development cards, every seat's card
*counts*, and public facts. It never holds another seat's hand or
development cards, the deck's contents or order, the RNG state or the seed.
The view is plain msgpack-able data; its keys are documented in
``docs/ENGINE.md``.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict, cast

from .actions import Action
from .board import Board
from .engine import legal_actions, may_propose, to_act
from .plain import Choices, Items
from .state import (
    DEV_CARDS,
    KNIGHT,
    MONOPOLY,
    PHASE_NAMES,
    ROAD_BUILDING,
    VICTORY_POINT,
    YEAR_OF_PLENTY,
    GameState,
    Phase,
    Settings,
    Trade,
)

Counts = Annotated[list[int], Items(5)]
"""Five counts: resources (lumber, brick, wool, grain, ore) or development
cards (in the order of ``DEV_CARDS``)."""
Pieces = Annotated[list[int], Items(3)]
"""Roads, settlements, cities left to build."""


class SeatView(TypedDict):
    """What everybody knows about one seat."""

    cards: int
    dev_cards: int
    knights: int
    vp: int
    road_length: int
    pieces: Pieces
    discard_owed: int
    tokens: int
    proposals_made: int
    offers_made: int


class NeutralView(TypedDict):
    """A neutral player of the two-player game."""

    owner: int
    pieces: Pieces
    road_length: int


class YouView(TypedDict):
    """What only the viewing seat knows."""

    hand: Counts
    dev_cards: Counts
    dev_new: Counts
    dev_playable: list[Annotated[str, Choices(DEV_CARDS)]]
    vp_total: int
    vp_cards: int
    ratios: Counts
    may_propose: bool


class ViewKeys(TypedDict):
    """The keys every view has (see :class:`View`)."""

    seat: int | None
    players: int
    vp_target: int
    settings: Annotated[dict[str, Any], Settings]
    board: Annotated[dict[str, list[int]], Board]
    harbors: list[Annotated[list[int], Items(4)]]
    robber: int
    buildings: list[Annotated[list[int], Items(3)]]
    roads: list[Annotated[list[int], Items(2)]]
    phase: Annotated[str, Choices(PHASE_NAMES)]
    turn: int
    current: int
    to_act: list[int]
    rolled: bool
    last_roll: Annotated[list[int], Items(2)] | None
    dev_played: bool
    free_roads: int
    setup_node: int | None
    steal_from: list[int]
    trade: Annotated[dict[str, Any], Trade] | None
    proposals: list[Annotated[list[Counts], Items(2)] | None]
    bank: Counts
    dev_deck: int
    dev_out: Counts
    longest_road: int | None
    largest_army: int | None
    seats: list[SeatView]
    neutrals: list[NeutralView]
    token_stock: int
    token_used: bool
    knight_discarded: bool
    rolls_done: int
    give_back: int
    built: bool
    pending_harbors: list[Annotated[list[int], Items(2)]]
    winner: int | None
    final_scores: list[int] | None
    you: YouView | None


class View(ViewKeys, total=False):
    """The keys of a view (docs/ENGINE.md). ``Annotated[..., Cls]`` marks a map
    that is ``Cls.to_dict()``; docs/protocol/schema.py writes the JSON Schema
    of views from these declarations."""

    special_from: int | None
    """5–6 players only (R-56-8): in the special building phase, the seat whose
    turn ended (``current`` is the seat building); None otherwise."""


_PLAY_NAMES = {
    KNIGHT: "play_knight",
    ROAD_BUILDING: "play_road_building",
    YEAR_OF_PLENTY: "play_year_of_plenty",
    MONOPOLY: "play_monopoly",
}


def observe(s: GameState, seat: int | None,
            legal: list[Action] | None = None) -> dict[str, Any]:
    """The view of ``seat`` (``None``: a spectator, public facts only).

    ``legal``: ``legal_actions(s, seat)`` if the caller has it already (the
    server lists them anyway), so that it is not computed twice."""
    n = s.settings.players
    over = s.phase == Phase.GAME_OVER
    hands, dev_hand, pieces = s.hands, s.dev_hand, s.pieces
    seats: list[SeatView] = [
        {
            "cards": sum(hands[q]),
            "dev_cards": sum(dev_hand[q]),
            "knights": s.knights[q],
            "vp": s.vp[q],
            "road_length": s.road_len[q],
            "pieces": pieces[q][:],
            "discard_owed": s.discard_owed[q],
            "tokens": s.tokens[q],
            "proposals_made": s.proposals_made[q],
            "offers_made": s.offers_made[q],
        }
        for q in range(n)
    ]
    trade = None
    if s.trade is not None:
        trade = s.trade.to_dict()
    proposals: list[list[list[int]] | None] = [None] * n
    if s.proposals:
        for q, (give, get) in s.proposals.items():
            proposals[q] = [list(give), list(get)]
    view: View = {
        "seat": seat,
        "players": n,
        "vp_target": s.settings.vp_target,
        "settings": s.settings.to_dict(),
        "board": s.board.to_dict(),
        "harbors": [list(h) for h in s.info.harbor_rows],
        "robber": s.robber,
        "buildings": [[node, owner, level] for node, owner, level
                      in zip(range(s.info.num_nodes), s.node_owner, s.node_level, strict=True)
                      if owner >= 0],
        "roads": [[e, owner] for e, owner in enumerate(s.edge_owner) if owner >= 0],
        "phase": PHASE_NAMES[s.phase],
        "turn": s.turn,
        "current": s.current,
        "to_act": list(to_act(s)),
        "rolled": s.rolled,
        "last_roll": None if s.last_roll is None else list(s.last_roll),
        "dev_played": s.dev_played,
        "free_roads": s.free_roads,
        "setup_node": s.setup_node if s.phase == Phase.SETUP_ROAD else None,
        "steal_from": list(s.steal_from),
        "trade": trade,
        "proposals": proposals,
        "bank": s.bank[:],
        "dev_deck": sum(s.dev_deck),
        "dev_out": s.dev_out[:],
        "longest_road": None if s.lr_holder < 0 else s.lr_holder,
        "largest_army": None if s.la_holder < 0 else s.la_holder,
        "seats": seats,
        "neutrals": [
            {"owner": o, "pieces": pieces[o][:], "road_length": s.road_len[o]}
            for o in range(n, s.settings.owners)
        ],
        "token_stock": s.token_stock,
        "token_used": s.token_used,
        "knight_discarded": s.knight_discarded,
        "rolls_done": s.rolls_done,
        "give_back": s.give_back,
        "built": s.built,
        "pending_harbors": [[q, node] for q, node in s.pending_harbors],
        "winner": s.winner,
        "final_scores": [s.total_vp(q) for q in range(n)] if over else None,
        "you": None,
    }
    if s.info.special_build:
        view["special_from"] = None if s.special_from < 0 else s.special_from
    if seat is not None and 0 <= seat < n:
        playable = []
        if not over and any(dev_hand[seat]):  # no cards, nothing to play
            if legal is None:
                legal = legal_actions(s, seat)
            names = {a.name for a in legal}
            playable = [DEV_CARDS[c] for c, nm in _PLAY_NAMES.items() if nm in names]
        view["you"] = {
            "hand": hands[seat][:],
            "dev_cards": dev_hand[seat][:],
            "dev_new": s.dev_new[seat][:],
            "dev_playable": playable,
            "vp_total": s.total_vp(seat),
            "vp_cards": dev_hand[seat][VICTORY_POINT],
            "ratios": s.ratios[seat][:],
            "may_propose": may_propose(s, seat),
        }
    return cast("dict[str, Any]", view)
