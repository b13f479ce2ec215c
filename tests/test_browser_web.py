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
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("Debian's chromium is not installed", allow_module_level=True)

from playwright.sync_api import Page, expect  # noqa: E402

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
HAND3 = [["1o", "2c", "4e", "5b"], ["12o", "4o", "5c", "6e"],  # seat 1's 12o is seat 2's: impossible
         ["12o", "12c", "12e", "12b"], ["1c", "2e", "4b", "5o"]]
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


CUT_OFF = """(scrolls) => {
  const modal = document.getElementById("modal");
  const scope = modal && !modal.hidden ? modal : document;
  const W = document.documentElement.clientWidth, H = innerHeight, bad = [];
  const items = scope.querySelectorAll(
    "button, .speaker, .fault, .winbanner, .notcounted, .problems, .pair, .card, .learnstep, .conn, .lockstate, .hint, .learnfault, .learnmore");
  for (const e of scope.querySelectorAll(".faults, .problems, .confirm, .said, .hint, .learnfaults")) {
    if (e.offsetHeight && e.scrollHeight > e.clientHeight + 1) bad.push("scrolls: " + e.className);
  }
  for (const e of items) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === "hidden") continue;
    const name = (e.className || e.tagName) + " «" + e.textContent.trim().slice(0, 40) + "»";
    const below = r.bottom > H + 1;
    if (r.left < -1 || r.right > W + 1 || r.top < -1 || (below && !scrolls)) { bad.push("outside the screen: " + name); continue; }
    if (e.scrollWidth > e.clientWidth + 1) { bad.push("its text does not fit: " + name); continue; }
    if (below || r.top > H) continue;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit && !e.contains(hit) && !hit.contains(e)) bad.push("covered by " + (hit.className || hit.tagName) + ": " + name);
  }
  return bad;
}"""


def cut_off(page: Page, scrolls: bool = False) -> list[str]:
    """What a player could not read or reach: off the screen, text wider than its box, or covered.

    ``scrolls``: a page that scrolls (a phone, the spectator page): only what is in view is
    checked for being covered, and nothing may stick out sideways."""
    return page.evaluate(CUT_OFF, scrolls)  # type: ignore[no-any-return]


def counted(page: Page) -> None:
    """Wait until the tanteo's lines, banner and what was not counted have all appeared."""
    page.wait_for_function("""() => [...document.querySelectorAll(
        ".tanteo .tev, .side.end .winbanner, .side.end .notcounted")].every(
        (e) => getComputedStyle(e).opacity === "1")""")


def shot(page: Page, name: str, transparent: bool = False, scrolls: bool = False) -> None:
    """Save a screenshot to look at, after checking that nothing on it is cut off."""
    page.wait_for_function("() => { const f = document.getElementById('flash'); return !f || f.hidden; }")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    bad = cut_off(page, scrolls)
    page.screenshot(path=str(ARTIFACTS / name), omit_background=transparent, full_page=scrolls)
    assert bad == [], name


def test_a_whole_hand_on_the_display(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT)
    page.goto(served.url + "/")
    expect(page.locator(".speaker")).to_contain_text("asiento 1")
    shot(page, "display-800x480-bets.png")

    # the envido's number: «Envido» is 2; more with + and back with −, never below 2
    envido = page.locator('button[data-word="envido"] .wl')
    expect(envido).to_have_text("Envido")
    page.click('button[data-step="+"]')
    page.click('button[data-step="+"]')
    expect(envido).to_have_text("Envido 4")
    page.click('button[data-step="-"]')
    page.click('button[data-step="-"]')
    expect(envido).to_have_text("Envido")
    expect(page.locator('button[data-step="-"]')).to_be_disabled()

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
    expect(page.locator(".speaker")).to_contain_text("Responde el asiento 2")  # the envido went in

    page.click('button[data-word="no quiero"]')
    expect(page.locator(".speaker")).to_contain_text("asiento 4")
    page.click("#btn-unsay")  # the last word taken back, then said again
    expect(page.locator(".speaker")).to_contain_text("Responde el asiento 2")
    assert served.loop.snapshot()["bets"]["words"]["grande"] == [[0, "envido", 2]]
    page.wait_for_function("window.tapAge() > 1000")  # the same word again: not a double tap
    page.click('button[data-word="no quiero"]')
    expect(page.locator(".speaker")).to_contain_text("asiento 4")
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
    page.locator("#btn-read-now, #btn-read").first.click()
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    expect(page.locator(".tev").last).to_contain_text("van 3 a 9")
    counted(page)  # the tanteo is counted step by step
    shot(page, "display-800x480-tanteo.png")

    # correct a card: the 4 de bastos of seat 0 was «misread» as 5 de bastos, then put right
    card = page.locator('.cardbtn[data-seat="0"]').filter(has=page.locator('[data-card="4b"]'))
    card.click()
    page.click('.pick[data-card="5b"]')
    expect(page.locator('.cardbtn[data-seat="0"] [data-card="5b"]')).to_have_count(1)
    assert "5b" in served.loop.snapshot()["cards"][0]
    page.locator('.cardbtn[data-seat="0"]').filter(has=page.locator('[data-card="5b"]')).click()
    shot(page, "display-800x480-picker.png")
    page.click('.pick[data-card="4b"]')
    expect(page.locator(".tev").last).to_contain_text("van 3 a 9")

    # a player of the other pair confirms (the hand went against pair 0)
    expect(page.locator(".confirm-btn")).to_have_count(2)
    page.click('.confirm-btn[data-seat="0"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    expect(page.locator('.points[data-pair="0"]')).to_have_text("3")
    expect(page.locator('.points[data-pair="1"]')).to_have_text("9")
    expect(page.locator(".speaker")).to_contain_text("asiento 2")  # mano moved on
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
    expect(page.locator(".speaker")).to_contain_text("Responde el asiento 3")
    page.click('button[data-word="quiero"]')
    served.table.show([[Card.parse(c) for c in s] for s in HAND2])
    page.locator("#btn-read-now, #btn-read").first.click()
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    expect(page.locator("#winbanner")).to_contain_text("JUEGO PARA LOS ASIENTOS 2 Y 4")
    counted(page)
    shot(page, "display-800x480-ordago-won.png")
    # the pair that lost the órdago confirms it (seats 0 and 2, «asientos 1 y 3»), not its winners
    expect(page.locator(".confirm-btn")).to_have_count(2)
    assert page.locator(".confirm-btn").evaluate_all("(bs) => bs.map((b) => +b.dataset.seat)") == [0, 2]
    page.click('.confirm-btn[data-seat="2"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    expect(page.locator('.points[data-pair="1"]')).to_have_text("0")  # a new juego
    assert served.loop.snapshot()["partida"]["juegos"] == [0, 1]

    # learning a deck: where each card of the frame goes; a photo; the next frame; cancel
    page.click("#btn-learn")
    expect(page.locator(".learnmat .card")).to_have_count(16)
    expect(page.locator(".learnmat .seatcards.seat0")).to_contain_text("1")
    shot(page, "display-800x480-learning.png")
    # the photo is checked as it is taken: the cards of a hand are not the drawing's, said on the
    # mat, zone by zone, in Spanish, and the photo is to be taken again before the next one
    page.wait_for_function("window.tapAge() > 1000")
    page.click("#btn-capture")
    expect(page.locator("#main")).to_have_attribute("data-phase", "learning")
    expect(page.locator("#learnfaults")).to_contain_text("zona del asiento 1: la carta 1 es el")
    expect(page.locator(".learnstep")).to_contain_text("Foto 1 de 3")
    expect(page.locator("#btn-capture")).to_have_text("Repetir la foto 1")
    expect(page.locator('.learntabs [data-frame="0"]')).to_contain_text("\u26A0")
    assert served.loop.snapshot()["learning"]["done"] == [0]
    # four zones wrong at once: the box over the mat says whole what fits, sums up the rest, and
    # cuts no line (shot checks that it does not scroll or overflow)
    expect(page.locator("#learnmore")).to_have_text(re.compile(r"^y \d avisos? más"))
    said = len(served.loop.snapshot()["learning"]["faults"]["0"])
    assert said >= 3 and page.locator(".learnfault").count() + int(page.locator("#learnmore").inner_text()[2]) == said
    shot(page, "display-800x480-learning-fault.png")
    page.get_by_role("button", name="Dejarlo").click()
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    expect(page.locator(".speaker")).to_be_visible()

    # hand 3: an impossible table, said plainly with what to do, put right with a tap; then the
    # pair that wins grande reaches 40 at once, and what it left uncounted is shown
    assert served.loop.snapshot()["mano"] == 2
    served.command({"kind": "say", "seat": 2, "word": "envido", "n": 40})
    served.command({"kind": "say", "seat": 3, "word": "quiero"})
    served.table.show([[Card.parse(c) for c in s] for s in HAND3])  # the stones still say 3 to 9
    page.locator("#btn-read-now, #btn-read").first.click()
    expect(page.locator("#main")).to_have_attribute("data-phase", "impossible")
    expect(page.locator("#problems")).to_contain_text("Qué hacer")
    expect(page.locator("#faults")).to_contain_text("moved las piedras")  # the score is 0 to 0
    shot(page, "display-800x480-impossible.png")
    # the reader refuses both copies of the 12o: a «?» in seat 1 and in seat 2, each a tap away
    page.locator('.cardbtn[data-seat="1"]').filter(has_text="?").click()
    page.click('.pick[data-card="7c"]')
    expect(page.locator('.cardbtn[data-seat="1"]').filter(has_text="?")).to_have_count(0)
    page.locator('.cardbtn[data-seat="2"]').filter(has_text="?").click()
    page.click('.pick[data-card="12o"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    expect(page.locator("#winbanner")).to_contain_text("JUEGO PARA LOS ASIENTOS 1 Y 3")
    expect(page.locator(".tev.wins")).to_contain_text("van 40 a 0")
    expect(page.locator(".notcounted li").first).to_be_visible()
    snap = served.loop.snapshot()
    assert snap["won_at"] is not None and any(not t["counted"] for t in snap["tanteo"])
    counted(page)
    shot(page, "display-800x480-juego-won.png")
    for w, h, name in ((1024, 600, "display-1024x600-tanteo.png"), (390, 844, "display-phone-tanteo.png")):
        page.set_viewport_size({"width": w, "height": h})
        shot(page, name, scrolls=w < 600)
    page.set_viewport_size({"width": 800, "height": 480})
    page.click('.confirm-btn[data-seat="1"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    assert served.loop.snapshot()["partida"]["juegos"] == [1, 1]
    served.table.set_score([0, 0])
    expect(page.locator("#faults")).to_be_hidden()

    for w, h, name in ((1024, 600, "display-1024x600.png"), (390, 844, "display-phone.png")):
        page.set_viewport_size({"width": w, "height": h})
        shot(page, name, scrolls=w < 600)
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

    served.app.wsgi_app = recording  # type: ignore[method-assign,assignment]
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
    hands = len(served.loop.hands())
    expect(page.locator("#hands li")).to_have_count(hands or 1)
    shot(page, "watch.png", scrolls=True)

    # the cards are read: the spectators see them and the tanteo, and the overlay shows it too
    bets = served.loop.snapshot()["bets"]
    served.command({"kind": "say", "seat": bets["speaker"], "word": "no quiero"})  # the partner too
    served.table.show([[Card.parse(c) for c in s] for s in HAND])
    state = served.command({"kind": "read"})
    assert state["phase"] == "scored", (state["faults"], state["problems"], state["cards"], state["bets"])
    expect(page.locator("#cards .card")).to_have_count(16)
    expect(page.locator("#tanteo .tev").last).to_contain_text(
        "van {} a {}".format(*state["tanteo"][-1]["score"]))
    expect(page.locator("#tanteo table.lances tr")).to_have_count(4)
    shot(page, "watch-tanteo.png", scrolls=True)
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "watch-phone.png", scrolls=True)
    overlay = browser.new_page(viewport={"width": 1920, "height": 1080})
    overlay.goto(served.url + "/overlay")
    overlay.wait_for_function("window.countDone === true")  # the score bar moved with the count
    final = ([t["score"] for t in state["tanteo"] if t["counted"]] or [state["score"]])[-1]
    expect(overlay.locator(".ov-score .points").first).to_have_text(str(final[0]))
    expect(overlay.locator(".ov-tanteo .tev")).to_have_count(len(state["tanteo"]))
    shot(overlay, "overlay-1080p.png", transparent=True)
    overlay.close()

    # a player confirms: the hand joins the partida's list, live, and its replay is a tap away
    served.command({"kind": "confirm", "seat": state["confirm_by"][0]})
    expect(page.locator("#hands li")).to_have_count(hands + 1)
    expect(page.locator("#cards")).to_contain_text("Esperando")
    assert page.evaluate("window.notReloaded") is True
    page.click("#hands li a >> nth=0")
    expect(page.locator(".explain li").first).to_contain_text("Mano el asiento")
    expect(page.locator(".explain")).to_contain_text("El tanteo, por su orden")
    shot(page, "replay.png", scrolls=True)

    # a pair inside its last five stones is «dentro», as the table shows it
    text = page.evaluate("""() => { const d = document.createElement("div");
      renderScore(d, {score: [37, 12], phase: "playing", mano: 1, hand_no: 9, target: 40,
        stones: [{amarracos: 0, piedras: 2, dentro: true}, {amarracos: 2, piedras: 2, dentro: false}],
        partida: {juegos: [1, 0], vacas: [0, 0]}, bets: {lance: "chica"}});
      return d.textContent; }""")
    assert "dentro 2 piedras" in text and "2 amarracos · 2 piedras" in text and "1 juego" in text
    page.close()
    served.app.wsgi_app = wsgi  # type: ignore[method-assign]


def test_the_partida_won_and_a_new_one(served: Served, browser: Any) -> None:
    # two accepted órdagos that pair 1 wins at grande take it to three juegos: the vaca and the partida
    for _ in range(2):
        state = served.loop.snapshot()
        if state["phase"] == "over":
            break
        served.command({"kind": "say", "seat": state["bets"]["speaker"], "word": "ordago"})
        served.command({"kind": "say", "seat": served.loop.snapshot()["bets"]["speaker"], "word": "quiero"})
        served.table.show([[Card.parse(c) for c in s] for s in HAND2])
        state = served.command({"kind": "read"})
        assert state["answer"]["winner"] == 1
        served.command({"kind": "confirm", "seat": state["confirm_by"][0]})
    assert served.loop.snapshot()["phase"] == "over"

    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT)
    page.goto(served.url + "/")
    expect(page.locator(".over .winbanner")).to_contain_text("Partida para los asientos 2 y 4")
    shot(page, "display-800x480-partida-won.png")
    expect(page.locator(".over")).to_contain_text("Vacas: 0 a 1")
    page.click("#btn-new-partida")  # «Nueva partida»: the PIN first, then a second step
    for d in PIN:
        page.click(f'.pinkey[data-key="{d}"]')
    page.click('.pinkey[data-key="OK"]')
    expect(page.locator("#surebox")).to_contain_text("queda en el diario")
    # the players' names, on the on-screen keyboard, and the house rules agreed: juego a 30
    for seat, name in ((0, "JON"), (2, "ANE")):
        page.click(f'.npname[data-seat="{seat}"]')
        for ch in name:
            page.click(f'.kbkey[data-key="{ch}"]')
        page.click('.kbkey[data-key="ok"]')
    page.click('.nprow[data-rule="target"] .npopt[data-value="30"]')
    expect(page.locator('.npname[data-seat="0"]')).to_have_text("Jon (asiento 1)")
    shot(page, "display-800x480-new-partida.png")
    page.click("#btn-sure")
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    expect(page.locator('.points[data-pair="1"]')).to_have_text("0")
    snap = served.loop.snapshot()
    assert snap["partida"]["juegos"] == [0, 0]
    assert snap["names"] == ["Jon", "", "Ane", ""] and snap["rules"]["target"] == 30
    expect(page.locator(".pair0 .pairname")).to_have_text("Jon y Ane")  # a pair by its players
    expect(page.locator(".speaker")).to_contain_text("Habla Jon (asiento 1)")
    shot(page, "display-800x480-names.png")
    page.close()


def test_a_phone_opening_the_page_gives_a_table_with_no_network_its_time(browser: Any) -> None:
    """The spectator page of a table whose clock is a month behind and not synchronised: the
    browser sends its own time once, and the table's clock (a stand-in) is moved to it; the
    display shows that it was."""
    import time

    from firmware.clock import RELEASE_FLOOR, FakeClock, PhoneClock

    fake = FakeClock(max(RELEASE_FLOOR, time.time() - 30 * 86400.0))
    app = create_app(TableLoop(reader=TableReader()), pin=PIN, clock=PhoneClock(fake))
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://127.0.0.1:{server.effective_port}"
    try:
        page = browser.new_page()
        page.goto(url + "/watch")
        page.wait_for_function("() => window.clockAnswer !== undefined")
        assert page.evaluate("window.clockAnswer") == "clock_set"
        assert len(fake.sets) == 1 and abs(fake.sets[0] - time.time()) < 120
        page.goto(url + "/")  # the clock is set: no page asks again
        assert page.locator('meta[name="clock-wanted"]').count() == 0
        page.close()
    finally:
        app.extensions["mus_table"]["hub"].stop()
        server.close()


def test_a_long_press_shows_the_pin_on_the_kiosk_and_changes_it(browser: Any) -> None:
    """The kiosk (loopback) holds «Desbloquear»: the PIN, and «Cambiar el PIN» (the PIN asked first)."""
    s = Served()
    try:
        page = browser.new_page(viewport={"width": 800, "height": 480})
        page.set_default_timeout(TIMEOUT)
        page.goto(s.url + "/")
        page.locator("#btn-lock").click(delay=1600)  # a long press
        expect(page.locator("#pinvalue")).to_have_text(PIN)
        expect(page.locator("#pinshow")).to_be_visible()  # the press did not also ask to unlock
        shot(page, "display-800x480-pin-shown.png")
        page.click("#btn-change-pin")
        for d in PIN:  # locked: the PIN first
            page.click(f'.pinkey[data-key="{d}"]')
        page.click('.pinkey[data-key="OK"]')
        for d in "975310":
            page.click(f'.newpinkey[data-key="{d}"]')
        page.click('.newpinkey[data-key="OK"]')
        expect(page.locator("#newpinmsg")).to_contain_text("PIN cambiado")
        assert s.app.extensions["mus_table"]["guard"].pin == "975310"
        page.close()
    finally:
        s.close()
