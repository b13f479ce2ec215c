"""A whole juego played on the display by taps alone, as a player would, in real headless Chromium.

The real loop over the synthetic table (the scene renderer as the camera, the
real reader), served by waitress. Every tap is counted, from the first word of
a hand to its confirmation, and the counts are written to
``test-artifacts/taps.json``; each screen is checked for anything off the
screen, cut or covered, and for a word of English, before its screenshot is
saved (``shot``).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_browser_web import ARTIFACTS, HAND, HAND2, PIN, TIMEOUT, Served
from test_browser_web import shot as saved_shot
from test_spanish import english

from table.cards import Card

expect.set_options(timeout=TIMEOUT)


SEEN_TEXT = """() => {
  const out = [document.body.innerText];
  for (const e of document.querySelectorAll("[title], [aria-label], [placeholder], [alt]")) {
    if (!e.getClientRects().length) continue;
    for (const a of ["title", "aria-label", "placeholder", "alt"]) {
      const v = e.getAttribute(a);
      if (v) out.push(v);
    }
  }
  return out.join("\\n");
}"""
"""What a person sees or hears of the page: its rendered text and the visible elements' labels."""


def shot(page: Page, name: str, transparent: bool = False, scrolls: bool = False) -> None:
    """Every screen checked, before its screenshot, for a word of English (``tests/test_spanish.py``)."""
    saved_shot(page, name, transparent, scrolls)
    text = page.evaluate(SEEN_TEXT)
    assert text.strip() or transparent, name  # something was read (a transparent overlay may be bare)
    assert english(text) == [], (name, english(text), text)


class Player:
    """Taps the display and counts the taps; waits for what each tap does (no sleeps)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.taps = 0
        self.last = ""

    def seq(self) -> int:
        return int(self.page.evaluate("window.STATE ? window.STATE.seq : -1"))

    def tap(self, selector: str, *, changes: bool = True) -> None:
        """One tap. ``changes``: it sends a command, so wait until the table's state moved on."""
        if selector == self.last:  # the same word again: a repeat within a second is ignored
            self.page.wait_for_function("window.tapAge() > 1000")
        before = self.seq()
        self.page.click(selector)
        self.taps += 1
        self.last = selector
        if changes:
            self.page.wait_for_function(f"window.STATE && window.STATE.seq > {before}")

    def unlock(self) -> None:
        self.page.click("#btn-lock")
        for d in PIN:
            self.page.click(f'.pinkey[data-key="{d}"]')
        self.page.click('.pinkey[data-key="OK"]')
        expect(self.page.locator("#btn-lock")).to_have_text("Bloquear")


def show(served: Served, hand: list[list[str]]) -> None:
    served.table.show([[Card.parse(c) for c in s] for s in hand])


def settle(served: Served) -> None:
    """The players move the stones as the score says."""
    served.table.set_score(list(served.loop.snapshot()["score"]))


def test_a_whole_juego_by_taps(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served.url + "/")
    me = Player(page)
    expect(page.locator(".speaker")).to_contain_text("Habla el asiento 1")  # people count from 1
    expect(page.locator("#standing")).to_have_text("Nada envidado en la grande")
    shot(page, "play-800x480-grande.png")
    me.unlock()
    taps: dict[str, Any] = {}

    # hand 1, no envites: the whole lance in one tap, twice; then the cards; then who lost confirms
    me.taps = 0
    me.tap("button.q-paso")
    expect(page.locator("#flash")).to_contain_text("Grande: En paso")
    expect(page.locator(".speaker")).to_contain_text("Chica")
    me.tap("button.q-paso")
    expect(page.locator(".declare")).to_be_visible()
    show(served, HAND)
    me.tap("#btn-read-now")
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    state = served.loop.snapshot()
    by = state["confirm_by"]
    expect(page.locator(".confirm-btn")).to_have_count(len(by))
    assert sorted(int(x) for x in page.locator(".confirm-btn").evaluate_all(
        "(bs) => bs.map((b) => b.dataset.seat)")) == sorted(by)
    me.tap(f'.confirm-btn[data-seat="{by[0]}"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    taps["no_envites"] = me.taps
    assert me.taps <= 6
    settle(served)

    # hand 2: envido (2), a raise of 3 more over it, «no quiero» from both; a card corrected
    me.taps = 0
    expect(page.locator(".speaker")).to_contain_text("Habla el asiento 2")  # mano moved on
    expect(page.locator('button[data-word="envido"] .wl')).to_have_text("Envido")
    expect(page.locator('button[data-word="envido"] .ws')).to_have_text("van 2")
    me.tap('button[data-word="envido"]')
    expect(page.locator("#flash")).to_contain_text("Envido — asiento 2")
    expect(page.locator("#standing")).to_contain_text("Van 2 en la grande")
    expect(page.locator('button[data-word="envido"] .wl')).to_have_text("2 más")  # the smallest raise
    expect(page.locator('button[data-word="quiero"] .ws')).to_have_text("se juegan 2")
    expect(page.locator('button[data-word="no quiero"] .ws')).to_contain_text("1 para los asientos 2 y 4")
    me.tap('button[data-step="+"]', changes=False)
    expect(page.locator('button[data-word="envido"] .wl')).to_have_text("3 más")
    expect(page.locator('button[data-word="envido"] .ws')).to_have_text("van 5")
    shot(page, "play-800x480-raise.png")
    me.tap('button[data-word="envido"]')
    expect(page.locator("#standing")).to_contain_text("Van 5 en la grande")
    expect(page.locator('button[data-word="envido"] .wl')).to_have_text("2 más")  # from the smallest again
    expect(page.locator('button[data-word="no quiero"] .ws')).to_contain_text("2 para los asientos 1 y 3")
    me.tap('button[data-word="no quiero"]')
    me.tap('button[data-word="no quiero"]')
    expect(page.locator(".speaker")).to_contain_text("Chica")
    words = served.loop.snapshot()["bets"]["words"]["grande"]
    assert [w[1:] for w in words] == [["envido", 2], ["envido", 3], ["no quiero"], ["no quiero"]]
    me.tap("button.q-paso")
    show(served, HAND)
    me.tap("#btn-read-now")
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    counted_taps = me.taps
    # a card corrected by hand is marked so for the pair that confirms
    card = page.locator('.cardbtn[data-seat="0"]').filter(has=page.locator('[data-card="4b"]'))
    card.click()
    expect(page.locator(".pickbox")).to_be_visible()
    shot(page, "play-800x480-picker.png")
    page.click('.pick[data-card="5b"]')
    expect(page.locator(".card.corrected")).to_have_count(1)
    expect(page.locator(".card.corrected")).to_contain_text("a mano")
    expect(page.locator("#btn-reread")).to_be_visible()  # «Leer las cartas» until confirmed
    shot(page, "play-800x480-corrected.png")
    state = served.loop.snapshot()
    assert "5b" in state["cards"][0]
    by = state["confirm_by"]
    gain = [state["answer"]["score"][p] - state["score"][p] for p in (0, 1)]
    if gain[0] != gain[1]:  # the pair the hand went against confirms
        assert {s % 2 for s in by} == {0 if gain[0] < gain[1] else 1}
    expect(page.locator(".confirm-btn")).to_have_count(len(by))
    me.tap(f'.confirm-btn[data-seat="{by[0]}"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    taps["envido_raise_no_quiero"] = counted_taps + 1
    taps["correction"] = 2
    settle(served)

    # hand 3: an órdago said by word and accepted; the cards decide the juego; the losers confirm
    me.taps = 0
    me.tap('button[data-word="ordago"]')
    expect(page.locator("#standing")).to_contain_text("Órdago del asiento 3")
    expect(page.locator('button[data-word="quiero"] .ws')).to_have_text("se juega el juego")
    shot(page, "play-800x480-ordago.png")
    me.tap('button[data-word="quiero"]')
    show(served, HAND2)
    me.tap("#btn-read-now")
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    state = served.loop.snapshot()
    winner = state["answer"]["winner"]
    assert winner is not None
    expect(page.locator("#winbanner")).to_contain_text(
        f"JUEGO PARA LOS ASIENTOS {winner + 1} Y {winner + 3}")
    by = state["confirm_by"]
    assert sorted(by) == [1 - winner, 3 - winner]  # the pair that lost the órdago confirms
    expect(page.locator(".confirm-btn")).to_have_count(2)
    page.wait_for_function("""() => [...document.querySelectorAll(".tanteo .tev, .side.end .winbanner")]
        .every((e) => getComputedStyle(e).opacity === "1")""")
    shot(page, "play-800x480-ordago-won.png")
    me.tap(f'.confirm-btn[data-seat="{by[0]}"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    taps["ordago"] = me.taps
    snap = served.loop.snapshot()
    assert snap["partida"]["juegos"][winner] == 1 and snap["score"] == [0, 0]
    assert [h.answer.winner for h in served.loop.hands()][-1] == winner
    settle(served)
    (ARTIFACTS / "taps.json").write_text(json.dumps(taps, indent=1) + "\n")
    assert errors == []  # not one script error in the whole juego
    page.close()


def test_double_taps_lost_taps_and_the_lock(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT)
    page.goto(served.url + "/")
    me = Player(page)
    me.unlock()
    expect(page.locator(".speaker")).to_be_visible()
    lance = served.loop.snapshot()["bets"]["lance"]
    # a double tap on «Paso» is one paso, not a paso for the next player too
    page.dblclick('button[data-word="paso"]')
    page.wait_for_function("window.lastFlash && window.lastFlash.startsWith('Paso')")
    assert len(served.loop.snapshot()["bets"]["words"][lance]) == 1
    page.wait_for_function("window.tapAge() > 1000")
    me.tap("#btn-unsay")

    # a tap that cannot reach the table is said so, and sent again with a tap
    page.route("**/api/command", lambda route: route.abort())
    page.click('button[data-word="paso"]')
    expect(page.locator("#pending")).to_contain_text("No ha llegado a la mesa: Paso")
    shot(page, "play-800x480-not-sent.png")
    assert served.loop.snapshot()["bets"]["words"][lance] == []
    page.unroute("**/api/command")
    me.tap("#btn-retry")
    expect(page.locator("#pending")).to_be_hidden()
    assert len(served.loop.snapshot()["bets"]["words"][lance]) == 1
    me.tap("#btn-unsay")

    # the table restarted (its sessions gone): the page says it is locked, and asks for the PIN
    page.context.clear_cookies()
    served.app.extensions["mus_table"]["hub"].drop_all()
    expect(page.locator("#btn-lock")).to_have_text("Desbloquear")
    expect(page.locator("#lockstate")).to_contain_text("Solo lectura")

    # «Nueva partida»: the PIN, then a second step that says what happens; cancelled here
    page.click("#btn-lock")
    for d in PIN:
        page.click(f'.pinkey[data-key="{d}"]')
    page.click('.pinkey[data-key="OK"]')
    page.click("#btn-new")
    expect(page.locator("#surebox")).to_contain_text("queda en el diario")
    shot(page, "play-800x480-new-partida.png")
    page.get_by_role("button", name="Cancelar").click()
    expect(page.locator("#modal")).to_be_hidden()
    page.close()


@pytest.mark.parametrize("size", [(1024, 600), (390, 844)])
def test_the_bets_at_other_sizes(served: Served, browser: Any, size: tuple[int, int]) -> None:
    w, h = size
    page = browser.new_page(viewport={"width": w, "height": h})
    page.set_default_timeout(TIMEOUT)
    page.goto(served.url + "/")
    expect(page.locator(".speaker")).to_contain_text(re.compile("Habla|Responde"))
    shot(page, f"play-{w}x{h}-bets.png", scrolls=w < 600)
    page.close()


def test_spectators_and_the_overlay_know_the_state_and_the_result(served: Served, browser: Any) -> None:
    overlay = browser.new_page(viewport={"width": 1920, "height": 1080})
    overlay.set_default_timeout(TIMEOUT)
    bar = browser.new_page(viewport={"width": 1920, "height": 1080})
    bar.set_default_timeout(TIMEOUT)
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    for page in (overlay, bar, phone):
        page.on("pageerror", lambda e: errors.append(str(e)))
    overlay.goto(served.url + "/overlay")
    bar.goto(served.url + "/overlay?layout=bar")
    phone.goto(served.url + "/watch")
    state = served.loop.snapshot()
    speaker = state["bets"]["speaker"]
    served.command({"kind": "say", "seat": speaker, "word": "envido", "n": 4})
    expect(overlay.locator(".ov-standing")).to_contain_text("Van 4 en la grande")
    expect(overlay.locator(".ov-speaks")).to_contain_text(f"asiento {(speaker + 1) % 4 + 1}")
    shot(overlay, "overlay-1080p-envite.png", transparent=True)
    served.command({"kind": "say", "seat": served.loop.snapshot()["bets"]["speaker"], "word": "ordago"})
    expect(overlay.locator("#ov-ordago")).to_contain_text("Órdago del asiento")
    expect(phone.locator("#lance")).to_contain_text("Órdago del asiento")
    shot(overlay, "overlay-1080p-ordago.png", transparent=True)
    served.command({"kind": "say", "seat": served.loop.snapshot()["bets"]["speaker"], "word": "quiero"})
    show(served, HAND2)
    state = served.command({"kind": "read"})
    assert state["phase"] == "scored"
    winner = state["answer"]["winner"]
    who = f"LOS ASIENTOS {winner + 1} Y {winner + 3}"
    for page in (overlay, bar, phone):
        expect(page.locator("#ov-win, #result").first).to_contain_text(f"JUEGO PARA {who}")
    expect(overlay.locator(".ov-cards .card")).to_have_count(16)
    expect(bar.locator(".ov-cards")).to_be_hidden()  # the bar layout: the score and the winner only
    shot(overlay, "overlay-1080p-won.png", transparent=True)
    shot(bar, "overlay-1080p-bar.png", transparent=True)
    # on a phone the result is above the fold, and the score moves with the count to its end
    box = phone.locator("#result").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844
    phone.wait_for_function("window.countDone === true")
    last = ([t["score"] for t in state["tanteo"] if t["counted"]] or [state["score"]])[-1]
    expect(phone.locator('.points[data-pair="0"]')).to_have_text(str(last[0]))
    expect(phone.locator('.points[data-pair="1"]')).to_have_text(str(last[1]))
    overlay.wait_for_function("window.countDone === true")  # the stream's score bar follows too
    expect(overlay.locator('.points[data-pair="0"]')).to_have_text(str(last[0]))
    expect(overlay.locator('.points[data-pair="1"]')).to_have_text(str(last[1]))
    shot(phone, "watch-phone-won.png", scrolls=True)
    served.command({"kind": "confirm", "seat": state["confirm_by"][0]})
    settle(served)
    expect(phone.locator("#result")).to_contain_text("Último juego para los asientos")
    # a juego that closes a vaca says the vaca, and the partida's end says who won it
    said = phone.evaluate("""() => [
      resultText({phase: "playing", score: [0, 0], hands: 9, last_hand: {winner: 1},
                  partida: {juegos: [0, 0], vacas: [0, 1], vaca_results: [[1, 2]], over: false}}),
      resultText({phase: "over", score: [0, 0], names: ["Jon", "", "Ane", ""],
                  partida: {juegos: [0, 0], vacas: [2, 1], vaca_results: [[2, 0], [1, 2], [2, 1]],
                            over: true, winner: 0}})]""")
    assert said == ["¡Vaca para los asientos 2 y 4! (1 a 2 en juegos)", "¡Partida para Jon y Ane! Vacas: 2 a 1"]
    assert errors == []
    for page in (overlay, bar, phone):
        page.close()
