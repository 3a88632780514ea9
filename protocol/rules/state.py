"""Game settings and the complete (authoritative) game state.

The state holds everything, hidden facts included (hands, development cards,
the deck, the RNG). Only the server and in-process tests ever hold one; seats
see :func:`protocol.rules.observe` views. ``to_dict``/``from_dict`` give a
plain msgpack-able form (server snapshots); ``copy`` is a cheap deep copy for
search bots.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from .actions import action_from_dict
from .board import Board, Geometry, geometry_for
from .errors import InvalidLog, RulesError
from .rng import Rng

KNIGHT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY, VICTORY_POINT = range(5)
DEV_CARDS: tuple[str, ...] = (
    "knight", "road_building", "year_of_plenty", "monopoly", "victory_point",
)
DEV_DECK: tuple[int, ...] = (14, 2, 2, 2, 5)
"""R-COMP-4: 14 knights, 2 road building, 2 year of plenty, 2 monopoly, 5 VP."""
DEV_DECK_LARGE: tuple[int, ...] = (20, 3, 3, 3, 5)
"""R-56-5: 20 knights, 3 road building, 3 year of plenty, 3 monopoly, 5 VP."""
BANK_PER_RESOURCE = 19
BANK_PER_RESOURCE_LARGE = 24
"""R-56-5: the bank of a 5–6 player game holds 24 of each resource."""
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
    NEUTRAL_ROAD = 10
    NEUTRAL_SETTLEMENT = 11
    GIVE_BACK = 12
    SPECIAL_BUILD = 13


PHASE_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Phase)


NEUTRAL_NODES: tuple[int, int] = (22, 31)
"""R-2P-1: the two neutral players' fixed settlements (owners 2 and 3).

Node 22 is where hexes 3, 7 and 8 meet (the west of the island), node 31
where hexes 10, 11 and 15 meet (the east): point-symmetric through the
centre, inland, three land hexes each."""
TOKEN_STOCK = 20
TOKENS_START = 5
MAX_PROPOSALS = 3
"""R-TRADE-2: trade proposals one seat may make to the current player in one turn
(at most one of them open at a time), so that nobody can flood the current player."""
MAX_OFFERS = 10
"""Domestic trade offers (``offer_trade``) the current player may open in one turn,
so that a player (a buggy bot) cannot hold a game for ever with offers."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What a table chooses before the game.

    ``players`` is 3 or 4 for the base game, 2 for the official two-player
    variant (R-2P: two neutral players, trade tokens, double roll), 5 or 6
    for the official extension (R-56: the large board, a bigger bank and
    deck, the Special Building Phase). The
    options (R-OPT-1..5) are off by default; :meth:`sea3d` turns on the
    sea3D house rules. ``turn_cap`` is not a rule: it lets automated runs
    stop a game that would never end (0 = no cap); a capped game ends with no
    winner. ``balanced_dice`` is a chance option, not a rule: the dice come
    from a deck of the 36 outcomes (:mod:`protocol.rules.chance`, which every
    committed game draws its chance from); the engine's own generator ignores it.
    """

    players: int = 4
    vp_target: int = 10
    turn_cap: int = 0
    balanced_map: bool = False
    shuffle_harbors: bool = False
    harbor_delay: bool = False
    strict_phases: bool = False
    balanced_dice: bool = False

    def __post_init__(self) -> None:
        if type(self.players) is not int or not 2 <= self.players <= 6:
            raise RulesError("a game is for 2 to 6 players", "bad_settings")
        if type(self.vp_target) is not int or not 3 <= self.vp_target <= 20:
            raise RulesError("the VP target must be between 3 and 20 (R-OPT-5)", "bad_settings")
        if type(self.turn_cap) is not int or self.turn_cap < 0:
            raise RulesError("turn_cap must be >= 0", "bad_settings")
        for flag in ("balanced_map", "shuffle_harbors", "harbor_delay", "strict_phases",
                     "balanced_dice"):
            if type(getattr(self, flag)) is not bool:
                raise RulesError(f"{flag} must be true or false", "bad_settings")

    @classmethod
    def sea3d(cls, players: int = 4, **kw: Any) -> Settings:
        """sea3D's table: balanced map, shuffled harbors, no harbor use on the
        turn it was settled, no trading after the first build (R-OPT-1..4)."""
        return cls(players=players, balanced_map=True, shuffle_harbors=True,
                   harbor_delay=True, strict_phases=True, **kw)

    @property
    def two_player(self) -> bool:
        return self.players == 2

    @property
    def owners(self) -> int:
        """How many piece owners: the players, plus two neutrals in the 2-player game."""
        return 4 if self.players == 2 else self.players

    @property
    def rolls_per_turn(self) -> int:
        return 2 if self.players == 2 else 1  # R-2P-3

    @property
    def extension(self) -> bool:
        """The 5–6 player extension (R-56): large board, Special Building Phase."""
        return self.players >= 5

    @property
    def geometry(self) -> Geometry:
        return geometry_for(self.players)

    @property
    def bank_per_resource(self) -> int:
        return BANK_PER_RESOURCE_LARGE if self.players >= 5 else BANK_PER_RESOURCE

    @property
    def dev_deck(self) -> tuple[int, ...]:
        return DEV_DECK_LARGE if self.players >= 5 else DEV_DECK

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "players": self.players, "vp_target": self.vp_target, "turn_cap": self.turn_cap,
            "balanced_map": self.balanced_map, "shuffle_harbors": self.shuffle_harbors,
            "harbor_delay": self.harbor_delay, "strict_phases": self.strict_phases,
        }
        if self.balanced_dice:  # only when on: records without it stay as they were
            d["balanced_dice"] = True
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Settings:
        if not isinstance(d, dict):
            raise RulesError("settings are a map", "bad_settings")
        names = ("players", "vp_target", "turn_cap", "balanced_map", "shuffle_harbors",
                 "harbor_delay", "strict_phases", "balanced_dice")
        return cls(**{k: d[k] for k in names if k in d})


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
    """Per-game constants (board tables, rule switches), computed once per game
    and shared by copies. The switches repeat ``Settings`` and the geometry's
    tables are repeated as plain attributes because the hot paths read them on
    every action (one attribute each, looked up once per call)."""

    __slots__ = ("board", "node_harbor", "production", "desert", "two_player", "strict",
                 "rolls_per_turn", "harbor_rows", "geo", "special_build",
                 "num_hexes", "num_nodes", "num_edges", "edge_nodes", "hex_nodes",
                 "node_hexes", "node_edges", "node_nodes", "edge_other", "coastal_nodes")

    def __init__(self, board: Board, settings: Settings | None = None) -> None:
        settings = settings or Settings()
        geo = board.geometry
        if geo is not settings.geometry:
            raise RulesError(f"a {settings.players}-player game is played on the "
                             f"{settings.geometry.num_hexes}-hex board (R-56-1)", "bad_settings")
        self.two_player = settings.two_player
        self.strict = settings.strict_phases
        self.rolls_per_turn = settings.rolls_per_turn
        self.special_build = settings.extension
        self.board = board
        self.geo = geo
        self.num_hexes = geo.num_hexes
        self.num_nodes = geo.num_nodes
        self.num_edges = geo.num_edges
        self.edge_nodes = geo.edge_nodes
        self.hex_nodes = geo.hex_nodes
        self.node_hexes = geo.node_hexes
        self.node_edges = geo.node_edges
        self.node_nodes = geo.node_nodes
        self.edge_other = geo.edge_other
        self.coastal_nodes = geo.coastal_nodes
        self.node_harbor = board.node_harbors()
        prod: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(13)]
        for h in range(len(board.terrain)):
            n = board.numbers[h]
            if n:
                prod[n].append((h, board.terrain[h], geo.hex_nodes[h]))
        self.production = tuple(tuple(x) for x in prod)
        self.desert = board.desert
        self.harbor_rows = tuple(
            (e, geo.edge_nodes[e][0], geo.edge_nodes[e][1], kind)
            for e, kind in zip(geo.harbor_edges, board.harbors, strict=True))
        """The harbors as the view lists them: (edge, node, node, type)."""


def add_production_node(s: GameState, node: int) -> None:
    """Index a new building for production: ``s.prod_nodes[number]`` lists
    ``(hex, resource, node)`` for every building next to a hex with ``number``."""
    board = s.info.board
    for h in s.info.node_hexes[node]:
        number = board.numbers[h]
        if number:
            s.prod_nodes[number] = (*s.prod_nodes[number], (h, board.terrain[h], node))


def apply_harbor(ratios: list[int], kind: int) -> None:
    """Lower a seat's maritime ratios for a harbor of type ``kind`` (-1: none)."""
    if kind == 5:
        for r in range(5):
            if ratios[r] > 3:
                ratios[r] = 3
    elif kind >= 0:
        ratios[kind] = 2


# Log entries: (seat, action, chance outcome or None).
LogEntry = tuple[int, Any, tuple[int, ...] | None]


def entry_to_dict(e: LogEntry) -> list[Any]:
    seat, action, outcome = e
    return [seat, action.to_dict(), None if outcome is None else list(outcome)]


def entry_from_dict(d: Any) -> LogEntry:
    if not isinstance(d, list | tuple) or len(d) != 3 or type(d[0]) is not int:
        raise InvalidLog(f"bad log entry {d!r}")
    outcome = d[2]
    if outcome is not None and (
        not isinstance(outcome, list | tuple) or not all(type(x) is int for x in outcome)
    ):
        raise InvalidLog(f"bad outcome in log entry {d!r}")
    return (d[0], action_from_dict(d[1]), None if outcome is None else tuple(outcome))


SnapshotLoader = Callable[[dict[str, Any]], "GameState"]
_snapshot_loader: SnapshotLoader | None = None


def set_snapshot_loader(loader: SnapshotLoader) -> None:
    """Install what :meth:`GameState.from_dict` loads and checks snapshots with."""
    global _snapshot_loader
    _snapshot_loader = loader


class GameState:
    """The full state of one game. Mutated only by :func:`protocol.rules.apply`."""

    __slots__ = (
        "settings", "info", "seed", "rng", "phase", "current", "first_seat", "turn",
        "setup_step", "setup_node", "hands", "bank", "dev_deck", "dev_hand", "dev_new",
        "dev_played", "knights", "node_owner", "node_level", "edge_owner", "roads", "reach",
        "pieces", "ratios", "robber", "lr_holder", "road_len", "la_holder", "discard_owed",
        "rolled", "free_roads", "return_phase", "steal_from", "trade", "winner", "last_roll",
        "vp", "prod_nodes", "tokens", "token_stock", "token_used", "knight_discarded", "dev_out",
        "rolls_done", "first_sum", "neutral_return", "give_back", "built", "pending_harbors",
        "proposals", "proposals_made", "offers_made", "special_from", "log",
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
    winner: int | None
    last_roll: tuple[int, int] | None
    vp: list[int]
    prod_nodes: list[tuple[tuple[int, int, int], ...]]
    tokens: list[int]
    token_stock: int
    token_used: bool
    knight_discarded: bool
    dev_out: list[int]
    rolls_done: int
    first_sum: int
    neutral_return: int
    give_back: int
    built: bool
    pending_harbors: list[tuple[int, int]]
    proposals: dict[int, tuple[tuple[int, ...], tuple[int, ...]]]
    proposals_made: list[int]
    offers_made: list[int]
    special_from: int
    """R-56-8: during a Special Building Phase, the seat whose turn ended (the
    phase ends when the seat before it has built); -1 otherwise. ``current`` is
    the seat building."""
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
        c.tokens = self.tokens[:]
        c.token_stock = self.token_stock
        c.token_used = self.token_used
        c.knight_discarded = self.knight_discarded
        c.dev_out = self.dev_out[:]
        c.rolls_done = self.rolls_done
        c.first_sum = self.first_sum
        c.neutral_return = self.neutral_return
        c.give_back = self.give_back
        c.built = self.built
        c.pending_harbors = self.pending_harbors[:]
        c.proposals = dict(self.proposals) if self.proposals else {}
        c.proposals_made = self.proposals_made[:]
        c.offers_made = self.offers_made[:]
        c.special_from = self.special_from
        c.log = list(self.log) if keep_log and self.log is not None else None
        return c

    # -- plain data -----------------------------------------------------------

    def to_dict(self, *, include_log: bool = True) -> dict[str, Any]:
        """Everything, hidden facts included, as msgpack-able plain data.

        Derived tables (road lists, reach sets, harbor ratios, VP) are not
        stored: :meth:`from_dict` recomputes them from the board position.
        """

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
            "tokens": self.tokens[:],
            "token_stock": self.token_stock,
            "token_used": self.token_used,
            "knight_discarded": self.knight_discarded,
            "dev_out": self.dev_out[:],
            "rolls_done": self.rolls_done,
            "first_sum": self.first_sum,
            "neutral_return": PHASE_NAMES[self.neutral_return],
            "give_back": self.give_back,
            "built": self.built,
            "pending_harbors": [list(x) for x in self.pending_harbors],
            "proposals": [[q, list(give), list(get)]
                          for q, (give, get) in sorted(self.proposals.items())],
            "proposals_made": self.proposals_made[:],
            "offers_made": self.offers_made[:],
        }
        if self.settings.extension:  # a 5–6 player game (snapshots of others keep their form)
            d["special_from"] = self.special_from
        if include_log:
            d["log"] = None if self.log is None else [entry_to_dict(e) for e in self.log]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        """Load a snapshot written by :meth:`to_dict` (any earlier format too).

        The snapshot is hostile data: every field is type-checked, every derived
        fact (road lists, pieces, harbor ratios, VP, road lengths, the Longest
        Road and Largest Army holders, the production index, the set-up step,
        the possible victims) is recomputed from the primary facts, and a
        snapshot whose facts contradict each other (cards that do not add up to
        the bank's 19, a trade by a seat not on turn, ...) is refused with a
        :class:`RulesError` (code ``bad_position``) that says what is wrong.
        The checking lives in :mod:`protocol.rules.check`, which registers
        itself here (:func:`set_snapshot_loader`) when the package is imported.
        """
        if _snapshot_loader is None:
            raise RulesError("no snapshot loader: import protocol.rules", "bad_position")
        return _snapshot_loader(d)

    def rebuild_derived(self) -> None:
        """Recompute road lists, reach sets, harbor ratios, pieces, the production
        index and VP from the position and the current holders (used after
        loading; also a from-scratch check in tests)."""
        n = self.settings.players
        owners = self.settings.owners
        self.roads = [[] for _ in range(owners)]
        self.reach = [set() for _ in range(owners)]
        self.pieces = [list(PIECES) for _ in range(owners)]
        self.ratios = [[4] * 5 for _ in range(n)]
        pending = set(self.pending_harbors)
        self.prod_nodes = [()] * 13

        info = self.info
        for e in range(info.num_edges):
            o = self.edge_owner[e]
            if o >= 0:
                self.roads[o].append(e)
                self.reach[o].update(info.edge_nodes[e])
                self.pieces[o][ROADS] -= 1
        for node in range(info.num_nodes):
            o = self.node_owner[node]
            if o < 0:
                continue
            self.reach[o].add(node)
            if o < n:
                add_production_node(self, node)
            if self.node_level[node] == 1:
                self.pieces[o][SETTLEMENTS] -= 1
            else:
                self.pieces[o][CITIES] -= 1
            if o < n and (o, node) not in pending:
                apply_harbor(self.ratios[o], self.info.node_harbor[node])
        self.recount_vp()

    def recount_vp(self) -> None:
        """Public VP of every owner from the buildings and the special cards."""
        self.vp = [0] * self.settings.owners
        for node in range(self.info.num_nodes):
            o = self.node_owner[node]
            if o >= 0:
                self.vp[o] += 1 if self.node_level[node] == 1 else 2
        if self.lr_holder >= 0:
            self.vp[self.lr_holder] += 2
        if self.la_holder >= 0:
            self.vp[self.la_holder] += 2

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]
