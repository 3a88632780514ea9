"""The rules: ``new_game``, ``to_act``, ``legal_actions``, ``apply``.

Every handler checks everything before it changes anything, so an illegal
action raises an :class:`~protocol.rules.errors.IllegalAction` and leaves the
state exactly as it was. Chance (dice, development card draws, stolen cards)
comes from the state's own RNG; each outcome is returned to the log, and a
recorded outcome can be fed back (``chance=``) so a log replays exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from .actions import (
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
    StopRoadBuilding,
    TokenForcedTrade,
    TokenRobberHome,
    WithdrawProposal,
)
from .board import (
    DESERT,
    MAX_EDGES,
    MAX_HEXES,
    MAX_NODES,
    Board,
    generate_board,
)
from .errors import IllegalAction, MalformedAction, NotYourTurn, RulesError
from .events import (
    CityBuilt,
    DevCardBought,
    DevCardPlayed,
    DiceRolled,
    Discarded,
    DiscardsOwed,
    Event,
    ForcedTradeDrawn,
    GameOver,
    GaveBack,
    KnightDiscarded,
    LargestArmyChanged,
    LongestRoadChanged,
    MaritimeTraded,
    MonopolyTaken,
    Produced,
    ProposalRejected,
    ProposalWithdrawn,
    RoadBuildingStopped,
    RoadBuilt,
    RobberMoved,
    SettlementBuilt,
    SetupIncome,
    SpecialBuildStarted,
    Stolen,
    TokensGained,
    TokensSpent,
    TradeAnswered,
    TradeCancelled,
    TradeCompleted,
    TradeCountered,
    TradeOffered,
    TradeProposed,
    TurnEnded,
    TurnStarted,
    YearOfPlentyTaken,
)
from .rng import Rng
from .state import (  # two-player and options
    CITIES,
    KNIGHT,
    MAX_OFFERS,
    MAX_PROPOSALS,
    MONOPOLY,
    NEUTRAL_NODES,
    PIECES,
    ROADS,
    SETTLEMENTS,
    TOKEN_STOCK,
    TOKENS_START,
    VICTORY_POINT,
    YEAR_OF_PLENTY,
    BoardInfo,
    GameState,
    Phase,
    Settings,
    Trade,
    add_production_node,
    apply_harbor,
)
from .state import (
    ROAD_BUILDING as RB_CARD,
)

SETUP_SETTLEMENT = Phase.SETUP_SETTLEMENT.value
SETUP_ROAD = Phase.SETUP_ROAD.value
PRE_ROLL = Phase.PRE_ROLL.value
DISCARD = Phase.DISCARD.value
MOVE_ROBBER = Phase.MOVE_ROBBER.value
STEAL = Phase.STEAL.value
MAIN = Phase.MAIN.value
ROAD_BUILDING = Phase.ROAD_BUILDING.value
TRADE = Phase.TRADE.value
GAME_OVER = Phase.GAME_OVER.value
NEUTRAL_ROAD = Phase.NEUTRAL_ROAD.value
NEUTRAL_SETTLEMENT = Phase.NEUTRAL_SETTLEMENT.value
GIVE_BACK = Phase.GIVE_BACK.value
SPECIAL_BUILD = Phase.SPECIAL_BUILD.value
_CAN_WIN = tuple(p > SETUP_ROAD and p not in (GAME_OVER, SPECIAL_BUILD) for p in range(len(Phase)))
"""By phase: whether the current player wins on reaching the target (R-WIN-1);
not during set-up, once the game is over, nor in a Special Building Phase,
where nobody wins (R-56-9)."""

Chance = tuple[int, ...] | None

# Interned action objects: legal_actions hands out the same instances every time.
_ROAD = tuple(BuildRoad(e) for e in range(MAX_EDGES))
_SETTLE = tuple(BuildSettlement(n) for n in range(MAX_NODES))
_CITY = tuple(BuildCity(n) for n in range(MAX_NODES))
_ROBBER = tuple(MoveRobber(h) for h in range(MAX_HEXES))
_STEAL = tuple(Steal(s) for s in range(8))
_MARITIME = tuple(tuple(MaritimeTrade(g, r) for r in range(5)) for g in range(5))
_MONO = tuple(PlayMonopoly(r) for r in range(5))
_YOP = {(a, b): PlayYearOfPlenty(a, b) for a in range(5) for b in [*range(a, 5), None]}
_CONFIRM = tuple(ConfirmTrade(s) for s in range(8))
_ROLL = RollDice()
_END = EndTurn()
_BUY = BuyDevCard()
_KNIGHT = PlayKnight()
_RB = PlayRoadBuilding()
_ACCEPT = AcceptTrade()
_REJECT = RejectTrade()
_CANCEL = CancelTrade()
_ROLL_ONLY = (_ROLL,)
_NEUTRAL_ROAD = {(o, e): BuildNeutralRoad(o, e) for o in (2, 3) for e in range(MAX_EDGES)}
_NEUTRAL_SETTLE = {(o, n): BuildNeutralSettlement(o, n) for o in (2, 3) for n in range(MAX_NODES)}
_FORCED = TokenForcedTrade()
_ROBBER_HOME = TokenRobberHome()
_DISCARD_KNIGHT = DiscardKnight()
_STOP_RB = StopRoadBuilding()
_WITHDRAW = WithdrawProposal()
_WITHDRAW_ONLY = (_WITHDRAW,)
_ACCEPT_P = tuple(AcceptProposal(q) for q in range(8))
_REJECT_P = tuple(RejectProposal(q) for q in range(8))


# --- creating a game ----------------------------------------------------------


def new_game(
    settings: Settings | None = None,
    seed: int = 0,
    *,
    board: Board | None = None,
    first_seat: int | None = None,
) -> GameState:
    """A new game in its set-up phase.

    The board (R-BOARD-2/5), the starting seat (R-SETUP-1) and, with 5 or 6
    players, the desert the robber starts on (R-56-4) come from the seed;
    ``board``/``first_seat`` override them (fixed boards, scenario tests)
    without changing how the RNG is consumed.
    """
    settings = settings or Settings()
    n = settings.players
    owners = settings.owners
    geo = settings.geometry
    rng = Rng(seed)
    generated = generate_board(
        rng, balanced=settings.balanced_map, shuffle_harbors=settings.shuffle_harbors,
        geometry=geo,
    )
    drawn_first = rng.below(n)
    if first_seat is not None and not 0 <= first_seat < n:
        raise RulesError(f"first_seat must be a seat 0..{n - 1}", "bad_settings")
    s = GameState.__new__(GameState)
    s.settings = settings
    s.info = BoardInfo(board if board is not None else generated, settings)
    deserts = s.info.board.deserts
    robber = deserts[rng.below(len(deserts))] if settings.extension else deserts[0]
    s.seed = seed
    s.rng = rng
    s.phase = SETUP_SETTLEMENT
    s.first_seat = drawn_first if first_seat is None else first_seat
    s.current = s.first_seat
    s.turn = 0
    s.setup_step = 0
    s.setup_node = -1
    s.hands = [[0] * 5 for _ in range(n)]
    s.bank = [settings.bank_per_resource] * 5
    s.dev_deck = list(settings.dev_deck)
    s.dev_hand = [[0] * 5 for _ in range(n)]
    s.dev_new = [[0] * 5 for _ in range(n)]
    s.dev_played = False
    s.knights = [0] * n
    s.node_owner = [-1] * geo.num_nodes
    s.node_level = [0] * geo.num_nodes
    s.edge_owner = [-1] * geo.num_edges
    s.roads = [[] for _ in range(owners)]
    s.reach = [set() for _ in range(owners)]
    s.pieces = [list(PIECES) for _ in range(owners)]
    s.ratios = [[4] * 5 for _ in range(n)]
    s.robber = robber  # R-BOARD-3, R-56-4
    s.lr_holder = -1
    s.road_len = [0] * owners
    s.la_holder = -1
    s.discard_owed = [0] * n
    s.rolled = False
    s.free_roads = 0
    s.return_phase = MAIN
    s.steal_from = ()
    s.trade = None
    s.winner = None
    s.last_roll = None
    s.vp = [0] * owners
    s.prod_nodes = [()] * 13
    two = settings.two_player
    s.tokens = [TOKENS_START] * n if two else [0] * n
    s.token_stock = TOKEN_STOCK - TOKENS_START * n if two else 0
    s.token_used = False
    s.knight_discarded = False
    s.dev_out = [0] * 5
    s.rolls_done = 0
    s.first_sum = 0
    s.neutral_return = MAIN
    s.give_back = 0
    s.built = False
    s.pending_harbors = []
    s.proposals = {}
    s.proposals_made = [0] * n
    s.offers_made = [0] * n
    s.special_from = -1
    s.log = []
    if two:  # R-2P-1: the neutral players' settlements, before the real set-up
        for owner, node in zip((2, 3), NEUTRAL_NODES, strict=True):
            _place_settlement(s, owner, node)
    return s


def setup_seat(s: GameState, step: int) -> int:
    """Who places at set-up step ``step`` (R-SETUP-2, R-56-7: snake order
    A B C D D C B A, A…F F…A with six)."""
    n = s.settings.players
    i = step if step < n else 2 * n - 1 - step
    return (s.first_seat + i) % n


# --- who acts, and what they may do -------------------------------------------


def to_act(s: GameState) -> tuple[int, ...]:
    """The seats that owe a decision now (several during discards and trades)."""
    ph = s.phase
    if ph == DISCARD:
        return tuple(i for i, owed in enumerate(s.discard_owed) if owed)
    if ph == TRADE:
        t = s.trade
        assert t is not None
        waiting = tuple(i for i, st in enumerate(t.status) if st == 0)
        return waiting or (s.current,)
    if ph == GAME_OVER:
        return ()
    return (s.current,)


def legal_actions(s: GameState, seat: int | None = None) -> list[Action]:
    """Every legal action of ``seat`` now, in a canonical order.

    ``seat`` defaults to the first seat of :func:`to_act`. Domestic trade
    offers and counter-offers (unbounded choices) are never listed: check
    them with :func:`validate`. An empty list means the seat has nothing to do.
    """
    ph = s.phase
    if seat is None:
        waiting = to_act(s)
        if not waiting:
            return []
        seat = waiting[0]
    elif not 0 <= seat < s.settings.players:
        return []
    if ph == DISCARD:
        owed = s.discard_owed[seat]
        return list(_discards(tuple(s.hands[seat]), owed)) if owed else []
    if ph == TRADE:
        return _trade_actions(s, seat)
    if seat != s.current or ph == GAME_OVER:
        # A seat not on turn may only take back its open proposal (R-TRADE-2);
        # making one is unbounded, so it is not listed (see may_propose).
        return list(_WITHDRAW_ONLY) if seat in s.proposals and ph != GAME_OVER else []
    if ph == MAIN:
        return _main_actions(s, seat)
    if ph == PRE_ROLL:
        if s.dev_played or not any(s.dev_hand[seat]):
            return list(_ROLL_ONLY)
        out: list[Action] = [_ROLL]
        _dev_actions(s, seat, out)
        return out
    if ph == MOVE_ROBBER:
        r = s.robber
        return [_ROBBER[h] for h in range(s.info.num_hexes) if h != r]
    if ph == STEAL:
        return [_STEAL[v] for v in s.steal_from]
    if ph == ROAD_BUILDING:
        roads: list[Action] = [_ROAD[e] for e in _road_spots(s, seat)]
        if s.free_roads == 1:  # R-DEV-5: "up to" two; the first one is placed
            roads.append(_STOP_RB)
        return roads
    if ph == SPECIAL_BUILD:
        return _special_actions(s, seat)
    if ph == SETUP_SETTLEMENT:
        no = s.node_owner
        nn = s.info.node_nodes
        return [
            _SETTLE[n]
            for n in range(s.info.num_nodes)
            if no[n] < 0 and all(no[m] < 0 for m in nn[n])
        ]
    if ph == SETUP_ROAD:
        eo = s.edge_owner
        return [_ROAD[e] for e in s.info.node_edges[s.setup_node] if eo[e] < 0]
    if ph == NEUTRAL_ROAD:
        return [_NEUTRAL_ROAD[(o, e)] for o in (2, 3) for e in _neutral_road_spots(s, o)]
    if ph == NEUTRAL_SETTLEMENT:
        return [_NEUTRAL_SETTLE[(o, n)] for o in (2, 3) for n in _neutral_settlement_spots(s, o)]
    if ph == GIVE_BACK:
        return [GiveBack(d.cards) for d in _discards(tuple(s.hands[seat]), s.give_back)]
    return []


def _main_actions(s: GameState, p: int) -> list[Action]:
    hand = s.hands[p]
    lumber, brick, wool, grain, ore = hand
    pieces = s.pieces[p]
    out: list[Action] = []
    if lumber and brick:
        if pieces[ROADS]:
            out.extend([_ROAD[e] for e in _road_spots(s, p)])
        if wool and grain and pieces[SETTLEMENTS]:
            no = s.node_owner
            nn = s.info.node_nodes
            out.extend(
                [
                    _SETTLE[n]
                    for n in sorted(s.reach[p])
                    if no[n] < 0 and all(no[m] < 0 for m in nn[n])
                ]
            )
    if grain >= 2 and ore >= 3 and pieces[CITIES]:
        no, lv = s.node_owner, s.node_level
        out.extend([_CITY[n] for n in sorted(s.reach[p]) if no[n] == p and lv[n] == 1])
    if wool and grain and ore and any(s.dev_deck):
        out.append(_BUY)
    if not s.dev_played and any(s.dev_hand[p]):
        _dev_actions(s, p, out)
    if max(hand) >= 2:  # 2 is the best possible ratio (R-OPT-4 leaves maritime trade open)
        ratios = s.ratios[p]
        bank = s.bank
        for give in range(5):
            if hand[give] >= ratios[give]:
                row = _MARITIME[give]
                out.extend([row[get] for get in range(5) if get != give and bank[get]])
    if s.proposals:  # R-TRADE-2: answer the proposals made to us
        hands = s.hands
        for q in sorted(s.proposals):
            offered, asked = s.proposals[q]  # from q's side
            if _covers(hand, asked) and _covers(hands[q], offered):
                out.append(_ACCEPT_P[q])
            out.append(_REJECT_P[q])
    if s.info.two_player:
        _token_actions(s, p, out)
    out.append(_END)
    return out


_SPECIAL_KINDS = frozenset((BuildRoad, BuildSettlement, BuildCity, BuyDevCard, EndTurn))


def _special_actions(s: GameState, p: int) -> list[Action]:
    """R-56-8: in a Special Building Phase, building and buying as in the main
    phase, and ``end_turn`` to pass; no trade, no development card."""
    return [a for a in _main_actions(s, p) if type(a) in _SPECIAL_KINDS]


def may_propose(s: GameState, seat: int) -> bool:
    """Whether ``seat`` may send a :class:`ProposeTrade` now (R-TRADE-2): it is
    not on turn, the current player is in its main phase with domestic trade
    open (R-OPT-4), ``seat`` has no open proposal, has proposals left this turn
    (:data:`MAX_PROPOSALS`) and holds a card to give."""
    return (
        s.phase == MAIN
        and seat != s.current
        and 0 <= seat < s.settings.players
        and not (s.built and s.info.strict)
        and seat not in s.proposals
        and s.proposals_made[seat] < MAX_PROPOSALS
        and any(s.hands[seat])
    )


def token_cost(s: GameState, p: int) -> int:
    """R-2P-5: 1 token if ``p``'s public VP is at most the opponent's, else 2."""
    return 1 if s.vp[p] <= s.vp[1 - p] else 2


def _token_actions(s: GameState, p: int, out: list[Action]) -> None:
    if not s.token_used and s.tokens[p] >= token_cost(s, p):
        if any(s.hands[1 - p]):  # a trade-token action, not a negotiation: R-OPT-4 allows it
            out.append(_FORCED)
        if s.robber != s.info.desert:
            out.append(_ROBBER_HOME)
    if not s.knight_discarded and s.knights[p]:
        out.append(_DISCARD_KNIGHT)


def _dev_actions(s: GameState, p: int, out: list[Action]) -> None:
    have = s.dev_hand[p]
    new = s.dev_new[p]
    if have[KNIGHT] > new[KNIGHT]:
        out.append(_KNIGHT)
    if have[RB_CARD] > new[RB_CARD]:
        out.append(_RB)
    if have[YEAR_OF_PLENTY] > new[YEAR_OF_PLENTY]:
        bank = s.bank
        total = sum(bank)
        if total == 1:
            out.append(_YOP[(bank.index(1), None)])
        elif total > 1:
            for a in range(5):
                if bank[a]:
                    for b in range(a, 5):
                        if bank[b] and (a != b or bank[a] >= 2):
                            out.append(_YOP[(a, b)])
    if have[MONOPOLY] > new[MONOPOLY]:
        out.extend(_MONO)


def _trade_actions(s: GameState, seat: int) -> list[Action]:
    t = s.trade
    assert t is not None
    if seat == s.current:
        out: list[Action] = []
        for q, st in enumerate(t.status):
            if (st == 1 or st == 3) and _trade_terms(s, t, q) is not None:
                out.append(_CONFIRM[q])
        out.append(_CANCEL)
        return out
    if 0 <= seat < len(t.status) and t.status[seat] == 0:
        if _covers(s.hands[seat], t.get):
            return [_ACCEPT, _REJECT]
        return [_REJECT]
    return list(_WITHDRAW_ONLY) if seat in s.proposals else []


@lru_cache(maxsize=8192)
def _discards(hand: tuple[int, ...], k: int) -> tuple[Discard, ...]:
    """All ways to discard exactly ``k`` cards from ``hand`` (lexicographic)."""
    h0, h1, h2, h3, h4 = hand
    s1 = h1 + h2 + h3 + h4
    s2 = h2 + h3 + h4
    s3 = h3 + h4
    out: list[Discard] = []
    for a in range(max(0, k - s1), min(h0, k) + 1):
        k1 = k - a
        for b in range(max(0, k1 - s2), min(h1, k1) + 1):
            k2 = k1 - b
            for c in range(max(0, k2 - s3), min(h2, k2) + 1):
                k3 = k2 - c
                for d in range(max(0, k3 - h4), min(h3, k3) + 1):
                    out.append(Discard((a, b, c, d, k3 - d)))
    return tuple(out)


def _road_spots(s: GameState, p: int) -> list[int]:
    """Empty edges connected to ``p``'s network (R-BUILD-1), sorted."""
    eo = s.edge_owner
    no = s.node_owner
    ne = s.info.node_edges
    spots: set[int] = set()
    for n in s.reach[p]:
        o = no[n]
        if o < 0 or o == p:
            for e in ne[n]:
                if eo[e] < 0:
                    spots.add(e)
    return sorted(spots)


def _covers(hand: list[int], cards: tuple[int, ...]) -> bool:
    return (
        hand[0] >= cards[0]
        and hand[1] >= cards[1]
        and hand[2] >= cards[2]
        and hand[3] >= cards[3]
        and hand[4] >= cards[4]
    )


# --- applying actions ---------------------------------------------------------
#
# Most actions are split into a check (raises if the action is illegal, changes
# nothing) and an effect (changes the state, appends events to ``ev`` unless it
# is None). ``apply`` runs both; :func:`protocol.rules.fast.step` runs only the
# effect, for actions it knows to be legal. The domestic trade actions (offers,
# answers, proposals) keep one handler that checks and acts.

Ev = list[Event] | None
Handler = Callable[[GameState, int, Action, Chance, list[Event]], "tuple[int, ...] | None"]
Check = Callable[[GameState, int, Action], None]
Effect = Callable[[GameState, int, Action, Chance, Ev], "tuple[int, ...] | None"]


def apply(
    s: GameState, action: Action, seat: int | None = None, chance: Chance = None
) -> list[Event]:
    """Apply ``action`` by ``seat`` and return the events it caused.

    ``seat`` may be omitted when exactly one seat owes a decision. ``chance``
    replays a recorded outcome instead of drawing one (used by
    :func:`protocol.rules.replay`); it is what the log records for the action:

    - ``roll_dice``: ``(d1, d2)``, the two dice (1–6 each);
    - ``buy_dev_card``: ``(card,)``, the card code drawn (0–4);
    - ``steal``, and ``move_robber`` when it robs the only possible victim:
      ``(resource,)``, the card taken, or ``(-1,)`` when the victim had none;
    - ``token_forced_trade``: the resources drawn, one per card (1 or 2);
    - any other action: ``None`` (a ``move_robber`` with nobody to rob too).

    The generator is still advanced as if it had drawn, so a replayed game and
    the original stay in step. An outcome that is impossible in the state
    raises :class:`RulesError` (``invalid_log``). On any error the state is
    unchanged.
    """
    if s.phase == GAME_OVER:
        raise IllegalAction("the game is over", "game_over")
    entry = _APPLY.get(type(action))
    if entry is None:
        raise MalformedAction(f"not an action: {action!r}")
    if seat is None:
        waiting = to_act(s)
        if len(waiting) != 1:
            raise NotYourTurn("several seats may act now: say which seat acts")
        seat = waiting[0]
    elif not 0 <= seat < s.settings.players:
        raise NotYourTurn(f"there is no seat {seat}")
    events: list[Event] = []
    rng_state = s.rng.state
    check, effect, turn_phase = entry
    try:
        if check is not None:
            check(s, seat, action)
        elif turn_phase >= 0 and (seat != s.current or s.phase != turn_phase):
            _RULES[type(action)][0](s, seat, action)
        outcome = effect(s, seat, action, chance, events)
    except RulesError:
        s.rng.state = rng_state  # checks and chance checks come before any change
        raise
    if s.log is not None:
        s.log.append((seat, action, outcome))
    if _CAN_WIN[s.phase]:  # check_win, inline: apply is the hot path of every game
        cur = s.current
        if s.vp[cur] + s.dev_hand[cur][VICTORY_POINT] >= s.settings.vp_target:
            _end_game(s, cur, events)  # R-WIN-1
    return events


def check_win(s: GameState, ev: Ev) -> None:
    """R-WIN-1: the current player wins as soon as it holds the target on its turn
    (R-56-9: not in a Special Building Phase, where nobody wins)."""
    if _CAN_WIN[s.phase]:
        cur = s.current
        if s.vp[cur] + s.dev_hand[cur][VICTORY_POINT] >= s.settings.vp_target:
            _end_game(s, cur, ev)


def validate(s: GameState, action: Action, seat: int | None = None) -> None:
    """Raise the error ``apply`` would raise, without changing ``s``.

    This is the check for actions :func:`legal_actions` cannot list
    (domestic trade offers and counter-offers), and works for every action.
    """
    c = s.copy()
    apply(c, action, seat)


def _require(cond: bool, message: str, code: str = "illegal_action") -> None:
    if not cond:
        raise IllegalAction(message, code)


def _require_turn(s: GameState, seat: int, *phases: int) -> None:
    if seat != s.current:
        raise NotYourTurn(f"it is seat {s.current}'s turn, not seat {seat}'s")
    if s.phase not in phases:
        raise IllegalAction(
            f"not allowed in phase {Phase(s.phase).name.lower()}", "wrong_phase"
        )


def _pay(s: GameState, p: int, cost: tuple[int, ...]) -> None:
    hand = s.hands[p]
    bank = s.bank
    for r in range(5):
        c = cost[r]
        if c:
            hand[r] -= c
            bank[r] += c


def _resume(s: GameState) -> None:
    """Back to the phase a 7, a knight or Road Building interrupted."""
    s.phase = s.return_phase
    s.return_phase = MAIN


def _built(s: GameState) -> None:
    """A paid build (R-OPT-4: with strict phases it closes domestic trade, and
    with it the open proposals to the current player)."""
    s.built = True
    if s.proposals and s.info.strict:
        s.proposals = {}


def _place_settlement(s: GameState, p: int, node: int) -> None:
    s.node_owner[node] = p
    s.node_level[node] = 1
    s.pieces[p][SETTLEMENTS] -= 1
    s.vp[p] += 1
    s.reach[p].add(node)
    if p >= s.settings.players:
        return  # a neutral settlement: never produces, never trades (R-2P-4)
    add_production_node(s, node)
    kind = s.info.node_harbor[node]
    if kind >= 0:
        if s.settings.harbor_delay and s.phase == MAIN:
            s.pending_harbors.append((p, node))  # R-OPT-3: usable from the next turn
        else:
            apply_harbor(s.ratios[p], kind)


def _settlement_tokens(s: GameState, p: int, node: int, ev: Ev) -> None:
    """R-2P-6: a settlement next to the desert gives 2 tokens, on the coast 1, both 3."""
    info = s.info
    gain = (2 if info.desert in info.node_hexes[node] else 0) + (
        1 if node in info.coastal_nodes else 0)
    gain = min(gain, s.token_stock)
    if gain:
        s.tokens[p] += gain
        s.token_stock -= gain
        if ev is not None:
            ev.append(TokensGained(p, gain, "settlement"))


def _place_road(s: GameState, p: int, edge: int) -> None:
    s.edge_owner[edge] = p
    s.roads[p].append(edge)
    s.pieces[p][ROADS] -= 1
    a, b = s.info.edge_nodes[edge]
    reach = s.reach[p]
    reach.add(a)
    reach.add(b)


def _road_connects(s: GameState, p: int, edge: int) -> bool:
    no = s.node_owner
    reach = s.reach[p]
    return any(n in reach and (no[n] < 0 or no[n] == p) for n in s.info.edge_nodes[edge])


def _settlement_spot_free(s: GameState, node: int) -> bool:
    no = s.node_owner
    return no[node] < 0 and all(no[m] < 0 for m in s.info.node_nodes[node])


def _check_node(s: GameState, node: int) -> None:
    if not 0 <= node < s.info.num_nodes:
        raise IllegalAction(f"no intersection {node}", "bad_location")


def _check_edge(s: GameState, edge: int) -> None:
    if not 0 <= edge < s.info.num_edges:
        raise IllegalAction(f"no edge {edge}", "bad_location")


def _check_build_settlement(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, BuildSettlement)
    node = a.node
    _check_node(s, node)
    if s.phase == SETUP_SETTLEMENT:
        _require_turn(s, p, SETUP_SETTLEMENT)
        _require(
            _settlement_spot_free(s, node),
            "intersection taken or next to a building (R-SETUP-3)",
            "illegal_placement",
        )
        return
    _require_turn(s, p, MAIN, SPECIAL_BUILD)
    _require(s.pieces[p][SETTLEMENTS] > 0, "no settlements left (R-BUILD-4)", "no_pieces")
    _require(_covers(s.hands[p], (1, 1, 1, 1, 0)), "a settlement costs lumber, brick, wool "
             "and grain (R-BUILD-2)", "cannot_afford")
    _require(_settlement_spot_free(s, node),
             "intersection taken or next to a building (R-BUILD-2)", "illegal_placement")
    _require(any(s.edge_owner[e] == p for e in s.info.node_edges[node]),
             "a settlement must touch your own road (R-BUILD-2)", "illegal_placement")


def _build_settlement(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    node = a.node  # type: ignore[attr-defined]
    if s.phase == SETUP_SETTLEMENT:
        _place_settlement(s, p, node)
        if ev is not None:
            ev.append(SettlementBuilt(p, node, True))
        if s.info.two_player:
            _settlement_tokens(s, p, node, ev)
        if s.setup_step >= s.settings.players:  # second settlement: R-SETUP-4
            gain = [0, 0, 0, 0, 0]
            terrain = s.board.terrain
            for h in s.info.node_hexes[node]:
                t = terrain[h]
                if t != DESERT and s.bank[t] > gain[t]:
                    gain[t] += 1
            hand = s.hands[p]
            for r in range(5):
                hand[r] += gain[r]
                s.bank[r] -= gain[r]
            if ev is not None:
                ev.append(SetupIncome(p, (gain[0], gain[1], gain[2], gain[3], gain[4])))
        s.setup_node = node
        s.phase = SETUP_ROAD
        return None
    _pay(s, p, (1, 1, 1, 1, 0))
    _place_settlement(s, p, node)
    _built(s)
    if ev is not None:
        ev.append(SettlementBuilt(p, node, False))
    _after_settlement(s, p, node, ev)
    if s.info.two_player:
        _settlement_tokens(s, p, node, ev)
        _queue_neutral(s, NEUTRAL_SETTLEMENT)
    return None


def _after_settlement(s: GameState, p: int, node: int, ev: Ev) -> None:
    """R-LR-3: a settlement can break other owners' roads through its node."""
    eo = s.edge_owner
    ne = s.info.node_edges[node]
    broken = [
        q for q in range(s.settings.owners)
        if q != p and sum(1 for e in ne if eo[e] == q) >= 2
    ]
    if broken:
        _update_longest_road(s, broken, ev)


def _check_build_road(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, BuildRoad)
    edge = a.edge
    _check_edge(s, edge)
    if s.phase == SETUP_ROAD:
        _require_turn(s, p, SETUP_ROAD)
        _require(s.edge_owner[edge] < 0, "edge taken", "illegal_placement")
        _require(s.setup_node in s.info.edge_nodes[edge],
                 "the set-up road must touch the settlement just placed (R-SETUP-3)",
                 "illegal_placement")
        return
    _require_turn(s, p, MAIN, ROAD_BUILDING, SPECIAL_BUILD)
    _require(s.pieces[p][ROADS] > 0, "no roads left (R-BUILD-4)", "no_pieces")
    if s.phase != ROAD_BUILDING:
        _require(_covers(s.hands[p], (1, 1, 0, 0, 0)),
                 "a road costs lumber and brick (R-BUILD-1)", "cannot_afford")
    _require(s.edge_owner[edge] < 0, "edge taken", "illegal_placement")
    _require(_road_connects(s, p, edge),
             "a road must connect to your network, not through an opponent's building "
             "(R-BUILD-1)", "illegal_placement")


def _build_road(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    edge = a.edge  # type: ignore[attr-defined]
    ph = s.phase
    if ph == SETUP_ROAD:
        _place_road(s, p, edge)
        if ev is not None:
            ev.append(RoadBuilt(p, edge, True))
        s.road_len[p] = _length_after_new_road(s, p, edge)
        s.setup_step += 1
        s.setup_node = -1
        if s.setup_step == 2 * s.settings.players:
            _start_turn(s, s.first_seat, ev)  # R-SETUP-5
        else:
            s.current = setup_seat(s, s.setup_step)
            s.phase = SETUP_SETTLEMENT
        return None
    free = ph == ROAD_BUILDING
    if not free:
        _pay(s, p, (1, 1, 0, 0, 0))
        _built(s)
    _place_road(s, p, edge)
    if ev is not None:
        ev.append(RoadBuilt(p, edge, free))
    s.road_len[p] = _length_after_new_road(s, p, edge)
    _update_longest_road(s, (), ev)
    if free:
        s.free_roads -= 1
        if s.free_roads <= 0 or not s.pieces[p][ROADS] or not _road_spots(s, p):
            s.free_roads = 0
            _resume(s)
    if s.info.two_player:
        _queue_neutral(s, NEUTRAL_ROAD)
    return None


def _neutral_road_spots(s: GameState, o: int) -> list[int]:
    return _road_spots(s, o) if s.pieces[o][ROADS] else []


def _neutral_settlement_spots(s: GameState, o: int) -> list[int]:
    """Legal settlements for neutral ``o``: touching its road, distance rule (R-2P-4)."""
    if not s.pieces[o][SETTLEMENTS]:
        return []
    no = s.node_owner
    eo = s.edge_owner
    nn = s.info.node_nodes
    ne = s.info.node_edges
    return [
        n for n in sorted(s.reach[o])
        if no[n] < 0 and all(no[m] < 0 for m in nn[n])
        and any(eo[e] == o for e in ne[n])
    ]


def _queue_neutral(s: GameState, phase: int) -> None:
    """R-2P-4: after a player's road or settlement, a free neutral piece.

    A neutral settlement falls back to a neutral road when no neutral
    settlement fits anywhere; when nothing fits at all, nothing is built.
    The game returns to the phase it was in afterwards.
    """
    if s.phase == GAME_OVER:
        return
    if phase == NEUTRAL_SETTLEMENT and not (
        _neutral_settlement_spots(s, 2) or _neutral_settlement_spots(s, 3)
    ):
        phase = NEUTRAL_ROAD
    if phase == NEUTRAL_ROAD and not (_neutral_road_spots(s, 2) or _neutral_road_spots(s, 3)):
        return
    s.neutral_return = s.phase
    s.phase = phase


def _check_neutral_road(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, BuildNeutralRoad)
    _require_turn(s, p, NEUTRAL_ROAD)
    _check_edge(s, a.edge)
    _require(a.neutral in (2, 3), "neutral players are owners 2 and 3", "bad_neutral")
    _require(a.edge in _neutral_road_spots(s, a.neutral),
             "not a legal road for that neutral player (R-2P-4)", "illegal_placement")


def _neutral_road(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    o, edge = a.neutral, a.edge  # type: ignore[attr-defined]
    _place_road(s, o, edge)
    if ev is not None:
        ev.append(RoadBuilt(o, edge, True))
    s.road_len[o] = _length_after_new_road(s, o, edge)
    _update_longest_road(s, (), ev)
    _resume_after_neutral(s, p)
    return None


def _resume_after_neutral(s: GameState, p: int) -> None:
    """Back to the phase the neutral piece interrupted; a Road Building whose
    last free spot the neutral piece just took ends there (R-DEV-5)."""
    s.phase = s.neutral_return
    s.neutral_return = MAIN
    if s.phase != ROAD_BUILDING:
        s.return_phase = MAIN  # nothing interrupted is left to return to
    elif not _road_spots(s, p):
        s.free_roads = 0
        _resume(s)


def _check_neutral_settlement(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, BuildNeutralSettlement)
    _require_turn(s, p, NEUTRAL_SETTLEMENT)
    _check_node(s, a.node)
    _require(a.neutral in (2, 3), "neutral players are owners 2 and 3", "bad_neutral")
    _require(a.node in _neutral_settlement_spots(s, a.neutral),
             "not a legal settlement for that neutral player (R-2P-4)", "illegal_placement")


def _neutral_settlement(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    o, node = a.neutral, a.node  # type: ignore[attr-defined]
    _place_settlement(s, o, node)
    if ev is not None:
        ev.append(SettlementBuilt(o, node, True))
    _after_settlement(s, o, node, ev)
    _resume_after_neutral(s, p)
    return None


def _check_build_city(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, BuildCity)
    node = a.node
    _check_node(s, node)
    _require_turn(s, p, MAIN, SPECIAL_BUILD)
    _require(s.pieces[p][CITIES] > 0, "no cities left (R-BUILD-4)", "no_pieces")
    _require(_covers(s.hands[p], (0, 0, 0, 2, 3)),
             "a city costs 2 grain and 3 ore (R-BUILD-3)", "cannot_afford")
    _require(s.node_owner[node] == p and s.node_level[node] == 1,
             "a city replaces one of your own settlements (R-BUILD-3)", "illegal_placement")


def _build_city(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    node = a.node  # type: ignore[attr-defined]
    _pay(s, p, (0, 0, 0, 2, 3))
    _built(s)
    s.node_level[node] = 2
    s.pieces[p][CITIES] -= 1
    s.pieces[p][SETTLEMENTS] += 1
    s.vp[p] += 1
    if ev is not None:
        ev.append(CityBuilt(p, node))
    return None


def _check_buy_dev(s: GameState, p: int, a: Action) -> None:
    _require_turn(s, p, MAIN, SPECIAL_BUILD)
    _require(_covers(s.hands[p], (0, 0, 1, 1, 1)),
             "a development card costs wool, grain and ore (R-BUILD-5)", "cannot_afford")
    _require(sum(s.dev_deck) > 0, "the development deck is empty (R-BUILD-5)", "deck_empty")


def _buy_dev(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> tuple[int]:
    deck = s.dev_deck
    i = s.rng.below(sum(deck))
    card = 0
    while i >= deck[card]:
        i -= deck[card]
        card += 1
    if chance is not None:
        card = chance[0]
        if not 0 <= card < 5 or deck[card] <= 0:
            raise RulesError(f"recorded draw {card} is not in the deck", "invalid_log")
    _pay(s, p, (0, 0, 1, 1, 1))
    _built(s)
    deck[card] -= 1
    s.dev_hand[p][card] += 1
    s.dev_new[p][card] += 1
    if ev is not None:
        ev.append(DevCardBought(p, card))
    return (card,)


def _start_dev(s: GameState, p: int, card: int) -> None:
    _require_turn(s, p, PRE_ROLL, MAIN)
    _require(not s.dev_played,
             "only one development card per turn (R-DEV-2)", "dev_card_limit")
    _require(s.dev_hand[p][card] > s.dev_new[p][card],
             "no such development card that may be played now (R-DEV-1)", "no_card")


def _finish_dev(s: GameState, p: int, card: int, ev: Ev) -> None:
    s.dev_out[card] += 1
    s.dev_hand[p][card] -= 1
    s.dev_played = True
    if ev is not None:
        ev.append(DevCardPlayed(p, card))


def _check_knight(s: GameState, p: int, a: Action) -> None:
    _start_dev(s, p, KNIGHT)


def _play_knight(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    _finish_dev(s, p, KNIGHT, ev)
    s.knights[p] += 1
    _update_largest_army(s, ev)
    s.return_phase = MAIN if s.rolled else PRE_ROLL
    s.phase = MOVE_ROBBER  # R-DEV-4: no discard step
    return None


def _check_road_building(s: GameState, p: int, a: Action) -> None:
    _start_dev(s, p, RB_CARD)


def _play_road_building(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    _finish_dev(s, p, RB_CARD, ev)
    # R-DEV-5: up to two roads; fewer when fewer pieces or spots are left.
    if s.pieces[p][ROADS] and _road_spots(s, p):
        s.free_roads = 2  # what the card still allows; the pieces may allow fewer
        s.return_phase = s.phase
        s.phase = ROAD_BUILDING
    return None


def _check_stop_road_building(s: GameState, p: int, a: Action) -> None:
    _require_turn(s, p, ROAD_BUILDING)
    _require(s.free_roads == 1, "place the first free road before stopping (R-DEV-5)",
             "wrong_phase")


def _stop_road_building(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    s.free_roads = 0
    _resume(s)
    if ev is not None:
        ev.append(RoadBuildingStopped(p))
    return None


def _yop_cards(a: PlayYearOfPlenty) -> tuple[int, int, int, int, int]:
    want = [0, 0, 0, 0, 0]
    want[a.first] += 1
    if a.second is not None:
        want[a.second] += 1
    return (want[0], want[1], want[2], want[3], want[4])


def _check_yop(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, PlayYearOfPlenty)
    _start_dev(s, p, YEAR_OF_PLENTY)
    bank = s.bank
    first, second = a.first, a.second
    if not 0 <= first < 5 or (second is not None and not 0 <= second < 5):
        raise IllegalAction("no such resource", "bad_resource")
    if second is None:
        _require(sum(bank) == 1, "take two cards unless the bank holds only one (R-DEV-6)",
                 "bank_short")
    _require(_covers(bank, _yop_cards(a)), "the bank does not hold those cards (R-DEV-6)",
             "bank_short")


def _play_yop(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    want = _yop_cards(a)  # type: ignore[arg-type]
    _finish_dev(s, p, YEAR_OF_PLENTY, ev)
    hand = s.hands[p]
    bank = s.bank
    for r in range(5):
        hand[r] += want[r]
        bank[r] -= want[r]
    if ev is not None:
        ev.append(YearOfPlentyTaken(p, want))
    return None


def _check_monopoly(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, PlayMonopoly)
    _require(0 <= a.resource < 5, "no such resource", "bad_resource")
    _start_dev(s, p, MONOPOLY)


def _play_monopoly(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    r = a.resource  # type: ignore[attr-defined]
    _finish_dev(s, p, MONOPOLY, ev)
    taken = [0] * s.settings.players
    for q in range(s.settings.players):
        if q != p:
            taken[q] = s.hands[q][r]
            s.hands[q][r] = 0
    s.hands[p][r] += sum(taken)
    if ev is not None:
        ev.append(MonopolyTaken(p, r, tuple(taken)))
    return None


def _check_roll(s: GameState, p: int, a: Action) -> None:
    if p != s.current or s.phase != PRE_ROLL:
        _require_turn(s, p, PRE_ROLL)


def _roll(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> tuple[int, int]:
    x = s.rng.below(36)
    if s.rolls_done:  # R-2P-3: the second sum must differ from the first; re-roll
        while x // 6 + x % 6 + 2 == s.first_sum:
            x = s.rng.below(36)
    d1 = x // 6 + 1
    d2 = x % 6 + 1
    if chance is not None:
        d1, d2 = chance[0], chance[1]
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6) or (s.rolls_done and d1 + d2 == s.first_sum):
            raise RulesError(f"recorded dice {chance} are not a possible roll", "invalid_log")
    total = d1 + d2
    s.rolls_done += 1
    s.rolled = done = s.rolls_done >= s.info.rolls_per_turn
    s.first_sum = 0 if done else total  # R-2P-3: what the second roll must differ from
    after = MAIN if done else PRE_ROLL
    s.last_roll = (d1, d2)
    if ev is not None:
        ev.append(DiceRolled(p, (d1, d2)))
    if total == 7:  # R-ROBBER-1/2
        owed = [sum(h) // 2 if sum(h) >= 8 else 0 for h in s.hands]
        s.return_phase = after
        if any(owed):
            s.discard_owed = owed
            s.phase = DISCARD
            if ev is not None:
                ev.append(DiscardsOwed(tuple(owed)))
        else:
            s.phase = MOVE_ROBBER
    else:
        _produce(s, total, ev)
        s.phase = after
    return (d1, d2)


def _produce(s: GameState, number: int, ev: Ev) -> None:
    """R-PROD-1..4: pay every building next to an unrobbed hex showing ``number``."""
    entries = s.prod_nodes[number]
    if not entries:
        return
    n = s.settings.players
    robber = s.robber
    no = s.node_owner
    lv = s.node_level
    gains = [[0, 0, 0, 0, 0] for _ in range(n)]
    touched = 0
    for h, res, node in entries:
        if h != robber:  # R-PROD-2
            gains[no[node]][res] += lv[node]
            touched |= 1 << res
    if not touched:
        return
    withheld: list[int] = []
    bank = s.bank
    hands = s.hands
    for res in range(5):
        if not (touched >> res) & 1:
            continue
        total = 0
        receivers = 0
        for g in gains:
            c = g[res]
            if c:
                total += c
                receivers += 1
        left = bank[res]
        if total > left:  # R-PROD-3
            if receivers > 1:  # several receivers: nobody gets any
                withheld.append(res)
                for g in gains:
                    g[res] = 0
                continue
            for g in gains:  # a single receiver takes what is left
                if g[res]:
                    g[res] = left
            total = left
        for q in range(n):
            c = gains[q][res]
            if c:
                hands[q][res] += c
        bank[res] = left - total
    if ev is not None:
        ev.append(Produced(tuple(map(tuple, gains)), tuple(withheld)))  # type: ignore[arg-type]


def _check_discard(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, Discard)
    if s.phase != DISCARD:
        raise IllegalAction("nobody is discarding now", "wrong_phase")
    owed = s.discard_owed[p]
    if not owed:
        raise NotYourTurn(f"seat {p} owes no discard")
    cards = a.cards
    _require(len(cards) == 5 and all(c >= 0 for c in cards), "cards are 5 counts >= 0",
             "bad_resource")
    _require(sum(cards) == owed, f"discard exactly {owed} cards (R-ROBBER-2)", "wrong_count")
    _require(_covers(s.hands[p], cards), "you do not hold those cards", "cannot_afford")


def _discard(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    cards = a.cards  # type: ignore[attr-defined]
    hand = s.hands[p]
    bank = s.bank
    for r in range(5):
        hand[r] -= cards[r]
        bank[r] += cards[r]
    s.discard_owed[p] = 0
    if ev is not None:
        ev.append(Discarded(p, cards))
    if not any(s.discard_owed):
        s.phase = MOVE_ROBBER  # R-ROBBER-3
    return None


def _check_move_robber(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, MoveRobber)
    _require_turn(s, p, MOVE_ROBBER)
    h = a.hex
    _require(0 <= h < s.info.num_hexes, f"no hex {h}", "bad_location")
    _require(h != s.robber, "the robber must move to a different hex (R-ROBBER-3)",
             "illegal_placement")


def _move_robber(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> tuple[int] | None:
    h = a.hex  # type: ignore[attr-defined]
    s.robber = h
    if ev is not None:
        ev.append(RobberMoved(p, h))
    no = s.node_owner
    players = s.settings.players  # neutral players hold no cards (R-2P-4)
    victims = sorted(
        {no[n] for n in s.info.hex_nodes[h] if 0 <= no[n] < players and no[n] != p})
    if not victims:
        _resume(s)
        return None
    if len(victims) == 1:
        out = _take_card(s, p, victims[0], chance, ev)
        _resume(s)
        return out
    s.steal_from = tuple(victims)
    s.phase = STEAL
    return None


def _check_steal(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, Steal)
    _require_turn(s, p, STEAL)
    _require(a.victim in s.steal_from,
             "steal from an opponent with a building on the robber's hex (R-ROBBER-4)",
             "bad_victim")


def _steal(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> tuple[int]:
    out = _take_card(s, p, a.victim, chance, ev)  # type: ignore[attr-defined]
    s.steal_from = ()
    _resume(s)
    return out


def _take_card(s: GameState, thief: int, victim: int, chance: Chance, ev: Ev) -> tuple[int]:
    hand = s.hands[victim]
    total = sum(hand)
    if not total:
        if chance is not None and chance[0] != -1:
            raise RulesError("recorded steal from an empty hand", "invalid_log")
        if ev is not None:
            ev.append(Stolen(thief, victim, 0, None))
        return (-1,)
    i = s.rng.below(total)
    r = 0
    while i >= hand[r]:
        i -= hand[r]
        r += 1
    if chance is not None:
        r = chance[0]
        if not 0 <= r < 5 or hand[r] <= 0:
            raise RulesError(f"recorded stolen card {r} is not in the hand", "invalid_log")
    hand[r] -= 1
    s.hands[thief][r] += 1
    if ev is not None:
        ev.append(Stolen(thief, victim, 1, r))
    return (r,)


def _check_maritime(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, MaritimeTrade)
    if p != s.current or s.phase != MAIN:
        _require_turn(s, p, MAIN)
    give, get = a.give, a.get
    _require(0 <= give < 5 and 0 <= get < 5, "no such resource", "bad_resource")
    _require(give != get, "trade for a different resource", "bad_trade")
    ratio = s.ratios[p][give]
    _require(s.hands[p][give] >= ratio, f"you need {ratio} of that resource (R-TRADE-3)",
             "cannot_afford")
    _require(s.bank[get] > 0, "the bank has none of that resource (R-TRADE-3)", "bank_short")


def _maritime(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    give, get = a.give, a.get  # type: ignore[attr-defined]
    ratio = s.ratios[p][give]
    hand = s.hands[p]
    bank = s.bank
    hand[give] -= ratio
    bank[give] += ratio
    hand[get] += 1
    bank[get] -= 1
    if ev is not None:
        ev.append(MaritimeTraded(p, give, ratio, get))
    return None


def _check_terms(give: tuple[int, ...], get: tuple[int, ...]) -> None:
    _require(len(give) == 5 and len(get) == 5, "terms are 5 resource counts", "bad_trade")
    _require(all(x >= 0 for x in give) and all(x >= 0 for x in get),
             "counts cannot be negative", "bad_trade")
    _require(sum(give) > 0 and sum(get) > 0,
             "both sides give at least one card: no gifts (R-TRADE-2)", "bad_trade")
    _require(all(not (give[r] and get[r]) for r in range(5)),
             "a resource cannot be on both sides of a trade", "bad_trade")


def _offer(s: GameState, p: int, a: Action, chance: Chance, ev: list[Event]) -> None:
    assert isinstance(a, OfferTrade)
    _require_turn(s, p, MAIN)
    _require(not (s.built and s.info.strict),
             "no domestic trade after building this turn (R-OPT-4)", "trade_closed")
    _require(s.offers_made[p] < MAX_OFFERS, f"at most {MAX_OFFERS} trade offers a turn",
             "offer_limit")
    _check_terms(a.give, a.get)
    _require(_covers(s.hands[p], a.give), "you do not hold the cards you offer",
             "cannot_afford")
    n = s.settings.players
    if a.to is not None:
        _require(0 <= a.to < n and a.to != p, "offer to another seat of this game",
                 "bad_trade")
        targets: tuple[int, ...] = (a.to,)
    else:
        targets = tuple(q for q in range(n) if q != p)
    status = tuple(0 if q in targets else -1 for q in range(n))
    if s.proposals:  # the offer answers the proposals of the seats it addresses
        for q in targets:
            s.proposals.pop(q, None)
    s.trade = Trade(p, a.give, a.get, status, (None,) * n)
    s.offers_made[p] += 1
    s.phase = TRADE
    ev.append(TradeOffered(p, a.give, a.get, targets))
    return None


def _answering(s: GameState, p: int) -> Trade:
    if s.phase != TRADE:
        raise IllegalAction("no trade offer is open", "wrong_phase")
    t = s.trade
    assert t is not None
    if not 0 <= p < len(t.status) or t.status[p] != 0:
        raise NotYourTurn(f"seat {p} has no trade offer to answer")
    return t


def _set_status(t: Trade, p: int, st: int, counter: object = None) -> Trade:
    status = list(t.status)
    status[p] = st
    counters = list(t.counters)
    counters[p] = counter  # type: ignore[call-overload]
    return Trade(t.offerer, t.give, t.get, tuple(status), tuple(counters))


def _accept(s: GameState, p: int, a: Action, chance: Chance, ev: list[Event]) -> None:
    t = _answering(s, p)
    _require(_covers(s.hands[p], t.get), "you do not hold the cards asked for",
             "cannot_afford")
    s.trade = _set_status(t, p, 1)
    ev.append(TradeAnswered(p, True))
    return None


def _reject(s: GameState, p: int, a: Action, chance: Chance, ev: list[Event]) -> None:
    t = _answering(s, p)
    s.trade = _set_status(t, p, 2)
    ev.append(TradeAnswered(p, False))
    return None


def _counter(s: GameState, p: int, a: Action, chance: Chance, ev: list[Event]) -> None:
    assert isinstance(a, CounterOffer)
    t = _answering(s, p)
    _check_terms(a.give, a.get)
    _require(_covers(s.hands[p], a.give), "you do not hold the cards you offer",
             "cannot_afford")
    s.trade = _set_status(t, p, 3, (a.give, a.get))
    ev.append(TradeCountered(p, a.give, a.get))
    return None


def _trade_terms(
    s: GameState, t: Trade, q: int
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """What the current player gives and gets when trading with ``q``, if both
    still hold their side; None otherwise."""
    if not 0 <= q < len(t.status):
        return None
    st = t.status[q]
    if st == 1:
        gives, gets = t.give, t.get
    elif st == 3:
        c = t.counters[q]
        assert c is not None
        gets, gives = c
    else:
        return None
    if _covers(s.hands[s.current], gives) and _covers(s.hands[q], gets):
        return gives, gets
    return None


def _confirm(s: GameState, p: int, a: Action, chance: Chance, ev: list[Event]) -> None:
    assert isinstance(a, ConfirmTrade)
    _require_turn(s, p, TRADE)
    t = s.trade
    assert t is not None
    terms = _trade_terms(s, t, a.seat)
    _require(terms is not None,
             "confirm with a seat that accepted or counter-offered", "bad_trade")
    assert terms is not None
    gives, gets = terms
    q = a.seat
    mine, theirs = s.hands[p], s.hands[q]
    for r in range(5):
        mine[r] += gets[r] - gives[r]
        theirs[r] += gives[r] - gets[r]
    s.trade = None
    s.phase = MAIN
    ev.append(TradeCompleted(p, q, _five(gives), _five(gets)))
    return None


def _cancel(s: GameState, p: int, a: Action, chance: Chance, ev: list[Event]) -> None:
    _require_turn(s, p, TRADE)
    s.trade = None
    s.phase = MAIN
    ev.append(TradeCancelled(p))
    return None


def _five(c: tuple[int, ...]) -> tuple[int, int, int, int, int]:
    return (c[0], c[1], c[2], c[3], c[4])


def _check_end_turn(s: GameState, p: int, a: Action) -> None:
    if p != s.current or s.phase != MAIN:
        _require_turn(s, p, MAIN, SPECIAL_BUILD)


def _end_turn(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    if s.info.special_build:
        _end_turn_extension(s, p, ev)
        return None
    if ev is not None:
        ev.append(TurnEnded(p))
    _start_turn(s, (p + 1) % s.settings.players, ev)
    return None


def _end_turn_extension(s: GameState, p: int, ev: Ev) -> None:
    """R-56-8: the end of a turn opens the Special Building Phase; ``end_turn``
    in it passes to the next seat.

    Each other seat, from the left of the seat whose turn ended, builds or
    passes in turn; a seat holding fewer than two cards can pay for nothing
    and is skipped (a public fact: hand sizes are public, R-TRADE-5, so the
    skip reveals nothing). A card bought in the phase may be played on the
    buyer's next own turn (R-56-10): it stops being new when the buyer
    passes. Then the turn after the one that ended begins.
    """
    new = s.dev_new[p]
    new[0] = new[1] = new[2] = new[3] = new[4] = 0
    if s.phase == MAIN:
        if ev is not None:
            ev.append(TurnEnded(p))
        s.special_from = p
        if s.proposals:  # R-TRADE-2: proposals end with the turn
            s.proposals = {}
    n = s.settings.players
    owner = s.special_from
    hands = s.hands
    q = (p + 1) % n
    while q != owner:
        if sum(hands[q]) >= 2:
            s.current = q
            s.phase = SPECIAL_BUILD
            if ev is not None:
                ev.append(SpecialBuildStarted(q))
            return
        q = (q + 1) % n
    s.special_from = -1
    _start_turn(s, (owner + 1) % n, ev)


def _start_turn(s: GameState, seat: int, ev: Ev) -> None:
    new = s.dev_new[s.current]  # only the player whose turn ends can have bought cards
    new[0] = new[1] = new[2] = new[3] = new[4] = 0
    s.current = seat
    s.turn += 1
    s.rolled = False
    s.dev_played = False
    s.rolls_done = 0
    s.first_sum = 0
    s.built = False
    if s.proposals:  # R-TRADE-2: proposals end with the turn
        s.proposals = {}
    made = s.proposals_made
    if any(made):
        s.proposals_made = [0] * len(made)
    if any(s.offers_made):
        s.offers_made = [0] * len(s.offers_made)
    if s.info.two_player:
        s.token_used = False
        s.knight_discarded = False
    if s.pending_harbors:  # R-OPT-3: harbors settled last turn are usable now
        for q, node in s.pending_harbors:
            apply_harbor(s.ratios[q], s.info.node_harbor[node])
        s.pending_harbors = []
    s.phase = PRE_ROLL
    s.last_roll = None
    if ev is not None:
        ev.append(TurnStarted(seat, s.turn))
    if s.vp[seat] + s.dev_hand[seat][VICTORY_POINT] >= s.settings.vp_target:
        _end_game(s, seat, ev)  # R-WIN-2
    elif s.settings.turn_cap and s.turn > s.settings.turn_cap:
        _end_game(s, None, ev)


def _end_game(s: GameState, winner: int | None, ev: Ev) -> None:
    s.phase = GAME_OVER
    s.winner = winner
    s.return_phase = s.neutral_return = MAIN  # nothing left to return to
    s.free_roads = 0  # (a game can end on a free road: Longest Road)
    if s.proposals:
        s.proposals = {}
    if ev is None:
        return
    n = s.settings.players
    ev.append(
        GameOver(
            winner,
            tuple(s.vp[q] + s.dev_hand[q][VICTORY_POINT] for q in range(n)),
            tuple(s.dev_hand[q][VICTORY_POINT] for q in range(n)),
        )
    )


# --- Longest Road and Largest Army --------------------------------------------


def longest_road(s: GameState, p: int) -> int:
    """Length of ``p``'s longest road (R-LR-1): the longest trail over ``p``'s
    roads using no edge twice, broken at opponents' buildings only.

    A depth-first search over trails, started only where a longest trail can
    start: at nodes of odd degree in ``p``'s road graph or holding an
    opponent's building. (A trail starting at an unblocked node of degree 2
    can be extended there, unless it is closed; a closed trail can be rotated
    to start at any node of degree 3 or blocked node on it.) A connected
    piece with no such node is a plain cycle, whose length is its size.
    """
    roads = s.roads[p]
    if not roads:
        return 0
    no = s.node_owner
    en = s.info.edge_nodes
    adj: dict[int, list[tuple[int, int]]] = {}
    for i, e in enumerate(roads):
        a, b = en[e]
        bit = 1 << i
        if a in adj:
            adj[a].append((bit, b))
        else:
            adj[a] = [(bit, b)]
        if b in adj:
            adj[b].append((bit, a))
        else:
            adj[b] = [(bit, a)]
    blocked = {n for n in adj if no[n] >= 0 and no[n] != p}
    starts = [n for n, links in adj.items() if len(links) & 1 or n in blocked]
    best = 0

    def dfs(node: int, used: int, length: int) -> None:
        nonlocal best
        if length > best:
            best = length
        if length and node in blocked:
            return
        for bit, other in adj[node]:
            if not used & bit:
                dfs(other, used | bit, length + 1)

    limit = len(roads)
    for n in sorted(starts):
        dfs(n, 0, 0)
        if best == limit:
            return best
    if len(starts) < len(adj):
        # Connected pieces without a start node are cycles: count their edges.
        start_set = set(starts)
        seen: set[int] = set()
        for root in adj:
            if root in seen:
                continue
            seen.add(root)
            stack = [root]
            size = 0
            has_start = False
            while stack:
                v = stack.pop()
                size += 1
                has_start = has_start or v in start_set
                for _, w in adj[v]:
                    if w not in seen:
                        seen.add(w)
                        stack.append(w)
            if not has_start and size > best:
                best = size  # a cycle has as many edges as nodes
    return best


def _length_after_new_road(s: GameState, p: int, edge: int) -> int:
    """``p``'s longest road just after ``edge`` was added (``road_len`` is the
    length before).

    The common case is a road that sticks out: one end touches none of
    ``p``'s other roads. A longest trail through it then ends there, so the
    new length is the old one or 1 + the longest trail that starts at the
    other end, a single search. Roads that join or close networks get a full
    recount.
    """
    eo = s.edge_owner
    info = s.info
    ne = info.node_edges
    other = info.edge_other
    a, b = info.edge_nodes[edge]
    da = sum(1 for e in ne[a] if eo[e] == p)
    db = sum(1 for e in ne[b] if eo[e] == p)
    if da > 1 and db > 1:
        return longest_road(s, p)
    if da == 1 and db == 1:
        return max(s.road_len[p], 1)
    if da == 1:
        a, b = b, a  # make ``b`` the end where the road sticks out
    no = s.node_owner
    best = 0

    def dfs(node: int, used: int, length: int) -> None:
        nonlocal best
        if length > best:
            best = length
        if length:
            o = no[node]
            if o >= 0 and o != p:
                return
        for e in ne[node]:
            if eo[e] == p and not (used >> e) & 1:
                dfs(other[e][node], used | (1 << e), length + 1)

    o = no[a]
    if o < 0 or o == p:  # an opponent's building at ``a`` ends the trail there
        dfs(a, 1 << edge, 0)
    return max(s.road_len[p], best + 1)


def _update_longest_road(s: GameState, recount: tuple[int, ...] | list[int],
                         ev: Ev) -> None:
    """Recount ``recount`` and reassign Longest Road (R-LR-2/3)."""
    lens = s.road_len
    for q in recount:
        lens[q] = longest_road(s, q)
    holder = s.lr_holder
    best = max(lens)
    if holder >= 0 and lens[holder] >= best and lens[holder] >= 5:
        return
    leaders = [q for q in range(len(lens)) if lens[q] == best]
    new = leaders[0] if best >= 5 and len(leaders) == 1 else -1
    if new == holder:
        return
    if holder >= 0:
        s.vp[holder] -= 2  # R-LA-2 holds for both special cards
    if new >= 0:
        s.vp[new] += 2
    s.lr_holder = new
    if ev is not None:
        ev.append(LongestRoadChanged(None if new < 0 else new, best))


def _update_largest_army(s: GameState, ev: Ev) -> None:
    """Reassign Largest Army (R-LA-1): 3+ knights and strictly more than the holder."""
    k = s.knights
    holder = s.la_holder
    best = max(k)
    if holder >= 0 and k[holder] >= best and k[holder] >= 3:
        return
    leaders = [q for q in range(len(k)) if k[q] == best]
    new = leaders[0] if best >= 3 and len(leaders) == 1 else -1
    if new == holder:
        return
    if holder >= 0:
        s.vp[holder] -= 2
    if new >= 0:
        s.vp[new] += 2
    s.la_holder = new
    if ev is not None:
        ev.append(LargestArmyChanged(None if new < 0 else new, best))


# --- two-player trade tokens (R-2P-5, R-2P-6) -----------------------------------


def _spend_tokens(s: GameState, p: int, what: str, ev: Ev) -> None:
    cost = token_cost(s, p)
    s.tokens[p] -= cost
    s.token_stock += cost
    s.token_used = True
    if ev is not None:
        ev.append(TokensSpent(p, cost, what))


def _check_token_action(s: GameState, p: int) -> None:
    _require(s.info.two_player, "trade tokens exist in the 2-player game only", "no_tokens")
    _require_turn(s, p, MAIN)
    _require(not s.token_used, "one trade-token action per turn (R-2P-5)", "token_limit")
    _require(s.tokens[p] >= token_cost(s, p),
             f"this costs {token_cost(s, p)} trade tokens (R-2P-5)", "cannot_afford")


def _check_forced_trade(s: GameState, p: int, a: Action) -> None:
    _check_token_action(s, p)  # a trade-token action, not a negotiation: R-OPT-4 allows it
    _require(sum(s.hands[1 - p]) > 0, "the opponent holds no cards to draw (R-2P-5)",
             "nothing_to_draw")


def _token_forced_trade(s: GameState, p: int, a: Action, chance: Chance,
                        ev: Ev) -> tuple[int, ...]:
    q = 1 - p
    theirs = s.hands[q]
    k = min(2, sum(theirs))
    if chance is not None and len(chance) != k:
        raise RulesError(f"recorded forced-trade draw {chance} is not possible", "invalid_log")
    drawn: list[int] = []
    pool = theirs[:]
    for i in range(k):
        j = s.rng.below(sum(pool))
        r = 0
        while j >= pool[r]:
            j -= pool[r]
            r += 1
        if chance is not None:
            r = chance[i]
            if not 0 <= r < 5 or pool[r] <= 0:
                raise RulesError(f"recorded forced-trade draw {chance} is not possible",
                                 "invalid_log")
        pool[r] -= 1
        drawn.append(r)
    _spend_tokens(s, p, "forced_trade", ev)
    cards = [0, 0, 0, 0, 0]
    for r in drawn:
        cards[r] += 1
    mine = s.hands[p]
    for r in range(5):
        theirs[r] -= cards[r]
        mine[r] += cards[r]
    s.give_back = k
    s.phase = GIVE_BACK
    if ev is not None:
        ev.append(ForcedTradeDrawn(p, q, k, _five(tuple(cards))))
    return tuple(drawn)


def _check_give_back(s: GameState, p: int, a: Action) -> None:
    assert isinstance(a, GiveBack)
    _require_turn(s, p, GIVE_BACK)
    cards = a.cards
    _require(len(cards) == 5 and all(c >= 0 for c in cards), "cards are 5 counts >= 0",
             "bad_resource")
    _require(sum(cards) == s.give_back,
             f"give back exactly {s.give_back} cards (R-2P-5)", "wrong_count")
    _require(_covers(s.hands[p], cards), "you do not hold those cards", "cannot_afford")


def _give_back(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    cards = a.cards  # type: ignore[attr-defined]
    q = 1 - p
    mine, theirs = s.hands[p], s.hands[q]
    for r in range(5):
        mine[r] -= cards[r]
        theirs[r] += cards[r]
    s.give_back = 0
    s.phase = MAIN
    if ev is not None:
        ev.append(GaveBack(p, q, sum(cards), cards))
    return None


def _check_robber_home(s: GameState, p: int, a: Action) -> None:
    _check_token_action(s, p)
    _require(s.robber != s.info.desert, "the robber is already in the desert",
             "illegal_placement")


def _token_robber_home(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    desert = s.info.desert
    _spend_tokens(s, p, "robber_home", ev)
    s.robber = desert
    if ev is not None:
        ev.append(RobberMoved(p, desert))
    return None


def _check_discard_knight(s: GameState, p: int, a: Action) -> None:
    _require(s.info.two_player, "trade tokens exist in the 2-player game only", "no_tokens")
    _require_turn(s, p, MAIN)
    _require(not s.knight_discarded, "one played knight per turn may be discarded (R-2P-6)",
             "token_limit")
    _require(s.knights[p] > 0, "you have no played knight to discard (R-2P-6)", "no_card")


def _discard_knight(s: GameState, p: int, a: Action, chance: Chance, ev: Ev) -> None:
    s.knights[p] -= 1
    s.knight_discarded = True
    gain = min(2, s.token_stock)
    s.tokens[p] += gain
    s.token_stock -= gain
    if ev is not None:
        ev.append(KnightDiscarded(p, s.knights[p]))
        if gain:
            ev.append(TokensGained(p, gain, "knight"))
    # R-2P-6: the holder loses Largest Army below 3 or when no longer strictly
    # ahead; it goes to whoever has 3+ and strictly more than everyone else.
    k = s.knights
    h = s.la_holder
    if h >= 0 and (k[h] < 3 or any(k[q] >= k[h] for q in range(len(k)) if q != h)):
        s.vp[h] -= 2
        best = max(k)
        leaders = [q for q in range(len(k)) if k[q] == best]
        new = leaders[0] if best >= 3 and len(leaders) == 1 and leaders[0] != h else -1
        if new >= 0:
            s.vp[new] += 2
        s.la_holder = new
        if ev is not None:
            ev.append(LargestArmyChanged(None if new < 0 else new, best))
    elif h < 0:
        _update_largest_army(s, ev)  # a card set aside goes to a sole leader with 3+
    return None


# --- proposals to the current player (R-TRADE-2) ------------------------------------


def _propose(s: GameState, p: int, a: Action, chance: Chance, ev: list[Event]) -> None:
    assert isinstance(a, ProposeTrade)
    if p == s.current:
        raise IllegalAction("the current player offers with offer_trade", "bad_trade")
    _require(s.phase == MAIN, "a proposal goes to the current player in its main phase, "
             "after the roll (R-TRADE-2)", "wrong_phase")
    _require(not (s.built and s.info.strict),
             "no domestic trade after building this turn (R-OPT-4)", "trade_closed")
    _require(p not in s.proposals, "your proposal is still open: withdraw it first",
             "proposal_limit")
    _require(s.proposals_made[p] < MAX_PROPOSALS,
             f"at most {MAX_PROPOSALS} proposals a turn (R-TRADE-2)", "proposal_limit")
    _check_terms(a.give, a.get)
    _require(_covers(s.hands[p], a.give), "you do not hold the cards you offer",
             "cannot_afford")
    s.proposals[p] = (a.give, a.get)
    s.proposals_made[p] += 1
    ev.append(TradeProposed(p, a.give, a.get))
    return None


def _open_proposal(s: GameState, q: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    terms = s.proposals.get(q)
    if terms is None:
        raise IllegalAction(f"seat {q} has no open proposal", "bad_trade")
    return terms


def _accept_proposal(s: GameState, p: int, a: Action, chance: Chance,
                     ev: list[Event]) -> None:
    assert isinstance(a, AcceptProposal)
    _require_turn(s, p, MAIN)
    q = a.seat
    give, get = _open_proposal(s, q)  # from q's side
    mine, theirs = s.hands[p], s.hands[q]
    _require(_covers(mine, get), "you do not hold the cards asked for", "cannot_afford")
    _require(_covers(theirs, give), "the proposer no longer holds the cards offered",
             "bad_trade")
    for r in range(5):
        mine[r] += give[r] - get[r]
        theirs[r] += get[r] - give[r]
    del s.proposals[q]
    ev.append(TradeCompleted(p, q, _five(get), _five(give)))
    return None


def _reject_proposal(s: GameState, p: int, a: Action, chance: Chance,
                     ev: list[Event]) -> None:
    assert isinstance(a, RejectProposal)
    _require_turn(s, p, MAIN)
    _open_proposal(s, a.seat)
    del s.proposals[a.seat]
    ev.append(ProposalRejected(a.seat))
    return None


def _withdraw_proposal(s: GameState, p: int, a: Action, chance: Chance,
                       ev: list[Event]) -> None:
    if p not in s.proposals:
        raise NotYourTurn(f"seat {p} has no open proposal to withdraw")
    del s.proposals[p]
    ev.append(ProposalWithdrawn(p))
    return None


_RULES: dict[type[Action], tuple[Check, Effect]] = {
    BuildRoad: (_check_build_road, _build_road),
    BuildSettlement: (_check_build_settlement, _build_settlement),
    BuildCity: (_check_build_city, _build_city),
    BuyDevCard: (_check_buy_dev, _buy_dev),
    PlayKnight: (_check_knight, _play_knight),
    PlayRoadBuilding: (_check_road_building, _play_road_building),
    PlayYearOfPlenty: (_check_yop, _play_yop),
    PlayMonopoly: (_check_monopoly, _play_monopoly),
    RollDice: (_check_roll, _roll),
    Discard: (_check_discard, _discard),
    MoveRobber: (_check_move_robber, _move_robber),
    Steal: (_check_steal, _steal),
    MaritimeTrade: (_check_maritime, _maritime),
    EndTurn: (_check_end_turn, _end_turn),
    BuildNeutralRoad: (_check_neutral_road, _neutral_road),
    BuildNeutralSettlement: (_check_neutral_settlement, _neutral_settlement),
    TokenForcedTrade: (_check_forced_trade, _token_forced_trade),
    TokenRobberHome: (_check_robber_home, _token_robber_home),
    GiveBack: (_check_give_back, _give_back),
    DiscardKnight: (_check_discard_knight, _discard_knight),
    StopRoadBuilding: (_check_stop_road_building, _stop_road_building),
}
"""The actions with a separate check and effect (the effect alone: :mod:`.fast`)."""

_HANDLERS: dict[type[Action], Handler] = {
    OfferTrade: _offer,
    AcceptTrade: _accept,
    RejectTrade: _reject,
    CounterOffer: _counter,
    ConfirmTrade: _confirm,
    CancelTrade: _cancel,
    ProposeTrade: _propose,
    AcceptProposal: _accept_proposal,
    RejectProposal: _reject_proposal,
    WithdrawProposal: _withdraw_proposal,
}
"""The domestic trade actions: one handler checks and acts."""

_TURN_CHECKS: dict[type[Action], int] = {RollDice: PRE_ROLL, EndTurn: MAIN}
"""The actions whose whole check is "the seat's turn, in this phase" (the two
most frequent): :func:`apply` runs that check inline."""

_APPLY: dict[type[Action], tuple[Check | None, Handler, int]] = {
    **{kind: (None, effect, _TURN_CHECKS[kind]) if kind in _TURN_CHECKS else (check, effect, -1)
       for kind, (check, effect) in _RULES.items()},
    **{kind: (None, handler, -1) for kind, handler in _HANDLERS.items()},
}
"""What :func:`apply` runs for each action: its check (None: the turn and
phase in the third field when it is not -1, or the handler checks itself)
and its effect."""
