"""Table animations: the dice tumble and settle on the roll, new pieces appear,
hand cards show what they gained. They are presentation only: driven by
``update(dt)`` and by events that arrive while the table shows, never by the
history a join or a resync brings, and drawing them changes nothing."""

from __future__ import annotations

import copy
from typing import Any

import pygame

from client.canned import canned_model
from client.model import ONLINE, RECONNECTING, ClientModel
from client.scene import Context
from client.table_scene import CATCH_UP, DICE_SECONDS, GAIN_SECONDS, PIECE_SECONDS, TableScene
from protocol.rules import EndTurn, action_from_dict

SIZE = (1280, 800)


def make_scene(ctx: Context, model: ClientModel) -> TableScene:
    ctx.model = model
    scene = TableScene(ctx)
    ctx.stack.push(scene)
    scene.resized(SIZE)
    scene.update(0.0)
    return scene


def roll(model: ClientModel, dice: list[int], extra: list[dict[str, Any]] = ()) -> None:
    """The server's messages for a roll: the events, then the new view."""
    version = model.version + 1
    model.apply({"type": "events", "version": version,
                 "events": [{"type": "dice_rolled", "seat": 0, "dice": dice}, *extra]})
    view = copy.deepcopy(model.view)
    assert view is not None
    view["last_roll"] = dice
    model.apply({"type": "view", "version": version, "view": view})


def free_node(model: ClientModel) -> int:
    assert model.view is not None
    taken = {b[0] for b in model.view["buildings"]}
    return next(n for n in range(54) if n not in taken)


def snapshot(model: ClientModel) -> Any:
    return (copy.deepcopy(model.view), copy.deepcopy(list(model.events)), list(model.dice),
            [a.to_dict() for a in model.legal], model.version, model.changes,
            copy.deepcopy(list(model.chat)))


def test_the_dice_tumble_then_settle_on_the_rolled_faces(ctx: Context,
                                                         surface: pygame.Surface) -> None:
    model = canned_model(0)
    scene = make_scene(ctx, model)
    assert not scene.animating
    roll(model, [6, 2])
    scene.update(0.0)
    assert scene.dice_anim == DICE_SECONDS and scene.dice_rolled == (6, 2)
    seen: set[tuple[int, ...]] = set()
    t = 0.0
    while t < DICE_SECONDS - 0.05:  # fake time: 60 frames a second
        scene.update(1 / 60)
        scene.draw(surface)
        t += 1 / 60
        assert scene.dice_anim > 0
        seen.add(scene.dice_shown())
    assert len(seen) > 2  # tumbling through faces
    for _ in range(6):
        scene.update(1 / 60)
    assert scene.dice_anim == 0
    assert scene.dice_shown() == (6, 2)
    scene.draw(surface)
    assert scene.robber_anim == 0  # only a 7 flashes the robber
    roll(model, [3, 4])
    scene.update(0.0)
    scene.update(DICE_SECONDS + 0.01)
    assert scene.dice_shown() == (3, 4) and scene.robber_anim > 0
    scene.update(5.0)
    scene.update(5.0)
    assert not scene.animating


def test_animations_do_not_block_input(ctx: Context, sent: list[dict[str, Any]]) -> None:
    model = canned_model(0)
    scene = make_scene(ctx, model)
    legal = [a.to_dict() for a in model.legal]
    roll(model, [5, 5])
    model.apply({"type": "legal", "version": model.version, "actions": legal})
    scene.update(1 / 60)
    assert scene.dice_anim > 0
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_e, mod=0, unicode="e"))
    assert [action_from_dict(m["action"]) for m in sent if m["type"] == "action"] == [
        EndTurn()]


def test_the_history_at_join_or_resync_is_not_animated(ctx: Context) -> None:
    model = canned_model(0)
    assert any(e["type"] == "dice_rolled" for e in model.events)  # a history with rolls
    scene = make_scene(ctx, model)
    for _ in range(3):
        scene.update(1 / 60)
    assert not scene.animating  # the initial view
    # a resync after the events were cleared: old dice are not replayed
    history = list(model.events)
    model.events.clear()
    scene.update(1 / 60)
    model.apply({"type": "events", "version": model.version + 1, "events": history})
    roll(model, [4, 4])
    scene.update(1 / 60)
    assert not scene.animating
    # a big catch-up batch is not news either
    batch = [{"type": "dice_rolled", "seat": 1, "dice": [2, 3]}] * (CATCH_UP + 1)
    model.apply({"type": "events", "version": model.version + 1, "events": batch})
    scene.update(1 / 60)
    assert not scene.animating
    # what a reconnect brings (while reconnecting, and just after) is not replayed
    model.apply({"type": "_status", "state": RECONNECTING, "attempt": 1})
    scene.update(1 / 60)
    model.apply({"type": "welcome", "server": "s", "session": "x"})
    assert model.connection == ONLINE
    roll(model, [1, 2])
    scene.update(1 / 60)
    assert not scene.animating
    scene.update(2.0)
    roll(model, [2, 2])  # later, live news again
    scene.update(1 / 60)
    assert scene.dice_anim > 0


def test_a_new_piece_appears_and_hand_cards_show_gains(ctx: Context,
                                                      surface: pygame.Surface) -> None:
    model = canned_model(0)
    scene = make_scene(ctx, model)
    scene.draw(surface)
    node = free_node(model)
    version = model.version + 1
    model.apply({"type": "events", "version": version, "events": [
        {"type": "settlement_built", "seat": 1, "node": node, "free": False},
        {"type": "setup_income", "seat": 1, "cards": [1, 1, 0, 0, 0]},  # not ours
        {"type": "produced", "gains": [[0, 2, 0, 0, 1], [0] * 5, [0] * 5, [0] * 5],
         "withheld": []}]})
    view = copy.deepcopy(model.view)
    assert view is not None
    view["buildings"].append([node, 1, 1])
    model.apply({"type": "view", "version": version, "view": view})
    scene.update(1 / 60)
    assert scene.piece_new == scene.last_move().piece == ("node", node)
    assert scene.gains.keys() == {1, 4} and scene.gains[1][0] == 2 and scene.gains[4][0] == 1
    builds = scene.region_builds["board"]
    scene.draw(surface)
    assert scene.region_builds["board"] == builds + 1  # the board without the new piece
    scene.update(PIECE_SECONDS)
    scene.draw(surface)
    assert scene.piece_new is None
    assert scene.region_builds["board"] == builds + 2  # and with it again
    scene.update(GAIN_SECONDS)
    assert not scene.gains
    # setup income of our own seat shows too
    model.apply({"type": "events", "version": model.version + 1, "events": [
        {"type": "setup_income", "seat": 0, "cards": [0, 0, 1, 0, 0]}]})
    scene.update(1 / 60)
    assert scene.gains.keys() == {2}


def test_drawing_during_animations_changes_nothing(ctx: Context, surface: pygame.Surface,
                                                   sent: list[dict[str, Any]]) -> None:
    model = canned_model(0)
    scene = make_scene(ctx, model)
    node = free_node(model)
    roll(model, [3, 4], [
        {"type": "settlement_built", "seat": 0, "node": node, "free": False},
        {"type": "produced", "gains": [[1, 1, 1, 1, 1], [0] * 5, [0] * 5, [0] * 5],
         "withheld": []}])
    scene.update(1 / 60)
    assert scene.dice_anim and scene.piece_new and scene.gains
    before = snapshot(model)
    for _ in range(90):  # through the tumble, the robber flash, the new piece and the gains
        ctx.stack.update(1 / 60)
        ctx.stack.draw(surface)
        assert snapshot(model) == before
    assert sent == []


def test_what_arrives_with_the_first_view_is_not_animated(ctx: Context) -> None:
    full = canned_model(0)
    model = ClientModel()  # the table shows before the server sent the game (a join)
    for msg in ({"type": "welcome", "server": "s", "session": "x"},
                {"type": "joined", "table": "canned", "seat": 0, "settings": full.settings}):
        model.apply(msg)
    scene = make_scene(ctx, model)
    scene.update(1 / 60)
    model.apply({"type": "view", "version": full.version, "view": full.view})
    model.apply({"type": "events", "version": full.version, "events": [
        {"type": "dice_rolled", "seat": 0, "dice": [6, 6]}]})
    scene.update(1 / 60)
    assert not scene.animating
    roll(model, [1, 1])
    scene.update(1 / 60)
    assert scene.dice_anim > 0 and scene.dice_rolled == (1, 1)
