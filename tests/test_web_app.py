"""The web app over the real table loop: pages, API, downloads, the PIN, CSRF, and the event stream.

The loop is the real :class:`firmware.table_loop.TableLoop`; only the card
reader is a stand-in that «reads» the cards the test lays (the camera side is
exercised by the browser tests and the load script with the synthetic table).
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import web as web_pkg
from firmware.clock import RELEASE_FLOOR, FakeClock, PhoneClock
from firmware.table_loop import Phase, TableLoop, expected_stones
from table.betting import BetWord
from table.cards import Card
from table.lances import How, Lance
from vision.reading import Reading
from vision.stones import StoneCount
from web.app import create_app, rule_choices
from web.strings import ES, LANGUAGES

HAND = [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
        ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]]
FRAME = np.full((120, 160, 3), 40, np.uint8)
PIN = "4321"


class LaidReader:
    """Reads the cards the test lays on the table (the stones as the score says)."""

    def __init__(self) -> None:
        self.cards: list[list[str]] = [[], [], [], []]

    def read(self, frame: Any) -> Reading:
        seats = tuple(expected_stones([0, 0], 40))
        return Reading(tuple(tuple(Card.parse(c) for c in s) for s in self.cards),
                       StoneCount(22, seats))  # type: ignore[arg-type]


@pytest.fixture
def table() -> tuple[TableLoop, LaidReader, Any]:
    reader = LaidReader()
    loop = TableLoop(reader=reader)
    loop.attach_camera(lambda: FRAME)
    app = create_app(loop, pin=PIN, max_spectators=2, keepalive=0.05)
    app.testing = True
    return loop, reader, app


def unlocked_client(app: Any) -> tuple[Any, str]:
    c = app.test_client()
    r = c.post("/api/unlock", json={"pin": PIN})
    assert r.status_code == 200
    return c, r.json["csrf"]


def cmd(c: Any, token: str, body: dict[str, Any]) -> Any:
    return c.post("/api/command", json=body, headers={"X-CSRF-Token": token})


def play_hand(loop: TableLoop, reader: LaidReader, c: Any, token: str) -> dict[str, Any]:
    for body in ({"kind": "say", "seat": 0, "word": "envido", "n": 2},
                 {"kind": "say", "seat": 1, "word": "no quiero"},
                 {"kind": "say", "seat": 3, "word": "quiero"},
                 {"kind": "lance", "lance": "chica", "outcome": "en paso"}):
        assert cmd(c, token, body).status_code == 200
    reader.cards = [list(s) for s in HAND]
    r = cmd(c, token, {"kind": "read"})
    assert r.status_code == 200, r.json
    return r.json["state"]  # type: ignore[no-any-return]


def test_pages_render_with_every_text_from_the_strings_table(table: Any) -> None:
    _, _, app = table
    c = app.test_client()
    for url, title in (("/", ES["title_display"]), ("/watch", ES["title_watch"]),
                       ("/overlay", ES["title_overlay"])):
        r = c.get(url)
        assert r.status_code == 200 and f"<title>{title}</title>" in r.text
        assert '<meta name="csrf-token"' in r.text and "window.T = " in r.text
        assert r.headers["Cache-Control"] == "no-store"
    assert "bet" in c.get("/").text  # the loop's event kinds are listened to by name


def _keys_used() -> set[str]:
    """Every text key the pages ask for: ``tr(...)`` in the scripts, ``t('...')`` in the templates."""
    web = Path(web_pkg.__file__).parent
    keys: set[str] = set()
    for js in (web / "static").glob("*.js"):
        text = js.read_text()
        for m in re.finditer(r"\btr\(", text):
            depth, i = 1, m.end()
            while depth and i < len(text):  # the call's arguments, to its closing parenthesis
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            keys |= set(re.findall(r'"([a-z][a-z_ ]*)"', text[m.end():i]))
    for html in (web / "templates").glob("*.html"):
        keys |= set(re.findall(r"\bt\('([a-z_]+)'", html.read_text()))
    return keys


def test_every_text_the_pages_use_is_in_the_strings_table() -> None:
    used = _keys_used()
    assert {"title_display", "pin_wrong", "wins_juego", "not_counted", "stones_todo"} <= used
    prefixes = {k for k in used if k.endswith("_")}
    assert prefixes == {"lance_", "phase_", "word_", "how_", "set_link_", "set_update_", "health_", "rule_"}
    from firmware.health import THROTTLE_BITS
    dynamic = ({f"lance_{x}" for x in Lance} | {f"phase_{x}" for x in Phase}
               | {f"word_{x}" for x in BetWord} | {f"how_{x}" for x in How}
               | {f"set_link_{x}" for x in ("house_rules", "decks", "pin")}  # web/settings.py's _links
               | {f"set_update_{x}" for x in ("running", "done", "failed")}  # install.sh's write_status
               | {f"health_{x}" for x in THROTTLE_BITS.values()}
               | {f"rule_{k}" for k, _ in rule_choices()}  # the new partida's house rules, each value
               | {f"rule_{k}_{json.dumps(v).strip(chr(34))}" for k, vs in rule_choices() for v in vs})
    assert (used - prefixes) | dynamic <= set(ES)


def test_every_language_has_only_known_keys() -> None:
    for lang, table_ in LANGUAGES.items():
        assert set(table_) <= set(ES), lang


def test_state_is_the_loops_snapshot(table: Any) -> None:
    loop, _, app = table
    assert app.test_client().get("/api/state").json == loop.snapshot()


def test_control_needs_the_pin_and_a_wrong_pin_changes_nothing(table: Any) -> None:
    loop, _, app = table
    c = app.test_client()
    before = loop.snapshot()
    r = c.post("/api/command", json={"kind": "say", "seat": 0, "word": "paso"})
    assert r.status_code == 403 and r.json["error"] == ES["pin_needed"]
    r = c.post("/api/unlock", json={"pin": "0000"})
    assert r.status_code == 403 and r.json["error"] == ES["pin_wrong"]
    r = c.post("/api/command", json={"kind": "say", "seat": 0, "word": "paso"},
               headers={"X-Table-PIN": "9999"})
    assert r.status_code == 403
    assert loop.snapshot() == before


def test_unlocking_needs_json_from_this_site(table: Any) -> None:
    _, _, app = table
    c = app.test_client()
    r = c.post("/api/unlock", data=f"pin={PIN}", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    r = c.post("/api/unlock", json={"pin": PIN}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert c.post("/api/unlock", json=[PIN]).status_code == 403
    assert c.post("/api/command", json={"kind": "unsay"}).status_code == 403  # still locked


def test_repeated_wrong_pins_lock_out_even_the_right_one(table: Any) -> None:
    _, _, app = table
    c = app.test_client()
    for _ in range(5):
        assert c.post("/api/unlock", json={"pin": "0000"}).status_code == 403
    r = c.post("/api/unlock", json={"pin": PIN})
    assert r.status_code == 429 and "espera" in r.json["error"]


def test_csrf_token_origin_and_json_are_required(table: Any) -> None:
    loop, _, app = table
    c, token = unlocked_client(app)
    before = loop.snapshot()
    body = {"kind": "say", "seat": 0, "word": "paso"}
    assert c.post("/api/command", json=body).status_code == 403  # unlocked, but no token
    assert c.post("/api/command", json=body, headers={"X-CSRF-Token": "forged"}).status_code == 403
    r = c.post("/api/command", json=body, headers={"X-CSRF-Token": token,
                                                   "Origin": "http://evil.example"})
    assert r.status_code == 403
    r = c.post("/api/command", data="kind=say", headers={"X-CSRF-Token": token},
               content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    assert loop.snapshot() == before
    r = c.post("/api/command", json=body, headers={"X-CSRF-Token": token,
                                                   "Origin": "http://localhost"})
    assert r.status_code == 200 and r.json["state"]["bets"]["speaker"] == 1
    c.post("/api/lock")
    assert cmd(c, token, {"kind": "unsay"}).status_code == 403


def test_session_cookie_is_samesite_strict(table: Any) -> None:
    _, _, app = table
    r = app.test_client().post("/api/unlock", json={"pin": PIN})
    cookie = r.headers["Set-Cookie"]
    assert "SameSite=Strict" in cookie and "HttpOnly" in cookie


def test_the_pin_header_works_for_scripts(table: Any) -> None:
    _, _, app = table
    r = app.test_client().post("/api/command", json={"kind": "say", "seat": 0, "word": "paso"},
                               headers={"X-Table-PIN": PIN})
    assert r.status_code == 200


def test_a_refused_word_says_why_and_changes_nothing(table: Any) -> None:
    loop, _, app = table
    c, token = unlocked_client(app)
    before = loop.snapshot()
    r = cmd(c, token, {"kind": "say", "seat": 2, "word": "paso"})
    assert r.status_code == 409 and r.json["error"] == "en grande habla el asiento 1, no el asiento 3"
    assert (r.json["code"], r.json["args"]) == ("not_turn", {"lance": "grande", "seat": 2, "speaker": 0})
    r = cmd(c, token, {"kind": "fly"})
    assert r.status_code == 409
    assert loop.snapshot() == before


def test_a_whole_hand_through_the_api(table: Any) -> None:
    loop, reader, app = table
    c, token = unlocked_client(app)
    s = play_hand(loop, reader, c, token)
    assert s["phase"] == "scored" and s["answer"]["score"] == [3, 9]
    assert [t["score"] for t in s["tanteo"]][-1] == [3, 9]
    r = cmd(c, token, {"kind": "correct", "seat": 0, "index": 3, "card": "5b"})
    assert r.status_code == 200 and r.json["state"]["cards"][0][3] == "5b"
    r = cmd(c, token, {"kind": "correct", "seat": 0, "index": 3, "card": "4b"})
    assert r.json["state"]["answer"]["score"] == [3, 9]
    assert cmd(c, token, {"kind": "confirm", "seat": 1}).status_code == 409  # not the other pair
    r = cmd(c, token, {"kind": "confirm", "seat": 0})
    assert r.status_code == 200 and r.json["state"]["score"] == [3, 9]

    hands = c.get("/api/hands").json
    assert len(hands) == 1 and hands[0]["n"] == 1 and hands[0]["answer"]["score"] == [3, 9]
    assert hands[0]["record"]["format"] == "mus-hand/1" and hands[0]["record"]["cards"] == HAND
    one = c.get("/api/hands/1").json
    assert one["record"] == hands[0]["record"] and any("tanteo" in x for x in one["explain"])
    r = c.get("/api/hands/7")
    assert r.status_code == 404 and r.json["error"] == "No existe la mano 7"
    r = c.get("/hands/7")
    assert r.status_code == 404 and "No existe la mano 7" in r.text
    assert c.get("/download/hand/7.json").status_code == 404
    r = c.get("/api/nothing")
    assert r.status_code == 404 and r.json["error"] == ES["page_not_found"]
    assert ES["page_not_found"] in c.get("/nothing").text

    lines = c.get("/download/partida.jsonl").text.splitlines()
    assert [json.loads(x) for x in lines] == [hands[0]["record"]]
    r = c.get("/download/hand/1.json")
    assert json.loads(r.text) == hands[0]["record"] and "attachment" in r.headers["Content-Disposition"]
    page = c.get("/hands/1").text
    assert "Grande" in page and "envida dos" in page


def test_reading_and_camera_picture(table: Any) -> None:
    loop, reader, app = table
    c = app.test_client()
    assert c.get("/api/reading").status_code == 404
    assert c.get("/frame.jpg").status_code == 404
    c2, token = unlocked_client(app)
    play_hand(loop, reader, c2, token)
    assert c.get("/api/reading").json["cards"] == HAND
    loop.show_frame(FRAME)
    r = c.get("/frame.jpg")
    assert r.status_code == 200 and r.data[:2] == b"\xff\xd8"
    r = c.get("/stream.mjpg?frames=1")
    assert r.mimetype == "multipart/x-mixed-replace" and b"\xff\xd8" in r.data


def events(resp: Any, n: int) -> list[dict[str, Any]]:
    """The first ``n`` events of an open stream (keep-alives skipped)."""
    out: list[dict[str, Any]] = []
    for chunk in resp.response:
        text = chunk.decode()
        if text.startswith("id:") or "\nevent:" in text or text.startswith("event:"):
            fields = dict(line.split(": ", 1) for line in text.strip().splitlines() if ": " in line)
            out.append({"id": fields.get("id"), "event": fields.get("event"),
                        "data": json.loads(fields["data"])})
            if len(out) == n:
                break
    return out


def test_events_start_with_the_whole_state_and_resume_from_last_event_id(table: Any) -> None:
    loop, _, app = table
    c = app.test_client()
    r = c.get("/api/events", buffered=False)
    assert r.mimetype == "text/event-stream"
    [first] = events(r, 1)
    assert first["event"] == "state" and first["data"]["state"]["seq"] == loop.bus.last_seq
    r.close()
    seen = loop.bus.last_seq
    c2, token = unlocked_client(app)
    cmd(c2, token, {"kind": "say", "seat": 0, "word": "paso"})
    cmd(c2, token, {"kind": "say", "seat": 1, "word": "paso"})
    r = c.get("/api/events", headers={"Last-Event-ID": str(seen)}, buffered=False)
    got = events(r, 2)
    assert [int(e["id"]) for e in got] == [seen + 1, seen + 2]
    assert [e["event"] for e in got] == ["bet", "bet"]
    assert got[-1]["data"]["state"]["bets"]["speaker"] == 2
    r.close()


def test_live_events_reach_an_open_stream(table: Any) -> None:
    loop, _, app = table
    c = app.test_client()
    r = c.get("/api/events", buffered=False)
    it = iter(r.response)
    assert next(it) == b"retry: 2000\n\n"
    assert b"event: state" in next(it)
    c2, token = unlocked_client(app)
    cmd(c2, token, {"kind": "say", "seat": 0, "word": "envido", "n": 5})
    chunk = next(it)
    while chunk.startswith(b":"):  # keep-alives
        chunk = next(it)
    assert b"event: bet" in chunk and b'"standing":{"bettor":0,"total":5' in chunk
    r.close()


def test_past_the_cap_a_spectator_is_told_the_table_is_full(table: Any) -> None:
    _, _, app = table
    c = app.test_client()
    open_ = [c.get("/api/events", buffered=False) for _ in range(2)]
    for r in open_:
        next(iter(r.response))
        next(iter(r.response))
    r = c.get("/api/events")
    assert b"event: full" in r.data and "cupo" in r.text and b"retry: 30000" in r.data
    assert "cupo" in c.get("/watch").text
    d, _ = unlocked_client(app)  # the table's own display always gets in
    r2 = d.get("/api/events", buffered=False)
    assert b"retry: 2000" in next(iter(r2.response))
    r2.close()
    for r in open_:
        r.close()
    assert app.extensions["mus_table"]["hub"].spectators == 0
    r = c.get("/api/events", buffered=False)
    assert next(iter(r.response)) == b"retry: 2000\n\n"
    r.close()


# -- the clock without a network --------------------------------------------------------------

BOOT = RELEASE_FLOOR + 30 * 86400.0


@pytest.fixture
def clocked() -> tuple[FakeClock, Any]:
    fake = FakeClock(BOOT)
    # Each «synchronised?» asked afresh (the app's own cache lasts seconds): the tests change it.
    phone = PhoneClock(fake, monotonic=itertools.count(step=100).__next__)
    app = create_app(TableLoop(reader=LaidReader()), pin=PIN, clock=phone)
    app.testing = True
    return fake, app


def page_client(app: Any, url: str = "/watch", *, wanted: bool = True) -> tuple[Any, str]:
    """A phone that opened a page: its session cookie and the page's CSRF token; ``wanted``:
    whether the page asks for the phone's time."""
    c = app.test_client()
    page = c.get(url).text
    token = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert token and ('<meta name="clock-wanted" content="yes">' in page) == wanted
    return c, token.group(1)


def offer(c: Any, token: str | None, now_s: Any, **headers: str) -> Any:
    if token:
        headers["X-CSRF-Token"] = token
    now_ms = now_s * 1000 if isinstance(now_s, float) else now_s
    return c.post("/api/clock", json={"now_ms": now_ms}, headers=headers)


def test_the_first_phone_sets_a_clock_that_is_behind(clocked: Any) -> None:
    fake, app = clocked
    c, token = page_client(app, "/")
    r = offer(c, token, BOOT + 86400.0)
    assert r.status_code == 200 and r.json["code"] == "clock_set", r.json
    assert fake.sets == [BOOT + 86400.0]
    assert r.json["message"].startswith("Reloj de la mesa puesto en hora")
    assert app.test_client().get("/api/clock").json["set_by_phone"] == r.json["phone"]
    # The next page no longer asks; another phone is told the clock was set.
    other, token2 = page_client(app, wanted=False)
    r = offer(other, token2, BOOT + 2 * 86400.0)
    assert r.status_code == 409 and r.json["code"] == "clock_already_set" and r.json["error"] == ES["clock_already_set"]
    # ...unless it has the PIN (a wrong first phone corrected), still only forward.
    r = offer(app.test_client(), None, BOOT + 2 * 86400.0, **{"X-Table-PIN": PIN})
    assert r.status_code == 200 and fake.sets[-1] == BOOT + 2 * 86400.0


def test_the_clock_is_refused_when_synchronised_backwards_or_absurd(clocked: Any) -> None:
    fake, app = clocked
    c, token = page_client(app)
    for now_s, code in ((BOOT - 86400.0, "clock_not_ahead"), (BOOT + 5.0, "clock_not_ahead"),
                        (4102444800.0 * 2, "clock_absurd"), (1000.0, "clock_absurd")):
        r = offer(c, token, now_s)
        assert (r.status_code, r.json["code"]) == (409, code), now_s
        assert r.json["error"] == ES[code]
    for bad in ("mañana", None, True, [1]):
        r = offer(c, token, bad)
        assert r.status_code == 400 and r.json["error"] == ES["clock_bad"]
    fake.synced = True
    c2, token2 = page_client(app, "/", wanted=False)
    r = offer(c2, token2, BOOT + 86400.0)
    assert (r.status_code, r.json["code"]) == (409, "clock_synchronised")
    assert fake.sets == [] and fake.now() == BOOT


def test_the_clock_refuses_other_sites_forms_and_requests_without_the_pages_token(clocked: Any) -> None:
    fake, app = clocked
    c, token = page_client(app)
    ahead = BOOT + 86400.0
    assert offer(c, token, ahead, Origin="http://evil.example").status_code == 403
    assert offer(c, token, ahead, Referer="http://evil.example/page").status_code == 403
    assert offer(c, None, ahead).status_code == 403  # the cookie alone is not enough
    assert offer(c, "forged", ahead).status_code == 403
    assert offer(app.test_client(), None, ahead, **{"X-Table-PIN": "0000"}).json["code"] == "pin_wrong"
    r = c.post("/api/clock", data=f"now_ms={ahead * 1000}", headers={"X-CSRF-Token": token},
               content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415
    assert fake.sets == []
    assert offer(c, token, ahead, Origin="http://localhost").status_code == 200


def test_a_failed_clock_command_is_answered_in_words(clocked: Any) -> None:
    fake, app = clocked
    fake.fail = "timedatectl set-time @1: Access denied"
    c, token = page_client(app)
    r = offer(c, token, BOOT + 86400.0)
    assert r.status_code == 503 and r.json["error"] == ES["clock_failed"].format(why=fake.fail)


def test_without_a_clock_the_pages_never_offer_the_time(table: Any) -> None:
    _, _, app = table
    c, token = page_client(app, "/", wanted=False)
    assert 'name="clock-wanted"' not in c.get("/watch").text
    assert c.get("/api/clock").json["from_phone"] is False
    r = offer(c, token, BOOT + 86400.0)
    assert r.status_code == 409 and r.json["code"] == "clock_off"
