"""The scene stack: lobby, table and dialogs are scenes.

Only the top scene gets input (dialogs are modal). Every scene is updated
each frame; drawing starts at the highest opaque scene so a dialog is drawn
over the table it belongs to. Drawing never changes game state: scenes read
``ctx.model`` (what the server sent) and express what the user wants as
intents through ``ctx.send`` / ``ctx.send_action``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pygame

from protocol.rules import Action

from .i18n import Translator

if TYPE_CHECKING:
    from .model import ClientModel

Message = dict[str, Any]


@dataclass
class Context:
    """What every scene may use."""

    model: ClientModel
    tr: Translator
    font: Callable[..., pygame.font.Font]  # font(size, bold=False)
    send: Callable[[Message], None]  # queue a message to the server (thread-safe)
    stack: SceneStack = field(default_factory=lambda: SceneStack())
    quit: Callable[[], None] = lambda: None
    options: dict[str, Any] = field(default_factory=dict)

    def send_action(self, action: Action) -> None:
        """Send one game action (the network layer adds the sequence number)."""
        self.send({"type": "action", "action": action.to_dict()})


class Scene:
    """One screen or dialog. Subclasses override what they need."""

    opaque = True  # False: the scenes below stay visible (dialogs)

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def handle(self, event: pygame.event.Event) -> bool:
        """React to one input event; True when it was used."""
        return False

    def update(self, dt: float) -> None:
        """Advance animations/timers by ``dt`` seconds; react to model changes."""

    def draw(self, surface: pygame.Surface) -> None:
        """Draw onto ``surface`` (must not change any state but caches)."""

    def resized(self, size: tuple[int, int]) -> None:
        """The window changed size."""

    def next_frame(self) -> float | None:
        """Seconds until this scene looks different by itself (an animation: 0, a
        blinking caret: its half period); None: only input or news change it."""
        return None

    def enter(self) -> None:
        """Became the top scene."""

    def exit(self) -> None:
        """Removed from the stack."""


class SceneStack:
    def __init__(self) -> None:
        self.scenes: list[Scene] = []

    @property
    def top(self) -> Scene | None:
        return self.scenes[-1] if self.scenes else None

    def push(self, scene: Scene) -> None:
        self.scenes.append(scene)
        scene.enter()

    def pop(self, scene: Scene | None = None) -> Scene | None:
        """Remove ``scene`` (default: the top one) and whatever is above it."""
        if not self.scenes:
            return None
        if scene is None:
            scene = self.scenes[-1]
        if scene not in self.scenes:
            return None
        while self.scenes:
            top = self.scenes.pop()
            top.exit()
            if top is scene:
                break
        if self.scenes:
            self.scenes[-1].enter()
        return scene

    def replace(self, scene: Scene) -> None:
        """Clear the stack and show ``scene``."""
        while self.scenes:
            self.scenes.pop().exit()
        self.push(scene)

    def handle(self, event: pygame.event.Event) -> bool:
        top = self.top
        return top.handle(event) if top is not None else False

    def update(self, dt: float) -> None:
        for scene in list(self.scenes):
            scene.update(dt)

    def draw(self, surface: pygame.Surface) -> None:
        start = 0
        for i, scene in enumerate(self.scenes):
            if scene.opaque:
                start = i
        for scene in self.scenes[start:]:
            scene.draw(surface)

    def resized(self, size: tuple[int, int]) -> None:
        for scene in self.scenes:
            scene.resized(size)

    def next_frame(self) -> float | None:
        """The soonest :meth:`Scene.next_frame` of the scenes drawn."""
        waits = [w for scene in self.scenes if (w := scene.next_frame()) is not None]
        return min(waits) if waits else None
