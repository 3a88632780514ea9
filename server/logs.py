"""Log lines a host can keep for months: JSON lines, and lines that a flood
cannot multiply.

* :class:`JsonFormatter` — ``kaitaku server --log-format json``: one JSON
  object a line (``ts``, ``level``, ``logger``, ``msg``, and ``exc`` with a
  traceback), for journald, Loki, Elasticsearch and the like.
* :class:`IntervalLog` — at most one line per key per interval; what was held
  back is counted and said with the next line.
* :func:`limit_accept_failures` — asyncio's own line about a failed
  ``accept()`` (out of descriptors or memory), which it writes with a
  traceback for every pending connection, becomes one short line per
  interval with a count (for listeners made by asyncio, such as the admin
  console's; the game and metrics ports accept with :mod:`server.listen`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

ACCEPT_LOG_INTERVAL = 60.0
"""Seconds between two lines about failing ``accept()`` calls."""


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``{"ts", "level", "logger", "msg"[, "exc"]}``
    (``ts``: UTC, ISO 8601 with milliseconds). Whatever the message quotes is
    escaped by JSON: a client's text cannot start a line of its own."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
                  + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def configure(level: str, fmt: str) -> None:
    """The root logger of ``kaitaku server``: ``fmt`` ``text`` (what it always
    wrote) or ``json``; asyncio's accept failures limited either way."""
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))
    limit_accept_failures()


class IntervalLog:
    """At most one line per ``key`` every ``interval`` seconds; the lines held
    back are counted and reported with the next one (thread-safe)."""

    def __init__(self, logger: logging.Logger, interval: float) -> None:
        self.logger = logger
        self.interval = interval
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, key: str, level: int, fmt: str, *args: Any,
                 exc_info: bool = False) -> bool:
        """Log ``fmt % args`` unless a line of ``key`` went out less than an
        interval ago (then count it). True: logged."""
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self.interval:
                self._held[key] = self._held.get(key, 0) + 1
                return False
            if len(self._last) > 1000:  # many keys (addresses): forget the old ones
                self._last = {k: t for k, t in self._last.items() if now - t < self.interval}
            self._last[key] = now
            held = self._held.pop(key, 0)
        if held:
            fmt += " (and %d more like it in the last %g s)"
            args = (*args, held, self.interval)
        self.logger.log(level, fmt, *args, exc_info=exc_info)
        return True


class _AcceptFailures(logging.Filter):
    """Turns asyncio's "socket.accept() out of system resource" records into
    one line per ACCEPT_LOG_INTERVAL, without the traceback."""

    def __init__(self) -> None:
        super().__init__("")
        self.last = float("-inf")
        self.held = 0
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("socket.accept() out of system resource"):
            return True
        exc = record.exc_info[1] if record.exc_info else None
        now = time.monotonic()
        with self._lock:
            if now - self.last < ACCEPT_LOG_INTERVAL:
                self.held += 1
                return False
            self.last = now
            held, self.held = self.held, 0
        why = f"{type(exc).__name__}: {exc}" if exc is not None else "unknown error"
        record.msg = ("accept() fails (%s); new connections wait until it works again "
                      "(%d more failures in the last %g s)")
        record.args = (why, held, ACCEPT_LOG_INTERVAL)
        record.exc_info = None
        record.exc_text = None
        record.levelno = logging.WARNING
        record.levelname = "WARNING"
        return True


_ACCEPT_FILTER = _AcceptFailures()


def limit_accept_failures() -> None:
    """Install the accept-failure filter on asyncio's logger (once)."""
    logger = logging.getLogger("asyncio")
    if _ACCEPT_FILTER not in logger.filters:
        logger.addFilter(_ACCEPT_FILTER)
