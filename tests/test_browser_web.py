"""The display and the spectator page in real headless Chromium, over the real loop and the real server.

The table is the synthetic one (``firmware.synthetic``: the scene renderer as
the camera) read by the real reader, served by waitress as on the Pi. Screenshots
go to ``test-artifacts/`` (git-ignored) to be looked at: the display at
800x480, 1024x600 and on a phone, the spectator page and the overlay.
"""

from __future__ import annotations

import json
import os
import re
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from firmware.synthetic import SyntheticTable  # noqa: E402
from firmware.table_loop import FaultKind, TableLoop  # noqa: E402
from table.cards import Card  # noqa: E402
from vision.reading import TableReader  # noqa: E402
from web.app import create_app  # noqa: E402
from web.server import make_server  # noqa: E402

PIN = "2468"
HAND = [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
        ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]]
HAND2 = [["1o", "2o", "4o", "5o"], ["12c", "12e", "12b", "11o"],
         ["1c", "2c", "4c", "5c"], ["6c", "7c", "10c", "11c"]]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
TIMEOUT = 15000
expect.set_options(timeout=TIMEOUT)


class Served:
    def __init__(self) -> None:
        self.table = SyntheticTable(seed=3)
        self.loop = TableLoop(reader=TableReader())
        self.loop.attach_camera(self.table.still)
        self.app = create_app(self.loop, pin=PIN, max_spectators=20, keepalive=1.0, retry_ms=300)
        self.server = make_server(self.app, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def command(self, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(self.url + "/api/command", json.dumps(body).encode(),
                                     {"Content-Type": "application/json", "X-Table-PIN": PIN})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())["state"]  # type: ignore[no-any-return]

    def close(self) -> None:
        self.app.extensions["mus_table"]["hub"].stop()
        self.server.close()


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    s = Served()
    yield s
    s.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def shot(page: Page, name: str, transparent: bool = False) -> None:
    page.wait_for_timeout(50)
    page.screenshot(path=str(ARTIFACTS / name), omit_background=transparent)


def test_a_whole_hand_on_the_display(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT)
    page.goto(served.url + "/")
    expect(page.locator(".speaker")).to_contain_text("asiento 0")
    shot(page, "display-800x480-bets.png")

    # a control without the PIN asks for it; a wrong PIN is refused in words and changes nothing
    page.click('button[data-word="envido"]')
    for d in "1111":
        page.click(f'.pinkey[data-key="{d}"]')
    page.click('.pinkey[data-key="OK"]')
    expect(page.locator("#pinmsg")).to_have_text("PIN incorrecto")
    shot(page, "display-800x480-wrong-pin.png")
    assert served.loop.snapshot()["bets"]["words"]["grande"] == []
    for d in PIN:
        page.click(f'.pinkey[data-key="{d}"]')
    page.click('.pinkey[data-key="OK"]')
    expect(page.locator(".speaker")).to_contain_text("Responde el asiento 1")  # the envido went in

    page.click('button[data-word="no quiero"]')
    expect(page.locator(".speaker")).to_contain_text("asiento 3")
    page.click('button[data-word="quiero"]')
    expect(page.locator(".speaker")).to_contain_text("Chica")
    page.click("button.q-paso")  # chica: en paso in one tap
    expect(page.locator(".speaker")).to_contain_text("¿Pares?")
    shot(page, "display-800x480-declare.png")

    # the players lay their cards face up and ask for the reading
    served.table.show([[Card.parse(c) for c in s] for s in HAND])
    frame = served.table.grab()
    assert frame is not None
    served.loop.show_frame(frame.image)
    page.click("#btn-read")
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    expect(page.locator(".tev").last).to_contain_text("van 3 a 9")
    page.wait_for_timeout(2600)  # the tanteo is counted step by step
    shot(page, "display-800x480-tanteo.png")

    # correct a card: the 4 de bastos of seat 0 was «misread» as 5 de bastos, then put right
    card = page.locator('.cardbtn[data-seat="0"]').filter(has_text="4")
    card.click()
    page.click('.pick[data-card="5b"]')
    expect(page.locator('.cardbtn[data-seat="0"]').filter(has_text="5")).to_have_count(1)
    assert "5b" in served.loop.snapshot()["cards"][0]
    page.locator('.cardbtn[data-seat="0"]').filter(has_text="5").click()
    shot(page, "display-800x480-picker.png")
    page.click('.pick[data-card="4b"]')
    expect(page.locator(".tev").last).to_contain_text("van 3 a 9")

    # a player of the other pair confirms (the hand went against pair 0)
    expect(page.locator(".confirm-btn")).to_have_count(2)
    page.click('.confirm-btn[data-seat="0"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    expect(page.locator('.points[data-pair="0"]')).to_have_text("3")
    expect(page.locator('.points[data-pair="1"]')).to_have_text("9")
    expect(page.locator(".speaker")).to_contain_text("asiento 1")  # mano moved on
    served.table.set_score([3, 9])  # the players move the stones

    # a fault is said plainly, with what to do, and goes away by itself
    served.loop.set_fault(FaultKind.CAMERA, "Cámara perdida: no llegan imágenes",
                          "Mirad el cable de la cámara; la mesa sigue sola cuando vuelva")
    expect(page.locator("#faults")).to_contain_text("Mirad el cable")
    shot(page, "display-800x480-fault.png")
    served.loop.clear_fault(FaultKind.CAMERA)
    expect(page.locator("#faults")).to_be_hidden()
    [hand] = served.loop.hands()
    assert hand.answer.score == (3, 9) and hand.by == 0

    # hand 2: an órdago accepted ends the hand; the pair that wins grande wins the juego at once
    page.click('button[data-word="ordago"]')
    expect(page.locator(".speaker")).to_contain_text("Responde el asiento 2")
    page.click('button[data-word="quiero"]')
    served.table.show([[Card.parse(c) for c in s] for s in HAND2])
    page.click("#btn-read")
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    expect(page.locator("#winbanner")).to_contain_text("JUEGO PARA LA PAREJA 1")
    page.wait_for_timeout(1500)
    shot(page, "display-800x480-ordago-won.png")
    page.click('.confirm-btn >> nth=0')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    expect(page.locator('.points[data-pair="1"]')).to_have_text("0")  # a new juego
    assert served.loop.snapshot()["partida"]["juegos"] == [0, 1]

    # learning a deck: where each card of the frame goes; a photo; the next frame; cancel
    page.click("#btn-learn")
    expect(page.locator(".learnmat .card")).to_have_count(16)
    expect(page.locator(".learnmat .seatcards.seat0")).to_contain_text("1")
    shot(page, "display-800x480-learning.png")
    page.click("#btn-capture")
    expect(page.locator("#main")).to_have_attribute("data-phase", "learning")
    expect(page.locator(".learnstep")).to_contain_text("Foto 2 de 3")
    assert served.loop.snapshot()["learning"]["done"] == [0]
    page.get_by_role("button", name="Dejarlo").click()
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    expect(page.locator(".speaker")).to_be_visible()

    for w, h, name in ((1024, 600, "display-1024x600.png"), (390, 844, "display-phone.png")):
        page.set_viewport_size({"width": w, "height": h})
        shot(page, name)
    page.close()


def test_the_spectator_page_follows_live_and_resumes_after_a_drop(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1024, "height": 700})
    page.set_default_timeout(TIMEOUT)
    resumes: list[str] = []
    wsgi = served.app.wsgi_app

    def recording(environ: dict[str, Any], start: Any) -> Any:  # what the server is told on connect
        if environ.get("PATH_INFO") == "/api/events":
            resumes.append(environ.get("HTTP_LAST_EVENT_ID", ""))
        return wsgi(environ, start)

    served.app.wsgi_app = recording  # type: ignore[method-assign]
    page.goto(served.url + "/watch")
    expect(page.locator("#conn")).to_have_class(re.compile("online"))
    page.evaluate("window.notReloaded = true")
    served.command({"kind": "say", "seat": served.loop.snapshot()["mano"], "word": "envido", "n": 5})
    expect(page.locator("#lance")).to_contain_text("Grande")
    page.wait_for_function("window.lastKind === 'bet'")
    seen = page.evaluate("window.lastSeq")
    assert seen == served.loop.bus.last_seq

    # the connection drops; the table goes on meanwhile; the page comes back by itself
    page.route("**/api/events", lambda route: route.abort())
    served.app.extensions["mus_table"]["hub"].drop_all()
    expect(page.locator("#conn")).to_have_class(re.compile("offline"))
    speaker = served.loop.snapshot()["bets"]["speaker"]
    served.command({"kind": "say", "seat": speaker, "word": "no quiero"})
    page.unroute("**/api/events")
    page.wait_for_function(f"window.lastSeq === {served.loop.bus.last_seq}")
    expect(page.locator("#conn")).to_have_class(re.compile("online"))
    assert page.evaluate("window.notReloaded") is True
    assert resumes[0] == "" and resumes[-1] == str(seen)  # the reconnect said where it had stopped
    expect(page.locator("#hands li")).to_have_count(len(served.loop.hands()) or 1)
    shot(page, "watch.png")
    page.click("#hands li a >> nth=0")
    expect(page.locator(".explain li").first).to_contain_text("Mano el asiento 0")
    expect(page.locator(".explain")).to_contain_text("El tanteo, por su orden")
    shot(page, "replay.png")

    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(served.url + "/overlay")
    expect(page.locator(".ov-score .points").first).to_have_text(str(served.loop.snapshot()["score"][0]))
    shot(page, "overlay-1080p.png", transparent=True)
    page.close()
    served.app.wsgi_app = wsgi  # type: ignore[method-assign]
