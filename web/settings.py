"""The settings and health pages: what a club changes on the display, behind the PIN, without SSH.

``/settings`` (table name, mains Hz, MQTT broker, the camera's focus and light,
the Wi-Fi or hotspot with its country, «Actualizar»; the address and QR code
for phones) and ``/health`` (temperature, throttling, disk, camera frame rate,
journal size, uptime, version). Settings are stored in the state directory's
``settings.toml`` (:func:`firmware.config.save_settings`), over
``/etc/mus-table/table.toml``; what needs root (the Wi-Fi, an update, a
restart to apply the settings) is a request file that ``mus-table-admin``
does (``hardware/pi/install.sh --requests``). The web never runs a command.

Everything it touches is a :class:`TableAdmin` in ``app.extensions``
(:meth:`firmware.table_app.Table.serve_web` makes the real one; tests make one
over a folder). Errors are codes of :mod:`web.strings`, in Spanish.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    session,
)

from firmware.config import read_settings, save_settings
from firmware.health import Probe
from table.errors import InvalidInput
from web.security import same_origin, tokens_match

MAX_UPLOAD = 400 * 2**20
"""The largest release archive taken from the browser (a release with its Pi wheels is ~150 MB)."""
COUNTRY = re.compile(r"[A-Z]{2}")
NAME = re.compile(r"[\w.\-]{1,40}")  # a topic of MQTT: no spaces, no / # +
HOST = re.compile(r"[A-Za-z0-9.\-:]{0,253}")
PREFIX = re.compile(r"[A-Za-z0-9_\-/]{1,64}")


def local_addresses(proc: Path = Path("/proc")) -> list[str]:
    """This machine's IPv4 addresses on its networks (the club's Wi-Fi, the hotspot's 10.42.0.1),
    from the kernel's routing table (``/proc/net/fib_trie``: each ``/32 host LOCAL`` entry); no
    packet is sent, nothing is run.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "net").mkdir()
    >>> _ = (d / "net/fib_trie").write_text("Main:\\n |-- 127.0.0.1\\n    /32 host LOCAL\\n"
    ...     " |-- 10.42.0.1\\n    /32 host LOCAL\\n |-- 10.42.0.255\\n    /32 link BROADCAST\\n"
    ...     "Local:\\n |-- 10.42.0.1\\n    /32 host LOCAL\\n")
    >>> local_addresses(d)
    ['10.42.0.1']
    """
    try:
        lines = (proc / "net/fib_trie").read_text().splitlines()
    except OSError:
        return []
    found: list[str] = []
    for above, line in zip(lines, lines[1:], strict=False):
        if line.strip() == "/32 host LOCAL" and "|--" in above:
            address = above.split("|--")[1].strip()
            if not address.startswith("127.") and address not in found:
                found.append(address)
    return found


@dataclass
class TableAdmin:
    """What the settings and health pages act on. ``config_path``: the configuration (read only);
    ``state_dir``: the settings file, the requests to root, the disk to watch."""

    config_path: Path
    state_dir: Path
    journal: Path | None = None
    runner: Any = None
    """The table's runner (``on_camera`` jobs, ``frames``), or None: no camera here."""
    probe: Probe = field(default_factory=Probe)
    port: int = 8000
    hostname: str = field(default_factory=socket.gethostname)
    addresses: Callable[[], list[str]] = local_addresses
    clock: Callable[[], float] = time.monotonic
    camera_timeout_s: float = 90.0

    @property
    def settings_path(self) -> Path:
        return self.state_dir / "settings.toml"

    @property
    def requests_dir(self) -> Path:
        return self.state_dir / "requests"

    def config_text(self) -> str:
        try:
            return self.config_path.read_text(encoding="utf-8")
        except OSError:
            return ""

    def request(self, name: str, lines: dict[str, str]) -> None:
        """Leave ``name.request`` for root (``key=value`` lines, written whole, readable by us only)."""
        self.requests_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.requests_dir / f".{name}.part"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join(f"{k}={v}\n" for k, v in lines.items()))
        os.replace(tmp, self.requests_dir / f"{name}.request")

    def status(self) -> dict[str, Any]:
        try:
            return dict(json.loads((self.requests_dir / "status.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return {}

    def urls(self) -> list[str]:
        hosts = [f"{self.hostname}.local", *self.addresses()]
        return [f"http://{h}:{self.port}/watch" for h in hosts]


class Refused(InvalidInput):
    """A setting refused: ``code`` is the key of its Spanish text in :mod:`web.strings`."""

    def __init__(self, code: str, status: int = 400) -> None:
        super().__init__(code)
        self.code = code
        self.status = status


def _changes(body: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """The settings a posted body asks for, each checked (a :class:`Refused` names the first wrong)."""
    out: dict[tuple[str, str], Any] = {}
    if "table_name" in body:
        name = body["table_name"]
        if not isinstance(name, str) or not NAME.fullmatch(name.strip()):
            raise Refused("set_bad_name")
        out[("table", "name")] = name.strip()
    if "mains_hz" in body:
        if body["mains_hz"] not in (50, 60) or isinstance(body["mains_hz"], bool):
            raise Refused("set_bad_mains")
        out[("camera", "mains_hz")] = int(body["mains_hz"])
    if "mqtt_host" in body:
        host = body["mqtt_host"]
        if not isinstance(host, str) or not HOST.fullmatch(host.strip()):
            raise Refused("set_bad_host")
        out[("mqtt", "host")] = host.strip()
    if "mqtt_port" in body:
        port = body["mqtt_port"]
        if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
            raise Refused("set_bad_port")
        out[("mqtt", "port")] = port
    if "mqtt_prefix" in body:
        prefix = body["mqtt_prefix"]
        if not isinstance(prefix, str) or not PREFIX.fullmatch(prefix):
            raise Refused("set_bad_prefix")
        out[("mqtt", "prefix")] = prefix
    if not out:
        raise Refused("set_nothing")
    return out


def _network(body: dict[str, Any]) -> dict[str, str]:
    country = body.get("country")
    if not isinstance(country, str) or not COUNTRY.fullmatch(country):
        raise Refused("set_bad_country")
    mode = body.get("mode", "country")
    lines = {"country": country}
    if mode == "country":
        return lines
    ssid, psk = body.get("ssid"), body.get("psk")
    if mode not in ("wifi", "hotspot") or not isinstance(ssid, str) or not 1 <= len(ssid) <= 32 \
            or not ssid.isprintable():
        raise Refused("set_bad_ssid")
    if not isinstance(psk, str) or not 8 <= len(psk) <= 63 or not psk.isprintable():
        raise Refused("set_bad_psk")
    lines["ssid" if mode == "wifi" else "hotspot"] = ssid
    lines["psk"] = psk
    return lines


def register_settings(app: Flask, *, control_check: Callable[[], Any], tr: Callable[..., str]) -> None:
    """Add the settings and health pages to the display's app. ``control_check``: the app's own
    check of a changing request (None when allowed: the PIN, or a page unlocked by it)."""
    bp = Blueprint("settings", __name__)

    def admin() -> TableAdmin | None:
        return current_app.extensions.get("mus_table_admin")  # type: ignore[no-any-return]

    def unlocked() -> bool:  # the server's own sessions (web.security.Sessions): «Bloquear» revokes
        return bool(current_app.extensions["mus_table"]["unlocked"]())

    def refused(code: str, status: int = 400) -> tuple[Response, int]:
        return jsonify(error=tr(code), code=code), status

    def acting() -> tuple[TableAdmin, dict[str, Any]] | tuple[Response, int]:
        refusal = control_check()
        if refusal is not None:
            return refusal  # type: ignore[no-any-return]
        a = admin()
        if a is None:
            return refused("set_no_admin", 409)
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return refused("json_object_needed")
        return a, body

    @bp.get("/settings")
    def page() -> str:
        a = admin()
        values: dict[str, Any] = {}
        if a is not None and unlocked():
            from firmware.config import parse_config

            try:
                cfg = parse_config(a.config_text(), a.settings_path.read_text(encoding="utf-8")
                                   if a.settings_path.is_file() else "")
                values = {"table_name": cfg.table.name, "mains_hz": cfg.camera.mains_hz,
                          "mqtt_host": cfg.mqtt.host, "mqtt_port": cfg.mqtt.port, "mqtt_prefix": cfg.mqtt.prefix,
                          "lens_position": cfg.camera.lens_position, "deck": cfg.deck.name}
            except InvalidInput:
                values = {}
        return render_template("settings.html", admin=a, unlocked=unlocked(), values=values,
                               urls=a.urls() if a is not None else [], status=a.status() if a else {},
                               links=_links(app))

    @bp.get("/health")
    def health_page() -> str:
        return render_template("health.html")

    @bp.get("/api/health")
    def health() -> Response | tuple[Response, int]:
        a = admin()
        if a is None:
            return refused("set_no_admin", 409)
        frames = getattr(a.runner, "frames", None) if a.runner is not None else None
        h = a.probe.look(state_dir=a.state_dir, journal=a.journal, frames=frames, now=a.clock())
        return jsonify(h.to_json())

    @bp.post("/api/settings")
    def save() -> Response | tuple[Response, int]:
        got = acting()
        if not isinstance(got[0], TableAdmin):
            return got  # type: ignore[return-value]
        a, body = got  # type: ignore[misc]
        try:
            save_settings(a.settings_path, a.config_text(), _changes(body))
        except Refused as exc:
            return refused(exc.code, exc.status)
        except InvalidInput:
            return refused("set_refused")
        a.request("restart", {"why": "settings"})
        return jsonify(ok=True, restart=True, settings=read_settings(a.settings_path))

    @bp.post("/api/network")
    def network() -> Response | tuple[Response, int]:
        got = acting()
        if not isinstance(got[0], TableAdmin):
            return got  # type: ignore[return-value]
        a, body = got  # type: ignore[misc]
        try:
            lines = _network(body)
        except Refused as exc:
            return refused(exc.code)
        a.request("network", lines)
        return jsonify(ok=True)

    @bp.post("/api/camera/<what>")
    def camera(what: str) -> Response | tuple[Response, int]:
        got = acting()
        if not isinstance(got[0], TableAdmin):
            return got  # type: ignore[return-value]
        a, _ = got  # type: ignore[misc]
        if what not in ("light", "focus"):
            return refused("set_nothing", 404)
        if a.runner is None:
            return refused("set_no_camera", 409)
        job = (lambda s: s.relight()) if what == "light" else (lambda s: s.focus())
        try:
            result = a.runner.on_camera(job).result(timeout=a.camera_timeout_s)
        except Exception:  # noqa: BLE001 - no such camera, no lens, no frame: one line for the person
            return refused("set_camera_failed", 409)
        if what == "focus":
            save_settings(a.settings_path, a.config_text(), {("camera", "lens_position"): float(result)})
            return jsonify(ok=True, lens_position=float(result))
        return jsonify(ok=True, locked={k: v if not isinstance(v, tuple) else list(v) for k, v in result.items()})

    @bp.get("/api/update")
    def update_status() -> Response | tuple[Response, int]:
        a = admin()
        if a is None:
            return refused("set_no_admin", 409)
        return jsonify(version=a.probe.version(), status=a.status())

    @bp.post("/api/update")
    def update() -> Response | tuple[Response, int]:
        """JSON ``{"source": "usb"}``: the newest release on a USB stick; or a multipart upload of
        a release archive (field ``release``), sent by the unlocked page with its CSRF token."""
        a = admin()
        if request.is_json:
            got = acting()
            if not isinstance(got[0], TableAdmin):
                return got  # type: ignore[return-value]
            a, body = got  # type: ignore[misc]
            if body.get("source") != "usb":
                return refused("set_update_bad_file")
            a.request("update", {"source": "usb"})
            return jsonify(ok=True)
        if not same_origin(request.headers.get("Origin"), request.headers.get("Referer"), request.host) \
                or not tokens_match(request.headers.get("X-CSRF-Token"), session.get("csrf")) or not unlocked():
            return refused("pin_needed", 403)
        if a is None:
            return refused("set_no_admin", 409)
        request.max_content_length = MAX_UPLOAD
        upload = request.files.get("release")
        if upload is None or not re.fullmatch(r"mus-table-[\w.\-]+\.tar\.gz", upload.filename or ""):
            return refused("set_update_bad_file")
        a.requests_dir.mkdir(parents=True, exist_ok=True)
        upload.save(a.requests_dir / "upload.tar.gz")
        a.request("update", {"source": "file"})
        return jsonify(ok=True)

    @bp.get("/qr.svg")
    def qr() -> Response | tuple[Response, int]:
        """The QR code of the spectators' page (``?n=`` which address: 0 the mDNS name)."""
        import qrcode
        import qrcode.image.svg

        a = admin()
        if a is None:
            return refused("set_no_admin", 409)
        urls = a.urls()
        n = request.args.get("n", "0")
        url = urls[int(n)] if n.isdigit() and int(n) < len(urls) else urls[0]
        svg = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathImage, border=2).to_string()
        return Response(svg, mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})

    app.register_blueprint(bp)


def _links(app: Flask) -> dict[str, str]:
    """The pages of other parts the settings page links to, where this app has them (house
    rules, decks); the PIN is changed here, through the app's own ``POST /api/pin``."""
    rules = {r.rule for r in app.url_map.iter_rules()}
    wanted = {"house_rules": ("/rules", "/house-rules", "/reglas"), "decks": ("/decks", "/deck", "/barajas")}
    return {name: next(p for p in paths if p in rules) for name, paths in wanted.items()
            if any(p in rules for p in paths)}
