"""The client's state file: the seats it can reclaim after a restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from client.state_file import FILE_NAME, MAX_AGE, StateFile, state_dir


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_roundtrip_per_address(tmp_path: Path) -> None:
    f = StateFile(tmp_path / "client.json")
    assert f.get("127.0.0.1:7878") is None
    f.put("127.0.0.1:7878", "tok-a", "t1", 2)
    f.put("example.org:7000", "tok-b", "t9", 0)
    again = StateFile(tmp_path / "client.json")  # a new process reads what was written
    a = again.get("127.0.0.1:7878")
    assert a is not None and (a.token, a.table, a.seat) == ("tok-a", "t1", 2)
    b = again.get("example.org:7000")
    assert b is not None and (b.token, b.table, b.seat) == ("tok-b", "t9", 0)
    assert again.get("127.0.0.1:7879") is None  # another port: nothing
    again.drop("127.0.0.1:7878")
    assert f.get("127.0.0.1:7878") is None and f.get("example.org:7000") is not None
    f.clear()
    assert not (tmp_path / "client.json").exists() and f.get("example.org:7000") is None


def test_entries_expire(tmp_path: Path) -> None:
    clock = Clock()
    f = StateFile(tmp_path / "client.json", now=clock)
    f.put("h:1", "old", "t", 0)
    clock.t += MAX_AGE - 1
    f.put("h:2", "new", "t", 1)
    assert f.get("h:1") is not None
    clock.t += 2
    assert f.get("h:1") is None and f.get("h:2") is not None
    f.put("h:3", "x", "t", 1)  # a write leaves the expired entry out of the file
    data = json.loads((tmp_path / "client.json").read_text())
    assert set(data["seats"]) == {"h:2", "h:3"}


def test_at_most_max_entries_newest_kept(tmp_path: Path) -> None:
    clock = Clock()
    f = StateFile(tmp_path / "client.json", now=clock, max_entries=3)
    for i in range(5):
        clock.t += 1
        f.put(f"h:{i}", f"tok{i}", "t", 0)
    data = json.loads((tmp_path / "client.json").read_text())
    assert set(data["seats"]) == {"h:2", "h:3", "h:4"}


@pytest.mark.parametrize("content", [
    "not json {", "[]", '{"seats": 3}', '{"seats": {"h:1": "x"}}',
    '{"seats": {"h:1": {"token": 1, "table": "t", "seat": 0, "saved": 1}}}',
    '{"seats": {"h:1": {"token": "a", "table": "t", "seat": true, "saved": 1}}}',
])
def test_corrupt_file_is_ignored_and_replaced(tmp_path: Path, content: str) -> None:
    path = tmp_path / "client.json"
    path.write_text(content)
    f = StateFile(path)
    assert f.get("h:1") is None
    f.put("h:2", "tok", "t", 1)
    seat = StateFile(path).get("h:2")
    assert seat is not None and seat.token == "tok"


def test_atomic_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is replaced in one step; a failed write leaves the old file whole
    and no temporary file behind."""
    path = tmp_path / "sub" / "client.json"
    f = StateFile(path)
    f.put("h:1", "tok", "t", 0)  # creates the folder
    before = path.read_text()
    assert os.stat(path).st_mode & 0o077 == 0  # tokens are private
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        replaced.append((str(src), str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    f.put("h:2", "tok2", "t", 1)
    assert len(replaced) == 1 and replaced[0][1] == str(path)
    assert Path(replaced[0][0]).parent == path.parent

    def broken(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    f.put("h:3", "tok3", "t", 2)  # no exception: the file is a convenience
    assert path.read_text() != before and "h:3" not in path.read_text()
    assert sorted(p.name for p in path.parent.iterdir()) == ["client.json"]


def test_where_the_file_lives(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KAITAKU_STATE_DIR", str(tmp_path / "k"))
    assert StateFile().path == tmp_path / "k" / FILE_NAME
    monkeypatch.delenv("KAITAKU_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_dir() == tmp_path / "xdg" / "kaitaku"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir() == tmp_path / "home" / ".local" / "state" / "kaitaku"


def test_a_seat_written_by_a_running_window_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "client.json"
    f = StateFile(path)
    f.put("h:1", "tok", "t", 0)
    mine = f.get("h:1")
    assert mine is not None and mine.pid == os.getpid() and not mine.held_elsewhere()
    data = json.loads(path.read_text())
    data["seats"]["h:1"]["pid"] = os.getppid()  # another process that is alive
    path.write_text(json.dumps(data))
    other = f.get("h:1")
    assert other is not None and other.held_elsewhere() == (os.name == "posix")
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    data["seats"]["h:1"]["pid"] = int(proc.stdout)  # a window that has ended
    path.write_text(json.dumps(data))
    gone = f.get("h:1")
    assert gone is not None and not gone.held_elsewhere()
