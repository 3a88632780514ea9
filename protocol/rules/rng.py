"""The game's own random number generator.

Python's :mod:`random` keeps ``random()`` stable across versions but not
``randrange``/``shuffle``/``choice``; a game whose board and dice must be
reproducible from its seed on any Python version therefore carries its own
generator. SplitMix64 is tiny, fast in pure Python and statistically good
enough for dice and shuffles (it passes BigCrush). Uniform integers use
rejection sampling, so they are exactly uniform.

The generator's state is part of the game state (so a restored game continues
the same way) but never part of any seat's view.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_LIMITS = tuple((1 << 64) - ((1 << 64) % n) if n else 0 for n in range(64))


class Rng:
    """SplitMix64. ``state`` is a 64-bit integer; the seed is its start value."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = s = (self.state + _GAMMA) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n`` must be positive."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = _LIMITS[n] if n < 64 else (1 << 64) - ((1 << 64) % n)
        while True:
            self.state = s = (self.state + _GAMMA) & _MASK
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            x = z ^ (z >> 31)
            if x < limit:
                return x % n

    def shuffle(self, items: list[T]) -> None:
        """Fisher–Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> Rng:
        r = Rng.__new__(Rng)
        r.state = self.state
        return r
