"""The whole table put together from a configuration: camera, reader, loop, journal, panel, MQTT, display.

``mus-table run`` and ``mus-table demo`` both build a :class:`Table` with
:func:`build_table` and differ only in the source (the real camera, or the
synthetic table with its players). The web display comes from ``web/``
(imported only when it is served), so ``--no-web`` needs none of it.
"""

from __future__ import annotations

import logging
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware.camera import CameraError, CameraSource, FolderCamera, OpenCVCamera, PiCamera
from firmware.config import TableConfig
from firmware.journal import Journal
from firmware.mqtt import MqttPublisher
from firmware.panel import BEEP_ERROR, BEEP_OK, Light, Panel
from firmware.runner import PanelDriver, TableRunner
from firmware.table_loop import Reader, TableLoop
from firmware.watcher import Watcher
from table.errors import InvalidInput, MusTableError
from vision.mat import Mat

log = logging.getLogger(__name__)


def open_source(config: TableConfig) -> CameraSource:
    """The camera the configuration names (the synthetic table is opened by the demo)."""
    cam = config.camera
    if cam.source == "picamera2":
        still = (cam.still_width, cam.still_height) if cam.still_width and cam.still_height else None
        return PiCamera(still_size=still, watch_size=(cam.watch_width, cam.watch_height),
                        mains_hz=cam.mains_hz, lens_position=cam.lens_position)
    if cam.source == "opencv":
        return OpenCVCamera(cam.path or cam.device, width=cam.still_width, height=cam.still_height)
    if cam.source == "folder":
        return FolderCamera(Path(cam.path).expanduser())
    if cam.source == "synthetic":
        from firmware.synthetic import SyntheticTable

        return SyntheticTable(cam.seed, target=config.rules.target, piedras=config.seats.piedras)
    raise CameraError(f"unknown camera source {cam.source!r}")


def deck_to_use(config: TableConfig) -> str | None:
    """The deck the table reads with: the one last learnt or chosen (kept beside the decks, so that a
    restart or a power cut keeps it), else the configuration's ``[deck] name``, else none."""
    from vision.learnt import IN_USE, deck_in_use, decks_dir

    if (decks_dir() / IN_USE).is_file():  # a choice was made at the table (None: the card model alone)
        return deck_in_use()
    return config.deck.name or None


def make_reader(config: TableConfig, mat: Mat, deck: str | None = None) -> Reader:
    """The table reader, with the learnt deck ``deck`` (default: :func:`deck_to_use`) when there is one."""
    from vision.reading import TableReader

    name = deck_to_use(config) if deck is None else deck
    if not name:
        return TableReader(mat)
    from vision.learnt import load_deck

    return TableReader(mat, classifier=load_deck(name).classifier())


class ShutdownHook:
    """The panel's long press of undo: the configured command (``systemctl poweroff`` on the Pi).

    systemd then stops the service as for any shutdown (SIGTERM: the table closes its
    journal). Refused, with the error beep, while journal entries still wait for the disk:
    they would be lost. Runs once; :attr:`process` is the command started.
    """

    def __init__(self, command: str, loop: TableLoop, panel: Panel) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise InvalidInput(f"config: panel.shutdown is not a command line: {exc}") from None
        self.loop = loop
        self.panel = panel
        self.process: subprocess.Popen[bytes] | None = None

    def __call__(self) -> None:
        if self.process is not None:
            return
        if not self.loop.flush():
            log.warning("shutdown refused: journal entries still wait for the disk")
            self.panel.beep(BEEP_ERROR)
            return
        log.warning("shutdown from the panel: %s", " ".join(self.argv))
        self.panel.light(green=Light.OFF, red=Light.BLINK)
        self.panel.beep(BEEP_OK)
        try:
            self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL)  # noqa: S603 - the configured command
        except OSError as exc:
            log.error("shutdown command failed: %s", exc)
            self.panel.beep(BEEP_ERROR)


@dataclass
class Table:
    """A running table: call :meth:`start`, then :meth:`stop` (or use ``with``)."""

    config: TableConfig
    loop: TableLoop
    runner: TableRunner
    journal: Journal | None = None
    panel: Panel | None = None
    panel_driver: PanelDriver | None = None
    mqtt: MqttPublisher | None = None
    settings_path: Path | None = None
    """The display's settings file (``--settings``); the settings page writes there."""
    config_path: Path | None = None
    """The configuration file it was built from (the settings page reads it, never writes it)."""
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def start(self) -> None:
        self.runner.start()

    def stop(self) -> None:
        self.runner.stop()
        for close in reversed(self._closers):
            try:
                close()
            except Exception:  # noqa: BLE001 - every part gets its chance to close
                log.exception("closing")

    def __enter__(self) -> Table:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def serve_web(self, *, clock: Any = None) -> None:
        """Serve the display (blocks until interrupted); the web app is imported here only.
        ``clock``: a ``firmware.clock.PhoneClock`` (the time from the phones), or None."""
        try:
            from web.app import create_app
            from web.server import serve
        except ImportError as exc:
            raise InvalidInput(f"the web display is not available ({exc}); run with --no-web") from None
        from web.security import random_pin

        pin = self.config.table.pin
        if not pin:  # no PIN configured: one for this run, for whoever started it
            pin = random_pin()
            print(f"PIN de la mesa: {pin}", file=sys.stderr, flush=True)
        admin = None
        if self.settings_path is not None and self.config_path is not None:
            from firmware.config import save_settings
            from web.settings import TableAdmin

            admin = TableAdmin(self.config_path, self.settings_path.parent, journal=self.config.journal_path,
                               runner=self.runner, port=self.config.web.port)
        app = create_app(self.loop, pin=pin, max_spectators=self.config.web.max_spectators, clock=clock,
                         save_pin=None if admin is None else  # a PIN changed on the display outlives a restart
                         lambda new: save_settings(admin.settings_path, admin.config_text(), {("table", "pin"): new}))
        if admin is not None:
            app.extensions["mus_table_admin"] = admin
        serve(app, self.config.web.host, self.config.web.port)


def build_table(config: TableConfig, *, source: CameraSource | None = None, reader: Reader | None = None,
                journal_path: Path | str | None = None, panel: bool | None = None, pin_factory: Any = None,
                on_shutdown: Callable[[], None] | None = None, fps: float | None = None) -> Table:
    """Put a table together; ``source``/``reader``/``pin_factory`` replace the configured ones."""
    mat = Mat(config.mat.side_mm)
    path = Path(journal_path) if journal_path is not None else config.journal_path
    journal = None
    closers: list[Callable[[], None]] = []
    if str(path) != ":none:":
        if str(path) != ":memory:":
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InvalidInput(f"cannot make the journal's folder {path.parent}: {exc.strerror}") from None
        journal = Journal(path)
        closers.append(journal.close)
    deck = deck_to_use(config) if reader is None else None
    if reader is None:
        try:
            reader = make_reader(config, mat, deck or "")
        except MusTableError as exc:  # a deck gone or learnt with another model: read without it, and say so
            log.warning("deck %s: %s", deck, exc)
            deck, reader = None, make_reader(config, mat, "")
    loop = TableLoop(config.loop_settings(), reader=reader, journal=journal, mat=mat)
    loop.deck = deck
    reopen = None if source is not None else (lambda: open_source(config))
    if source is None:
        try:
            source = open_source(config)
        except CameraError as exc:  # the table starts anyway, says so, and keeps trying
            log.warning("camera: %s", exc)
    runner = TableRunner(loop, source, watcher=Watcher(config.watch_settings(), mat), reopen=reopen,
                         fps=config.camera.fps if fps is None else fps)
    runner.relight_drift = config.camera.relight_drift
    table = Table(config, loop, runner, journal, _closers=closers)
    if panel if panel is not None else config.panel.enabled:
        table.panel = Panel(config.panel.pins, pin_factory=pin_factory, long_press_s=config.panel.long_press_s,
                            buzzer_active_high=config.panel.buzzer_active_high)
        if on_shutdown is None and config.panel.shutdown.strip():
            on_shutdown = ShutdownHook(config.panel.shutdown, loop, table.panel)
        table.panel_driver = runner.panel_driver = PanelDriver(loop, table.panel, on_shutdown=on_shutdown)
        closers.append(table.panel.close)
        closers.append(table.panel_driver.close)
    if config.mqtt.host:
        table.mqtt = MqttPublisher(loop.bus, config.table.name, config.mqtt.host, config.mqtt.port,
                                   prefix=config.mqtt.prefix, username=config.mqtt.username,
                                   password=config.mqtt.password, journal=journal,
                                   on_judge=loop.judge_answered)
        closers.append(table.mqtt.close)
    return table
