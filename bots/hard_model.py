"""The Hard bot's learned evaluation: each seat's chance to win, from one seat's view.

:func:`encode` turns a position into one row of :data:`FEATURE_NAMES` per
seat, *as the perspective seat sees it*: public facts for everyone (victory
points on the board, production, pieces, card counts, knights, roads,
harbors, room to expand, the turn order) and the perspective seat's own hand
and development cards; never another seat's hand or development cards
(their counts only), nor their hidden victory point cards. It reads a
:class:`GameState`, which the Hard bot only ever has as a *sample* of its
view (:func:`protocol.rules.sample_state`), and reads nothing of it that the
view does not show. The features are sums over the board (production per
resource, spots within reach), not per-hex slots, so they do not depend on
the board's size or layout.

:class:`WinModel` scores every seat's row with one small neural network (two
hidden layers, ``tanh``) and turns the scores into win probabilities with a
softmax over the seats, so one model serves 2, 3 and 4 players (the
2-player variant's neutral players are not seats). It runs in numpy.
The weights are trained from self-play by :mod:`bots.hard_train` and ship
in :data:`WEIGHTS_FILE`, which :func:`load_model` checks (format, feature
names, shapes, finite numbers) and refuses, with the reason, when it does
not pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from protocol.rules import GameState, Phase
from protocol.rules.board import DESERT, NODE_HEXES, NODE_NODES, pips
from protocol.rules.state import (
    CITIES,
    COST_CITY,
    COST_DEV,
    COST_SETTLEMENT,
    KNIGHT,
    SETTLEMENTS,
    VICTORY_POINT,
)

from .weights_file import weights_document

FEATURE_NAMES: tuple[str, ...] = (
    "me", "vp", "vp_left", "vp_close", "lead", "lumber", "brick", "wool", "grain", "ore",
    "kinds", "production", "sqrt_production", "robbed", "cities", "settlements",
    "settlements_left", "cities_left", "cards", "over7", "hand_lumber", "hand_brick",
    "hand_wool", "hand_grain", "hand_ore", "city_ready", "settlement_ready", "dev_ready",
    "dev_cards", "knight_cards", "progress_cards", "knights", "largest_army",
    "longest_road", "road_length", "road_gap", "harbor_2", "harbor_3", "spots", "spot_pips",
    "to_move", "next", "players_2", "players_3",
)
"""One row per seat; the features a seat cannot see for another seat (its
hand, its development cards by kind) are 0 in that seat's row."""

WEIGHTS_FILE = "hard_weights.json"
WEIGHTS_FORMAT = "kaitaku-hard-model/1"
MODEL_PLAYERS = 4
"""The most players of a game the model is trained for (2, 3 and 4)."""
MAX_WEIGHTS = 200_000
"""The most numbers a weights file may hold (the shipped model holds a few thousand)."""

_PIPS = tuple(pips(n) for n in range(13))
_GAME_OVER = Phase.GAME_OVER.value

FloatArray = npt.NDArray[np.float64]


_TABLES: dict[int, tuple[object, list[tuple[tuple[int, int, int], ...]], list[int]]] = {}


def _tables(s: GameState) -> tuple[list[tuple[tuple[int, int, int], ...]], list[int]]:
    """Per board: each node's producing hexes as (hex, resource, pips), and
    each node's pips in all (cached while the board is in use)."""
    info = s.info
    got = _TABLES.get(id(info))
    if got is not None and got[0] is info:
        return got[1], got[2]
    board = info.board
    terrain = board.terrain
    numbers = board.numbers
    node_prod = [tuple((h, terrain[h], _PIPS[numbers[h]]) for h in hexes
                       if terrain[h] != DESERT) for hexes in NODE_HEXES]
    node_pips = [sum(p for _, _, p in x) for x in node_prod]
    if len(_TABLES) > 64:
        _TABLES.clear()
    _TABLES[id(info)] = (info, node_prod, node_pips)
    return node_prod, node_pips


def encode(s: GameState, me: int) -> list[list[float]]:
    """One feature row per seat (seat order) of ``s`` as seat ``me`` sees it."""
    n = s.settings.players
    target = s.settings.vp_target
    node_prod, node_pips = _tables(s)
    robber = s.robber
    node_owner = s.node_owner
    node_level = s.node_level
    vps = [s.vp[q] + (s.dev_hand[q][VICTORY_POINT] if q == me else 0) for q in range(n)]
    best_len = max(s.road_len[:n])
    rows: list[list[float]] = []
    for q in range(n):
        prod = [0.0] * 5
        robbed = 0.0
        cities = 0
        settlements = 0
        reach = s.reach[q]
        for node in reach:
            if node_owner[node] != q:
                continue
            lv = node_level[node]
            if lv == 2:
                cities += 1
            else:
                settlements += 1
            for h, t, p in node_prod[node]:
                if h == robber:
                    robbed += p * lv
                else:
                    prod[t] += p * lv
        total = sum(prod)
        ratios = s.ratios[q]
        harbor2 = 0.0
        for r in range(5):
            if ratios[r] == 2:
                harbor2 += min(prod[r], 6.0) / 6.0
        harbor3 = 1.0 if 3 in ratios else 0.0
        spots = 0
        spot_pips = 0
        if s.pieces[q][SETTLEMENTS] > 0:
            seen: set[int] = set()
            for a in reach:
                o = node_owner[a]
                if o >= 0 and o != q:
                    continue
                for b in (a, *NODE_NODES[a]):
                    if b in seen:
                        continue
                    seen.add(b)
                    if node_owner[b] >= 0:
                        continue
                    for m in NODE_NODES[b]:
                        if node_owner[m] >= 0:
                            break
                    else:
                        spots += 1
                        if node_pips[b] > spot_pips:
                            spot_pips = node_pips[b]
        cards = sum(s.hands[q])
        dev = s.dev_hand[q]
        vp = vps[q]
        others = max((vps[o] for o in range(n) if o != q), default=0)
        row = [
            1.0 if q == me else 0.0,
            vp / target,
            float(max(0, target - vp)),
            float(max(0, vp - (target - 4))),
            float(vp - others),
            prod[0] / 6.0, prod[1] / 6.0, prod[2] / 6.0, prod[3] / 6.0, prod[4] / 6.0,
            float(sum(1 for x in prod if x > 0)),
            total / 10.0,
            sum(math.sqrt(x) for x in prod) / 5.0,
            robbed / 6.0,
            float(cities),
            float(settlements),
            float(s.pieces[q][SETTLEMENTS]),
            float(s.pieces[q][CITIES]),
            float(min(cards, 12)) / 4.0,
            1.0 if cards > 7 else 0.0,
        ]
        if q == me:
            hand = s.hands[q]
            row += [min(x, 6) / 3.0 for x in hand]
            row += [
                1.0 if all(hand[r] >= COST_CITY[r] for r in range(5)) else 0.0,
                1.0 if all(hand[r] >= COST_SETTLEMENT[r] for r in range(5)) else 0.0,
                1.0 if all(hand[r] >= COST_DEV[r] for r in range(5)) else 0.0,
            ]
            held = sum(dev) - dev[VICTORY_POINT]
            row += [float(held), float(dev[KNIGHT]), float(held - dev[KNIGHT])]
        else:
            row += [0.0] * 8
            row += [float(sum(dev)), 0.0, 0.0]  # the count is public, the kinds are not
        row += [
            float(s.knights[q]),
            1.0 if s.la_holder == q else 0.0,
            1.0 if s.lr_holder == q else 0.0,
            float(min(s.road_len[q], 15)) / 5.0,
            float(max(-5, min(5, s.road_len[q] - best_len))),
            harbor2,
            harbor3,
            float(min(spots, 6)),
            spot_pips / 10.0,
            1.0 if q == s.current else 0.0,
            ((q - s.current) % n) / n,
            1.0 if n == 2 else 0.0,
            1.0 if n == 3 else 0.0,
        ]
        rows.append(row)
    return rows


class WinModel:
    """A seat's score from its row (a small MLP), win probabilities by softmax."""

    def __init__(self, layers: Sequence[tuple[FloatArray, FloatArray]],
                 mean: FloatArray, scale: FloatArray, facts: Mapping[str, Any] | None = None,
                 ) -> None:
        self.layers = [(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64))
                       for w, b in layers]
        self.mean = np.asarray(mean, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.facts = dict(facts or {})

    def scores(self, rows: FloatArray) -> FloatArray:
        """Scores of feature rows (any leading shape, last axis the features)."""
        x = (rows - self.mean) / self.scale
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                x = np.tanh(x)
        out: FloatArray = x[..., 0]
        return out

    def probabilities(self, rows: FloatArray) -> FloatArray:
        """Win probabilities of ``rows`` (shape ``(..., seats, features)``)."""
        sc = self.scores(rows)
        sc = sc - sc.max(axis=-1, keepdims=True)
        ex = np.exp(sc)
        out: FloatArray = ex / ex.sum(axis=-1, keepdims=True)
        return out

    def win_probabilities(self, s: GameState, me: int) -> list[float]:
        """Each seat's chance to win ``s`` as seat ``me`` sees it (a finished
        game: 1 for the winner)."""
        n = s.settings.players
        if s.phase == _GAME_OVER:
            if s.winner is not None:
                return [1.0 if q == s.winner else 0.0 for q in range(n)]
            return [1.0 / n] * n
        p = self.probabilities(np.asarray(encode(s, me), dtype=np.float64))
        return [float(x) for x in p]

    def value(self, s: GameState, me: int) -> float:
        """Seat ``me``'s chance to win ``s``, as it sees it."""
        return self.win_probabilities(s, me)[me]

    def values(self, states: Sequence[GameState], me: int) -> list[float]:
        """:meth:`value` of several states of one game at once (one numpy pass)."""
        out = [0.0] * len(states)
        todo: list[int] = []
        rows: list[list[list[float]]] = []
        for i, s in enumerate(states):
            if s.phase == _GAME_OVER:
                out[i] = 1.0 if s.winner == me else 0.0
            else:
                todo.append(i)
                rows.append(encode(s, me))
        if rows:
            p = self.probabilities(np.asarray(rows, dtype=np.float64))
            for i, v in zip(todo, p[:, me], strict=True):
                out[i] = float(v)
        return out

    def to_doc(self) -> dict[str, Any]:
        """The weights file's document (see :func:`parse_model`)."""
        return {
            "format": WEIGHTS_FORMAT,
            "features": list(FEATURE_NAMES),
            "mean": [_num(x) for x in self.mean],
            "scale": [_num(x) for x in self.scale],
            "layers": [{"w": [[_num(x) for x in row] for row in w], "b": [_num(x) for x in b]}
                       for w, b in self.layers],
            **self.facts,
        }


def _num(x: float) -> float:
    return float(f"{float(x):.7g}")


def parse_model(text: str, source: str = WEIGHTS_FILE) -> WinModel:
    """The model in a weights file's ``text``, checked: the format, the
    feature names (they must be :data:`FEATURE_NAMES`, in order), the layers'
    shapes (each layer's inputs are the last one's outputs, one output at the
    end), finite numbers throughout, positive scales, and at most
    :data:`MAX_WEIGHTS` numbers. A file that does not pass raises
    ``ValueError`` saying what is wrong."""
    doc = weights_document(text, WEIGHTS_FORMAT, source)
    if doc.get("features") != list(FEATURE_NAMES):
        raise ValueError(f"{source}: the features are not those this version encodes "
                         f"({len(FEATURE_NAMES)} named in bots.hard_model.FEATURE_NAMES)")
    k = len(FEATURE_NAMES)
    mean = _vector(doc.get("mean"), k, f"{source}: 'mean'")
    scale = _vector(doc.get("scale"), k, f"{source}: 'scale'")
    if not all(x > 0 for x in scale):
        raise ValueError(f"{source}: 'scale' must be positive")
    layers = doc.get("layers")
    if not isinstance(layers, list) or not 1 <= len(layers) <= 8:
        raise ValueError(f"{source}: 'layers' must be a list of 1 to 8 layers")
    parsed: list[tuple[FloatArray, FloatArray]] = []
    width = k
    total = 0
    for i, layer in enumerate(layers):
        where = f"{source}: layer {i}"
        if not isinstance(layer, dict):
            raise ValueError(f"{where} is not an object")
        w = layer.get("w")
        if not isinstance(w, list) or len(w) != width:
            raise ValueError(f"{where}: 'w' must have {width} rows (the inputs)")
        out = len(w[0]) if isinstance(w[0], list) else 0
        if out < 1:
            raise ValueError(f"{where}: 'w' rows must be non-empty lists")
        total += width * out + out
        if total > MAX_WEIGHTS:
            raise ValueError(f"{source}: more than {MAX_WEIGHTS} weights")
        rows = [_vector(row, out, f"{where}: a row of 'w'") for row in w]
        b = _vector(layer.get("b"), out, f"{where}: 'b'")
        parsed.append((np.array(rows, dtype=np.float64), np.array(b, dtype=np.float64)))
        width = out
    if width != 1:
        raise ValueError(f"{source}: the last layer must have one output (a score)")
    facts = {key: v for key, v in doc.items()
             if key not in ("format", "features", "mean", "scale", "layers")}
    return WinModel(parsed, np.array(mean), np.array(scale), facts)


def _vector(v: object, n: int, what: str) -> list[float]:
    if not (isinstance(v, list) and len(v) == n and all(
            type(x) in (int, float) and math.isfinite(x) for x in v)):
        raise ValueError(f"{what} must be {n} finite numbers")
    return [float(x) for x in v]


@lru_cache(maxsize=1)
def load_model() -> WinModel:
    """The shipped model (:data:`WEIGHTS_FILE`, package data next to this
    module), checked by :func:`parse_model`."""
    text = resources.files(__package__).joinpath(WEIGHTS_FILE).read_text("utf-8")
    return parse_model(text)


__all__ = ["FEATURE_NAMES", "WEIGHTS_FILE", "WinModel", "encode", "load_model", "parse_model"]
