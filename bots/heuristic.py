"""A rule-based ("heuristic") Catan bot, much stronger than :mod:`bots.greedy`.

It reads only its own view, its legal actions, the public board geometry and
the public events it is shown (:meth:`HeuristicBot.on_events`, used to guess
what the other seats hold). A simulation that holds the game state asks it
with :meth:`HeuristicBot.act_state`, which reads the same facts from the
state instead of from a view built for the decision (the same decision).
What depends only on the position (road distances, settlement targets,
robber scores) or on a few facts of it (the goals, by hand, pieces and the
Longest Road and Largest Army race) is remembered across decisions. What it
does:

* **Opening**: intersections are scored by production (pips) weighted by
  resource (grain and ore slightly favoured, a resource scarce on this board
  more), resource and number variety, harbor synergy and the robber. The first
  settlement also counts the best complement likely to be left for the second
  after the others' picks in snake order; the second favours the resources the
  first lacks. Set-up roads point at the best free spot two steps away.
* **Plan**: the candidate builds (city on the best settlement, settlement on
  the best connected spot, roads towards the best reachable spot, roads for
  Longest Road, a development card) are ranked by value over the expected
  turns to afford them with the bot's own production. VP builds are made as
  soon as they are affordable; roads and development cards only when they do
  not delay the current goal (or when the hand is at risk from a 7).
* **Trades are planned before builds** (sea3D strict phases close domestic
  trade after a build): a maritime trade at the best ratio only when it
  completes a build this turn (or, holding 8+ cards with nothing to build,
  to turn a surplus into a missing card before a 7 halves the hand), giving
  what it holds plenty of rather than what is scarce on the board; up to two
  domestic offers a turn from its own surplus (players are asked first when
  the bank would take 3 or 4); answers to offers by the value of the hand
  after the trade, never trading with a seat two points (or less) from
  winning.
* **Proposals** (R-TRADE-2): on another seat's turn, at most one proposal a
  turn (:attr:`HeuristicBot.max_proposals`) to the current player, only when
  it is a single card short of a city, a settlement or a development card
  that is one of its two best goals: a spare card for it, if the current
  player most likely holds it. On its own turn it answers each proposal
  at once: accepted when the hand is worth more after it (the same rule as
  for offers), otherwise rejected; all proposals accepted in a turn together
  never make it give more than :data:`MAX_OVERPAY` cards beyond those it
  gets, so a stream of proposals cannot drain it.
* **Robber**: the hex that hurts the leader most (public VP and production),
  never its own, preferring victims with many cards. **Discards** keep the
  cards of its next goals, in order.
* **Development cards**: knights to free its own hex, take or keep Largest
  Army, or block the leader; monopoly on what the others are estimated to
  hold most of; year of plenty for what completes a build; road building
  when roads are wanted.
* **Two players**: neutral pieces block the opponent's best spots and paths;
  trade tokens send the robber home from its hexes and force trades when the
  opponent holds many cards; a played knight is discarded for tokens only when
  that cannot cost Largest Army.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.rules import (
    MAX_OFFERS,
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
    GameState,
    GiveBack,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    RollDice,
    Steal,
    TokenForcedTrade,
    TokenRobberHome,
)
from protocol.rules.board import (
    DESERT,
    MAX_EDGES,
    MAX_NODES,
    Geometry,
    geometry_of,
    pips,
)
from protocol.rules.events import (
    CityBuilt,
    DevCardBought,
    Discarded,
    ForcedTradeDrawn,
    GaveBack,
    MaritimeTraded,
    MonopolyTaken,
    Produced,
    RoadBuilt,
    SettlementBuilt,
    SetupIncome,
    Stolen,
    TradeCompleted,
    YearOfPlentyTaken,
)
from protocol.rules.state import PHASE_NAMES, VICTORY_POINT, Phase

from .base import Bot

Vec = tuple[int, int, int, int, int]

ROAD: Vec = (1, 1, 0, 0, 0)
SETTLEMENT: Vec = (1, 1, 1, 1, 0)
CITY: Vec = (0, 0, 0, 2, 3)
DEV: Vec = (0, 0, 1, 1, 1)

# Opening weights per resource (lumber, brick, wool, grain, ore): brick and
# lumber build the early roads and settlements, grain and ore the cities.
_OPENING_WEIGHT = (0.85, 0.85, 0.95, 1.15, 1.25)
_MAIN_WEIGHT = (1.0, 1.0, 0.9, 1.05, 1.05)
_DECAY = 0.72  # value kept per road still needed to reach a spot
_MAX_ROAD_DIST = 6
_MAX_OFFERS = 2
MAX_OVERPAY = 1
"""A trade never makes us give more than this many cards beyond those we get:
the heuristic's own sweetened offer is two for one, and it accepts no worse."""
_DEV_VALUE = 0.9
_KNIGHT_BLOCK = 3.0
_DUP_K = 0.15
_ROOM_K = 0.12
_SECOND_K = 0.5
_SECOND_CANDS = 10
_LR_VALUE = 2.0
_CITY_K = 0.055
_SETTLE_K = 0.05
_MEMO_SIZE = 4096
_MAIN = Phase.MAIN.value
_END_TURN = EndTurn()
_BUILD_CITY = tuple(BuildCity(n) for n in range(MAX_NODES))
_BUILD_SETTLEMENT = tuple(BuildSettlement(n) for n in range(MAX_NODES))
_BUILD_ROAD = tuple(BuildRoad(e) for e in range(MAX_EDGES))
"""The actions the plans name, made once."""
_SETUP_ROAD = Phase.SETUP_ROAD.value
_PLAY_TYPES = (("knight", PlayKnight), ("road_building", PlayRoadBuilding),
               ("year_of_plenty", PlayYearOfPlenty), ("monopoly", PlayMonopoly))
"""Development cards and the actions that play them, in the view's order."""


def _vec(x: Sequence[int]) -> Vec:
    return (x[0], x[1], x[2], x[3], x[4])


def _covers(hand: Sequence[int], cost: Sequence[int]) -> bool:
    return (hand[0] >= cost[0] and hand[1] >= cost[1] and hand[2] >= cost[2]
            and hand[3] >= cost[3] and hand[4] >= cost[4])


def _missing(hand: Sequence[int], cost: Sequence[int]) -> list[int]:
    return [c - h if c > h else 0 for h, c in zip(hand, cost, strict=False)]


def _accept_reason(before: Sequence[int], after: Sequence[int], goals: Sequence[_Goal]) -> str:
    """Why a trade from hand ``before`` to ``after`` is taken: ``completes`` when
    it makes one of the best goals' next build affordable, else ``closer``."""
    for g in goals[:3]:
        if _covers(after, g.step) and not _covers(before, g.step):
            return "completes"
    return "closer"


def _add(a: Sequence[int], b: Sequence[int], k: int = 1) -> list[int]:
    return [x + k * y for x, y in zip(a, b, strict=False)]


_Pieces = tuple[int, dict[int, int], dict[int, int], dict[int, int], list[list[float]]]
"""The pieces on the board: their number, owners and levels by node, owners by
edge, production by seat with no hex robbed."""
_NO_PROD = (0.0, 0.0, 0.0, 0.0, 0.0)
"""The production of a seat with no buildings."""
_Board = tuple[dict[int, int], dict[int, int], dict[int, int], list[list[float]], int]
"""Owners and levels by node, owners by edge, production by seat, position number."""
_position_ids = itertools.count()
_next_position = _position_ids.__next__
"""Numbers for positions, shared by every bot's tables (never reused)."""


class _Static:
    """Per-board facts computed once: production and harbor of each node."""

    __slots__ = ("terrain", "numbers", "hex_pips", "node_prod", "node_pips", "node_harbor",
                 "scarcity", "desert", "memo", "goals", "positions", "last", "geo")

    def __init__(self, board: Mapping[str, Any]) -> None:
        terrain: list[int] = list(board["terrain"])
        geo = self.geo = geometry_of(len(terrain))
        """The board's shape (19 hexes, or 30 with 5–6 players)."""
        numbers: list[int] = list(board["numbers"])
        self.terrain = terrain
        self.numbers = numbers
        self.hex_pips = [pips(x) for x in numbers]
        self.desert = terrain.index(DESERT)
        self.node_prod: list[list[float]] = []
        for n in range(geo.num_nodes):
            prod = [0.0] * 5
            for h in geo.node_hexes[n]:
                t = terrain[h]
                if t != DESERT:
                    prod[t] += self.hex_pips[h]
            self.node_prod.append(prod)
        self.node_pips = [sum(p) for p in self.node_prod]
        self.node_harbor = [-1] * geo.num_nodes
        for edge, kind in zip(geo.harbor_edges, board["harbors"], strict=True):
            for n in geo.edge_nodes[edge]:
                self.node_harbor[n] = kind
        totals = [0.0] * 5
        for h, t in enumerate(terrain):
            if t != DESERT:
                totals[t] += self.hex_pips[h]
        mean = sum(totals) / 5.0
        self.scarcity = [min(1.2, max(0.85, (mean / max(1.0, x)) ** 0.25)) for x in totals]
        self.memo: dict[tuple[Any, ...], Any] = {}
        """Results that depend on the position only (pieces and robber), by position."""
        self.goals: dict[tuple[Any, ...], list[_Goal]] = {}
        """The goals of a seat, by the facts they depend on (:meth:`HeuristicBot._goals`)."""
        self.last: tuple[GameState, tuple[int, ...], int, _Pieces, _Board] | None = None
        """The state last read (:meth:`_Ctx.of_state`): its pieces left, its robber,
        the pieces on its board and the board with the robber."""
        self.positions: dict[tuple[Any, ...], int] = {}
        """A small number for each position met (see :meth:`_Ctx.position`)."""

    def position_id(self, key: tuple[Any, ...]) -> int:
        """The number of the position ``key``: the same key, the same number, and
        never one number for two keys (numbers are not reused when the table
        is emptied), so memo keys hash and compare an int, not the whole board."""
        ids = self.positions
        pid = ids.get(key)
        if pid is None:
            if len(ids) >= _MEMO_SIZE:
                ids.clear()
            pid = ids[key] = _next_position()
        return pid

    def remember(self, key: tuple[Any, ...], value: Any) -> None:
        if len(self.memo) >= _MEMO_SIZE:
            self.memo.clear()
        self.memo[key] = value


@dataclass(slots=True)
class _Goal:
    kind: str  # "city", "settlement", "road" (towards a spot), "lr", "dev"
    step: Vec  # cost of the next build towards it
    full: Vec  # cost of the whole goal
    value: float
    node: int = -1
    edge: int = -1


def _production(st: _Static, n: int, owner: Mapping[int, int], level: Mapping[int, int],
                robber: int) -> list[list[float]]:
    """Pips per resource each seat's buildings collect (the robber's hex excluded)."""
    prod = [[0.0] * 5 for _ in range(max(n, 4))]
    terrain = st.terrain
    hex_pips = st.hex_pips
    for node, seat in owner.items():
        if seat >= n:
            continue
        lv = level[node]
        row = prod[seat]
        for h in st.geo.node_hexes[node]:
            t = terrain[h]
            if t != DESERT and h != robber:
                row[t] += hex_pips[h] * lv
    return prod


def _robbed(st: _Static, n: int, free: list[list[float]], owner: Mapping[int, int],
            level: Mapping[int, int], robber: int) -> list[list[float]]:
    """:func:`_production` with the robber on ``robber``, from the production
    ``free`` with no hex robbed (pips are whole numbers: the same floats)."""
    prod = [row[:] for row in free]
    t = st.terrain[robber]
    if t != DESERT:
        p = st.hex_pips[robber]
        for node in st.geo.hex_nodes[robber]:
            seat = owner.get(node, n)
            if seat < n:
                prod[seat][t] -= p * level[node]
    return prod


class _Ctx:
    """What the heuristic reads about one position, for one seat: from the
    seat's view (:meth:`of_view`) or, in a simulation that holds the whole
    state, from the :class:`~protocol.rules.GameState` (:meth:`of_state`).
    Both give the same facts: the view's, nothing hidden from the seat."""

    __slots__ = ("st", "me", "n", "two", "phase", "turn", "hand", "ratios", "target", "robber",
                 "bank", "owner", "level", "edge_owner", "pieces", "rolls", "prod", "my_prod",
                 "vps", "cards", "devs", "knights", "road_lens", "neutral_road_lens", "tokens",
                 "owed", "my_vp", "my_devs", "playable", "lr", "la", "dev_deck", "domestic",
                 "trade", "proposals", "setup_node", "give_back", "_dist", "_parent",
                 "_numbers", "_spots", "_position", "_pieces_id", "_buildings", "_roads",
                 "goals_memo", "rates_memo")

    st: _Static
    me: int
    n: int
    two: bool
    phase: str
    turn: int
    hand: list[int]
    ratios: list[int]
    target: int
    robber: int
    bank: list[int]
    owner: dict[int, int]
    level: dict[int, int]
    edge_owner: dict[int, int]
    pieces: list[int]
    rolls: int
    prod: list[list[float]]
    my_prod: list[float]
    vps: Sequence[int]
    """Public victory points per seat."""
    cards: Sequence[int]
    devs: Sequence[int]
    """Development cards held per seat (a count)."""
    knights: Sequence[int]
    road_lens: Sequence[int]
    neutral_road_lens: Sequence[int]
    tokens: Sequence[int]
    owed: int
    """Cards this seat owes to a discard."""
    my_vp: int
    my_devs: Sequence[int]
    playable: Sequence[str]
    lr: int
    """The Longest Road holder, -1 for none."""
    la: int
    """The Largest Army holder, -1 for none."""
    dev_deck: int
    domestic: bool
    """Domestic trade still open this turn (R-OPT-4 closes it after a build)."""
    trade: Mapping[str, Any] | None
    proposals: Sequence[Sequence[Sequence[int]] | None]
    setup_node: int
    give_back: int
    _dist: dict[int, dict[int, int]]
    _parent: dict[int, dict[int, int]]
    _numbers: dict[int, set[int]]
    _spots: dict[int, tuple[list[float], set[int], dict[int, float]]]
    _position: int | None
    _pieces_id: int | None
    _buildings: Sequence[Sequence[int]]
    _roads: Sequence[Sequence[int]]
    goals_memo: list[_Goal] | None
    rates_memo: list[float] | None

    def _start(self, st: _Static, me: int, n: int) -> None:
        self.st = st
        self.me = me
        self.n = n
        self.two = n == 2
        self.rolls = 4 if self.two else n
        self._dist = {}
        self._parent = {}
        self._numbers = {}
        self._spots = {}
        self.goals_memo = None
        self.rates_memo = None

    @classmethod
    def of_view(cls, view: Mapping[str, Any], st: _Static) -> _Ctx:
        """The facts of a seat's view (:func:`protocol.rules.observe`)."""
        c = cls.__new__(cls)
        me: int = view["seat"]
        n: int = view["players"]
        c._start(st, me, n)
        c.phase = view["phase"]
        c.turn = view["turn"]
        you = view["you"]
        c.hand = list(you["hand"])
        c.ratios = list(you["ratios"])
        c.my_vp = int(you["vp_total"])
        c.my_devs = you["dev_cards"]
        c.playable = you["dev_playable"]
        seats: list[dict[str, Any]] = view["seats"]
        c.vps = [int(x["vp"]) for x in seats]
        c.cards = [int(x["cards"]) for x in seats]
        c.devs = [int(x["dev_cards"]) for x in seats]
        c.knights = [int(x["knights"]) for x in seats]
        c.road_lens = [int(x["road_length"]) for x in seats]
        c.tokens = [int(x.get("tokens", 0)) for x in seats]
        c.owed = int(seats[me]["discard_owed"])
        c.pieces = seats[me]["pieces"]
        c.neutral_road_lens = [int(nt["road_length"]) for nt in view.get("neutrals") or ()]
        c.target = view["vp_target"]
        c.robber = view["robber"]
        c.bank = list(view["bank"])
        lr, la = view["longest_road"], view["largest_army"]
        c.lr = -1 if lr is None else int(lr)
        c.la = -1 if la is None else int(la)
        c.dev_deck = int(view["dev_deck"])
        # No offer past the turn's limit (offer_limit): the engine would refuse it.
        c.domestic = (not (view["built"] and view["settings"].get("strict_phases"))
                      and seats[me].get("offers_made", 0) < MAX_OFFERS)
        c.trade = view["trade"]
        c.proposals = view.get("proposals") or ()
        node = view.get("setup_node")
        c.setup_node = -1 if node is None else int(node)
        c.give_back = int(view.get("give_back") or 0)
        owner: dict[int, int] = {}
        level: dict[int, int] = {}
        buildings = view["buildings"]
        for node, seat, lv in buildings:
            owner[node] = seat
            level[node] = lv
        c.owner = owner
        c.level = level
        c._buildings = buildings
        c._roads = view["roads"]
        c.edge_owner = {e: s for e, s in c._roads}
        c.prod = _production(st, n, owner, level, c.robber)
        c.my_prod = c.prod[me]
        c._position = None
        c._pieces_id = None
        return c

    @classmethod
    def of_state(cls, s: GameState, seat: int, st: _Static, legal: Sequence[Action]) -> _Ctx:
        """The same facts as :meth:`of_view` of ``observe(s, seat)``, read from
        the state (``legal``: the seat's legal actions)."""
        c = cls.__new__(cls)
        n = s.settings.players
        c._start(st, seat, n)
        c.phase = PHASE_NAMES[s.phase]
        c.turn = s.turn
        c.hand = s.hands[seat][:]
        c.ratios = s.ratios[seat][:]
        dev = s.dev_hand[seat]
        c.my_vp = s.vp[seat] + dev[VICTORY_POINT]
        c.my_devs = dev
        playable: list[str] = []
        if any(dev):
            kinds = set(map(type, legal))
            playable = [name for name, play in _PLAY_TYPES if play in kinds]
        c.playable = playable
        c.vps = s.vp
        c.cards = list(map(sum, s.hands))
        c.devs = list(map(sum, s.dev_hand))
        c.knights = s.knights
        c.road_lens = s.road_len
        c.tokens = s.tokens
        c.owed = s.discard_owed[seat]
        c.pieces = s.pieces[seat]
        c.neutral_road_lens = s.road_len[n:]  # one length per owner
        c.target = s.settings.vp_target
        c.robber = s.robber
        c.bank = s.bank[:]
        c.lr = s.lr_holder
        c.la = s.la_holder
        c.dev_deck = sum(s.dev_deck)
        c.domestic = (not (s.built and s.settings.strict_phases)
                      and s.offers_made[seat] < MAX_OFFERS)
        c.trade = None if s.trade is None else s.trade.to_dict()
        props: list[Sequence[Sequence[int]] | None] = []
        if s.proposals:
            props = [None] * n
            for q, terms in s.proposals.items():
                props[q] = terms
        c.proposals = props
        c.setup_node = s.setup_node if s.phase == _SETUP_ROAD else -1
        c.give_back = s.give_back
        # The pieces left tell whether anything was built on this same state
        # object since the last look: a road, a settlement or a city always
        # changes them, for good. The board read from the pieces serves every
        # robber hex; the production and the position number follow the robber.
        pieces = s.pieces
        if len(pieces) == 4:
            p0, p1, p2, p3 = pieces
            sig: tuple[int, ...] = (*p0, *p1, *p2, *p3)
        else:
            sig = tuple(x for q in pieces for x in q)
        robber = s.robber
        last = st.last
        if last is not None and last[0] is s and last[1] == sig:
            board = last[3]
            if last[2] == robber:
                c.owner, c.level, c.edge_owner, c.prod, c._position = last[4]
                c.my_prod = c.prod[seat]
                c._pieces_id = board[0]
                return c
        else:
            bkey = ("pieces", n, tuple(s.node_owner), tuple(s.node_level), tuple(s.edge_owner))
            found: _Pieces | None = st.memo.get(bkey)
            if found is not None:
                board = found
            else:
                owner: dict[int, int] = {}
                level: dict[int, int] = {}
                levels = s.node_level
                for node, o in enumerate(s.node_owner):
                    if o >= 0:
                        owner[node] = o
                        level[node] = levels[node]
                edge_owner = {e: o for e, o in enumerate(s.edge_owner) if o >= 0}
                board = (st.position_id(bkey), owner, level, edge_owner,
                         _production(st, n, owner, level, -1))
                st.remember(bkey, board)
        key = ("at", board[0], robber)
        known: _Board | None = st.memo.get(key)
        if known is None:
            _, owner, level, edge_owner, free = board
            known = (owner, level, edge_owner, _robbed(st, n, free, owner, level, robber),
                     st.position_id(key))
            st.remember(key, known)
        st.last = (s, sig, robber, board, known)
        c.owner, c.level, c.edge_owner, c.prod, c._position = known
        c.my_prod = c.prod[seat]
        c._pieces_id = board[0]
        return c

    def position(self) -> int:
        """The players, the pieces on the board and the robber, as a number (one
        per position, :meth:`_Static.position_id`): what the settlement spots'
        values and the robber's hexes depend on."""
        pid = self._position
        if pid is None:  # as of_state numbers them: the pieces' number and the robber
            pid = self._position = self.st.position_id(("at", self.pieces_id(), self.robber))
        return pid

    def pieces_id(self) -> int:
        """The players and the pieces on the board, as a number: :meth:`position`
        but for the robber (what the roads' distances depend on)."""
        pid = self._pieces_id
        if pid is None:
            pid = self._pieces_id = self.st.position_id((
                "pieces", self.n, *(n * 64 + o * 4 + lv for n, o, lv in self._buildings),
                -1, *(e * 8 + o for e, o in self._roads)))
        return pid

    # -- board queries ----------------------------------------------------------

    def free_spot(self, n: int) -> bool:
        owner = self.owner
        return n not in owner and owner.keys().isdisjoint(self.st.geo.node_nodes[n])

    def vp(self, q: int) -> int:
        if q == self.me:
            return self.my_vp
        return int(self.vps[q])

    def opponents(self) -> list[int]:
        return [q for q in range(self.n) if q != self.me]

    def threat(self, q: int) -> float:
        """How dangerous seat ``q`` is: public VP, hidden cards, production."""
        return float(self.vps[q] + 0.35 * self.devs[q] + 0.04 * sum(self.prod[q]))

    def leader(self) -> int:
        return max(self.opponents(), key=self.threat)

    def network(self, seat: int) -> tuple[set[int], set[int]]:
        """Nodes of ``seat``'s roads and buildings; those a road may leave from."""
        nodes: set[int] = {n for n, o in self.owner.items() if o == seat}
        for e, o in self.edge_owner.items():
            if o == seat:
                nodes.update(self.st.geo.edge_nodes[e])
        expand = {n for n in nodes if self.owner.get(n, seat) == seat}
        return nodes, expand

    def dist(self, seat: int) -> dict[int, int]:
        """Roads ``seat`` needs to reach each node (up to a few), via empty edges."""
        d = self._dist.get(seat)
        if d is not None:
            return d
        key = ("dist", seat, self.pieces_id())
        known: tuple[dict[int, int], dict[int, int]] | None = self.st.memo.get(key)
        if known is not None:
            self._dist[seat], self._parent[seat] = known
            return known[0]
        _, expand = self.network(seat)
        dist = dict.fromkeys(expand, 0)
        parent: dict[int, int] = {}
        queue = deque(expand)
        owner = self.owner
        edge_owner = self.edge_owner
        node_edges, edge_other = self.st.geo.node_edges, self.st.geo.edge_other
        while queue:
            a = queue.popleft()
            da = dist[a]
            if da >= _MAX_ROAD_DIST:
                continue
            if da and owner.get(a, seat) != seat:
                continue  # a road cannot continue through another's building
            for e in node_edges[a]:
                if e in edge_owner:
                    continue
                b = edge_other[e][a]
                if b not in dist:
                    dist[b] = da + 1
                    parent[b] = e
                    queue.append(b)
        self._dist[seat] = dist
        self._parent[seat] = parent
        self.st.remember(key, (dist, parent))
        return dist

    def first_edge(self, seat: int, node: int) -> int:
        """The first road on the shortest path from ``seat``'s network to ``node``."""
        dist = self.dist(seat)
        parent = self._parent[seat]
        edge = -1
        cur = node
        while dist.get(cur, 0) > 0:
            edge = parent[cur]
            cur = self.st.geo.edge_other[edge][cur]
        return edge

    def path_edges(self, seat: int, node: int) -> list[int]:
        dist = self.dist(seat)
        parent = self._parent[seat]
        out: list[int] = []
        cur = node
        while dist.get(cur, 0) > 0:
            e = parent[cur]
            out.append(e)
            cur = self.st.geo.edge_other[e][cur]
        return out

    # -- valuations -------------------------------------------------------------

    def weights(self, seat: int, base: Sequence[float],
                have: Sequence[float] | None = None) -> list[float]:
        """Resource weights for ``seat`` (or for a production ``have``): what it
        lacks counts more."""
        if have is None:
            have = self.prod[seat] if seat < self.n else [0.0] * 5
        sc = self.st.scarcity
        out = []
        for r in range(5):
            w = base[r] * sc[r]
            if have[r] == 0:
                w *= 1.35
            elif have[r] < 4:
                w *= 1.12
            out.append(w)
        return out

    def spot_value(self, n: int, seat: int, w: Sequence[float],
                   have: Sequence[float] | None = None, nums: set[int] | None = None) -> float:
        """How much ``seat`` wants a settlement on ``n`` (``have``/``nums``: assume
        this production and these dice numbers instead of the seat's own)."""
        st = self.st
        prod = st.node_prod[n]
        if have is None:
            have = self.prod[seat] if seat < self.n else [0.0] * 5
        v = 0.0
        kinds = 0
        new = 0
        for got, wr, had in zip(prod, w, have, strict=False):
            if got:
                v += got * wr
                kinds += 1
                if had == 0:
                    new += 1
        if self.robber in self.st.geo.node_hexes[n] and st.terrain[self.robber] != DESERT:
            t = st.terrain[self.robber]
            v -= 0.4 * st.hex_pips[self.robber] * w[t]
        v += 0.6 * kinds + 1.0 * new
        if _DUP_K:
            if nums is None:
                nums = self.numbers_of(seat)
            numbers = st.numbers
            for h in self.st.geo.node_hexes[n]:
                if numbers[h] in nums:
                    v -= _DUP_K * st.hex_pips[h]
        hb = st.node_harbor[n]
        if hb == 5:
            v += 0.9 + 0.04 * sum(have)
        elif hb >= 0:
            v += min(3.0, 0.3 * (have[hb] + prod[hb]))
        return v

    def main_spot(self, n: int, seat: int) -> float:
        """``spot_value(n, seat, weights(seat, _MAIN_WEIGHT))``, remembered by
        what it depends on: ``seat``'s production and dice numbers, and for a
        spot next to the robber, the robber (not remembered)."""
        spots = self._spots.get(seat)
        if spots is None:
            nums = self.numbers_of(seat)
            have = self.prod[seat] if seat < self.n else _NO_PROD
            key = ("spots", seat, *have, *sorted(nums))
            spots = self.st.memo.get(key)
            if spots is None:
                spots = (self.weights(seat, _MAIN_WEIGHT), nums, {})
                self.st.remember(key, spots)
            self._spots[seat] = spots
        w, nums, values = spots
        robber = self.robber
        if robber in self.st.geo.node_hexes[n] and self.st.terrain[robber] != DESERT:
            return self.spot_value(n, seat, w, None, nums)
        v = values.get(n)
        if v is None:
            v = values[n] = self.spot_value(n, seat, w, None, nums)
        return v

    def numbers_of(self, seat: int) -> set[int]:
        """The dice numbers ``seat``'s buildings already collect on."""
        got = self._numbers.get(seat)
        if got is None:
            got = set()
            for node, o in self.owner.items():
                if o == seat:
                    for h in self.st.geo.node_hexes[node]:
                        if self.st.numbers[h]:
                            got.add(self.st.numbers[h])
            self._numbers[seat] = got
        return got

    def best_settlement_node(self) -> int:
        best, best_v = -1, -1.0
        for node, o in self.owner.items():
            if o == self.me and self.level[node] == 1:
                v = self.st.node_pips[node] + 0.1 * node
                if self.robber in self.st.geo.node_hexes[node]:
                    v -= 0.5 * self.st.hex_pips[self.robber]
                if v > best_v:
                    best, best_v = node, v
        return best

    def rates(self) -> list[float]:
        """Expected cards of each resource per own turn (production, plus a little)."""
        rates = self.rates_memo
        if rates is None:
            k = self.rolls / 36.0
            rates = self.rates_memo = [self.my_prod[r] * k + 0.12 for r in range(5)]
        return rates

    def eta(self, hand: Sequence[int], cost: Sequence[int], rates: Sequence[float]) -> float:
        """Rough number of own turns until ``cost`` is affordable: each missing
        card takes 1/rate turns, the slowest first, and the first ones come
        by trading the spare cards (0.35 turns each)."""
        units: list[float] = []
        spare = 0
        for have, c, ratio, rate in zip(hand, cost, self.ratios, rates, strict=False):
            extra = have - c
            if extra < 0:
                if extra == -1:
                    units.append(1.0 / rate)
                else:
                    units.extend([1.0 / rate] * -extra)
            elif extra > 0:
                spare += extra // (ratio if ratio > 2 else 2)
        if not units:
            return 0.0
        if len(units) == 1:
            return 0.35 if spare else units[0]
        units.sort(reverse=True)
        total = 0.0
        for i, u in enumerate(units):
            total += 0.35 if i < spare else u
        return total


def _longest_trail(edges: set[int], blocked: set[int], geo: Geometry) -> int:
    """Longest trail (no edge twice) over ``edges``; a trail stops at ``blocked``."""
    if not edges:
        return 0
    adj: dict[int, list[tuple[int, int]]] = {}
    for e in edges:
        a, b = geo.edge_nodes[e]
        adj.setdefault(a, []).append((e, b))
        adj.setdefault(b, []).append((e, a))
    best = 0
    used: set[int] = set()

    def walk(node: int, length: int) -> None:
        nonlocal best
        if length > best:
            best = length
        if length and node in blocked:
            return
        for e, nxt in adj[node]:
            if e not in used:
                used.add(e)
                walk(nxt, length + 1)
                used.discard(e)

    # Starting only at ends and branch points is enough, but small graphs are cheap.
    starts = [n for n, lst in adj.items() if len(lst) != 2 or n in blocked] or list(adj)
    for s in starts:
        walk(s, 0)
    return best


class HeuristicBot(Bot):
    """Rule-based bot for every phase, 2–6 players and the sea3D options."""

    name = "heuristic"
    raise_errors = False
    max_proposals = 1
    """Proposals to the current player per turn (the engine allows three)."""
    likely = 0.5
    """Ask the current player for a card only if it holds at least this many of
    it, by the estimate from public events."""
    offers = True
    """Opens domestic trades: offers, proposals, counter-offers. A stand-in
    playing a missing person's seat does not (it answers and plays only)."""
    ask_players_at = 3
    """Offer a trade to the players before the bank when the bank's rate for
    it is at least this (the bank's 2:1 and 3:1 harbors come first)."""
    """Tests set this to see internal errors instead of the safe fallback."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._reseed: int | None = None  # seed the RNG with this before its next use
        self._static: _Static | None = None
        self._static_key: tuple[int, ...] = ()
        self._static_info: object | None = None  # the state's board tables _static is of
        self._est: dict[int, list[float]] = {}
        self._turn = -1
        self._offers = 0
        self._offers_to_people = 0  # offers this turn that people had to answer
        self._offered: set[tuple[Vec, Vec]] = set()
        self._got: set[int] = set()  # resources received by maritime trade this turn
        self._gave: set[int] = set()
        self._overpaid = 0  # cards given beyond those received in proposals this turn
        self._p_turn = -1
        self._p_last: tuple[int, tuple[int, ...]] | None = None
        self._p_count = 0
        self._p_terms: set[tuple[Vec, Vec]] = set()

    # -- interface ----------------------------------------------------------------

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        self.reason = None
        if len(legal) == 1 and view["phase"] != "main":
            return legal[0]
        try:
            action = self._decide(_Ctx.of_view(view, self._static_for(view)), legal)
        except Exception:  # never crash a game: fall back to a safe legal move
            if self.raise_errors:
                raise
            action = None
        return self._checked(action, legal)

    def act_state(self, s: GameState, seat: int, legal: Sequence[Action]) -> Action:
        """:meth:`act` for a simulation that holds the game state: the same
        decision as ``act(observe(s, seat), legal)``, read from ``s`` without
        building the view (the bot reads nothing the view does not hold).
        A lone legal action is taken at once, in the main phase too (where it
        is ending the turn: :meth:`_main` takes it before any offer). Between
        calls on one state object, the state changes only through the engine
        (:func:`protocol.rules.apply`, :func:`protocol.rules.fast.step`): the
        bot keeps what it read of the board until a piece is placed or the
        robber moves."""
        if len(legal) == 1:
            return legal[0]
        try:
            action = self._decide(_Ctx.of_state(s, seat, self._static_of(s), legal), legal)
        except Exception:
            if self.raise_errors:
                raise
            action = None
        return self._checked(action, legal)

    def _checked(self, action: Action | None, legal: Sequence[Action]) -> Action:
        if action is None:
            return self._fallback(legal)
        for a in legal:  # most choices are one of the listed objects: no comparisons
            if a is action:
                return action
        if isinstance(action, OfferTrade | CounterOffer) or action in legal:
            return action
        return self._fallback(legal)

    def act_early(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action | None:
        """As the offerer, take the first acceptable answer at once (a confirm
        the heuristic would choose if everyone had answered); else wait."""
        if view.get("phase") != "trade" or not any(isinstance(a, ConfirmTrade) for a in legal):
            return None
        try:
            action = self._trade(_Ctx.of_view(view, self._static_for(view)), legal)
        except Exception:
            if self.raise_errors:
                raise
            return None
        return action if isinstance(action, ConfirmTrade) and action in legal else None

    def on_events(self, seat: int, events: Sequence[Event]) -> None:
        for e in events:
            self._track(e)

    def propose(self, view: Mapping[str, Any]) -> Action | None:
        if not self.offers:
            return None
        try:
            return self._propose(view)
        except Exception:  # never crash a game: a bot that fails simply does not propose
            if self.raise_errors:
                raise
            return None

    def reseed(self, seed: int) -> None:
        """Restart the bot's random tie-breaks from ``seed`` and forget the turn
        (as a fresh bot of that seed would play on): what a simulation does to
        a pooled bot. The RNG is seeded when first used."""
        self._reseed = seed
        self._turn = -1

    def _jitter(self) -> float:
        """A random tie-break, below 0.01."""
        return self._draws()() * 0.01

    def _draws(self) -> Callable[[], float]:
        """The bot's uniform draws in [0, 1) (a tie-break is one times 0.01),
        seeded first if :meth:`reseed` asked for it."""
        if self._reseed is not None:
            self._rng.seed(self._reseed)
            self._reseed = None
        return self._rng.random

    def on_game_over(self, view: Mapping[str, Any]) -> None:
        self._est = {}
        self._turn = -1
        self._static = None

    # -- dispatch -------------------------------------------------------------------

    def _fallback(self, legal: Sequence[Action]) -> Action:
        for a in legal:
            if isinstance(a, EndTurn | RollDice | RejectTrade | CancelTrade):
                return a
        return legal[0]

    def _static_for(self, view: Mapping[str, Any]) -> _Static:
        board = view["board"]
        key = tuple(board["terrain"]) + tuple(board["numbers"]) + tuple(board["harbors"])
        if self._static is None or key != self._static_key:
            self._static = _Static(board)
            self._static_key = key
            self._est = {}
        self._static_info = None
        return self._static

    def _static_of(self, s: GameState) -> _Static:
        """:meth:`_static_for` of the state's board (states copied from one
        game share their board tables)."""
        if self._static is not None and s.info is self._static_info:
            return self._static
        st = self._static_for({"board": s.board.to_dict()})
        self._static_info = s.info
        return st

    def _decide(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        turn = ctx.turn
        if turn != self._turn:
            self._turn = turn
            self._offers = 0
            self._offers_to_people = 0
            self._offered.clear()
            self._got.clear()
            self._gave.clear()
            self._overpaid = 0
        phase = ctx.phase
        if phase == "main":
            return self._main(ctx, legal)
        if phase == "special_build":
            # R-56-8: build what the plan can pay for now (a spot taken early
            # is not taken by another, cards built are not robbed), with no
            # trade and no card: the main phase's plan with trading closed.
            ctx.domestic = False
            return self._main(ctx, legal)
        if phase == "pre_roll":
            return self._pre_roll(ctx, legal)
        if phase == "setup_settlement":
            return self._setup_settlement(ctx, legal)
        if phase in ("setup_road", "road_building"):
            return self._pick_road(ctx, legal, setup=phase == "setup_road")
        if phase == "discard":
            return self._discard(ctx, legal, ctx.owed, False)
        if phase == "give_back":
            return self._discard(ctx, legal, ctx.give_back, True)
        if phase == "move_robber":
            return self._move_robber(ctx, legal)
        if phase == "steal":
            return self._steal(ctx, legal)
        if phase == "trade":
            return self._trade(ctx, legal)
        if phase in ("neutral_road", "neutral_settlement"):
            return self._neutral(ctx, legal)
        return None

    # -- set-up -----------------------------------------------------------------------

    def _setup_settlement(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        w = ctx.weights(ctx.me, _OPENING_WEIGHT)
        second = any(o == ctx.me for o in ctx.owner.values())
        best: Action | None = None
        best_v = -1e9
        for a in legal:
            if not isinstance(a, BuildSettlement):
                continue
            v = ctx.spot_value(a.node, ctx.me, w)
            # room to grow: free spots two steps away
            room = 0.0
            for m in ctx.st.geo.node_nodes[a.node]:
                for k in ctx.st.geo.node_nodes[m]:
                    if k != a.node and ctx.free_spot(k):
                        room = max(room, ctx.st.node_pips[k])
            v += _ROOM_K * room
            if second:
                # starting cards: one per land hex; brick+lumber get a road out early
                prod = ctx.st.node_prod[a.node]
                if prod[0] and prod[1]:
                    v += 0.6
            if ctx.two:
                if ctx.st.desert in ctx.st.geo.node_hexes[a.node]:
                    v += 0.5
                if len(ctx.st.geo.node_hexes[a.node]) < 3:
                    v += 0.3
            if v > best_v:
                best, best_v = a, v
        if not second and _SECOND_K and best is not None:
            best = self._first_with_second(ctx, legal, w) or best
        return best

    def _first_with_second(self, ctx: _Ctx, legal: Sequence[Action],
                           w: list[float]) -> Action | None:
        """First settlement: its own value plus the best complement likely to be
        left for the second one after the others' picks in between (snake order)."""
        spots = [a.node for a in legal if isinstance(a, BuildSettlement)]
        placed = sum(1 for o in ctx.owner.values() if o < ctx.n)
        between = max(0, 2 * (ctx.n - 1 - placed))
        own = {n: ctx.spot_value(n, ctx.me, w) for n in spots}
        generic = sorted(spots, key=lambda n: -ctx.st.node_pips[n])
        cands = sorted(spots, key=lambda n: -own[n])[:_SECOND_CANDS]
        numbers = ctx.st.numbers
        best: Action | None = None
        best_v = -1e9
        for a in cands:
            blocked = {a, *ctx.st.geo.node_nodes[a]}
            taken = 0
            for n in generic:  # the others take the richest spots first
                if taken >= between:
                    break
                if n in blocked:
                    continue
                blocked.add(n)
                blocked.update(ctx.st.geo.node_nodes[n])
                taken += 1
            have = ctx.st.node_prod[a]
            nums = {numbers[h] for h in ctx.st.geo.node_hexes[a] if numbers[h]}
            w2 = ctx.weights(ctx.me, _OPENING_WEIGHT, have)
            second = max((ctx.spot_value(n, ctx.me, w2, have, nums)
                          for n in spots if n not in blocked), default=0.0)
            v = own[a] + _SECOND_K * second
            if v > best_v:
                best, best_v = BuildSettlement(a), v
        return best

    def _pick_road(self, ctx: _Ctx, legal: Sequence[Action], setup: bool) -> Action | None:
        roads = [a for a in legal if isinstance(a, BuildRoad)]
        if not roads:
            return None
        if setup:
            node = ctx.setup_node
            w = ctx.weights(ctx.me, _MAIN_WEIGHT)
            best, best_v = roads[0], -1e9
            for a in roads:
                n1 = ctx.st.geo.edge_other[a.edge][node]
                v = 0.0
                for m in ctx.st.geo.node_nodes[n1]:
                    if m == node:
                        continue
                    if ctx.free_spot(m):
                        v = max(v, ctx.spot_value(m, ctx.me, w))
                    for k in ctx.st.geo.node_nodes[m]:
                        if k not in (n1, node) and ctx.free_spot(k):
                            v = max(v, 0.6 * ctx.spot_value(k, ctx.me, w))
                # don't point at an opponent's road end
                for e in ctx.st.geo.node_edges[n1]:
                    if ctx.edge_owner.get(e, ctx.me) != ctx.me:
                        v -= 1.0
                v += self._jitter()
                if v > best_v:
                    best, best_v = a, v
            return best
        edge = self._road_edge(ctx, {a.edge for a in roads})
        if edge >= 0:
            return BuildRoad(edge)
        return roads[0]

    # -- roads --------------------------------------------------------------------------

    def _targets(self, ctx: _Ctx) -> list[tuple[float, int, int]]:
        """(score, node, roads needed) of free spots reachable by ``ctx.me``
        (a function of the position: remembered per position)."""
        key = ("targets", ctx.me, ctx.position())
        known: list[tuple[float, int, int]] | None = ctx.st.memo.get(key)
        if known is not None:
            return known
        me = ctx.me
        dist = ctx.dist(me)
        out = []
        opp_ends: set[int] = set()
        for e, o in ctx.edge_owner.items():
            if o != me:
                opp_ends.update(ctx.st.geo.edge_nodes[e])
        spot = ctx.main_spot
        owner = ctx.owner
        taken = owner.keys()
        for node, d in dist.items():
            if node not in owner and taken.isdisjoint(ctx.st.geo.node_nodes[node]):  # ctx.free_spot
                v = spot(node, me)
                if d and node in opp_ends:
                    v *= 0.6  # an opponent can settle there first
                out.append((v * _DECAY ** d, node, d))
        out.sort(reverse=True)
        ctx.st.remember(key, out)
        return out

    def _lr_state(self, ctx: _Ctx) -> tuple[int, int, bool]:
        """(my length, best other length, do I hold Longest Road)."""
        mine = int(ctx.road_lens[ctx.me])
        others = [int(ctx.road_lens[q]) for q in ctx.opponents()]
        others += list(ctx.neutral_road_lens)
        return mine, max(others, default=0), ctx.lr == ctx.me

    def _lr_gap(self, ctx: _Ctx) -> int:
        mine, other, hold = self._lr_state(ctx)
        if hold:
            return 99 if other < mine - 1 else max(1, other + 1 - mine)
        return max(5, other + 1) - mine

    def _road_edge(self, ctx: _Ctx, options: set[int]) -> int:
        """The best road among ``options``: towards the best spot, else Longest Road."""
        if ctx.pieces[1] > 0:
            for _score, node, d in self._targets(ctx)[:4]:
                if d >= 1:
                    e = ctx.first_edge(ctx.me, node)
                    if e in options:
                        return e
        e = self._lr_edge(ctx, options)
        if e >= 0:
            return e
        # anything that brings some spot closer, else any
        dist = ctx.dist(ctx.me)
        best, best_v = -1, -1e9
        for e in options:
            v = 0.0
            for n in ctx.st.geo.edge_nodes[e]:
                if dist.get(n, 9) > 0:
                    for m in ctx.st.geo.node_nodes[n]:
                        if ctx.free_spot(m):
                            v = max(v, ctx.st.node_pips[m])
            v += self._jitter()
            if v > best_v:
                best, best_v = e, v
        return best

    def _lr_edge(self, ctx: _Ctx, options: set[int]) -> int:
        """The road among ``options`` that lengthens our longest road most (-1:
        none does); remembered by position and options."""
        key = ("lr_edge", ctx.pieces_id(), ctx.me, tuple(sorted(options)))
        known: int | None = ctx.st.memo.get(key)
        if known is None:
            known = self._longest_edge(ctx, options)
            ctx.st.remember(key, known)
        return known

    def _longest_edge(self, ctx: _Ctx, options: set[int]) -> int:
        mine = {e for e, o in ctx.edge_owner.items() if o == ctx.me}
        blocked = {n for n, o in ctx.owner.items() if o != ctx.me}
        base = _longest_trail(mine, blocked, ctx.st.geo)
        best, best_len = -1, base
        for e in sorted(options):
            ln = _longest_trail(mine | {e}, blocked, ctx.st.geo)
            if ln > best_len:
                best, best_len = e, ln
        return best

    # -- planning ----------------------------------------------------------------------

    def _goals(self, ctx: _Ctx) -> list[_Goal]:
        """The candidate builds, best first (see the module docstring). A
        function of the facts in the key below: remembered per ctx and across
        decisions (rollouts from one position meet the same hands again)."""
        goals = ctx.goals_memo
        if goals is not None:
            return goals
        me = ctx.me
        # One flat tuple (the position's number fixes the players, so every
        # part has a fixed length): the hand is key[2:7].
        key = (ctx.position(), me, *ctx.hand, *ctx.ratios, *ctx.pieces,
               ctx.my_vp, ctx.target, ctx.lr, *ctx.road_lens, *ctx.neutral_road_lens,
               ctx.dev_deck > 0, ctx.la, *ctx.knights, ctx.my_devs[0])
        memo = ctx.st.goals
        goals = memo.get(key)
        if goals is None:
            if len(memo) >= _MEMO_SIZE:
                memo.clear()
            # The goals themselves do not depend on the hand, only their order:
            # one plan per position serves every hand met there.
            plan_key = ("plan", *key[:2], *key[7:])
            plan: list[_Goal] | None = ctx.st.memo.get(plan_key)
            if plan is None:
                plan = self._plan(ctx)
                ctx.st.remember(plan_key, plan)
            goals = memo[key] = self._scored(ctx, plan)
        ctx.goals_memo = goals
        return goals

    def _scored(self, ctx: _Ctx, plan: Sequence[_Goal]) -> list[_Goal]:
        """``plan``'s goals scored for the hand (value over turns to afford), best first."""
        hand = ctx.hand
        rates = ctx.rates()
        eta = ctx.eta
        scores = [-(g.value / (1.0 + eta(hand, g.full, rates))) for g in plan]
        return [plan[i] for i in sorted(range(len(plan)), key=scores.__getitem__)]

    def _plan(self, ctx: _Ctx) -> list[_Goal]:
        """The candidate builds, unscored (a function of the position, not the hand)."""
        goals: list[_Goal] = []
        pieces = ctx.pieces
        vp = ctx.vp(ctx.me)
        late = vp >= ctx.target - 3
        if pieces[2] > 0:
            node = ctx.best_settlement_node()
            if node >= 0:
                v = 1.0 + _CITY_K * ctx.st.node_pips[node] * (0.6 if late else 1.0)
                goals.append(_Goal("city", CITY, CITY, v, node=node))
        if pieces[1] > 0:
            targets = self._targets(ctx)
            now = [t for t in targets if t[2] == 0]
            if now:
                _s, node, _d = now[0]
                v = 1.0 + _SETTLE_K * _s * (0.6 if late else 1.0)
                goals.append(_Goal("settlement", SETTLEMENT, SETTLEMENT, v, node=node))
            if pieces[0] > 0:
                for s, node, d in targets[:3]:
                    if d >= 1 and d <= pieces[0]:
                        full = _vec(_add(SETTLEMENT, ROAD, d))
                        v = (1.0 + _SETTLE_K * s * (0.6 if late else 1.0)) * 0.93 ** d
                        goals.append(_Goal("road", ROAD, full, v, node=node,
                                           edge=ctx.first_edge(ctx.me, node)))
                        break
        if pieces[0] > 0:
            gap = self._lr_gap(ctx)
            stuck = not goals and ctx.dev_deck == 0  # nothing else left to do
            if (gap <= 2 or stuck) and gap <= pieces[0]:
                full = _vec([x * gap for x in ROAD])
                v = _LR_VALUE if ctx.lr != ctx.me else 0.6 * _LR_VALUE
                v *= 0.8 ** (gap - 1)
                if vp + 2 >= ctx.target:
                    v += 1.0
                goals.append(_Goal("lr", ROAD, full, v))
        if ctx.dev_deck > 0:
            v = _DEV_VALUE
            knights = [int(ctx.knights[q]) for q in range(ctx.n)]
            mine = knights[ctx.me] + int(ctx.my_devs[0])
            top = max((knights[q] for q in ctx.opponents()), default=0)
            if ctx.la != ctx.me and mine + 2 >= max(3, top + 1):
                v += 0.25
            if not any(g.kind in ("city", "settlement", "road") for g in goals):
                v += 0.4
            goals.append(_Goal("dev", DEV, DEV, v))
        return goals

    def _need(self, goals: Sequence[_Goal], depth: int = 2) -> list[int]:
        """Cards worth keeping: the costs of the best goals (per resource, max)."""
        need = [0] * 5
        for g in goals[:depth]:
            for r in range(5):
                need[r] = max(need[r], g.full[r])
        return need

    # -- main phase --------------------------------------------------------------------

    def _main(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        legal_set = set(legal)
        end = _END_TURN
        if len(legal) == 1:
            return legal[0]
        vp = ctx.vp(ctx.me)
        # A build that wins now.
        for a in legal:
            if isinstance(a, BuildCity | BuildSettlement) and vp + 1 >= ctx.target:
                return a
        # R-OPT-4: strict phases close domestic trade after a build; maritime stays.
        domestic = ctx.domestic

        dev = self._play_dev(ctx, legal, main=True)
        if dev is not None:
            return dev

        goals = self._goals(ctx)
        answer = self._answer_proposals(ctx, goals, legal_set, domestic)
        if answer is not None:
            return answer
        if ctx.two:
            tok = self._tokens(ctx, legal_set, goals)
            if tok is not None:
                return tok

        hand = ctx.hand
        remaining = list(hand)
        planned: list[_Goal] = []
        unmet: _Goal | None = None  # the best goal the hand cannot pay for yet
        big_hand = sum(hand) >= 8
        kinds = set(map(type, legal))
        for g in goals:
            if not _covers(remaining, g.step):
                if unmet is None:
                    unmet = g
                continue
            if self._goal_action(ctx, g, legal_set, kinds) is not None:
                vp_build = g.kind in ("city", "settlement")
                harmless = unmet is None or all(
                    g.step[r] <= max(0, remaining[r] - unmet.full[r]) for r in range(5))
                if vp_build or harmless or big_hand:
                    planned.append(g)
                    remaining = _add(remaining, g.step, -1)

        # Trades come before builds (strict phases close trading after a build):
        # they only use what the planned builds leave over.
        if unmet is not None:
            trade = self._trade_for(ctx, remaining, unmet, goals, legal_set, domestic,
                                    MaritimeTrade in kinds)
            if trade is not None:
                return trade
        if planned:
            action = self._goal_action(ctx, planned[0], legal_set, kinds)
            if action is not None:
                return action
        # Nothing to build: thin a big hand before a 7 can halve it.
        if sum(hand) >= 8 and goals:
            trade = self._dump_trade(ctx, goals, legal_set)
            if trade is not None:
                return trade
        return end if end in legal_set else self._fallback(legal)

    def _goal_action(self, ctx: _Ctx, g: _Goal, legal_set: set[Action],
                     kinds: Collection[type] | None = None) -> Action | None:
        """The action that builds towards ``g`` now, if it is legal (``kinds``:
        the classes in ``legal_set``, to skip looking for what is not there)."""
        if g.kind == "city":
            a: Action = _BUILD_CITY[g.node]  # a city goal always names a node
            if a in legal_set:
                return a
            if kinds is not None and BuildCity not in kinds:
                return None
            cities = [x for x in legal_set if isinstance(x, BuildCity)]
            if cities:
                return max(cities, key=lambda x: ctx.st.node_pips[x.node])
            return None
        if g.kind == "settlement":
            a = _BUILD_SETTLEMENT[g.node]
            return a if a in legal_set else None
        if g.kind == "road":
            if g.edge < 0:
                return None
            a = _BUILD_ROAD[g.edge]
            return a if a in legal_set else None
        if g.kind == "lr":
            if kinds is not None and BuildRoad not in kinds:
                return None
            options = {x.edge for x in legal_set if isinstance(x, BuildRoad)}
            if not options:
                return None
            e = self._lr_edge(ctx, options)
            return BuildRoad(e) if e >= 0 else None
        if g.kind == "dev":
            a = BuyDevCard()
            return a if a in legal_set else None
        return None

    # -- trading --------------------------------------------------------------------------

    def _trade_for(self, ctx: _Ctx, remaining: list[int], goal: _Goal, goals: Sequence[_Goal],
                   legal_set: set[Action], domestic: bool, maritime: bool) -> Action | None:
        """A trade (domestic offer or maritime) that helps complete ``goal`` now
        (``maritime``: a maritime trade is among ``legal_set``)."""
        miss = _missing(remaining, goal.step)
        if sum(miss) == 0:
            return None
        if not (domestic and self.offers) and not maritime:
            return None  # no one to ask, and the bank takes nothing now
        protect = goal.step
        surplus = [h - p if h > p else 0 for h, p in zip(remaining, protect, strict=False)]
        # Maritime plan: can the bank complete the step this turn?
        plan = self._maritime_plan(ctx, surplus[:], miss)
        if domestic and self.offers and (plan is None
                                         or ctx.ratios[plan[0]] >= self.ask_players_at):
            # Ask the players first when the bank is expensive (or cannot help).
            offer = self._offer(ctx, goal, goals, surplus, miss)
            if offer is not None:
                return offer
        if plan is not None:
            give, get = plan
            a = MaritimeTrade(give, get)
            if a in legal_set:
                self._gave.add(give)
                self._got.add(get)
                return a
        return None

    def _maritime_plan(self, ctx: _Ctx, surplus: list[int],
                       miss: Sequence[int]) -> tuple[int, int] | None:
        """The first maritime trade of a plan that gets the ``miss`` cards from
        the bank for cards of ``surplus`` (which it uses up), if there is one."""
        bank = list(ctx.bank)
        first: tuple[int, int] | None = None
        prod = ctx.my_prod
        sc = ctx.st.scarcity
        for get in range(5):
            for _ in range(miss[get]):
                if bank[get] <= 0 or get in self._gave:
                    return None
                best, best_v = -1, -1e9
                for give in range(5):
                    if give == get or give in self._got:
                        continue
                    ratio = ctx.ratios[give]
                    if surplus[give] < ratio:
                        continue
                    # give what is cheap: low ratio, plenty left, abundant, not scarce
                    v = -3.0 * ratio + surplus[give] + 0.1 * prod[give] - 2.0 * sc[give]
                    if v > best_v:
                        best, best_v = give, v
                if best < 0:
                    return None
                surplus[best] -= ctx.ratios[best]
                bank[get] -= 1
                if first is None:
                    first = (best, get)
        return first

    def _dump_trade(self, ctx: _Ctx, goals: Sequence[_Goal],
                    legal_set: set[Action]) -> Action | None:
        """With 8+ cards and nothing to build, turn a surplus into a missing card."""
        g = goals[0]
        miss = _missing(ctx.hand, g.full)
        need = self._need(goals)
        best: MaritimeTrade | None = None
        best_v = 0.0
        for a in legal_set:
            if not isinstance(a, MaritimeTrade):
                continue
            if not miss[a.get] or a.give in self._got or a.get in self._gave:
                continue
            extra = ctx.hand[a.give] - need[a.give]
            if extra < ctx.ratios[a.give]:
                continue
            v = extra - ctx.ratios[a.give] + 1.0
            if v > best_v:
                best, best_v = a, v
        if best is not None:
            self._gave.add(best.give)
            self._got.add(best.get)
        return best

    def _offer(self, ctx: _Ctx, goal: _Goal, goals: Sequence[_Goal], surplus: Sequence[int],
               miss: Sequence[int]) -> Action | None:
        """A domestic offer from our own surplus for a missing card (at most two a turn)."""
        if self._offers >= _MAX_OFFERS or sum(miss) > 2:
            return None
        opponents = ctx.opponents()
        if not any(ctx.cards[q] > 0 and ctx.vps[q] < ctx.target - 2
                   for q in opponents):
            return None
        terms = self._offer_terms(goal, goals, surplus, miss)
        if terms is None:
            return None
        spare, gets, gives = terms
        # ask for the missing card we produce least; offer the card we have most of
        want = min(gets, key=lambda r: (ctx.my_prod[r], r))
        give_r = max(gives, key=lambda r: (spare[r], -ctx.st.scarcity[r], r))
        get_v = [0] * 5
        get_v[want] = 1
        give_v = [0] * 5
        give_v[give_r] = 1
        if self._offers >= 1 or (_vec(give_v), _vec(get_v)) in self._offered:
            # second try: sweeten with another spare card
            extra = [r for r in gives if spare[r] - give_v[r] > 0]
            if not extra:
                return None
            r2 = max(extra, key=lambda r: (spare[r] - give_v[r], r))
            give_v[r2] += 1
        key = (_vec(give_v), _vec(get_v))
        if key in self._offered or not _covers(ctx.hand, give_v):
            return None
        to = self._address(ctx, want)
        if to == -1:
            return None
        self._offered.add(key)
        self._offers += 1
        return OfferTrade(key[0], key[1], to)

    def _address(self, ctx: _Ctx, want: int) -> int | None:
        """To whom an offer for ``want`` goes: everyone (None) when no person
        plays; with people at the table, the bot most likely to hold ``want``,
        or everyone once a turn when only people could answer; -1: no offer."""
        people = self.humans & set(ctx.opponents())
        if not people:
            return None
        bots = [q for q in ctx.opponents() if q not in people and ctx.cards[q] > 0
                and ctx.vps[q] < ctx.target - 2]
        if bots:
            return max(bots, key=lambda q: (self._estimate(ctx, q)[want], -q))
        if self._offers_to_people >= 1:
            return -1
        self._offers_to_people += 1
        return None

    def _offer_terms(self, goal: _Goal, goals: Sequence[_Goal], surplus: Sequence[int],
                     miss: Sequence[int]) -> tuple[list[int], list[int], list[int]] | None:
        """What an offer may give and ask for: the spare cards per resource (what
        the next goals do not need), the missing resources, and the resources
        we could give; None when there is nothing to ask for or to give."""
        need = self._need(goals)
        spare = [max(0, surplus[r] - max(0, need[r] - goal.step[r])) for r in range(5)]
        if not any(spare):
            spare = list(surplus)
        gets = [r for r in range(5) if miss[r]]
        gives = [r for r in range(5) if spare[r] > 0 and r not in gets]
        if not gets or not gives:
            return None
        return spare, gets, gives

    def _hand_value(self, ctx: _Ctx, hand: Sequence[int], goals: Sequence[_Goal]) -> float:
        rates = ctx.rates()
        best = 0.0
        for g in goals[:3]:
            best = max(best, g.value / (1.0 + ctx.eta(hand, g.full, rates)))
        total = sum(hand)
        return best + 0.01 * min(total, 7) - (0.03 * (total - 7) if total > 7 else 0.0)

    def _trade(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        t = ctx.trade
        if t is None:
            return None
        goals = self._goals(ctx)
        before = self._hand_value(ctx, ctx.hand, goals)
        if t["offerer"] == ctx.me:
            best: Action = CancelTrade()
            best_v = before + 1e-6
            for a in legal:
                if not isinstance(a, ConfirmTrade):
                    continue
                q = a.seat
                if ctx.vps[q] >= ctx.target - 2:
                    continue
                if t["status"][q] == 3:
                    c = t["counters"][q]
                    gets, gives = c[0], c[1]
                else:
                    gives, gets = t["give"], t["get"]
                if sum(gives) - sum(gets) > MAX_OVERPAY:
                    continue  # a counter-offer asking too much
                after = [ctx.hand[r] - gives[r] + gets[r] for r in range(5)]
                v = self._hand_value(ctx, after, goals) - 0.001 * ctx.threat(q)
                if v > best_v:
                    best, best_v = a, v
            return best if best in legal else self._fallback(legal)
        # we are asked
        accept = AcceptTrade()
        offerer = int(t["offerer"])
        gives, gets = list(t["get"]), list(t["give"])  # from our side
        if accept not in legal:
            self.reason = "keeps"
            return RejectTrade()
        if ctx.vps[offerer] >= ctx.target - 2:
            self.reason = "leader"
            return RejectTrade()
        if sum(gives) - sum(gets) > MAX_OVERPAY:
            self.reason = "too_much"
            return RejectTrade()
        after = [ctx.hand[r] - gives[r] + gets[r] for r in range(5)]
        if self._hand_value(ctx, after, goals) > before + self._accept_margin(ctx, offerer):
            self.reason = _accept_reason(ctx.hand, after, goals)
            return accept
        self.reason = self._refuse_reason(ctx, gives, goals)
        return RejectTrade()

    def _refuse_reason(self, ctx: _Ctx, gives: Sequence[int], goals: Sequence[_Goal]) -> str:
        """Why a trade that gives ``gives`` is not worth it: ``keeps`` when our
        next goals need a card of them, else ``no_use``."""
        need = self._need(goals)
        keeps = any(gives[r] and ctx.hand[r] - gives[r] < need[r] for r in range(5))
        return "keeps" if keeps else "no_use"

    # -- proposals (R-TRADE-2) ------------------------------------------------------

    def _propose(self, view: Mapping[str, Any]) -> Action | None:
        """A proposal to the current player, or None (see the module docstring)."""
        you = view.get("you")
        if you is None or not you.get("may_propose"):
            return None
        turn = int(view["turn"])
        if turn != self._p_turn:
            self._p_turn = turn
            self._p_count = 0
            self._p_terms.clear()
        if self._p_count >= self.max_proposals:
            return None
        cur = int(view["current"])
        other = view["seats"][cur]
        if other["vp"] >= view["vp_target"] - 2 or not other["cards"]:
            return None  # never help a seat about to win; nothing to get from an empty hand
        hand = list(you["hand"])
        if not any(sum(_missing(hand, cost)) == 1 for cost in (CITY, SETTLEMENT, DEV)):
            return None  # a real need: one card short of a city, settlement or card
        asked = (turn, tuple(hand))
        if asked == self._p_last:
            return None  # nothing changed since we last looked this turn
        self._p_last = asked
        ctx = _Ctx.of_view(view, self._static_for(view))
        goals = self._goals(ctx)
        for goal in goals[:2]:
            miss = _missing(hand, goal.step)
            if goal.kind in ("city", "settlement", "dev") and sum(miss) == 1:
                break
        else:
            return None
        surplus = [max(0, hand[r] - goal.step[r]) for r in range(5)]
        terms = self._offer_terms(goal, goals, surplus, miss)
        if terms is None:
            return None
        spare, gets, gives = terms
        est = self._estimate(ctx, cur)
        wants = sorted((r for r in gets if est[r] >= self.likely), key=lambda r: (-est[r], r))
        if not wants:
            return None
        before = self._hand_value(ctx, hand, goals)
        for want in wants:
            order = sorted(gives, key=lambda r: (-spare[r], -ctx.st.scarcity[r], r))
            for give_r in order:
                give_v = [0] * 5
                give_v[give_r] = 1
                if self._p_count:  # a second try: sweeten with another spare card
                    extra = [r for r in gives if spare[r] - give_v[r] > 0]
                    if not extra:
                        continue
                    give_v[max(extra, key=lambda r: (spare[r] - give_v[r], r))] += 1
                get_v = [0] * 5
                get_v[want] = 1
                key = (_vec(give_v), _vec(get_v))
                if key in self._p_terms or not _covers(hand, give_v):
                    continue
                after = [hand[r] - give_v[r] + get_v[r] for r in range(5)]
                if self._hand_value(ctx, after, goals) <= before:
                    continue
                self._p_terms.add(key)
                self._p_count += 1
                return ProposeTrade(key[0], key[1])
        return None

    def _answer_proposals(self, ctx: _Ctx, goals: Sequence[_Goal], legal_set: set[Action],
                          domestic: bool) -> Action | None:
        """On our turn: accept a good proposal, reject the others (one at a time)."""
        props = ctx.proposals
        for q, p in enumerate(props):
            if p is None:
                continue
            answer = self._answer_proposal(ctx, q, p, goals, legal_set, domestic)
            if answer is not None and (answer in legal_set or isinstance(answer, OfferTrade)):
                return answer
        return None

    def _answer_proposal(self, ctx: _Ctx, q: int, p: Sequence[Sequence[int]],
                         goals: Sequence[_Goal], legal_set: set[Action],
                         domestic: bool) -> Action | None:
        give_q, get_q = list(p[0]), list(p[1])  # from the proposer's side
        if self._proposal_value(ctx, q, give_q, get_q, goals) > 0 and (
                AcceptProposal(q) in legal_set):
            self._overpaid += max(0, sum(get_q) - sum(give_q))
            after = [ctx.hand[r] - get_q[r] + give_q[r] for r in range(5)]
            self.reason = _accept_reason(ctx.hand, after, goals)
            return AcceptProposal(q)
        self.reason = self._proposal_refusal(ctx, q, give_q, get_q, goals)
        return RejectProposal(q)

    def _proposal_refusal(self, ctx: _Ctx, q: int, give_q: Sequence[int],
                          get_q: Sequence[int], goals: Sequence[_Goal]) -> str:
        """Why seat ``q``'s proposal is refused (the reasons of :meth:`_trade`)."""
        if ctx.vps[q] >= ctx.target - 2:
            return "leader"
        if not _covers(ctx.hand, get_q):
            return "keeps"
        if self._overpaid + max(0, sum(get_q) - sum(give_q)) > MAX_OVERPAY:
            return "too_much"
        return self._refuse_reason(ctx, get_q, goals)

    def _proposal_value(self, ctx: _Ctx, q: int, give_q: Sequence[int], get_q: Sequence[int],
                        goals: Sequence[_Goal]) -> float:
        """How much better our hand is after giving ``get_q`` for ``give_q`` than
        the margin asks (<= 0: refuse); refused outright near a win or past the
        turn's overpay limit."""
        if ctx.vps[q] >= ctx.target - 2:
            return -1.0
        if self._overpaid + max(0, sum(get_q) - sum(give_q)) > MAX_OVERPAY:
            return -1.0
        if not _covers(ctx.hand, get_q):
            return -1.0
        before = self._hand_value(ctx, ctx.hand, goals)
        after = [ctx.hand[r] - get_q[r] + give_q[r] for r in range(5)]
        return self._hand_value(ctx, after, goals) - before - self._accept_margin(ctx, q)

    def _accept_margin(self, ctx: _Ctx, offerer: int) -> float:
        """How much an offer must raise our hand's value to be accepted: more
        the further the offerer is ahead of us."""
        return 0.02 + 0.03 * max(0, int(ctx.vps[offerer]) - ctx.vp(ctx.me))

    # -- development cards ---------------------------------------------------------------

    def _robber_on_me(self, ctx: _Ctx) -> float:
        """Production the robber takes from us now (pips × level)."""
        h = ctx.robber
        loss = 0.0
        for n in ctx.st.geo.hex_nodes[h]:
            if ctx.owner.get(n) == ctx.me:
                loss += ctx.st.hex_pips[h] * ctx.level[n]
        return loss

    def _la_gain(self, ctx: _Ctx) -> bool:
        """Would one more played knight take (or secure) Largest Army?"""
        knights = [int(ctx.knights[q]) for q in range(ctx.n)]
        mine = knights[ctx.me] + 1
        top = max((knights[q] for q in ctx.opponents()), default=0)
        holder = ctx.la
        if holder == ctx.me:
            return top >= knights[ctx.me] - 1
        return mine >= 3 and mine > top

    def _play_dev(self, ctx: _Ctx, legal: Sequence[Action], main: bool) -> Action | None:
        playable = ctx.playable
        if not playable:
            return None
        knight = PlayKnight() if "knight" in playable else None
        if knight is not None:
            loss = self._robber_on_me(ctx)
            if loss >= 2 or self._la_gain(ctx):
                return knight
        if not main:
            return None
        goals = self._goals(ctx)
        if "year_of_plenty" in playable:
            a = self._year_of_plenty(ctx, legal, goals)
            if a is not None:
                return a
        if "monopoly" in playable:
            a = self._monopoly(ctx, goals)
            if a is not None:
                return a
        if "road_building" in playable and ctx.pieces[0] > 0 and any(
                g.kind in ("road", "lr") for g in goals[:3]):
            return PlayRoadBuilding()
        if knight is not None:
            best = max(self._robber_scores(ctx).values(), default=0.0)
            if best >= _KNIGHT_BLOCK:
                return knight
        return None

    def _year_of_plenty(self, ctx: _Ctx, legal: Sequence[Action],
                        goals: Sequence[_Goal]) -> Action | None:
        yops = [a for a in legal if isinstance(a, PlayYearOfPlenty)]
        if not yops:
            return None
        # A function of the goals (which follow the hand) and the choices: the
        # same bot holding the card meets them again at each decision of a turn.
        key = ("yop", id(goals))
        choices = tuple(yops)
        known = ctx.st.memo.get(key)
        if known is not None and known[0] is goals and known[1] == choices:
            choice: Action | None = known[2]
            return choice
        choice = self._choose_plenty(ctx, yops, goals)
        ctx.st.remember(key, (goals, choices, choice))
        return choice

    def _choose_plenty(self, ctx: _Ctx, yops: Sequence[PlayYearOfPlenty],
                       goals: Sequence[_Goal]) -> Action | None:
        best: Action | None = None
        best_v = -1e9
        complete = False
        steps = [g.step for g in goals[:3] if not _covers(ctx.hand, g.step)]  # not paid yet
        for a in yops:
            hand = list(ctx.hand)
            hand[a.first] += 1
            if a.second is not None:
                hand[a.second] += 1
            done = any(_covers(hand, step) for step in steps)
            v = self._hand_value(ctx, hand, goals) + (1.0 if done else 0.0)
            if v > best_v:
                best, best_v, complete = a, v, done
        if complete or sum(ctx.hand) <= 3:
            return best
        return None

    def _monopoly(self, ctx: _Ctx, goals: Sequence[_Goal]) -> Action | None:
        need = self._need(goals, 1)
        best_r, best_v, best_take = -1, 0.0, 0.0
        for r in range(5):
            take = sum(self._estimate(ctx, q)[r] for q in ctx.opponents())
            v = take * (1.0 + 0.5 * (need[r] > ctx.hand[r]) + 0.6 / ctx.ratios[r])
            if v > best_v:
                best_r, best_v, best_take = r, v, take
        if best_r < 0:
            return None
        hand = list(ctx.hand)
        hand[best_r] += int(best_take)
        completes = bool(goals) and _covers(hand, goals[0].step) and not _covers(
            ctx.hand, goals[0].step)
        if best_take >= 3.5 or (completes and best_take >= 1.5):
            return PlayMonopoly(best_r)
        return None

    # -- robber ---------------------------------------------------------------------------

    def _robber_scores(self, ctx: _Ctx) -> dict[int, float]:
        """How good each hex is for the robber (remembered by what it depends on)."""
        key = ("robber", ctx.position(), ctx.me, *ctx.vps, *ctx.cards, *ctx.devs)
        known: dict[int, float] | None = ctx.st.memo.get(key)
        if known is None:
            known = self._score_robber(ctx)
            ctx.st.remember(key, known)
        return known

    def _score_robber(self, ctx: _Ctx) -> dict[int, float]:
        scores: dict[int, float] = {}
        lead = ctx.leader() if ctx.n > 1 else -1
        cards_of = ctx.cards
        robber = ctx.robber
        for h, s, victims in self._robber_base(ctx, lead):
            if h == robber:
                continue
            steal = 0.0
            for o in victims:
                cards = int(cards_of[o])
                if cards:
                    steal = max(steal, 1.2 + 0.12 * min(cards, 10) + (0.5 if o == lead else 0))
            scores[h] = s + steal
        return scores

    def _robber_base(self, ctx: _Ctx, lead: int) -> list[tuple[int, float, list[int]]]:
        """(hex, the robber's value there but for stealing, the opponents with a
        building there, in node order) for every hex: a function of the pieces,
        the points and the leader, not the hands (nor where the robber is)."""
        key = ("robber_base", ctx.pieces_id(), ctx.me, lead, tuple(ctx.vps))
        known: list[tuple[int, float, list[int]]] | None = ctx.st.memo.get(key)
        if known is not None:
            return known
        known = []
        me = ctx.me
        vps = ctx.vps
        owner = ctx.owner
        level = ctx.level
        n = ctx.n
        pips = ctx.st.hex_pips
        for h in range(ctx.st.geo.num_hexes):
            p = pips[h]
            s = 0.0
            victims: list[int] = []
            for node in ctx.st.geo.hex_nodes[h]:
                o = owner.get(node, n)
                if o >= n:
                    continue
                lv = level[node]
                if o == me:
                    s -= 6.0 + 2.0 * lv * p
                else:
                    w = 1.0 + 0.15 * vps[o] + (0.6 if o == lead else 0.0)
                    s += lv * p * w * 0.5
                    victims.append(o)
            known.append((h, s, victims))
        ctx.st.remember(key, known)
        return known

    def _move_robber(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        scores = self._robber_scores(ctx)
        best: Action | None = None
        best_v = -1e9
        draw = self._draws()
        for a in legal:
            if isinstance(a, MoveRobber):
                v = scores.get(a.hex, -1e6) + draw() * 0.01
                if v > best_v:
                    best, best_v = a, v
        return best

    def _steal(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        lead = ctx.leader()

        def value(a: Action) -> float:
            if not isinstance(a, Steal):
                return -1e9
            cards = int(ctx.cards[a.victim])
            if not cards:
                return -100.0 + ctx.threat(a.victim)
            return cards * 0.3 + ctx.threat(a.victim) + (2.0 if a.victim == lead else 0.0)

        return max(legal, key=value)

    # -- discards -------------------------------------------------------------------------

    def _discard(self, ctx: _Ctx, legal: Sequence[Action], owed: int,
                 give_back: bool) -> Action | None:
        if owed <= 0:
            return None
        goals = self._goals(ctx)
        hand = list(ctx.hand)
        if owed > sum(hand):
            return None
        # The k-th copy of a resource is worth more the earlier the goal that needs it.
        tiers: list[list[int]] = []
        need = [0] * 5
        for g in goals[:3]:
            need = [max(need[r], g.full[r]) for r in range(5)]
            tiers.append(list(need))
        out = [0] * 5
        sc = ctx.st.scarcity
        for _ in range(owed):
            best, best_v = -1, 1e9
            for r in range(5):
                k = hand[r]
                if k <= 0:
                    continue
                keep = 0.0
                for i, tier in enumerate(tiers):
                    if k <= tier[r]:
                        keep = 30.0 - 10.0 * i
                        break
                v = keep + sc[r] - 0.8 * k + 0.5 / ctx.ratios[r] - 0.05 * ctx.my_prod[r]
                if v < best_v:
                    best, best_v = r, v
            hand[best] -= 1
            out[best] += 1
        cards = _vec(out)
        return GiveBack(cards) if give_back else Discard(cards)

    # -- before the roll ------------------------------------------------------------------

    def _pre_roll(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        dev = self._play_dev(ctx, legal, main=False)
        if dev is not None and dev in legal:
            return dev
        return RollDice()

    # -- two players ----------------------------------------------------------------------

    def _tokens(self, ctx: _Ctx, legal_set: set[Action],
                goals: Sequence[_Goal]) -> Action | None:
        opp = 1 - ctx.me
        tokens = int(ctx.tokens[ctx.me])
        home = TokenRobberHome()
        if home in legal_set and self._robber_on_me(ctx) >= 3:
            return home
        forced = TokenForcedTrade()
        if forced in legal_set and ctx.cards[opp] >= 4 and (
                tokens >= 2 or self._robber_on_me(ctx) == 0):
            return forced
        drop = DiscardKnight()
        if drop in legal_set:
            knights = int(ctx.knights[ctx.me])
            theirs = int(ctx.knights[opp])
            holder = ctx.la
            if holder == ctx.me:
                safe = knights - 1 >= 3 and knights - 1 > theirs
            elif holder == opp:
                safe = theirs >= knights + 2
            else:
                safe = knights <= 1 and theirs >= 2
            if safe and tokens <= 4:
                return drop
        return None

    def _neutral(self, ctx: _Ctx, legal: Sequence[Action]) -> Action | None:
        """A neutral player's road or settlement (2-player game): towards the
        opponent's way, away from ours (the values remembered per position)."""
        key = ("neutral", ctx.position(), ctx.me, ctx.phase)
        choices = tuple(legal)
        known: tuple[tuple[Action, ...], list[float | None]] | None = ctx.st.memo.get(key)
        if known is None or known[0] != choices:
            known = (choices, self._neutral_values(ctx, legal))
            ctx.st.remember(key, known)
        best_a: Action | None = None
        best_v = -1e9
        for a, v in zip(legal, known[1], strict=True):
            if v is None:
                continue
            v += self._jitter()
            if v > best_v:
                best_a, best_v = a, v
        return best_a

    def _neutral_values(self, ctx: _Ctx, legal: Sequence[Action]) -> list[float | None]:
        """The value of each of ``legal`` for :meth:`_neutral` (None: not a neutral build)."""
        opp = 1 - ctx.me
        w_opp = ctx.weights(opp, _MAIN_WEIGHT)
        w_me = ctx.weights(ctx.me, _MAIN_WEIGHT)
        d_opp = ctx.dist(opp)
        d_me = ctx.dist(ctx.me)
        opp_path: set[int] = set()
        my_path: set[int] = set()
        for seat, dist, w, path in ((opp, d_opp, w_opp, opp_path), (ctx.me, d_me, w_me, my_path)):
            best, best_v = -1, 0.0
            for node, d in dist.items():
                if d and ctx.free_spot(node):
                    v = ctx.spot_value(node, seat, w) * _DECAY ** d
                    if v > best_v:
                        best, best_v = node, v
            if best >= 0:
                path.update(ctx.path_edges(seat, best))

        def interest(node: int, seat: int, dist: dict[int, int], w: list[float]) -> float:
            d = dist.get(node)
            if d is None:
                return 0.0
            return ctx.spot_value(node, seat, w) * _DECAY ** d

        values: list[float | None] = []
        for a in legal:
            if isinstance(a, BuildNeutralSettlement):
                v = interest(a.node, opp, d_opp, w_opp) - 0.8 * interest(a.node, ctx.me, d_me, w_me)
            elif isinstance(a, BuildNeutralRoad):
                v = 0.0
                if a.edge in opp_path:
                    v += 5.0
                if a.edge in my_path:
                    v -= 5.0
                for node in ctx.st.geo.edge_nodes[a.edge]:
                    v += 1.0 / (1 + d_opp.get(node, 6)) - 1.0 / (1 + d_me.get(node, 6))
            else:
                values.append(None)
                continue
            values.append(v)
        return values

    # -- hand estimates from public events --------------------------------------------------

    def _estimate(self, ctx: _Ctx, q: int) -> list[float]:
        """Estimated hand of seat ``q``, scaled to its public card count."""
        count = float(ctx.cards[q])
        est = self._est.get(q)
        if not est or sum(est) <= 0:
            prod = ctx.prod[q]
            total = sum(prod)
            if total <= 0:
                return [count / 5.0] * 5
            return [count * p / total for p in prod]
        s = sum(est)
        return [count * x / s for x in est]

    def _row(self, q: int) -> list[float]:
        row = self._est.get(q)
        if row is None:
            row = self._est[q] = [0.0] * 5
        return row

    def _gain(self, q: int, cards: Sequence[float], sign: float = 1.0) -> None:
        row = self._row(q)
        for r in range(5):
            row[r] = max(0.0, row[r] + sign * cards[r])

    def _lose_random(self, q: int, k: int) -> list[float]:
        row = self._row(q)
        s = sum(row)
        if s <= 0:
            return [0.0] * 5
        taken = [min(row[r], k * row[r] / s) for r in range(5)]
        for r in range(5):
            row[r] -= taken[r]
        return taken

    def _track(self, e: Event) -> None:
        if isinstance(e, Produced):
            for q, g in enumerate(e.gains):
                if any(g):
                    self._gain(q, g)
        elif isinstance(e, SetupIncome):
            self._gain(e.seat, e.cards)
        elif isinstance(e, Discarded):
            self._gain(e.seat, e.cards, -1.0)
        elif isinstance(e, Stolen):
            if e.count:
                if e.resource is not None:
                    one = [0.0] * 5
                    one[e.resource] = 1.0
                    self._gain(e.victim, one, -1.0)
                    self._gain(e.thief, one)
                else:
                    self._gain(e.thief, self._lose_random(e.victim, e.count))
        elif isinstance(e, RoadBuilt):
            if not e.free:
                self._gain(e.seat, ROAD, -1.0)
        elif isinstance(e, SettlementBuilt):
            if not e.free:
                self._gain(e.seat, SETTLEMENT, -1.0)
        elif isinstance(e, CityBuilt):
            self._gain(e.seat, CITY, -1.0)
        elif isinstance(e, DevCardBought):
            self._gain(e.seat, DEV, -1.0)
        elif isinstance(e, YearOfPlentyTaken):
            self._gain(e.seat, e.cards)
        elif isinstance(e, MonopolyTaken):
            total = 0
            for q, k in enumerate(e.taken):
                if k:
                    one = [0.0] * 5
                    one[e.resource] = float(k)
                    self._gain(q, one, -1.0)
                    total += k
            row = self._row(e.seat)
            row[e.resource] += total
        elif isinstance(e, MaritimeTraded):
            row = self._row(e.seat)
            row[e.give] = max(0.0, row[e.give] - e.count)
            row[e.get] += 1.0
        elif isinstance(e, TradeCompleted):
            self._gain(e.seat, e.gave, -1.0)
            self._gain(e.seat, e.got)
            self._gain(e.partner, e.gave)
            self._gain(e.partner, e.got, -1.0)
        elif isinstance(e, ForcedTradeDrawn):
            if e.cards is not None:
                self._gain(e.victim, e.cards, -1.0)
                self._gain(e.seat, e.cards)
            else:
                self._gain(e.seat, self._lose_random(e.victim, e.count))
        elif isinstance(e, GaveBack):
            if e.cards is not None:
                self._gain(e.seat, e.cards, -1.0)
                self._gain(e.partner, e.cards)
            else:
                self._gain(e.partner, self._lose_random(e.seat, e.count))
