"""Positions: a legal game state from what a person would describe, and back.

:class:`Position` describes a game the way a person would: the settings and
the board (a seed, or an explicit board), each seat's buildings, roads, hand
and development cards, whose turn it is and in which phase. :func:`build`
turns it into a :class:`GameState`, validated (overlapping pieces, the
distance rule, roads not connected to their owner, more cards than the game
has, a phase that cannot be: each a :class:`RulesError` with code
``bad_position`` and a message that says what is wrong), with every derived
fact computed by the engine's own functions: the bank, the deck, pieces left,
VP, road lengths, the Longest Road and Largest Army holders, harbor ratios,
the production index. :func:`position_of` is the way back.

The text form (:func:`to_text`, :func:`from_text`) is one line, compact
enough for a bug report and readable by a person, like FEN for chess::

    kaitaku/1 p=3 seed=7 turn=30 cur=0 dice=1,3 robber=14
      #0 s=3,45 r=0,1,58,59 h=L1B2W1O1
      #1 s=48 c=20 r=22,63 h=B2G2O2 #2 s=32 c=29 r=38,43 h=B1O1

(one line: the three lines above joined by spaces). The grammar is in
``docs/ENGINE.md``. ``from_text(to_text(s))`` gives back ``s`` in every fact the
text carries, hidden ones included (hands, development cards, the random
generator's state), without its action log.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .board import (
    DESERT,
    GENERIC_HARBOR,
    Board,
)
from .check import (
    BadPosition,
    check_legal,
    default_return,
    holder,
    settle,
    setup_placements,
)
from .engine import new_game, setup_seat
from .state import (
    MAX_OFFERS,
    MAX_PROPOSALS,
    NEUTRAL_NODES,
    PHASE_NAMES,
    TOKEN_STOCK,
    TOKENS_START,
    GameState,
    Phase,
    Settings,
    Trade,
)

VERSION = 1
HEADER = f"kaitaku/{VERSION}"

Cards = tuple[int, int, int, int, int]
Terms = tuple[Cards, Cards]
_NONE: Cards = (0, 0, 0, 0, 0)
_RES = "LBWGO"
"""Resource letters: lumber, brick, wool, grain, ore (terrain: the same, D desert)."""
_DEV = "KRYMV"
"""Development card letters: knight, road building, year of plenty, monopoly, VP."""
_HARBOR = "LBWGO3"
"""Harbor letters: 2:1 of a resource, 3 for the generic 3:1."""
_OPTIONS = (("balanced", "balanced_map"), ("shuffled", "shuffle_harbors"),
            ("delay", "harbor_delay"), ("strict", "strict_phases"))
_FLAGS = (("dev", "dev_played"), ("built", "built"), ("token", "token_used"),
          ("knight", "knight_discarded"))
_STATUS = {-1: "-", 0: "?", 1: "y", 2: "n", 3: "c"}
_SETUP = (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)
_NEUTRAL_PHASES = (Phase.NEUTRAL_ROAD, Phase.NEUTRAL_SETTLEMENT)


def _fail(message: str) -> BadPosition:
    return BadPosition(message)


@dataclass(frozen=True, slots=True)
class SeatPosition:
    """One seat (or, for the neutral players, one owner) of a :class:`Position`.

    ``dev`` counts the development cards held, by type, the ones bought this
    turn included; ``dev_new`` says how many of them were bought this turn
    (the current seat only). ``knights`` are the played knights in front of
    the seat. ``owe``: in the discard phase, cards still to discard (None:
    half the hand when it holds 8 or more). ``tokens``: trade tokens (the
    2-player game; None: 5). ``proposal``: an open proposal to the current
    player, ``(give, get)`` from this seat's side; ``proposals``: proposals made
    this turn (None: 1 with an open one, else 0). ``offers``: domestic offers this
    seat opened this turn (None: 1 for the offerer of the open offer, else 0;
    at most :data:`MAX_OFFERS`). ``counter``: the counter-offer
    this seat made to the open offer. ``pending``: harbor intersections this
    seat settled this turn, usable from the next (R-OPT-3)."""

    settlements: tuple[int, ...] = ()
    cities: tuple[int, ...] = ()
    roads: tuple[int, ...] = ()
    hand: Cards = _NONE
    dev: Cards = _NONE
    dev_new: Cards = _NONE
    knights: int = 0
    tokens: int | None = None
    owe: int | None = None
    proposal: Terms | None = None
    proposals: int | None = None
    counter: Terms | None = None
    pending: tuple[int, ...] = ()
    offers: int | None = None


@dataclass(frozen=True, slots=True)
class Position:
    """A game position as a person describes it (see the module docstring).

    Defaults: the board is the ``seed``'s (with the settings' map options),
    ``turn`` 1 (0 during set-up), the robber on the desert, the dice rolled as
    the phase implies (``rolls`` None: none before the roll and in set-up, all
    of them otherwise; give 0 for a knight played before the roll), no card
    played and nothing built yet. ``offer``: the current player's open offer
    ``(give, get)`` (phase ``trade``), ``answers`` one of ``- ? y n c`` per seat
    (not addressed, waiting, accepted, rejected, countered; None: everyone
    else waiting). ``longest_road``/``largest_army`` are needed only where the
    counts tie (the card stays with whoever had it first); ``played``: the
    development cards played so far by type (None: the seats' knights).
    ``rng``: the random generator's state (None: as a new game of this seed
    leaves it). ``special_from``: in the special building phase (5–6
    players, R-56-8), the seat whose turn ended; ``current`` is the seat
    building."""

    settings: Settings = field(default_factory=Settings)
    seats: tuple[SeatPosition, ...] = ()
    neutrals: tuple[SeatPosition, ...] = ()
    seed: int = 0
    board: Board | None = None
    current: int = 0
    phase: str = "main"
    turn: int | None = None
    robber: int | None = None
    dice: tuple[int, int] | None = None
    rolls: int | None = None
    dev_played: bool = False
    built: bool = False
    token_used: bool = False
    knight_discarded: bool = False
    free_roads: int | None = None
    return_phase: str | None = None
    neutral_return: str | None = None
    give_back: int = 0
    setup_node: int | None = None
    offer: Terms | None = None
    answers: str | None = None
    longest_road: int | None = None
    largest_army: int | None = None
    played: Cards | None = None
    winner: int | None = None
    first_seat: int | None = None
    rng: int | None = None
    special_from: int | None = None


# --- building a state ---------------------------------------------------------------


def _ids(values: tuple[int, ...], limit: int, what: str) -> tuple[int, ...]:
    for v in values:
        if type(v) is not int or not 0 <= v < limit:
            raise _fail(f"{what}: {v!r} is not an id 0..{limit - 1}")
    if len(set(values)) != len(values):
        raise _fail(f"{what}: an id is listed twice")
    return values


def _five(v: object, what: str) -> Cards:
    if not isinstance(v, tuple | list) or len(v) != 5 or any(
            type(x) is not int or x < 0 for x in v):
        raise _fail(f"{what} must be five counts >= 0")
    return (v[0], v[1], v[2], v[3], v[4])


def _phase_id(name: str, what: str) -> int:
    if name not in PHASE_NAMES:
        raise _fail(f"{what}: unknown phase {name!r} (one of {', '.join(PHASE_NAMES)})")
    return PHASE_NAMES.index(name)


def build(pos: Position) -> GameState:
    """The :class:`GameState` of ``pos``, validated and with every derived fact
    computed (raises :class:`RulesError`, code ``bad_position``, naming what is
    wrong). The state has no action log (``log`` is None)."""
    st = pos.settings
    n, two = st.players, st.two_player
    if len(pos.seats) != n:
        raise _fail(f"a {n}-player game needs {n} seats, not {len(pos.seats)}")
    if len(pos.neutrals) not in ((0, 2) if two else (0,)):
        raise _fail("neutral players (owners 2 and 3) exist in the 2-player game only")
    if type(pos.current) is not int or not 0 <= pos.current < n:
        raise _fail(f"current must be a seat 0..{n - 1}")
    phase = _phase_id(pos.phase, "phase")
    try:
        s = new_game(st, pos.seed, board=pos.board)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _fail(f"seed or board: {exc}") from exc
    if pos.rng is not None:
        if type(pos.rng) is not int or not 0 <= pos.rng < 1 << 64:
            raise _fail("rng is the generator's 64-bit state")
        s.rng.state = pos.rng
    s.phase = phase
    s.current = pos.current
    setup = phase in _SETUP
    s.turn = (0 if setup else 1) if pos.turn is None else pos.turn
    if type(s.turn) is not int or s.turn < 0:
        raise _fail("turn must be a number >= 0")
    # Pieces.
    geo = s.info.geo
    s.node_owner = [-1] * geo.num_nodes
    s.node_level = [0] * geo.num_nodes
    s.edge_owner = [-1] * geo.num_edges
    described = list(pos.seats)
    if two:
        neutrals = list(pos.neutrals) or [SeatPosition(settlements=(v,)) for v in NEUTRAL_NODES]
        described += neutrals
    for o, sp in enumerate(described):
        what = f"seat {o}" if o < n else f"neutral {o}"
        for level, nodes in ((1, sp.settlements), (2, sp.cities)):
            for v in _ids(nodes, geo.num_nodes, f"{what} buildings"):
                if s.node_owner[v] >= 0:
                    raise _fail(f"intersection {v} has two buildings ({what} and owner "
                                f"{s.node_owner[v]})")
                s.node_owner[v] = o
                s.node_level[v] = level
        for e in _ids(sp.roads, geo.num_edges, f"{what} roads"):
            if s.edge_owner[e] >= 0:
                raise _fail(f"edge {e} has two roads ({what} and owner {s.edge_owner[e]})")
            s.edge_owner[e] = o
        if o >= n and (sp.cities or any(sp.hand) or any(sp.dev) or sp.knights):
            raise _fail(f"{what}: neutral players have settlements and roads only (R-2P-4)")
    # Cards.
    s.hands = [list(_five(sp.hand, f"seat {q} hand")) for q, sp in enumerate(pos.seats)]
    full = st.bank_per_resource
    for r in range(5):
        held = sum(h[r] for h in s.hands)
        if held > full:
            raise _fail(f"the hands hold {held} {('lumber', 'brick', 'wool', 'grain', 'ore')[r]}"
                        f": the game has {full} (R-COMP-3, R-56-5)")
        s.bank[r] = full - held
    s.dev_hand = [list(_five(sp.dev, f"seat {q} dev")) for q, sp in enumerate(pos.seats)]
    s.dev_new = [list(_five(sp.dev_new, f"seat {q} dev_new")) for q, sp in enumerate(pos.seats)]
    s.knights = []
    for q, sp in enumerate(pos.seats):
        if type(sp.knights) is not int or sp.knights < 0:
            raise _fail(f"seat {q}: knights must be a count >= 0")
        s.knights.append(sp.knights)
    out = list(_five(pos.played, "played")) if pos.played is not None else [
        sum(s.knights), 0, 0, 0, 0]
    s.dev_out = out
    for k in range(5):
        left = st.dev_deck[k] - out[k] - sum(h[k] for h in s.dev_hand)
        if left < 0:
            raise _fail(f"more development cards of kind {_DEV[k]} held and played than the "
                        f"{st.dev_deck[k]} of R-COMP-4 (R-56-5)")
        s.dev_deck[k] = left
    # Trade tokens (R-2P-2).
    if two:
        s.tokens = [TOKENS_START if sp.tokens is None else sp.tokens for sp in pos.seats]
        if any(type(x) is not int or x < 0 for x in s.tokens) or sum(s.tokens) > TOKEN_STOCK:
            raise _fail(f"trade tokens: at most {TOKEN_STOCK} in all (R-2P-2)")
        s.token_stock = TOKEN_STOCK - sum(s.tokens)
    elif any(sp.tokens for sp in pos.seats) or pos.token_used or pos.knight_discarded:
        raise _fail("trade tokens exist in the 2-player game only")
    s.token_used = pos.token_used
    s.knight_discarded = pos.knight_discarded
    # Turn facts.
    rpt = st.rolls_per_turn
    default_rolls = 0 if setup or phase == Phase.PRE_ROLL else rpt
    s.rolls_done = default_rolls if pos.rolls is None else pos.rolls
    if type(s.rolls_done) is not int or not 0 <= s.rolls_done <= rpt:
        raise _fail(f"rolls is 0..{rpt}")
    s.rolled = s.rolls_done >= rpt
    if pos.dice is not None:
        if len(pos.dice) != 2 or any(type(d) is not int or not 1 <= d <= 6 for d in pos.dice):
            raise _fail("dice are two numbers 1..6")
        s.last_roll = (pos.dice[0], pos.dice[1])
    elif s.rolls_done:
        raise _fail("give the dice of the roll made this turn (dice=a,b)")
    else:
        s.last_roll = None
    s.dev_played = pos.dev_played
    s.built = pos.built
    s.return_phase = (_phase_id(pos.return_phase, "return") if pos.return_phase is not None
                      else default_return(phase, s.rolled))
    if phase == Phase.ROAD_BUILDING:
        s.free_roads = 2 if pos.free_roads is None else pos.free_roads
    elif phase in _NEUTRAL_PHASES and pos.free_roads is not None:
        s.free_roads = pos.free_roads
    else:
        s.free_roads = 0
    s.neutral_return = (_phase_id(pos.neutral_return, "neutral_return")
                        if pos.neutral_return is not None
                        else Phase.ROAD_BUILDING if s.free_roads else s.return_phase)
    s.give_back = pos.give_back
    s.discard_owed = [0] * n
    if phase == Phase.DISCARD:
        for q, sp in enumerate(pos.seats):
            held = sum(s.hands[q])
            s.discard_owed[q] = (held // 2 if held >= 8 else 0) if sp.owe is None else sp.owe
    elif any(sp.owe for sp in pos.seats):
        raise _fail("cards are owed only in the discard phase")
    if pos.robber is not None:  # else where the new game put it (R-BOARD-3, R-56-4)
        s.robber = pos.robber
    if type(s.robber) is not int or not 0 <= s.robber < geo.num_hexes:
        raise _fail(f"robber: no hex {s.robber!r}")
    s.special_from = -1
    if phase == Phase.SPECIAL_BUILD:
        if pos.special_from is None:
            raise _fail("special_build: say whose turn ended (from=)")
        s.special_from = pos.special_from
        if type(s.special_from) is not int or not 0 <= s.special_from < n:
            raise _fail(f"from: a seat 0..{n - 1}")
    elif pos.special_from is not None:
        raise _fail("from= (whose turn ended) goes with phase=special_build only")
    s.pending_harbors = []
    for q, sp in enumerate(pos.seats):
        for v in _ids(sp.pending, geo.num_nodes, f"seat {q} pending harbors"):
            s.pending_harbors.append((q, v))
    # Domestic trade.
    s.trade = None
    if pos.offer is not None:
        give, get = (_five(x, "offer") for x in pos.offer)
        answers = pos.answers or "".join("-" if q == pos.current else "?" for q in range(n))
        if len(answers) != n or any(c not in "-?ync" for c in answers):
            raise _fail(f"answers: one of - ? y n c per seat ({n} in all)")
        codes = {v: k for k, v in _STATUS.items()}
        status = tuple(codes[c] for c in answers)
        counters = tuple(
            None if sp.counter is None else (_five(sp.counter[0], "counter"),
                                             _five(sp.counter[1], "counter"))
            for sp in pos.seats)
        s.trade = Trade(pos.current, give, get, status, counters)
    elif pos.answers is not None or any(sp.counter for sp in pos.seats):
        raise _fail("answers and counter-offers need an open offer")
    s.proposals = {}
    s.proposals_made = [0] * n
    s.offers_made = [0] * n
    for q, sp in enumerate(pos.seats):
        offered = (1 if s.trade is not None and s.trade.offerer == q else 0) \
            if sp.offers is None else sp.offers
        if type(offered) is not int or not 0 <= offered <= MAX_OFFERS:
            raise _fail(f"seat {q}: 0..{MAX_OFFERS} offers a turn")
        s.offers_made[q] = offered
    for q, sp in enumerate(pos.seats):
        if sp.proposal is not None:
            s.proposals[q] = (_five(sp.proposal[0], "proposal"), _five(sp.proposal[1],
                                                                       "proposal"))
        made = (1 if sp.proposal is not None else 0) if sp.proposals is None else sp.proposals
        if type(made) is not int or not 0 <= made <= MAX_PROPOSALS:
            raise _fail(f"seat {q}: 0..{MAX_PROPOSALS} proposals a turn (R-TRADE-2)")
        s.proposals_made[q] = made
    s.winner = pos.winner
    s.setup_node = -1
    if phase == Phase.SETUP_ROAD:
        s.setup_node = pos.setup_node if pos.setup_node is not None else _awaiting_road(s)
    # Who started: only set-up needs it; the turns follow from it (R-SETUP-1).
    if pos.first_seat is not None:
        s.first_seat = pos.first_seat
    elif setup:
        placed = setup_placements(s) - (1 if phase == Phase.SETUP_ROAD else 0)
        i = placed if placed < n else 2 * n - 1 - placed
        s.first_seat = (s.current - i) % n
    else:
        s.first_seat = (_turn_seat(s) - max(0, s.turn - 1)) % n
    s.lr_holder = -1 if pos.longest_road is None else pos.longest_road
    s.la_holder = -1 if pos.largest_army is None else pos.largest_army
    s.log = None
    settle(s)
    _check_holder(s, pos.longest_road, s.lr_holder, "Longest Road", s.road_len, 5)
    _check_holder(s, pos.largest_army, s.la_holder, "Largest Army", s.knights, 3)
    if setup and s.current != setup_seat(s, s.setup_step):
        raise _fail("the set-up order does not match first_seat")
    check_legal(s)
    return s


def _awaiting_road(s: GameState) -> int:
    """The current seat's settlement that has no road yet (set-up)."""
    q = s.current
    geo = s.info.geo
    bare = [v for v in range(geo.num_nodes) if s.node_owner[v] == q
            and not any(s.edge_owner[e] == q for e in geo.node_edges[v])]
    if len(bare) != 1:
        raise _fail("setup_road: say which settlement awaits its road (setup_node=)")
    return bare[0]


def _check_holder(s: GameState, wanted: int | None, got: int, what: str,
                  counts: list[int], least: int) -> None:
    if wanted is not None and wanted != got:
        raise _fail(f"{what}: owner {wanted} cannot hold it with {counts[wanted]} against "
                    f"{max(counts)} (it needs {least}+ and nobody ahead)"
                    if 0 <= wanted < len(counts) else f"{what}: no owner {wanted}")


# --- the way back --------------------------------------------------------------------


def _terms(t: tuple[tuple[int, ...], tuple[int, ...]]) -> Terms:
    a, b = t
    return ((a[0], a[1], a[2], a[3], a[4]), (b[0], b[1], b[2], b[3], b[4]))


def position_of(s: GameState) -> Position:
    """The :class:`Position` that :func:`build` turns back into ``s`` (without
    its log); only what cannot be derived is filled in."""
    st = s.settings
    n = st.players
    nodes, edges = range(s.info.num_nodes), range(s.info.num_edges)
    seats = []
    for q in range(n):
        owe = s.discard_owed[q]
        held = sum(s.hands[q])
        default_owe = held // 2 if held >= 8 else 0
        prop = s.proposals.get(q)
        seats.append(SeatPosition(
            settlements=tuple(v for v in nodes
                              if s.node_owner[v] == q and s.node_level[v] == 1),
            cities=tuple(v for v in nodes
                         if s.node_owner[v] == q and s.node_level[v] == 2),
            roads=tuple(e for e in edges if s.edge_owner[e] == q),
            hand=_five(tuple(s.hands[q]), "hand"),
            dev=_five(tuple(s.dev_hand[q]), "dev"),
            dev_new=_five(tuple(s.dev_new[q]), "dev_new"),
            knights=s.knights[q],
            tokens=s.tokens[q] if st.two_player else None,
            owe=None if s.phase != Phase.DISCARD or owe == default_owe else owe,
            proposal=None if prop is None else _terms(prop),
            proposals=None if s.proposals_made[q] == (1 if prop else 0) else s.proposals_made[q],
            counter=(None if s.trade is None or s.trade.counters[q] is None
                     else _terms(s.trade.counters[q])),  # type: ignore[arg-type]
            pending=tuple(v for p, v in s.pending_harbors if p == q),
            offers=None if s.offers_made[q] == (
                1 if s.trade is not None and s.trade.offerer == q else 0) else s.offers_made[q],
        ))
    neutrals: tuple[SeatPosition, ...] = ()
    if st.two_player:
        neutrals = tuple(SeatPosition(
            settlements=tuple(v for v in nodes if s.node_owner[v] == o),
            roads=tuple(e for e in edges if s.edge_owner[e] == o))
            for o in (2, 3))
        if all(x.settlements == (v,) and not x.roads
               for x, v in zip(neutrals, NEUTRAL_NODES, strict=True)):
            neutrals = ()
    phase = s.phase
    setup = phase in _SETUP
    fresh = new_game(st, s.seed)  # the seed's own board and generator state
    rpt = st.rolls_per_turn
    default_rolls = 0 if setup or phase == Phase.PRE_ROLL else rpt
    back = default_return(phase, s.rolled)
    default_free = 2 if phase == Phase.ROAD_BUILDING else 0
    free = None if s.free_roads == default_free else s.free_roads
    # Holders only where the counts do not decide (a tie keeps the first holder).
    lr = s.lr_holder if holder(-1, s.road_len, 5) != s.lr_holder else None
    la = s.la_holder if holder(-1, s.knights, 3) != s.la_holder else None
    default_played = (sum(s.knights), 0, 0, 0, 0)
    base = Position(settings=st, seats=(), seed=s.seed, phase=PHASE_NAMES[phase],
                    current=s.current)
    derived_first = _derived_first(s)
    return replace(
        base,
        seats=tuple(seats),
        neutrals=neutrals,
        board=None if fresh.board == s.board else s.board,
        turn=None if s.turn == (0 if setup else 1) else s.turn,
        robber=None if s.robber == new_game(st, s.seed, board=s.board).robber else s.robber,
        dice=s.last_roll,
        rolls=None if s.rolls_done == default_rolls else s.rolls_done,
        dev_played=s.dev_played,
        built=s.built,
        token_used=s.token_used,
        knight_discarded=s.knight_discarded,
        free_roads=free,
        return_phase=None if s.return_phase == back else PHASE_NAMES[s.return_phase],
        neutral_return=(None if phase not in _NEUTRAL_PHASES or s.neutral_return == (
            Phase.ROAD_BUILDING if s.free_roads else s.return_phase)
            else PHASE_NAMES[s.neutral_return]),
        give_back=s.give_back,
        setup_node=s.setup_node if phase == Phase.SETUP_ROAD else None,
        offer=None if s.trade is None else _terms((s.trade.give, s.trade.get)),
        answers=None if s.trade is None else "".join(_STATUS[x] for x in s.trade.status),
        longest_road=None if lr is None or lr < 0 else lr,
        largest_army=None if la is None or la < 0 else la,
        played=None if tuple(s.dev_out) == default_played else _five(tuple(s.dev_out),
                                                                      "played"),
        winner=s.winner,
        first_seat=None if s.first_seat == derived_first else s.first_seat,
        rng=None if s.rng.state == fresh.rng.state else s.rng.state,
        special_from=None if s.special_from < 0 else s.special_from,
    )


def _derived_first(s: GameState) -> int:
    n = s.settings.players
    if s.phase in _SETUP:
        placed = setup_placements(s) - (1 if s.phase == Phase.SETUP_ROAD else 0)
        i = placed if placed < n else 2 * n - 1 - placed
        return (s.current - i) % n
    return (_turn_seat(s) - max(0, s.turn - 1)) % n


def _turn_seat(s: GameState) -> int:
    """Whose turn it is: the current seat, or in a Special Building Phase the
    seat whose turn ended (R-56-8)."""
    return s.special_from if s.phase == Phase.SPECIAL_BUILD else s.current


# --- the text form --------------------------------------------------------------------


def _cards_text(c: Cards, letters: str = _RES) -> str:
    return "".join(f"{letters[r]}{c[r]}" for r in range(5) if c[r]) or "-"


def _terms_text(t: Terms) -> str:
    return f"{_cards_text(t[0])}>{_cards_text(t[1])}"


def _ids_text(ids: tuple[int, ...]) -> str:
    return ",".join(str(x) for x in ids)


def to_text(s: GameState | Position) -> str:
    """The one-line text form of a position (see ``docs/ENGINE.md``)."""
    pos = s if isinstance(s, Position) else position_of(s)
    st = pos.settings
    out = [HEADER, f"p={st.players}"]
    if st.vp_target != 10:
        out.append(f"vp={st.vp_target}")
    if st.turn_cap:
        out.append(f"cap={st.turn_cap}")
    opts = [short for short, name in _OPTIONS if getattr(st, name)]
    if opts:
        out.append("opt=" + ",".join(opts))
    if pos.seed:
        out.append(f"seed={pos.seed}")
    if pos.board is not None:
        b = pos.board
        terrain = "".join("D" if t == DESERT else _RES[t] for t in b.terrain)
        harbors = "".join("3" if h == GENERIC_HARBOR else _RES[h] for h in b.harbors)
        out.append(f"board={terrain}:{_ids_text(b.numbers)}:{harbors}")
    if pos.rng is not None:
        out.append(f"rng={pos.rng:016x}")
    if pos.first_seat is not None:
        out.append(f"first={pos.first_seat}")
    if pos.turn is not None:
        out.append(f"turn={pos.turn}")
    out.append(f"cur={pos.current}")
    if pos.phase != "main":
        out.append(f"phase={pos.phase}")
    if pos.dice is not None:
        out.append(f"dice={pos.dice[0]},{pos.dice[1]}")
    if pos.rolls is not None:
        out.append(f"rolls={pos.rolls}")
    if pos.robber is not None:
        out.append(f"robber={pos.robber}")
    flags = [short for short, name in _FLAGS if getattr(pos, name)]
    if flags:
        out.append("flags=" + ",".join(flags))
    if pos.return_phase is not None:
        out.append(f"return={pos.return_phase}")
    if pos.neutral_return is not None:
        out.append(f"neutral_return={pos.neutral_return}")
    if pos.free_roads is not None:
        out.append(f"free={pos.free_roads}")
    if pos.give_back:
        out.append(f"giveback={pos.give_back}")
    if pos.setup_node is not None:
        out.append(f"setup_node={pos.setup_node}")
    if pos.offer is not None:
        out.append(f"offer={_terms_text(pos.offer)}")
    if pos.answers is not None:
        out.append(f"answers={pos.answers}")
    if pos.longest_road is not None:
        out.append(f"lr={pos.longest_road}")
    if pos.largest_army is not None:
        out.append(f"la={pos.largest_army}")
    if pos.played is not None:
        out.append(f"played={_cards_text(pos.played, _DEV)}")
    if pos.winner is not None:
        out.append(f"winner={pos.winner}")
    if pos.special_from is not None:
        out.append(f"from={pos.special_from}")
    for q, sp in enumerate(pos.seats):
        out.append(f"#{q}")
        out.extend(_seat_text(sp))
    for o, sp in enumerate(pos.neutrals, start=2):
        out.append(f"#n{o}")
        out.extend(_seat_text(sp))
    return " ".join(out)


def _seat_text(sp: SeatPosition) -> list[str]:
    out = []
    if sp.settlements:
        out.append(f"s={_ids_text(sp.settlements)}")
    if sp.cities:
        out.append(f"c={_ids_text(sp.cities)}")
    if sp.roads:
        out.append(f"r={_ids_text(sp.roads)}")
    if any(sp.hand):
        out.append(f"h={_cards_text(sp.hand)}")
    if any(sp.dev):
        out.append(f"d={_cards_text(sp.dev, _DEV)}")
    if any(sp.dev_new):
        out.append(f"new={_cards_text(sp.dev_new, _DEV)}")
    if sp.knights:
        out.append(f"k={sp.knights}")
    if sp.tokens is not None:
        out.append(f"t={sp.tokens}")
    if sp.owe is not None:
        out.append(f"owe={sp.owe}")
    if sp.proposal is not None:
        out.append(f"prop={_terms_text(sp.proposal)}")
    if sp.proposals is not None:
        out.append(f"props={sp.proposals}")
    if sp.offers is not None:
        out.append(f"offers={sp.offers}")
    if sp.counter is not None:
        out.append(f"counter={_terms_text(sp.counter)}")
    if sp.pending:
        out.append(f"pending={_ids_text(sp.pending)}")
    return out


MAX_TEXT = 4096
"""Longest text :func:`parse` reads (a full 4-player position is ~400 characters)."""


def parse(text: str) -> Position:
    """The :class:`Position` a text form describes (checked for syntax only;
    :func:`build` checks that it is a legal game)."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise _fail(f"a position text is a string of at most {MAX_TEXT} characters")
    tokens = text.split()
    if not tokens or tokens[0] != HEADER:
        head = tokens[0] if tokens else ""
        raise _fail(f"a position text starts with {HEADER!r}, not {head[:20]!r}")
    top: dict[str, str] = {}
    sections: list[tuple[str, dict[str, str]]] = []
    current = top
    for tok in tokens[1:]:
        if tok.startswith("#"):
            current = {}
            sections.append((tok[1:], current))
            continue
        key, eq, value = tok.partition("=")
        if not eq or not key:
            raise _fail(f"{tok[:30]!r} is not key=value")
        if key in current:
            raise _fail(f"{key!r} is given twice")
        current[key] = value
    return _position(top, sections)


def _num(v: str, what: str) -> int:
    if not v.isascii() or not v.isdigit() or len(v) > 20:
        raise _fail(f"{what}: {v[:20]!r} is not a number")
    return int(v)


def _num_list(v: str, what: str) -> tuple[int, ...]:
    return tuple(_num(x, what) for x in v.split(",")) if v else ()


def _letters(v: str, letters: str, what: str) -> Cards:
    if v == "-":
        return _NONE
    out = [0] * 5
    i = 0
    seen = set()
    while i < len(v):
        c = v[i]
        if c not in letters or c in seen:
            raise _fail(f"{what}: {v[:20]!r}: a letter of {letters} and a count, each once")
        seen.add(c)
        j = i + 1
        while j < len(v) and v[j].isdigit():
            j += 1
        if j == i + 1:
            raise _fail(f"{what}: {c} needs a count")
        out[letters.index(c)] = _num(v[i + 1:j], what)
        i = j
    return (out[0], out[1], out[2], out[3], out[4])


def _terms_of(v: str, what: str) -> Terms:
    give, sep, get = v.partition(">")
    if not sep:
        raise _fail(f"{what}: give>get, e.g. L1>O1")
    return (_letters(give, _RES, what), _letters(get, _RES, what))


_SEAT_KEYS = frozenset({"s", "c", "r", "h", "d", "new", "k", "t", "owe", "prop", "props",
                        "offers", "counter", "pending"})
_TOP_KEYS = frozenset({"p", "vp", "cap", "opt", "seed", "board", "rng", "first", "turn", "cur",
                       "phase", "dice", "rolls", "robber", "flags", "return", "neutral_return",
                       "free", "giveback", "setup_node", "offer", "answers", "lr", "la",
                       "played", "winner", "from"})


def _seat_of(d: dict[str, str], what: str) -> SeatPosition:
    unknown = set(d) - _SEAT_KEYS
    if unknown:
        raise _fail(f"{what}: unknown key {sorted(unknown)[0]!r}")

    def opt_num(key: str) -> int | None:
        return _num(d[key], f"{what} {key}") if key in d else None

    return SeatPosition(
        settlements=_num_list(d.get("s", ""), f"{what} s"),
        cities=_num_list(d.get("c", ""), f"{what} c"),
        roads=_num_list(d.get("r", ""), f"{what} r"),
        hand=_letters(d.get("h", "-"), _RES, f"{what} h"),
        dev=_letters(d.get("d", "-"), _DEV, f"{what} d"),
        dev_new=_letters(d.get("new", "-"), _DEV, f"{what} new"),
        knights=opt_num("k") or 0,
        tokens=opt_num("t"),
        owe=opt_num("owe"),
        proposal=_terms_of(d["prop"], f"{what} prop") if "prop" in d else None,
        proposals=opt_num("props"),
        counter=_terms_of(d["counter"], f"{what} counter") if "counter" in d else None,
        pending=_num_list(d.get("pending", ""), f"{what} pending"),
        offers=opt_num("offers"),
    )


def _position(top: dict[str, str], sections: list[tuple[str, dict[str, str]]]) -> Position:
    unknown = set(top) - _TOP_KEYS
    if unknown:
        raise _fail(f"unknown key {sorted(unknown)[0]!r}")
    if "p" not in top:
        raise _fail("p= (the number of players) is required")
    opts = set(top["opt"].split(",")) if top.get("opt") else set()
    names = dict(_OPTIONS)
    if opts - set(names):
        raise _fail(f"opt: {sorted(opts - set(names))[0]!r} (one of {', '.join(names)})")
    try:
        settings = Settings(players=_num(top["p"], "p"),
                            vp_target=_num(top.get("vp", "10"), "vp"),
                            turn_cap=_num(top.get("cap", "0"), "cap"),
                            **{names[o]: True for o in opts})
    except BadPosition:
        raise
    except Exception as exc:
        raise _fail(f"settings: {exc}") from exc
    n = settings.players
    board = None
    if "board" in top:
        board = _board(top["board"])
    seats: list[SeatPosition | None] = [None] * n
    neutrals: list[SeatPosition | None] = [None, None]
    for name, d in sections:
        if name.startswith("n") and name[1:] in ("2", "3") and settings.two_player:
            o = int(name[1:]) - 2
            if neutrals[o] is not None:
                raise _fail(f"#{name} is given twice")
            sp = _seat_of(d, f"neutral {name[1:]}")
            neutrals[o] = sp
        elif name.isascii() and name.isdigit() and int(name) < n:
            q = int(name)
            if seats[q] is not None:
                raise _fail(f"#{q} is given twice")
            seats[q] = _seat_of(d, f"seat {q}")
        else:
            raise _fail(f"#{name[:10]}: a seat 0..{n - 1}"
                        + (" or a neutral n2, n3" if settings.two_player else ""))
    nts: tuple[SeatPosition, ...] = ()
    if any(x is not None for x in neutrals):
        nts = tuple(x if x is not None else SeatPosition(settlements=(NEUTRAL_NODES[i],))
                    for i, x in enumerate(neutrals))
    flags = set(top["flags"].split(",")) if top.get("flags") else set()
    flag_names = dict(_FLAGS)
    if flags - set(flag_names):
        raise _fail(f"flags: {sorted(flags - set(flag_names))[0]!r} "
                    f"(one of {', '.join(flag_names)})")

    def opt_num(key: str) -> int | None:
        return _num(top[key], key) if key in top else None

    dice: tuple[int, int] | None = None
    if "dice" in top:
        pair = _num_list(top["dice"], "dice")
        if len(pair) != 2:
            raise _fail("dice=a,b: two dice")
        dice = (pair[0], pair[1])
    rng = None
    if "rng" in top:
        try:
            rng = int(top["rng"], 16)
        except ValueError:
            raise _fail("rng: 16 hex digits") from None
    return Position(
        settings=settings,
        seats=tuple(x if x is not None else SeatPosition() for x in seats),
        neutrals=nts,
        seed=opt_num("seed") or 0,
        board=board,
        current=opt_num("cur") or 0,
        phase=top.get("phase", "main"),
        turn=opt_num("turn"),
        robber=opt_num("robber"),
        dice=dice,
        rolls=opt_num("rolls"),
        free_roads=opt_num("free"),
        return_phase=top.get("return"),
        neutral_return=top.get("neutral_return"),
        give_back=opt_num("giveback") or 0,
        setup_node=opt_num("setup_node"),
        offer=_terms_of(top["offer"], "offer") if "offer" in top else None,
        answers=top.get("answers"),
        longest_road=opt_num("lr"),
        largest_army=opt_num("la"),
        played=_letters(top["played"], _DEV, "played") if "played" in top else None,
        winner=opt_num("winner"),
        first_seat=opt_num("first"),
        rng=rng,
        special_from=opt_num("from"),
        **{flag_names[f]: True for f in flags},
    )


def _board(v: str) -> Board:
    parts = v.split(":")
    if len(parts) != 3:
        raise _fail("board=TERRAIN:NUMBERS:HARBORS (19 letters, 19 numbers, 9 letters; "
                    "30, 30 and 11 with 5 or 6 players)")
    terrain_s, numbers_s, harbors_s = parts
    if any(c not in _RES + "D" for c in terrain_s) or any(c not in _HARBOR for c in harbors_s):
        raise _fail("board: terrain letters are L B W G O D, harbor letters L B W G O 3")
    terrain = tuple(DESERT if c == "D" else _RES.index(c) for c in terrain_s)
    harbors = tuple(GENERIC_HARBOR if c == "3" else _RES.index(c) for c in harbors_s)
    numbers = _num_list(numbers_s, "board numbers")
    try:
        return Board(terrain, numbers, harbors)
    except ValueError as exc:
        raise _fail(f"board: {exc}") from exc


def from_text(text: str) -> GameState:
    """The game state a text form describes (:func:`parse`, then :func:`build`)."""
    return build(parse(text))


def describe(**kw: Any) -> GameState:
    """:func:`build` from keyword arguments of :class:`Position` (seats as
    :class:`SeatPosition` or dicts of its fields)."""
    seats = tuple(x if isinstance(x, SeatPosition) else SeatPosition(**x)
                  for x in kw.pop("seats", ()))
    neutrals = tuple(x if isinstance(x, SeatPosition) else SeatPosition(**x)
                     for x in kw.pop("neutrals", ()))
    return build(Position(seats=seats, neutrals=neutrals, **kw))


__all__ = ["HEADER", "Position", "SeatPosition", "build", "describe", "from_text", "parse",
           "position_of", "to_text"]
