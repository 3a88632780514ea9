"""Attacks on the league's sandbox, run by tests/league/test_sandbox.py.

Standard library only, and league/sandbox.py loaded from its file, so that
the same attacks run as root (in the test process) and as an unprivileged
user (``python3 sandbox_attacks.py`` under setpriv, with the system's
interpreter). Each attack starts a real program in a real sandbox, lets it
try an escape, looks at the host from outside, and returns what happened.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import json
import os
import socket
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
SANDBOX_FILE = HERE.parent.parent / "league" / "sandbox.py"


def load_sandbox() -> ModuleType:
    """league.sandbox, from its file (no other module of the project needed)."""
    if "league.sandbox" in sys.modules:
        return sys.modules["league.sandbox"]
    spec = importlib.util.spec_from_file_location("kaitaku_sandbox_under_test", SANDBOX_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


sb = load_sandbox()


def candidates(python: str) -> dict[str, Any]:
    """Every mode this machine might offer, measured (or why it cannot run)."""
    out: dict[str, Any] = {}
    for cand in sb._candidates():
        name = cand.tool or "limits"
        try:
            out[name] = dataclasses.asdict(sb.measure(cand, python=python))
        except Exception as exc:
            out[name] = f"{type(exc).__name__}: {exc}"
    return out


def isolation(d: dict[str, Any]) -> Any:
    d = dict(d)
    d["cgroups"] = tuple(tuple(c) for c in d["cgroups"])
    d["notes"] = tuple(d["notes"])
    return sb.Isolation(**d)


def run(iso: Any, python: str, code: str, args: list[str], limits: Any = None,
        during: Callable[[Any], Any] | None = None, timeout: float = 20.0
        ) -> tuple[dict[str, Any], Any, Any]:
    """Run ``code`` (it prints one JSON line, then waits for its connection to
    close) in a sandbox; ``during(box)`` looks at the host meanwhile. Returns
    (the program's JSON, what ``during`` returned, the stopped sandbox)."""
    async def main() -> tuple[dict[str, Any], Any, Any]:
        ours, theirs = socket.socketpair()
        box = sb.Sandbox(limits, iso)
        seen = None
        try:
            await box.start([python, "-c", textwrap.dedent(code), *args], theirs.fileno())
            theirs.close()
            reader, writer = await asyncio.open_connection(sock=ours)
            line = await asyncio.wait_for(reader.readline(), timeout)
            if during is not None:
                seen = during(box)
            writer.close()
            if not line:
                raise RuntimeError("the program said nothing: " + box.stderr_tail())
            return json.loads(line), seen, box
        finally:
            await box.stop(grace=0.2)

    return asyncio.run(main())


# --- the attacks ------------------------------------------------------------------------------

PRIVILEGE = r"""
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
target = sys.argv[1]
st = dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
caps = {k: int(st[k].split()[0], 16) for k in ("CapPrm", "CapEff", "CapAmb", "CapBnd")}
def writes(tag):
    # remount read-write, mount over it, then write
    libc.mount(None, target.encode(), None, ctypes.c_ulong(32 | 4096), None)
    libc.mount(None, target.encode(), None, ctypes.c_ulong(32), None)
    for name in ("x", "y"):
        try:
            with open(os.path.join(target, tag + name), "w") as f:
                f.write("pwned")
        except OSError:
            pass
writes("plain")
if os.fork() == 0:  # again as root of a user namespace of its own
    libc.unshare(0x10000000 | 0x00020000)
    writes("userns")
    os._exit(0)
os.wait()
setuid = []
for prog in ("/usr/bin/su", "/bin/su", "/usr/bin/passwd"):
    if os.path.exists(prog):
        setuid.append(os.stat(prog).st_mode & 0o4000 != 0)
print(json.dumps({"caps": caps, "nnp": st.get("NoNewPrivs", "0").strip() == "1",
                  "ns_uid": os.getuid()}), flush=True)
sys.stdin.read()
"""


def privilege(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 2: capabilities, host uid, remounts and writes to a read-only path."""
    target = tmp / "readonly"
    target.mkdir()
    os.chmod(target, 0o777)  # only the read-only bind can stop the writes
    (target / "f").write_text("organiser's")
    marker = f"privilege-attack-{os.getpid()}-{time.monotonic_ns()}"

    def host(box: Any) -> list[Any]:
        return [sb._host_view(p) for p in sb._processes_with(marker)]

    out, views, _ = run(iso, python, PRIVILEGE + f"# {marker}\n", [str(target)],
                        during=host)
    return {"inside": out, "host": views,
            "written": sorted(p.name for p in target.iterdir() if p.name != "f")}


SOCKETS = r"""
import json, socket, sys
a = json.loads(sys.argv[1]); reached = []
tries = [(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", a["tcp"])),
         (socket.AF_UNIX, socket.SOCK_STREAM, a["abstract"]),
         (socket.AF_UNIX, socket.SOCK_STREAM, a["path"]),
         (socket.AF_UNIX, socket.SOCK_DGRAM, a["dgram"])]
for fam, kind, addr in tries:
    try:
        s = socket.socket(fam, kind); s.settimeout(2)
        if kind == socket.SOCK_DGRAM:
            s.sendto(b"hello", addr)
        else:
            s.connect(addr)
        reached.append(repr(addr)); s.close()
    except OSError:
        pass
print(json.dumps({"reached": reached}), flush=True)
sys.stdin.read()
"""


def sockets(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 3: TCP to loopback, abstract, path and datagram unix sockets."""
    tag = f"kaitaku-attack-{os.getpid()}-{time.monotonic_ns()}"
    # Where daemons keep their sockets (/run), else the organiser's directory.
    open_dir = Path("/run") / tag if os.access("/run", os.W_OK) else tmp / "sockets"
    open_dir.mkdir()
    os.chmod(open_dir, 0o777)
    tcp = socket.create_server(("127.0.0.1", 0))
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(b"\0" + tag.encode())
    path = socket.socket(socket.AF_UNIX)
    path.bind(str(open_dir / "s"))
    dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dgram.bind(str(open_dir / "d"))
    for f in ("s", "d"):
        os.chmod(open_dir / f, 0o777)
    for s in (tcp, abstract, path):
        s.listen(4)
    for s in (tcp, abstract, path, dgram):
        s.setblocking(False)
    args = {"tcp": tcp.getsockname()[1], "abstract": "\0" + tag, "path": str(open_dir / "s"),
            "dgram": str(open_dir / "d")}
    try:
        out, _, _ = run(iso, python, SOCKETS, [json.dumps(args)])
        got = 0
        for s in (tcp, abstract, path):
            try:
                s.accept()[0].close()
                got += 1
            except BlockingIOError:
                pass
        try:
            dgram.recv(16)
            got += 1
        except BlockingIOError:
            pass
    finally:
        for s in (tcp, abstract, path, dgram):
            s.close()
        for f in ("s", "d"):
            (open_dir / f).unlink(missing_ok=True)
        open_dir.rmdir()
    return {"inside": out["reached"], "host_accepted": got}


FORK_BOMB = r"""
import json, os, signal, sys, threading
kids = 0
for _ in range(int(sys.argv[1]) * 3):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        signal.pause()
        os._exit(0)
    kids += 1
print(json.dumps({"forked": kids}), flush=True)
sys.stdin.read()
"""


def processes(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 4: a fork bomb against a process limit of 12 for the whole entry."""
    limit = 12
    out, _, _ = run(iso, python, FORK_BOMB, [str(limit)],
                    sb.Limits(processes=limit, memory_mb=512))
    return {"forked": out["forked"], "limit": limit}


MEMORY = r"""
import json, os, select, signal, sys
n, mb = 3, int(sys.argv[1])
r, w = os.pipe(); kids = []
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        block = b"m" * (mb << 20)
        os.write(w, b"1")
        signal.pause()
        os._exit(0)
    kids.append(pid)
os.close(w)
got, alive = 0, set(kids)
while got + n - len(alive) < n:
    if select.select([r], [], [], 0.05)[0]:
        got += len(os.read(r, 8))
    for k in list(alive):
        if os.waitpid(k, os.WNOHANG)[0]:
            alive.discard(k)
held = [k for k in kids if k in alive and os.waitpid(k, os.WNOHANG)[0] == 0]
print(json.dumps({"held": len(held)}), flush=True)
sys.stdin.read()
"""


def memory(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 4: three processes each hold 45% of the entry's memory limit."""
    limit = 200
    out, note, _ = run(iso, python, MEMORY, [str(limit * 45 // 100)],
                       sb.Limits(memory_mb=limit), during=lambda box: box.stderr_tail())
    return {"held": out["held"], "of": 3, "note": note}


CPU = r"""
import json, os, sys, time
kids = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        t = time.process_time()
        while time.process_time() - t < 0.5:
            pass
        os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
print(json.dumps({"done": True}), flush=True)
sys.stdin.read()
"""


def cpu(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 4: three processes burn 0.5 s of CPU each against 1 s for the entry."""
    try:
        out, _, box = run(iso, python, CPU, [], sb.Limits(cpu_seconds=1))
    except RuntimeError as exc:
        return {"finished": False, "why": str(exc)}
    return {"finished": out["done"], "why": box.ended}


STORAGE = r"""
import json, os, sys
cap, tag = int(sys.argv[1]), sys.argv[2]
mb, stored = b"s" * (1 << 20), 0
for n, d in enumerate((".", "/tmp", "/dev/shm", "/dev", os.environ.get("HOME", "."))):
    for i in range(cap):
        if stored >= cap:
            break
        try:
            with open(os.path.join(d, "%s-%d-%d" % (tag, n, i)), "wb") as f:
                f.write(mb)
            stored += 1
        except OSError:
            break
print(json.dumps({"stored_mb": stored}), flush=True)
sys.stdin.read()
"""


def storage(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 4: write 1 MB files everywhere it can, up to three times its file limit."""
    limits = sb.Limits(file_mb=4)
    tag = f"kaitaku-attack-{os.getpid()}-{time.monotonic_ns()}"
    try:
        out, _, _ = run(iso, python, STORAGE, [str(3 * 4), tag], limits)
    finally:
        for d in ("/tmp", "/dev/shm", "/dev"):
            for name in os.listdir(d):
                if name.startswith(tag):
                    os.unlink(os.path.join(d, name))
    return {"stored_mb": out["stored_mb"], "file_mb": 4}


DAEMON = r"""
import json, os, signal, sys, time
league = int(sys.argv[1])
try:
    os.kill(league, 0)
    can_signal = True
except OSError:
    can_signal = False
r, w = os.pipe()
if os.fork() == 0:          # a daemon: new session, parent gone
    os.setsid()
    if os.fork() == 0:
        os.write(w, b"1")
        signal.pause()
    os._exit(0)
os.read(r, 1)
print(json.dumps({"can_signal": can_signal}), flush=True)
sys.stdin.read()
"""


def daemon(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 5: a daemon in a new session outlives its game? It signals the league?"""
    marker = f"daemon-attack-{os.getpid()}-{time.monotonic_ns()}"

    def host(box: Any) -> int:
        return len(sb._processes_with(marker))

    out, before, _ = run(iso, python, DAEMON + f"# {marker}\n", [str(os.getpid())],
                         during=host)
    deadline = time.monotonic() + 3
    while sb._processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = sb._processes_with(marker)
    for pid in left:  # what a mode that does not kill it left behind
        with __import__("contextlib").suppress(OSError):
            os.kill(pid, 9)
    return {"before": before, "left": len(left), "can_signal": out["can_signal"]}


FILES = r"""
import json, os, sys
paths = json.loads(sys.argv[1])
seen = [p for p in paths if os.path.lexists(p)]
imported = None
try:
    import league.sandbox, kaitaku
    imported = league.sandbox.__file__
except Exception as exc:
    imported = "failed: %r" % (exc,)
print(json.dumps({"seen": seen, "imported": imported}), flush=True)
sys.stdin.read()
"""


def files(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 6: the organiser's working tree (``.git``, databases, other
    entries), the league's working directory, the project itself."""
    (tmp / "league.db").write_text("organiser's")
    (tmp / "other_entry.py").write_text("someone else's bot")
    project = SANDBOX_FILE.parent.parent
    paths = [str(tmp / "league.db"), str(tmp / "other_entry.py"),
             *(str(project / n) for n in (".git", "pyproject.toml", "tests", "docs"))]
    cwd = os.getcwd()
    os.chdir(tmp)  # the league runs from the organiser's directory
    try:
        out, _, _ = run(iso, python, FILES, [json.dumps(paths)])
    finally:
        os.chdir(cwd)
    return {"seen": out["seen"], "imported": out["imported"],
            "checked": [p for p in paths if os.path.lexists(p)]}


SCRIPT = r"""
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
print(json.dumps({"ran": True, "neighbour": os.path.exists(os.path.join(here, "secret.txt")),
                  "folder": sorted(os.listdir(here))}), flush=True)
sys.stdin.read()
"""


def script(iso: Any, python: str, tmp: Path) -> dict[str, Any]:
    """Item 6: a script named by its path runs; the files next to it (another
    entry's, the organiser's) stay out of sight."""
    folder = tmp / "my bots"  # a space in the path as well
    folder.mkdir()
    os.chmod(folder, 0o755)
    (folder / "secret.txt").write_text("organiser's")
    bot = folder / "bot.py"
    bot.write_text(SCRIPT)
    os.chmod(bot, 0o644)

    async def main() -> dict[str, Any]:
        ours, theirs = socket.socketpair()
        box = sb.Sandbox(None, iso)
        try:
            await box.start([python, str(bot)], theirs.fileno())
            theirs.close()
            reader, writer = await asyncio.open_connection(sock=ours)
            line = await asyncio.wait_for(reader.readline(), 20)
            writer.close()
            if not line:
                raise RuntimeError("the script said nothing: " + box.stderr_tail())
            result: dict[str, Any] = json.loads(line)
            return result
        finally:
            await box.stop(grace=0.2)

    return asyncio.run(main())


ATTACKS: dict[str, Callable[[Any, str, Path], dict[str, Any]]] = {
    "privilege": privilege, "sockets": sockets, "processes": processes, "memory": memory,
    "cpu": cpu, "storage": storage, "daemon": daemon, "files": files, "script": script}


def orphan(iso: Any, python: str, marker: str) -> None:
    """Be a league whose entry started a daemon: say "ready" once it runs, then
    wait to be killed (the test kills this process with SIGKILL)."""
    async def league() -> None:
        ours, theirs = socket.socketpair()
        box = sb.Sandbox(None, iso)
        await box.start([python, "-c", DAEMON + f"# {marker}\n", "1"], theirs.fileno())
        theirs.close()
        reader, _ = await asyncio.open_connection(sock=ours)
        await reader.readline()
        print("ready", box.workdir, box.stderr_path, flush=True)
        await asyncio.sleep(600)

    asyncio.run(league())


def main() -> None:
    """``candidates PYTHON`` or ``attack NAME ISOLATION-JSON PYTHON TMPDIR``: one
    JSON object on standard output; ``orphan ISOLATION-JSON PYTHON MARKER``: a
    league to be killed."""
    if sys.argv[1] == "candidates":
        print(json.dumps(candidates(sys.argv[2])))
    elif sys.argv[1] == "orphan":
        orphan(isolation(json.loads(sys.argv[2])), sys.argv[3], sys.argv[4])
    else:
        name, iso, python, tmp = sys.argv[2:6]
        print(json.dumps(ATTACKS[name](isolation(json.loads(iso)), python, Path(tmp))))


if __name__ == "__main__":
    main()
