"""Entries and the schedule: who plays which seat of which game, and each game's seed.

The schedule is built in *blocks* in which every entry sits in every seat
equally often (see :func:`schedule`); a league's game count is rounded up to a
whole number of blocks. Each game's seed derives from the league seed and the
game index; its chance (board, dice, cards, steals) derives from the league's
secret (:func:`game_chance`), which no entry sees.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
import random
from dataclasses import dataclass

from protocol.rules.chance import SALT_BYTES, Reveal


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    spec: str


def parse_entry(text: str) -> Entry:
    """``NAME=SPEC`` (or a bare SPEC, named after itself)."""
    name, sep, spec = text.partition("=")
    if not sep:
        name, spec = text, text
    name, spec = name.strip(), spec.strip()
    if not name or not spec:
        raise ValueError(f"bad entry {text!r}: NAME=SPEC")
    return Entry(name, spec)


def block_size(entries: int, players: int, games: int) -> int:
    """Games in one balanced block: all ``players``-combinations of the entries,
    each in its ``players`` rotations, when that fits in ``games``; otherwise
    ``entries`` cyclic rotations."""
    full = math.comb(entries, players) * players if entries >= players else entries
    return full if full <= max(games, 1) else entries


def schedule(entries: int, players: int, games: int, seed: int = 0) -> list[tuple[int, ...]]:
    """The seating of every game: a tuple of entry indices, one per seat.

    ``games`` is rounded up to a multiple of :func:`block_size`. In a block
    every entry sits in every seat equally often and plays equally many seats:

    * with at least as many entries as seats and room for it, the block is
      every combination of ``players`` entries, each rotated through all seats
      (``C(E, P) * P`` games);
    * otherwise the block is ``E`` games where seat ``q`` of game ``r`` gets
      entry ``perm[(r + q) % E]``; ``perm`` is a permutation of the entries drawn
      from the league seed for each block, so opponents vary between blocks.
      With fewer entries than seats an entry fills several seats of a game.
    """
    if entries < 1:
        raise ValueError("a league needs at least one entry")
    size = block_size(entries, players, games)
    blocks = max(1, -(-games // size))
    out: list[tuple[int, ...]] = []
    full = entries >= players and size == math.comb(entries, players) * players
    for b in range(blocks):
        if full:
            for combo in itertools.combinations(range(entries), players):
                for r in range(players):
                    out.append(tuple(combo[(q + r) % players] for q in range(players)))
        else:
            perm = list(range(entries))
            random.Random(f"{seed}:{b}").shuffle(perm)
            for r in range(entries):
                out.append(tuple(perm[(r + q) % entries] for q in range(players)))
    return out


def rotation_group(entries: int, players: int, games: int) -> int:
    """How many consecutive games of :func:`schedule` seat the same entries in
    all their rotations: ``players`` in the full design, ``entries`` in the
    cyclic one. A duplicate league plays each such group on one board with one
    chance (:mod:`league.duplicate`)."""
    full = entries >= players and block_size(entries, players, games) == \
        math.comb(entries, players) * players
    return players if full else entries


def game_seed(league_seed: int, index: int) -> int:
    """A game's seed, from the league seed and the game's index."""
    digest = hashlib.sha256(f"kaitaku-league:{league_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


LEAGUE_SECRET_BYTES = 32


def _derive(league_secret: bytes, label: str) -> bytes:
    return hmac.digest(league_secret, f"kaitaku-league/{label}".encode(), "sha256")


def game_chance(league_secret: bytes, index: int, group: int | None,
                shared: bool) -> Reveal:
    """Game ``index``'s committed chance, from the league's secret (which no
    entry sees). ``group``: its duplicate set (None: none): the set's games
    share the deal (board and starting seat) and, when ``shared``, the play
    (dice, cards, steals); else each game has its own play, so that an entry
    that keeps what it saw in one rotation cannot know the next one's dice."""
    deal = _derive(league_secret, f"deal/game/{index}" if group is None else f"deal/set/{group}")
    play = _derive(league_secret, f"play/set/{group}" if group is not None and shared
                   else f"play/game/{index}")
    return Reveal.new(deal + play, _derive(league_secret, f"salt/{index}")[:SALT_BYTES])


def bot_seed(league_secret: bytes, index: int, seat: int) -> int:
    """The seed the bot in ``seat`` of game ``index`` gets (``{bot_seed}``): from
    the league's secret, and nothing of the game's chance."""
    return int.from_bytes(_derive(league_secret, f"bot/{index}/{seat}")[:8], "big") >> 1
