"""``kaitaku bench client``: frame time of the table scene.

Draws the canned mid-game table (:mod:`client.canned`) ``frames`` times into
an off-screen surface at ``size``, moving the mouse over the board and
switching build modes on and off so hover and highlight changes are part of
the measurement; every second a chat line and a move (events, view, legal
actions) arrive from the "server" (what changed is redrawn then; between
messages a frame blits the cached panels). Times cover our
drawing only (``TableScene.handle``, ``update`` and ``draw``), not the
display flip.

:func:`idle_bench` measures the other side: the CPU share of the real
window's loop while nothing happens (frames are drawn only on change).
"""

from __future__ import annotations

import copy
import math
import statistics
import time
from typing import Any

import pygame

from .canned import canned_model
from .screenshot import headless_display, make_context


def frame_bench(frames: int = 600, size: tuple[int, int] = (1280, 800), lang: str = "en",
                seed: int = 11) -> dict[str, Any]:
    """Mean, median and 99th percentile frame time (ms) of the table scene
    (``seed``: the canned game's)."""
    from .table_scene import TableScene

    headless_display(size)
    surface = pygame.Surface(size)
    model = canned_model(0, seed=seed, lang=lang)
    ctx, lang = make_context(model, lang)
    scene = TableScene(ctx)
    ctx.stack.push(scene)
    scene.resized(size)
    t0 = time.perf_counter()
    scene.draw(surface)  # the first frame builds the static board and the sprites
    first_ms = (time.perf_counter() - t0) * 1000
    static_ms = scene.board.last_static_ms
    lay = scene.board.layout
    assert lay is not None
    view = model.view
    assert view is not None
    legal = [a.to_dict() for a in model.legal]
    points = lay.edge_xy + lay.node_xy + lay.hex_xy
    modes = ("road", "settlement", None, "city", None)
    times: list[float] = []
    for i in range(frames):
        if i % 60 == 0:  # every second: another build mode (another set of lit spots)
            mode = modes[(i // 60) % len(modes)]
            if mode is None or scene.buttons[mode].enabled:
                scene.mode = mode
                scene._derived_key = None
        if i % 60 == 15:  # once a second a chat line...
            model.apply({"type": "chat", "table": "canned", "seat": i % 4, "name": "Ben",
                         "text": f"message {i}"})
        elif i % 60 == 45:  # ...and once a second a move: events, a new view, legal actions
            version = model.version + 1
            dice = [i % 6 + 1, 3]
            model.apply({"type": "events", "version": version, "events": [
                {"type": "dice_rolled", "seat": 1, "dice": dice}]})
            moved = copy.deepcopy(view)  # the roll changes the bank, a hand and the dice
            moved["last_roll"] = dice
            moved["bank"][i % 5] = max(0, moved["bank"][i % 5] - 1)
            moved["seats"][1]["cards"] += 1
            model.apply({"type": "view", "version": version, "view": moved})
            model.apply({"type": "legal", "version": version, "actions": legal})
        x, y = points[i % len(points)]
        wobble = 6 * math.sin(i / 7)
        event = pygame.event.Event(pygame.MOUSEMOTION, pos=(round(x + wobble), round(y)),
                                   rel=(0, 0), buttons=(0, 0, 0))
        start = time.perf_counter()
        scene.handle(event)
        scene.update(1 / 60)
        ctx.stack.draw(surface)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    mean = statistics.fmean(times)
    return {
        "frames": frames,
        "size": list(size),
        "lang": lang,
        "mean_ms": round(mean, 3),
        "p50_ms": round(times[len(times) // 2], 3),
        "p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))], 3),
        "max_ms": round(times[-1], 3),
        "fps_equiv": round(1000 / mean, 1) if mean else None,
        "first_frame_ms": round(first_ms, 3),
        "static_cache_build_ms": round(static_ms, 3),
        "static_builds": scene.board.static_builds,
        "chrome_builds": scene.chrome_builds,
        "budget_ms": 4.0,
        "within_budget": mean < 4.0,
    }


def idle_bench(seconds: float = 5.0, lang: str = "en", seed: int = 11) -> dict[str, Any]:
    """CPU time of the real window's loop (:meth:`client.app.App.run`'s pacing) while
    nothing happens, at the canned table and in the lobby: the share of one core."""
    from .app import FPS, App

    headless_display((1280, 800))
    out: dict[str, Any] = {"idle_seconds": seconds}
    for where in ("table", "lobby"):
        app = App(discover=False, lang=lang)
        try:
            if where == "table":
                model = canned_model(0, seed=seed, lang=lang)
                for name, value in vars(model).items():
                    setattr(app.model, name, value)
            clock = pygame.time.Clock()
            for _ in range(30):  # settle: the scene, the fonts, the caches
                app.step(clock.tick(FPS) / 1000)
            drawn = app.frames_drawn
            cpu, wall = time.process_time(), time.monotonic()
            while time.monotonic() - wall < seconds:
                app.step(clock.tick(FPS) / 1000)
            cpu, wall = time.process_time() - cpu, time.monotonic() - wall
            out[f"idle_{where}_cpu_percent"] = round(100 * cpu / wall, 2)
            out[f"idle_{where}_frames_drawn"] = app.frames_drawn - drawn
        finally:
            app.close()
    out["idle_budget_percent"] = 5.0
    out["idle_within_budget"] = all(out[f"idle_{w}_cpu_percent"] < 5.0
                                    for w in ("table", "lobby"))
    return out
