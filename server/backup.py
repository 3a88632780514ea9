"""Backups of a server's database while it runs (``kaitaku server backup``).

SQLite's online backup API copies the database page by page from a
connection of its own. It is done in one step: in WAL mode that is a read
transaction, which sees one consistent state (every commit before it, none
after) and never blocks the server's writer; a backup in many small steps
would start over each time the server commits, and under load might never
end. The copy goes to ``OUT.partial``, is checked (``PRAGMA
integrity_check``), switched to the rollback journal (one self-contained
file) and renamed to ``OUT``: a failed backup never leaves a half-written
``OUT``. Restoring is copying the file back while the server is stopped
(docs/HOSTING.md).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .storage import StorageError


def backup(db: str | os.PathLike[str], out: str | os.PathLike[str]) -> dict[str, int]:
    """Copy the database ``db`` to ``out`` (not overwriting ``out``). Returns
    counts of the copy (``tables``, ``actions``, ``pages``). Raises
    StorageError with the reason."""
    src_path, out_path = Path(db), Path(out)
    if not src_path.is_file():
        raise StorageError(f"no database {db}")
    if out_path.exists():
        raise StorageError(f"{out} exists: give a new file")
    partial = out_path.with_name(out_path.name + ".partial")
    try:
        src = sqlite3.connect(str(src_path), timeout=30)
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open {db}: {exc}") from exc
    try:
        partial.unlink(missing_ok=True)
        dst = sqlite3.connect(str(partial))
        try:
            src.backup(dst, pages=-1)  # one step: one consistent state (see above)
            (check,) = dst.execute("PRAGMA integrity_check").fetchone()
            if check != "ok":
                raise StorageError(f"the copy does not check: {check}")
            dst.execute("PRAGMA journal_mode=DELETE")
            counts = {"tables": _count(dst, "tables"), "actions": _count(dst, "actions"),
                      "pages": int(dst.execute("PRAGMA page_count").fetchone()[0])}
        finally:
            dst.close()
        os.replace(partial, out_path)
    except sqlite3.Error as exc:
        raise StorageError(f"backup of {db} failed: {exc}") from exc
    except OSError as exc:
        raise StorageError(f"cannot write {out}: {exc}") from exc
    finally:
        src.close()
        partial.unlink(missing_ok=True)
    return counts


def _count(db: sqlite3.Connection, table: str) -> int:
    try:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    except sqlite3.Error:
        return 0  # not a Kaitaku database: the copy is still a copy
