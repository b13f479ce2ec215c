"""The table's journal: every entry the table accepted, in SQLite, so a pulled plug loses nothing.

One row per entry (a word, a reading, a correction, a confirmed hand with its
``mus-hand/1`` record and answer, an undo, a new partida), written in its own
transaction with ``journal_mode=WAL`` and ``synchronous=FULL``: once
:meth:`Journal.append` returns, the entry survives a power cut, and a kill in
the middle of a write leaves no half-written entry. Nothing is ever updated or
deleted: an undo or a correction is an entry of its own. The table's state is
what replaying the entries gives (:class:`firmware.table_loop.TableLoop` does
that on start).

>>> j = Journal(":memory:")
>>> j.append(1, 1, "new_partida", {"kind": "new_partida", "mano": 0})
>>> [(seq, kind) for seq, _, kind, _, _ in j.entries()]
[(1, 'new_partida')]
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware.events import now_iso
from table.entries import journaled_names, partida_hands, partida_starts
from table.errors import InvalidInput
from table.match import Partida
from table.people import pair
from table.record import HandRecord
from table.rules import Rules
from table.tanteo import score

SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    seq     INTEGER PRIMARY KEY,
    partida INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    at      TEXT NOT NULL,
    body    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_partida ON entries (partida);
CREATE TABLE IF NOT EXISTS marks (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
"""
EVENTS_MARK = "events"
"""The mark of event numbers: none up to it may be handed out again after a restart."""

Entry = tuple[int, int, str, str, dict[str, Any]]
"""``(seq, partida, kind, at, body)``."""


class JournalError(OSError):
    """The journal could not be written (a full or failing disk); the entry was not kept."""


class JournalUnreadable(InvalidInput):
    """A file that is not a table's journal, or a partida it does not hold."""


@dataclass(frozen=True)
class PartidaSummary:
    """One partida of a journal, as ``mus-table journal list`` prints it."""

    id: int
    hands: int
    juegos: tuple[int, int]
    """Juegos won by each pair in the whole partida."""
    vacas: tuple[int, int]
    score: tuple[int, int]
    winner: int | None
    started: str
    format: dict[str, int]
    names: tuple[str, ...] = ()
    """The players' names by seat, where «Nueva partida» gave them (the result says the pair by them)."""
    in_play: bool = False
    """The partida in play at the journal's last entry (the newest, or one re-opened)."""

    @property
    def result(self) -> str:
        return (f"ganada por {pair(self.winner, self.names)}" if self.winner is not None
                else f"sin terminar ({self.score[0]}-{self.score[1]})")

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "hands": self.hands, "juegos": list(self.juegos), "vacas": list(self.vacas),
                "score": list(self.score), "winner": self.winner, "result": self.result,
                "started": self.started, "format": self.format, "in_play": self.in_play}


class Journal:
    """An append-only SQLite journal at ``path`` (``":memory:"`` for tests)."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = str(path)
        if not create and self.path != ":memory:" and not Path(self.path).is_file():
            raise JournalUnreadable(f"no journal at {self.path}", code="journal_none", params={"path": str(self.path)})
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            if create:
                self._db.executescript(SCHEMA)
            else:
                self._db.execute("SELECT seq, partida, kind, at, body FROM entries LIMIT 1")
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                raise JournalUnreadable(f"{self.path} is not a table journal: {exc}", code="journal_not",
                                        params={"path": str(self.path)}) from None
            raise JournalUnreadable(f"cannot open the journal {self.path}: {exc}", code="journal_cannot_open",
                                    params={"path": str(self.path), "detail": str(exc)}) from None
        except sqlite3.DatabaseError as exc:
            raise JournalUnreadable(f"{self.path} is not a table journal: {exc}", code="journal_not",
                                    params={"path": str(self.path)}) from None
        self._lock = threading.Lock()

    def append(self, seq: int, partida: int, kind: str, body: dict[str, Any]) -> None:
        """Write one entry durably (one transaction); :class:`JournalError` if it could not be."""
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("INSERT INTO entries (seq, partida, kind, at, body) VALUES (?, ?, ?, ?, ?)",
                                 (seq, partida, kind, now_iso(), text))
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                try:
                    self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise JournalError(f"journal not written: {exc}") from None

    def entries(self, partida: int | None = None) -> list[Entry]:
        """Every entry in order (of one partida when given)."""
        with self._lock:
            if partida is None:
                rows = self._db.execute("SELECT seq, partida, kind, at, body FROM entries ORDER BY seq")
            else:
                rows = self._db.execute("SELECT seq, partida, kind, at, body FROM entries WHERE partida = ? "
                                        "ORDER BY seq", (partida,))
            return [(seq, p, kind, at, json.loads(body)) for seq, p, kind, at, body in rows.fetchall()]

    def entries_after(self, seq: int, limit: int = 500) -> tuple[int, list[Entry]]:
        """Up to ``limit`` entries numbered after ``seq``, in order, and the number of the entry
        before the first of them (0 when none): what the MQTT link sends a hub that asks for
        what it missed (``docs/events.md``), each entry chained to the one before it."""
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM entries WHERE seq <= ?", (seq,)).fetchone()
            rows = self._db.execute("SELECT seq, partida, kind, at, body FROM entries WHERE seq > ? "
                                    "ORDER BY seq LIMIT ?", (seq, limit)).fetchall()
        return int(row[0] or 0), [(s, p, kind, at, json.loads(body)) for s, p, kind, at, body in rows]

    def reserve(self, seq: int) -> None:
        """Keep ``seq`` as the highest event number the table may have used (not an entry: events
        that are no entry, a fault or «reading», are numbered too, and a restart numbers after
        this mark). :class:`JournalError` if it could not be written."""
        with self._lock:
            try:
                self._db.execute("INSERT INTO marks (name, value) VALUES (?, ?) ON CONFLICT (name) "
                                 "DO UPDATE SET value = excluded.value", (EVENTS_MARK, seq))
            except sqlite3.Error as exc:
                raise JournalError(f"journal mark not written: {exc}") from None

    def reserved(self) -> int:
        """The event numbers' mark (0 when none was kept)."""
        with self._lock:
            try:
                row = self._db.execute("SELECT value FROM marks WHERE name = ?", (EVENTS_MARK,)).fetchone()
            except sqlite3.OperationalError:  # a journal from before marks, opened read-only
                return 0
            return int(row[0]) if row else 0

    def in_play(self) -> int:
        """The partida in play: that of the last entry (every entry carries the partida in play
        after it, a new one or one re-opened); 0 for an empty journal."""
        with self._lock:
            row = self._db.execute("SELECT partida FROM entries ORDER BY seq DESC LIMIT 1").fetchone()
            return int(row[0]) if row else 0

    def last_seq(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM entries").fetchone()
            return int(row[0] or 0)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---------------------------------------------------------------------------- reading back

    def hands(self, partida: int) -> list[tuple[HandRecord, dict[str, Any]]]:
        """The confirmed hands of a partida that count (undone ones left out), in order:
        each record and the answer kept with it."""
        return [(HandRecord.from_json(record), answer)
                for record, answer in partida_hands(self.entries(partida), partida)]

    def partidas(self) -> list[PartidaSummary]:
        """Every partida of the journal, in order."""
        entries = self.entries()
        starts = partida_starts(entries)
        in_play = entries[-1][1] if entries else 0
        out = []
        for p, (at, body) in sorted(starts.items()):
            partida = Partida(Rules.from_json(body.get("rules")), int(body.get("mano", 0)),
                              int(body.get("juegos", 3)), int(body.get("vacas", 1)))
            juegos = [0, 0]
            hands = self.hands(p)
            for record, _ in hands:
                answer = score(record)
                if answer.winner is not None:
                    juegos[answer.winner] += 1
                if not partida.over:
                    partida.apply(answer)
            out.append(PartidaSummary(p, len(hands), (juegos[0], juegos[1]),
                                      (partida.won_vacas[0], partida.won_vacas[1]),
                                      (partida.score[0], partida.score[1]), partida.winner, at,
                                      {"juegos": partida.juegos, "vacas": partida.vacas},
                                      journaled_names(body), p == in_play))
        return out

    def export(self, partida: int | None = None) -> list[dict[str, Any]]:
        """The ``mus-hand/1`` records of a partida (None: the one in play, that of the last entry:
        a partida re-opened is in play again), as ``mus-table replay`` reads them."""
        ids = [s.id for s in self.partidas()]
        if not ids:
            raise JournalUnreadable(f"{self.path} holds no partida", code="journal_empty", params={"path": str(self.path)})
        if partida is None:
            partida = self.in_play()
        if partida not in ids:
            raise JournalUnreadable(f"{self.path} has no partida {partida} (partidas: "
                                    f"{', '.join(str(i) for i in ids)})", code="journal_no_partida",
                                    params={"path": str(self.path), "partida": partida,
                                            "ids": ", ".join(str(i) for i in ids)})
        return [record.to_json() for record, _ in self.hands(partida)]
