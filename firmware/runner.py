"""The table running by itself: frames in, readings when the table is still, the panel, the faults.

:class:`TableRunner` is the loop's engine room: it takes frames from the
camera source, gives them to the :class:`~firmware.watcher.Watcher`, asks the
:class:`~firmware.table_loop.TableLoop` to read when the table lies still with
cards on it, and turns what goes wrong with the camera into faults that go
away by themselves when the camera is back. :class:`PanelDriver` makes the
GPIO panel's buttons into commands and shows the table's state on its LEDs and
buzzer.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import cv2
import numpy as np

from firmware.camera import CameraError, CameraSource, Frame
from firmware.events import EventKind, TableEvent
from firmware.panel import (
    BEEP_ATTENTION,
    BEEP_ERROR,
    BEEP_OK,
    Light,
    Panel,
    PanelButton,
    PanelEvent,
)
from firmware.state import TableState
from firmware.table_commands import Command, CommandRefused, Confirm, NewPartida, Read, UndoHand
from firmware.table_loop import FaultKind, Phase, TableLoop
from firmware.watcher import Watch, Watcher
from table.errors import InvalidInput
from vision.calibration import Calibration, calibrate
from web.strings import say_error

log = logging.getLogger(__name__)


class TableRunner:
    """Drives a loop from a camera source. :meth:`step` does one frame; :meth:`start` runs a thread.

    ``reopen`` (optional) opens the camera again after it was lost.
    """

    def __init__(self, loop: TableLoop, source: CameraSource | None, *, watcher: Watcher | None = None,
                 reopen: Callable[[], CameraSource] | None = None, camera_timeout_s: float = 3.0,
                 frozen_s: float = 10.0, retry_s: float = 2.0, calibrate_every: int = 30,
                 fps: float = 8.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.loop = loop
        self.source = source
        self.watcher = watcher or Watcher(mat=loop.mat)
        self.reopen = reopen
        self.camera_timeout_s = camera_timeout_s
        self.frozen_s = frozen_s
        self.retry_s = retry_s
        self.calibrate_every = calibrate_every
        self.period = 1.0 / fps if fps > 0 else 0.0
        self._clock = clock
        self._last_frame_at = clock()
        self._last_retry = clock()
        self._digest: int | None = None
        self._same_since: float | None = None
        self._calibration: Calibration | None = None
        self._frames = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_watch: Watch | None = None
        self.panel_driver: PanelDriver | None = None
        """Its presses are handled at every step, when set."""
        self.heartbeat: Callable[[], object] | None = None
        """Called after every step of the thread (systemd's watchdog: ``firmware.sdnotify``)."""
        self.relight_drift = 0.0
        """Measure the light again, between hands, when the felt's brightness moved this much (0: never)."""
        self.relight_every = 40
        """Frames between two looks at the felt's brightness (about 5 s at 8 frames a second)."""
        self.relit = 0
        """How many times the light was measured again by itself."""
        self._jobs: queue.SimpleQueue[tuple[Callable[[Any], Any], Future[Any]]] = queue.SimpleQueue()
        loop.attach_camera(self._still)

    def _still(self) -> Any:
        src = self.source
        return src.still() if src is not None else None

    # ------------------------------------------------------------------ one frame

    @property
    def frames(self) -> int:
        """Usable frames taken so far (the health page's frame rate)."""
        return self._frames

    def on_camera(self, job: Callable[[Any], Any]) -> Future[Any]:
        """Run ``job(source)`` in the runner's thread before its next frame (the camera has one
        user at a time: «Enfocar», «Ajustar la luz»); the future holds its result or error."""
        done: Future[Any] = Future()
        self._jobs.put((job, done))
        return done

    def _run_jobs(self) -> None:
        while True:
            try:
                job, done = self._jobs.get_nowait()
            except queue.Empty:
                return
            if self.source is None:
                done.set_exception(CameraError("no camera"))
                continue
            try:
                done.set_result(job(self.source))
            except Exception as exc:  # noqa: BLE001 - the caller gets it
                done.set_exception(exc)

    def _check_light(self, image: Any, watch: Watch) -> None:
        """Between hands (playing, no cards in the zones) the felt's brightness is compared with
        the one the light was locked at; past ``relight_drift`` the light is measured again."""
        src = self.source
        if (self.relight_drift <= 0 or self._frames % self.relight_every or src is None
                or not hasattr(src, "light_drift") or self.loop.phase is not Phase.PLAYING
                or watch.zones_with_cards):  # cards on the table (None: no mat seen, light may be why)
            return
        drift = src.light_drift(image)
        if drift > self.relight_drift:
            log.warning("light: the felt's brightness moved %.0f %%: measuring it again", 100 * drift)
            src.relight()
            self.relit += 1

    def step(self) -> Watch | None:
        """Take one frame and act on it; None when there was no usable frame."""
        self._run_jobs()
        if self.panel_driver is not None:
            self.panel_driver.poll()
        now = self._clock()
        frame = self._grab(now)
        if frame is None:
            if now - self._last_frame_at >= self.camera_timeout_s:
                self.loop.fault(FaultKind.CAMERA, "camera_lost")
                self._try_reopen(now)
            self.loop.flush()
            return None
        self._last_frame_at = now
        self.loop.clear_fault(FaultKind.CAMERA)
        image = frame.image
        if not _usable(image):
            self.loop.fault(FaultKind.FRAMES, "frames_bad", shape=str(getattr(image, "shape", None)))
            return None
        self.loop.clear_fault(FaultKind.FRAMES)
        self._check_frozen(image, now)
        self.loop.show_frame(image)
        self._frames += 1
        if self._calibration is None or self._frames % self.calibrate_every == 0:
            cal = calibrate(image, self.loop.mat)
            if cal is not None:
                self._calibration = cal
        watch = self.watcher.feed(image, self._calibration)
        self.last_watch = watch
        self._check_light(image, watch)
        if watch.read and self.loop.wants_reading() and FaultKind.FROZEN not in {f.kind for f in self.loop.faults}:
            try:
                self.loop.read_now(auto=True)
            except CommandRefused as exc:
                log.info("not read: %s", exc)
        self.loop.flush()
        return watch

    def _grab(self, now: float) -> Frame | None:
        if self.source is None:
            return None
        try:
            return self.source.grab()
        except CameraError as exc:
            self.loop.fault(FaultKind.CAMERA, "camera_failed", why=say_error(exc))
            self._drop_source()
        except InvalidInput as exc:
            self.loop.fault(FaultKind.FRAMES, "frame_unreadable", why=say_error(exc))
            self._last_frame_at = now  # the camera is there; its frames are the fault
        except Exception as exc:  # noqa: BLE001 - a driver failing in any way is a lost camera
            self.loop.fault(FaultKind.CAMERA, "camera_failed", why=f"{type(exc).__name__}: {exc}")
            self._drop_source()
        return None

    def _drop_source(self) -> None:
        if self.source is not None and self.reopen is not None:
            try:
                self.source.close()
            except Exception:  # noqa: BLE001, S110
                pass
            self.source = None

    def _try_reopen(self, now: float) -> None:
        if self.reopen is None or now - self._last_retry < self.retry_s:
            return
        self._last_retry = now
        self._drop_source()
        try:
            self.source = self.reopen()
            self._last_frame_at = now
        except (CameraError, OSError) as exc:
            log.info("camera not back yet: %s", exc)

    def _check_frozen(self, image: Any, now: float) -> None:
        small = cv2.resize(image, (64, 36), interpolation=cv2.INTER_AREA)
        digest = zlib.crc32(small.tobytes())
        if digest != self._digest:
            self._digest = digest
            self._same_since = now
            self.loop.clear_fault(FaultKind.FROZEN)
        elif self._same_since is not None and now - self._same_since >= self.frozen_s:
            self.loop.fault(FaultKind.FROZEN, "camera_frozen")

    # ------------------------------------------------------------------ the thread

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self.run, name="table-runner", daemon=True)
        self._thread.start()

    def run(self) -> None:
        while not self._stop.is_set():
            t0 = self._clock()
            try:
                self.step()
            except Exception:  # noqa: BLE001 - the table must go on; the log says what broke
                log.exception("runner step failed")
            if self.heartbeat is not None:
                self.heartbeat()
            rest = self.period - (self._clock() - t0)
            if rest > 0:
                self._stop.wait(rest)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.source is not None:
            self.source.close()


def _usable(image: Any) -> bool:
    return (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
            and image.shape[2] == 3 and min(image.shape[:2]) >= 64)


class PanelDriver:
    """The panel drives the loop, and shows it.

    Buttons: **confirm** is «leer» while the hand is played or the table is
    impossible, «confirmar» once it is scored, «nueva partida» once it is over;
    a long press of confirm starts a new partida at any time. **correct** reads
    again («no, look again»). **undo** takes back the last confirmed hand; its
    long press calls ``on_shutdown`` (the Pi's safe shutdown, when given).
    LEDs: green on (ready), blinking (waiting for confirmation); red on (a
    fault), blinking (look at the display: an impossible table, stones that
    disagree). Buzzer: one short beep when a hand counts, two for attention,
    one long for a fault.
    """

    def __init__(self, loop: TableLoop, panel: Panel, *, on_shutdown: Callable[[], None] | None = None) -> None:
        self.loop = loop
        self.panel = panel
        self.on_shutdown = on_shutdown
        self.refused: list[str] = []
        self._faults = 0
        self._phase: Phase | None = None
        self._stop = loop.bus.subscribe(self.show)
        latest = loop.bus.latest
        self.show_state(latest.typed if latest is not None and latest.typed is not None else loop.state())

    def command_for(self, event: PanelEvent) -> Command | None:
        phase = self.loop.phase
        if event.button is PanelButton.CONFIRM:
            if event.long or phase is Phase.OVER:
                return NewPartida()
            if phase is Phase.SCORED:
                return Confirm(None)
            if phase in (Phase.PLAYING, Phase.IMPOSSIBLE):
                return Read()
            return None
        if event.button is PanelButton.CORRECT:
            return Read() if phase in (Phase.IMPOSSIBLE, Phase.SCORED, Phase.PLAYING) else None
        if event.long:
            if self.on_shutdown is not None:
                self.on_shutdown()
            return None
        return UndoHand()

    def handle(self, event: PanelEvent) -> None:
        """Act on one press: the command it means, or an error beep with the reason kept."""
        cmd = self.command_for(event)
        if cmd is None:
            return
        try:
            self.loop.submit(cmd)
        except CommandRefused as exc:
            self.refused.append(str(exc))
            self.panel.beep(BEEP_ERROR)

    def poll(self) -> int:
        """Handle every press waiting; how many."""
        events = self.panel.events()
        for e in events:
            self.handle(e)
        return len(events)

    def show(self, event: TableEvent) -> None:
        self.show_state(event.typed if event.typed is not None else self.loop.state(), event.kind)

    def show_state(self, state: TableState, kind: EventKind | None = None) -> None:
        phase = state.phase
        faults = len(state.faults)
        attention = phase is Phase.IMPOSSIBLE or bool(state.stones_check)
        red = Light.ON if faults else Light.BLINK if attention else Light.OFF
        green = Light.BLINK if phase in (Phase.SCORED, Phase.READING) else Light.ON
        self.panel.light(green=green, red=red)
        if faults > self._faults:
            self.panel.beep(BEEP_ERROR)
        elif kind is EventKind.CONFIRMED:
            self.panel.beep(BEEP_OK)
        elif phase is Phase.IMPOSSIBLE and self._phase is not Phase.IMPOSSIBLE:
            self.panel.beep(BEEP_ATTENTION)
        self._faults = faults
        self._phase = phase

    def close(self) -> None:
        self._stop()
