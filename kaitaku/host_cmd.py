"""The host's commands: ``kaitaku admin ...``, ``kaitaku server backup`` and
the server's flags for metrics, the admin console and logs (docs/HOSTING.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

DEFAULT_METRICS_PORT = 9787


def host_port(text: str, default_host: str = "127.0.0.1") -> tuple[str, int]:
    """``HOST:PORT`` or ``PORT`` (then ``default_host``); ``[::1]:PORT`` too."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = default_host, text
    host = host.strip("[]") or default_host
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"no port {number}")
    return host, number


def add_server_flags(srv: argparse.ArgumentParser) -> None:
    g = srv.add_argument_group("hosting (docs/HOSTING.md)")
    g.add_argument("--log-format", default="text", choices=("text", "json"),
                   help="log lines as text (default) or one JSON object a line")
    g.add_argument("--metrics", nargs="?", const=("127.0.0.1", DEFAULT_METRICS_PORT),
                   default=None, type=host_port, metavar="[HOST:]PORT",
                   help="serve Prometheus metrics at http://HOST:PORT/metrics (default "
                        f"127.0.0.1:{DEFAULT_METRICS_PORT}; needs kaitaku[metrics])")
    g.add_argument("--admin-socket", default=None, metavar="PATH",
                   help="the admin console's unix socket (mode 0600; default "
                        "$XDG_RUNTIME_DIR/kaitaku/admin-PORT.sock; 'none': no console)")
    g.add_argument("--admin-listen", default=None, type=host_port, metavar="HOST:PORT",
                   help="also serve the admin console over TLS here (needs --tls-cert and "
                        "--admin-token-file)")
    g.add_argument("--admin-token-file", default=None, metavar="FILE",
                   help="the admin token (its first line, 16 characters or more) remote "
                        "admins must give")


def server_backup(argv: list[str]) -> int:
    """``kaitaku server backup --db FILE OUT``."""
    p = argparse.ArgumentParser(prog="kaitaku server backup",
                                description="Copy a server's database while it runs "
                                            "(SQLite's online backup); see docs/HOSTING.md "
                                            "for the restore.")
    p.add_argument("--db", default=None, metavar="FILE",
                   help="the server's database (default: the server's default)")
    p.add_argument("out", metavar="OUT", help="the backup file to write (must not exist)")
    args = p.parse_args(argv)
    from server.backup import backup
    from server.storage import StorageError, default_db_path

    try:
        counts = backup(args.db or default_db_path(), args.out)
    except StorageError as exc:
        print(f"kaitaku server backup: {exc}", file=sys.stderr)
        return 1
    print(f"backed up {args.db or default_db_path()} to {args.out}: {counts['tables']} "
          f"tables, {counts['actions']} actions, {counts['pages']} pages")
    return 0


def add_admin_parser(sub: Any) -> None:
    adm = sub.add_parser("admin", help="the admin console of a running server (tables, "
                         "kicks, bans, announcements, drain)",
                         description="Talk to a running kaitaku server: over its unix "
                         "socket (the server's user), or over TLS with a token.")
    adm.add_argument("--socket", default=None, metavar="PATH",
                     help="the server's admin socket (default: that of --port)")
    adm.add_argument("--port", type=int, default=7878,
                     help="the game port of the server whose default socket to use "
                          "(default 7878)")
    adm.add_argument("--connect", default=None, type=host_port, metavar="HOST:PORT",
                     help="a remote admin port (kaitaku server --admin-listen), over TLS")
    adm.add_argument("--token-file", default=None, metavar="FILE",
                     help="with --connect: the file holding the admin token")
    adm.add_argument("--tls-ca", default=None, metavar="FILE",
                     help="with --connect: the CA (or the server's own certificate) to "
                          "verify it with (default: the system's)")
    adm.add_argument("--json", action="store_true", help="print the answer as JSON")
    cmd = adm.add_subparsers(dest="command", required=True, metavar="COMMAND")
    cmd.add_parser("status", help="connections, tables, bots, bans, drain")
    cmd.add_parser("tables", help="list the tables")
    cmd.add_parser("connections", help="list the connections")
    c = cmd.add_parser("close-table", help="close a table now (its players are told why; "
                       "its game is kept in the database)")
    c.add_argument("table")
    c.add_argument("--reason", default="")
    k = cmd.add_parser("kick", help="close a connection (by session id or name)")
    k.add_argument("target")
    k.add_argument("--reason", default="")
    for name, what in (("ban", "ban an address (or network) or a name; kept in the server's "
                        "database"), ("unban", "lift a ban")):
        b = cmd.add_parser(name, help=what)
        who = b.add_mutually_exclusive_group(required=True)
        who.add_argument("--address", default=None, help="an IP address or a network "
                         "(203.0.113.7, 2001:db8::/48)")
        who.add_argument("--name", default=None, help="a player name")
        if name == "ban":
            b.add_argument("--reason", default="")
    cmd.add_parser("bans", help="list the bans")
    a = cmd.add_parser("announce", help="show a message in every client's window")
    a.add_argument("text")
    d = cmd.add_parser("drain", help="refuse new tables, let the running games finish (or "
                       "the deadline pass), then exit (0)")
    d.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                   help="stop then even if games still run (they resume at the next start)")
    d.add_argument("--message", default="",
                   help="announce this to every client first")
    adm.set_defaults(func=main_admin)


def main_admin(args: argparse.Namespace) -> int:
    from server.admin import default_socket, read_token, request

    command = args.command
    body: dict[str, Any] = {}
    if command == "close-table":
        body = {"table": args.table, "reason": args.reason}
    elif command == "kick":
        body = {"target": args.target, "reason": args.reason}
    elif command in ("ban", "unban"):
        body = {"kind": "address" if args.address is not None else "name",
                "value": args.address if args.address is not None else args.name}
        if command == "ban":
            body["reason"] = args.reason
    elif command == "announce":
        body = {"text": args.text}
    elif command == "drain":
        body = {"deadline": args.deadline, "message": args.message}
    token = tls = None
    if args.connect is not None:
        if args.token_file is None:
            print("kaitaku admin: --connect needs --token-file", file=sys.stderr)
            return 2
        from bots.tls import client_context

        try:
            token = read_token(args.token_file)
            tls = client_context(args.tls_ca)
        except (OSError, ValueError) as exc:
            print(f"kaitaku admin: {exc}", file=sys.stderr)
            return 2
    path = args.socket or str(default_socket(args.port))
    try:
        answer = asyncio.run(request(command, body, socket_path=path, connect=args.connect,
                                     token=token, tls=tls))
    except (OSError, ValueError) as exc:
        where = (f"{args.connect[0]}:{args.connect[1]}" if args.connect is not None
                 else path)
        print(f"kaitaku admin: cannot reach the server at {where}: {exc}", file=sys.stderr)
        return 2
    if not answer.get("ok"):
        print(f"kaitaku admin: {answer.get('error')}", file=sys.stderr)
        return 1
    result = answer.get("result")
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        _print(command, result)
    return 0


def _print(command: str, result: Any) -> None:
    """The answer for a person (text cleaned: names come from clients)."""
    from protocol.wire import clean_text

    def c(value: Any) -> str:
        return clean_text(str(value), 200) if value is not None else "-"

    if command == "tables":
        for t in result:
            seats = ", ".join(f"{c(s['name']) or '(empty)'}{'' if s['connected'] else '*'}"
                              for s in t["seats"])
            print(f"{c(t['id'])}  {c(t['status']):8} v{t['version']:<5} "
                  f"{c(t['name'])!s:20} [{seats}] spectators {t['spectators']}")
        print(f"{len(result)} tables (* not connected)")
    elif command == "connections":
        for s in result:
            print(f"{c(s['session'])}  {c(s['peer']):22} {c(s['role']):9} "
                  f"{c(s['protocol']):4} {c(s['name'])!s:20} table {c(s['table'])} "
                  f"seat {c(s['seat'])}")
        print(f"{len(result)} connections")
    elif command == "bans":
        for b in result:
            print(f"{c(b['kind']):7} {c(b['value']):40} {c(b['reason'])}")
        print(f"{len(result)} bans")
    elif isinstance(result, dict):
        for key, value in result.items():
            print(f"{key}: {c(value) if not isinstance(value, int | float) else value}")
    else:
        print(c(result))
