"""The server's Prometheus metrics (``kaitaku server --metrics HOST:PORT``).

Made with the Prometheus client library (``prometheus_client``, the
``metrics`` extra) in a registry of the server's own, served as the
Prometheus text format at ``/metrics`` by :class:`server.http.CappedHTTPServer`
in a thread of its own (caps per address and in all, a deadline per
request): a scrape, or a flood of them, never runs on the game loop.

The game loop only counts: a counter or a histogram costs a lock and an
addition when something happens (an action, a commit, a refusal), and the
gauges (connections, tables, spectators, bot processes, the ladder) are set
from the server's state once per :data:`REFRESH` seconds. See docs/HOSTING.md
for the list.
"""

from __future__ import annotations

import time
from typing import Any

from .http import CappedHTTPServer, Response

REFRESH = 1.0
"""Seconds between two updates of the gauges from the server's state."""
RENDER_EVERY = 0.5
"""A scrape within this many seconds of the last one gets the same text (the
rendering holds the interpreter's lock: scrapes cannot take it more often)."""
LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0,
                   2.5, 5.0)
"""Histogram buckets (seconds) of the action and commit latencies."""
CONNECTION_STATES = ("handshake", "lobby", "seated", "watching")
TABLE_STATES = ("waiting", "playing", "paused", "finished")
CAPS = ("connections", "connections_per_address", "banned", "tables", "tables_per_address",
        "bots", "bots_per_address", "spectators_per_table", "spectators_per_address",
        "draining")
"""The refusal reasons counted by ``kaitaku_refusals_total{cap=...}``."""


def available() -> str | None:
    """None if the library is installed, else what to do about it."""
    try:
        import prometheus_client  # noqa: F401
    except ImportError:
        return "the metrics need the prometheus_client library: pip install 'kaitaku[metrics]'"
    return None


class Metrics:
    """The server's metrics; the server calls the ``note_*`` methods and
    :meth:`set_state`; :meth:`serve` starts the HTTP port."""

    def __init__(self) -> None:
        from prometheus_client import (
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
            Info,
            ProcessCollector,
        )

        from protocol.wire import VERSION_STRING

        self.registry = r = CollectorRegistry(auto_describe=True)
        ProcessCollector(registry=r)  # descriptors, memory, CPU: what months of uptime wear
        Info("kaitaku", "The server's protocol version", registry=r).info(
            {"protocol": VERSION_STRING})
        self.connections = Gauge("kaitaku_connections", "Open game-port connections by "
                                 "state (handshake: TLS or hello pending; lobby; seated at "
                                 "a table; watching one)", ["state"], registry=r)
        self.accepted = Counter("kaitaku_connections_accepted", "Connections accepted on "
                                "the game port (within the caps)", registry=r)
        self.tables = Gauge("kaitaku_tables", "Listed tables by state (paused: refusing "
                            "actions while the storage fails)", ["state"], registry=r)
        self.actions = Counter("kaitaku_actions", "Actions applied (and saved), by who "
                               "chose them: player, timeout, stand-in, disconnected",
                               ["via"], registry=r)
        self.action_latency = Histogram(
            "kaitaku_action_latency_seconds", "From the table taking a player's action to "
            "its result being sent (the commit included)", buckets=LATENCY_BUCKETS,
            registry=r)
        self.commit_latency = Histogram(
            "kaitaku_commit_latency_seconds", "Duration of one database commit (all the "
            "rows of one turn of the event loop)", buckets=LATENCY_BUCKETS, registry=r)
        self.commit_failures = Counter("kaitaku_commit_failures", "Commits that failed "
                                       "(their actions were taken back)", registry=r)
        self.storage_pauses = Counter("kaitaku_storage_pauses", "Times every table was "
                                      "paused because the storage failed", registry=r)
        self.storage_paused = Gauge("kaitaku_storage_paused", "1 while the storage fails "
                                    "and every table refuses actions", registry=r)
        self.bots = Gauge("kaitaku_bot_processes", "Bot processes the server runs",
                          registry=r)
        self.refusals = Counter("kaitaku_refusals", "Requests refused by a cap (or a ban, "
                                "or a drain), by cap", ["cap"], registry=r)
        self.spectators = Gauge("kaitaku_spectators", "Connections watching a table",
                                registry=r)
        self.games_finished = Counter("kaitaku_games_finished", "Games finished (game over)",
                                      registry=r)
        self.tables_closed = Counter("kaitaku_tables_closed_by_host", "Tables the host "
                                     "closed (kaitaku admin close-table)", registry=r)
        self.ladder_queue = Gauge("kaitaku_ladder_queue", "Ladder bots ready and waiting "
                                  "for a game (0 without a ladder)", registry=r)
        self.ladder_games = Gauge("kaitaku_ladder_games", "Ladder games being played (0 "
                                  "without a ladder)", registry=r)
        self.bans = Gauge("kaitaku_bans", "Addresses and names banned", ["kind"], registry=r)
        self.draining = Gauge("kaitaku_draining", "1 while the server drains (no new "
                              "tables; it exits when the games end)", registry=r)
        self.scrape_refusals = Gauge("kaitaku_metrics_refused", "Connections to this "
                                     "metrics port closed for being over its caps",
                                     registry=r)
        for state in CONNECTION_STATES:
            self.connections.labels(state)
        for state in TABLE_STATES:
            self.tables.labels(state)
        for cap in CAPS:
            self.refusals.labels(cap)
        for via in ("player", "timeout", "stand-in", "disconnected"):
            self.actions.labels(via)
        for kind in ("address", "name"):
            self.bans.labels(kind)
        self._http: CappedHTTPServer | None = None
        self._rendered: tuple[float, bytes] = (float("-inf"), b"")

    # -- what the game loop calls (cheap) --------------------------------------------

    def note_action(self, via: str, latency: float | None) -> None:
        self.actions.labels(via).inc()
        if latency is not None:
            self.action_latency.observe(latency)

    def note_refusal(self, cap: str) -> None:
        self.refusals.labels(cap).inc()

    def set_state(self, connections: dict[str, int], tables: dict[str, int], spectators: int,
                  bots: int, storage_paused: bool, bans: dict[str, int], draining: bool,
                  ladder: dict[str, int] | None) -> None:
        """The gauges, from the server's state (every REFRESH seconds)."""
        for state in CONNECTION_STATES:
            self.connections.labels(state).set(connections.get(state, 0))
        for state in TABLE_STATES:
            self.tables.labels(state).set(tables.get(state, 0))
        self.spectators.set(spectators)
        self.bots.set(bots)
        self.storage_paused.set(1 if storage_paused else 0)
        for kind, n in bans.items():
            self.bans.labels(kind).set(n)
        self.draining.set(1 if draining else 0)
        self.ladder_queue.set((ladder or {}).get("queue", 0))
        self.ladder_games.set((ladder or {}).get("games", 0))
        if self._http is not None:
            self.scrape_refusals.set(self._http.refused)

    # -- the port -------------------------------------------------------------------

    def render(self) -> bytes:
        from prometheus_client import generate_latest

        return generate_latest(self.registry)

    def _handle(self, path: str) -> Response | None:
        if path != "/metrics":
            return None
        from prometheus_client import CONTENT_TYPE_LATEST

        now = time.monotonic()
        at, text = self._rendered
        if now - at >= RENDER_EVERY:
            text = self.render()
            self._rendered = (now, text)
        return Response(200, CONTENT_TYPE_LATEST, text)

    def serve(self, host: str, port: int, **caps: Any) -> CappedHTTPServer:
        """Serve ``/metrics`` on ``host:port`` (nothing else); raises OSError if
        the port cannot be bound."""
        self._http = CappedHTTPServer(self._handle, host, port, name="metrics", **caps)
        self._http.start()
        return self._http

    def stop(self) -> None:
        if self._http is not None:
            self._http.stop()
            self._http = None
