"""Chess clocks: a time bank per seat per game, the same for every kind of bot.

A table with a clock (the settings ``clock_ms``, ``clock_increment_ms``,
``clock_timeouts``; docs/PROTOCOL.md, section 8.2) gives each seat a bank of
``clock_ms`` milliseconds at the start of the game. Each decision the seat owes
adds ``clock_increment_ms`` to its bank when it is asked (so every decision has
at least the increment) and takes from the bank the time until the seat's
action arrives. A decision that runs past the bank gets the default action
(:func:`bots.base.safe_action`) and leaves the bank empty; after
``clock_timeouts`` such timeouts in one game the seat forfeits: a built-in bot
plays it to the end and the game counts as a forfeit for it.

The server keeps these clocks for every connection (remote bots, a league's
``cmd:`` programs, its in-process entries over the protocol); the league
keeps the same :class:`SeatClock` for in-process bots, timing their ``act``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_TIMEOUTS = 3
"""Timeouts in one game after which a seat forfeits (``clock_timeouts``)."""


@dataclass(frozen=True, slots=True)
class Clock:
    """A table's chess clock: the bank a seat starts with, the increment per
    decision (milliseconds), and the timeouts after which a seat forfeits."""

    bank_ms: int
    increment_ms: int = 0
    timeouts: int = DEFAULT_TIMEOUTS

    def __post_init__(self) -> None:
        for name in ("bank_ms", "increment_ms", "timeouts"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise ValueError(f"clock {name} must be an integer >= 0")
        if self.bank_ms <= 0 and self.increment_ms <= 0:
            raise ValueError("a clock needs a bank or an increment")
        if self.timeouts < 1:
            raise ValueError("clock timeouts must be at least 1")

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> Clock | None:
        """The clock of checked table settings (``protocol.wire.check_settings``);
        None when ``clock_ms`` and ``clock_increment_ms`` are 0 or missing."""
        bank = int(settings.get("clock_ms") or 0)
        increment = int(settings.get("clock_increment_ms") or 0)
        if bank <= 0 and increment <= 0:
            return None
        return cls(bank, increment, int(settings.get("clock_timeouts") or DEFAULT_TIMEOUTS))

    @classmethod
    def parse(cls, text: str, timeouts: int = DEFAULT_TIMEOUTS) -> Clock:
        """``"BASE+INC"`` in seconds (``"60+2"``, ``"300"``, ``"0+0.5"``), as the
        command line gives it."""
        base, _, inc = text.partition("+")
        try:
            b, i = float(base), float(inc or 0)
        except ValueError:
            raise ValueError(f"a clock is BASE+INCREMENT in seconds, not {text!r}") from None
        if not (0 <= b <= 86400 and 0 <= i <= 3600):
            raise ValueError("a clock's base is 0-86400 s and its increment 0-3600 s")
        return cls(round(b * 1000), round(i * 1000), timeouts)

    def to_settings(self) -> dict[str, int]:
        return {"clock_ms": self.bank_ms, "clock_increment_ms": self.increment_ms,
                "clock_timeouts": self.timeouts}

    def text(self) -> str:
        return f"{self.bank_ms / 1000:g}+{self.increment_ms / 1000:g} s, " \
               f"{self.timeouts} timeouts"


class SeatClock:
    """One seat's bank in one game (seconds). The caller times the decisions:
    :meth:`start` when one is asked, :meth:`spend` with the time it took."""

    __slots__ = ("clock", "bank", "timeouts")

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.bank = clock.bank_ms / 1000
        self.timeouts = 0

    @property
    def forfeited(self) -> bool:
        """As many timeouts as the clock allows: the seat forfeits the game."""
        return self.timeouts >= self.clock.timeouts

    def start(self) -> float:
        """A decision is asked: the increment goes into the bank; the seconds
        the decision may take."""
        self.bank += self.clock.increment_ms / 1000
        return self.bank

    def spend(self, used: float) -> bool:
        """The decision took ``used`` seconds. Within the bank: it is taken from
        the bank (True). Past it: a timeout, the bank is empty (False)."""
        if used > self.bank:
            self.bank = 0.0
            self.timeouts += 1
            return False
        self.bank -= used
        return True

    def expire(self) -> None:
        """The decision's time ran out (the server's timer): a timeout."""
        self.bank = 0.0
        self.timeouts += 1
