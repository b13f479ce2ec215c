"""web/settings.py: the settings and health pages, over a state folder of the test's own, a fake
camera and a fake /sys; the requests to root checked as install.sh reads them; one run in
headless Chromium (the PIN, a setting saved, «Ajustar la luz», the QR code, the health table)."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from firmware.config import load_config
from firmware.health import Probe
from firmware.table_loop import TableLoop
from web.app import create_app
from web.settings import TableAdmin
from web.strings import ES

PIN = "4321"


class FakeRunner:
    """The runner's camera jobs run at once on a fake camera; ``frames`` climbs with the clock."""

    def __init__(self) -> None:
        self.frames = 0
        self.relit = 0
        self.lens = 1.0

    def relight(self) -> dict[str, Any]:
        self.relit += 1
        return {"AeEnable": False, "ExposureTime": 20000, "ColourGains": (1.9, 1.6)}

    def focus(self) -> float:
        self.lens = 0.8
        return 0.8

    def on_camera(self, job: Any) -> Future[Any]:
        done: Future[Any] = Future()
        try:
            done.set_result(job(self))
        except Exception as exc:  # noqa: BLE001
            done.set_exception(exc)
        return done


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def fake_sys(root: Path) -> Path:
    (root / "sys/class/thermal/thermal_zone0").mkdir(parents=True)
    (root / "sys/class/thermal/thermal_zone0/temp").write_text("58300\n")
    (root / "sys/devices/platform/soc/soc:firmware").mkdir(parents=True)
    (root / "sys/devices/platform/soc/soc:firmware/get_throttled").write_text("50000\n")  # under-voltage since boot
    (root / "proc").mkdir()
    (root / "proc/uptime").write_text("7384.21 12000.00\n")
    (root / "opt/mus-table/current").mkdir(parents=True)
    (root / "opt/mus-table/current/RELEASE").write_text("version=0.1.0\nid=0.1.0-abc1234\n")
    return root


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[Any, TableAdmin, FakeRunner, Clock]]:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nname = "mesa-1"\n[mqtt]\nprefix = "club"\n')
    state = tmp_path / "state"
    state.mkdir()
    journal = state / "journal.sqlite"
    journal.write_bytes(b"x" * 2 * 2**20)
    runner, clock = FakeRunner(), Clock()
    loop = TableLoop()
    app = create_app(loop, pin=PIN, keepalive=1.0)
    admin = TableAdmin(config, state, journal=journal, runner=runner,
                       probe=Probe(fake_sys(tmp_path / "fs")), port=8000, hostname="mus-table",
                       addresses=lambda: ["192.168.1.40"], clock=clock)
    app.extensions["mus_table_admin"] = admin
    yield app, admin, runner, clock
    app.extensions["mus_table"]["hub"].stop()


def post(client: Any, url: str, body: Any, pin: str | None = PIN) -> Any:
    headers = {"Origin": "http://localhost"}
    if pin is not None:
        headers["X-Table-PIN"] = pin
    return client.post(url, json=body, headers=headers)


def test_settings_are_stored_in_the_state_folder_and_applied_by_a_restart(table: Any) -> None:
    app, admin, _, _ = table
    client = app.test_client()
    r = post(client, "/api/settings", {"table_name": "Mesa-del-fondo", "mains_hz": 60,
                                       "mqtt_host": "hub.local", "mqtt_port": 1884})
    assert r.status_code == 200, r.json
    cfg = load_config(admin.config_path, settings=admin.settings_path)
    assert (cfg.table.name, cfg.camera.mains_hz, cfg.mqtt.host, cfg.mqtt.port, cfg.mqtt.prefix) == \
        ("Mesa-del-fondo", 60, "hub.local", 1884, "club")
    assert "mesa-1" in admin.config_path.read_text()  # /etc's file is never written
    assert (admin.requests_dir / "restart.request").read_text() == "why=settings\n"


@pytest.mark.parametrize("body, code", [
    ({"mains_hz": 55}, "set_bad_mains"), ({"table_name": ""}, "set_bad_name"),
    ({"table_name": "a\nb = 1"}, "set_bad_name"), ({"mqtt_port": 0}, "set_bad_port"),
    ({"mqtt_host": "a b"}, "set_bad_host"), ({"mains_hz": True}, "set_bad_mains"), ({}, "set_nothing"),
])
def test_a_bad_setting_is_one_spanish_line_and_changes_nothing(table: Any, body: dict[str, Any], code: str) -> None:
    app, admin, _, _ = table
    r = post(app.test_client(), "/api/settings", body)
    assert r.status_code == 400 and r.json["code"] == code
    assert "\n" not in r.json["error"] and r.json["error"] != code  # a sentence, not the code
    assert not admin.settings_path.exists() and not (admin.requests_dir / "restart.request").exists()


@pytest.mark.parametrize("body", [[60], "60", 60, True])
def test_a_body_that_is_not_a_json_object_is_one_spanish_line(table: Any, body: Any) -> None:
    app, admin, _, _ = table
    r = post(app.test_client(), "/api/settings", body)
    assert r.status_code == 400 and r.json == {"code": "json_object_needed", "error": ES["json_object_needed"]}
    assert not admin.settings_path.exists() and not (admin.requests_dir / "restart.request").exists()


def test_settings_need_the_pin(table: Any) -> None:
    app, admin, _, _ = table
    client = app.test_client()
    assert post(client, "/api/settings", {"mains_hz": 60}, pin=None).status_code == 403
    assert post(client, "/api/settings", {"mains_hz": 60}, pin="0000").status_code in (401, 403)
    assert post(client, "/api/network", {"country": "ES"}, pin=None).status_code == 403
    assert post(client, "/api/update", {"source": "usb"}, pin=None).status_code == 403
    assert post(client, "/api/camera/light", {}, pin=None).status_code == 403
    assert not admin.settings_path.exists() and not admin.requests_dir.exists()


def test_the_wifi_and_its_country_are_a_request_to_root(table: Any) -> None:
    app, admin, _, _ = table
    client = app.test_client()
    r = post(client, "/api/network", {"country": "PT", "mode": "hotspot", "ssid": "mus-table", "psk": "una clave larga"})
    assert r.status_code == 200
    req = admin.requests_dir / "network.request"
    assert req.read_text() == "country=PT\nhotspot=mus-table\npsk=una clave larga\n"
    assert req.stat().st_mode & 0o077 == 0  # the passphrase readable by the service and root only
    assert post(client, "/api/network", {"country": "es"}).json["code"] == "set_bad_country"
    assert post(client, "/api/network", {"country": "ES", "mode": "wifi", "ssid": "x", "psk": "short"}).json["code"] \
        == "set_bad_psk"


def test_focus_and_light_run_on_the_camera_and_the_focus_is_kept(table: Any) -> None:
    app, admin, runner, _ = table
    client = app.test_client()
    r = post(client, "/api/camera/light", {})
    assert r.status_code == 200 and r.json["locked"]["ExposureTime"] == 20000 and runner.relit == 1
    r = post(client, "/api/camera/focus", {})
    assert r.json == {"ok": True, "lens_position": 0.8}
    assert load_config(admin.config_path, settings=admin.settings_path).camera.lens_position == 0.8


def test_an_update_from_a_stick_or_an_upload(table: Any) -> None:
    app, admin, _, _ = table
    client = app.test_client()
    assert post(client, "/api/update", {"source": "usb"}).status_code == 200
    assert (admin.requests_dir / "update.request").read_text() == "source=usb\n"
    (admin.requests_dir / "update.request").unlink()
    # The upload comes from the unlocked page with its CSRF token (a form post cannot carry one).
    page = client.get("/settings")
    token = page.text.split('name="csrf-token" content="')[1].split('"')[0]
    data = {"release": (io.BytesIO(b"archive bytes"), "mus-table-0.2.0.tar.gz")}
    headers = {"Origin": "http://localhost", "X-CSRF-Token": token}
    assert client.post("/api/update", data=data, headers=headers).status_code == 403  # locked
    assert post(client, "/api/unlock", {"pin": PIN}, pin=None).status_code == 200
    data = {"release": (io.BytesIO(b"archive bytes"), "evil.sh")}
    assert client.post("/api/update", data=data, headers=headers).json["code"] == "set_update_bad_file"
    data = {"release": (io.BytesIO(b"archive bytes"), "mus-table-0.2.0.tar.gz")}
    r = client.post("/api/update", data=data, headers=headers)
    assert r.status_code == 200, r.json
    assert (admin.requests_dir / "upload.tar.gz").read_bytes() == b"archive bytes"
    assert (admin.requests_dir / "update.request").read_text() == "source=file\n"
    (admin.requests_dir / "status.json").write_text('{"state": "done", "current": "0.2.0-abc"}')
    assert client.get("/api/update").json == {"version": "0.1.0-abc1234",
                                              "status": {"state": "done", "current": "0.2.0-abc"}}


def test_the_health_of_the_table_from_its_files(table: Any) -> None:
    app, _, runner, clock = table
    client = app.test_client()
    first = client.get("/api/health").json
    assert first["cpu_temp_c"] == 58.3 and first["uptime_s"] == 7384.21 and first["version"] == "0.1.0-abc1234"
    assert first["throttled"] == 0x50000 and first["throttle_flags"] == ["under_voltage_since_boot",
                                                                          "throttled_since_boot"]
    assert first["journal_mb"] == 2.0 and first["disk_free_mb"] > 0 and first["camera_fps"] is None
    runner.frames, clock.now = 40, 110.0
    assert client.get("/api/health").json["camera_fps"] == 4.0


def test_the_qr_code_says_the_address_for_phones(table: Any) -> None:
    app, _, _, _ = table
    client = app.test_client()
    svg = client.get("/qr.svg")
    assert svg.mimetype == "image/svg+xml" and svg.data.startswith(b"<svg") and b"<path" in svg.data
    page = client.get("/settings").text
    assert "http://mus-table.local:8000/watch" in page and "http://192.168.1.40:8000/watch" in page
    # Drawn as a picture and read back by OpenCV's QR reader: the code holds the address.
    import re as _re

    import cv2
    import numpy as np

    d = _re.search(rb'd="([^"]+)"', svg.data).group(1).decode()  # type: ignore[union-attr]
    size = int(_re.search(rb'viewBox="0 0 (\d+)', svg.data).group(1))  # type: ignore[union-attr]
    img = np.full((size * 10, size * 10), 255, np.uint8)
    for x, y in _re.findall(r"M(\d+),(\d+)H", d):
        img[int(y) * 10:int(y) * 10 + 10, int(x) * 10:int(x) * 10 + 10] = 0
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(img)
    assert text == "http://mus-table.local:8000/watch"


def test_without_an_admin_the_pages_say_so(tmp_path: Path) -> None:
    app = create_app(TableLoop(), pin=PIN)
    try:
        client = app.test_client()
        assert "no tiene ajustes aquí" in client.get("/settings").text
        assert client.get("/api/health").status_code == 409
    finally:
        app.extensions["mus_table"]["hub"].stop()


# --- in a real browser ------------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
def test_the_settings_page_by_taps_in_chromium(table: Any) -> None:
    from playwright.sync_api import expect, sync_playwright

    from web.server import make_server

    app, admin, runner, _ = table
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    url = f"http://127.0.0.1:{server.effective_port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1024, "height": 600})
            page.goto(url + "/")  # the kiosk has no address bar: the display links to the settings
            page.click("#link-settings")
            expect(page.locator("#qr")).to_be_visible(timeout=15000)
            assert page.locator("#qr").evaluate("img => img.naturalWidth") > 0  # the QR code drew
            page.fill("#pin", PIN)
            page.click("#pin-form button")
            expect(page.locator("#table-form")).to_be_visible(timeout=15000)
            page.fill("input[name=table_name]", "Mesa-7")
            page.check("input[name=mains_hz][value='60']")
            page.click("#save")
            expect(page.locator("#msg")).to_have_text("Guardado; la mesa se reinicia para aplicarlo", timeout=15000)
            assert load_config(admin.config_path, settings=admin.settings_path).table.name == "Mesa-7"
            page.fill("input[name=table_name]", "")
            page.fill("input[name=table_name]", "!!")
            page.click("#save")
            expect(page.locator("#msg")).to_contain_text("El nombre", timeout=15000)
            page.fill("#new-pin", "246802")
            page.click("#pin-change-form button")
            expect(page.locator("#msg")).not_to_have_text("", timeout=15000)
            assert post(app.test_client(), "/api/settings", {"mains_hz": 50}, pin="246802").status_code == 200
            page.click("#light")
            expect(page.locator("#msg")).to_have_text("Luz medida de nuevo", timeout=15000)
            assert runner.relit == 1
            page.click("#focus")
            expect(page.locator("#lens")).to_have_text("0.80", timeout=15000)
            expect(page.locator("#version")).to_have_text("0.1.0-abc1234", timeout=15000)
            page.goto(url + "/health")
            expect(page.locator("td[data-k=cpu_temp_c]")).to_have_text("58.3 °C", timeout=15000)
            expect(page.locator("td[data-k=throttle_flags]")).to_contain_text("faltó tensión")
            browser.close()
    finally:
        server.close()
