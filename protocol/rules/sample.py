"""Determinization: a full game state consistent with one seat's view.

Search bots must not read hidden facts. :func:`sample_state` builds a
complete :class:`GameState` from a view alone: everything public is copied,
the viewer's own hand and development cards are known, and every hidden
fact is *sampled*: the other hands from a :class:`CardTracker` (every hand
consistent with the public record: who paid for what, who accepted or
proposed which trade, what Monopoly revealed; by default a tracker that
knows only the view), the other development cards and the deck uniformly
from what is neither played nor the viewer's. Searching many such samples is
"determinized" search (as in OpenSpiel's information-state resampling).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .board import Board
from .check import default_return, settle
from .rng import Rng
from .state import (
    MAX_OFFERS,
    MAX_PROPOSALS,
    PHASE_NAMES,
    VICTORY_POINT,
    BoardInfo,
    GameState,
    Phase,
    Settings,
    Trade,
)
from .tracker import CardTracker


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


def _cap_vp_cards(dev_hand: list[list[int]], cur: int, limit: int, deck: list[int],
                  others: list[int], rng: Rng) -> None:
    """Give ``cur`` at most ``limit`` victory point cards, swapping the excess
    with other unseen cards (from the deck first, else from other hidden hands)."""
    while dev_hand[cur][VICTORY_POINT] > limit:
        kinds = [k for k in range(4) for _ in range(deck[k])]
        if kinds:
            k = kinds[rng.below(len(kinds))]
            deck[k] -= 1
            deck[VICTORY_POINT] += 1
        else:
            donors = [(q, k) for q in others if q != cur for k in range(4)
                      for _ in range(dev_hand[q][k])]
            if not donors:
                return  # nothing to swap: the view itself is inconsistent
            q, k = donors[rng.below(len(donors))]
            dev_hand[q][k] -= 1
            dev_hand[q][VICTORY_POINT] += 1
        dev_hand[cur][VICTORY_POINT] -= 1
        dev_hand[cur][k] += 1


def sample_state(view: Mapping[str, Any], tracker: CardTracker | int | None = None,
                 seed: int = 0) -> GameState:
    """A state the viewer cannot tell from the real one, hidden facts sampled.

    ``tracker``: the viewer's :class:`CardTracker`, fed the events up to this
    view; the other hands are drawn from the hands it holds possible (by
    their probability). Without one, a tracker that knows only what the view
    shows is used. (The older call form ``sample_state(view, seed)`` works
    too.) The result has no log; its RNG is seeded with ``seed`` (so dice and
    draws in a simulation differ per sample), and its :func:`observe` for the
    viewer equals ``view``. Raises ``KeyError``/``ValueError`` on something
    that is not a view, or a tracker at another point of the game.
    """
    if isinstance(tracker, int):  # sample_state(view, seed)
        seed, tracker = tracker, None
    if tracker is None:
        tracker = CardTracker.from_view(view, exact=False)  # the same hands, made faster
    elif not tracker.matches(view):
        raise ValueError("the tracker is not at this view's point of the game "
                         "(feed it every event, or make one with CardTracker.from_view)")
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
    s.turn = view["turn"]
    s.setup_node = -1 if view["setup_node"] is None else view["setup_node"]
    geo = s.info.geo
    s.node_owner = [-1] * geo.num_nodes
    s.node_level = [0] * geo.num_nodes
    for node, owner, level in view["buildings"]:
        s.node_owner[node] = owner
        s.node_level[node] = level
    s.edge_owner = [-1] * geo.num_edges
    for edge, owner in view["roads"]:
        s.edge_owner[edge] = owner
    # Who started is public; it is only needed during set-up (R-SETUP-2).
    if s.phase in (Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD):
        step = sum(1 for _, o, _ in view["buildings"] if o < n) - (
            1 if s.phase == Phase.SETUP_ROAD else 0)
        i = step if step < n else 2 * n - 1 - step
        s.first_seat = (s.current - i) % n
    else:
        special_from = view.get("special_from")
        turn_seat = s.current if special_from is None else special_from
        s.first_seat = (turn_seat - max(0, s.turn - 1)) % n
    s.setup_step = 0  # settled below
    s.robber = view["robber"]
    s.bank = list(view["bank"])
    seats = view["seats"]
    s.knights = [seat["knights"] for seat in seats]
    s.discard_owed = [seat["discard_owed"] for seat in seats]
    s.tokens = [seat.get("tokens", 0) for seat in seats]
    s.proposals_made = [min(MAX_PROPOSALS, seat.get("proposals_made", 0)) for seat in seats]
    s.offers_made = [min(MAX_OFFERS, seat.get("offers_made", 0)) for seat in seats]
    s.token_stock = view.get("token_stock", 0)
    s.token_used = view.get("token_used", False)
    s.knight_discarded = view.get("knight_discarded", False)
    s.rolls_done = view.get("rolls_done", 0)
    s.first_sum = 0  # settled below
    s.give_back = view.get("give_back", 0)
    s.built = view.get("built", False)
    s.pending_harbors = [(q, node) for q, node in view.get("pending_harbors") or ()]
    s.dev_played = view["dev_played"]
    s.rolled = view["rolled"]
    s.free_roads = view["free_roads"]
    s.return_phase = default_return(s.phase, s.rolled)
    # The phase a neutral piece interrupts (R-2P-4): Road Building while a free
    # road is left, else the phase the player is in.
    s.neutral_return = (Phase.ROAD_BUILDING.value if s.free_roads else s.return_phase)
    s.steal_from = tuple(view["steal_from"])
    s.trade = None if view["trade"] is None else Trade.from_dict(view["trade"])
    s.proposals = {}
    for q, p in enumerate(view.get("proposals") or ()):
        if p is not None:
            give, get = p
            s.proposals[q] = (tuple(give), tuple(get))
    winner = view["winner"]
    s.winner = None if winner is None or winner < 0 else winner
    s.last_roll = None if view["last_roll"] is None else (view["last_roll"][0],
                                                           view["last_roll"][1])
    s.lr_holder = -1 if view["longest_road"] is None else view["longest_road"]
    s.la_holder = -1 if view["largest_army"] is None else view["largest_army"]
    s.dev_out = list(view.get("dev_out", [0] * 5))
    s.special_from = -1 if view.get("special_from") is None else view["special_from"]
    s.log = None

    # Hands: the viewer's own is known; the others are drawn from the tracker.
    you = view["you"]
    s.hands = tracker.sample(rng)
    if you is not None:
        s.hands[me] = list(you["hand"])

    # Development cards: the deck and the others' hidden cards come from what is
    # neither played (public) nor the viewer's own.
    others = [q for q in range(n) if q != me]
    unseen = [settings.dev_deck[k] - s.dev_out[k] for k in range(5)]
    if you is not None:
        for k in range(5):
            unseen[k] -= you["dev_cards"][k]
    counts = [seats[q]["dev_cards"] for q in others]
    final = view.get("final_scores")
    revealed = [0] * len(others)
    if final:  # the end reveals every seat's victory point cards (R-DEV-8)
        revealed = [max(0, final[q] - seats[q]["vp"]) for q in others]
        unseen[VICTORY_POINT] -= sum(revealed)
        vp_left, unseen[VICTORY_POINT] = unseen[VICTORY_POINT], 0
        counts = [c - v for c, v in zip(counts, revealed, strict=True)]
    dev_dealt = _deal(unseen, counts, rng)
    if final:
        unseen[VICTORY_POINT] = vp_left
        for hand, v in zip(dev_dealt, revealed, strict=True):
            hand[VICTORY_POINT] += v
    s.dev_hand = [[0] * 5 for _ in range(n)]
    s.dev_new = [[0] * 5 for _ in range(n)]
    for q, hand in zip(others, dev_dealt, strict=True):
        s.dev_hand[q] = hand
    if you is not None:
        s.dev_hand[me] = list(you["dev_cards"])
        s.dev_new[me] = list(you["dev_new"])
    cur = s.current
    playing = s.phase not in (Phase.GAME_OVER, Phase.SETUP_SETTLEMENT, Phase.SETUP_ROAD)
    if cur != me and playing and s.phase != Phase.SPECIAL_BUILD:  # R-56-9: no win there
        # The game is not over, so the current player holds fewer victory point
        # cards than it lacks for the win (R-WIN-1): swap the excess for others.
        limit = settings.vp_target - 1 - seats[cur]["vp"]
        _cap_vp_cards(s.dev_hand, cur, max(0, limit), unseen, others, rng)
    if cur != me and tracker.bought[cur] and playing:
        # The current player's cards bought this turn (public count) cannot be
        # played yet (R-DEV-1): mark that many of its sampled cards as new.
        held = [k for k in range(5) for _ in range(s.dev_hand[cur][k])]
        rng.shuffle(held)
        for k in held[:tracker.bought[cur]]:
            s.dev_new[cur][k] += 1
    s.dev_deck = [max(0, x) for x in unseen]
    lengths = [seat["road_length"] for seat in seats]
    lengths += [nt["road_length"] for nt in view.get("neutrals") or ()]
    settle(s, road_len=lengths if len(lengths) == settings.owners else None)
    return s
