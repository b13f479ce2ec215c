"""The hub's store: what it followed of every table, and what the juez and the tournament decided.

One data layer (SQLAlchemy Core) over two databases: SQLite (one file, WAL) by
default, PostgreSQL when several hub processes share one tournament
(``postgresql+psycopg://user@host/db``). Every row a table sent is kept under
the table's name and its own number, and written once (a message sent again
is ignored): the table's events (each with its whole state), its journal
entries (chained by ``prev``), its latest state and status. Beside them, rows
of the hub's own: the juez's rulings and answers to calls, the tournament's
pairs and matches, and settings. Nothing a table journaled is ever edited
here: a ruling is a row of its own.

>>> store = Store("sqlite://")
>>> store.add_entry("mesa-1", 3, 0, 1, "new_partida", "t", {"mano": 0})
True
>>> store.add_entry("mesa-1", 3, 0, 1, "new_partida", "t", {"mano": 0})
False
>>> store.last_entry("mesa-1")
3
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    func,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool

from table.entries import Entry, partida_hands, partida_starts
from table.errors import InvalidInput

metadata = MetaData()

tables_t = Table(
    "hub_tables", metadata,
    Column("name", String(100), primary_key=True),
    Column("status", String(16), nullable=False, default="unknown"),
    Column("seq", BigInteger, nullable=False, default=0),
    Column("state", Text, nullable=True),
    Column("seen", String(40), nullable=True),
)
events_t = Table(
    "hub_events", metadata,
    Column("table_name", String(100), primary_key=True),
    Column("seq", BigInteger, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("at", String(40), nullable=False),
    Column("state", Text, nullable=False),
)
entries_t = Table(
    "hub_entries", metadata,
    Column("table_name", String(100), primary_key=True),
    Column("seq", BigInteger, primary_key=True),
    Column("prev", BigInteger, nullable=False),
    Column("partida", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("at", String(40), nullable=False),
    Column("body", Text, nullable=False),
)
rulings_t = Table(
    "hub_rulings", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_name", String(100), nullable=False, index=True),
    Column("partida", Integer, nullable=True),
    Column("kind", String(32), nullable=False),
    Column("pair", Integer, nullable=True),
    Column("text", Text, nullable=False, default=""),
    Column("juez", String(100), nullable=False, default=""),
    Column("at", String(40), nullable=False),
)
calls_t = Table(
    "hub_calls", metadata,
    Column("table_name", String(100), primary_key=True),
    Column("call_id", BigInteger, primary_key=True),
    Column("at", String(40), nullable=False),
    Column("answer", Text, nullable=True),
    Column("answered_at", String(40), nullable=True),
)
settings_t = Table(
    "hub_settings", metadata,
    Column("key", String(100), primary_key=True),
    Column("value", Text, nullable=False),
)
pairs_t = Table(
    "hub_pairs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("players", Text, nullable=False, default=""),
    Column("grp", String(40), nullable=False, default=""),
)
matches_t = Table(
    "hub_matches", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("round", Integer, nullable=False),
    Column("stage", String(40), nullable=False, default=""),
    Column("table_name", String(100), nullable=True),
    Column("pair_a", Integer, nullable=False),
    Column("pair_b", Integer, nullable=True),
    Column("partida", Integer, nullable=True),
    Column("juegos_a", Integer, nullable=False, default=0),
    Column("juegos_b", Integer, nullable=False, default=0),
    Column("winner", Integer, nullable=True),
    Column("confirmed", Boolean, nullable=False, default=False),
    Column("drawn_at", String(40), nullable=False, default=""),
    Column("fmt", String(20), nullable=False, default=""),
)


class StoreError(InvalidInput):
    """The hub's database could not be opened or written."""


@dataclass(frozen=True)
class TableRow:
    """What the hub holds of one table now."""

    name: str
    status: str
    seq: int
    state: dict[str, Any] | None
    seen: str | None


class Store:
    """The hub's data at ``url`` (``sqlite:///hub.db``, ``postgresql+psycopg://...``);
    ``schema`` keeps it apart from others in one PostgreSQL database."""

    def __init__(self, url: str, *, schema: str | None = None) -> None:
        self.url = url
        try:
            if url.startswith("sqlite"):
                memory = url in ("sqlite://", "sqlite:///:memory:")
                self.engine: Engine = create_engine(
                    url, connect_args={"check_same_thread": False},
                    poolclass=StaticPool if memory else None)
                event.listen(self.engine, "connect", _sqlite_pragmas)
            else:
                self.engine = create_engine(url, pool_pre_ping=True)
            if schema is not None:
                if not schema.replace("_", "").isalnum():
                    raise StoreError(f"not a schema name: {schema!r}")
                with self.engine.begin() as conn:
                    conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
                self.engine = self.engine.execution_options(schema_translate_map={None: schema})
            metadata.create_all(self.engine)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open the hub's database {_safe(url)}: {_first_line(exc)}") from None
        self.dialect = self.engine.dialect.name
        self._entries: dict[str, tuple[tuple[Any, ...], list[Entry]]] = {}
        self._lock = threading.Lock() if self.dialect == "sqlite" else None

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        try:
            if self._lock is not None:
                with self._lock, self.engine.begin() as conn:
                    yield conn
            else:
                with self.engine.begin() as conn:
                    yield conn
        except SQLAlchemyError as exc:
            raise StoreError(f"the hub's database: {_first_line(exc)}") from None

    def _insert(self, table: Table) -> Any:
        return (postgresql.insert(table) if self.dialect == "postgresql" else sqlite.insert(table))

    def _inserted(self, stmt: Any) -> bool:
        """Run an insert that does nothing on a conflict; whether it inserted (the row it returns:
        the drivers' row counts for such inserts differ)."""
        with self._tx() as conn:
            return conn.execute(stmt).first() is not None

    def close(self) -> None:
        self.engine.dispose()

    # ---------------------------------------------------------------------------- what tables send

    def add_event(self, table: str, seq: int, kind: str, at: str, state: dict[str, Any]) -> bool:
        """Keep one event of a table; False if it was already kept."""
        stmt = self._insert(events_t).values(table_name=table, seq=seq, kind=kind, at=at,
                                             state=_dump(state)).on_conflict_do_nothing()
        return self._inserted(stmt.returning(events_t.c.seq))

    def add_entry(self, table: str, seq: int, prev: int, partida: int, kind: str, at: str,
                  body: dict[str, Any]) -> bool:
        """Keep one journal entry of a table; False if it was already kept."""
        stmt = self._insert(entries_t).values(table_name=table, seq=seq, prev=prev, partida=partida, kind=kind,
                                              at=at, body=_dump(body)).on_conflict_do_nothing()
        return self._inserted(stmt.returning(entries_t.c.seq))

    def set_table(self, name: str, *, status: str | None = None, seq: int | None = None,
                  state: dict[str, Any] | None = None, seen: str | None = None) -> None:
        """Record a table's status, latest state (only if newer than the one kept) and when it was seen."""
        values: dict[str, Any] = {}
        if status is not None:
            values["status"] = status
        if seen is not None:
            values["seen"] = seen
        with self._tx() as conn:
            row = conn.execute(select(tables_t.c.seq).where(tables_t.c.name == name)).first()
            if state is not None and seq is not None and (row is None or seq >= row[0]):
                values["seq"], values["state"] = seq, _dump(state)
            if row is None:
                conn.execute(self._insert(tables_t).values(
                    name=name, status=values.get("status", "unknown"), seq=values.get("seq", 0),
                    state=values.get("state"), seen=values.get("seen")).on_conflict_do_nothing())
            elif values:
                conn.execute(update(tables_t).where(tables_t.c.name == name).values(**values))

    def tables(self) -> list[TableRow]:
        with self._tx() as conn:
            rows = conn.execute(select(tables_t).order_by(tables_t.c.name)).all()
        return [TableRow(r.name, r.status, int(r.seq), json.loads(r.state) if r.state else None, r.seen)
                for r in rows]

    def table(self, name: str) -> TableRow | None:
        return next((t for t in self.tables() if t.name == name), None)

    def last_entry(self, table: str) -> int:
        """The newest journal entry kept of a table whose chain back to the first is whole
        (the one to ask the table to send after)."""
        with self._tx() as conn:
            rows = conn.execute(select(entries_t.c.seq, entries_t.c.prev).where(entries_t.c.table_name == table)
                                .order_by(entries_t.c.seq)).all()
        last = 0
        for seq, prev in rows:
            if prev != last:
                break
            last = int(seq)
        return last

    def last_event(self, table: str) -> int:
        with self._tx() as conn:
            value = conn.execute(select(func.max(events_t.c.seq)).where(events_t.c.table_name == table)).scalar()
        return int(value or 0)

    def entries(self, table: str) -> list[Entry]:
        """A table's journal entries, in order (read again only when the table's entries changed:
        the pages replay them often)."""
        with self._tx() as conn:
            mark = conn.execute(select(func.count(), func.max(entries_t.c.seq))
                                .where(entries_t.c.table_name == table)).one()
            cached = self._entries.get(table)
            if cached is not None and cached[0] == tuple(mark):
                return list(cached[1])
            rows = conn.execute(select(entries_t).where(entries_t.c.table_name == table)
                                .order_by(entries_t.c.seq)).all()
        out = [(int(r.seq), int(r.partida), r.kind, r.at, json.loads(r.body)) for r in rows]
        self._entries[table] = (tuple(mark), out)
        return list(out)

    def events(self, table: str, since: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        """A table's events after ``since``, oldest first, as the table sent them."""
        with self._tx() as conn:
            rows = conn.execute(select(events_t).where(events_t.c.table_name == table, events_t.c.seq > since)
                                .order_by(events_t.c.seq).limit(limit)).all()
        return [{"seq": int(r.seq), "kind": r.kind, "at": r.at, "state": json.loads(r.state)} for r in rows]

    def event_before(self, table: str, at: str) -> int:
        """The number of a table's last event made at or before ``at`` (0: none)."""
        with self._tx() as conn:
            value = conn.execute(select(func.max(events_t.c.seq)).where(events_t.c.table_name == table,
                                                                        events_t.c.at <= at)).scalar()
        return int(value or 0)

    def event_kinds(self, table: str, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
        """A table's events of these kinds (the console's corrected and undone hands, partidas re-opened): ``seq``,
        ``kind``, ``at``, and the partida, hand number and cards of the state they carried."""
        with self._tx() as conn:
            rows = conn.execute(select(events_t.c.seq, events_t.c.kind, events_t.c.at, events_t.c.state)
                                .where(events_t.c.table_name == table, events_t.c.kind.in_(kinds))
                                .order_by(events_t.c.seq)).all()
        out = []
        for seq, kind, at, state in rows:
            s = json.loads(state)
            out.append({"seq": int(seq), "kind": kind, "at": at, "partida": (s.get("partida") or {}).get("id"),
                        "hand": s.get("hand_no"), "cards": s.get("cards")})
        return out

    def partidas(self, table: str) -> dict[int, tuple[str, dict[str, Any]]]:
        """Each partida the hub holds of a table: when it started, its rules and format."""
        return partida_starts(self.entries(table))

    def export(self, table: str, partida: int) -> list[dict[str, Any]]:
        """The partida's hands as ``mus-hand/1`` records: what ``mus-table journal export`` of the
        table's own journal prints."""
        return [record for record, _ in partida_hands(self.entries(table), partida)]

    # ---------------------------------------------------------------------------- the juez

    def add_ruling(self, table: str, kind: str, *, partida: int | None, pair: int | None, text: str,
                   juez: str, at: str) -> int:
        with self._tx() as conn:
            result = conn.execute(rulings_t.insert().values(table_name=table, partida=partida, kind=kind,
                                                            pair=pair, text=text, juez=juez, at=at))
            return int(result.inserted_primary_key[0])  # type: ignore[index]

    def rulings(self, table: str | None = None) -> list[dict[str, Any]]:
        q = select(rulings_t).order_by(rulings_t.c.id)
        if table is not None:
            q = q.where(rulings_t.c.table_name == table)
        with self._tx() as conn:
            rows = conn.execute(q).all()
        return [{"id": r.id, "table": r.table_name, "partida": r.partida, "kind": r.kind, "pair": r.pair,
                 "text": r.text, "juez": r.juez, "at": r.at} for r in rows]

    def add_call(self, table: str, call_id: int, at: str) -> bool:
        stmt = self._insert(calls_t).values(table_name=table, call_id=call_id, at=at).on_conflict_do_nothing()
        return self._inserted(stmt.returning(calls_t.c.call_id))

    def answer_call(self, table: str, call_id: int, answer: str, at: str) -> bool:
        with self._tx() as conn:
            return bool(conn.execute(update(calls_t).where(calls_t.c.table_name == table,
                                                           calls_t.c.call_id == call_id)
                                     .values(answer=answer, answered_at=at)).rowcount)

    def calls(self, *, open_only: bool = False) -> list[dict[str, Any]]:
        q = select(calls_t).order_by(calls_t.c.at)
        if open_only:
            q = q.where(calls_t.c.answer.is_(None))
        with self._tx() as conn:
            rows = conn.execute(q).all()
        return [{"table": r.table_name, "id": int(r.call_id), "at": r.at, "answer": r.answer,
                 "answered_at": r.answered_at} for r in rows]

    # ---------------------------------------------------------------------------- settings

    def setting(self, key: str, default: str = "") -> str:
        with self._tx() as conn:
            value = conn.execute(select(settings_t.c.value).where(settings_t.c.key == key)).scalar()
        return default if value is None else str(value)

    def set_setting(self, key: str, value: str) -> None:
        stmt = self._insert(settings_t).values(key=key, value=value)
        stmt = stmt.on_conflict_do_update(index_elements=[settings_t.c.key], set_={"value": value})
        with self._tx() as conn:
            conn.execute(stmt)

    # ---------------------------------------------------------------------------- the tournament

    def add_pair(self, name: str, players: str = "", group: str = "") -> int:
        name = name.strip()
        if not name or len(name) > 200:
            raise InvalidInput("el nombre de la pareja no puede estar vacío ni pasar de 200 letras")
        with self._tx() as conn:
            if conn.execute(select(pairs_t.c.id).where(pairs_t.c.name == name)).first() is not None:
                raise InvalidInput(f"ya hay una pareja llamada {name!r}")
            result = conn.execute(pairs_t.insert().values(name=name, players=players.strip(), grp=group.strip()))
            return int(result.inserted_primary_key[0])  # type: ignore[index]

    def pairs(self) -> list[dict[str, Any]]:
        with self._tx() as conn:
            rows = conn.execute(select(pairs_t).order_by(pairs_t.c.id)).all()
        return [{"id": r.id, "name": r.name, "players": r.players, "group": r.grp} for r in rows]

    def set_group(self, pair: int, group: str) -> None:
        with self._tx() as conn:
            conn.execute(update(pairs_t).where(pairs_t.c.id == pair).values(grp=group))

    def add_matches(self, matches: list[dict[str, Any]]) -> None:
        if not matches:
            return
        with self._tx() as conn:
            conn.execute(matches_t.insert(), matches)

    def matches(self, round_no: int | None = None) -> list[dict[str, Any]]:
        q = select(matches_t).order_by(matches_t.c.round, matches_t.c.id)
        if round_no is not None:
            q = q.where(matches_t.c.round == round_no)
        with self._tx() as conn:
            rows = conn.execute(q).all()
        return [dict(r._mapping) for r in rows]

    def set_result(self, match_id: int, *, partida: int | None, juegos: tuple[int, int], winner: int | None,
                   confirmed: bool) -> None:
        with self._tx() as conn:
            conn.execute(update(matches_t).where(matches_t.c.id == match_id).values(
                partida=partida, juegos_a=juegos[0], juegos_b=juegos[1], winner=winner, confirmed=confirmed))


def _sqlite_pragmas(dbapi_conn: Any, record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _safe(url: str) -> str:
    """The URL without its password."""
    if "@" in url and "://" in url:
        head, rest = url.split("://", 1)
        creds, host = rest.rsplit("@", 1)
        return f"{head}://{creds.split(':', 1)[0]}@{host}"
    return url
