"""The message catalogue: every message, who sends it, its fields and types.

A message is a msgpack map with a ``"type"`` string and the fields listed
here. This table is the single source of truth: :func:`validate` checks
messages against it and ``docs/PROTOCOL.md`` is written from it. Unknown
fields are ignored (minor versions add optional fields only).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ProtocolError

PROTOCOL_VERSION = (1, 4)
VERSION_STRING = f"{PROTOCOL_VERSION[0]}.{PROTOCOL_VERSION[1]}"
MAX_NAME = 32
MAX_CHAT = 300
MAX_ANNOUNCEMENT = 300
"""Longest ``announce.text`` (as a chat line)."""
MAX_TEXT = 512
"""Longest ``message`` of an ``error`` or a ``result`` (longer ones are clipped)."""
MAX_PAGE = 100
"""Most table summaries in one ``tables`` message (a page: ``list_tables.offset``)."""
MAX_SEATS = 6
"""The most seats a table has (1.4: 5–6 players; 4 before): the length limit
of every per-seat list."""
TURN_TIMER_MAX = 3600
LADDER_GAMES_MAX = 10000
"""Most games one ``ladder_ready`` may ask for."""
"""Longest turn timer a table may have, in seconds."""
ROLES = ("player", "bot", "spectator")
TRADE_REASONS = ("completes", "closer", "leader", "no_use", "keeps", "too_much", "counter")
"""Why a seat answered a trade as it did (``action.reason``, relayed as
``events.reason``): it takes it because the cards complete its next build
(``completes``) or bring a build closer (``closer``); it refuses because the
offerer is close to winning (``leader``), it has no use for the cards
(``no_use``), it cannot spare the cards asked for (``keeps``), or it is asked
for more cards than it gets (``too_much``); it counter-offers for better
terms (``counter``). A receiver ignores a reason it does not know."""
TRADE_ANSWERS = ("accept_trade", "reject_trade", "counter_offer", "accept_proposal",
                 "reject_proposal")
"""The actions a reason may come with."""
MAX_REASON = 32

Message = dict[str, Any]

CLIENT = "client"
SERVER = "server"


@dataclass(frozen=True, slots=True)
class Field:
    """``kind``: str, int, bool, map, list, any. ``optional`` fields may be
    missing or nil. ``max_len`` bounds strings and lists; ``choices`` bounds
    strings."""

    kind: str
    doc: str
    optional: bool = False
    max_len: int | None = None
    min_len: int = 0
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Spec:
    sender: str
    doc: str
    fields: dict[str, Field] = field(default_factory=dict)


def _f(kind: str, doc: str, **kw: Any) -> Field:
    return Field(kind, doc, **kw)


SPECS: dict[str, Spec] = {
    # --- handshake ---------------------------------------------------------------
    "hello": Spec(CLIENT, "First frame of every connection.", {
        "version": _f("str", 'protocol version "major.minor" the client speaks', max_len=16),
        "role": _f("str", "player, bot or spectator", choices=ROLES),
        "name": _f("str", "display name (1–32 characters)", min_len=1, max_len=MAX_NAME),
        "resume": _f("str", "resume token from an earlier welcome, to reclaim a seat",
                     optional=True, max_len=128),
        "seen": _f("int", "with resume: the last event version received; the server "
                   "sends the missed events (or a full view if too many were missed)",
                   optional=True),
    }),
    "welcome": Spec(SERVER, "Answer to a hello the server accepts.", {
        "version": _f("str", "the server's protocol version", max_len=16),
        "session": _f("str", "this connection's session id", max_len=64),
        "resume_token": _f("str", "present it in a later hello to get this session's seat "
                           "back", max_len=128),
        "server": _f("str", "server name", max_len=64),
    }),
    # --- lobby -------------------------------------------------------------------
    "list_tables": Spec(CLIENT, "Ask for the tables (one page of them).", {
        "offset": _f("int", "1.3: skip this many tables (the next page starts at offset + "
                     "the number listed)", optional=True),
        "limit": _f("int", f"1.3: at most this many tables (1–{MAX_PAGE}; default and "
                    f"largest {MAX_PAGE})", optional=True),
    }),
    "tables": Spec(SERVER, "The tables (answer to list_tables).", {
        "tables": _f("list", "table summaries: {id, name, settings, seats, status, "
                     "spectators}; seats as in `table`", max_len=1024),
        "total": _f("int", "1.3: how many tables the server lists in all", optional=True),
        "offset": _f("int", "1.3: the offset of this page", optional=True),
    }),
    "create_table": Spec(CLIENT, "Create a table; the creator is seated at it.", {
        "settings": _f("map", "game settings (section 8.2); missing keys take their "
                       "defaults"),
        "name": _f("str", "table name", optional=True, max_len=MAX_NAME),
        "bots": _f("list", "one bot kind per seat to fill with a bot the server starts "
                   "(random, greedy, heuristic, search, hard); they take the last seats",
                   optional=True, max_len=MAX_SEATS),
        "turn_timer": _f("int", "seconds per decision, 0 for none", optional=True),
        "seat": _f("bool", "false: create without taking a seat (spectate instead)",
                   optional=True),
    }),
    "join": Spec(CLIENT, "Take a seat at a table.", {
        "table": _f("str", "table id", max_len=64),
        "seat": _f("int", "the seat wanted; nil for any free seat", optional=True),
        "key": _f("str", "the key of a seat the server reserved for a bot it started",
                  optional=True, max_len=64),
    }),
    "spectate": Spec(CLIENT, "Watch a table (public view only).", {
        "table": _f("str", "table id", max_len=64),
    }),
    "joined": Spec(SERVER, "You are at a table.", {
        "table": _f("str", "table id", max_len=64),
        "seat": _f("int", "your seat, nil when spectating", optional=True),
        "settings": _f("map", "the table's settings"),
        "last_seq": _f("int", "the last action sequence number this seat used (continue "
                       "above it after a resume)", optional=True),
    }),
    "table": Spec(SERVER, "A table's state changed (seats, status).", {
        "table": _f("str", "table id", max_len=64),
        "seats": _f("list", "per seat: {name, kind: human|bot|empty, connected, auto (a "
                    "bot stands in)}", max_len=MAX_SEATS),
        "status": _f("str", "waiting, playing or finished", max_len=16),
        "can_start": _f("bool", "1.2, waiting tables only: whether you may start it",
                        optional=True),
        "paused": _f("str", "1.3: why the table refuses actions now (`storage`: the server "
                     "cannot save them); absent while it plays", optional=True, max_len=32),
    }),
    "start": Spec(CLIENT, "Creator only: fill empty seats with bots and start now."),
    "leave": Spec(CLIENT, "Leave the table. During a game the seat is kept for its resume "
                  "token; before the game it is freed."),
    "left": Spec(SERVER, "You left the table.", {
        "table": _f("str", "table id", max_len=64),
    }),
    # --- game --------------------------------------------------------------------
    "game_started": Spec(SERVER, "The table's game began.", {
        "table": _f("str", "table id", max_len=64),
        "chance": _f("map", "1.4: the commitment to the game's chance: {scheme, commitment} "
                     "(see Committed chance)", optional=True),
    }),
    "view": Spec(SERVER, "Your full view (on join, game start and resync).", {
        "version": _f("int", "the table's event version this view reflects"),
        "view": _f("map", "the seat's view (docs/ENGINE.md)"),
        "clocks": _f("list", "1.3, tables with a chess clock: each seat's bank in ms now",
                     optional=True, max_len=MAX_SEATS),
    }),
    "events": Spec(SERVER, "What happened, redacted for you.", {
        "version": _f("int", "the table's event version after these events"),
        "events": _f("list", "engine events (docs/ENGINE.md)", max_len=256),
        "reason": _f("str", "1.4: the reason the seat whose trade answer these events "
                     "hold gave for it (see `action.reason`); a client ignores a reason "
                     "it does not know", optional=True, max_len=MAX_REASON),
    }),
    "legal": Spec(SERVER, "The actions you may take now (empty: nothing to do).", {
        "version": _f("int", "the table's event version"),
        "actions": _f("list", "legal actions; trade offers are also allowed (at most "
                      "1000: see truncated)", max_len=4096),
        "truncated": _f("bool", "true when there were more choices than listed (only for "
                        "huge discards: then any `discard` cards of your hand are legal)",
                        optional=True),
        "discard": _f("int", "with truncated: how many cards to discard or give back",
                      optional=True),
        "timer_ms": _f("int", "milliseconds left for this decision when the table has a "
                       "turn timer (then the server plays a default action)",
                       optional=True),
        "propose": _f("bool", "1.3: true when you may also send a propose_trade to the "
                      "current player now (sent when that becomes possible)", optional=True),
    }),
    "action": Spec(CLIENT, "Your action; the seat is your connection's.", {
        "seq": _f("int", "client sequence number, increasing; a repeat is answered again, "
                  "not applied twice"),
        "action": _f("map", "an engine action (docs/ENGINE.md)"),
        "reason": _f("str", "1.4: with a trade answer (" + ", ".join(TRADE_ANSWERS) + "), "
                     "why it was given: one of " + ", ".join(TRADE_REASONS) + " (others "
                     "are ignored); the server relays it with the answer's events",
                     optional=True, max_len=MAX_REASON),
    }),
    "result": Spec(SERVER, "Answer to one action.", {
        "seq": _f("int", "the action's sequence number"),
        "ok": _f("bool", "true: applied"),
        "code": _f("str", "error code when rejected", optional=True, max_len=64),
        "message": _f("str", "human-readable reason when rejected", optional=True,
                      max_len=512),
        "version": _f("int", "1.3: the table's event version after the action (applied: "
                      "the version of its events; rejected: the version it was refused "
                      "at)", optional=True),
    }),
    "resync": Spec(CLIENT, "Ask for a full view (after a gap in event versions)."),
    "game_over": Spec(SERVER, "The game ended.", {
        "winner": _f("int", "winning seat, nil if stopped", optional=True),
        "scores": _f("list", "final VP per seat", max_len=MAX_SEATS),
        "chance": _f("map", "1.4: the game's chance revealed: {scheme, commitment, salt, "
                     "secret}; without salt and secret while another game still uses it (a "
                     "duplicate set: revealed with the set's results)", optional=True),
    }),
    # --- chat and keep-alive ------------------------------------------------------
    "chat": Spec(CLIENT, "Say something at your table (relayed by the server as chat).", {
        "text": _f("str", "1–300 characters", min_len=1, max_len=MAX_CHAT),
        "table": _f("str", "server to client: the table", optional=True, max_len=64),
        "seat": _f("int", "server to client: the speaker's seat", optional=True),
        "name": _f("str", "server to client: the speaker's name", optional=True,
                   max_len=MAX_NAME),
        "past": _f("bool", "server to client: true for a line said before you arrived "
                   "(the table's last 100 lines follow joined)", optional=True),
    }),
    "ping": Spec(CLIENT, "Keep-alive; either side may send it.", {
        "nonce": _f("int", "echoed in the pong", optional=True),
    }),
    "pong": Spec(CLIENT, "Answer to a ping (either side).", {
        "nonce": _f("int", "the ping's nonce", optional=True),
    }),
    "error": Spec(SERVER, "Something went wrong (see the error codes).", {
        "code": _f("str", "error code", max_len=64),
        "message": _f("str", "human-readable explanation", max_len=512),
    }),
    # --- from the server's host (1.4) --------------------------------------------------
    "announce": Spec(SERVER, "1.4: a message from the server's host to every client (e.g. a "
                     "restart ahead); show it. Older clients get it as a `chat` line at "
                     "their table (`seat` nil, `name` the server's), else as `error "
                     "announcement`.", {
        "text": _f("str", "what the host says (1–300 characters)", min_len=1,
                   max_len=MAX_ANNOUNCEMENT),
    }),
    "table_closed": Spec(SERVER, "1.4: the server's host closed your table (`left` follows). "
                         "A game it had is kept in the server's database, never played "
                         "on. Older clients get `error closed_by_host` instead.", {
        "table": _f("str", "table id", max_len=64),
        "reason": _f("str", "the host's reason (may be empty)", max_len=MAX_ANNOUNCEMENT),
    }),
    "bye": Spec(CLIENT, "Closing the connection (either side).", {
        "reason": _f("str", "why", optional=True, max_len=256),
    }),
    # --- the ladder (1.3, optional: servers started with --ladder) ------------------
    "ladder_register": Spec(CLIENT, "Ladder: register a bot's name; the answer holds its key.", {
        "name": _f("str", "the bot's name on the ladder (1–32 characters)", min_len=1,
                   max_len=MAX_NAME),
    }),
    "ladder_registered": Spec(SERVER, "Ladder: the name is yours; keep the key secret.", {
        "name": _f("str", "the registered name (as cleaned)", max_len=MAX_NAME),
        "key": _f("str", "the bot's secret key (shown once; the server keeps only a hash)",
                  max_len=128),
    }),
    "ladder_ready": Spec(CLIENT, "Ladder: this connection's bot is ready for games.", {
        "name": _f("str", "the registered name", min_len=1, max_len=MAX_NAME),
        "key": _f("str", "its key", min_len=1, max_len=128),
        "games": _f("int", f"how many games to play (1–{LADDER_GAMES_MAX})"),
    }),
    "ladder_queued": Spec(SERVER, "Ladder: how many games this connection is still queued "
                          "for.", {
        "games": _f("int", "games still to play (0: done)"),
        "name": _f("str", "the bot's name", optional=True, max_len=MAX_NAME),
    }),
    "ladder_standings": Spec(CLIENT, "Ladder: ask for the standings (one page).", {
        "offset": _f("int", "skip this many entries", optional=True),
        "limit": _f("int", f"at most this many entries (1–{MAX_PAGE})", optional=True),
    }),
    "ladder": Spec(SERVER, "Ladder: the standings, best first.", {
        "entries": _f("list", "per bot: {rank, name, mu, sigma, ordinal, games, wins, "
                      "forfeits, timeouts, ready}", max_len=MAX_PAGE),
        "total": _f("int", "how many bots the ladder has"),
        "offset": _f("int", "the rank (from 0) of this page's first entry"),
        "games": _f("int", "games rated on the ladder so far"),
    }),
}
"""``sender`` CLIENT for chat/ping/pong/bye means either side may send it."""

BOTH_WAYS = frozenset({"chat", "ping", "pong", "bye"})

LADDER_MESSAGES = frozenset({"ladder_register", "ladder_ready", "ladder_standings"})
"""The client messages of the optional ladder (a server without one answers them
with ``error no_ladder``)."""

ERROR_CODES: dict[str, str] = {
    "bad_frame": "a frame's length is 0",
    "too_large": "a frame is larger than the maximum frame size",
    "bad_msgpack": "the body is not valid msgpack within the limits",
    "bad_message": "not a map with a known type and valid fields",
    "unexpected_message": "a message that is not allowed in this phase",
    "version_unsupported": "the hello's major version is not spoken by the server",
    "bad_resume": "the resume token is unknown, forged or expired",
    "handshake_timeout": "no hello within the handshake deadline",
    "idle_timeout": "nothing received for too long",
    "rate_limited": "too many messages",
    "no_such_table": "the table id is unknown",
    "seat_taken": "the seat is taken or does not exist",
    "table_full": "no free seat",
    "not_seated": "the action needs a seat",
    "not_creator": "only the table's creator may do that",
    "table_closed": "the table closed before its game started (everybody left)",
    "bad_settings": "the table settings are invalid",
    "game_not_started": "the table's game has not started",
    "server_shutdown": "the server is shutting down",
    "replaced": "the seat was resumed from another connection; this one closes",
    "too_many_connections": "the server (or your address) has too many connections",
    "too_many_tables": "the server, or your address, has the most open tables it may",
    "too_many_bots": "the server, or your address, runs the most bot processes it may",
    "too_many_spectators": "the table, or your address, has the most spectators it may",
    "frame_timeout": "a frame was started and not finished in time",
    "storage_unavailable": "the server cannot save actions now: the table refuses them "
                           "until it can, then resumes by itself",
    "acted_for_you": "not an error of yours: the server played for your seat (turn timer, "
                     "or a disconnect during a trade); the message names the action",
    "internal_error": "the server failed; the action was not applied",
    "forfeited": "your seat forfeited the game (chess-clock timeouts, or away past the "
                 "grace on a clocked table): a built-in bot plays it to the end",
    "no_ladder": "this server runs no ladder",
    "banned": "your address or name is banned from this server (the message may say why)",
    "kicked": "the server's host closed your connection (the message may say why)",
    "closed_by_host": "before 1.4: the server's host closed your table (the message says "
                      "why); 1.4 clients get `table_closed`",
    "announcement": "before 1.4, outside a table: a message from the server's host (the "
                    "message); 1.4 clients get `announce`",
    "draining": "the server takes no new tables: it restarts once the running games end",
    "bad_key": "ladder: unknown name or wrong key (or too many attempts from your address)",
    "name_taken": "ladder: that name, or one that looks the same, is registered already (or "
                  "the owner holds its most names, the ladder is full, registration is closed)",
    "ladder_busy": "ladder: that bot is connected and ready already (one connection per bot), "
                   "or suspended after a forfeit",
    "version_too_old": "1.4: the table needs a newer protocol version than the one your "
                       "hello named (5–6 player tables need 1.4)",
}
"""Connection-level error codes. Rejected actions carry the engine's codes
(``not_your_turn``, ``illegal_action``, ``cannot_afford``, ... see
docs/PROTOCOL.md)."""


@dataclass(frozen=True, slots=True)
class Setting:
    """One game setting of ``create_table.settings``: ``kind`` int or bool, its
    default, and for an int its bounds ``low`` … ``high``."""

    kind: str
    default: int | bool
    doc: str
    low: int = 0
    high: int = 0


SETTINGS: dict[str, Setting] = {
    "players": Setting("int", 4, "2 (the two-player variant), 3 or 4; 1.4: 5 or 6 (the "
                       "5–6 player extension: the 30-hex board, the special building "
                       "phase; such tables are for 1.4 clients only)", 2, 6),
    "vp_target": Setting("int", 10, "victory points to win", 3, 20),
    "turn_cap": Setting("int", 0, "turns after which the game stops with no winner (when "
                        "turn cap + 1 would start); 0: no cap (automated runs)", 0, 10000),
    "balanced_map": Setting("bool", False, "sea3D: numbers placed at random with no two red "
                            "numbers (6, 8) and no two equal numbers on adjacent hexes "
                            "(R-OPT-1); off: the printed spiral"),
    "shuffle_harbors": Setting("bool", False, "the nine harbor types shuffled over the printed "
                               "harbor positions (R-OPT-2); off: the printed arrangement"),
    "harbor_delay": Setting("bool", False, "sea3D house rule: a harbor settled during a turn "
                            "lowers its owner's ratios only from the next turn (R-OPT-3; "
                            "set-up settlements count at once)"),
    "strict_phases": Setting("bool", False, "sea3D house rule: after the first paid build of "
                             "a turn no domestic trade (offer, counter-offer, proposal: "
                             "`trade_closed`); maritime trade stays allowed (R-OPT-4)"),
    "balanced_dice": Setting("bool", False, "1.4: balanced dice: each roll is dealt from a "
                             "shuffled deck of the 36 outcomes of two dice, 32 dealt before "
                             "a fresh deck (every outcome at most once per deck; each roll "
                             "still 1/36 each); off: independent rolls"),
    "clock_ms": Setting("int", 0, "chess clock (7.11): each seat's time bank at the start "
                        "of the game, in ms; 0 and no increment: no clock", 0, 86_400_000),
    "clock_increment_ms": Setting("int", 0, "chess clock: ms added to a seat's bank with "
                                  "each decision it is asked", 0, 3_600_000),
    "clock_timeouts": Setting("int", 3, "chess clock: timeouts in one game after which the "
                              "seat forfeits (a built-in bot plays it to the end)", 1, 100),
}
"""Every game setting with its bounds: the server refuses anything else with
``bad_settings``; unknown keys are ignored."""


def check_settings(settings: Any) -> dict[str, Any]:
    """The known settings of ``settings`` (a ``create_table.settings`` map),
    each checked against :data:`SETTINGS`; missing ones are left out (they take
    their defaults). Raises :class:`ProtocolError` with code ``bad_settings``."""
    if not isinstance(settings, dict):
        raise ProtocolError("settings are a map", "bad_settings")
    out: dict[str, Any] = {}
    for name, s in SETTINGS.items():
        v = settings.get(name)
        if v is None:
            continue
        if s.kind == "bool":
            if not isinstance(v, bool):
                raise ProtocolError(f"{name} must be true or false", "bad_settings")
        elif isinstance(v, bool) or not isinstance(v, int) or not s.low <= v <= s.high:
            raise ProtocolError(f"{name} must be an integer from {s.low} to {s.high}",
                                "bad_settings")
        out[name] = v
    return out


_KIND_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "map": (dict,),
    "list": (list,),
}


def _is_kind(v: object, kind: str) -> bool:
    return isinstance(v, _KIND_TYPES[kind]) and not (kind == "int" and isinstance(v, bool))


def validate(msg: Any, sender: str | None = None) -> Message:
    """Check ``msg`` against the catalogue; return it or raise :class:`ProtocolError`.

    ``sender`` (CLIENT/SERVER) also checks that this side may send this type.
    """
    if not isinstance(msg, dict):
        raise ProtocolError("a message is a map", "bad_message")
    kind = msg.get("type")
    spec = SPECS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise ProtocolError(f"unknown message type {kind!r}", "bad_message")
    if sender is not None and spec.sender != sender and kind not in BOTH_WAYS:
        raise ProtocolError(f"a {sender} does not send {kind!r}", "unexpected_message")
    for name, f in spec.fields.items():
        v: Any = msg.get(name)
        if v is None:
            if f.optional:
                continue
            raise ProtocolError(f"{kind}: missing field {name!r}", "bad_message")
        if f.kind == "any":
            continue
        if not _is_kind(v, f.kind):
            raise ProtocolError(f"{kind}.{name} must be a {f.kind}", "bad_message")
        if f.kind == "int" and not -(2**53) <= v <= 2**53:
            raise ProtocolError(f"{kind}.{name} is out of range", "bad_message")
        if f.kind in ("str", "list"):
            if f.max_len is not None and len(v) > f.max_len:
                raise ProtocolError(f"{kind}.{name} is longer than {f.max_len}", "bad_message")
            if len(v) < f.min_len:
                raise ProtocolError(f"{kind}.{name} is too short", "bad_message")
        if f.choices is not None and v not in f.choices:
            raise ProtocolError(f"{kind}.{name} must be one of {', '.join(f.choices)}",
                                "bad_message")
    return msg


ACTIONS_SINCE: dict[str, int] = {
    "stop_road_building": 3,
    "propose_trade": 3,
    "accept_proposal": 3,
    "reject_proposal": 3,
    "withdraw_proposal": 3,
}
"""Engine action types added after 1.0, by the minor version that added them.
A server lists in ``legal`` only the action types the client's version knows
(a 1.2 client never sees ``stop_road_building``), so that an older client can
parse every action it is offered."""


def unknown_actions(minor: int) -> frozenset[str] | None:
    """The action types added since 1.0 that a client of 1.``minor`` does not
    know (None: it knows them all)."""
    unknown = frozenset(name for name, since in ACTIONS_SINCE.items() if since > minor)
    return unknown or None


def minor_needed(settings: Mapping[str, Any]) -> int:
    """The least minor version a client needs to play or watch a table with
    these (checked) settings: 4 for 5 or 6 players (the 30-hex board and the
    special building phase, which a 1.3 client cannot draw or play), else 0.
    A server neither lists such a table to an older client nor lets it
    create, join or watch one (``version_too_old``)."""
    return 4 if int(settings.get("players", 4)) >= 5 else 0


def parse_version(text: str) -> tuple[int, int] | None:
    """``"1.0"`` → ``(1, 0)``; None if it is not ``major.minor``."""
    parts = text.split(".")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() and len(p) <= 4 for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def compatible(version: str) -> bool:
    """The compatibility rule: same major version; any minor."""
    v = parse_version(version)
    return v is not None and v[0] == PROTOCOL_VERSION[0]
