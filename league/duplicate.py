"""Duplicate matches: the same board and the same chance in every seat rotation.

Catan is luck-heavy. In a duplicate set (as in duplicate bridge) every
rotation of the same entries plays the same board with the same starting seat
*and* the same chance: its games share one committed secret, and committed
chance (:mod:`protocol.rules.chance`) draws every outcome from the turn and
the situation, never from the decisions made before, so each entry faces
exactly the luck the others faced in its seat:

* the dice of turn ``t``, roll ``r`` are the same in every rotation;
* the ``k``-th development card bought is drawn by the same number, whoever buys it;
* a steal (or forced-trade draw) in the same turn and situation from the same
  hand takes the same card.

The set's secret is revealed only when every game of the set is over (the
league's database and report, the ladder's page). Where an entry could carry
what it saw from one rotation into the next (a ladder bot, an unsandboxed
``cmd:`` entry), the rotations share the deal but each draws its own play
(:func:`league.schedule.game_chance`).
"""

from __future__ import annotations

import hashlib

from protocol.rules import Settings
from protocol.rules.chance import CommittedChance, deal_seed


def seeded_secret(seed: int) -> bytes:
    """A reproducible secret from a public seed: for benchmarks and tests
    only (anyone who knows the seed knows the chance)."""
    return hashlib.sha512(f"kaitaku-duplicate:{seed}".encode()).digest()


def seeded_chance(seed: int, settings: Settings) -> tuple[int, CommittedChance]:
    """The engine seed and the chance source of a benchmark's duplicate set."""
    secret = seeded_secret(seed)
    return deal_seed(secret), CommittedChance(secret, settings)
