"""Sandboxed entries (league.sandbox): real processes, real namespaces where the
machine has them. Every mode this machine offers is tested (bubblewrap and
unshare as root); what a machine does not enforce is skipped with the reason."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import socket
import sys
import textwrap
import time
from pathlib import Path

import pytest

from league.sandbox import Isolation, Limits, Sandbox, probe

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def _modes() -> list[Isolation]:
    best = probe()
    modes = [best]
    if best.tool == "bubblewrap" and best.root:
        # The unshare path as well, as on a root machine without bubblewrap.
        modes.append(dataclasses.replace(best, tool="unshare", hidden_files=False, bwrap=None))
    return modes


MODES = _modes()
IDS = [m.tool or "limits-only" for m in MODES]


def _run(iso: Isolation, code: str, limits: Limits | None = None,
         timeout: float = 30.0, script: Path | None = None) -> tuple[str, Sandbox]:
    """Run ``code`` in a sandbox (from the file ``script`` if given); return what
    it wrote to its stdout (the connection) until it closed it, and the
    (stopped) sandbox."""
    async def main() -> tuple[str, Sandbox]:
        ours, theirs = socket.socketpair()
        box = Sandbox(limits, iso)
        if script is None:
            argv = [sys.executable, "-c", textwrap.dedent(code)]
        else:
            script.write_text(textwrap.dedent(code))
            argv = [sys.executable, str(script)]
        try:
            await box.start(argv, theirs.fileno())
            theirs.close()
            reader, writer = await asyncio.open_connection(sock=ours)
            data = await asyncio.wait_for(reader.read(1 << 20), timeout)
            chunks = [data]
            while data:
                data = await asyncio.wait_for(reader.read(1 << 20), timeout)
                chunks.append(data)
            writer.close()
            return b"".join(chunks).decode(errors="replace"), box
        finally:
            await box.stop()

    return asyncio.run(main())


def test_probe_says_plainly_what_is_enforced() -> None:
    lines = probe().lines()
    assert lines[0].startswith("sandbox for cmd: entries:")
    text = "\n".join(lines)
    for part in ("no network:", "no writes outside its directory:", "process count:",
                 "killed with its game:"):
        assert part in text


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError):
        Limits(memory_mb=-1)
    with pytest.raises(ValueError):
        Limits(processes=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("iso", MODES, ids=IDS)
def test_sandboxed_bot_cannot_open_a_tcp_connection(iso: Isolation) -> None:
    if not iso.network:
        pytest.skip("this machine cannot isolate the network: " + "; ".join(iso.notes))
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        out, _ = _run(iso, f"""
            import socket, sys
            for host in ("127.0.0.1", "1.1.1.1"):
                try:
                    socket.create_connection((host, {port} if host == "127.0.0.1" else 80), 2)
                    print("connected", host)
                except OSError as exc:
                    print("refused", host, type(exc).__name__)
            """)
    finally:
        listener.close()
    assert "connected" not in out
    assert out.count("refused") == 2


@pytest.mark.parametrize("iso", MODES, ids=IDS)
def test_sandboxed_bot_cannot_write_outside_its_directory(iso: Isolation,
                                                           tmp_path: Path) -> None:
    if not iso.filesystem:
        pytest.skip("this machine cannot isolate the file system: " + "; ".join(iso.notes))
    outside = tmp_path / "victim.txt"
    home = Path.home() / f".kaitaku-sandbox-test-{os.getpid()}"
    out, box = _run(iso, f"""
        import os
        for path in ({str(outside)!r}, {str(home)!r}, "/etc/kaitaku-test", "own.txt"):
            try:
                with open(path, "w") as f:
                    f.write("x")
                print("wrote", path)
            except OSError as exc:
                print("denied", path)
        print("cwd", os.getcwd())
        """)
    assert not outside.exists() and not home.exists()
    assert not Path("/etc/kaitaku-test").exists()
    assert "wrote own.txt" in out
    assert out.count("denied") == 3
    if iso.hidden_files:
        assert not Path(box.workdir).exists()  # removed at the end


@pytest.mark.parametrize("iso", MODES, ids=IDS)
def test_a_script_named_by_path_runs_but_its_neighbours_stay_hidden(
        iso: Isolation, tmp_path: Path) -> None:
    folder = tmp_path / "my bots"  # a space in the path as well
    folder.mkdir()
    (folder / "secret.txt").write_text("organiser's")
    out, _ = _run(iso, f"""
        import os
        print("ran")
        print("secret", os.path.exists({str(folder / "secret.txt")!r}))
        """, script=folder / "bot.py")
    assert "ran" in out
    if iso.hidden_files or (iso.filesystem and str(tmp_path).startswith("/tmp/")):
        assert "secret False" in out  # only the script itself was made visible
    else:
        assert "secret True" in out


@pytest.mark.parametrize("iso", MODES, ids=IDS)
def test_sandboxed_bot_cannot_fork_bomb(iso: Isolation) -> None:
    if iso.processes is None:
        pytest.skip("this machine cannot limit processes: " + "; ".join(iso.notes))
    out, _ = _run(iso, """
        import os, time
        kids = 0
        for _ in range(300):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(30)
                os._exit(0)
            kids += 1
        print("forked", kids)
        """, Limits(processes=20))
    forked = int(out.split("forked")[1].split()[0])
    assert forked < 20


@pytest.mark.parametrize("iso", MODES, ids=IDS)
def test_sandboxed_bot_does_not_outlive_its_game(iso: Isolation) -> None:
    async def main() -> int:
        ours, theirs = socket.socketpair()
        box = Sandbox(None, iso)
        code = textwrap.dedent("""
            import os, sys, time
            if os.fork() == 0:          # a daemon: new session, parent gone
                os.setsid()
                if os.fork() == 0:
                    sys.stdout.write(f"{os.getpid()}\\n")
                    sys.stdout.flush()
                    time.sleep(120)
                os._exit(0)
            time.sleep(120)
            """)
        await box.start([sys.executable, "-c", code], theirs.fileno())
        theirs.close()
        reader, writer = await asyncio.open_connection(sock=ours)
        line = await asyncio.wait_for(reader.readline(), 20)
        assert line.strip().isdigit()
        marker = _find_sleepers()
        assert marker, "the daemon is running before the game ends"
        await box.stop()
        writer.close()
        deadline = time.monotonic() + 5
        while _find_sleepers() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return len(_find_sleepers())

    assert asyncio.run(main()) == 0


def _find_sleepers() -> list[int]:
    """Processes running the test's daemon code (found on the host's /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"a daemon: new session" in cmd and b"unshare" not in cmd and b"bwrap" not in cmd:
            out.append(int(entry))
    return out


@pytest.mark.parametrize("iso", MODES, ids=IDS)
def test_sandboxed_bot_memory_is_limited(iso: Isolation) -> None:
    out, _ = _run(iso, """
        try:
            block = bytearray(1 << 30)
            print("allocated")
        except MemoryError:
            print("refused")
        """, Limits(memory_mb=512))
    assert "refused" in out and "allocated" not in out
