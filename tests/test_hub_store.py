"""The hub's store on SQLite and on the PostgreSQL server of the machine (127.0.0.1:5432), one
schema of the test's own there; skipped only when no PostgreSQL server answers."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from hub.store import Store, StoreError
from table.errors import InvalidInput

PG_URL = os.environ.get("MUS_TABLE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")


def _pg_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=0.5).close()
        return True
    except OSError:
        return False


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Store]:
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path}/hub.sqlite")
        yield s
        s.close()
        return
    if not _pg_up():
        pytest.skip("no PostgreSQL server at 127.0.0.1:5432")
    schema = f"hub_test_{uuid.uuid4().hex[:12]}"
    s = Store(PG_URL, schema=schema)
    try:
        yield s
    finally:
        s.close()
        engine = create_engine(PG_URL)
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


def test_entries_are_kept_once_and_exported_as_the_table_does(store: Store) -> None:
    rec1, rec2 = {"format": "mus-hand/1", "n": 1}, {"format": "mus-hand/1", "n": 2}
    assert store.add_entry("m", 1, 0, 1, "new_partida", "t0", {"mano": 0, "juegos": 3})
    assert store.add_entry("m", 4, 1, 1, "confirm", "t1", {"record": rec1, "answer": {"a": 1}})
    assert not store.add_entry("m", 4, 1, 1, "confirm", "t1", {"record": rec1, "answer": {"a": 1}})
    assert store.add_entry("m", 7, 4, 1, "confirm", "t2", {"record": rec2, "answer": {}})
    assert store.add_entry("m", 8, 7, 1, "undo_hand", "t3", {})
    assert store.add_entry("m", 9, 8, 1, "confirm", "t4", {"record": rec2, "answer": {}})
    assert store.export("m", 1) == [rec1, rec2]
    assert store.last_entry("m") == 9
    assert store.partidas("m") == {1: ("t0", {"mano": 0, "juegos": 3})}
    assert store.add_entry("m", 20, 15, 2, "new_partida", "t5", {})  # after a hole: not part of the chain
    assert store.last_entry("m") == 9


def test_events_states_and_the_newest_state_wins(store: Store) -> None:
    assert store.add_event("m", 5, "bet", "t", {"seq": 5, "phase": "playing"})
    assert not store.add_event("m", 5, "bet", "t", {"seq": 5})
    store.set_table("m", seq=5, state={"seq": 5}, status="online", seen="t")
    store.set_table("m", seq=3, state={"seq": 3})  # an older state arriving late changes nothing
    row = store.table("m")
    assert row is not None and row.state == {"seq": 5} and row.status == "online"
    assert [e["seq"] for e in store.events("m")] == [5] and store.last_event("m") == 5
    assert store.add_event("m", 6, "bet", "u", {"seq": 6})
    assert store.event_before("m", "t") == 5 and store.event_before("m", "u") == 6 and store.event_before("m", "a") == 0


def test_rulings_calls_settings_pairs_matches(store: Store) -> None:
    rid = store.add_ruling("m", "warning", partida=1, pair=0, text="habla de más", juez="ana", at="t")
    assert store.rulings("m")[0]["id"] == rid and store.rulings("otra") == []
    assert store.add_call("m", 3, "t") and not store.add_call("m", 3, "t")
    assert [c["id"] for c in store.calls(open_only=True)] == [3]
    assert store.answer_call("m", 3, "voy", "t2")
    assert store.calls(open_only=True) == [] and store.calls()[0]["answer"] == "voy"
    store.set_setting("delay", "30")
    store.set_setting("delay", "60")
    assert store.setting("delay") == "60" and store.setting("none", "x") == "x"
    a = store.add_pair("Los de Tolosa", "Iñaki y Mikel")
    b = store.add_pair("Las de Segovia")
    with pytest.raises(InvalidInput):
        store.add_pair("Los de Tolosa")
    store.add_matches([{"round": 1, "stage": "liguilla", "table_name": "mesa-1", "pair_a": a, "pair_b": b}])
    m = store.matches(1)[0]
    store.set_result(m["id"], partida=2, juegos=(3, 1), winner=a, confirmed=True)
    assert store.matches(1)[0]["winner"] == a and store.matches(1)[0]["confirmed"] is True


def test_an_unreachable_database_is_one_line() -> None:
    with pytest.raises(StoreError, match="cannot open the hub's database postgresql"):
        Store("postgresql+psycopg://nobody:secret@127.0.0.1:1/none")
