"""A table's chat lines are kept with it in the database (the last CHAT_KEPT), so
that a restarted server gives them back; rows that do not check are left out."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from protocol.rules import Settings
from server.storage import CHAT_KEPT, Storage
from server.table import Table


def test_the_last_chat_lines_are_kept_and_checked(tmp_path: Path) -> None:
    db = tmp_path / "kaitaku.db"
    st = Storage(db)
    table: Table[object] = Table("t1", "table", Settings(players=3), "me", 0.0, 7)
    st.save_table(table)
    for n in range(1, CHAT_KEPT + 11):
        st.save_chat("t1", n, n % 3, f"p{n % 3}", f"line {n}")
    st.commit()
    st.close()
    with sqlite3.connect(db) as conn:
        kept = [n for (n,) in conn.execute("SELECT n FROM chat ORDER BY n")]
    assert kept == list(range(11, CHAT_KEPT + 11))  # the older ones were deleted
    with sqlite3.connect(db) as conn:  # hostile rows: a seat that is not at the table,
        conn.execute("INSERT INTO chat VALUES ('t1', 500, 7, 'x', 'bad seat')")  # no text
        conn.execute("INSERT INTO chat VALUES ('t1', 501, NULL, 'spectator', ?)", ("\x01\x02",))
        conn.execute("INSERT INTO chat VALUES ('t1', 502, NULL, 'watcher', 'from a spectator')")
    st = Storage(db)
    try:
        (restored,) = st.unfinished()
    finally:
        st.close()
    texts = [text for _, _, _, text in restored.chat]
    assert texts[-1] == "from a spectator" and "bad seat" not in texts
    assert texts[-2] == f"line {CHAT_KEPT + 10}"
    assert len(restored.chat) == CHAT_KEPT - 2  # the newest rows, less the two refused
    assert restored.chat[-2][1:3] == ((CHAT_KEPT + 10) % 3, f"p{(CHAT_KEPT + 10) % 3}")
