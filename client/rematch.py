"""A rematch: the same seats and settings on a new board.

The protocol has no rematch message; a rematch is a new ``create_table``
with the finished table's settings and bots (the server picks a new seed, so
a new board). :func:`rematch_request` builds its fields from what the client
was told: the settings of ``joined`` and the seats of ``table`` (a bot seat's
kind from the name the server gave it). The game window offers it in
``kaitaku play`` (the local server: same bots again) and, on a LAN server, to
the window that created the table: the server's own bots are asked for
again, the other seats (people, bots that joined by themselves) are open for
anyone to join from the lobby.

No pygame here.
"""

from __future__ import annotations

from typing import Any

from bots.levels import KINDS as BOT_KINDS

from .describe import builtin_bot


def rematch_request(model: Any, created: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """``create_table`` fields for a rematch of the model's table (``settings``,
    ``bots``, and ``name`` and ``turn_timer`` when ``created`` — the message this
    window created the table with — says them); None without a known table."""
    settings = model.settings
    if model.table is None or not isinstance(settings, dict):
        return None
    seats = list(model.table_seats)
    bots: list[str] = []
    for seat in seats:  # the server's own bots again; other seats are open to join
        if isinstance(seat, dict) and seat.get("kind") == "bot":
            kind = builtin_bot(str(seat.get("name") or ""), "bot")
            if kind in BOT_KINDS:
                bots.append(kind)
    if created is not None and isinstance(created.get("bots"), list) and not bots:
        bots = [b for b in created["bots"] if b in BOT_KINDS]
    out: dict[str, Any] = {"settings": dict(settings), "bots": bots}
    if created is not None:
        if isinstance(created.get("name"), str):
            out["name"] = created["name"]
        if isinstance(created.get("turn_timer"), int):
            out["turn_timer"] = created["turn_timer"]
    return out
