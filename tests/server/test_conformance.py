"""The conformance kit (``kaitaku conformance``) over real loopback TCP.

The project's own SDK (:func:`bots.client.run_bot`) meets every obligation;
deliberately broken clients, each a small scripted client here that breaks
exactly one obligation, are each caught: the kit reports FAIL for that
obligation and exits non-zero.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import os
import random
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bots import Bot, HeuristicBot, RandomBot
from bots.client import run_bot
from protocol.rules import EVENT_TYPES
from protocol.rules.state import PHASE_NAMES
from protocol.wire import (
    ERROR_CODES,
    SPECS,
    VERSION_STRING,
    FrameDecoder,
    Message,
    ProtocolError,
    decode_body,
    encode_frame,
)
from server import conformance
from server.conformance import OBLIGATIONS, SCENARIOS, Kit, select

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
BROKEN_TIMEOUT = 3.0
"""Seconds per scenario for the broken clients (what they fail to do never comes)."""
RUN_LIMIT = 90.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def _lines(text: str) -> dict[str, tuple[str, str]]:
    """``{obligation: (PASS|FAIL, reason)}`` from the kit's report."""
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        verdict, _, rest = line.partition("  ")
        if verdict in ("PASS", "FAIL"):
            name, _, reason = rest.strip().partition(" ")
            out[name] = (verdict, reason.strip())
    return out


async def _client_loop(client: Callable[[int], Any], port: int, stop: asyncio.Event) -> None:
    """Start ``client(port)`` again whenever it ends, as a bot author's shell
    loop would, until ``stop``."""
    n = 0
    while not stop.is_set():
        with contextlib.suppress(ProtocolError, OSError, asyncio.IncompleteReadError):
            await client(n)
        n += 1
        await asyncio.sleep(0.05)


async def run_kit(client: Callable[[int], Any], only: list[str], *,
                  timeout: float = 10.0) -> tuple[int, dict[str, tuple[str, str]], str]:
    """Run the kit (its ``main``, as the command does, in a thread) against a
    client started again and again; the exit code, the verdicts and the report."""
    port = _free_port()
    out, err = io.StringIO(), io.StringIO()
    stop = asyncio.Event()

    async def start(n: int) -> Any:
        return await client(port) if n >= 0 else None

    loop_task = asyncio.ensure_future(_client_loop(start, port, stop))
    try:
        rc = await asyncio.wait_for(asyncio.to_thread(
            conformance.main, HOST, port, seed=1, timeout=timeout, wait=15.0, only=only,
            out=out, err=err), RUN_LIMIT)
    finally:
        stop.set()
        loop_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loop_task
    return rc, _lines(out.getvalue()), out.getvalue() + err.getvalue()


def sdk(bot: Callable[[], Bot]) -> Callable[[int], Any]:
    async def client(port: int) -> Any:
        return await run_bot(bot(), HOST, port, name="sdk-bot", table="conformance")
    return client


# -- the project's SDK meets every obligation ------------------------------------------


@pytest.mark.parametrize("make", [lambda: RandomBot(7), lambda: HeuristicBot()],
                         ids=["random", "heuristic"])
async def test_the_sdk_meets_every_obligation(make: Callable[[], Bot]) -> None:
    rc, verdicts, report = await run_kit(sdk(make), [])
    assert set(verdicts) == {ob.name for ob in OBLIGATIONS}, report
    assert all(v == "PASS" for v, _ in verdicts.values()), report
    assert rc == 0
    assert f"{len(OBLIGATIONS)} of {len(OBLIGATIONS)} obligations met" in report


async def test_the_kits_frames_are_what_the_schema_allows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Apart from the unknown fields and codes it sends on purpose (scenario
    ``unknown``), every frame the kit sends is a valid server message (the
    strict JSON Schema: no field or code the protocol does not define)."""
    from tests.schemas import server_frame_errors

    sent: list[Message] = []
    send = conformance.Peer.send

    def recording(self: conformance.Peer, msg: Message) -> None:
        sent.append(msg)
        send(self, msg)

    monkeypatch.setattr(conformance.Peer, "send", recording)
    rc, verdicts, report = await run_kit(
        sdk(lambda: RandomBot(7)), [sc.name for sc in SCENARIOS if sc.name != "unknown"])
    assert rc == 0, report
    assert {m["type"] for m in sent} >= {"welcome", "joined", "table", "game_started", "view",
                                        "events", "legal", "result", "game_over", "ping",
                                        "error", "bye"}
    bad = [(m["type"], why) for m in sent for why in server_frame_errors(m)]
    assert not bad, bad[:5]


async def test_a_discard_listed_or_not_passes() -> None:
    """The random bot picks one of the listed ways; a client that builds a
    composition the truncated list does not show is right too: any composition
    of that size is legal."""
    _, listed, _ = await run_kit(sdk(lambda: RandomBot(3)), ["discard"])
    _, own, _ = await run_kit(scripted(Flaws(own_discard=True)), ["discard"])
    assert own["truncated_discard"][0] == listed["truncated_discard"][0] == "PASS"
    assert "discarded 20 of 40 cards: one of the listed ways" in listed["truncated_discard"][1]
    assert "a way of its own (not listed)" in own["truncated_discard"][1]


async def test_the_kit_is_deterministic() -> None:
    first = await run_kit(sdk(lambda: RandomBot(5)), ["ping", "discard"])
    second = await run_kit(sdk(lambda: RandomBot(5)), ["ping", "discard"])
    assert first[1] == second[1]
    assert first[1]["ping"][0] == "PASS"


# -- broken clients ------------------------------------------------------------------


@dataclass(frozen=True)
class Flaws:
    """What a scripted client does wrong (nothing, by default)."""

    no_reassembly: bool = False
    """Takes every read for exactly one frame."""
    first_frame_only: bool = False
    """Reassembles frames but handles only the first one of each read."""
    strict_fields: bool = False
    """Closes on a message field it does not know."""
    strict_types: bool = False
    """Closes on an event type or an error code it does not know."""
    no_pong: bool = False
    any_legal: bool = False
    """Acts on every legal list, stale or not."""
    gives_up: bool = False
    """Closes after a refused action."""
    no_resume: bool = False
    """Exits when the connection drops."""
    restarts_seq: bool = False
    """After a resume numbers its actions from 1 again."""
    hangs_at_end: bool = False
    """After a resume ignores game_over and waits for something to do."""
    short_discard: bool = False
    """With a truncated legal list discards one card less than owed."""
    one_try: bool = False
    """Gives up when a reconnection is refused."""
    seen_ahead: bool = False
    """Resumes with a ``seen`` above anything the server sent."""
    seen_results: bool = False
    """(Not a flaw.) Counts ``result.version`` in the highest version seen."""
    own_discard: bool = False
    """(Not a flaw.) Discards a composition the truncated legal list does not show."""
    old_phases: bool = False
    """Closes on a view phase 1.3 did not have (written for 1.3, says hello with 1.4)."""
    role: str = "bot"
    version: str = VERSION_STRING


KNOWN_FIELDS = {kind: {"type", *spec.fields} for kind, spec in SPECS.items()}
PHASES_1_3 = frozenset(PHASE_NAMES) - {"special_build"}


class Choke(Exception):
    """The scripted client gives up."""


class ScriptedClient:
    """A minimal bot written from docs/PROTOCOL.md section 10, with flaws."""

    def __init__(self, port: int, flaws: Flaws) -> None:
        self.port = port
        self.flaws = flaws
        self.seq = 0
        self.version = 0
        self.token: str | None = None
        self.view: dict[str, Any] | None = None
        self.pending = False
        self.resumed = False
        self.rng = random.Random(1)

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection(HOST, self.port)
        while True:
            try:
                await self.session(reader, writer)
                return
            except (ConnectionError, asyncio.IncompleteReadError):
                writer.close()
                if self.flaws.no_resume or self.token is None:
                    return
            except Choke:
                writer.close()
                return
            for _ in range(50):
                await asyncio.sleep(0.1)
                try:
                    reader, writer = await asyncio.open_connection(HOST, self.port)
                    break
                except OSError:
                    if self.flaws.one_try:
                        return
            else:
                return
            self.resumed = True

    def send(self, writer: asyncio.StreamWriter, msg: Message) -> None:
        writer.write(encode_frame(msg))

    async def messages(self, reader: asyncio.StreamReader) -> Any:
        decoder = FrameDecoder()
        while True:
            data = await reader.read(65536)
            if not data:
                raise ConnectionError("closed")
            if self.flaws.no_reassembly:
                n = int.from_bytes(data[:4], "big")
                try:
                    yield decode_body(data[4:4 + n])
                except ProtocolError as exc:
                    raise Choke(str(exc)) from exc
                continue
            msgs = decoder.feed(data)
            for msg in msgs[:1] if self.flaws.first_frame_only else msgs:
                yield msg

    async def session(self, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        hello: Message = {"type": "hello", "version": self.flaws.version,
                          "role": self.flaws.role, "name": "scripted"}
        if self.token is not None:
            hello["resume"] = self.token
            hello["seen"] = self.version + (10 if self.flaws.seen_ahead else 0)
        self.send(writer, hello)
        self.pending = False
        async for msg in self.messages(reader):
            kind = msg["type"]
            if self.flaws.strict_fields and set(msg) - KNOWN_FIELDS.get(kind, set()):
                raise Choke(f"unknown fields in {kind}")
            if kind == "welcome":
                if self.token is None:
                    self.send(writer, {"type": "join", "table": "conformance"})
                self.token = msg["resume_token"]
            elif kind == "joined":
                if self.flaws.restarts_seq and self.resumed:
                    self.seq = 0
                else:
                    self.seq = max(self.seq, msg.get("last_seq") or 0)
            elif kind == "view":
                if self.flaws.old_phases and msg["view"]["phase"] not in PHASES_1_3:
                    raise Choke(f"unknown phase {msg['view']['phase']}")
                self.view = msg["view"]
                self.version = max(self.version, msg["version"])
            elif kind == "events":
                self.version = max(self.version, msg["version"])
                if self.flaws.strict_types and any(
                        e.get("type") not in EVENT_TYPES for e in msg["events"]):
                    raise Choke("an unknown event")
            elif kind == "legal":
                fresh = msg["version"] >= self.version and not self.pending
                if msg["actions"] and (fresh or self.flaws.any_legal):
                    self.seq += 1
                    self.pending = True
                    self.send(writer, {"type": "action", "seq": self.seq,
                                       "action": self.choose(msg)})
            elif kind == "result":
                self.pending = False
                if self.flaws.seen_results:
                    self.version = max(self.version, msg.get("version") or 0)
                if not msg["ok"]:
                    if self.flaws.gives_up:
                        raise Choke("refused")
                    self.send(writer, {"type": "resync"})
            elif kind == "ping":
                if not self.flaws.no_pong:
                    self.send(writer, {"type": "pong", "nonce": msg.get("nonce")})
            elif kind == "error":
                if self.flaws.strict_types and msg["code"] not in ERROR_CODES:
                    raise Choke("an unknown error code")
            elif kind == "game_over":
                if self.flaws.hangs_at_end and self.resumed:
                    continue
                writer.close()
                return
            elif kind == "bye":
                raise ConnectionError("bye")

    def choose(self, legal: Message) -> dict[str, Any]:
        if legal.get("truncated") and self.flaws.short_discard and self.view is not None:
            hand = list(self.view["you"]["hand"])
            cards = [0] * 5
            for _ in range(legal["discard"] - 1):
                r = max(range(5), key=lambda i: hand[i])
                hand[r] -= 1
                cards[r] += 1
            return {"type": "discard", "cards": cards}
        if legal.get("truncated") and self.flaws.own_discard and self.view is not None:
            listed = [a["cards"] for a in legal["actions"]]
            hand = self.view["you"]["hand"]
            for way in itertools.product(*(range(h, -1, -1) for h in hand)):
                if sum(way) == legal["discard"] and list(way) not in listed:
                    return {"type": "discard", "cards": list(way)}
        action: dict[str, Any] = self.rng.choice(legal["actions"])
        return action


def scripted(flaws: Flaws) -> Callable[[int], Any]:
    async def client(port: int) -> None:
        await ScriptedClient(port, flaws).run()
    return client


@pytest.mark.parametrize("flaws", [Flaws(), Flaws(role="player", version="1.0"),
                                   Flaws(seen_results=True)], ids=["bot", "player", "results"])
async def test_the_scripted_client_without_flaws_meets_every_obligation(flaws: Flaws) -> None:
    """The broken clients below are this client with one flaw each. As a
    person's client (a view after every action), an older version's (no 1.3
    action types listed), or one that counts result.version as seen (and so
    resumes with the version of a result whose events it missed) it passes too."""
    rc, verdicts, report = await run_kit(scripted(flaws), [])
    assert all(v == "PASS" for v, _ in verdicts.values()), report
    assert len(verdicts) == len(OBLIGATIONS)
    assert rc == 0


BROKEN = [
    (Flaws(no_reassembly=True), "framing", "split_frames", {}),
    (Flaws(first_frame_only=True), "framing", "batched_frames", {}),
    (Flaws(strict_fields=True), "unknown", "unknown_fields", {}),
    (Flaws(strict_types=True), "unknown", "unknown_types", {"unknown_fields": "PASS"}),
    (Flaws(no_pong=True), "ping", "ping", {}),
    (Flaws(any_legal=True, gives_up=True), "stale_legal", "stale_legal", {}),
    (Flaws(no_resume=True), "drop_resume", "resume_after_drop", {}),
    (Flaws(seen_ahead=True), "drop_resume", "resume_after_drop", {}),
    (Flaws(restarts_seq=True), "drop_resume", "seq_after_resume",
     {"resume_after_drop": "PASS"}),
    (Flaws(hangs_at_end=True), "finished_resume", "finished_resume", {}),
    (Flaws(short_discard=True), "discard", "truncated_discard", {}),
    (Flaws(one_try=True), "restart", "restart_resume", {}),
    (Flaws(old_phases=True), "six", "special_build", {}),
]


@pytest.mark.parametrize(("flaws", "scenario", "broken", "others"), BROKEN,
                         ids=[f"{b[2]}-{i}" for i, b in enumerate(BROKEN)])
async def test_a_broken_client_is_caught(flaws: Flaws, scenario: str, broken: str,
                                         others: dict[str, str]) -> None:
    rc, verdicts, report = await run_kit(scripted(flaws), [scenario], timeout=BROKEN_TIMEOUT)
    assert verdicts[broken][0] == "FAIL", report
    assert verdicts[broken][1], report  # a reason
    for name, want in others.items():
        assert verdicts[name][0] == want, report
    assert rc == 1
    assert "broken" in report


def test_every_obligation_has_a_broken_client() -> None:
    assert {b[2] for b in BROKEN} | {"rejected_action"} == {ob.name for ob in OBLIGATIONS}


async def test_a_client_that_gives_up_after_a_refusal_is_caught() -> None:
    """rejected_action: the kit refuses the first action (internal_error); a
    client that gives up on a refusal never acts again."""
    rc, verdicts, report = await run_kit(scripted(Flaws(gives_up=True)), ["rejected"],
                                         timeout=BROKEN_TIMEOUT)
    assert verdicts["rejected_action"][0] == "FAIL", report
    assert "closed the connection" in verdicts["rejected_action"][1]
    assert rc == 1


async def test_a_stale_legal_acted_on_then_recovered_from_passes() -> None:
    """Acting on the stale legal is allowed if the client then recovers: a
    client that acts on every legal but resyncs after a refusal passes."""
    rc, verdicts, report = await run_kit(scripted(Flaws(any_legal=True)), ["stale_legal"])
    assert verdicts["stale_legal"][0] == "PASS", report
    assert "acted on the stale legal (refused: " in verdicts["stale_legal"][1], report
    assert rc == 0


# -- the command ---------------------------------------------------------------------


def _kaitaku(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kaitaku", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def test_the_command_lists_every_scenario_and_obligation() -> None:
    done = _kaitaku("conformance", "--list")
    assert done.returncode == 0
    for sc in SCENARIOS:
        assert sc.name in done.stdout
        for ob in sc.obligations:
            assert ob.name in done.stdout


def test_the_command_refuses_an_unknown_name() -> None:
    done = _kaitaku("conformance", "--port", str(_free_port()), "--only", "nonesuch")
    assert done.returncode == 2
    assert "nonesuch" in done.stderr


def test_the_command_runs_the_sdk_bot_it_starts() -> None:
    """``--client`` starts ``kaitaku bot`` for each scenario; its games pass."""
    port = _free_port()
    bot = (f"{sys.executable} -m kaitaku bot --connect {{host}}:{{port}} --table conformance "
           "--bot random --seed 2")
    done = _kaitaku("conformance", "--port", str(port), "--only", "ping", "--only",
                    "truncated_discard", "--timeout", "10", "--wait", "20", "--client", bot)
    verdicts = _lines(done.stdout)
    assert set(verdicts) == {"ping", "truncated_discard"}, done.stdout + done.stderr
    assert all(v == "PASS" for v, _ in verdicts.values()), done.stdout + done.stderr
    assert done.returncode == 0


def test_select_by_scenario_or_obligation() -> None:
    assert [s.name for s in select(["seq_after_resume"])] == ["drop_resume"]
    assert [s.name for s in select(["restart", "framing"])] == ["framing", "restart"]
    assert len(select([])) == len(SCENARIOS)
    with pytest.raises(ValueError):
        select(["nonesuch"])


async def test_the_kit_waits_for_a_client_and_says_so() -> None:
    out, err = io.StringIO(), io.StringIO()
    kit = Kit(HOST, 0, timeout=1.0, wait=0.3, out=out, err=err)
    await kit.start()
    verdicts = await kit.run(select(["ping"]))
    assert [v.ok for v in verdicts] == [False]
    assert "no client connected" in verdicts[0].reason
    assert verdicts[0].line().startswith("FAIL  ping")
