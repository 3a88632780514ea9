"""``kaitaku verify`` against a real server's database, a league's and a log file:
a played game is fair; a changed outcome, secret or commitment in the database
is named (exit 1); the replay viewer shows the same verdict. The reveal never
comes early: an unfinished table has none."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from client.app import App
from kaitaku.cli import main
from kaitaku.replay import load_server_game
from league import Entry, connect, load_games, run_league
from protocol.rules.chance import Reveal
from tests.client.test_replay import server_game


def _chancy_versions(db: Path, tid: str) -> list[tuple[int, str, list[int]]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT version, action, outcome FROM actions WHERE table_id = ? "
                            "AND outcome IS NOT NULL ORDER BY version", (tid,)).fetchall()
    return [(v, json.loads(a)["type"], json.loads(o)) for v, a, o in rows]


async def test_a_server_game_verifies_and_any_change_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "kaitaku.db"
    tid = await server_game(db)
    assert main(["verify", tid, "--server-db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "fair: the commitment matches" in out and "rolls" in out
    log, *_ = load_server_game(str(db), tid)
    assert log.chance is not None and Reveal.from_dict(log.chance).matches()

    # the replay viewer checks the whole record too
    shown: list[Any] = []

    def run(self: App) -> int:
        shown.append(self.replay.verdict)
        self.close()
        return 0

    monkeypatch.setattr(App, "run", run)
    assert main(["replay", tid, "--server-db", str(db), "--window", "--lang", "en"]) == 0
    assert shown and shown[0] is not None and shown[0].ok

    # one roll changed to another possible roll: named, by its step
    rolls = [(v, o) for v, kind, o in _chancy_versions(db, tid) if kind == "roll_dice"]
    version, dice = rolls[len(rolls) // 2]
    changed = [dice[0] % 6 + 1, dice[1]]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET outcome = ? WHERE table_id = ? AND version = ?",
                     (json.dumps(changed), tid, version))
    assert main(["verify", tid, "--server-db", str(db)]) == 1
    out = capsys.readouterr().out
    assert f"NOT fair: step {version - 1}: (roll_dice" in out
    assert f"the record says {changed[0]}+{changed[1]}" in out
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET outcome = ? WHERE table_id = ? AND version = ?",
                     (json.dumps(dice), tid, version))
    assert main(["verify", tid, "--server-db", str(db)]) == 0
    capsys.readouterr()

    # a development card or a steal changed: named too
    others = [(v, kind, o) for v, kind, o in _chancy_versions(db, tid) if kind != "roll_dice"
              and o != [-1]]
    assert others
    version, kind, outcome = others[0]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET outcome = ? WHERE table_id = ? AND version = ?",
                     (json.dumps([(outcome[0] + 1) % 5, *outcome[1:]]), tid, version))
    assert main(["verify", tid, "--server-db", str(db)]) == 1
    assert f"step {version - 1}: ({kind}" in capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET outcome = ? WHERE table_id = ? AND version = ?",
                     (json.dumps(outcome), tid, version))

    # the secret, then the commitment, changed in the server's record
    with sqlite3.connect(db) as conn:
        (chance,) = conn.execute("SELECT chance FROM tables WHERE id = ?", (tid,)).fetchone()
    good = json.loads(chance)
    for field, value in (("secret", "11" * 64), ("commitment", "22" * 32)):
        with sqlite3.connect(db) as conn:
            conn.execute("UPDATE tables SET chance = ? WHERE id = ?",
                         (json.dumps({**good, field: value}), tid))
        assert main(["verify", tid, "--server-db", str(db)]) == 1
        assert "NOT fair: the revealed secret and salt do not give the commitment" in \
            capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tables SET chance = ? WHERE id = ?", (chance, tid))
    assert main(["verify", tid, "--server-db", str(db)]) == 0

    # a log file (the game log's plain form) verifies the same way
    path = tmp_path / "game.json"
    path.write_text(json.dumps(log.to_dict()))
    assert main(["verify", "--file", str(path)]) == 0
    d = log.to_dict()
    d["steps"][rolls[0][0] - 1][2] = [rolls[0][1][0] % 6 + 1, rolls[0][1][1]]
    path.write_text(json.dumps(d))
    assert main(["verify", "--file", str(path)]) == 1
    assert f"step {rolls[0][0] - 1}" in capsys.readouterr().out
    path.write_text("[" * 100_000)
    assert main(["verify", "--file", str(path)]) == 1
    assert "cannot be read" in capsys.readouterr().err

    # an unfinished table reveals nothing: no secret leaves the database for it
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tables SET status = 'playing' WHERE id = ?", (tid,))
    assert main(["verify", tid, "--server-db", str(db)]) == 1
    assert "has not finished" in capsys.readouterr().err


def test_a_league_game_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "l.db"
    entries = [Entry("h", "heuristic"), Entry("g", "greedy"), Entry("r", "random")]
    result = run_league(entries, 3, players=3, seed=1, db=db)
    conn = connect(db)
    games = load_games(conn, result.league)
    conn.close()
    for g in games:
        assert main(["verify", str(g.id), "--db", str(db)]) == 0
    assert capsys.readouterr().out.count("fair:") == len(games)
