"""Nothing lost between a table and the hub, over a real Mosquitto of the test's own.

The broker restarted, a table offline for a few hands, the hub killed and
started again: the hub's copy of every partida equals the table's own
``journal export``. Every wait ends on an event (the hub's messages), bounded.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.journal import Journal
from firmware.mqtt import MqttPublisher
from firmware.table_loop import LoopSettings, TableLoop
from firmware.truth import TruthPlayers, TruthReader
from hub.follower import BrokerAddress, Follower
from hub.store import Store
from table.rules import Rules
from tests._mosquitto import HOST, Mosquitto, needs_mosquitto

pytestmark = needs_mosquitto
WAIT = 60.0


class Table:
    def __init__(self, name: str, folder: Path, port: int, seed: int) -> None:
        self.name = name
        self.journal = Journal(folder / f"{name}.sqlite")
        self.reader = TruthReader()
        self.loop = TableLoop(LoopSettings(table=name, rules=Rules(target=30), juegos=1), reader=self.reader,
                              journal=self.journal)
        self.players = TruthPlayers(self.loop, self.reader, seed)
        self.port = port
        self.pub: MqttPublisher | None = None

    def connect(self) -> None:
        self.pub = MqttPublisher(self.loop.bus, self.name, HOST, self.port, journal=self.journal)

    def disconnect(self) -> None:
        if self.pub is not None:
            self.pub._client.disconnect()  # noqa: SLF001 - a link that drops, no «offline» said
            self.pub._client.loop_stop()  # noqa: SLF001
            self.pub._stop()  # noqa: SLF001
        self.pub = None

    def play(self, hands: int) -> None:
        for _ in range(hands):
            self.players.play_hand()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    b = Mosquitto(tmp_path).start()
    yield b
    b.stop()


def _caught_up(hub: Follower, tables: list[Table]) -> bool:
    return all(t.name in hub.tables and hub.tables[t.name].last_entry == t.journal.last_seq() for t in tables)


def _same_partidas(store: Store, table: Table) -> None:
    partidas = [s.id for s in table.journal.partidas()]
    assert partidas and sorted(store.partidas(table.name)) == partidas
    for p in partidas:
        assert store.export(table.name, p) == table.journal.export(p), (table.name, p)


def test_broker_restart_table_offline_and_hub_restart_lose_nothing(broker: Mosquitto, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'hub.sqlite'}"
    a = Table("mesa-a", tmp_path, broker.port, 1)
    b = Table("mesa-b", tmp_path, broker.port, 2)
    a.play(2)  # before any hub or broker link: the hub asks for these when it first sees the table
    hub = Follower(Store(db), BrokerAddress(HOST, broker.port))
    hub.start()
    try:
        a.connect()
        b.connect()
        a.play(3)
        b.play(3)
        assert hub.wait(lambda: _caught_up(hub, [a, b]), WAIT)

        broker.stop()  # the broker goes away; the tables go on
        a.play(3)
        b.play(2)
        broker.start()
        assert hub.wait(lambda: _caught_up(hub, [a, b]), WAIT)

        b.disconnect()  # one table's link down for a few hands
        b.play(4)
        a.play(1)
        b.connect()
        assert hub.wait(lambda: _caught_up(hub, [a, b]), WAIT)

        hub.close()  # the hub killed; the tables go on without it
        a.play(3)
        b.play(2)
        hub = Follower(Store(db), BrokerAddress(HOST, broker.port))
        hub.start()
        assert hub.wait(lambda: _caught_up(hub, [a, b]), WAIT)
        for t in (a, b):
            _same_partidas(hub.store, t)
            assert hub.store.table(t.name) is not None
            assert hub.wait(lambda t=t: hub.tables[t.name].seq == t.loop.bus.last_seq, WAIT)
            # and every numbered event, each with its whole state, as the table made it
            kept = hub.store.events(t.name, 0, 100_000)
            assert [e["seq"] for e in kept] == list(range(1, t.loop.bus.last_seq + 1))
            assert kept[-1]["state"] == t.loop.snapshot()
    finally:
        hub.close()
        a.disconnect()
        b.disconnect()


def test_a_gap_in_the_chain_is_asked_for(broker: Mosquitto, tmp_path: Path) -> None:
    """An entry whose ``prev`` is not the last one kept is not kept: the hub asks for what it
    missed, and the table sends it again in order."""
    hub = Follower(Store("sqlite://"), BrokerAddress(HOST, broker.port))
    hub.start()
    t = Table("mesa-gap", tmp_path, broker.port, 3)
    try:
        t.connect()
        assert t.pub is not None and t.pub.connected.wait(WAIT) and hub.connected.wait(WAIT)
        t.play(1)
        assert hub.wait(lambda: _caught_up(hub, [t]), WAIT)
        lost_from = t.journal.last_seq()
        t.pub.connected.clear()
        t.play(1)
        with t.pub._send_lock:  # noqa: SLF001 - the hand's entries taken as sent, and lost on the way
            t.pub._sent = t.journal.last_seq()  # noqa: SLF001
        t.pub.connected.set()
        assert hub.tables[t.name].last_entry == lost_from
        t.play(1)  # the next entries name the lost ones as before them: the hub asks
        assert hub.wait(lambda: _caught_up(hub, [t]), WAIT)
        _same_partidas(hub.store, t)
    finally:
        hub.close()
        t.disconnect()


def test_two_hubs_share_one_tournament_in_postgresql(broker: Mosquitto, tmp_path: Path) -> None:
    """Two hub processes' followers write into one PostgreSQL schema: each row once, the same copy."""
    import socket
    import uuid

    from sqlalchemy import create_engine, text

    from tests.test_hub_store import PG_URL
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=0.5).close()
    except OSError:
        pytest.skip("no PostgreSQL server at 127.0.0.1:5432")
    schema = f"hub_test_{uuid.uuid4().hex[:12]}"
    hubs = [Follower(Store(PG_URL, schema=schema), BrokerAddress(HOST, broker.port)) for _ in range(2)]
    t = Table("mesa-pg", tmp_path, broker.port, 4)
    try:
        for h in hubs:
            h.start()
        t.connect()
        t.play(4)
        for h in hubs:
            assert h.wait(lambda h=h: _caught_up(h, [t]), WAIT)
        _same_partidas(hubs[0].store, t)
        assert hubs[0].store.entries("mesa-pg") == hubs[1].store.entries("mesa-pg")
    finally:
        t.disconnect()
        for h in hubs:
            h.close()
            h.store.close()
        engine = create_engine(PG_URL)
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        engine.dispose()


def test_a_table_restarted_after_hands_offline_delivers_them(broker: Mosquitto, tmp_path: Path) -> None:
    """The table's process restarts (its journal on disk) after hands played with no broker: the
    hub asks when it comes back «online», and the table sends them from its journal."""
    hub = Follower(Store("sqlite://"), BrokerAddress(HOST, broker.port))
    hub.start()
    t = Table("mesa-r", tmp_path, broker.port, 5)
    try:
        t.connect()
        t.play(2)
        assert hub.wait(lambda: _caught_up(hub, [t]), WAIT)
        t.disconnect()
        t.play(3)
        t.journal.close()
        t.journal = Journal(tmp_path / "mesa-r.sqlite")  # the restarted table resumes from its journal
        t.loop = TableLoop(LoopSettings(table="mesa-r", rules=Rules(target=30), juegos=1), reader=t.reader,
                           journal=t.journal)
        t.players = TruthPlayers(t.loop, t.reader, 6)
        t.connect()
        assert hub.wait(lambda: _caught_up(hub, [t]), WAIT)
        t.play(1)
        assert hub.wait(lambda: _caught_up(hub, [t]) and hub.tables["mesa-r"].seq == t.loop.bus.last_seq, WAIT)
        _same_partidas(hub.store, t)
    finally:
        hub.close()
        t.disconnect()
