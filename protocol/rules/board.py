"""Board geometries (computed once) and board layouts (per game).

Geometry
========
A board is pointy-top hexes addressed by axial coordinates ``(q, r)``;
``r`` is the row (the top row has the smallest ``r``), ``q`` grows to the
right. There are two geometries, chosen by the number of players
(:func:`geometry_for`):

* :data:`BASE` (R-BOARD-1, 2–4 players): 19 hexes in rows of 3, 4, 5, 4, 3,
  ``|q|, |r|, |q + r| <= 2``;
* :data:`LARGE` (R-56-1, 5–6 players): 30 hexes in rows of 3, 4, 5, 6, 5, 4,
  3, ``-3 <= r <= 3``, ``-3 <= q <= 2``, ``-3 <= q + r <= 2``.

Ids are small integers, stable and documented so that the wire protocol and
renderers can rely on them. Both geometries follow one ordering rule:

* hexes: sorted by row, then left to right (the top row is 0, 1, 2);
* intersections (nodes): sorted top to bottom, then left to right;
* edges: sorted by their midpoint, top to bottom, then left to right.

The base board has hexes ``0..18``, nodes ``0..53`` and edges ``0..71``; the
large board hexes ``0..29``, nodes ``0..79`` and edges ``0..108``.

Positions are pixel-free: with a hex's circumradius as the unit, the hex
``(q, r)`` has its centre at ``x = sqrt(3) * (q + r / 2)``, ``y = 1.5 * r``
(``y`` grows downwards, like screen coordinates). ``node_pos`` and
``edge_pos`` give nodes and edge midpoints in the same units; a renderer
multiplies by its hex size and adds its origin. The base board is centred on
``(0, 0)``; the large board's centre is ``(-sqrt(3) / 2, 0)``
(:attr:`Geometry.centre`).

Harbors (R-COMP-6, R-BOARD-4, R-56-6)
=====================================
A board's coastal edges are numbered clockwise (round its centre) starting
with the top edge (the upper-left side) of the top-left hex, hex 0. A harbor
serves the two intersections of its edge.

* Base board: 30 coastal edges; the nine printed harbor positions are the
  coastal edges ``0, 3, 6, 10, 13, 16, 20, 23, 26`` (gaps of 2, 2, 3 coastal
  edges between harbors, three times round). The printed arrangement of
  types, clockwise from the top-left, is ``3:1, grain, ore, 3:1, wool, 3:1,
  3:1, brick, lumber``.
* Large board: 38 coastal edges; the eleven harbors are where JSettlers2's
  6-player board puts them, at the coastal edges ``0, 3, 7, 10, 14, 17, 21,
  24, 28, 31, 34`` (gaps of 2, 3, 2, 3, 2, 3, 2, 3, 2, 2, 3 coastal edges
  between harbors): the upper-left
  side of the top-left hex, the upper-right sides of the top row's middle
  hex and of the second row's last hex, the right sides of the third and
  fifth rows' last hexes, the lower-right sides of the sixth row's last hex
  and of the bottom row's middle hex, the lower-left sides of the bottom-left
  hex and of the fifth row's first hex, the left side of the middle row's
  first hex and the upper-left side of the third row's first hex. The
  printed arrangement of types in that order is ``3:1, 3:1, 3:1, 3:1, brick,
  ore, wool, grain, lumber, 3:1, wool``.

Number tokens (R-BOARD-2, R-56-3)
=================================
The tokens are laid in letter order along a counter-clockwise spiral that
starts at one of the six outer corner hexes (the hexes of the outer ring
with three land neighbours): the board is peeled into rings (a ring is the
hexes with fewer than six neighbours among those left); each ring is walked
counter-clockwise round the board's centre, the outer one from the start
corner, each inner one from its hex nearest the start of the ring outside
it. The base board has rings of 12, 6 and 1 hexes, the large board 16, 10
and 4.
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

# --- geometry ---------------------------------------------------------------

_SQRT3 = math.sqrt(3.0)
# Corner i of a pointy-top hex, as offsets in "half units": x in sqrt(3)/2, y in 1/2.
# Order: top, upper-right, lower-right, bottom, lower-left, upper-left.
_CORNER_OFFSETS: tuple[tuple[int, int], ...] = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))
_AXIAL_DIRS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

# Sides of a hex, the index into ``hex_edges[h]``.
_NE, _E, _SE, _SW, _W, _NW = range(6)


def _half_units(q: int, r: int, corner: int) -> tuple[int, int]:
    dx, dy = _CORNER_OFFSETS[corner]
    return (2 * q + r + dx, 3 * r + dy)


def _invert(pairs: tuple[tuple[int, ...], ...], n: int) -> tuple[tuple[int, ...], ...]:
    out: list[list[int]] = [[] for _ in range(n)]
    for i, members in enumerate(pairs):
        for m in members:
            out[m].append(i)
    return tuple(tuple(sorted(x)) for x in out)


class Geometry:
    """One board shape: every table the rules and the renderers need, computed
    once. The tables are plain tuples; the engine reads them through a game's
    :class:`~protocol.rules.state.BoardInfo`."""

    __slots__ = (
        "name", "hex_coords", "num_hexes", "num_nodes", "num_edges", "edge_nodes",
        "hex_nodes", "hex_edges", "node_pos", "edge_pos", "hex_pos", "node_hexes",
        "node_edges", "node_nodes", "edge_hexes", "hex_neighbors", "edge_other",
        "coastal_nodes", "coastal_edges", "harbor_slots", "harbor_edges", "harbor_types",
        "outer_corners", "terrain_pool", "token_letters", "token_values", "centre",
        "_hex_index", "_rings", "_red_first", "_spirals",
    )

    name: str
    hex_coords: tuple[tuple[int, int], ...]
    num_hexes: int
    num_nodes: int
    num_edges: int
    edge_nodes: tuple[tuple[int, int], ...]
    hex_nodes: tuple[tuple[int, ...], ...]
    """The six nodes of each hex, clockwise from the top corner."""
    hex_edges: tuple[tuple[int, ...], ...]
    """The six edges of each hex, clockwise from the top-right edge."""
    node_pos: tuple[tuple[float, float], ...]
    edge_pos: tuple[tuple[float, float], ...]
    hex_pos: tuple[tuple[float, float], ...]
    node_hexes: tuple[tuple[int, ...], ...]
    node_edges: tuple[tuple[int, ...], ...]
    node_nodes: tuple[tuple[int, ...], ...]
    edge_hexes: tuple[tuple[int, ...], ...]
    hex_neighbors: tuple[tuple[int, ...], ...]
    edge_other: tuple[dict[int, int], ...]
    """``edge_other[e][n]`` is the other end of edge ``e`` seen from node ``n``."""
    coastal_nodes: frozenset[int]
    coastal_edges: tuple[int, ...]
    """The coastal edges clockwise from the upper-left side of hex 0."""
    harbor_slots: tuple[int, ...]
    harbor_edges: tuple[int, ...]
    """The printed harbor positions (edge ids), clockwise from the top-left."""
    harbor_types: tuple[int, ...]
    """The printed arrangement of harbor types over :attr:`harbor_edges`."""
    outer_corners: tuple[int, ...]
    """The six corner hexes of the outer ring (possible spiral starts)."""
    terrain_pool: tuple[int, ...]
    token_letters: tuple[str, ...]
    token_values: tuple[int, ...]
    centre: tuple[float, float]

    def __init__(self, name: str, cells: list[tuple[int, int]], terrain_pool: tuple[int, ...],
                 token_letters: tuple[str, ...], token_values: tuple[int, ...],
                 harbor_at: tuple[int | tuple[tuple[int, int], int], ...],
                 harbor_types: tuple[int, ...]) -> None:
        self.name = name
        cells = sorted(cells, key=lambda c: (c[1], c[0]))
        self.hex_coords = tuple(cells)
        self.num_hexes = len(cells)
        self._hex_index = {c: i for i, c in enumerate(cells)}
        self.terrain_pool = terrain_pool
        self.token_letters = token_letters
        self.token_values = token_values
        self._red_first = tuple(sorted(token_values, key=lambda v: (v not in (6, 8), v)))
        if len(terrain_pool) != len(cells) or len(token_letters) != len(token_values) or (
                len(token_values) != len(cells) - terrain_pool.count(DESERT)):
            raise ValueError("terrain and tokens must fit the hexes")

        node_keys = sorted({_half_units(q, r, c) for q, r in cells for c in range(6)},
                           key=lambda k: (k[1], k[0]))
        node_index = {k: i for i, k in enumerate(node_keys)}
        hex_nodes = tuple(
            tuple(node_index[_half_units(q, r, c)] for c in range(6)) for q, r in cells)
        edge_keys = {(min(hn[c], hn[(c + 1) % 6]), max(hn[c], hn[(c + 1) % 6]))
                     for hn in hex_nodes for c in range(6)}

        def edge_sort(e: tuple[int, int]) -> tuple[int, int]:
            (ax, ay), (bx, by) = node_keys[e[0]], node_keys[e[1]]
            return (ay + by, ax + bx)

        edges = sorted(edge_keys, key=edge_sort)
        edge_index = {e: i for i, e in enumerate(edges)}
        self.num_nodes = len(node_keys)
        self.num_edges = len(edges)
        self.edge_nodes = tuple(edges)
        self.hex_nodes = hex_nodes
        self.hex_edges = tuple(
            tuple(edge_index[(min(hn[c], hn[(c + 1) % 6]), max(hn[c], hn[(c + 1) % 6]))]
                  for c in range(6))
            for hn in hex_nodes)
        self.node_pos = tuple((x * _SQRT3 / 2.0, y / 2.0) for x, y in node_keys)
        self.edge_pos = tuple(
            ((self.node_pos[a][0] + self.node_pos[b][0]) / 2.0,
             (self.node_pos[a][1] + self.node_pos[b][1]) / 2.0)
            for a, b in edges)
        self.hex_pos = tuple((_SQRT3 * (q + r / 2.0), 1.5 * r) for q, r in cells)
        self.centre = (sum(x for x, _ in self.hex_pos) / len(cells),
                       sum(y for _, y in self.hex_pos) / len(cells))
        self.node_hexes = _invert(hex_nodes, self.num_nodes)
        self.node_edges = _invert(self.edge_nodes, self.num_nodes)
        self.node_nodes = tuple(
            tuple(sorted(b if a == n else a
                         for a, b in (self.edge_nodes[e] for e in self.node_edges[n])))
            for n in range(self.num_nodes))
        self.edge_hexes = _invert(self.hex_edges, self.num_edges)
        self.hex_neighbors = tuple(
            tuple(sorted(self._hex_index[(q + dq, r + dr)] for dq, dr in _AXIAL_DIRS
                         if (q + dq, r + dr) in self._hex_index))
            for q, r in cells)
        self.edge_other = tuple({a: b, b: a} for a, b in edges)
        self.coastal_nodes = frozenset(
            n for n in range(self.num_nodes) if len(self.node_hexes[n]) < 3)
        self.coastal_edges = self._coastal_edges_clockwise()
        # A harbor is given by its coastal slot, or by its hex and that hex's side.
        self.harbor_edges = tuple(
            self.coastal_edges[at] if isinstance(at, int)
            else self.hex_edges[self._hex_index[at[0]]][at[1]]
            for at in harbor_at)
        self.harbor_slots = tuple(self.coastal_edges.index(e) for e in self.harbor_edges)
        self.harbor_types = harbor_types
        self._rings = self._rings_ccw()
        outer = self._rings[0]
        self.outer_corners = tuple(h for h in outer if len(self.hex_neighbors[h]) == 3)
        self._spirals = {c: self._spiral(c) for c in self.outer_corners}

    def _angle(self, x: float, y: float) -> float:
        """Clockwise on screen (y down) round the centre, starting just after "up"."""
        cx, cy = self.centre
        return (math.atan2(y - cy, x - cx) + math.pi / 2) % (2 * math.pi)

    def _coastal_edges_clockwise(self) -> tuple[int, ...]:
        coastal = [e for e in range(self.num_edges) if len(self.edge_hexes[e]) == 1]
        ordered = sorted(coastal, key=lambda e: self._angle(*self.edge_pos[e]))
        i = ordered.index(self.hex_edges[0][_NW])
        return tuple(ordered[i:] + ordered[:i])

    def _rings_ccw(self) -> tuple[tuple[int, ...], ...]:
        """The rings of hexes from the outside in, each counter-clockwise on screen."""
        cx, cy = self.centre

        def ccw_angle(h: int) -> float:
            x, y = self.hex_pos[h]
            return math.atan2(-(y - cy), x - cx) % (2 * math.pi)

        left = set(range(self.num_hexes))
        rings: list[tuple[int, ...]] = []
        while left:
            ring = [h for h in left if sum(m in left for m in self.hex_neighbors[h]) < 6]
            rings.append(tuple(sorted(ring, key=ccw_angle)))
            left -= set(ring)
        return tuple(rings)

    def spiral_order(self, start_corner: int) -> tuple[int, ...]:
        """Every hex in the counter-clockwise spiral from an outer corner (R-BOARD-2)."""
        order = self._spirals.get(start_corner)
        if order is None:
            raise ValueError(f"hex {start_corner} is not an outer-ring corner")
        return order

    def _spiral(self, start_corner: int) -> tuple[int, ...]:
        out: list[int] = []
        start = start_corner
        for ring in self._rings:
            sx, sy = self.hex_pos[start]
            first = min(ring, key=lambda h: math.hypot(self.hex_pos[h][0] - sx,
                                                       self.hex_pos[h][1] - sy))
            i = ring.index(first)
            out.extend(ring[i:] + ring[:i])
            start = first
        return tuple(out)


BASE = Geometry(
    "base",
    [(q, r) for r in range(-2, 3) for q in range(-2, 3) if abs(q + r) <= 2],
    # R-COMP-1: 4 forest, 3 hills, 4 pasture, 4 fields, 3 mountains, 1 desert.
    (LUMBER,) * 4 + (BRICK,) * 3 + (WOOL,) * 4 + (GRAIN,) * 4 + (ORE,) * 3 + (DESERT,),
    # R-COMP-2: number tokens A..R.
    tuple("ABCDEFGHIJKLMNOPQR"),
    (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11),
    # R-COMP-6: the printed positions, as coastal slots.
    (0, 3, 6, 10, 13, 16, 20, 23, 26),
    (GENERIC_HARBOR, GRAIN, ORE, GENERIC_HARBOR, WOOL,
     GENERIC_HARBOR, GENERIC_HARBOR, BRICK, LUMBER),
)
"""The base game's 19-hex board (R-BOARD-1)."""

LARGE = Geometry(
    "large",
    [(q, r) for r in range(-3, 4) for q in range(-3, 3) if -3 <= q + r <= 2],
    # R-56-2: 6 forest, 5 hills, 6 pasture, 6 fields, 5 mountains, 2 deserts.
    (LUMBER,) * 6 + (BRICK,) * 5 + (WOOL,) * 6 + (GRAIN,) * 6 + (ORE,) * 5 + (DESERT,) * 2,
    # R-56-3: number tokens A..Y, Za, Zb, Zc.
    (*"ABCDEFGHIJKLMNOPQRSTUVWXY", "Za", "Zb", "Zc"),
    (2, 5, 4, 6, 3, 9, 8, 11, 11, 10, 6, 3, 8, 4, 8, 10, 11, 12, 10, 5, 4, 9, 5, 9, 12, 3,
     2, 6),
    # R-56-6: JSettlers2's 6-player harbor positions, clockwise from the top-left.
    (((0, -3), _NW), ((1, -3), _NE), ((2, -2), _NE), ((2, -1), _E), ((1, 1), _E),
     ((0, 2), _SE), ((-2, 3), _SE), ((-3, 3), _SW), ((-3, 1), _SW), ((-3, 0), _W),
     ((-2, -1), _NW)),
    (GENERIC_HARBOR, GENERIC_HARBOR, GENERIC_HARBOR, GENERIC_HARBOR, BRICK, ORE, WOOL,
     GRAIN, LUMBER, GENERIC_HARBOR, WOOL),
)
"""The 5–6 player extension's 30-hex board (R-56-1)."""

GEOMETRIES: tuple[Geometry, ...] = (BASE, LARGE)


def geometry_for(players: int) -> Geometry:
    """The board of a game for ``players`` players: the large one for 5 or 6 (R-56-1)."""
    return LARGE if players >= 5 else BASE


def geometry_of(num_hexes: int) -> Geometry:
    """The geometry with ``num_hexes`` hexes (a board's size names its shape)."""
    for g in GEOMETRIES:
        if g.num_hexes == num_hexes:
            return g
    raise ValueError(f"no board has {num_hexes} hexes")

# The base board's tables under their long-standing names (the 19-hex board
# is the default geometry; code that serves both boards reads a Geometry).
HEX_COORDS = BASE.hex_coords
NUM_HEXES = BASE.num_hexes
NUM_NODES = BASE.num_nodes
NUM_EDGES = BASE.num_edges
EDGE_NODES = BASE.edge_nodes
HEX_NODES = BASE.hex_nodes
HEX_EDGES = BASE.hex_edges
NODE_POS = BASE.node_pos
EDGE_POS = BASE.edge_pos
HEX_POS = BASE.hex_pos
NODE_HEXES = BASE.node_hexes
NODE_EDGES = BASE.node_edges
NODE_NODES = BASE.node_nodes
EDGE_HEXES = BASE.edge_hexes
HEX_NEIGHBORS = BASE.hex_neighbors
EDGE_OTHER = BASE.edge_other
COASTAL_NODES = BASE.coastal_nodes
COASTAL_EDGES = BASE.coastal_edges
HARBOR_EDGES = BASE.harbor_edges
HARBOR_TYPES = BASE.harbor_types
OUTER_CORNERS = BASE.outer_corners
TERRAIN_POOL = BASE.terrain_pool
TOKEN_LETTERS = "".join(BASE.token_letters)
TOKEN_VALUES = BASE.token_values
MAX_HEXES = max(g.num_hexes for g in GEOMETRIES)
MAX_NODES = max(g.num_nodes for g in GEOMETRIES)
MAX_EDGES = max(g.num_edges for g in GEOMETRIES)


def spiral_order(start_corner: int) -> tuple[int, ...]:
    """The base board's spiral from an outer corner (:meth:`Geometry.spiral_order`)."""
    return BASE.spiral_order(start_corner)


# --- layouts ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """One game's board: terrain and number per hex, harbor type per position.

    The number of hexes names the geometry (19: :data:`BASE`, 30:
    :data:`LARGE`). ``numbers[h]`` is 0 for a desert. ``harbors[i]`` is the
    type of the harbor at the geometry's ``harbor_edges[i]`` (0–4: 2:1 of that
    resource, 5: generic 3:1).
    """

    terrain: tuple[int, ...]
    numbers: tuple[int, ...]
    harbors: tuple[int, ...] = HARBOR_TYPES

    def __post_init__(self) -> None:
        try:
            g = geometry_of(len(self.terrain))
        except ValueError:
            raise ValueError("a board has 19 hexes (30 for 5–6 players)") from None
        if len(self.numbers) != g.num_hexes:
            raise ValueError(f"a board has {g.num_hexes} numbers, one per hex")
        if sorted(self.terrain) != sorted(g.terrain_pool):
            raise ValueError(f"terrain must be the {g.num_hexes} hexes of the game "
                             "(R-COMP-1, R-56-2)")
        for t, n in zip(self.terrain, self.numbers, strict=True):
            if (t == DESERT) != (n == 0):
                raise ValueError("exactly the deserts have no number")
        if sorted(n for n in self.numbers if n) != sorted(g.token_values):
            raise ValueError(f"numbers must be the {len(g.token_values)} tokens of the game "
                             "(R-COMP-2, R-56-3)")
        if (len(self.harbors) != len(g.harbor_types)
                or sorted(self.harbors) != sorted(g.harbor_types)):
            raise ValueError(f"harbors must be the {len(g.harbor_types)} harbors of the game "
                             "(R-COMP-6, R-56-6)")

    @property
    def geometry(self) -> Geometry:
        return LARGE if len(self.terrain) == LARGE.num_hexes else BASE

    @property
    def desert(self) -> int:
        """The first desert (where the robber starts unless the game chose another)."""
        return self.terrain.index(DESERT)

    @property
    def deserts(self) -> tuple[int, ...]:
        return tuple(h for h, t in enumerate(self.terrain) if t == DESERT)

    def node_harbors(self) -> tuple[int, ...]:
        """Harbor type at each node (-1: none)."""
        g = self.geometry
        out = [-1] * g.num_nodes
        for edge, kind in zip(g.harbor_edges, self.harbors, strict=True):
            for n in g.edge_nodes[edge]:
                out[n] = kind
        return tuple(out)

    def to_dict(self) -> dict[str, list[int]]:
        return {"terrain": list(self.terrain), "numbers": list(self.numbers),
                "harbors": list(self.harbors)}

    @classmethod
    def from_dict(cls, d: dict[str, list[int]]) -> Board:
        return cls(tuple(d["terrain"]), tuple(d["numbers"]), tuple(d["harbors"]))


def numbers_for(terrain: tuple[int, ...], start_corner: int,
                geometry: Geometry | None = None) -> tuple[int, ...]:
    """Lay the tokens in letter order along the spiral from ``start_corner``,
    skipping the deserts (R-BOARD-2, R-56-3)."""
    g = geometry or geometry_of(len(terrain))
    numbers = [0] * g.num_hexes
    tokens = iter(g.token_values)
    for h in g.spiral_order(start_corner):
        if terrain[h] != DESERT:
            numbers[h] = next(tokens)
    return tuple(numbers)


def generate_board(rng: Rng, *, balanced: bool = False, shuffle_harbors: bool = False,
                   geometry: Geometry = BASE) -> Board:
    """A board from the game's RNG.

    Default: variable set-up (R-BOARD-2): shuffled terrain, tokens in letter
    order along the spiral from a random outer corner, printed harbors.
    ``balanced`` (R-OPT-1): shuffled terrain and numbers placed at random so
    that no two red numbers (6, 8) and no two equal numbers are neighbours.
    ``shuffle_harbors`` (R-OPT-2): harbor types shuffled over the printed
    positions. ``geometry``: the board's shape (R-56-11: the options work the
    same on the large board).
    """
    g = geometry
    terrain = list(g.terrain_pool)
    rng.shuffle(terrain)
    t = tuple(terrain)
    if balanced:
        numbers = balanced_numbers(t, rng)
    else:
        numbers = numbers_for(t, g.outer_corners[rng.below(len(g.outer_corners))], g)
    harbors = list(g.harbor_types)
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
    g = geometry_of(len(terrain))
    while True:
        order = [h for h in range(g.num_hexes) if terrain[h] != DESERT]
        rng.shuffle(order)
        numbers = _place_tokens(order, g)
        if numbers is not None:
            return numbers


def _place_tokens(order: list[int], g: Geometry, budget: int = 400) -> tuple[int, ...] | None:
    """One randomised backtracking attempt over ``order``; None when it gives up."""
    tokens = g._red_first
    neighbors = g.hex_neighbors
    numbers = [0] * g.num_hexes
    last_pos: dict[int, int] = {}
    steps = [budget]

    def fits(h: int, v: int) -> bool:
        return not any(numbers[m] and _conflict(numbers[m], v) for m in neighbors[h])

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
