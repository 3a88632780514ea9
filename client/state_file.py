"""The client's small state file: the seats it can reclaim after a restart.

A server's ``welcome`` carries a resume token; with it a new connection takes
the same seat back. :class:`NetClient <client.net.NetClient>` keeps the token in
memory, so it survives a dropped connection; this file keeps it across a closed
(or crashed) window too. One entry per server address (``host:port``): the
token, the table and the seat it belongs to, when it was written and by which
process (a second window does not take the seat of a first one still running).

The file is ``$KAITAKU_STATE_DIR/client.json``, else
``$XDG_STATE_HOME/kaitaku/client.json``, else
``~/.local/state/kaitaku/client.json``. It is written atomically (a temporary
file in the same folder, then :func:`os.replace`); entries older than
:data:`MAX_AGE` are dropped, and at most :data:`MAX_ENTRIES` are kept (the
newest). A missing, unreadable or corrupt file counts as empty: the worst case
is a fresh connection instead of a reclaimed seat. Deleting the file is always
safe.

No pygame here.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE_NAME = "client.json"
MAX_AGE = 24 * 3600.0
"""Seconds an entry is kept (a server forgets a game long before that)."""
MAX_ENTRIES = 16


def state_dir() -> Path:
    """The folder of the state file (``KAITAKU_STATE_DIR`` overrides)."""
    override = os.environ.get("KAITAKU_STATE_DIR", "").strip()
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_STATE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "kaitaku"


@dataclass(frozen=True)
class Seat:
    """A reclaimable seat: the resume token of ``table``'s ``seat``."""

    token: str
    table: str
    seat: int
    saved: float  # time.time() when written
    pid: int | None = None  # the process that wrote it

    def held_elsewhere(self) -> bool:
        """Another window that is still running wrote this: using the token would
        take the seat away from it (the server gives a resumed seat to the newest
        connection)."""
        return self.pid is not None and self.pid != os.getpid() and pid_alive(self.pid)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (POSIX; elsewhere always False)."""
    if os.name != "posix" or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, it is someone else's
        return True
    return True


class StateFile:
    """The seats to reclaim, keyed by server address. Thread-safe.

    ``StateFile()`` uses :func:`state_dir` (read when constructed);
    ``StateFile(path)`` a given file. ``now`` is the clock (tests).
    """

    def __init__(self, path: Path | str | None = None, *, max_age: float = MAX_AGE,
                 max_entries: int = MAX_ENTRIES,
                 now: Any = time.time) -> None:
        self.path = Path(path) if path is not None else state_dir() / FILE_NAME
        self.max_age = max_age
        self.max_entries = max_entries
        self._now = now
        self._lock = threading.Lock()

    # -- the public side ----------------------------------------------------------

    def get(self, address: str) -> Seat | None:
        """The seat stored for ``address`` (None: none, or expired)."""
        with self._lock:
            return self._load().get(address)

    def put(self, address: str, token: str, table: str, seat: int) -> None:
        """Remember ``token`` for ``table``/``seat`` at ``address``."""
        with self._lock:
            entries = self._load()
            entries[address] = Seat(token, table, seat, self._now(), os.getpid())
            self._save(entries)

    def drop(self, address: str) -> None:
        """Forget ``address`` (a game over, a seat left, a refused token)."""
        with self._lock:
            entries = self._load()
            if entries.pop(address, None) is not None:
                self._save(entries)

    def clear(self) -> None:
        """Forget everything (deletes the file)."""
        with self._lock, contextlib.suppress(OSError):
            self.path.unlink()

    # -- the file -----------------------------------------------------------------

    def _load(self) -> dict[str, Seat]:
        """The live entries (expired and malformed ones left out)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        seats = data.get("seats") if isinstance(data, dict) else None
        if not isinstance(seats, dict):
            return {}
        now = self._now()
        out: dict[str, Seat] = {}
        for address, entry in seats.items():
            if not isinstance(entry, dict):
                continue
            token, table = entry.get("token"), entry.get("table")
            seat, saved = entry.get("seat"), entry.get("saved")
            if (not isinstance(token, str) or not isinstance(table, str)
                    or not isinstance(seat, int) or isinstance(seat, bool)
                    or not isinstance(saved, int | float)):
                continue
            if not 0 <= now - saved <= self.max_age:
                continue
            pid = entry.get("pid")
            out[str(address)] = Seat(token, table, seat, float(saved),
                                     pid if isinstance(pid, int) else None)
        return out

    def _save(self, entries: dict[str, Seat]) -> None:
        """Write the newest ``max_entries`` entries atomically (errors ignored)."""
        newest = sorted(entries.items(), key=lambda kv: kv[1].saved, reverse=True)
        data = {"version": 1, "seats": {
            address: {"token": s.token, "table": s.table, "seat": s.seat, "saved": s.saved,
                      "pid": s.pid}
            for address, s in newest[:self.max_entries]}}
        tmp: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".client-", suffix=".tmp", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
            tmp = None
        except OSError:
            pass
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
