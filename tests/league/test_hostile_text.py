"""Text from entries and files (a league database someone sent you) is
cleaned or escaped wherever the league prints or writes it: the terminal
(``kaitaku replay``, ``kaitaku league``), report.md and the HTML report; a
damaged log gives "cannot be read", never a traceback."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from kaitaku.cli import main
from league import Entry, run_league
from league.report import render

EVIL = ("<script>alert(1)</script>|![x](http://evil.example/x.png)"
        "\x1b[2J\x1b]0;pwned\x07\u202eevil\r\nforged line")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _league(tmp_path: Path) -> Path:
    db = tmp_path / "l.db"
    run_league([Entry("a", "random"), Entry("b", "greedy")], 2, players=2, seed=1, db=db,
               workers=1)
    return db


def _poison(db: Path) -> None:
    """What a hostile database holds: names, specs and errors with markup,
    terminal escapes, bidi overrides and line breaks."""
    with sqlite3.connect(db) as conn:
        entries = [{"name": EVIL, "spec": EVIL}, {"name": "b", "spec": "greedy"}]
        conn.execute("UPDATE leagues SET entries = ?", (json.dumps(entries),))
        for gid, seats in conn.execute("SELECT id, seats FROM games").fetchall():
            names = [EVIL if n == "a" else n for n in json.loads(seats)]
            conn.execute("UPDATE games SET seats = ?, status = 'failed', error = ? "
                         "WHERE id = ?", (json.dumps(names), EVIL, gid))


def test_a_hostile_database_is_escaped_in_both_reports(tmp_path: Path) -> None:
    db = _league(tmp_path)
    _poison(db)
    page, md = render(str(db), 1)
    for text in (page, md):
        assert not CONTROL.search(text.replace("\n", "")), "a control character got through"
    assert "<script" not in page and "&lt;script&gt;" in page
    # Markdown: no tag, no image, no link, no extra column
    assert not re.search(r"(?<!\\)[<>]", md) and not re.search(r"(?<!\\)!(?<!\\)\[", md)
    lines = md.splitlines()
    pipes = 0
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            continue
        if i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            pipes = len(re.findall(r"(?<!\\)\|", line))  # a table's header
        elif not line.startswith("|---"):
            assert len(re.findall(r"(?<!\\)\|", line)) == pipes, line


def test_a_hostile_database_is_clean_on_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _league(tmp_path)
    _poison(db)
    assert main(["replay", "--list", "--db", str(db)]) == 0
    assert main(["replay", "1", "--db", str(db)]) == 0
    out = capsys.readouterr()
    assert not CONTROL.search(out.out.replace("\n", "") + out.err.replace("\n", ""))
    assert "evil" in out.out and "forged line" in out.out
    assert not any(line.startswith("forged line") for line in out.out.splitlines())


@pytest.mark.parametrize("log", ["[" * 100_000 + "]" * 100_000,
                                 '{"settings": ' * 100_000 + "1" + "}" * 100_000,
                                 '{"steps": 5}', "not json", '"a string"'])
def test_a_damaged_log_cannot_be_read_never_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], log: str) -> None:
    db = _league(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET log = ? WHERE id = 1", (log,))
    assert main(["replay", "1", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "cannot be read" in err and "Traceback" not in err


@pytest.mark.parametrize("column", ["seats", "times", "vp"])
def test_damaged_columns_cannot_be_read_in_the_report_or_the_list(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str) -> None:
    db = _league(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE games SET {column} = ? WHERE id = 1",
                     ("[" * 100_000 + "]" * 100_000,))
    assert main(["replay", "1", "--db", str(db)]) == 2
    if column == "seats":
        assert main(["replay", "--list", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "cannot be read" in err and "Traceback" not in err
    from league.store import DamagedDatabase

    with pytest.raises(DamagedDatabase):
        render(str(db), 1)


def test_an_entrys_stderr_is_cleaned_before_it_is_stored_or_printed(tmp_path: Path) -> None:
    code = ("import sys; sys.stderr.write('\\x1b[2J\\x1b]0;pwned\\x07\\u202eevil\\r\\n"
            "forged'); sys.exit(3)")
    spec = f"cmd:{{python}} -c \"{code}\""
    result = run_league([Entry("a", "random"), Entry("x", spec)], 2, players=2, seed=1,
                        db=tmp_path / "x.db", workers=1, sandbox=False, timeout=60)
    assert result.standings.failed == 2
    with sqlite3.connect(tmp_path / "x.db") as conn:
        errors = [r[0] for r in conn.execute("SELECT error FROM games")]
    for e in errors:
        assert "evil" in e and "forged" in e, e
        assert not CONTROL.search(e), e
