"""Board geometry (computed once) and board layouts (per game).

Geometry
========
The island (R-BOARD-1) is 19 pointy-top hexes in rows of 3, 4, 5, 4, 3,
addressed by axial coordinates ``(q, r)`` with ``|q|, |r|, |q + r| <= 2``;
``r`` is the row (−2 = top row), ``q`` grows to the right.

Ids are small integers, stable and documented so that the wire protocol and
renderers can rely on them:

* hexes ``0..18``: sorted by row, then left to right (top row is 0, 1, 2);
* intersections (nodes) ``0..53``: sorted top to bottom, then left to right;
* edges ``0..71``: sorted by their midpoint, top to bottom, then left to right.

Positions are pixel-free: with a hex's circumradius as the unit, the hex
``(q, r)`` has its centre at ``x = sqrt(3) * (q + r / 2)``, ``y = 1.5 * r``
(``y`` grows downwards, like screen coordinates). :data:`NODE_POS` and
:data:`EDGE_POS` give nodes and edge midpoints in the same units; a renderer
multiplies by its hex size and adds its origin.

Harbors (R-COMP-6, R-BOARD-4)
=============================
The 30 coastal edges are numbered clockwise starting with the top edge of
the top-left hex. The nine printed harbor positions are the coastal edges
``HARBOR_EDGES`` (gaps of 2, 2, 3 coastal edges between harbors, three
times round). The printed arrangement of types, clockwise from the top-left,
is ``3:1, grain, ore, 3:1, wool, 3:1, 3:1, brick, lumber`` (``HARBOR_TYPES``).
A harbor serves the two intersections of its edge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .rng import Rng

# --- resources and terrain -------------------------------------------------

LUMBER, BRICK, WOOL, GRAIN, ORE = range(5)
RESOURCES: tuple[str, ...] = ("lumber", "brick", "wool", "grain", "ore")
DESERT = 5
TERRAIN_NAMES: tuple[str, ...] = ("forest", "hills", "pasture", "fields", "mountains", "desert")
"""Terrain index ``t`` (0–4) produces resource ``t``; 5 is the desert."""

GENERIC_HARBOR = 5
"""Harbor type 5 is a generic 3:1 harbor; 0–4 are 2:1 harbors for that resource."""

# R-COMP-1: 4 forest, 3 hills, 4 pasture, 4 fields, 3 mountains, 1 desert.
TERRAIN_POOL: tuple[int, ...] = (
    (LUMBER,) * 4 + (BRICK,) * 3 + (WOOL,) * 4 + (GRAIN,) * 4 + (ORE,) * 3 + (DESERT,)
)
# R-COMP-2: number tokens A..R.
TOKEN_LETTERS = "ABCDEFGHIJKLMNOPQR"
TOKEN_VALUES: tuple[int, ...] = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)

# --- geometry ---------------------------------------------------------------

_SQRT3 = math.sqrt(3.0)
# Corner i of a pointy-top hex, as offsets in "half units": x in sqrt(3)/2, y in 1/2.
# Order: top, upper-right, lower-right, bottom, lower-left, upper-left.
_CORNER_OFFSETS: tuple[tuple[int, int], ...] = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))
_AXIAL_DIRS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def _hex_coords() -> list[tuple[int, int]]:
    cells = [
        (q, r)
        for r in range(-2, 3)
        for q in range(-2, 3)
        if abs(q) <= 2 and abs(r) <= 2 and abs(q + r) <= 2
    ]
    cells.sort(key=lambda c: (c[1], c[0]))
    return cells


HEX_COORDS: tuple[tuple[int, int], ...] = tuple(_hex_coords())
NUM_HEXES = len(HEX_COORDS)
_HEX_INDEX = {c: i for i, c in enumerate(HEX_COORDS)}


def _half_units(q: int, r: int, corner: int) -> tuple[int, int]:
    dx, dy = _CORNER_OFFSETS[corner]
    return (2 * q + r + dx, 3 * r + dy)


def _build_topology() -> dict[str, object]:
    node_keys: set[tuple[int, int]] = set()
    for q, r in HEX_COORDS:
        for c in range(6):
            node_keys.add(_half_units(q, r, c))
    nodes = sorted(node_keys, key=lambda k: (k[1], k[0]))
    node_index = {k: i for i, k in enumerate(nodes)}
    hex_nodes = [
        tuple(node_index[_half_units(q, r, c)] for c in range(6)) for q, r in HEX_COORDS
    ]
    edge_keys: set[tuple[int, int]] = set()
    for hn in hex_nodes:
        for c in range(6):
            a, b = hn[c], hn[(c + 1) % 6]
            edge_keys.add((min(a, b), max(a, b)))

    def edge_sort(e: tuple[int, int]) -> tuple[int, int]:
        (ax, ay), (bx, by) = nodes[e[0]], nodes[e[1]]
        return (ay + by, ax + bx)

    edges = sorted(edge_keys, key=edge_sort)
    edge_index = {e: i for i, e in enumerate(edges)}
    hex_edges = [
        tuple(edge_index[(min(hn[c], hn[(c + 1) % 6]), max(hn[c], hn[(c + 1) % 6]))]
              for c in range(6))
        for hn in hex_nodes
    ]
    return {
        "nodes": nodes,
        "edges": edges,
        "hex_nodes": hex_nodes,
        "hex_edges": hex_edges,
    }


_TOPO = _build_topology()
_NODE_KEYS: list[tuple[int, int]] = _TOPO["nodes"]  # type: ignore[assignment]
NUM_NODES = len(_NODE_KEYS)
EDGE_NODES: tuple[tuple[int, int], ...] = tuple(_TOPO["edges"])  # type: ignore[arg-type]
NUM_EDGES = len(EDGE_NODES)
HEX_NODES: tuple[tuple[int, ...], ...] = tuple(_TOPO["hex_nodes"])  # type: ignore[arg-type]
"""The six nodes of each hex, clockwise from the top corner."""
HEX_EDGES: tuple[tuple[int, ...], ...] = tuple(_TOPO["hex_edges"])  # type: ignore[arg-type]
"""The six edges of each hex, clockwise from the top-right edge."""

NODE_POS: tuple[tuple[float, float], ...] = tuple(
    (x * _SQRT3 / 2.0, y / 2.0) for x, y in _NODE_KEYS
)
EDGE_POS: tuple[tuple[float, float], ...] = tuple(
    ((NODE_POS[a][0] + NODE_POS[b][0]) / 2.0, (NODE_POS[a][1] + NODE_POS[b][1]) / 2.0)
    for a, b in EDGE_NODES
)
HEX_POS: tuple[tuple[float, float], ...] = tuple(
    (_SQRT3 * (q + r / 2.0), 1.5 * r) for q, r in HEX_COORDS
)


def _invert(pairs: tuple[tuple[int, ...], ...], n: int) -> tuple[tuple[int, ...], ...]:
    out: list[list[int]] = [[] for _ in range(n)]
    for i, members in enumerate(pairs):
        for m in members:
            out[m].append(i)
    return tuple(tuple(sorted(x)) for x in out)


NODE_HEXES: tuple[tuple[int, ...], ...] = _invert(HEX_NODES, NUM_NODES)
NODE_EDGES: tuple[tuple[int, ...], ...] = _invert(EDGE_NODES, NUM_NODES)
NODE_NODES: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(b if a == n else a for a, b in (EDGE_NODES[e] for e in NODE_EDGES[n])))
    for n in range(NUM_NODES)
)
EDGE_HEXES: tuple[tuple[int, ...], ...] = _invert(HEX_EDGES, NUM_EDGES)
HEX_NEIGHBORS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        sorted(
            _HEX_INDEX[(q + dq, r + dr)]
            for dq, dr in _AXIAL_DIRS
            if (q + dq, r + dr) in _HEX_INDEX
        )
    )
    for q, r in HEX_COORDS
)
EDGE_OTHER: tuple[dict[int, int], ...] = tuple({a: b, b: a} for a, b in EDGE_NODES)
"""``EDGE_OTHER[e][n]`` is the other end of edge ``e`` seen from node ``n``."""
COASTAL_NODES: frozenset[int] = frozenset(n for n in range(NUM_NODES) if len(NODE_HEXES[n]) < 3)


def _coastal_edges_clockwise() -> tuple[int, ...]:
    coastal = [e for e in range(NUM_EDGES) if len(EDGE_HEXES[e]) == 1]

    def angle(e: int) -> float:
        x, y = EDGE_POS[e]
        # Clockwise on screen (y down) = increasing atan2(y, x); start just after "up".
        a = math.atan2(y, x) + math.pi / 2
        return a % (2 * math.pi)

    ordered = sorted(coastal, key=angle)
    # Start at the top edge of the top-left hex (hex 0): its upper-left edge.
    top_left = HEX_EDGES[0][5]
    i = ordered.index(top_left)
    return tuple(ordered[i:] + ordered[:i])


COASTAL_EDGES: tuple[int, ...] = _coastal_edges_clockwise()
_HARBOR_SLOTS = (0, 3, 6, 10, 13, 16, 20, 23, 26)
HARBOR_EDGES: tuple[int, ...] = tuple(COASTAL_EDGES[i] for i in _HARBOR_SLOTS)
"""The nine printed harbor positions (edge ids), clockwise from the top-left."""
HARBOR_TYPES: tuple[int, ...] = (
    GENERIC_HARBOR, GRAIN, ORE, GENERIC_HARBOR, WOOL,
    GENERIC_HARBOR, GENERIC_HARBOR, BRICK, LUMBER,
)
"""The standard printed arrangement of harbor types over :data:`HARBOR_EDGES`."""


def _corner_hexes_ccw() -> tuple[list[int], list[int], list[int]]:
    """Outer ring (12), inner ring (6) and centre, each counter-clockwise on screen."""

    def ccw_angle(h: int) -> float:
        x, y = HEX_POS[h]
        return math.atan2(-y, x) % (2 * math.pi)

    def ring(k: int) -> list[int]:
        hs = [h for h, (q, r) in enumerate(HEX_COORDS) if max(abs(q), abs(r), abs(q + r)) == k]
        return sorted(hs, key=ccw_angle)

    return ring(2), ring(1), ring(0)


_OUTER, _INNER, _CENTRE = _corner_hexes_ccw()
OUTER_CORNERS: tuple[int, ...] = tuple(
    h for h in _OUTER if 0 in (HEX_COORDS[h][0], HEX_COORDS[h][1], -sum(HEX_COORDS[h]))
)
"""The six corner hexes of the outer ring (possible spiral starts, R-BOARD-2)."""


def spiral_order(start_corner: int) -> tuple[int, ...]:
    """The 19 hexes in the counter-clockwise spiral that starts at an outer corner.

    The outer ring is walked counter-clockwise from ``start_corner``; the inner
    ring starts at the inner hex next to the start corner (the same direction
    from the centre) and is walked the same way; the centre comes last.
    """
    if start_corner not in OUTER_CORNERS:
        raise ValueError(f"hex {start_corner} is not an outer-ring corner")
    i = _OUTER.index(start_corner)
    outer = _OUTER[i:] + _OUTER[:i]
    q, r = HEX_COORDS[start_corner]
    inner_start = _HEX_INDEX[(q // 2, r // 2)]
    j = _INNER.index(inner_start)
    inner = _INNER[j:] + _INNER[:j]
    return tuple(outer + inner + _CENTRE)


# --- layouts ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """One game's board: terrain and number per hex, harbor type per position.

    ``numbers[h]`` is 0 for the desert. ``harbors[i]`` is the type of the harbor
    at ``HARBOR_EDGES[i]`` (0–4: 2:1 of that resource, 5: generic 3:1).
    """

    terrain: tuple[int, ...]
    numbers: tuple[int, ...]
    harbors: tuple[int, ...] = HARBOR_TYPES

    def __post_init__(self) -> None:
        if len(self.terrain) != NUM_HEXES or len(self.numbers) != NUM_HEXES:
            raise ValueError("a board has 19 hexes")
        if sorted(self.terrain) != sorted(TERRAIN_POOL):
            raise ValueError("terrain must be the 19 base-game hexes (R-COMP-1)")
        for t, n in zip(self.terrain, self.numbers, strict=True):
            if (t == DESERT) != (n == 0):
                raise ValueError("exactly the desert has no number")
        if sorted(n for n in self.numbers if n) != sorted(TOKEN_VALUES):
            raise ValueError("numbers must be the 18 base-game tokens (R-COMP-2)")
        if len(self.harbors) != 9 or sorted(self.harbors) != sorted(HARBOR_TYPES):
            raise ValueError("harbors must be the 9 base-game harbors (R-COMP-6)")

    @property
    def desert(self) -> int:
        return self.terrain.index(DESERT)

    def node_harbors(self) -> tuple[int, ...]:
        """Harbor type at each node (-1: none)."""
        out = [-1] * NUM_NODES
        for edge, kind in zip(HARBOR_EDGES, self.harbors, strict=True):
            for n in EDGE_NODES[edge]:
                out[n] = kind
        return tuple(out)

    def to_dict(self) -> dict[str, list[int]]:
        return {"terrain": list(self.terrain), "numbers": list(self.numbers),
                "harbors": list(self.harbors)}

    @classmethod
    def from_dict(cls, d: dict[str, list[int]]) -> Board:
        return cls(tuple(d["terrain"]), tuple(d["numbers"]), tuple(d["harbors"]))


def numbers_for(terrain: tuple[int, ...], start_corner: int) -> tuple[int, ...]:
    """Lay tokens A..R along the spiral from ``start_corner``, skipping the desert."""
    numbers = [0] * NUM_HEXES
    tokens = iter(TOKEN_VALUES)
    for h in spiral_order(start_corner):
        if terrain[h] != DESERT:
            numbers[h] = next(tokens)
    return tuple(numbers)


def generate_board(rng: Rng, *, balanced: bool = False, shuffle_harbors: bool = False) -> Board:
    """A board from the game's RNG.

    Default: variable set-up (R-BOARD-2): shuffled terrain, tokens A–R along
    the spiral from a random outer corner, printed harbors. ``balanced``
    (R-OPT-1): shuffled terrain and numbers placed at random so that no two
    red numbers (6, 8) and no two equal numbers are neighbours.
    ``shuffle_harbors`` (R-OPT-2): harbor types shuffled over the printed
    positions.
    """
    terrain = list(TERRAIN_POOL)
    rng.shuffle(terrain)
    t = tuple(terrain)
    if balanced:
        numbers = balanced_numbers(t, rng)
    else:
        numbers = numbers_for(t, OUTER_CORNERS[rng.below(len(OUTER_CORNERS))])
    harbors = list(HARBOR_TYPES)
    if shuffle_harbors:
        rng.shuffle(harbors)
    return Board(t, numbers, tuple(harbors))


def _conflict(a: int, b: int) -> bool:
    return a == b or (a in (6, 8) and b in (6, 8))


def balanced_numbers(terrain: tuple[int, ...], rng: Rng) -> tuple[int, ...]:
    """R-OPT-1: number tokens at random with no adjacent reds and no adjacent
    equal numbers.

    Randomised backtracking: the hexes are shuffled, then the tokens (red ones
    first, where they are most constrained) each take the first hex in that
    order that fits; equal tokens take hexes in increasing order so that no
    arrangement is tried twice. A rare unlucky order is abandoned after a
    fixed number of steps and the hexes reshuffled, which bounds the time
    (well under a millisecond, a few at worst); all of it from the game's RNG.
    """
    while True:
        order = [h for h in range(NUM_HEXES) if terrain[h] != DESERT]
        rng.shuffle(order)
        numbers = _place_tokens(order)
        if numbers is not None:
            return numbers


_RED_FIRST = tuple(sorted(TOKEN_VALUES, key=lambda v: (v not in (6, 8), v)))


def _place_tokens(order: list[int], budget: int = 400) -> tuple[int, ...] | None:
    """One randomised backtracking attempt over ``order``; None when it gives up."""
    tokens = _RED_FIRST
    numbers = [0] * NUM_HEXES
    last_pos: dict[int, int] = {}
    steps = [budget]

    def fits(h: int, v: int) -> bool:
        return not any(numbers[m] and _conflict(numbers[m], v) for m in HEX_NEIGHBORS[h])

    def place(i: int) -> bool | None:
        if i == len(tokens):
            return True
        steps[0] -= 1
        if steps[0] < 0:
            return None
        v = tokens[i]
        start = last_pos[v] + 1 if i and tokens[i - 1] == v else 0
        for j in range(start, len(order)):
            h = order[j]
            if not numbers[h] and fits(h, v):
                numbers[h] = v
                saved = last_pos.get(v, -1)
                last_pos[v] = j
                done = place(i + 1)
                if done or done is None:
                    return done
                numbers[h] = 0
                last_pos[v] = saved
        return False

    return tuple(numbers) if place(0) else None


def pips(number: int) -> int:
    """How many of the 36 dice outcomes give ``number`` (0 for 0 or 7)."""
    return 0 if number in (0, 7) else 6 - abs(7 - number)
