"""Learning the players' deck on the display, end to end, by taps alone, in real headless Chromium.

The demo's table (``firmware.demo.make_demo``: the synthetic table as the
camera, the real reader, the learner that lays each frame of ``docs/mat.md`` as
the display asks) is served by waitress. Photo 1 is first laid wrong (two cards
missing from seat 2's zone, :data:`firmware.demo.LEARNING_MISTAKES`), the
display says so on its drawing of the mat, the cards are laid right; photo 2 is
first laid with a card face down, said alike before photo 3; the three
photos taken, the deck named on the on-screen keyboard and kept in the table's
state directory; a table started again there reads with it, and the display
goes back to the card model alone. Every tap is counted (``test-artifacts/
learn-taps.json``) and every screen checked for anything cut, covered or off the
screen, at 800x480 and 1024x600 (the deck is learnt once: it costs the real model's time).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_browser_web import ARTIFACTS, TIMEOUT, cut_off

from firmware.demo import Demo, make_demo
from firmware.synthetic import LearningLayout
from vision.learnt import LearntClassifier, deck_in_use
from web.app import create_app
from web.server import make_server

expect.set_options(timeout=TIMEOUT)
NAME = "Baraja del club — Ñ"
LEARN_TIMEOUT = 120000
"""Taking a photo reads it, and saving learns the deck with the real model: allowed generously."""


class Served:
    """The demo's table, built as ``mus-table demo --journal STATE/journal.jsonl`` builds it (the deck
    in use found in the state directory), served without its players: people learn a deck here."""

    def __init__(self, state: Path, *, mistakes: bool) -> None:
        self.demo: Demo = make_demo(seed=3, journal=state / "journal.jsonl", learning_mistakes=mistakes)
        self.loop = self.demo.table.loop
        self.table = self.demo.synthetic
        self.loop.attach_camera(self.table.still)
        self.pin = self.demo.table.config.table.pin
        self.app = create_app(self.loop, pin=self.pin, max_spectators=20, keepalive=1.0, retry_ms=300)
        self.server = make_server(self.app, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.app.extensions["mus_table"]["hub"].stop()
        self.server.close()
        if self.demo.learner is not None:
            self.demo.learner.close()
        self.demo.table.stop()


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The table's state directory: the journal, and the learnt decks beside it (as on the Pi)."""
    state = tmp_path_factory.mktemp("state")
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(state)
    yield state
    if old is None:
        del os.environ["XDG_DATA_HOME"]
    else:
        os.environ["XDG_DATA_HOME"] = old


class Person:
    """Taps the display and counts the taps; waits for what each tap does (no sleeps)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.taps = 0

    def tap(self, selector: str) -> None:
        self.page.click(selector)
        self.taps += 1

    def command(self, selector: str, timeout: float = TIMEOUT) -> None:
        """A tap that sends a command: wait until the table's state moved on."""
        before = int(self.page.evaluate("window.STATE ? window.STATE.seq : -1"))
        self.page.wait_for_function("window.tapAge() > 1000")  # never taken for a double tap
        self.tap(selector)
        self.page.wait_for_function(f"window.STATE && window.STATE.seq > {before}", timeout=timeout)

    def pin(self, pin: str) -> None:
        for d in pin:
            self.tap(f'.pinkey[data-key="{d}"]')
        self.tap('.pinkey[data-key="OK"]')

    def type(self, text: str) -> None:
        """On the on-screen keyboard: a key per letter (the first is a capital; «⇧» before any other)."""
        for i, ch in enumerate(text):
            if i and ch != ch.lower():
                self.tap('.kbkey[data-key="shift"]')
            self.tap('.kbkey[data-key="space"]' if ch == " " else f'.kbkey[data-key="{ch.upper()}"]')


SIZES = ((800, 480), (1024, 600))
"""The kiosk's screen and the larger one; every step is looked at on both."""


def looked_at(page: Page, step: str) -> None:
    """At each screen size: nothing cut, covered or off the screen, nothing that scrolls; saved to look at."""
    page.wait_for_function("() => { const f = document.getElementById('flash'); return !f || f.hidden; }")
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
        bad = cut_off(page)
        scrolls = page.evaluate("""() => [document.scrollingElement, ...document.querySelectorAll(
            '.learnside, .learnmat, .kbbox, .deck, .deckname')].filter((e) => e.scrollHeight > e.clientHeight + 1
            || e.scrollWidth > e.clientWidth + 1).map((e) => e.className || e.tagName)""")
        name = f"learn-{w}x{h}-{step}.png"
        page.screenshot(path=str(ARTIFACTS / name))
        assert bad == [], name
        assert scrolls == [], name
    page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})


def test_a_deck_learnt_on_the_display_by_taps(state_dir: Path, browser: Any) -> None:
    w, h = SIZES[0]
    served = Served(state_dir, mistakes=True)
    page = browser.new_page(viewport={"width": w, "height": h})
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(served.url + "/")
        me = Person(page)
        expect(page.locator(".speaker")).to_be_visible()
        # «Aprender baraja», behind the PIN: the table stops reading hands and draws photo 1
        me.tap("#btn-lock")
        me.pin(served.pin)
        expect(page.locator("#btn-lock")).to_have_text("Bloquear")
        me.command("#btn-learn")
        expect(page.locator("#main")).to_have_attribute("data-phase", "learning")
        expect(page.locator(".learnstep")).to_have_text("Foto 1 de 3")
        expect(page.locator("#deckname")).to_have_text("Baraja: cualquiera")
        assert served.table.learning == LearningLayout(0, missing=((1, 2),))  # laid wrong
        looked_at(page, "1-photo1")

        # photo 1 on the wrong layout: the fault on the drawing of the mat, in Spanish, at its zone
        me.command("#btn-capture", LEARN_TIMEOUT)
        expect(page.locator("#learnfaults")).to_have_text("\u26A0 zona del asiento 2: faltan 2 cartas")
        expect(page.locator(".learnmat .seatcards.seat1.bad")).to_have_count(1)
        expect(page.locator(".learnmat .seatcards.bad")).to_have_count(1)
        expect(page.locator("#btn-capture")).to_have_text("Repetir la foto 1")
        expect(page.locator(".learnwhere")).to_contain_text("Esta foto no vale")
        expect(page.locator('.learntabs [data-frame="0"]')).to_contain_text("\u26A0")
        assert served.table.learning == LearningLayout(0)  # the person laid it right on reading that
        looked_at(page, "2-fault")

        # photo 1 again, then 2 and 3: each right, the drawing moves on to the next frame by itself;
        # photo 2 is first laid with a card face down, caught before photo 3 and laid right
        for k in (1, 2, 3):
            if k == 2:
                assert served.table.learning == LearningLayout(1, face_down=((2, 2),))  # laid wrong
            me.command("#btn-capture", LEARN_TIMEOUT)
            if k == 2:
                expect(page.locator("#learnfaults")).to_have_text(
                    "\u26A0 zona del asiento 3: la carta 3 está boca abajo")
                expect(page.locator(".learnmat .seatcards.seat2.bad")).to_have_count(1)
                expect(page.locator(".learnstep")).to_have_text("Foto 2 de 3")
                expect(page.locator("#btn-capture")).to_have_text("Repetir la foto 2")
                assert served.table.learning == LearningLayout(1)  # turned face up on reading that
                looked_at(page, "3-photo2-face-down")
                me.command("#btn-capture", LEARN_TIMEOUT)
            expect(page.locator("#learnfaults")).to_have_count(0)
            expect(page.locator(f'.learntabs [data-frame="{k - 1}"]')).to_contain_text("\u2713")
            if k < 3:
                expect(page.locator(".learnstep")).to_have_text(f"Foto {k + 1} de 3")
                expect(page.locator(".learnmat")).to_have_attribute("data-frame", str(k))
                assert served.table.learning == (LearningLayout(1, face_down=((2, 2),)) if k == 1
                                                 else LearningLayout(k))
                if k == 1:
                    expect(page.locator(".learnmat .seatcards.seat0")).to_contain_text("7")
                    looked_at(page, "3-photo2")
        expect(page.locator(".learnstep")).to_have_text("Las 3 fotos están hechas: ponle nombre y guárdala")
        assert served.loop.snapshot()["learning"]["faults"] == {}
        looked_at(page, "4-all-done")

        # the name on the on-screen keyboard, accents, a dash and an Ñ; then it is learnt and in use
        me.tap("#btn-deck-save")
        expect(page.locator(".kbbox")).to_be_visible()
        me.type(NAME)
        assert page.input_value("#kbshown") == NAME
        looked_at(page, "5-keyboard")
        before = int(page.evaluate("window.STATE.seq"))
        me.tap('.kbkey[data-key="ok"]')
        page.wait_for_function(f"window.STATE && window.STATE.seq > {before} && window.STATE.phase !== 'learning'",
                               timeout=LEARN_TIMEOUT)
        taps = me.taps
        snap = served.loop.snapshot()
        assert snap["deck"] == NAME and snap["phase"] == "playing"
        assert deck_in_use() == NAME and (state_dir / "mus-table" / "decks" / NAME / "deck.json").is_file()
        assert isinstance(served.loop.reader.classifier, LearntClassifier)  # type: ignore[union-attr]
        assert served.table.learning is None  # the deck taken away
        expect(page.locator("#deck")).to_have_text(f"Baraja: {NAME}")
        looked_at(page, "6-saved")
        assert errors == []
    finally:
        page.close()
        served.close()

    # the table started again on the same state directory reads with the deck; back to the model
    served = Served(state_dir, mistakes=False)
    page = browser.new_page(viewport={"width": w, "height": h})
    page.set_default_timeout(TIMEOUT)
    try:
        assert served.loop.snapshot()["deck"] == NAME
        assert isinstance(served.loop.reader.classifier, LearntClassifier)  # type: ignore[union-attr]
        page.goto(served.url + "/")
        expect(page.locator("#deck")).to_have_text(f"Baraja: {NAME}")
        assert page.evaluate("document.getElementById('deck').innerHTML") == f"Baraja: {NAME}"  # text, escaped
        me = Person(page)
        me.tap("#btn-lock")
        me.pin(served.pin)
        me.command("#btn-learn")
        expect(page.locator("#deckname")).to_have_text(f"Baraja: {NAME}")
        looked_at(page, "7-restarted")
        me.command("#btn-deck-base")
        expect(page.locator("#deckname")).to_have_text("Baraja: cualquiera")
        me.command("#btn-learn-cancel")
        expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
        assert served.loop.snapshot()["deck"] is None and deck_in_use() is None
        assert not isinstance(served.loop.reader.classifier, LearntClassifier)  # type: ignore[union-attr]
        expect(page.locator("#deck")).to_have_count(0)  # the card model alone: nothing to say
        looked_at(page, "8-base")
        back_taps = me.taps
    finally:
        page.close()
        served.close()
    (ARTIFACTS / "learn-taps.json").write_text(json.dumps(
        {"learn_with_pin_and_two_photos_retaken": taps, "back_to_the_model_with_pin": back_taps}, indent=1) + "\n")
