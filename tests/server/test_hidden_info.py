"""Hidden information over the wire: a whole 4-player game in which every client
(and a spectator) keeps every byte and frame it receives; then, for every
receiver, nothing it got reveals another seat's hand or development cards, a
bought card's type, a stolen card, the development deck, the seed or the RNG.

The truth is recorded on the server's side of the same process: every state
``apply`` leaves behind (indexed by the table's event version) and every state
the game's generator passes through. Tests may look; clients may not.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

import pytest

import server.table as table_module
from protocol.rules import EVENT_TYPES, GameState, Settings, apply, new_game, observe
from protocol.rules.chance import Reveal, deal_seed
from protocol.rules.rng import Rng
from server.app import Server

from .conftest import (
    GAME_TIMEOUT,
    Connect,
    RawClient,
    assert_finished,
    play_bot_game,
    seeded_reveal,
    start_bot_game,
)

SEED = 0x5EED_C0DE_1234_ABCD  # large, so it cannot be mistaken for an ordinary number

SEAT_KEYS = {"cards", "dev_cards", "knights", "vp", "road_length", "pieces", "discard_owed",
             "tokens", "proposals_made", "offers_made"}
YOU_KEYS = {"hand", "dev_cards", "dev_new", "dev_playable", "vp_total", "vp_cards", "ratios",
            "may_propose"}
VIEW_KEYS = set(observe(new_game(Settings(players=4), 1), 0))
EVENT_KEYS = {name: {f.name for f in fields(cls)} | {"type"} for name, cls in EVENT_TYPES.items()}


@dataclass
class Truth:
    seed: int = -1
    snapshots: list[dict[str, Any]] = field(default_factory=list)  # index: table version
    rng_states: set[int] = field(default_factory=set)


def _snapshot(game: GameState) -> dict[str, Any]:
    return {
        "hands": [h[:] for h in game.hands],
        "dev_hand": [d[:] for d in game.dev_hand],
        "dev_deck": game.dev_deck[:],
        "vp": game.vp[:],
        "rng": game.rng.state,
    }


@pytest.fixture
def truth(monkeypatch: pytest.MonkeyPatch) -> Truth:
    """Record the hidden truth of the (one) game the server runs."""
    t = Truth()
    real_new_game, real_apply = new_game, apply  # what server.table calls
    real_below, real_next64 = Rng.below, Rng.next64

    def recording_new_game(settings: Settings, seed: int, *args: Any, **kw: Any) -> GameState:
        game = real_new_game(settings, seed, *args, **kw)
        t.seed = seed
        t.rng_states.add(seed)
        t.snapshots.append(_snapshot(game))
        return game

    def recording_apply(game: GameState, *args: Any, **kw: Any) -> Any:
        events = real_apply(game, *args, **kw)  # a refusal raises: no new version
        t.snapshots.append(_snapshot(game))
        return events

    def below(self: Rng, n: int) -> int:
        x = real_below(self, n)
        t.rng_states.add(self.state)
        return x

    def next64(self: Rng) -> int:
        x = real_next64(self)
        t.rng_states.add(self.state)
        return x

    monkeypatch.setattr(table_module, "new_game", recording_new_game)
    monkeypatch.setattr(table_module, "apply", recording_apply)
    monkeypatch.setattr(Rng, "below", below)
    monkeypatch.setattr(Rng, "next64", next64)
    return t


def _walk(obj: Any) -> Iterator[tuple[str | None, Any]]:
    """Every (key, value) pair in a decoded frame, nested ones included."""
    stack: list[tuple[str | None, Any]] = [(None, obj)]
    while stack:
        key, o = stack.pop()
        yield key, o
        if isinstance(o, dict):
            stack.extend(o.items())
        elif isinstance(o, list):
            stack.extend((key, x) for x in o)


def _check_view(view: dict[str, Any], seat: int | None, snap: dict[str, Any]) -> None:
    assert set(view) == VIEW_KEYS
    assert view["seat"] == seat
    assert isinstance(view["dev_deck"], int) and view["dev_deck"] == sum(snap["dev_deck"])
    for q, entry in enumerate(view["seats"]):
        assert set(entry) == SEAT_KEYS
        assert all(type(entry[k]) is int for k in SEAT_KEYS - {"pieces"})
        assert len(entry["pieces"]) == 3 and all(type(x) is int for x in entry["pieces"])
        assert entry["cards"] == sum(snap["hands"][q])
        assert entry["dev_cards"] == sum(snap["dev_hand"][q])
        assert entry["vp"] == snap["vp"][q]  # public VP: victory point cards stay hidden
    if seat is None:
        assert view["you"] is None
    else:
        you = view["you"]
        assert set(you) == YOU_KEYS
        assert you["hand"] == snap["hands"][seat]
        assert you["dev_cards"] == snap["dev_hand"][seat]


def _check_event(event: dict[str, Any], seat: int | None) -> None:
    kind = event["type"]
    assert set(event) == EVENT_KEYS[kind], event
    if kind == "dev_card_bought":
        assert (event["card"] is not None) == (event["seat"] == seat), (seat, event)
    elif kind == "stolen":
        if seat not in (event["thief"], event["victim"]):
            assert event["resource"] is None, (seat, event)
        elif event["count"]:
            assert event["resource"] is not None
    elif kind in ("forced_trade_drawn", "gave_back"):
        partner = event.get("victim", event.get("partner"))
        if seat not in (event["seat"], partner):
            assert event["cards"] is None, (seat, event)


def _check_receiver(seat: int | None, frames: list[dict[str, Any]], stream: bytes,
                    truth: Truth, reveal: Reveal) -> dict[str, int]:
    """Every check for one receiver; returns counts of what it saw."""
    secrets_ = truth.rng_states | {truth.seed}
    seen = {"views": 0, "events": 0, "own_cards": 0, "own_steals": 0}
    for msg in frames:
        for key, value in _walk(msg):
            assert key not in ("seed", "rng", "rng_state", "deck"), msg["type"]
            if key == "dev_deck":
                assert type(value) is int
            if type(value) is int:
                assert value not in secrets_, (msg["type"], key)
        if msg["type"] == "view":
            _check_view(msg["view"], seat, truth.snapshots[msg["version"]])
            seen["views"] += 1
        elif msg["type"] == "events":
            for event in msg["events"]:
                _check_event(event, seat)
                seen["events"] += 1
                if event["type"] == "dev_card_bought" and event["card"] is not None:
                    seen["own_cards"] += 1
                if event["type"] == "stolen" and event["resource"] is not None:
                    seen["own_steals"] += 1
        elif msg["type"] == "legal":
            assert seat is not None, "a spectator got legal actions"
    # the committed secret: in no frame but the reveal at the end of the game
    for msg in frames:
        chance = msg.get("chance")
        if msg["type"] == "game_over":
            assert chance == reveal.to_dict()
        elif chance is not None:
            assert chance == reveal.announced(), msg["type"]
    assert reveal.secret not in stream and reveal.secret[32:] not in stream
    assert stream.count(reveal.secret.hex().encode()) == 1  # game_over's
    assert stream.count(reveal.salt.hex().encode()) == 1
    assert stream.rfind(reveal.secret.hex().encode()) > stream.rfind(b"game_over")
    final = truth.snapshots[-1]["rng"]
    for secret in (truth.seed, final):
        assert struct.pack(">Q", secret) not in stream
        assert str(secret).encode() not in stream
        assert f"{secret:x}".encode() not in stream
    return seen


async def test_no_frame_reveals_hidden_information(server: Server, connect: Connect,
                                                   truth: Truth) -> None:
    spectator = await connect("watcher", role="spectator")

    async def watch(tid: str) -> None:
        await spectator.send({"type": "spectate", "table": tid})
        await spectator.recv_type("joined")

    game = await start_bot_game(server, {"players": 4}, ["greedy", "random", "greedy", "random"],
                                seed=SEED, before_join=watch)
    await play_bot_game(game)
    assert_finished(game, server)
    await spectator.recv_type("game_over", timeout=GAME_TIMEOUT)

    table = server.tables[game.table]
    state = table.game
    assert state is not None and state.seed == truth.seed == deal_seed(seeded_reveal(SEED).secret)
    assert len(truth.snapshots) == table.version + 1
    assert truth.snapshots[-1]["rng"] == state.rng.state
    assert len(truth.rng_states) > 50

    receivers: list[tuple[int | None, list[dict[str, Any]], bytes]] = [
        (c.outcome.seat, c.received, bytes(c.stream)) for c in game.clients]
    receivers.append((None, spectator.received, bytes(spectator.stream)))
    totals = {"views": 0, "events": 0, "own_cards": 0, "own_steals": 0}
    for seat, frames, stream in receivers:
        seen = _check_receiver(seat, frames, stream, truth, seeded_reveal(SEED))
        assert seen["views"] > 0 and seen["events"] > 0
        if seat is None:
            assert seen["own_cards"] == seen["own_steals"] == 0
        for k, v in seen.items():
            totals[k] += v
    # The game did buy development cards and rob someone, so the checks bit.
    assert totals["own_cards"] > 0 and totals["own_steals"] > 0


async def test_spectator_joining_mid_game_gets_public_state_only(server: Server,
                                                                connect: Connect,
                                                                truth: Truth) -> None:
    game = await start_bot_game(server, {"players": 3}, ["greedy", "greedy", "random"],
                                seed=SEED + 1)
    play = asyncio.ensure_future(play_bot_game(game))
    watcher: RawClient = await connect("late", role="spectator")
    await asyncio.sleep(0.05)
    await watcher.send({"type": "spectate", "table": game.table})
    await asyncio.wait_for(play, GAME_TIMEOUT)
    assert_finished(game, server)
    await watcher.recv_type("game_over", timeout=GAME_TIMEOUT)
    seen = _check_receiver(None, watcher.received, bytes(watcher.stream), truth,
                           seeded_reveal(SEED + 1))
    assert seen["views"] > 0
