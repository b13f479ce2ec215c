"""The Flask app: the table display, the spectator pages, the API and the camera stream.

``create_app(loop, pin=...)`` serves one table loop (``firmware.table_loop``):
it only reads the loop (``snapshot``, ``bus``, ``hands``, ``latest_frame``,
``latest_reading``) and passes people's commands to ``loop.submit`` — the
engine decides what is legal, the web only offers it. See ``docs/api.md``.

Pages: ``/`` (the table display), ``/watch`` (spectators), ``/overlay``
(streaming overlay), ``/hands/<n>`` (replay of a hand). API: ``/api/state``,
``/api/events`` (SSE), ``/api/hands``, ``/api/hands/<n>``, ``/api/reading``,
``/stream.mjpg``, ``/frame.jpg``, downloads under ``/download/``, the
control endpoints ``/api/unlock``, ``/api/lock``, ``/api/command`` (PIN), and
``/api/clock``: the phone's time for a table with no network (``firmware.clock``).
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from flask import Flask, Response, jsonify, render_template, request, session
from flask.json.provider import DefaultJSONProvider

from table.entries import journaled_names, partida_starts
from table.errors import MusTableError, Refused
from table.explain import explain
from web.body import LIMITS, UPLOAD_ROUTES, BadBody, body_limit, nesting_depth, parse_object
from web.camera import BOUNDARY, Picture, view_labels
from web.security import (
    BadPin,
    HostNames,
    PinGuard,
    QuietLog,
    Refusal,
    Sessions,
    is_kiosk,
    new_token,
    same_origin,
    tokens_match,
)
from web.sse import Full, Hub, full_frame
from web.strings import say, texts

MAX_SPECTATORS = 500
MAX_CAMERA_STREAMS = 8
"""Open ``/stream.mjpg`` streams at once (each holds a server thread)."""

log = logging.getLogger("mus_table.web")


def create_app(loop: Any, *, pin: str, max_spectators: int = MAX_SPECTATORS, strings: str = "es",
               secret_key: bytes | None = None, keepalive: float = 15.0,
               camera_fps: float = 2.0, retry_ms: int = 2000, parse_command: Any = None,
               clock: Any = None, hosts: Iterable[str] = (),
               save_pin: Callable[[str], None] | None = None) -> Flask:
    """The web app for ``loop``. ``pin``: the table PIN (digits) for every control action.

    ``max_spectators``: open event streams from visitors that are not the
    unlocked table display; past it a newcomer is told the table is full.
    ``strings``: the language of every text (:mod:`web.strings`).
    ``keepalive``: seconds between comment lines on an idle stream; ``retry_ms``: how
    soon a dropped browser reconnects. ``parse_command``: builds a command from a posted JSON body (default:
    ``firmware.table_commands.parse_command``). ``clock``: a ``firmware.clock.PhoneClock`` that
    may take the time from the phones (None: the pages never offer it). ``hosts``: names the
    table answers to besides localhost, its host name (and ``.local``) and its addresses (a
    request with another ``Host`` is refused: DNS rebinding). ``save_pin``: keeps a PIN changed
    from the display (None: it lasts until the server stops).
    """
    t = texts(strings)
    if parse_command is None:
        from firmware.table_commands import parse_command as parse_command  # noqa: PLC0415
    guard = PinGuard(pin)
    sessions = Sessions()
    quiet = QuietLog(log)
    host_names = HostNames(hosts)
    hub = Hub(loop.bus, loop.snapshot, cap=max_spectators, keepalive=keepalive, retry_ms=retry_ms)
    picture = Picture(loop, labels=view_labels(strings))
    camera = _Counter()
    kinds_json = json.dumps(_event_kinds())
    learn_json = json.dumps(_learning_layout())
    rules_json = json.dumps(rule_choices())

    app = Flask(__name__)
    app.json = CheckedJSON(app)
    app.config.update(
        SECRET_KEY=secret_key or os.urandom(32),
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        JSON_SORT_KEYS=False,
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.extensions["mus_table"] = {"loop": loop, "hub": hub, "guard": guard, "picture": picture,
                                   "clock": clock, "sessions": sessions,
                                   "table_session": lambda cookie: _table_session(app, sessions, cookie)}

    def unlocked() -> bool:
        return sessions.alive(session.get("sid"))

    app.extensions["mus_table"]["unlocked"] = unlocked

    def csrf_token() -> str:
        token = session.get("csrf")
        if not isinstance(token, str):
            token = new_token()
            session["csrf"] = token
        return token

    def tr(key: str, **kw: Any) -> str:
        text = t.get(key, key)
        return text.format(**kw) if kw else text

    @app.context_processor
    def _texts() -> dict[str, Any]:
        return {"t": tr, "T_json": json.dumps(t, ensure_ascii=False), "csrf": csrf_token(),
                "lang": strings, "cap": max_spectators, "kinds_json": kinds_json}

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        if resp.mimetype == "text/html":
            resp.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
            resp.headers.setdefault("Cache-Control", "no-store")
        return resp

    def refuse(r: Refusal) -> tuple[Response, int]:
        return jsonify(error=tr(r.key, s=r.seconds), code=r.key), r.status

    @app.before_request
    def _gate() -> tuple[Response, int] | None:
        """The Host must be one of the table's names; each route reads at most its own body."""
        if not host_names.allowed(request.host):
            quiet.warning("host_refused", "refused: Host %r from %s", request.host[:80], request.remote_addr)
            return jsonify(error=tr("host_refused"), code="host_refused"), 421
        request.max_content_length = body_limit(request.method, request.path,
                                                table=request.path in UPLOAD_ROUTES and unlocked())
        return None

    def json_body() -> dict[str, Any]:
        """The posted JSON object, checked for size, nesting and shape (:mod:`web.body`)."""
        return parse_object(request.get_data(cache=True))

    @app.errorhandler(BadBody)
    def _bad_body(e: BadBody) -> tuple[Response, int]:
        quiet.warning(e.code, "refused: %s %s from %s: %s", request.method, request.path[:80],
                      request.remote_addr, e.code)
        return jsonify(error=tr(e.code), code=e.code), 400

    def site_request(forbidden: str) -> tuple[Response, int] | str:
        """Who sent this request: ``"pin"`` (the right PIN in X-Table-PIN) or ``"token"`` (a page
        of this site, with the session's CSRF token); else the refusal to answer (another site,
        not JSON, a wrong PIN, no token), ``forbidden`` naming the 403's text."""
        if not same_origin(request.headers.get("Origin"), request.headers.get("Referer"),
                           request.host):
            return refuse(Refusal(403, forbidden))
        if not request.is_json:
            return jsonify(error=tr("json_needed"), code="json"), 415
        given_pin = request.headers.get("X-Table-PIN")
        if given_pin is not None:
            r = guard.check(given_pin, request.remote_addr)
            return refuse(r) if r else "pin"
        if tokens_match(request.headers.get("X-CSRF-Token"), session.get("csrf")):
            return "token"
        return refuse(Refusal(403, forbidden))

    def control_check() -> tuple[Response, int] | None:
        """None when this request may change the table (the PIN, or a page unlocked by it); else
        the refusal to answer."""
        who = site_request("pin_needed")
        if not isinstance(who, str):
            return who
        return refuse(Refusal(403, "pin_needed")) if who == "token" and not unlocked() else None

    @app.errorhandler(NoSuchHand)
    def _no_hand(e: NoSuchHand) -> tuple[Response, int] | tuple[str, int]:
        text = tr("no_partida" if isinstance(e, NoSuchPartida) else "not_found", n=e.n)
        if request.path.startswith(("/hands/", "/partidas/")):
            return render_template("message.html", message=text), 404
        return jsonify(error=text, code="not_found"), 404

    def _error_page(key: str, status: int) -> tuple[Response, int] | tuple[str, int]:
        """An error in the words of web.strings: JSON under /api/, else a page."""
        if request.path.startswith("/api/") or request.path.startswith("/download/"):
            return jsonify(error=tr(key), code=key), status
        return render_template("message.html", message=tr(key)), status

    @app.errorhandler(404)
    def _no_page(e: Exception) -> tuple[Response, int] | tuple[str, int]:
        return _error_page("page_not_found", 404)

    @app.errorhandler(405)
    def _not_allowed(e: Exception) -> tuple[Response, int] | tuple[str, int]:
        return _error_page("method_not_allowed", 405)

    @app.errorhandler(413)
    def _too_large(e: Exception) -> tuple[Response, int] | tuple[str, int]:
        quiet.warning("too_large", "refused: %s %s from %s: body over %s bytes", request.method,
                      request.path[:80], request.remote_addr, request.max_content_length)
        return _error_page("too_large", 413)

    @app.errorhandler(500)
    def _server_error(e: Exception) -> tuple[Response, int] | tuple[str, int]:
        return _error_page("server_error", 500)

    # -- pages -------------------------------------------------------------------------

    def clock_wanted() -> bool:
        return clock is not None and bool(clock.wanted())

    @app.get("/")
    def display() -> str:
        return render_template("display.html", unlocked=unlocked(), learn_json=learn_json, rules_json=rules_json,
                               clock_wanted=clock_wanted())

    @app.get("/watch")
    def watch() -> str:
        return render_template("watch.html", full=hub.spectators >= max_spectators,
                               clock_wanted=clock_wanted())

    @app.get("/overlay")
    def overlay() -> str:
        """``?layout=bar``: the score bar alone; anything else: the full overlay."""
        layout = "bar" if request.args.get("layout") == "bar" else "full"
        return render_template("overlay.html", layout=layout)

    @app.get("/hands/<int:n>")
    def replay(n: int) -> str:
        partida = request.args.get("partida", type=int)
        h = _hand(loop, n, partida)
        return render_template("replay.html", n=n, lines=explain(h.record, h.answer, _names(loop, partida)),
                               partida=partida,
                               record=h.record.to_json(), answer=h.answer.to_json())

    @app.get("/partidas/<int:k>")
    def partida_page(k: int) -> str:
        """A partida of the journal, closed or in play: its hands, each a replay and a download."""
        if not any(p["id"] == k for p in _partidas(loop)):
            raise NoSuchPartida(k)
        return render_template("partida.html", k=k, hands=[_hand_json(h) for h in loop.hands(k)])

    # -- read-only API -----------------------------------------------------------------

    @app.get("/api/state")
    def state() -> Response:
        return jsonify(loop.snapshot())

    @app.get("/api/events")
    def events() -> Response:
        raw = request.headers.get("Last-Event-ID") or request.args.get("last_id")
        try:
            last_id = int(raw) if raw not in (None, "") else None
        except ValueError:
            last_id = None
        try:
            listener = hub.join(last_id, counted=not (unlocked() or is_kiosk(request.remote_addr)))
        except Full:
            body: Iterator[bytes] | list[bytes] = [full_frame(tr("spectators_full", cap=max_spectators))]
        else:
            body = listener.stream()
        resp = Response(body, mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp

    @app.get("/api/partidas")
    def partidas() -> Response:
        """Every partida of the table, by number (a closed one stays listed; ``in_play`` marks the one in play)."""
        return jsonify(_partidas(loop))

    @app.get("/api/hands")
    def hands() -> Response:
        partida = request.args.get("partida", type=int)
        return jsonify([_hand_json(h) for h in loop.hands(partida)])

    @app.get("/api/hands/<int:n>")
    def hand(n: int) -> Response:
        h = _hand(loop, n, request.args.get("partida", type=int))
        out = _hand_json(h)
        out["explain"] = explain(h.record, h.answer, _names(loop, request.args.get("partida", type=int)))
        return jsonify(out)

    @app.get("/api/reading")
    def reading() -> Response:
        r = loop.latest_reading()
        if r is None:
            return Response(json.dumps({"error": tr("no_reading")}, ensure_ascii=False),
                            status=404, mimetype="application/json")
        return jsonify(r.to_json())

    @app.get("/download/partida.jsonl")
    def download_partida() -> Response:
        partida = request.args.get("partida", type=int)
        lines = "".join(json.dumps(h.record.to_json(), ensure_ascii=False) + "\n"
                        for h in loop.hands(partida))
        resp = Response(lines, mimetype="application/x-ndjson")
        resp.headers["Content-Disposition"] = 'attachment; filename="partida.jsonl"'
        return resp

    @app.get("/download/hand/<int:n>.json")
    def download_hand(n: int) -> Response:
        h = _hand(loop, n, request.args.get("partida", type=int))
        resp = Response(json.dumps(h.record.to_json(), ensure_ascii=False, indent=1) + "\n",
                        mimetype="application/json")
        resp.headers["Content-Disposition"] = f'attachment; filename="mano-{n}.json"'
        return resp

    @app.get("/frame.jpg")
    def frame() -> Response:
        jpeg = picture.jpeg()
        if jpeg is None:
            return Response(tr("no_frame"), status=404, mimetype="text/plain")
        return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/stream.mjpg")
    def stream() -> Response:
        if camera.n >= MAX_CAMERA_STREAMS:
            return Response(tr("spectators_full", cap=MAX_CAMERA_STREAMS), status=503,
                            mimetype="text/plain")
        limit = request.args.get("frames", type=int)

        def parts() -> Iterator[bytes]:
            if not camera.enter(MAX_CAMERA_STREAMS):
                return
            try:
                yield from picture.mjpeg(camera_fps, limit)
            finally:
                camera.leave()

        return Response(parts(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                        headers={"Cache-Control": "no-store"})

    # -- control -----------------------------------------------------------------------

    @app.post("/api/unlock")
    def unlock() -> tuple[Response, int] | Response:
        if not same_origin(request.headers.get("Origin"), request.headers.get("Referer"),
                           request.host):
            return refuse(Refusal(403, "pin_needed"))
        if not request.is_json:  # as for commands: no cross-site form can send JSON
            return jsonify(error=tr("json_needed"), code="json"), 415
        waiting = guard.waiting(request.remote_addr)
        if waiting:  # not even read: the address is waiting
            return refuse(Refusal(429, "pin_throttled", waiting))
        body = json_body()
        r = guard.check(body.get("pin"), request.remote_addr)
        if r is not None:
            quiet.warning("pin_wrong", "wrong PIN from %s", request.remote_addr)
            return refuse(r)
        sessions.revoke(session.get("sid"))
        session["sid"] = sessions.open()
        return jsonify(ok=True, csrf=csrf_token())

    @app.get("/api/session")
    def session_state() -> Response:
        """Whether this browser's session is unlocked now (a display that outlived a restart of
        the table asks, so that it never shows «Bloquear» on a locked session)."""
        return jsonify(unlocked=unlocked(), csrf=csrf_token())

    @app.post("/api/lock")
    def lock() -> tuple[Response, int] | Response:
        """«Bloquear»: the session is revoked on the server (a copy of its cookie is worth nothing)."""
        who = site_request("pin_needed")
        if not isinstance(who, str):
            return who
        sessions.revoke(session.pop("sid", None))
        return jsonify(ok=True)

    @app.get("/api/pin")
    def show_pin() -> tuple[Response, int] | Response:
        """The PIN, for the table's own screen only (a long press on the display shows it)."""
        if not is_kiosk(request.remote_addr):
            return refuse(Refusal(403, "pin_only_kiosk"))
        resp = jsonify(pin=guard.pin)
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.post("/api/pin")
    def change_pin() -> tuple[Response, int] | Response:
        """A new PIN from the unlocked display (or a script with the PIN); other sessions end."""
        refusal = control_check()
        if refusal is not None:
            return refusal
        new = json_body().get("pin")
        try:
            guard.change(new)  # type: ignore[arg-type]
        except BadPin:
            return jsonify(error=tr("pin_bad"), code="pin_bad"), 400
        if save_pin is not None:
            save_pin(guard.pin)
        sessions.revoke_all(keep=session.get("sid"))
        log.info("PIN changed from %s", request.remote_addr)
        return jsonify(ok=True, code="pin_changed", message=tr("pin_changed"))

    @app.post("/api/command")
    def command() -> tuple[Response, int] | Response:
        refusal = control_check()
        if refusal is not None:
            return refusal
        body = json_body()  # an object, checked (web.body); else 400 in one Spanish line
        seq = body.get("seq")  # the state the command was made on (docs/api.md)
        try:
            if seq is not None and (type(seq) is not int or seq < 0):
                raise Refused("bad_seq", value=repr(seq))
            snap = loop.submit(parse_command({k: v for k, v in body.items() if k != "seq"}), seq=seq)
        except MusTableError as e:
            return jsonify(error=say(e.code, e.params, strings), code=e.code, args=e.params), 409
        except (TypeError, AttributeError, KeyError):  # a field of the wrong type: a bad body
            raise BadBody("body_shape") from None
        return jsonify(ok=True, state=snap)

    # -- the clock without a network ---------------------------------------------------

    @app.get("/api/clock")
    def clock_state() -> Response:
        if clock is None:
            return jsonify(now=_iso_now(), synchronised=None, from_phone=False, wanted=False)
        return jsonify(clock.status())

    @app.post("/api/clock")
    def set_clock() -> tuple[Response, int] | Response:
        """A page's phone time. No PIN needed (the rules of firmware.clock keep it safe), but it
        must come from a page of this site: same origin, JSON, and the session's CSRF token
        (or the PIN in X-Table-PIN, which also lets a second phone correct the first)."""
        who = site_request("clock_forbidden")
        if not isinstance(who, str):
            return who
        trusted = who == "pin" or unlocked()
        now_ms = json_body().get("now_ms")
        if isinstance(now_ms, bool) or not isinstance(now_ms, int | float) or not math.isfinite(now_ms):
            return jsonify(error=tr("clock_bad"), code="clock_bad"), 400
        if clock is None:
            return jsonify(error=tr("clock_off"), code="clock_off"), 409
        answer = clock.offer(now_ms / 1000.0, trusted=trusted)
        out = answer.to_json()
        text = tr("clock_" + str(answer.outcome), when=_when(answer.phone), why=answer.why)
        if answer.ok:
            return jsonify(ok=True, code="clock_set", message=text, **out)
        status = 503 if str(answer.outcome) == "failed" else 409
        return jsonify(ok=False, error=text, code="clock_" + str(answer.outcome), **out), status

    from web.settings import register_settings  # noqa: PLC0415 - the settings and health pages
    register_settings(app, control_check=control_check, tr=tr)
    return app


class CheckedJSON(DefaultJSONProvider):
    """Flask's JSON, which measures a body's nesting before parsing it (every ``get_json``)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        raw = s.encode("utf-8", "replace") if isinstance(s, str) else s
        if nesting_depth(raw) > LIMITS.max_any_depth:
            raise BadBody("body_deep")  # a ValueError: get_json(silent=True) gives None
        return super().loads(s, **kwargs)


def _table_session(app: Flask, sessions: Sessions, cookie: str | None) -> bool:
    """True when a request's ``Cookie`` header holds a session the server knows as unlocked
    (the server's lanes ask, before the request reaches the app)."""
    if not cookie:
        return False
    name = app.config["SESSION_COOKIE_NAME"]
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    if serializer is None:
        return False
    for part in cookie.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name and value:
            try:
                data = serializer.loads(value, max_age=int(app.permanent_session_lifetime.total_seconds()))
            except Exception:  # a forged or stale cookie: not the table
                return False
            return isinstance(data, dict) and sessions.alive(data.get("sid"))
    return False


def _iso_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())


def _when(seconds: float) -> str:
    """A time as the display shows it in a message: the date and minute, in UTC."""
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        return "?"


class _Counter:
    """Open streams of one kind, with a cap (thread-safe)."""

    def __init__(self) -> None:
        self.n = 0
        self._lock = threading.Lock()

    def enter(self, cap: int) -> bool:
        with self._lock:
            if self.n >= cap:
                return False
            self.n += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.n -= 1


def _event_kinds() -> list[str]:
    """The names of the loop's events (the pages listen to each by name)."""
    try:
        from firmware.events import EventKind  # noqa: PLC0415
    except ImportError:
        return []
    return [str(k) for k in EventKind]


def rule_choices() -> list[tuple[str, list[Any]]]:
    """The house rules a new partida may be started with, each with its values (``table.rules``),
    for the «Nueva partida» step; the display names each as ``rule_<key>_<value>`` of web.strings."""
    from table.rules import PENALTIES, REALS, REYES, TARGETS  # noqa: PLC0415

    return [("target", list(TARGETS)), ("reyes", list(REYES)), ("real", list(REALS)),
            ("penalties", list(PENALTIES)), ("deje", [False, True])]


def _learning_layout() -> list[list[list[str]]]:
    """Where each card goes in each deck-learning frame (``vision.learnt``), for the drawing."""
    from vision.learnt import FRAMES, learning_cards  # noqa: PLC0415

    return [[[str(c) for c in seat] for seat in learning_cards(k)] for k in range(FRAMES)]


class NoSuchHand(Exception):
    """A hand number the partida does not have (answered 404 with its own words)."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


def _names(loop: Any, partida: int | None) -> tuple[str, ...]:
    """The players' names of a partida: the one in play's, or those the journal keeps of an
    earlier one (none without a journal: the narration then says the seats alone)."""
    st = loop.state()
    if partida is None or partida == st.partida.id:
        return tuple(st.names)
    journal = getattr(loop, "journal", None)
    start = partida_starts(journal.entries(partida)).get(partida) if journal is not None else None
    return journaled_names(start[1]) if start is not None else ()


def _hand(loop: Any, n: int, partida: int | None = None) -> Any:
    for h in loop.hands(partida):
        if h.n == n:
            return h
    raise NoSuchHand(n)


class NoSuchPartida(NoSuchHand):
    """A partida the journal does not have (answered 404)."""


def _partidas(loop: Any) -> list[dict[str, Any]]:
    """The partidas of the table, by number, as the game holds them (the score, the names, who
    won, the one in play, which «Reabrir» takes back); where a journal is kept, with its summary
    too (the juegos of the whole partida, the format, the result in words)."""
    out = [p.to_json() for p in loop.partidas()]
    journal = getattr(loop, "journal", None)
    if journal is not None:
        kept = {s.id: s.to_json() for s in journal.partidas()}
        out = [{**kept.get(p["id"], {}), **p} for p in out]
    return out


def _hand_json(h: Any) -> dict[str, Any]:
    return {"n": h.n, "record": h.record.to_json(), "answer": h.answer.to_json()}
