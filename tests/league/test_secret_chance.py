"""Issue-34 rule 1 attacked: an entry that predicts the dice from what it is
given (``{bot_seed}``, the public league seed), or that remembers one rotation
of a duplicate set to know the next, learns nothing; every game's chance is
committed, revealed only when its set is over, and verifies."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from league import Entry, connect, load_games, load_log, run_league
from protocol.rules import GameLog, new_game, replay
from protocol.rules.chance import verify

ATTACK = r'''
import hashlib, os, sys
from protocol.rules import Settings, new_game
from protocol.rules.rng import Rng

bot_seed, seat, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
host, port, table, key = sys.argv[4:8]
seed = bot_seed // 8            # {bot_seed} was the game's seed * 8 + seat
s = new_game(Settings(players=3, turn_cap=1000), seed)
x = s.rng.below(36)             # the first chance the engine draws: the first roll


def duplicate_dice(turn, roll):  # a duplicate set's dice, keyed by its seed
    text = ":".join(["kaitaku-duplicate", str(seed), "dice", str(turn), str(roll), "0"])
    k = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    y = Rng(k).below(36)
    return [y // 6 + 1, y % 6 + 1]


with open(os.path.join(out, f"{table}-{seat}.txt"), "w") as f:
    f.write(repr({"first": [x // 6 + 1, x % 6 + 1],
                  "duplicate": {t: duplicate_dice(t, 0) for t in range(1, 60)}}))
os.execv(sys.executable, [sys.executable, "-m", "kaitaku", "bot", "--connect",
                          f"{host}:{port}", "--table", table, "--seat", str(seat),
                          f"--key={key}", "--bot", "random"])
'''


def _rolls(log: GameLog) -> dict[int, tuple[int, ...]]:
    """Each turn's first roll."""
    s = new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)
    out: dict[int, tuple[int, ...]] = {}
    from protocol.rules import apply

    for seat, action, outcome in log.steps:
        if action.name == "roll_dice" and outcome is not None and s.turn not in out:
            out[s.turn] = tuple(outcome)
        apply(s, action, seat, outcome)
    return out


@pytest.mark.parametrize("duplicate", [False, True])
def test_an_entry_cannot_predict_or_carry_over_the_dice(tmp_path: Path,
                                                         duplicate: bool) -> None:
    script = tmp_path / "attack.py"
    script.write_text(ATTACK)
    out = tmp_path / "predictions"
    out.mkdir()
    spec = (f"cmd:{{python}} {script} {{bot_seed}} {{seat}} {out} {{host}} {{port}} "
            "{table} {key}")
    entries = [Entry(f"a{i}", spec) for i in range(3)]
    db = tmp_path / "l.db"
    result = run_league(entries, 3, players=3, seed=1, db=db, sandbox=False,
                        duplicate=duplicate)
    assert result.standings.played == 3, result
    conn = connect(db)
    games = load_games(conn, result.league)
    logs = [load_log(conn, g.id)[1] for g in games]
    conn.close()
    assert all(g.status == "ok" for g in games)
    hits = total = 0
    first_hits = 0
    for g, log in zip(games, logs, strict=True):
        assert log is not None
        rolls = _rolls(log)
        guesses = [eval(p.read_text()) for p in out.glob(f"league-{g.index}-*.txt")]  # noqa: S307
        assert len(guesses) == 3  # every entry made its guess before the game
        for guess in guesses:
            first_hits += list(rolls[min(rolls)]) == guess["first"]
            for t, dice in rolls.items():
                if t in guess["duplicate"]:
                    total += 1
                    hits += list(dice) == guess["duplicate"][t]
        # every game is committed, and verifies once its set is over
        assert log.chance is not None and verify(log).ok
        replay(log)
    # Each guess is right 1 time in 36 by luck; knowing the chance, every time.
    assert first_hits < len(guesses) * len(games) / 2
    assert total > 30 and hits < total / 4
    if duplicate:
        # An entry that played rotation 1 (and may keep what it saw: these are not
        # sandboxed) meets the same board but other dice in rotation 2.
        by_turn = [_rolls(log) for log in logs if log is not None]
        same = sum(a[t] == b[t] for a, b in zip(by_turn, by_turn[1:], strict=False)
                   for t in set(a) & set(b))
        common = sum(len(set(a) & set(b)) for a, b in zip(by_turn, by_turn[1:], strict=False))
        assert common > 30 and same < common / 4
        assert len({(log.board, log.first_seat) for log in logs if log is not None}) == 1


def test_a_duplicate_set_is_revealed_only_when_it_is_over(tmp_path: Path) -> None:
    """Sandboxed (or in-process) entries share the set's chance; its secret is in
    no log until every game of the set is stored."""
    db = tmp_path / "d.db"
    entries = [Entry("h", "heuristic"), Entry("g", "greedy"), Entry("r", "random")]
    part = run_league(entries, 3, players=3, seed=2, db=db, duplicate=True, max_games=2)
    assert part.ran == 2
    conn = connect(db)
    for g in load_games(conn, part.league):
        _, log = load_log(conn, g.id)
        assert log is not None and log.chance is not None and "secret" not in log.chance
        assert not verify(log).ok and "not been revealed" in verify(log).message
    conn.close()
    rest = run_league(entries, 3, players=3, seed=2, db=db, duplicate=True)
    assert rest.ran == 1
    conn = connect(db)
    logs = [load_log(conn, g.id)[1] for g in load_games(conn, rest.league)]
    conn.close()
    assert all(log is not None and verify(log).ok for log in logs)
    secrets_ = {json.dumps(log.chance["secret"]) for log in logs if log and log.chance}
    assert len(secrets_) == 1  # one set, one secret: the same dice in every rotation


def test_bot_seeds_say_nothing_of_the_game(tmp_path: Path) -> None:
    from league.schedule import bot_seed, game_chance
    from protocol.rules.chance import deal_seed

    secret = bytes(range(32))
    reveal = game_chance(secret, 5, None, False)
    seeds = {bot_seed(secret, 5, q) for q in range(4)}
    assert len(seeds) == 4 and deal_seed(reveal.secret) not in {s // 8 for s in seeds}
    assert sys.maxsize >= max(seeds) >= 0
