"""Loading and checking positions: derived facts recomputed, contradictions refused.

A position (a :class:`GameState`) has *primary* facts — the pieces on the
board, the hands, the development cards, whose turn and which phase — and
*derived* ones: pieces left, road lists, harbor ratios, VP, road lengths,
the Longest Road and Largest Army holders, the production index, the set-up
step, the possible victims of a steal. :func:`settle` recomputes every
derived fact with the engine's own functions and refuses a position whose
primary facts contradict each other (cards that do not add up to the bank's
19, a development card both in the deck and in a hand, an open trade outside
the trade phase, ...) with a :class:`RulesError` whose code is
``bad_position`` and whose message says what is wrong.

:func:`load_state` reads the plain form of :meth:`GameState.to_dict` — hostile
data (a database, a file) — field by field, then settles it.
:func:`check_legal` adds what only a real game guarantees (the distance rule,
roads connected to their owner's buildings); :mod:`protocol.rules.position`
applies it to positions people describe.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .errors import RulesError
from .rng import Rng
from .state import (
    KNIGHT,
    MAX_OFFERS,
    MAX_PROPOSALS,
    NEUTRAL_NODES,
    PHASE_NAMES,
    TOKEN_STOCK,
    BoardInfo,
    GameState,
    Phase,
    Settings,
    Trade,
    entry_from_dict,
    set_snapshot_loader,
)

T = TypeVar("T")

_SETUP = (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)
_NEUTRAL = (Phase.NEUTRAL_ROAD, Phase.NEUTRAL_SETTLEMENT)
INTERRUPTIONS = frozenset({Phase.DISCARD, Phase.MOVE_ROBBER, Phase.STEAL, Phase.ROAD_BUILDING,
                           *_NEUTRAL})
"""Phases that return to ``return_phase`` (pre_roll or main) when they end."""


def default_return(phase: int, rolled: bool) -> int:
    """Where an interruption (a 7, a knight, Road Building) returns to: main after
    the roll, pre_roll before it; main outside interruptions."""
    return Phase.MAIN if rolled or phase not in INTERRUPTIONS else Phase.PRE_ROLL
_FROZEN_PROPOSALS = frozenset({
    Phase.MAIN, Phase.TRADE, Phase.MOVE_ROBBER, Phase.STEAL, Phase.ROAD_BUILDING,
    Phase.NEUTRAL_ROAD, Phase.NEUTRAL_SETTLEMENT, Phase.GIVE_BACK,
})
"""Phases in which proposals to the current player may be open (made in main,
kept while a development card or an offer of the current player is resolved)."""


class BadPosition(RulesError):
    """A position (snapshot, description, text) that cannot be a game's."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "bad_position")


def _fail(message: str) -> BadPosition:
    return BadPosition(message)


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise _fail(message)


# --- hostile plain data ---------------------------------------------------------------


def _int(v: object, what: str, lo: int = 0, hi: int = 1 << 62) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise _fail(f"{what} must be an integer {lo}..{hi}, got {v!r}")
    return v


def _bool(v: object, what: str) -> bool:
    if type(v) is not bool:
        raise _fail(f"{what} must be true or false, got {v!r}")
    return v


def _list(v: object, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(v, list | tuple):
        raise _fail(f"{what} must be a list")
    if length is not None and len(v) != length:
        raise _fail(f"{what} must have {length} entries, not {len(v)}")
    return list(v)


def _ints(v: object, what: str, length: int, lo: int = 0, hi: int = 1 << 62) -> list[int]:
    return [_int(x, f"{what}[{i}]", lo, hi) for i, x in enumerate(_list(v, what, length))]


def _cards(v: object, what: str) -> tuple[int, int, int, int, int]:
    a, b, c, d, e = _ints(v, what, 5, 0, 95)
    return (a, b, c, d, e)


def _rows(v: object, what: str, rows: int, parse: Callable[[object, str], T]) -> list[T]:
    return [parse(x, f"{what}[{i}]") for i, x in enumerate(_list(v, what, rows))]


def _phase(v: object, what: str) -> int:
    if not isinstance(v, str) or v not in PHASE_NAMES:
        raise _fail(f"{what} must be a phase name, got {v!r}")
    return PHASE_NAMES.index(v)


def _trade(v: object, n: int) -> Trade:
    if not isinstance(v, dict):
        raise _fail("trade must be a map")
    counters: list[tuple[tuple[int, ...], tuple[int, ...]] | None] = []
    for i, c in enumerate(_list(v.get("counters"), "trade.counters", n)):
        if c is None:
            counters.append(None)
        else:
            pair = _list(c, f"trade.counters[{i}]", 2)
            counters.append((_cards(pair[0], "counter give"), _cards(pair[1], "counter get")))
    return Trade(
        _int(v.get("offerer"), "trade.offerer", 0, n - 1),
        _cards(v.get("give"), "trade.give"),
        _cards(v.get("get"), "trade.get"),
        tuple(_ints(v.get("status"), "trade.status", n, -1, 3)),
        tuple(counters),
    )


def load_state(d: object) -> GameState:
    """A :class:`GameState` from its plain form (:meth:`GameState.to_dict`),
    checked and settled. Snapshots of earlier formats load too (``winner``
    -1, no proposals, stale road lengths): their derived facts are recomputed."""
    if not isinstance(d, dict):
        raise _fail("a snapshot is a map")
    try:
        return _load(d)
    except BadPosition:
        raise
    except RulesError as exc:  # bad settings or log entries
        raise _fail(f"snapshot: {exc}") from exc
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise _fail(f"snapshot: missing or malformed field ({exc!r})") from exc


def _load(d: dict[str, Any]) -> GameState:
    from .board import Board

    s = GameState.__new__(GameState)
    s.settings = Settings.from_dict(d["settings"])
    n = s.settings.players
    owners = s.settings.owners
    board = d["board"]
    if not isinstance(board, dict):
        raise _fail("board must be a map")
    s.info = BoardInfo(Board.from_dict(board), s.settings)
    geo = s.info.geo
    bank_full = s.settings.bank_per_resource
    most_dev = max(s.settings.dev_deck)
    s.seed = _int(d["seed"], "seed", -(1 << 64), 1 << 64)
    s.rng = Rng(0)
    s.rng.state = _int(d["rng"], "rng", 0, (1 << 64) - 1)
    s.phase = _phase(d["phase"], "phase")
    s.current = _int(d["current"], "current", 0, n - 1)
    s.first_seat = _int(d["first_seat"], "first_seat", 0, n - 1)
    s.turn = _int(d["turn"], "turn")
    s.setup_step = _int(d.get("setup_step", 0), "setup_step", 0, 2 * n)
    s.setup_node = _int(d.get("setup_node", -1), "setup_node", -1, geo.num_nodes - 1)
    s.hands = [list(_cards(h, "hand")) for h in _list(d["hands"], "hands", n)]
    s.bank = _ints(d["bank"], "bank", 5, 0, bank_full)
    s.dev_deck = _ints(d["dev_deck"], "dev_deck", 5, 0, most_dev)
    s.dev_hand = [_ints(h, "dev_hand", 5, 0, most_dev)
                  for h in _list(d["dev_hand"], "dev_hand", n)]
    s.dev_new = [_ints(h, "dev_new", 5, 0, most_dev) for h in _list(d["dev_new"], "dev_new", n)]
    s.dev_played = _bool(d["dev_played"], "dev_played")
    s.knights = _ints(d["knights"], "knights", n, 0, most_dev)
    s.node_owner = _ints(d["node_owner"], "node_owner", geo.num_nodes, -1, owners - 1)
    s.node_level = _ints(d["node_level"], "node_level", geo.num_nodes, 0, 2)
    s.edge_owner = _ints(d["edge_owner"], "edge_owner", geo.num_edges, -1, owners - 1)
    s.robber = _int(d["robber"], "robber", 0, geo.num_hexes - 1)
    s.lr_holder = _int(d.get("lr_holder", -1), "lr_holder", -1, owners - 1)
    s.la_holder = _int(d.get("la_holder", -1), "la_holder", -1, n - 1)
    s.road_len = [0] * owners  # recomputed
    s.discard_owed = _ints(d["discard_owed"], "discard_owed", n, 0, 5 * bank_full)
    s.rolled = _bool(d["rolled"], "rolled")
    s.free_roads = _int(d["free_roads"], "free_roads", 0, 2)
    s.return_phase = _phase(d["return_phase"], "return_phase")
    s.steal_from = tuple(_int(x, "steal_from", 0, n - 1) for x in _list(d["steal_from"],
                                                                          "steal_from"))
    s.trade = None if d["trade"] is None else _trade(d["trade"], n)
    winner = d.get("winner")
    s.winner = None if winner is None or winner == -1 else _int(winner, "winner", 0, n - 1)
    last = d.get("last_roll")
    if last is None:
        s.last_roll = None
    else:
        a, b = _ints(last, "last_roll", 2, 1, 6)
        s.last_roll = (a, b)
    s.tokens = _ints(d["tokens"], "tokens", n, 0, TOKEN_STOCK)
    s.token_stock = _int(d["token_stock"], "token_stock", 0, TOKEN_STOCK)
    s.token_used = _bool(d["token_used"], "token_used")
    s.knight_discarded = _bool(d["knight_discarded"], "knight_discarded")
    s.dev_out = _ints(d["dev_out"], "dev_out", 5, 0, most_dev)
    s.rolls_done = _int(d["rolls_done"], "rolls_done", 0, s.settings.rolls_per_turn)
    s.first_sum = 0  # recomputed
    s.neutral_return = _phase(d["neutral_return"], "neutral_return")
    s.give_back = _int(d["give_back"], "give_back", 0, 2)
    s.built = _bool(d["built"], "built")
    s.pending_harbors = []
    for x in _list(d["pending_harbors"], "pending_harbors"):
        q, node = _list(x, "pending harbor", 2)
        s.pending_harbors.append((_int(q, "pending harbor seat", 0, n - 1),
                                  _int(node, "pending harbor node", 0, geo.num_nodes - 1)))
    s.proposals = {}
    for x in _list(d.get("proposals", []), "proposals"):
        q, give, get = _list(x, "proposal", 3)
        q = _int(q, "proposal seat", 0, n - 1)
        _require(q not in s.proposals, f"seat {q} has two open proposals")
        s.proposals[q] = (_cards(give, "proposal give"), _cards(get, "proposal get"))
    s.proposals_made = _ints(d.get("proposals_made", [0] * n), "proposals_made", n, 0,
                             MAX_PROPOSALS)
    s.offers_made = _ints(d.get("offers_made", [0] * n), "offers_made", n, 0, MAX_OFFERS)
    s.special_from = _int(d.get("special_from", -1), "special_from", -1, n - 1)
    log = d.get("log")
    s.log = None if log is None else [entry_from_dict(e) for e in _list(log, "log")]
    stored_step = s.setup_step
    settle(s)
    if s.phase in _SETUP:
        _require(stored_step == s.setup_step,
                 f"setup_step {stored_step} does not match the {s.setup_step} set-up "
                 "placements on the board")
    return s


# --- derived facts --------------------------------------------------------------------


def holder(stored: int, counts: list[int], least: int) -> int:
    """Who holds a special card given ``counts`` (road lengths or played knights):
    the stored holder while still at ``least`` or more and not behind anyone
    (ties keep the card, R-LR-2, R-LA-1); else the one owner strictly ahead
    with ``least`` or more; else nobody (the card is aside, R-LR-3)."""
    best = max(counts)
    if stored >= 0 and counts[stored] >= least and counts[stored] == best:
        return stored
    leaders = [q for q, c in enumerate(counts) if c == best]
    return leaders[0] if best >= least and len(leaders) == 1 else -1


def victims(s: GameState) -> tuple[int, ...]:
    """The opponents the current player may rob on the robber's hex (R-ROBBER-4)."""
    n = s.settings.players
    no = s.node_owner
    return tuple(sorted({no[v] for v in s.info.hex_nodes[s.robber]
                         if 0 <= no[v] < n and no[v] != s.current}))


def setup_placements(s: GameState) -> int:
    """Settlements the players (not the neutrals) have placed."""
    n = s.settings.players
    return sum(1 for v in range(s.info.num_nodes) if 0 <= s.node_owner[v] < n)


def settle(s: GameState, *, road_len: list[int] | None = None) -> None:
    """Recompute every derived fact of ``s`` and check the primary facts agree.

    Raises :class:`BadPosition` (a :class:`RulesError`, code ``bad_position``)
    naming the first contradiction found; ``s`` may then be half-updated.
    ``road_len``: the road lengths, when the caller knows them (a view's), so
    that they are not searched again."""
    from .engine import longest_road, setup_seat

    st = s.settings
    n, owners, two = st.players, st.owners, st.two_player
    ph = s.phase
    # Pieces on the board.
    for v in range(s.info.num_nodes):
        _require((s.node_owner[v] < 0) == (s.node_level[v] == 0),
                 f"intersection {v}: a building needs an owner and a level (1 or 2)")
        if s.node_owner[v] >= n:
            _require(s.node_level[v] == 1, f"intersection {v}: neutral players build no cities")
    if two:
        for o, v in zip((2, 3), NEUTRAL_NODES, strict=True):
            _require(s.node_owner[v] == o,
                     f"neutral player {o} has its settlement on intersection {v} (R-2P-1)")
    s.rebuild_derived()
    for q in range(owners):
        what = f"owner {q}" if q >= n else f"seat {q}"
        _require(min(s.pieces[q]) >= 0,
                 f"{what} has more pieces on the board than the 15 roads, 5 settlements "
                 "and 4 cities of R-COMP-5")
    s.road_len = (list(road_len) if road_len is not None
                  else [longest_road(s, q) for q in range(owners)])
    s.lr_holder = holder(s.lr_holder, s.road_len, 5)
    s.la_holder = holder(s.la_holder, s.knights, 3)
    s.recount_vp()
    # Cards.
    bank_full, deck = st.bank_per_resource, st.dev_deck
    for r in range(5):
        held = sum(h[r] for h in s.hands)
        _require(s.bank[r] + held == bank_full,
                 f"resource {r}: the bank's {s.bank[r]} and the hands' {held} are not the "
                 f"{bank_full} of R-COMP-3 (R-56-5)")
    for k in range(5):
        held = sum(h[k] for h in s.dev_hand)
        _require(s.dev_deck[k] + held + s.dev_out[k] == deck[k],
                 f"development card {k}: deck {s.dev_deck[k]} + hands {held} + played "
                 f"{s.dev_out[k]} is not the {deck[k]} of R-COMP-4 (R-56-5)")
        for q in range(n):
            _require(s.dev_new[q][k] <= s.dev_hand[q][k],
                     f"seat {q} bought more development cards this turn than it holds")
            _require(q == s.current or not s.dev_new[q][k],
                     f"seat {q} is not on turn and cannot have bought cards this turn")
    played = sum(s.knights)
    _require(s.dev_out[KNIGHT] >= played if two else s.dev_out[KNIGHT] == played,
             f"{played} knights in front of the players but {s.dev_out[KNIGHT]} played")
    if two:
        _require(sum(s.tokens) + s.token_stock == TOKEN_STOCK,
                 "the trade tokens and the stock are not the 20 of R-2P-2")
    else:
        _require(not any(s.tokens) and not s.token_stock and not s.token_used
                 and not s.knight_discarded, "trade tokens exist in the 2-player game only")
    # Turn and phase.
    rpt = st.rolls_per_turn
    s.first_sum = (s.last_roll[0] + s.last_roll[1]
                   if s.rolls_done == 1 and rpt == 2 and s.last_roll is not None else 0)
    _require(s.rolled == (s.rolls_done >= rpt), "rolled and rolls_done disagree")
    _require(s.return_phase in (Phase.PRE_ROLL, Phase.MAIN),
             "return_phase is pre_roll or main")
    _require(s.neutral_return in (Phase.MAIN, Phase.PRE_ROLL, Phase.ROAD_BUILDING),
             "neutral_return is main, pre_roll or road_building")
    if ph not in INTERRUPTIONS or (ph in _NEUTRAL and s.neutral_return != Phase.ROAD_BUILDING):
        s.return_phase = Phase.MAIN  # nothing to return to (the value is not used)
    if ph not in _NEUTRAL:
        s.neutral_return = Phase.MAIN
    if ph in _SETUP:
        _require(s.turn == 0 and s.rolls_done == 0, "set-up happens before the first turn")
        placed = setup_placements(s)
        s.setup_step = placed - (1 if ph == Phase.SETUP_ROAD else 0)
        _require(0 <= s.setup_step < 2 * n, "too many set-up settlements for a set-up phase")
        _require(s.current == setup_seat(s, s.setup_step),
                 f"set-up step {s.setup_step} is seat {setup_seat(s, s.setup_step)}'s, not "
                 f"seat {s.current}'s (R-SETUP-2)")
        if ph == Phase.SETUP_ROAD:
            _require(s.setup_node >= 0 and s.node_owner[s.setup_node] == s.current,
                     "setup_node must be the current seat's settlement awaiting its road")
            _require(not any(s.edge_owner[e] == s.current
                             for e in s.info.node_edges[s.setup_node]),
                     "the settlement awaiting its set-up road already has one")
        else:
            s.setup_node = -1
    else:
        s.setup_step = 2 * n
        s.setup_node = -1
        _require(s.turn >= 1 or ph == Phase.GAME_OVER, "after set-up the turns count from 1")
    _require((ph == Phase.PRE_ROLL) <= (s.rolls_done < rpt), "pre_roll with every roll made")
    if ph in (Phase.MAIN, Phase.TRADE, Phase.GIVE_BACK, Phase.SPECIAL_BUILD):
        _require(s.rolled, f"{PHASE_NAMES[ph]} comes after the roll")
    if ph == Phase.SPECIAL_BUILD:
        _require(st.extension, "the special building phase exists with 5 or 6 players only "
                 "(R-56-8)")
        _require(0 <= s.special_from != s.current,
                 "special_from names the seat whose turn ended, not the seat building")
    else:
        _require(s.special_from == -1, "special_from is set only in the special building "
                 "phase")
    if ph == Phase.DISCARD:
        _require(any(s.discard_owed), "the discard phase needs a seat that owes")
        _require(s.rolls_done >= 1 and s.last_roll is not None
                 and sum(s.last_roll) == 7, "discards follow a 7")
        for q in range(n):
            owed, held = s.discard_owed[q], sum(s.hands[q])
            _require(not owed or (held >= 8 and owed == held // 2),
                     f"seat {q} owes {owed} cards but holds {held} (R-ROBBER-2)")
    else:
        _require(not any(s.discard_owed), "discards are owed only in the discard phase")
    if ph == Phase.STEAL:
        s.steal_from = victims(s)
        _require(len(s.steal_from) >= 2, "the steal phase needs two or more possible victims")
    else:
        s.steal_from = ()
    if ph == Phase.GAME_OVER:
        s.free_roads = 0  # a game can end on a free road; none is left to place
    if ph == Phase.ROAD_BUILDING:
        _require(s.free_roads in (1, 2), "road_building needs 1 or 2 free roads")
        _require(s.dev_played, "road_building follows a played Road Building card")
    else:
        _require(s.free_roads == 0 or ph in (Phase.NEUTRAL_ROAD, Phase.NEUTRAL_SETTLEMENT),
                 "free roads exist only while Road Building is played")
    if ph in (Phase.NEUTRAL_ROAD, Phase.NEUTRAL_SETTLEMENT, Phase.GIVE_BACK):
        _require(two, f"{PHASE_NAMES[ph]} exists in the 2-player game only")
    _require((s.give_back > 0) == (ph == Phase.GIVE_BACK),
             "give_back is owed exactly in the give_back phase")
    _require((s.trade is not None) == (ph == Phase.TRADE),
             "a domestic offer is open exactly in the trade phase")
    if s.trade is not None:
        _check_trade(s, s.trade)
    if ph == Phase.GAME_OVER:
        _require(s.winner is None or s.total_vp(s.winner) >= st.vp_target,
                 f"seat {s.winner} won without {st.vp_target} VP")
    else:
        _require(s.winner is None, "only a finished game has a winner")
        if ph not in _SETUP and ph != Phase.SPECIAL_BUILD:  # R-56-9: nobody wins there
            _require(s.total_vp(s.current) < st.vp_target,
                     f"seat {s.current} has {s.total_vp(s.current)} VP on its own turn: the "
                     "game would be over (R-WIN-1)")
    _require(st.harbor_delay or not s.pending_harbors,
             "harbors wait for the next turn only with harbor_delay (R-OPT-3)")
    turn_seat = s.special_from if ph == Phase.SPECIAL_BUILD else s.current
    for q, v in s.pending_harbors:
        _require(q == turn_seat and s.node_owner[v] == q and s.info.node_harbor[v] >= 0,
                 f"pending harbor ({q}, {v}) is not a harbor the current seat settled")
    # Proposals to the current player (R-TRADE-2).
    if s.proposals:
        _require(ph in _FROZEN_PROPOSALS and s.rolled,
                 "proposals are open only after the roll of the current turn")
        _require(not (s.built and st.strict_phases),
                 "no domestic trade after a build with strict_phases (R-OPT-4)")
    for q, (give, get) in s.proposals.items():
        _require(q != s.current, "the current player does not propose to itself")
        _require(s.proposals_made[q] >= 1, f"seat {q}'s open proposal is not counted")
        _check_terms(give, get, f"seat {q}'s proposal")
    if ph in _SETUP:
        _require(not any(s.proposals_made), "no proposals during set-up")


def _check_terms(give: tuple[int, ...], get: tuple[int, ...], what: str) -> None:
    _require(sum(give) > 0 and sum(get) > 0, f"{what}: both sides give a card (R-TRADE-2)")
    _require(all(not (give[r] and get[r]) for r in range(5)),
             f"{what}: a resource cannot be on both sides")


def _covers(hand: list[int], cards: tuple[int, ...]) -> bool:
    return all(hand[r] >= cards[r] for r in range(5))


def _check_trade(s: GameState, t: Trade) -> None:
    n = s.settings.players
    _require(t.offerer == s.current, "only the current player has an open offer")
    _require(len(t.status) == n and len(t.counters) == n, "trade status and counters per seat")
    _require(t.status[s.current] == -1, "the offerer does not answer its own offer")
    _require(any(x >= 0 for x in t.status), "an offer addresses at least one seat")
    _check_terms(t.give, t.get, "the offer")
    _require(_covers(s.hands[s.current], t.give), "the offerer holds the cards it offers")
    for q in range(n):
        c = t.counters[q]
        _require((t.status[q] == 3) == (c is not None),
                 f"seat {q}: a counter-offer goes with status 3 (countered)")
        if t.status[q] == 1:
            _require(_covers(s.hands[q], t.get),
                     f"seat {q} accepted but does not hold the cards asked for")
        if c is not None:
            _check_terms(c[0], c[1], f"seat {q}'s counter-offer")
            _require(_covers(s.hands[q], c[0]),
                     f"seat {q} counter-offered cards it does not hold")
        _require(t.status[q] == -1 or q not in s.proposals,
                 f"seat {q} is addressed by the offer: its proposal was answered by it")


def _root(parent: list[int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def check_legal(s: GameState) -> None:
    """What a real game guarantees beyond :func:`settle`: the distance rule, every
    road connected to a building of its owner, every player's building on one of
    its roads (outside set-up), cities only after a settlement could stand."""
    st = s.settings
    n = st.players
    no = s.node_owner
    geo = s.info.geo
    for v in range(geo.num_nodes):
        if no[v] >= 0:
            for m in geo.node_nodes[v]:
                _require(no[m] < 0, f"buildings on intersections {v} and {m} are neighbours: "
                         "the distance rule forbids it (R-BUILD-2)")
    for q in range(st.owners):
        parent = list(range(geo.num_nodes))
        touched: set[int] = set()
        for e in range(geo.num_edges):
            if s.edge_owner[e] == q:
                a, b = geo.edge_nodes[e]
                touched.update((a, b))
                parent[_root(parent, a)] = _root(parent, b)
        own = [v for v in range(geo.num_nodes) if no[v] == q]
        roots = {_root(parent, v) for v in own}
        what = f"owner {q}" if q >= n else f"seat {q}"
        for v in sorted(touched):
            _require(_root(parent, v) in roots, f"{what} has a road (at intersection {v}) not "
                     "connected to any of its buildings (R-BUILD-1)")
        if q >= n or s.phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
            continue
        for v in own:
            _require(v in touched, f"seat {q}'s building on intersection {v} touches none of "
                     "its roads (R-BUILD-2, R-SETUP-3)")
    if s.phase not in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        for q in range(n):
            built = sum(1 for v in range(geo.num_nodes) if no[v] == q)
            _require(built >= 2, f"seat {q} has {built} buildings: set-up gives everyone two "
                     "settlements (R-SETUP-2)")


set_snapshot_loader(load_state)
