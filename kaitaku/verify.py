"""``kaitaku verify``: check a committed game's chance against its revealed secret.

The game comes from a league database (``--db``), the game server's
(``--server-db``), a ladder's (``--ladder-db``) or a log file (``--file``:
a game log's plain form as JSON, ``docs/ENGINE.md``). The checking itself is
:func:`protocol.rules.chance.verify`: the commitment, the deal, then every
step's outcome recomputed from the secret and the actions before it. Prints
``fair`` (exit 0) or the first step that does not follow (exit 1).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from protocol.rules import GameLog
from protocol.rules.chance import Verdict, verify
from protocol.rules.errors import RulesError

from .replay import ReplayError, load_ladder_game, load_league_game, load_server_game

MAX_FILE = 64 << 20
"""The largest log file read (a real game's log is well under 1 MiB)."""


def load_file(path: str) -> GameLog:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE:
            raise ReplayError(f"{path}: larger than {MAX_FILE >> 20} MiB")
        data: Any = json.loads(p.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("log"), dict):
            data = data["log"]  # a file that wraps the log with more about the game
        if not isinstance(data, dict):
            raise ReplayError(f"{path}: not a game log")
        return GameLog.from_dict(data)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, RulesError) as exc:
        raise ReplayError(f"{path} cannot be read: {exc}") from None


def load(args: Any) -> tuple[GameLog, str]:
    """The game the arguments name, and a line about it."""
    if args.file is not None:
        return load_file(args.file), args.file
    if args.game_id is None:
        raise ReplayError("which game? (kaitaku replay --list shows a database's games)")
    if args.server_db is not None:
        from server.storage import default_db_path

        db = args.server_db or str(default_db_path())
        log, names, _, title = load_server_game(db, str(args.game_id), check=False)
        return log, f"table {args.game_id} ({title}): " + ", ".join(names)
    try:
        number = int(args.game_id)
    except ValueError:
        raise ReplayError(f"a game id is a number here, not {args.game_id!r}") from None
    if args.ladder_db is not None:
        log, _, head = load_ladder_game(args.ladder_db, number)
        return log, head
    log, _, head = load_league_game(args.db, number)
    return log, head


def report(verdict: Verdict) -> str:
    return verdict.summary()


def main_verify(args: Any) -> int:
    try:
        log, head = load(args)
    except ReplayError as exc:
        print(f"kaitaku verify: {exc}", file=sys.stderr)
        return 1
    verdict = verify(log)
    print(head)
    print(report(verdict))
    return 0 if verdict.ok else 1
