"""A uniform random bot: the baseline and the engine benchmark's player."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.rules import Action

from .base import Bot


class RandomBot(Bot):
    """Picks uniformly among the legal actions; never proposes domestic trades
    (offers are not in the legal list), so it is comparable with other
    engines' random players."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed).random

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        return legal[int(self._random() * len(legal))]
