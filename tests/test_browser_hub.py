"""The hub's pages in real headless Chromium: tables, the juez's console, the draw, the
standings, and a spectator page following a table through the broker's WebSocket listener
(a Mosquitto of the test's own, with the club's ACL: anonymous may only read ``public/#``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from firmware.journal import Journal  # noqa: E402
from firmware.mqtt import MqttPublisher  # noqa: E402
from firmware.table_commands import CallJudge  # noqa: E402
from firmware.table_loop import LoopSettings, TableLoop  # noqa: E402
from firmware.truth import TruthPlayers, TruthReader  # noqa: E402
from hub.follower import BrokerAddress  # noqa: E402
from hub.public import PHASES  # noqa: E402
from hub.service import build_hub, make_server  # noqa: E402
from table.rules import Rules  # noqa: E402
from tests._mosquitto import HOST, Mosquitto, free_port, needs_mosquitto  # noqa: E402

pytestmark = needs_mosquitto
PIN = "1357"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
expect.set_options(timeout=20000)
ROOT = Path(__file__).resolve().parent.parent
ACL = (ROOT / "hub" / "brokers" / "mosquitto-club.acl").read_text()
"""The club's ACL as shipped: anonymous read ``public/#`` only; the hub and each table their own topics."""
USERS = {"hub": "hub-secret", "mesa-7": "mesa-secret"}


class World:
    def __init__(self, folder: Path) -> None:
        self.broker = Mosquitto(folder, ws_port=free_port(), acl=ACL, users=USERS).start()
        self.hub = build_hub(f"sqlite:///{folder / 'hub.sqlite'}",
                             BrokerAddress(HOST, self.broker.port, "hub", USERS["hub"]), pin=PIN,
                             public_ws=f"ws://{HOST}:{self.broker.ws_port}")
        self.hub.follower.start()
        self.server = make_server(self.hub.app, HOST, 0)
        self.url = f"http://{HOST}:{self.server.effective_port}"
        threading.Thread(target=self.server.run, daemon=True).start()
        self.journal = Journal(folder / "mesa-7.sqlite")
        self.reader = TruthReader()
        self.loop = TableLoop(LoopSettings(table="mesa-7", rules=Rules(target=30), juegos=1), reader=self.reader,
                              journal=self.journal)
        self.players = TruthPlayers(self.loop, self.reader, 11)
        self.pub = MqttPublisher(self.loop.bus, "mesa-7", HOST, self.broker.port, journal=self.journal,
                                 on_judge=self.loop.judge_answered, username="mesa-7",
                                 password=USERS["mesa-7"])
        f = self.hub.follower
        assert f.wait(lambda: "mesa-7" in f.tables and f.tables["mesa-7"].seq == self.loop.bus.last_seq, 30)

    def close(self) -> None:
        self.pub.close()
        self.server.close()
        self.hub.close()
        self.broker.stop()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("hub"))
    yield w
    w.close()


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        pg = b.new_page(viewport={"width": 1280, "height": 800})
        yield pg
        b.close()


def _login(page: Any, world: World) -> None:
    if page.locator("input[name=pin]").count():
        page.fill("input[name=pin]", PIN)
        page.click("nav button")


def test_spectator_page_follows_a_table_through_the_websocket_listener(world: World, page: Any) -> None:
    page.goto(world.url + "/ver/mesa-7")
    expect(page.locator("#link")).to_have_text("En directo")
    for _ in range(2):
        world.players.play_hand()
        state = world.loop.snapshot()
        expect(page.locator("#seq")).to_have_text(str(state["seq"]))
        expect(page.locator("#score")).to_have_text(f"{state['score'][0]} – {state['score'][1]}")
    page.screenshot(path=str(ARTIFACTS / "hub-spectator.png"))
    # the same browser may not read the tables' own topics: the ACL lets anonymous read public/# only
    got = page.evaluate("""async (url) => await new Promise((done) => {
        const c = mqtt.connect(url); const seen = [];
        c.on('connect', () => c.subscribe(['mus-table/#', 'public/index'], () => {}));
        // the retained messages come in the order of the filters: the tables' first, had they been let through
        c.on('message', (t) => { seen.push(t); if (t === 'public/index') { c.end(); done(seen); } });
    })""", f"ws://{HOST}:{world.broker.ws_port}")
    assert "public/index" in got and all(t.startswith("public/") for t in got), got
    # the fallback without WebSockets: server-sent events from the hub
    page.goto(world.url + "/sse/mesa-7")
    expect(page.locator("#seq")).to_have_text(str(world.loop.bus.last_seq))
    world.players.play_hand()
    expect(page.locator("#seq")).to_have_text(str(world.loop.bus.last_seq))
    expect(page.locator("#phase")).to_have_text(PHASES[world.loop.snapshot()["phase"]])


def test_tables_console_draw_and_standings(world: World, page: Any) -> None:
    page.goto(world.url + "/")
    row = page.locator("tr[data-table='mesa-7']")
    expect(row.locator("td.status")).to_have_text("en línea")
    world.loop.submit(CallJudge())
    expect(row.locator("td.call")).to_have_text("¡Llaman al juez!")  # the page refreshes itself
    page.screenshot(path=str(ARTIFACTS / "hub-tables.png"))
    row.locator("td.call a").click()
    _login(page, world)
    page.fill("#calls input[name=text]", "Voy a la mesa")
    page.click("#calls button")
    expect(page.locator("#calls .answer")).to_contain_text("Voy a la mesa")
    assert world.journal is not None
    expect(page.locator("pre.narration").first).to_contain_text("Mano 1")
    page.screenshot(path=str(ARTIFACTS / "hub-console.png"), full_page=True)

    page.goto(world.url + "/torneo")
    for name in ("Tolosa", "Segovia", "Bilbao", "Irun"):
        page.fill("input[name=name]", name)
        page.click("form[action='/torneo/pareja'] button")
    page.fill("#draw-form input[name=seed]", "42")
    page.fill("#draw-form input[name=tables]", "mesa-7,mesa-8")
    page.click("#draw-form button")
    expect(page.locator("#draw tbody tr")).to_have_count(2)
    expect(page.locator("h1")).to_have_text("Sorteo · ronda 1")
    page.screenshot(path=str(ARTIFACTS / "hub-draw.png"))
    seated = world.hub.store.matches(1)
    names = {p["id"]: p["name"] for p in world.hub.store.pairs()}
    at7 = next(m for m in seated if m["table_name"] == "mesa-7")
    world.players.play_hand()  # the public index goes out again, with the pairs the draw sat at the table
    page.goto(world.url + "/ver")
    expect(page.locator("#index tbody tr").first).to_contain_text(f"{names[at7['pair_a']]} – {names[at7['pair_b']]}")
    page.screenshot(path=str(ARTIFACTS / "hub-spectators-index.png"))
    page.goto(world.url + "/clasificacion")
    expect(page.locator("#standings tbody tr")).to_have_count(4)
    page.screenshot(path=str(ARTIFACTS / "hub-standings.png"))
