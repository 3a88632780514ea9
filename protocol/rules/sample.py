"""Determinization: a full game state consistent with one seat's view.

Search bots must not read hidden facts. :func:`sample_state` builds a
complete :class:`GameState` from a view alone: everything public is copied,
the viewer's own hand and development cards are known, and every hidden
fact (other hands, other development cards, the deck) is *sampled*
uniformly from what is consistent with the public counts. Searching many
such samples is "determinized" search (as in OpenSpiel's information-state
resampling).
"""

from __future__ import annotations

from typing import Any

from .board import NUM_EDGES, NUM_NODES, Board
from .rng import Rng
from .state import (
    BANK_PER_RESOURCE,
    DEV_DECK,
    PHASE_NAMES,
    BoardInfo,
    GameState,
    Settings,
    Trade,
)


def _deal(pool: list[int], counts: list[int], rng: Rng) -> list[list[int]]:
    """Deal ``counts[i]`` cards to each hand from the multiset ``pool`` (5 kinds),
    uniformly at random; cards left over stay in ``pool``."""
    cards = [k for k in range(5) for _ in range(max(0, pool[k]))]
    rng.shuffle(cards)
    hands = []
    pos = 0
    for c in counts:
        hand = [0] * 5
        for k in cards[pos:pos + c]:
            hand[k] += 1
        pos += c
        hands.append(hand)
    for k in cards[:pos]:
        pool[k] -= 1
    return hands


def sample_state(view: dict[str, Any], seed: int = 0) -> GameState:
    """A state the viewer cannot tell from the real one, hidden facts sampled.

    The result has no log; its RNG is seeded with ``seed`` (so dice and draws
    in a simulation differ per sample). Raises ``KeyError``/``ValueError`` on
    something that is not a view.
    """
    rng = Rng(seed)
    settings = Settings.from_dict(view["settings"])
    n = settings.players
    me = view["seat"]
    s = GameState.__new__(GameState)
    s.settings = settings
    s.info = BoardInfo(Board.from_dict(view["board"]), settings)
    s.seed = seed
    s.rng = rng
    s.phase = PHASE_NAMES.index(view["phase"])
    s.current = view["current"]
    s.first_seat = 0
    s.turn = view["turn"]
    s.setup_step = 0
    s.setup_node = -1 if view["setup_node"] is None else view["setup_node"]
    s.node_owner = [-1] * NUM_NODES
    s.node_level = [0] * NUM_NODES
    for node, owner, level in view["buildings"]:
        s.node_owner[node] = owner
        s.node_level[node] = level
    s.edge_owner = [-1] * NUM_EDGES
    for edge, owner in view["roads"]:
        s.edge_owner[edge] = owner
    if s.phase <= 1:  # set-up: how many settlements are down tells the step
        placed = sum(1 for _, o, _ in view["buildings"] if o < n)
        s.setup_step = placed - (1 if s.phase == 1 else 0)
    s.robber = view["robber"]
    s.bank = list(view["bank"])
    seats = view["seats"]
    s.knights = [seat["knights"] for seat in seats]
    s.discard_owed = [seat["discard_owed"] for seat in seats]
    s.tokens = [seat.get("tokens", 0) for seat in seats]
    s.token_stock = view.get("token_stock", 0)
    s.token_used = view.get("token_used", False)
    s.knight_discarded = view.get("knight_discarded", False)
    s.rolls_done = view.get("rolls_done", 0)
    s.first_sum = sum(view["last_roll"]) if view["last_roll"] and s.rolls_done == 1 else 0
    s.give_back = view.get("give_back", 0)
    s.built = view.get("built", False)
    s.pending_harbors = []
    s.neutral_return = PHASE_NAMES.index("main")
    s.dev_played = view["dev_played"]
    s.rolled = view["rolled"]
    s.free_roads = view["free_roads"]
    s.return_phase = PHASE_NAMES.index("main" if s.rolled else "pre_roll")
    s.steal_from = tuple(view["steal_from"])
    s.trade = None if view["trade"] is None else Trade.from_dict(view["trade"])
    s.winner = -1 if view["winner"] is None else view["winner"]
    s.last_roll = None if view["last_roll"] is None else (view["last_roll"][0],
                                                           view["last_roll"][1])
    s.lr_holder = -1 if view["longest_road"] is None else view["longest_road"]
    s.la_holder = -1 if view["largest_army"] is None else view["largest_army"]
    s.dev_out = list(view.get("dev_out", [0] * 5))
    s.log = None

    # Hands: the viewer's own is known; the rest of the cards outside the bank
    # are dealt to the others by their public counts.
    you = view["you"]
    pool = [BANK_PER_RESOURCE - s.bank[k] for k in range(5)]
    if you is not None:
        for k in range(5):
            pool[k] -= you["hand"][k]
    others = [q for q in range(n) if q != me]
    dealt = _deal(pool, [seats[q]["cards"] for q in others], rng)
    s.hands = [[0] * 5 for _ in range(n)]
    for q, hand in zip(others, dealt, strict=True):
        s.hands[q] = hand
    if you is not None:
        s.hands[me] = list(you["hand"])

    # Development cards: the deck and the others' hidden cards come from what is
    # neither played (public) nor the viewer's own.
    unseen = [DEV_DECK[k] - s.dev_out[k] for k in range(5)]
    if you is not None:
        for k in range(5):
            unseen[k] -= you["dev_cards"][k]
    dev_dealt = _deal(unseen, [seats[q]["dev_cards"] for q in others], rng)
    s.dev_hand = [[0] * 5 for _ in range(n)]
    s.dev_new = [[0] * 5 for _ in range(n)]
    for q, hand in zip(others, dev_dealt, strict=True):
        s.dev_hand[q] = hand
    if you is not None:
        s.dev_hand[me] = list(you["dev_cards"])
        s.dev_new[me] = list(you["dev_new"])
    s.dev_deck = [max(0, x) for x in unseen]
    # Counts can disagree with the deck size only if the view is inconsistent.
    s.rebuild_derived()
    s.road_len = [0] * settings.owners
    from .engine import longest_road

    for q in range(settings.owners):
        s.road_len[q] = longest_road(s, q)
    return s
