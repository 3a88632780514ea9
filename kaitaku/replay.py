"""``kaitaku replay GAME_ID``: a stored league game, as text, turn by turn."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from league.store import connect, load_log
from protocol.rules import GameLog, apply, new_game

from .terminal import _seat_name, describe


def replay_lines(log: GameLog, seats: Sequence[str]) -> list[list[str]]:
    """The game's text, one list of lines per turn (the set-up is the first)."""
    s = new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)
    players = log.settings.players
    turns: list[list[str]] = [[]]
    for seat, action, outcome in log.steps:
        turn_before = s.turn
        events = apply(s, action, seat, outcome)
        if s.turn != turn_before and turns[-1]:
            turns.append([])
        for e in events:
            line = describe(e, players)
            if line:
                turns[-1].extend(line.split("\n"))
    return turns


def main_replay(game_id: int, db: str, step: bool = False,
                out: Callable[[str], None] = print,
                wait: Callable[[], Any] | None = None) -> int:
    """``kaitaku replay GAME_ID``: print a stored game turn by turn."""
    if not Path(db).exists():
        print(f"kaitaku replay: no database {db}", file=sys.stderr)
        return 2
    conn = connect(db)
    try:
        game, log = load_log(conn, game_id)
    except KeyError:
        print(f"kaitaku replay: no game {game_id} in {db}", file=sys.stderr)
        return 2
    finally:
        conn.close()
    players = len(game.seats)
    out(f"game {game.id} (league game {game.index}, seed {game.seed}): "
        + ", ".join(f"{_seat_name(q, players)} {n}" for q, n in enumerate(game.seats)))
    if log is None:
        out(f"no actions recorded ({game.status}: {game.error})")
        return 1
    wait = wait or (lambda: input())
    for lines in replay_lines(log, game.seats):
        for line in lines:
            out(line)
        if step:
            try:
                wait()
            except EOFError:
                step = False
    if game.status != "ok":
        out(f"\n=== the game failed: {game.error} ===")
    return 0
