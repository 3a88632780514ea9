"""Game settings and the complete (authoritative) game state.

The state holds everything, hidden facts included (hands, development cards,
the deck, the RNG). Only the server and in-process tests ever hold one; seats
see :func:`protocol.rules.observe` views. ``to_dict``/``from_dict`` give a
plain msgpack-able form (server snapshots); ``copy`` is a cheap deep copy for
search bots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from .board import (
    HEX_NODES,
    NODE_HEXES,
    NUM_EDGES,
    NUM_NODES,
    Board,
)
from .errors import RulesError
from .rng import Rng

KNIGHT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY, VICTORY_POINT = range(5)
DEV_CARDS: tuple[str, ...] = (
    "knight", "road_building", "year_of_plenty", "monopoly", "victory_point",
)
DEV_DECK: tuple[int, ...] = (14, 2, 2, 2, 5)
"""R-COMP-4: 14 knights, 2 road building, 2 year of plenty, 2 monopoly, 5 VP."""
BANK_PER_RESOURCE = 19
PIECES: tuple[int, int, int] = (15, 5, 4)
"""R-COMP-5: roads, settlements, cities per player."""
ROADS, SETTLEMENTS, CITIES = range(3)

COST_ROAD = (1, 1, 0, 0, 0)
COST_SETTLEMENT = (1, 1, 1, 1, 0)
COST_CITY = (0, 0, 0, 2, 3)
COST_DEV = (0, 0, 1, 1, 1)


class Phase(IntEnum):
    SETUP_SETTLEMENT = 0
    SETUP_ROAD = 1
    PRE_ROLL = 2
    DISCARD = 3
    MOVE_ROBBER = 4
    STEAL = 5
    MAIN = 6
    ROAD_BUILDING = 7
    TRADE = 8
    GAME_OVER = 9


PHASE_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Phase)


@dataclass(frozen=True, slots=True)
class Settings:
    """What a table chooses before the game. Later variants extend this.

    ``turn_cap`` is not a rule: it lets automated runs stop a game that would
    never end (0 = no cap); a capped game ends with no winner.
    """

    players: int = 4
    vp_target: int = 10
    turn_cap: int = 0

    def __post_init__(self) -> None:
        if not 3 <= self.players <= 4:
            raise RulesError("the base game is for 3 or 4 players", "bad_settings")
        if not 3 <= self.vp_target <= 20:
            raise RulesError("the VP target must be between 3 and 20 (R-OPT-5)", "bad_settings")
        if self.turn_cap < 0:
            raise RulesError("turn_cap must be >= 0", "bad_settings")

    def to_dict(self) -> dict[str, int]:
        return {"players": self.players, "vp_target": self.vp_target, "turn_cap": self.turn_cap}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Settings:
        known = {k: d[k] for k in ("players", "vp_target", "turn_cap") if k in d}
        for k, v in known.items():
            if type(v) is not int:
                raise RulesError(f"setting {k} must be an integer", "bad_settings")
        return cls(**known)


@dataclass(frozen=True, slots=True)
class Trade:
    """An open domestic trade offer by the current player (R-TRADE-2).

    ``status[s]``: -1 not addressed, 0 no answer yet, 1 accepted, 2 rejected,
    3 counter-offered (terms in ``counters[s]``, from seat ``s``'s side).
    """

    offerer: int
    give: tuple[int, ...]
    get: tuple[int, ...]
    status: tuple[int, ...]
    counters: tuple[tuple[tuple[int, ...], tuple[int, ...]] | None, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "offerer": self.offerer,
            "give": list(self.give),
            "get": list(self.get),
            "status": list(self.status),
            "counters": [None if c is None else [list(c[0]), list(c[1])] for c in self.counters],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trade:
        return cls(
            d["offerer"], tuple(d["give"]), tuple(d["get"]), tuple(d["status"]),
            tuple(None if c is None else (tuple(c[0]), tuple(c[1])) for c in d["counters"]),
        )


class BoardInfo:
    """Per-board lookup tables, computed once per board and shared by copies."""

    __slots__ = ("board", "node_harbor", "production", "desert")

    def __init__(self, board: Board) -> None:
        self.board = board
        self.node_harbor = board.node_harbors()
        prod: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(13)]
        for h in range(len(board.terrain)):
            n = board.numbers[h]
            if n:
                prod[n].append((h, board.terrain[h], HEX_NODES[h]))
        self.production = tuple(tuple(x) for x in prod)
        self.desert = board.desert


def add_production_node(s: GameState, node: int) -> None:
    """Index a new building for production: ``s.prod_nodes[number]`` lists
    ``(hex, resource, node)`` for every building next to a hex with ``number``."""
    board = s.info.board
    for h in NODE_HEXES[node]:
        number = board.numbers[h]
        if number:
            s.prod_nodes[number] = (*s.prod_nodes[number], (h, board.terrain[h], node))


# Log entries: (seat, action, chance outcome or None).
LogEntry = tuple[int, Any, tuple[int, ...] | None]


class GameState:
    """The full state of one game. Mutated only by :func:`protocol.rules.apply`."""

    __slots__ = (
        "settings", "info", "seed", "rng", "phase", "current", "first_seat", "turn",
        "setup_step", "setup_node", "hands", "bank", "dev_deck", "dev_hand", "dev_new",
        "dev_played", "knights", "node_owner", "node_level", "edge_owner", "roads", "reach",
        "pieces", "ratios", "robber", "lr_holder", "road_len", "la_holder", "discard_owed",
        "rolled", "free_roads", "return_phase", "steal_from", "trade", "winner", "last_roll",
        "vp", "prod_nodes", "log",
    )

    settings: Settings
    info: BoardInfo
    seed: int
    rng: Rng
    phase: int
    current: int
    first_seat: int
    turn: int
    setup_step: int
    setup_node: int
    hands: list[list[int]]
    bank: list[int]
    dev_deck: list[int]
    dev_hand: list[list[int]]
    dev_new: list[list[int]]
    dev_played: bool
    knights: list[int]
    node_owner: list[int]
    node_level: list[int]
    edge_owner: list[int]
    roads: list[list[int]]
    reach: list[set[int]]
    pieces: list[list[int]]
    ratios: list[list[int]]
    robber: int
    lr_holder: int
    road_len: list[int]
    la_holder: int
    discard_owed: list[int]
    rolled: bool
    free_roads: int
    return_phase: int
    steal_from: tuple[int, ...]
    trade: Trade | None
    winner: int
    last_roll: tuple[int, int] | None
    vp: list[int]
    prod_nodes: list[tuple[tuple[int, int, int], ...]]
    log: list[LogEntry] | None

    @property
    def board(self) -> Board:
        return self.info.board

    @property
    def num_players(self) -> int:
        return self.settings.players

    def total_vp(self, seat: int) -> int:
        """Public VP plus the seat's victory point cards (hidden until the win)."""
        return self.vp[seat] + self.dev_hand[seat][VICTORY_POINT]

    def copy(self, *, keep_log: bool = False) -> GameState:
        """An independent copy (the board tables are shared: they never change).

        The action log is dropped unless ``keep_log``: search bots copy states
        thousands of times and never need it.
        """
        c = GameState.__new__(GameState)
        c.settings = self.settings
        c.info = self.info
        c.seed = self.seed
        c.rng = self.rng.copy()
        c.phase = self.phase
        c.current = self.current
        c.first_seat = self.first_seat
        c.turn = self.turn
        c.setup_step = self.setup_step
        c.setup_node = self.setup_node
        c.hands = [h[:] for h in self.hands]
        c.bank = self.bank[:]
        c.dev_deck = self.dev_deck[:]
        c.dev_hand = [h[:] for h in self.dev_hand]
        c.dev_new = [h[:] for h in self.dev_new]
        c.dev_played = self.dev_played
        c.knights = self.knights[:]
        c.node_owner = self.node_owner[:]
        c.node_level = self.node_level[:]
        c.edge_owner = self.edge_owner[:]
        c.roads = [r[:] for r in self.roads]
        c.reach = [set(r) for r in self.reach]
        c.pieces = [p[:] for p in self.pieces]
        c.ratios = [r[:] for r in self.ratios]
        c.robber = self.robber
        c.lr_holder = self.lr_holder
        c.road_len = self.road_len[:]
        c.la_holder = self.la_holder
        c.discard_owed = self.discard_owed[:]
        c.rolled = self.rolled
        c.free_roads = self.free_roads
        c.return_phase = self.return_phase
        c.steal_from = self.steal_from
        c.trade = self.trade
        c.winner = self.winner
        c.last_roll = self.last_roll
        c.vp = self.vp[:]
        c.prod_nodes = self.prod_nodes[:]  # tuples inside: replaced, never mutated
        c.log = list(self.log) if keep_log and self.log is not None else None
        return c

    # -- plain data -----------------------------------------------------------

    def to_dict(self, *, include_log: bool = True) -> dict[str, Any]:
        """Everything, hidden facts included, as msgpack-able plain data.

        Derived tables (road lists, reach sets, harbor ratios, VP) are not
        stored: :meth:`from_dict` recomputes them from the board position.
        """
        from .log import entry_to_dict  # local: log imports this module

        d: dict[str, Any] = {
            "settings": self.settings.to_dict(),
            "board": self.board.to_dict(),
            "seed": self.seed,
            "rng": self.rng.state,
            "phase": PHASE_NAMES[self.phase],
            "current": self.current,
            "first_seat": self.first_seat,
            "turn": self.turn,
            "setup_step": self.setup_step,
            "setup_node": self.setup_node,
            "hands": [h[:] for h in self.hands],
            "bank": self.bank[:],
            "dev_deck": self.dev_deck[:],
            "dev_hand": [h[:] for h in self.dev_hand],
            "dev_new": [h[:] for h in self.dev_new],
            "dev_played": self.dev_played,
            "knights": self.knights[:],
            "node_owner": self.node_owner[:],
            "node_level": self.node_level[:],
            "edge_owner": self.edge_owner[:],
            "robber": self.robber,
            "lr_holder": self.lr_holder,
            "road_len": self.road_len[:],
            "la_holder": self.la_holder,
            "discard_owed": self.discard_owed[:],
            "rolled": self.rolled,
            "free_roads": self.free_roads,
            "return_phase": PHASE_NAMES[self.return_phase],
            "steal_from": list(self.steal_from),
            "trade": None if self.trade is None else self.trade.to_dict(),
            "winner": self.winner,
            "last_roll": None if self.last_roll is None else list(self.last_roll),
        }
        if include_log:
            d["log"] = None if self.log is None else [entry_to_dict(e) for e in self.log]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        from .log import entry_from_dict

        s = cls.__new__(cls)
        s.settings = Settings.from_dict(d["settings"])
        s.info = BoardInfo(Board.from_dict(d["board"]))
        s.seed = d["seed"]
        s.rng = Rng(0)
        s.rng.state = d["rng"]
        s.phase = PHASE_NAMES.index(d["phase"])
        s.current = d["current"]
        s.first_seat = d["first_seat"]
        s.turn = d["turn"]
        s.setup_step = d["setup_step"]
        s.setup_node = d["setup_node"]
        s.hands = [list(h) for h in d["hands"]]
        s.bank = list(d["bank"])
        s.dev_deck = list(d["dev_deck"])
        s.dev_hand = [list(h) for h in d["dev_hand"]]
        s.dev_new = [list(h) for h in d["dev_new"]]
        s.dev_played = d["dev_played"]
        s.knights = list(d["knights"])
        s.node_owner = list(d["node_owner"])
        s.node_level = list(d["node_level"])
        s.edge_owner = list(d["edge_owner"])
        s.robber = d["robber"]
        s.lr_holder = d["lr_holder"]
        s.road_len = list(d["road_len"])
        s.la_holder = d["la_holder"]
        s.discard_owed = list(d["discard_owed"])
        s.rolled = d["rolled"]
        s.free_roads = d["free_roads"]
        s.return_phase = PHASE_NAMES.index(d["return_phase"])
        s.steal_from = tuple(d["steal_from"])
        s.trade = None if d["trade"] is None else Trade.from_dict(d["trade"])
        s.winner = d["winner"]
        s.last_roll = None if d["last_roll"] is None else (d["last_roll"][0], d["last_roll"][1])
        log = d.get("log")
        s.log = None if log is None else [entry_from_dict(e) for e in log]
        s.rebuild_derived()
        return s

    def rebuild_derived(self) -> None:
        """Recompute road lists, reach sets, harbor ratios, pieces and VP from
        the position (used after loading; also a from-scratch check in tests)."""
        n = self.settings.players
        self.roads = [[] for _ in range(n)]
        self.reach = [set() for _ in range(n)]
        self.pieces = [list(PIECES) for _ in range(n)]
        self.ratios = [[4] * 5 for _ in range(n)]
        self.vp = [0] * n
        self.prod_nodes = [()] * 13
        from .board import EDGE_NODES

        for e in range(NUM_EDGES):
            o = self.edge_owner[e]
            if o >= 0:
                self.roads[o].append(e)
                self.reach[o].update(EDGE_NODES[e])
                self.pieces[o][ROADS] -= 1
        for node in range(NUM_NODES):
            o = self.node_owner[node]
            if o < 0:
                continue
            self.reach[o].add(node)
            add_production_node(self, node)
            if self.node_level[node] == 1:
                self.pieces[o][SETTLEMENTS] -= 1
                self.vp[o] += 1
            else:
                self.pieces[o][CITIES] -= 1
                self.vp[o] += 2
            kind = self.info.node_harbor[node]
            if kind == 5:
                self.ratios[o] = [min(r, 3) for r in self.ratios[o]]
            elif kind >= 0:
                self.ratios[o][kind] = 2
        if self.lr_holder >= 0:
            self.vp[self.lr_holder] += 2
        if self.la_holder >= 0:
            self.vp[self.la_holder] += 2

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]
