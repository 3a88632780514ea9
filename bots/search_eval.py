"""The search bot's evaluation: how likely each seat is to win from a position.

:func:`win_probabilities` scores every seat with a linear function of a few
position features (:func:`features`: victory points, production per resource,
variety, harbors, room to expand, development cards, hand size, …) and turns
the scores into win probabilities with a softmax over the seats (a
conditional logit). The weights (:data:`WEIGHTS`) were fitted by maximum
likelihood on positions from heuristic self-play games (features at the start
of a turn → who won that game); ``python -m bots.search_fit --games 1000
--seed 777 --write`` plays the games, fits them again (pure Python, no
dependencies) and writes them to the weights file :data:`WEIGHTS_FILE`, which
is loaded, and checked, on import. :func:`setup_win_probabilities` does the
same for openings alone, once set-up is over (:data:`SETUP_WEIGHTS`,
``--setup``).

The evaluation reads a full :class:`GameState`. The search bot only ever
calls it on *sampled* states (:func:`protocol.rules.sample_state`), never on
the real one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from importlib import resources

from protocol.rules import GameState, Phase
from protocol.rules.board import DESERT, pips
from protocol.rules.state import VICTORY_POINT

from .weights_file import weights_document

FEATURE_NAMES: tuple[str, ...] = (
    "vp", "vp_close", "lumber", "brick", "wool", "grain", "ore", "kinds",
    "prod_left", "cities", "dev_cards", "knights", "road_len", "hand", "over7",
    "harbors", "spots", "spot_pips",
)

WEIGHTS_FILE = "search_weights.json"
"""The fitted weights of both models, with how each was made: package data
next to this module, written by ``python -m bots.search_fit ... --write``."""
WEIGHTS_FORMAT = "kaitaku-search-weights/1"


def load_weights(text: str, model: str, names: Sequence[str]) -> tuple[float, ...]:
    """The weights of ``model`` ("win" or "setup") in the weights file's
    ``text``, checked: the file's format, the model's feature names (they
    must be ``names``, in order) and one finite number per feature. A file
    that does not pass raises ``ValueError`` saying what is wrong."""
    doc = weights_document(text, WEIGHTS_FORMAT, WEIGHTS_FILE)
    models = doc.get("models")
    entry = models.get(model) if isinstance(models, dict) else None
    if not isinstance(entry, dict):
        raise ValueError(f"{WEIGHTS_FILE}: no {model!r} model")
    if entry.get("features") != list(names):
        raise ValueError(f"{WEIGHTS_FILE}: the {model!r} model's features are not "
                         f"{', '.join(names)}")
    weights = entry.get("weights")
    if not (isinstance(weights, list) and len(weights) == len(names) and all(
            type(w) in (int, float) and math.isfinite(w) for w in weights)):
        raise ValueError(f"{WEIGHTS_FILE}: the {model!r} model needs {len(names)} "
                         "finite numbers as weights")
    return tuple(float(w) for w in weights)


_WEIGHTS_TEXT = resources.files(__package__).joinpath(WEIGHTS_FILE).read_text("utf-8")

WEIGHTS: tuple[float, ...] = load_weights(_WEIGHTS_TEXT, "win", FEATURE_NAMES)
"""The win model, fitted on 1000 four-player heuristic self-play games
(``python -m bots.search_fit --games 1000 --seed 777 --write``; held-out
log-loss 1.151, uniform 1.386; the file records the command and the fit)."""

_PIPS = tuple(pips(n) for n in range(13))


def features(s: GameState, q: int) -> list[float]:
    """Position features of seat ``q`` (see :data:`FEATURE_NAMES`)."""
    target = s.settings.vp_target
    vp = s.vp[q] + s.dev_hand[q][VICTORY_POINT]
    board = s.info.board
    terrain = board.terrain
    numbers = board.numbers
    robber = s.robber
    node_owner = s.node_owner
    node_level = s.node_level
    prod = [0.0] * 5
    cities = 0
    for node in s.reach[q]:
        if node_owner[node] != q:
            continue
        lv = node_level[node]
        if lv == 2:
            cities += 1
        for h in s.info.node_hexes[node]:
            t = terrain[h]
            if t != DESERT and h != robber:
                prod[t] += _PIPS[numbers[h]] * lv
    kinds = sum(1 for x in prod if x > 0)
    total = sum(prod)
    # Harbors that fit: a 3:1, or a 2:1 of a resource the seat produces.
    harbors = 0.0
    ratios = s.ratios[q]
    for r in range(5):
        if ratios[r] == 2 and prod[r] > 0:
            harbors += 1.0
    if min(ratios) <= 3 and any(x == 3 for x in ratios):
        harbors += 0.5
    # Room to expand: free settlement spots the seat's network reaches or
    # touches (one road away), and the best of their production.
    spots = 0
    spot_pips = 0
    if s.pieces[q][1] > 0:
        seen: set[int] = set()
        for a in s.reach[q]:
            if node_owner[a] >= 0 and node_owner[a] != q:
                continue
            for b in (a, *s.info.node_nodes[a]):
                if b in seen:
                    continue
                seen.add(b)
                if node_owner[b] >= 0 or any(node_owner[m] >= 0 for m in s.info.node_nodes[b]):
                    continue
                spots += 1
                p = 0
                for h in s.info.node_hexes[b]:
                    p += _PIPS[numbers[h]]
                spot_pips = max(spot_pips, p)
    hand = sum(s.hands[q])
    dev = sum(s.dev_hand[q]) - s.dev_hand[q][VICTORY_POINT]
    return [
        float(vp),
        float(max(0, vp - (target - 4))),
        prod[0], prod[1], prod[2], prod[3], prod[4],
        float(kinds),
        total * max(0, target - vp) / target,
        float(cities),
        float(dev),
        float(s.knights[q]),
        float(min(s.road_len[q], 10)),
        float(min(hand, 7)),
        float(max(0, hand - 7)),
        harbors,
        float(min(spots, 4)),
        float(spot_pips),
    ]


def scores(s: GameState, weights: Sequence[float] = WEIGHTS) -> list[float]:
    """The linear score of every seat."""
    out = []
    for q in range(s.settings.players):
        f = features(s, q)
        out.append(sum(w * x for w, x in zip(weights, f, strict=True)))
    return out


def win_probabilities(s: GameState, weights: Sequence[float] = WEIGHTS) -> list[float]:
    """Each seat's chance to win (sums to 1); a finished game is 1 for the winner."""
    n = s.settings.players
    if s.phase == Phase.GAME_OVER:
        if s.winner is not None:
            return [1.0 if q == s.winner else 0.0 for q in range(n)]
        return [1.0 / n] * n
    sc = scores(s, weights)
    top = max(sc)
    ex = [math.exp(x - top) for x in sc]
    z = sum(ex)
    return [x / z for x in ex]


SETUP_FEATURE_NAMES: tuple[str, ...] = (
    "lumber", "brick", "wool", "grain", "ore", "kinds", "numbers", "road_kit",
    "city_kit", "harbor_2", "harbor_3", "spots", "spot_pips", "order", "sqrt_prod",
    "total", "least", "most",
)

SETUP_WEIGHTS: tuple[float, ...] = load_weights(_WEIGHTS_TEXT, "setup", SETUP_FEATURE_NAMES)
"""The opening model, fitted on the openings of 6000 four-player heuristic
self-play games in which each set-up settlement is, half of the time, one of
the six best by the heuristic's own score picked at random, so that the model
sees openings other than the heuristic's (``python -m bots.search_fit --setup
--explore --games 6000 --seed 50000 --write``; held-out log-loss 1.303,
uniform 1.386: an opening decides a little of a game, not all of it).
``sqrt_prod`` (diminishing returns of one resource) carries most of the
production's weight."""


def setup_features(s: GameState, q: int) -> list[float]:
    """Features of seat ``q``'s opening, once set-up is over (see
    :data:`SETUP_FEATURE_NAMES`): production per resource, variety of
    resources and numbers, the pairs for roads and cities, fitting harbors,
    room to expand, and the seat's place in the turn order."""
    board = s.info.board
    terrain = board.terrain
    numbers = board.numbers
    prod = [0.0] * 5
    nums: set[int] = set()
    harbor2 = 0.0
    harbor3 = 0.0
    mine = [node for node in s.reach[q] if s.node_owner[node] == q]
    for node in mine:
        for h in s.info.node_hexes[node]:
            t = terrain[h]
            if t != DESERT:
                prod[t] += _PIPS[numbers[h]]
                nums.add(numbers[h])
    for node in mine:
        kind = s.info.node_harbor[node]
        if kind == 5:
            harbor3 += 1.0
        elif kind >= 0:
            harbor2 += prod[kind] / 5.0
    f = features(s, q)
    n = s.settings.players
    order = (q - s.current) % n  # 0: the first to roll
    return [
        prod[0], prod[1], prod[2], prod[3], prod[4],
        float(sum(1 for x in prod if x > 0)),
        float(len(nums)),
        min(prod[0], prod[1]),
        min(prod[3], prod[4]),
        harbor2, harbor3,
        f[16], f[17],
        float(order),
        sum(math.sqrt(x) for x in prod),
        sum(prod), min(prod), max(prod),
    ]


def setup_win_probabilities(s: GameState,
                            weights: Sequence[float] | None = None) -> list[float]:
    """Each seat's chance to win, judged from the openings alone (after set-up)."""
    w = SETUP_WEIGHTS if weights is None else weights
    sc = [sum(wi * x for wi, x in zip(w, setup_features(s, q), strict=True))
          for q in range(s.settings.players)]
    top = max(sc)
    ex = [math.exp(x - top) for x in sc]
    z = sum(ex)
    return [x / z for x in ex]
