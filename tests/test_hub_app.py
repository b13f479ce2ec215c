"""The hub's pages over a real broker of the test's own: tables, the juez's console (the same
narration as ``replay --explain``), a call to the juez and its answer back at the table,
rulings, a draw, a signed result and the standings."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware.journal import Journal
from firmware.mqtt import MqttPublisher
from firmware.table_commands import CallJudge, Confirm, Correct, NewPartida, Reopen, UndoHand
from firmware.table_loop import LoopSettings, TableLoop
from firmware.truth import TruthPlayers, TruthReader
from hub.follower import BrokerAddress
from hub.service import Hub, build_hub
from table.cards import Card
from table.match import replay
from table.partida import narrate
from table.rules import Rules
from tests._mosquitto import HOST, Mosquitto, needs_mosquitto
from tests.test_spanish import english, visible

pytestmark = needs_mosquitto
WAIT = 60.0
PIN = "2468"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[Hub, Mosquitto]]:
    broker = Mosquitto(tmp_path).start()
    h = build_hub(f"sqlite:///{tmp_path / 'hub.sqlite'}", BrokerAddress(HOST, broker.port), pin=PIN)
    h.follower.start()
    yield h, broker
    h.close()
    broker.stop()


class Table:
    def __init__(self, name: str, folder: Path, port: int) -> None:
        self.journal = Journal(folder / f"{name}.sqlite")
        self.reader = TruthReader()
        self.loop = TableLoop(LoopSettings(table=name, rules=Rules(target=30), juegos=1), reader=self.reader,
                              journal=self.journal)
        self.players = TruthPlayers(self.loop, self.reader, 7)
        self.pub = MqttPublisher(self.loop.bus, name, HOST, port, journal=self.journal,
                                 on_judge=self.loop.judge_answered)

    def close(self) -> None:
        self.pub.close()


def _login(client: Any) -> None:
    assert client.post("/entrar", data={"pin": PIN}).status_code == 302


def test_tables_console_call_and_rulings(hub: tuple[Hub, Mosquitto], tmp_path: Path) -> None:
    h, broker = hub
    t = Table("mesa-1", tmp_path, broker.port)
    try:
        for _ in range(3):
            t.players.play_hand()
        t.loop.submit(UndoHand())  # the last hand taken back, a card corrected by hand, confirmed again
        t.loop.submit(Correct(0, 0, Card.parse(t.loop.snapshot()["cards"][0][0])))
        t.loop.submit(Confirm(t.loop.snapshot()["confirm_by"][0]))
        t.loop.submit(NewPartida())  # a partida closed, and re-opened: the console says so
        t.loop.submit(NewPartida())
        t.loop.submit(Reopen(2))
        f = h.follower
        assert f.wait(lambda: "mesa-1" in f.tables and f.tables["mesa-1"].last_entry == t.journal.last_seq()
                      and f.tables["mesa-1"].seq == t.loop.bus.last_seq, WAIT)
        web = h.app.test_client()
        rows = web.get("/api/tables").get_json()["tables"]
        assert [(r["table"], r["status"], r["score"]) for r in rows] == [("mesa-1", "online", t.loop.snapshot()["score"])]
        assert "mesa-1" in web.get("/").get_data(as_text=True)
        # the fallback for spectators without WebSockets: server-sent events from the hub
        stream = web.get("/api/sse/mesa-1", buffered=False)
        chunk = next(iter(stream.response))
        first = chunk.decode() if isinstance(chunk, bytes) else str(chunk)
        stream.close()
        assert f"id: {t.loop.bus.last_seq}\nevent: state\n" in first, first
        assert web.get("/api/sse/nowhere").status_code == 404

        # the console narrates every partida as replay --explain does, and lists the hands undone and corrected
        page = web.get("/mesa/mesa-1").get_data(as_text=True)
        changes = page[page.index('id="changes"'):page.index('id="history"')]
        assert "mano 3 · deshecha" in changes and "mano 3 · carta corregida a mano" in changes, changes
        assert "partida 2, mano 1 · reabierta: vuelve al juego tal como se dejó" in changes, changes
        for p in (s.id for s in t.journal.partidas() if s.hands):
            lines = [json.dumps(r) for r in t.journal.export(p)]
            partida, played = replay(lines, 1, 1)
            for line in narrate(partida, played, full=True):
                assert line.replace("«", "&laquo;") in page or _escaped(line) in page

        # «Llamar al juez»: the hub shows the call; the juez answers; the table shows the answer
        call = t.loop.submit(CallJudge())["judge"]["id"]
        assert f.wait(lambda: any(c["id"] == call for c in h.store.calls(open_only=True)), WAIT)
        assert web.get("/api/tables").get_json()["tables"][0]["call"]["id"] == call
        assert web.post("/mesa/mesa-1/respuesta", data={"id": call, "text": "voy"}).status_code == 403
        _login(web)
        assert web.post("/mesa/mesa-1/respuesta", data={"id": call, "text": "Voy enseguida"}).status_code == 302
        assert _until(t.loop, lambda s: s["judge"]["answer"] == "Voy enseguida")
        assert h.store.calls(open_only=True) == []

        # the juez's decisions: the hub's own rows, never the table's journal
        entries = len(t.journal.entries())
        assert web.post("/mesa/mesa-1/decision", data={"kind": "warning", "pair": "1", "partida": "1",
                                                       "text": "señas"}).status_code == 302
        assert web.post("/mesa/mesa-1/decision", data={"kind": "juego_lost", "pair": ""}).status_code == 400
        assert [r["kind"] for r in h.store.rulings("mesa-1")] == ["warning"]
        console = web.get("/mesa/mesa-1").get_data(as_text=True)
        # no English on the live pages of a table in play (tests/test_spanish.py's words)
        for url in ("/", "/mesa/mesa-1", "/ver", "/ver/mesa-1", "/torneo", "/clasificacion"):
            assert english(visible(web.get(url).get_data(as_text=True))) == [], url
        assert "señas" in console and "asientos 2 y 4 · partida 1" in console  # pair 1 of the JSON, as people read it
        assert len(t.journal.entries()) == entries
        assert web.post("/entrar", data={"pin": PIN, "next": "//evil.example/x"}).headers["Location"] == "/"
        assert web.post("/entrar", data={"pin": PIN}, headers={"Origin": "http://evil.example"}).status_code == 403
        # a tournament that holds the public feed back keeps its live pages for the juez
        assert web.post("/torneo/retraso", data={"delay": "900"}).status_code == 302
        stranger = h.app.test_client()
        assert stranger.get("/").status_code == 403 and stranger.get("/api/mesa/mesa-1").status_code == 403
        assert stranger.get("/ver/mesa-1").status_code == 200 and web.get("/").status_code == 200
        assert web.post("/torneo/retraso", data={"delay": "0"}).status_code == 302
        assert stranger.get("/").status_code == 200
        other = h.app.test_client()
        assert other.post("/mesa/mesa-1/decision", data={"kind": "note"}).status_code == 403
        assert web.post("/mesa/mesa-1/decision", data={"kind": "note"},
                        headers={"Origin": "http://evil.example"}).status_code == 403
    finally:
        t.close()


def _until(loop: TableLoop, holds: Any) -> bool:
    """Whether the table's state comes to satisfy ``holds`` (each new event looked at, WAIT s at most)."""
    seq = loop.bus.last_seq
    for _ in range(100):
        if holds(loop.snapshot()):
            return True
        if not loop.bus.wait(seq, WAIT):
            return bool(holds(loop.snapshot()))
        seq = loop.bus.last_seq
    return False


def _escaped(line: str) -> str:
    return (line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
            .replace("'", "&#39;"))


def test_draw_result_signed_by_the_losers_and_standings(hub: tuple[Hub, Mosquitto], tmp_path: Path) -> None:
    h, broker = hub
    t = Table("mesa-9", tmp_path, broker.port)
    try:
        f = h.follower
        assert f.wait(lambda: "mesa-9" in f.tables, WAIT)
        web = h.app.test_client()
        _login(web)
        for name in ("Tolosa", "Segovia", "Bilbao"):
            assert web.post("/torneo/pareja", data={"name": name, "players": "a y b"}).status_code == 302
        assert web.post("/torneo/pareja", data={"name": "Tolosa"}).status_code == 400
        assert web.post("/torneo/ronda", data={"format": "liguilla", "seed": "1", "tables": "mesa-9"}).status_code == 302
        draw = h.store.matches(1)
        playing = [m for m in draw if m["pair_b"] is not None]
        assert len(playing) == 1 and playing[0]["table_name"] == "mesa-9" and len(draw) == 2
        assert "descansa" in web.get("/sorteo").get_data(as_text=True)
        t.loop.submit(NewPartida())  # the round's partida
        while not t.loop.snapshot()["partida"]["over"]:
            t.players.play_hand()
        assert f.wait(lambda: f.tables["mesa-9"].last_entry == t.journal.last_seq(), WAIT)
        state = t.loop.snapshot()
        winner = playing[0]["pair_a"] if state["partida"]["winner"] == 0 else playing[0]["pair_b"]
        row = next(r for r in web.get("/torneo").get_data(as_text=True).split("<tr") if "mesa-9" in r)
        names = {p["id"]: p["name"] for p in h.store.pairs()}
        assert f"gana {names[winner]}" in row
        last = t.journal.entries()[-1][4]
        if last.get("seat") is None or last["seat"] % 2 == state["partida"]["winner"]:
            m = playing[0]["id"]  # an even last hand: the losers sign before the juez
            assert web.post("/torneo/firma", data={"match": m}).status_code == 302
        standings = web.get("/clasificacion").get_data(as_text=True)
        order = re.findall(r"<tr><td>\d+</td><td>([^<]+)</td>", standings)
        assert order[0] == names[winner] and len(order) == 3
        # the next round of the liguilla: the pair that rested plays
        assert web.post("/torneo/ronda", data={"format": "liguilla", "seed": "1", "tables": "mesa-9"}).status_code == 302
        rested = next(m["pair_a"] for m in draw if m["pair_b"] is None)
        second = [m for m in h.store.matches(2) if m["pair_b"] is not None]
        assert rested in (second[0]["pair_a"], second[0]["pair_b"])
        # a knockout with a losers' bracket: the signed result counts, the loser plays in the bracket of one loss
        assert web.post("/torneo/ronda", data={"format": "knockout", "lives": "2", "seed": "3",
                                               "tables": "mesa-9"}).status_code == 302
        third = h.store.matches(3)
        assert sorted(p for m in third for p in (m["pair_a"], m["pair_b"]) if p is not None) == sorted(names)
        assert "knockout" in web.get("/sorteo").get_data(as_text=True)
    finally:
        t.close()


def test_the_display_calls_the_juez_behind_the_table_pin() -> None:
    """«Llamar al juez» is a command of the display's API: refused without the table's PIN,
    then the state carries the call, and the juez's answer when it comes."""
    from web.app import create_app

    loop = TableLoop(LoopSettings(table="mesa-3"))
    web = create_app(loop, pin="1111").test_client()
    assert web.post("/api/command", json={"kind": "call_judge"}).status_code in (401, 403)
    assert loop.snapshot()["judge"] is None
    r = web.post("/api/command", json={"kind": "call_judge"}, headers={"X-Table-PIN": "1111"})
    assert r.status_code == 200
    judge = r.get_json()["state"]["judge"]
    assert judge["answer"] is None and judge["id"] == loop.bus.last_seq
    loop.judge_answered({"id": judge["id"] + 1, "text": "otra llamada"})  # not this call: left alone
    loop.judge_answered({"id": judge["id"], "text": "Voy", "at": "2026-12-01T12:00:00+00:00"})
    assert loop.snapshot()["judge"]["answer"] == "Voy" and loop.bus.latest.kind == "judge"  # type: ignore[union-attr]
