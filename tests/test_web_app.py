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
from firmware.journal import Journal
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
    assert prefixes == {"lance_", "phase_", "word_", "how_", "set_link_", "set_update_", "health_", "rule_", "suit_"}
    from firmware.health import THROTTLE_BITS
    dynamic = ({f"lance_{x}" for x in Lance} | {f"phase_{x}" for x in Phase}
               | {f"word_{x}" for x in BetWord} | {f"how_{x}" for x in How}
               | {f"set_link_{x}" for x in ("house_rules", "decks")}  # web/settings.py's _links
               | {f"set_update_{x}" for x in ("running", "done", "failed")}  # install.sh's write_status
               | {f"health_{x}" for x in THROTTLE_BITS.values()}
               | {f"suit_{x}" for x in "oceb"}  # the replay's cards (table.cards' suits)
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
    r = c.post("/api/unlock", json=[PIN])
    assert r.status_code == 400 and r.json["error"] == ES["body_shape"]
    assert c.post("/api/command", json={"kind": "unsay"}).status_code == 403  # still locked


def client_at(app: Any, address: str) -> Any:
    """A test client whose requests come from ``address`` (the default, 127.0.0.1, is the kiosk)."""
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c


def test_wrong_pins_make_their_address_wait_and_the_kiosk_still_unlocks(table: Any) -> None:
    _, _, app = table
    attacker = client_at(app, "192.168.1.66")
    waits = []
    for _ in range(6):
        r = attacker.post("/api/unlock", json={"pin": "0000"})
        if r.status_code == 429:
            waits.append(r.json["code"])
            break
        assert r.status_code == 403
    r = attacker.post("/api/unlock", json={"pin": PIN})  # even the right PIN must wait
    assert r.status_code == 429 and "espera" in r.json["error"]
    assert client_at(app, "192.168.1.20").post("/api/unlock", json={"pin": PIN}).status_code == 200
    kiosk = app.test_client()  # loopback: the table's own screen
    for _ in range(8):
        assert kiosk.post("/api/unlock", json={"pin": "0000"}).status_code == 403
    assert kiosk.post("/api/unlock", json={"pin": PIN}).status_code == 200


def test_the_wait_grows_with_each_wrong_pin() -> None:
    from web.security import PinGuard, ThrottleSettings

    now = [0.0]
    g = PinGuard(PIN, clock=lambda: now[0], settings=ThrottleSettings(free_tries=2, first_wait_s=2))
    waits = []
    for _ in range(6):
        r = g.check("0000", "10.0.0.7")
        assert r is not None
        if r.status == 429:
            waits.append(r.seconds)
            now[0] += r.seconds
            assert g.check("0000", "10.0.0.7") is not None
    assert g.check(PIN, "10.0.0.8") is None
    assert len(waits) >= 3 and waits == sorted(waits) and waits[-1] >= 2 * waits[0]


def test_a_host_that_is_not_the_tables_is_refused(table: Any) -> None:
    _, _, app = table
    c = app.test_client()
    for host in ("evil.example", "mus-table.local.evil.example:8000"):
        r = c.post("/api/unlock", json={"pin": PIN}, headers={"Host": host, "Origin": f"http://{host}"})
        assert r.status_code == 421 and r.json["error"] == ES["host_refused"]
        assert c.get("/api/state", headers={"Host": host}).status_code == 421
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000"):
        assert c.get("/api/state", headers={"Host": host}).status_code == 200


def test_lock_needs_this_sites_token(table: Any) -> None:
    loop, _, app = table
    c, token = unlocked_client(app)
    assert c.post("/api/lock").status_code in (403, 415)  # a cross-site form's post
    assert c.post("/api/lock", json={}).status_code == 403  # no token
    assert c.post("/api/lock", json={}, headers={"X-CSRF-Token": token,
                                                 "Origin": "http://evil.example"}).status_code == 403
    assert cmd(c, token, {"kind": "say", "seat": 0, "word": "paso"}).status_code == 200  # still unlocked
    assert c.post("/api/lock", json={}, headers={"X-CSRF-Token": token}).status_code == 200
    assert cmd(c, token, {"kind": "unsay"}).status_code == 403


def test_a_copied_cookie_is_worthless_after_bloquear(table: Any) -> None:
    loop, _, app = table
    c, token = unlocked_client(app)
    cookie = c.get_cookie("session").value
    thief = app.test_client()
    thief.set_cookie("session", cookie)
    body = {"kind": "say", "seat": 0, "word": "paso"}
    assert app.extensions["mus_table"]["table_session"](f"session={cookie}")
    assert c.post("/api/lock", json={}, headers={"X-CSRF-Token": token}).status_code == 200
    before = loop.snapshot()
    r = thief.post("/api/command", json=body, headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and loop.snapshot() == before
    assert not app.extensions["mus_table"]["table_session"](f"session={cookie}")


@pytest.mark.parametrize("route", ["/api/unlock", "/api/command", "/api/clock", "/api/lock", "/api/pin"])
def test_nesting_and_bad_json_are_a_400_in_words_and_one_log_line(
        table: Any, route: str, caplog: pytest.LogCaptureFixture) -> None:
    loop, _, app = table
    c, token = unlocked_client(app)
    before = loop.snapshot()
    logged = 0
    for raw, code in ((b"[" * 900, "body_deep"), (b'{"pin": ' + b"[" * 300 + b"]" * 300 + b"}", "body_deep"),
                      (b'{"kind": "say", "seat": [[0]], "word": "paso"}', "body_shape"),
                      (b'{"kind": "say", "seat": {"a": [1]}}', "body_shape"), (b"{\xff", "body_json")):
        caplog.clear()
        r = c.post(route, data=raw, content_type="application/json", headers={"X-CSRF-Token": token})
        if route == "/api/lock":  # locking reads no body: it only needs the token
            assert r.status_code == 200
            c, token = unlocked_client(app)
            continue
        assert r.status_code == 400, (raw[:20], r.json)
        assert r.json["code"] == code and r.json["error"] == ES[code]
        assert "Traceback" not in caplog.text
        assert not any(rec.exc_info for rec in caplog.records)
        logged += len([rec for rec in caplog.records if rec.name == "mus_table.web"])
        assert logged <= 3  # one line for each kind of refusal (repeats within 10 s are counted)
    assert loop.snapshot() == before


def test_a_body_over_its_routes_limit_is_refused(table: Any) -> None:
    _, _, app = table
    c, token = unlocked_client(app)
    r = c.post("/api/unlock", data=b'{"pin": "' + b"1" * 5000 + b'"}', content_type="application/json")
    assert r.status_code == 413 and r.json["error"] == ES["too_large"]


def test_the_pin_is_shown_to_the_kiosk_only_and_changed_from_an_unlocked_display(table: Any) -> None:
    _, _, app = table
    assert app.test_client().get("/api/pin").json["pin"] == PIN
    assert client_at(app, "192.168.1.20").get("/api/pin").status_code == 403
    phone = client_at(app, "192.168.1.21")
    phone_token = phone.post("/api/unlock", json={"pin": PIN}).json["csrf"]
    c, token = unlocked_client(app)
    assert c.post("/api/pin", json={"pin": "12"}, headers={"X-CSRF-Token": token}).status_code == 400
    assert client_at(app, "192.168.1.22").post("/api/pin", json={"pin": "555555"}).status_code == 403
    r = c.post("/api/pin", json={"pin": "555555"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.json["code"] == "pin_changed"
    assert app.test_client().get("/api/pin").json["pin"] == "555555"
    assert cmd(c, token, {"kind": "say", "seat": 0, "word": "paso"}).status_code == 200
    assert cmd(phone, phone_token, {"kind": "unsay"}).status_code == 403  # the other session ended
    assert client_at(app, "192.168.1.23").post("/api/unlock", json={"pin": PIN}).status_code == 403


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
    c.post("/api/lock", json={}, headers={"X-CSRF-Token": token})
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


def test_the_narration_names_the_players_where_the_partida_has_names() -> None:
    """Seats 1-4 and the players' names, as the display says them; the JSON keeps 0-3. An earlier
    partida keeps its names: the journal holds them."""
    reader = LaidReader()
    loop = TableLoop(reader=reader, journal=Journal(":memory:"))
    loop.attach_camera(lambda: FRAME)
    app = create_app(loop, pin=PIN, max_spectators=2, keepalive=0.05)
    c, token = unlocked_client(app)
    names = ["Jon", "Iker", "Ane", "<b>Mikel</b>"]
    assert cmd(c, token, {"kind": "new_partida", "names": names}).status_code == 200
    st = play_hand(loop, reader, c, token)
    assert cmd(c, token, {"kind": "confirm", "seat": st["confirm_by"][0]}).status_code == 200
    one = c.get("/api/hands/1").json
    assert one["record"]["mano"] == 0
    said = one["explain"]
    assert said[0].startswith("Mano Jon (asiento 1). La pareja de Jon y Ane contra la pareja de Iker y "
                              "<b>Mikel</b>; van 0 a 0")
    assert "  Grande: Jon envida dos, Iker no quiere, <b>Mikel</b> quiere. Querida a dos. La gana Jon "\
        "(asiento 1, pareja Jon y Ane) con dos reyes, cuatro y as." in said
    page = c.get("/hands/1").text
    assert "Jon envida dos" in page and "&lt;b&gt;Mikel&lt;/b&gt; quiere" in page and "<b>Mikel" not in page
    assert cmd(c, token, {"kind": "new_partida"}).status_code == 200
    k = loop.state().partida.id - 1
    assert c.get(f"/api/hands/1?partida={k}").json["explain"] == said
    assert "Jon envida dos" in c.get(f"/hands/1?partida={k}").text


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
    c = client_at(app, "192.168.1.30")
    open_ = [c.get("/api/events", buffered=False) for _ in range(2)]
    for r in open_:
        next(iter(r.response))
        next(iter(r.response))
    r = c.get("/api/events")
    assert b"event: full" in r.data and "cupo" in r.text and b"retry: 30000" in r.data
    assert "cupo" in c.get("/watch").text
    d = client_at(app, "192.168.1.31")  # an unlocked display always gets in
    assert d.post("/api/unlock", json={"pin": PIN}).status_code == 200
    r2 = d.get("/api/events", buffered=False)
    assert b"retry: 2000" in next(iter(r2.response))
    r2.close()
    r3 = app.test_client().get("/api/events", buffered=False)  # and so does the kiosk, locked
    assert b"retry: 2000" in next(iter(r3.response))
    r3.close()
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


def test_a_closed_partida_stays_listed_downloadable_and_readable(table: Any) -> None:
    loop, reader, app = table
    c, token = unlocked_client(app)
    st = play_hand(loop, reader, c, token)
    assert cmd(c, token, {"kind": "confirm", "seat": st["confirm_by"][0]}).status_code == 200
    r = cmd(c, token, {"kind": "new_partida", "names": ["Jon", "", "Ane", ""], "rules": {"target": 30}})
    assert r.status_code == 200 and r.json["state"]["names"] == ["Jon", "", "Ane", ""]
    partidas = c.get("/api/partidas").json
    assert [(p["id"], p["hands"], p["in_play"]) for p in partidas] == [(1, 1, False), (2, 0, True)]
    page = c.get("/partidas/1")
    assert page.status_code == 200 and "Mano 1" in page.text and "partida=1" in page.text
    lines = c.get("/download/partida.jsonl?partida=1").text.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["cards"] == HAND
    assert c.get("/hands/1?partida=1").status_code == 200
    assert c.get("/download/hand/1.json?partida=1").json["cards"] == HAND
    missing = c.get("/partidas/9")
    assert missing.status_code == 404 and "No existe la partida 9" in missing.text
    assert c.get("/api/hands?partida=1").json[0]["n"] == 1


def test_a_closed_partida_is_reopened_through_the_api_behind_the_pin_and_with_seq(tmp_path: Any) -> None:
    reader = LaidReader()
    journal = Journal(tmp_path / "j.sqlite")
    loop = TableLoop(reader=reader, journal=journal)
    loop.attach_camera(lambda: FRAME)
    app = create_app(loop, pin=PIN, max_spectators=2, keepalive=0.05)
    app.testing = True
    c, token = unlocked_client(app)
    st = play_hand(loop, reader, c, token)
    one = cmd(c, token, {"kind": "confirm", "seat": st["confirm_by"][0]}).json["state"]
    two = cmd(c, token, {"kind": "new_partida", "names": ["Jon", "", "Ane", ""], "seq": one["seq"]}).json["state"]
    assert two["partida"]["id"] == 2
    # a locked page may not, nor a tap made on the state before the new partida
    r = app.test_client().post("/api/command", json={"kind": "reopen", "partida": 1})
    assert r.status_code == 403 and loop.partida_id == 2
    r = cmd(c, token, {"kind": "reopen", "partida": 1, "seq": one["seq"]})
    assert r.status_code == 409 and r.json["code"] == "stale" and r.json["error"] == "ya se anotó: una partida nueva"
    listed = {p["id"]: p for p in c.get("/api/partidas").json}
    assert listed[1]["reopenable"] and not listed[2]["reopenable"] and listed[2]["in_play"]
    assert listed[1]["score"] == one["score"] and listed[1]["mano"] == one["mano"] and listed[1]["hands"] == 1
    assert listed[2]["names"] == ["Jon", "", "Ane", ""] and listed[1]["names"] is None
    assert listed[1]["started"] < listed[2]["started"] and listed[1]["format"] == {"juegos": 3, "vacas": 1}
    r = cmd(c, token, {"kind": "reopen", "partida": 1, "seq": two["seq"]})
    assert r.status_code == 200
    back = r.json["state"]
    assert (back["partida"]["id"], back["score"], back["mano"], back["hands"]) == (1, one["score"], one["mano"], 1)
    assert [(p["id"], p["in_play"]) for p in c.get("/api/partidas").json] == [(1, True), (2, False)]
    assert len(c.get("/download/partida.jsonl").text.splitlines()) == 1  # the one in play: partida 1
    r = cmd(c, token, {"kind": "reopen", "partida": 1, "seq": back["seq"]})
    assert r.status_code == 409 and r.json["code"] == "reopen_in_play" and r.json["args"] == {"partida": 1}
    assert r.json["error"] == "la partida 1 es la que está en juego: no hay que reabrirla"


def test_error_pages_and_the_session_are_in_the_players_words(table: Any) -> None:
    _, _, app = table
    c = app.test_client()
    r = c.get("/api/command")  # a page that only takes POST
    assert r.status_code == 405 and r.json["error"] == ES["method_not_allowed"]
    r = c.get("/nothing-here")
    assert r.status_code == 404 and ES["page_not_found"] in r.text
    assert c.get("/api/session").json["unlocked"] is False
    u, _ = unlocked_client(app)
    assert u.get("/api/session").json["unlocked"] is True
    assert c.get("/overlay?layout=bar").text.count("layout-bar") == 1


def test_a_second_tap_on_the_same_state_is_refused_and_names_what_was_entered(table: Any) -> None:
    loop, _, app = table
    c, token = unlocked_client(app)
    seen = c.get("/api/state").json["seq"]
    r = cmd(c, token, {"kind": "say", "seat": 0, "word": "paso", "seq": seen})
    assert r.status_code == 200 and r.json["state"]["bets"]["speaker"] == 1
    after = loop.snapshot()
    r = cmd(c, token, {"kind": "say", "seat": 1, "word": "paso", "seq": seen})  # the double tap
    assert r.status_code == 409 and r.json["code"] == "stale"
    assert r.json["error"] == "ya se anotó: Paso del asiento 1"  # seats said 1-4
    assert r.json["args"]["entry"] == {"kind": "say", "seat": 0, "word": "paso"}
    assert loop.snapshot() == after
    r = cmd(c, token, {"kind": "say", "seat": 1, "word": "paso", "seq": "17"})
    assert r.status_code == 409 and r.json["code"] == "bad_seq" and loop.snapshot() == after
    assert cmd(c, token, {"kind": "say", "seat": 1, "word": "paso", "seq": after["seq"]}).status_code == 200
