"""docs/protocol/transcripts/ is what the server sends today.

The transcripts are regenerated from their seeded scenarios (the real server
and clients over loopback TCP) and compared with the files, times ignored;
every recorded frame is a valid message for its direction; ``--check`` finds
a stale file.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from protocol.wire import CLIENT, SERVER, validate

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "docs" / "protocol" / "transcripts"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("transcripts_script",
                                                  ROOT / "docs" / "protocol" / "transcripts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


T = _script()
FILES = sorted(DIR.glob("*.jsonl"))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines()]


async def test_the_transcripts_are_what_the_server_sends_now() -> None:
    transcripts = await T.generate(list(T.SCENARIOS))
    names = sorted(f"{t.name}.jsonl" for t in transcripts)
    assert names == [p.name for p in FILES], "run python docs/protocol/transcripts.py"
    for t in transcripts:
        fresh = T.comparable(T.dumps(T.render(t)))
        stored = T.comparable((DIR / f"{t.name}.jsonl").read_text(encoding="utf-8"))
        for i, (a, b) in enumerate(zip(fresh, stored, strict=False)):
            assert a == b, (f"{t.name}.jsonl line {i + 1} is stale "
                            "(run python docs/protocol/transcripts.py)")
        assert len(fresh) == len(stored), f"{t.name}.jsonl is stale"
    assert T.readme(transcripts) == (DIR / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_frame_is_a_valid_message(path: Path) -> None:
    lines = _lines(path)
    header = lines[0]
    assert header["transcript"] == path.stem and header["comment"]
    frames = [line for line in lines if "frame" in line]
    assert len(frames) + sum(c.get("left_out", 0) for c in lines if "comment" in c) \
        == header["frames"]
    conns = set()
    for line in lines[1:]:
        if "comment" in line:
            assert set(line) <= {"comment", "left_out"}, line
            continue
        assert set(line) <= {"conn", "t", "dir", "frame", "note"}, line
        assert line["dir"] in ("send", "recv")
        assert isinstance(line["t"], int | float) and line["t"] >= 0
        validate(line["frame"], CLIENT if line["dir"] == "send" else SERVER)
        conns.add(line["conn"])
    assert conns == set(range(1, header["connections"] + 1))
    first = frames[0]
    assert first["dir"] == "send" and first["frame"]["type"] == "hello"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_no_random_id_is_left_in_a_transcript(path: Path) -> None:
    for line in _lines(path):
        frame = line.get("frame") or {}
        if frame.get("type") == "welcome":
            assert re.fullmatch(r"<session-\d+>", frame["session"])
            assert re.fullmatch(r"<token-\d+>", frame["resume_token"])
        if frame.get("type") in ("joined", "table", "game_started", "spectate", "join"):
            assert re.fullmatch(r"<table-\d+>", frame["table"])
        if "resume" in frame:
            assert re.fullmatch(r"<token-\d+>", frame["resume"])


def test_the_readme_lists_every_transcript() -> None:
    text = (DIR / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\]\(([\w-]+\.jsonl)\)", text))
    assert listed == {p.name for p in FILES}


def test_check_finds_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    for p in DIR.glob("*resume*.jsonl"):
        shutil.copy(p, tmp_path / p.name)
    shutil.copy(DIR / "spectate-finished.jsonl", tmp_path / "spectate-finished.jsonl")
    monkeypatch.setattr(T, "OUT", tmp_path)
    assert T.main(["--check", "--only", "finished"]) == 0
    path = tmp_path / "finished-resume.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    edited = [json.loads(raw) for raw in lines]
    last = max(i for i, line in enumerate(edited) if "frame" in line)
    edited[last]["t"] = 99.0  # a time alone is not a change
    path.write_text("".join(json.dumps(x) + "\n" for x in edited), encoding="utf-8")
    assert T.main(["--check", "--only", "finished"]) == 0
    edited[last]["frame"]["seat_extra"] = 1  # a field is
    path.write_text("".join(json.dumps(x) + "\n" for x in edited), encoding="utf-8")
    assert T.main(["--check", "--only", "finished"]) == 1
    assert "finished-resume.jsonl" in capsys.readouterr().err


def test_the_transcripts_are_worked_examples_of_committed_chance() -> None:
    """PROTOCOL.md 7.14: every transcript's game is committed at game_started and
    revealed at game_over, and every roll a connection saw (up to the first
    elided stretch) follows from the reveal (the bot-4p transcript: a whole
    game)."""
    from protocol.rules import Board, Settings
    from protocol.rules.chance import Reveal, check_seen, rolls_seen
    from protocol.rules.events import event_from_dict

    checked = {}
    for path in FILES:
        recv = [line["frame"] for line in _lines(path) if line.get("dir") == "recv"]
        started = [f for f in recv if f["type"] == "game_started"]
        over = [f for f in recv if f["type"] == "game_over"]
        if not started or not over:
            continue
        assert len({f["chance"]["commitment"] for f in started}) == 1
        reveal = Reveal.from_dict(over[-1]["chance"])
        views = [f["view"] for f in recv if f["type"] == "view"]
        # the rolls before the first elided stretch (a turn's count of rolls
        # needs every event of it)
        whole: list[dict[str, Any]] = []
        for line in _lines(path):
            if "left_out" in line:
                break
            if line.get("dir") == "recv":
                whole.append(line["frame"])
        events = [event_from_dict(e) for f in whole if f["type"] == "events"
                  for e in f["events"]]
        rolls = rolls_seen([e for e in events if e is not None])
        verdict = check_seen(reveal, started[0]["chance"]["commitment"],
                             Settings.from_dict(views[0]["settings"]),
                             Board.from_dict(views[0]["board"]), None, rolls)
        assert verdict.ok, (path.name, verdict.message)
        checked[path.stem] = len(rolls)
    assert checked.get("bot-4p", 0) > 50, checked
