"""«Reabrir» on the display at 800x480, in real headless Chromium: a partida closed by «Nueva
partida» comes back with its score, its mano and its hands, and play goes on in it.

The real loop over the synthetic table, served by waitress (as ``test_browser_play``); every
screen of the reopen is checked for anything off the screen, cut or covered before its
screenshot is saved in ``test-artifacts/``. The taps of a reopen, from «Nueva partida» to
the partida back in play, are counted and written to ``test-artifacts/taps-reopen.json``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from test_browser_play import Player, settle, show
from test_browser_web import ARTIFACTS, HAND, TIMEOUT, Served, shot

expect.set_options(timeout=TIMEOUT)


def hand(me: Player, served: Served) -> dict[str, Any]:
    """A hand with no envites: grande and chica in paso in one tap each, the cards read, confirmed."""
    page = me.page
    me.tap("button.q-paso")
    expect(page.locator(".speaker")).to_contain_text("Chica")
    me.tap("button.q-paso")
    show(served, HAND)
    me.tap("#btn-read-now")
    expect(page.locator("#main")).to_have_attribute("data-phase", "scored")
    by = served.loop.snapshot()["confirm_by"]
    me.tap(f'.confirm-btn[data-seat="{by[0]}"]')
    expect(page.locator("#main")).to_have_attribute("data-phase", "playing")
    settle(served)
    return served.loop.snapshot()


def points(page: Page) -> list[str]:
    return [page.locator(f'.points[data-pair="{p}"]').inner_text() for p in (0, 1)]


def test_a_partida_closed_by_nueva_partida_is_reopened_and_play_goes_on(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 800, "height": 480})
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served.url + "/")
    me = Player(page)
    me.unlock()

    # partida 1: two hands
    hand(me, served)
    first = hand(me, served)
    assert first["partida"]["id"] == 1 and first["hands"] == 2 and first["score"] != [0, 0]
    expect(page.locator('.points[data-pair="0"]')).to_have_text(str(first["score"][0]))

    # «Nueva partida», with two players' names; one hand in it
    page.click("#btn-new")
    for seat, name in ((1, "IKER"), (3, "MIKEL")):
        page.click(f'.npname[data-seat="{seat}"]')
        for ch in name:
            page.click(f'.kbkey[data-key="{ch}"]')
        page.click('.kbkey[data-key="ok"]')
    page.click("#btn-sure")
    expect(page.locator(".pair1 .pairname")).to_have_text("Iker y Mikel")
    assert points(page) == ["0", "0"]
    settle(served)
    second = hand(me, served)
    assert second["partida"]["id"] == 2 and second["hands"] == 1

    # «Reabrir»: from «Nueva partida», the list of closed partidas, then a second step
    taps = 0
    page.click("#btn-new")
    taps += 1
    expect(page.locator("#btn-reopen-list")).to_be_visible()
    shot(page, "reopen-800x480-new-partida.png")
    page.click("#btn-reopen-list")
    taps += 1
    row = page.locator('.rprow[data-partida="1"]')
    expect(row).to_contain_text("Partida 1")
    expect(row).to_contain_text("2 manos")
    expect(row.locator(".rpscore")).to_contain_text(f"Asientos 1 y 3 {first['score'][0]} – {first['score'][1]}")
    expect(page.locator(".rprow")).to_have_count(1)  # the partida in play is not offered
    shot(page, "reopen-800x480-list.png")
    page.click('.reopen-btn[data-partida="1"]')
    taps += 1
    expect(page.locator("#surebox")).to_contain_text("Vuelve la partida 1 tal como se dejó")
    expect(page.locator("#surebox")).to_contain_text("La partida 2")
    expect(page.locator("#surebox")).to_contain_text("se puede reabrir")
    shot(page, "reopen-800x480-sure.png")
    before = me.seq()
    page.click("#btn-sure")
    taps += 1
    page.wait_for_function(f"window.STATE && window.STATE.seq > {before}")
    expect(page.locator("#flash")).to_contain_text("Partida 1 reabierta")
    back = served.loop.snapshot()
    assert back["partida"]["id"] == 1 and back["score"] == first["score"] and back["hands"] == 2
    assert back["mano"] == first["mano"] and back["names"] is None
    expect(page.locator('.points[data-pair="0"]')).to_have_text(str(first["score"][0]))
    expect(page.locator('.points[data-pair="1"]')).to_have_text(str(first["score"][1]))
    expect(page.locator(".pair1 .pairname")).to_have_text("Asientos 2 y 4")  # partida 1 had no names
    expect(page.locator(".handno")).to_contain_text("Mano n.º 3")
    shot(page, "reopen-800x480-back.png")

    # play goes on in partida 1: its third hand
    settle(served)
    on = hand(me, served)
    assert on["partida"]["id"] == 1 and on["hands"] == 3
    assert [h.n for h in served.loop.hands()] == [1, 2, 3] and len(served.loop.hands(2)) == 1

    # partida 2 is listed in its turn, with its players' names and score, and may come back
    page.click("#btn-new")
    page.click("#btn-reopen-list")
    row = page.locator('.rprow[data-partida="2"]')
    expect(row).to_contain_text("1 mano")
    expect(row.locator(".rpscore")).to_contain_text(
        f"Asientos 1 y 3 {second['score'][0]} – {second['score'][1]} Iker y Mikel")
    expect(row.locator(".reopen-btn")).to_be_visible()
    shot(page, "reopen-800x480-list-again.png")
    page.click("#btn-reopen-cancel")
    expect(page.locator("#modal")).to_be_hidden()
    assert served.loop.snapshot()["partida"]["id"] == 1
    (ARTIFACTS / "taps-reopen.json").write_text(json.dumps({"reopen": taps}, indent=1) + "\n")
    assert taps == 4 and errors == []
    page.close()


@pytest.mark.parametrize("size", [(1024, 600), (390, 844)])
def test_the_list_of_closed_partidas_at_other_sizes(served: Served, browser: Any, size: tuple[int, int]) -> None:
    if not any(p.reopenable for p in served.loop.partidas()):
        served.command({"kind": "new_partida"})
    w, h = size
    page = browser.new_page(viewport={"width": w, "height": h})
    page.set_default_timeout(TIMEOUT)
    page.goto(served.url + "/")
    Player(page).unlock()
    page.evaluate("showReopen()")  # what «Reabrir otra…» opens (the phone's «Nueva partida» step aside)
    expect(page.locator(".reopen-btn").first).to_be_visible()
    shot(page, f"reopen-{w}x{h}-list.png", scrolls=w < 600)
    page.close()
