"""The hub's pages: every table at a glance, the juez's console, the tournament, spectators.

``create_app(store, follower, pin=...)``. Pages: ``/`` (all tables), ``/mesa/<name>``
(the juez's console: history and rulings narrated as ``replay --explain``,
hands corrected and undone, partidas re-opened, the table's call and its answer, the juez's
decisions), ``/torneo`` (pairs, rounds, results), ``/sorteo`` and
``/clasificacion`` (to print or project), ``/ver`` and ``/ver/<name>``
(spectators, MQTT over WebSockets with the vendored mqtt.js, straight from the
broker), ``/sse/<name>`` (the fallback: server-sent events from the hub).
API: ``/api/tables``, ``/api/mesa/<name>``, ``/api/mesa/<name>/partida/<n>``,
``/api/sse/<name>``. Every change (a ruling, an answer, a pair, a draw, the
delay) needs the juez's PIN (``/entrar``) and a request from this site.
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Flask,
    Response,
    abort,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.exceptions import HTTPException

from hub.follower import Follower
from hub.public import PHASES, glance
from hub.results import RULING_TEXT, RulingKind, match_partida, partida_view, results, seats
from hub.store import Store
from hub.tournament import (
    Format,
    Result,
    assign_tables,
    crossed,
    groups,
    knockout_round,
    losses_of,
    round_robin,
    standings,
    swiss_round,
)
from table.errors import InvalidInput

DELAY_KEY = "public_delay_s"
MAX_SSE = 200
"""Open fallback streams at once (each holds a server thread): past it, a newcomer is sent to the MQTT page."""


HTTP_TEXT = {
    400: "La petición no es válida",
    403: "Hace falta el PIN del juez para esto",
    404: "Esta página no existe en el torneo",
    405: "Esta dirección no admite esa petición",
    413: "Lo enviado es demasiado grande",
    500: "El torneo ha tenido un fallo al contestar; vuelve a intentarlo",
}
"""What the hub says for an HTTP refusal (the hub speaks Spanish itself: it may not import the
table's web strings)."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def create_app(store: Store, follower: Follower | None = None, *, pin: str, public_ws: str = "",
               secret_key: bytes | None = None, sse_poll_s: float = 1.0) -> Flask:
    """The hub's app. ``pin``: the juez's PIN; ``public_ws``: the broker's WebSocket address the
    spectators' browsers connect to (``ws://host:9001``; empty: the same host, port 9001)."""
    if not pin:
        raise InvalidInput("el hub necesita un PIN para el juez (--pin)")
    app = Flask(__name__)
    app.secret_key = secret_key or secrets.token_bytes(32)
    app.config.update(SESSION_COOKIE_SAMESITE="Strict", SESSION_COOKIE_HTTPONLY=True)
    streams = {"open": 0}
    streams_lock = threading.Lock()

    def is_juez() -> bool:
        return bool(session.get("juez"))

    def same_site() -> None:
        source = request.headers.get("Origin") or request.headers.get("Referer")
        if source and urlsplit(source).netloc.lower() != request.host.lower():
            abort(403)

    def guard() -> None:
        same_site()
        if not is_juez():
            abort(403)

    def current_round() -> int:
        return max((m["round"] for m in store.matches()), default=0)

    def pairs_by_id() -> dict[int, dict[str, Any]]:
        return {p["id"]: p for p in store.pairs()}

    def seated(name: str) -> list[str] | None:
        """The names of the pairs the draw sat at a table in the current round."""
        return seats(store).get(name)

    def tables() -> list[dict[str, Any]]:
        calls = {c["table"]: c for c in store.calls(open_only=True)}
        seated_now = seats(store)
        live = follower.tables if follower is not None else {}
        rows = []
        for t in store.tables():
            f = live.get(t.name)
            row = glance(t.name, f.state if f else t.state, f.status if f else t.status, f.seen if f else t.seen)
            row["pairs"] = seated_now.get(t.name)
            row["call"] = calls.get(t.name)
            rows.append(row)
        return rows

    @app.before_request
    def held_back() -> Any:
        """While the tournament holds the public feed back, the live pages are the juez's only
        (else anyone could read on the hub what the delay hides on /ver)."""
        path = request.path
        live = path == "/" or path == "/api/tables" or path.startswith(("/mesa/", "/api/mesa/"))
        if live and not is_juez() and float(store.setting(DELAY_KEY, "0") or 0) > 0:
            return render_template("message.html", text="El torneo retrasa lo que ve el público: las mesas en "
                                   "directo son para el juez (PIN arriba); el público, en «Espectadores»."), 403
        return None

    @app.context_processor
    def common() -> dict[str, Any]:
        return {"juez": is_juez(), "ruling_text": RULING_TEXT, "phases": PHASES}

    @app.errorhandler(InvalidInput)
    def invalid(exc: InvalidInput) -> tuple[str, int]:
        return render_template("message.html", text=str(exc)), 400

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        """Flask's own pages are English: every refusal of the hub says it in Spanish."""
        status = exc.code or 500
        text = HTTP_TEXT.get(status, HTTP_TEXT[500])
        if request.path.startswith("/api/"):
            return jsonify(error=text), status
        return render_template("message.html", text=text), status

    # ------------------------------------------------------------------------ the juez

    @app.post("/entrar")
    def login() -> Any:
        same_site()
        given = request.form.get("pin", "")
        if hmac.compare_digest(given.encode(), pin.encode()):
            session["juez"] = True
            back = request.form.get("next", "")
            return redirect(back if back.startswith("/") and not back.startswith("//") else url_for("index"))
        time.sleep(0.5)  # a script guessing PINs goes slowly
        return render_template("message.html", text="PIN equivocado"), 403

    @app.post("/salir")
    def logout() -> Any:
        session.clear()
        return redirect(url_for("index"))

    @app.get("/")
    def index() -> str:
        return render_template("tables.html", tables=tables())

    @app.get("/api/tables")
    def api_tables() -> Response:
        return jsonify({"tables": tables(), "at": now_iso()})

    @app.get("/mesa/<name>")
    def console(name: str) -> str:
        row = store.table(name)
        if row is None:
            abort(404)
        views = [partida_view(store, name, p) for p in sorted(store.partidas(name))]
        changes = store.event_kinds(name, ("corrected", "undone", "reopened"))
        return render_template("console.html", name=name, row=row, glance=glance(name, row.state, row.status,
                                                                                  row.seen),
                               pairs=seated(name), views=views, changes=changes,
                               rulings=store.rulings(name), calls=[c for c in store.calls() if c["table"] == name],
                               kinds=list(RulingKind))

    @app.get("/api/mesa/<name>")
    def api_table(name: str) -> Response:
        row = store.table(name)
        if row is None:
            abort(404)
        return jsonify({"name": name, "status": row.status, "seq": row.seq, "state": row.state,
                        "partidas": sorted(store.partidas(name)), "rulings": store.rulings(name)})

    @app.get("/api/mesa/<name>/partida/<int:n>")
    def api_partida(name: str, n: int) -> Response:
        view = partida_view(store, name, n)
        return jsonify({"table": name, "partida": n, "hands": store.export(name, n),
                        "narration": view.narration(), "over": view.over,
                        "winner": view.partida.winner if view.partida else None})

    @app.post("/mesa/<name>/decision")
    def ruling(name: str) -> Any:
        guard()
        try:
            kind = RulingKind(request.form.get("kind", ""))
        except ValueError:
            raise InvalidInput("decisión desconocida") from None
        pair = request.form.get("pair", "")
        partida = request.form.get("partida", "")
        text = request.form.get("text", "").strip()[:2000]
        if kind in (RulingKind.JUEGO_AWARDED, RulingKind.JUEGO_LOST, RulingKind.PARTIDA_LOST) and pair not in ("0", "1"):
            raise InvalidInput("di a qué pareja (asientos 1 y 3, o 2 y 4) se aplica la decisión")
        store.add_ruling(name, kind, partida=int(partida) if partida.isdigit() else None,
                         pair=int(pair) if pair in ("0", "1") else None, text=text,
                         juez=request.form.get("juez", "").strip()[:100], at=now_iso())
        return redirect(url_for("console", name=name))

    @app.post("/mesa/<name>/respuesta")
    def answer(name: str) -> Any:
        guard()
        call_id = request.form.get("id", "")
        text = request.form.get("text", "").strip()[:500] or "El juez va a la mesa."
        if not call_id.isdigit() or not store.answer_call(name, int(call_id), text, now_iso()):
            raise InvalidInput("esa llamada no existe")
        if follower is not None:
            follower.answer_call(name, int(call_id), text, now_iso())
        return redirect(url_for("console", name=name))

    # ------------------------------------------------------------------------ the tournament

    @app.get("/torneo")
    def tournament() -> str:
        names = pairs_by_id()
        rows = results(store)
        return render_template("tournament.html", pairs=list(names.values()), names=names, rows=rows,
                               tables=[t.name for t in store.tables()], formats=list(Format),
                               delay=store.setting(DELAY_KEY, "0"), round=current_round())

    @app.post("/torneo/pareja")
    def add_pair() -> Any:
        guard()
        store.add_pair(request.form.get("name", ""), request.form.get("players", ""), request.form.get("group", ""))
        return redirect(url_for("tournament"))

    @app.post("/torneo/retraso")
    def set_delay() -> Any:
        guard()
        value = request.form.get("delay", "0").strip()
        if not value.isdigit() or int(value) > 7200:
            raise InvalidInput("el retraso son segundos, de 0 a 7200")
        store.set_setting(DELAY_KEY, value)
        if follower is not None and follower.public is not None:
            follower.public.delay_s = float(value)
        return redirect(url_for("tournament"))

    @app.post("/torneo/firma")
    def sign() -> Any:
        guard()
        match = next((m for m in store.matches() if str(m["id"]) == request.form.get("match")), None)
        view = match_partida(store, match) if match is not None else None
        if match is None or view is None or not view.over:
            raise InvalidInput("esa partida no ha terminado")
        store.add_ruling(match["table_name"], RulingKind.SIGNED, partida=view.id, pair=None,
                         text="la pareja perdedora firma el resultado", juez="", at=now_iso())
        return redirect(url_for("tournament"))

    @app.post("/torneo/ronda")
    def draw_round() -> Any:
        guard()
        fmt = Format(request.form.get("format", Format.LIGUILLA))
        seed = request.form.get("seed", "").strip() or secrets.token_hex(4)
        listed = [t.strip() for t in request.form.get("tables", "").split(",") if t.strip()]
        tables_now = listed or [t.name for t in store.tables()]
        pairs = store.pairs()
        if len(pairs) < 2:
            raise InvalidInput("hacen falta al menos dos parejas")
        ids = [p["id"] for p in pairs]
        done = [(m, r) for m, r, _, _ in results(store) if m["fmt"] == fmt]
        past = [r for _, r in done]
        number = current_round() + 1
        if fmt == Format.LIGUILLA:
            if any(not p["group"] for p in pairs):
                n_groups = int(request.form.get("groups", "1") or 1)
                for g, members in enumerate(groups(ids, n_groups, seed)):
                    for pid in members:
                        store.set_group(pid, chr(ord("A") + g))
                pairs = store.pairs()
            k = len({m["round"] for m, _ in done})
            pairings = []
            for g in sorted({p["group"] for p in pairs}):
                rounds = round_robin([p["id"] for p in pairs if p["group"] == g])
                if k < len(rounds):
                    pairings += rounds[k]
            if not pairings:
                raise InvalidInput("la liguilla ha terminado: todas las parejas se han enfrentado")
        elif fmt == Format.CROSSED:
            counted = [r for m, r, ok, _ in results(store) if ok and m["fmt"] == Format.LIGUILLA]
            by_group = sorted({p["group"] for p in pairs})
            pairings = crossed([[s.pair for s in standings([p["id"] for p in pairs if p["group"] == g], counted)]
                                for g in by_group])
        elif fmt == Format.KNOCKOUT:
            stage = [(m, r) for m, r, _, _ in results(store) if m["fmt"] in (Format.CROSSED, Format.KNOCKOUT)]
            entrants = sorted({p for m, _ in stage if m["fmt"] == Format.CROSSED for p in (m["pair_a"], m["pair_b"])
                               if p is not None}) or ids
            pairings = knockout_round(entrants, [r for _, r in stage], seed,
                                      lives=int(request.form.get("lives", "1") or 1))
            if not pairings:
                raise InvalidInput("el cuadro ha terminado: queda una pareja")
        else:
            pairings = swiss_round(ids, past, seed)
        at = now_iso()
        losses = losses_of([r for m, r, _, _ in results(store) if m["fmt"] in (Format.CROSSED, Format.KNOCKOUT)])

        def bracket(a: int) -> str:
            if fmt != Format.KNOCKOUT or not losses[a]:
                return f"{fmt} (semilla {seed})"
            return f"{fmt}, cuadro de {losses[a]} derrota{'s' if losses[a] > 1 else ''} (semilla {seed})"

        store.add_matches([{"round": number, "stage": bracket(a), "table_name": table,
                            "pair_a": a, "pair_b": b, "drawn_at": at, "fmt": str(fmt)}
                           for table, (a, b) in assign_tables(pairings, sorted(tables_now))])
        return redirect(url_for("draw"))

    @app.get("/sorteo")
    def draw() -> str:
        r = current_round()
        return render_template("draw.html", round=r, matches=store.matches(r) if r else [], names=pairs_by_id())

    @app.get("/clasificacion")
    def standings_page() -> str:
        names = pairs_by_id()
        counted: list[Result] = [r for _, r, ok, _ in results(store) if ok]
        return render_template("standings.html", rows=standings(list(names), counted), names=names)

    # ------------------------------------------------------------------------ spectators

    @app.get("/ver")
    def watch_all() -> str:
        return render_template("watch.html", table=None, ws=public_ws)

    @app.get("/ver/<name>")
    def watch(name: str) -> str:
        return render_template("watch.html", table=name, ws=public_ws)

    @app.get("/sse/<name>")
    def sse_page(name: str) -> str:
        return render_template("sse.html", table=name)

    @app.get("/api/sse/<name>")
    def sse(name: str) -> Response:
        if store.table(name) is None:
            abort(404)
        with streams_lock:
            if streams["open"] >= MAX_SSE:
                return Response("demasiados espectadores: usad /ver\n", status=503, mimetype="text/plain")
            streams["open"] += 1
        try:
            last = int(request.headers.get("Last-Event-ID", "0"))
        except ValueError:
            last = 0

        def stream() -> Iterator[str]:
            nonlocal last
            if last == 0:  # a newcomer: the whole state of now (of the delay's now), then what follows
                row = store.table(name)
                delay = float(store.setting(DELAY_KEY, "0"))
                if row is not None and row.state is not None and delay == 0:
                    last = row.seq
                    yield _sse({"seq": row.seq, "kind": "state", "state": row.state})
                else:
                    cutoff = (datetime.now(UTC) - timedelta(seconds=delay)).isoformat(timespec="milliseconds")
                    last = max(0, store.event_before(name, cutoff) - 1)
            idle = 0.0
            while True:
                delay = float(store.setting(DELAY_KEY, "0"))
                cutoff = (datetime.now(UTC) - timedelta(seconds=delay)).isoformat(timespec="milliseconds")
                sent = False
                for e in store.events(name, last, 100):
                    if e["at"] > cutoff:
                        break
                    last = e["seq"]
                    sent = True
                    yield _sse(e)
                if not sent:
                    idle += sse_poll_s
                    if idle >= 15:
                        idle = 0.0
                        yield ": sigo aquí\n\n"
                    time.sleep(sse_poll_s)

        def closed() -> None:
            with streams_lock:
                streams["open"] -= 1

        response = Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache",
                                                                             "X-Accel-Buffering": "no"})
        response.call_on_close(closed)
        return response

    return app


def _sse(event: dict[str, Any]) -> str:
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"id: {event['seq']}\nevent: {event['kind']}\ndata: {data}\n\n"
