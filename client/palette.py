"""The seat colours: the standard palette and a colour-blind-safe one.

The colour-blind palette (orange, blue, white, black, from Okabe and Ito's
set; brown and a warm grey for seats 5 and 6 of the 5–6 player game) keeps
every two seats clearly apart with normal vision and under protanopia,
deuteranopia and tritanopia (checked in ``tests/client/test_palette.py``
with the Machado et al. simulation and CIEDE2000, :mod:`client.colour`), and
adds a mark to every piece and seat disc (a circle, triangle, square,
diamond, pentagon or star per seat: :func:`mark`), so colour is not the
only cue. The standard palette's seats 5 and 6 are the extension's green
and brown. In the 2-player game the two neutral players take the palette's
last two colours of the base four.

The palette in use is process-wide (:func:`use`); drawing code asks
:func:`seat_color`, :func:`neutral_color` and :func:`marks_on` at draw
time, and caches key on the colours they return (the table also keys its
cached panels on :func:`name`).

No pygame here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .settings import PALETTES

Color = tuple[int, int, int]

MARKS = ("circle", "triangle", "square", "diamond", "pentagon", "star")
"""The shape of each seat's mark (seat 0 first)."""


@dataclass(frozen=True)
class Palette:
    name: str
    seats: tuple[Color, Color, Color, Color, Color, Color]
    neutrals: tuple[Color, Color]
    marks: bool  # pieces and seat discs carry the seat's mark


STANDARD = Palette("standard",
                   ((214, 48, 49), (38, 99, 214), (240, 240, 240), (235, 140, 20),
                    (40, 150, 70), (110, 70, 40)),
                   ((120, 120, 120), (80, 160, 80)), marks=False)
COLORBLIND = Palette("colorblind",
                     ((230, 159, 0), (0, 114, 178), (240, 240, 240), (40, 40, 40),
                      (120, 75, 0), (135, 135, 120)),
                     ((240, 240, 240), (40, 40, 40)), marks=True)
BY_NAME = {p.name: p for p in (STANDARD, COLORBLIND)}
assert tuple(BY_NAME) == PALETTES

_active: Palette = STANDARD


def use(name: str) -> Palette:
    """Switch to palette ``name`` (an unknown name: the standard one)."""
    global _active
    _active = BY_NAME.get(name, STANDARD)
    return _active


def active() -> Palette:
    return _active


def name() -> str:
    return _active.name


def seat_color(seat: int) -> Color:
    return _active.seats[seat % len(_active.seats)]


def neutral_color(i: int) -> Color:
    """The colour of neutral player ``i`` (0 or 1) of the 2-player game."""
    return _active.neutrals[i % 2]


def marks_on() -> bool:
    return _active.marks


def mark(owner: int) -> str:
    """The mark shape of seat (or neutral owner) ``owner``."""
    return MARKS[owner % len(MARKS)]
