"""The runner and the panel driving the loop: frames to readings, faults that come and go, buttons and LEDs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from firmware.camera import CameraError, FolderCamera, Frame
from firmware.panel import Light, Panel, PanelButton, PanelEvent, PanelPins
from firmware.runner import PanelDriver, TableRunner
from firmware.state import TableState
from firmware.synthetic import SyntheticTable
from firmware.table_loop import FaultKind, LoopSettings, TableLoop
from firmware.watcher import Watcher, WatchSettings
from table.cards import Card
from table.hand import Phase
from vision.reading import Reading, TableReader

HAND = [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
        ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeReader:
    def __init__(self, cards: list[list[str]] | None = None) -> None:
        self.cards = cards or HAND

    def read(self, frame: Any) -> Reading:
        return Reading(tuple(tuple(Card.parse(c) for c in s) for s in self.cards))


class FakeCamera:
    """A camera the test unplugs, freezes and breaks."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.mode = "ok"
        self.n = 0
        self.closed = False

    def grab(self) -> Frame | None:
        if self.mode == "unplugged":
            return None
        if self.mode == "gone":
            raise CameraError("USB camera removed")
        self.n += 1
        if self.mode == "bad":
            return Frame(np.zeros((10, 10), np.uint8), self.n, self.clock.now)
        image = np.zeros((120, 160, 3), np.uint8)
        if self.mode != "frozen":
            image[self.n % 100 + 10, :, :] = 255  # a live sensor: every frame differs
        return Frame(image, self.n, self.clock.now)

    def still(self) -> np.ndarray:
        return np.zeros((120, 160, 3), np.uint8)

    def close(self) -> None:
        self.closed = True


def faults(loop: TableLoop) -> set[FaultKind]:
    return {f.kind for f in loop.faults}


def test_camera_faults_show_and_go_by_themselves() -> None:
    clock = Clock()
    cams = [FakeCamera(clock), FakeCamera(clock)]
    opened = []

    def reopen() -> FakeCamera:
        opened.append(1)
        return cams[1]

    loop = TableLoop(reader=FakeReader())
    runner = TableRunner(loop, cams[0], reopen=reopen, camera_timeout_s=3, frozen_s=10, retry_s=1,
                         watcher=Watcher(WatchSettings(zones=0)), clock=clock)
    runner.step()
    assert faults(loop) == set()
    cams[0].mode = "unplugged"
    clock.now += 1
    runner.step()
    assert faults(loop) == set()  # one missing frame is not a lost camera
    clock.now += 3
    runner.step()
    assert faults(loop) == {FaultKind.CAMERA} and loop.snapshot()["faults"][0]["text"].startswith("Cámara")
    assert opened and runner.source is cams[1]  # it opened the camera again by itself
    clock.now += 1
    runner.step()
    assert faults(loop) == set()  # frames again: the fault is gone
    cams[1].mode = "bad"
    runner.step()
    assert faults(loop) == {FaultKind.FRAMES}
    cams[1].mode = "frozen"
    for _ in range(3):
        clock.now += 6
        runner.step()
    assert faults(loop) == {FaultKind.FROZEN}
    cams[1].mode = "ok"
    runner.step()
    assert faults(loop) == set()
    cams[1].mode = "gone"
    runner.step()
    assert faults(loop) == {FaultKind.CAMERA} and cams[1].closed


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


def press(factory: MockFactory, gpio: int) -> None:
    factory.pin(gpio).drive_low()
    factory.pin(gpio).drive_high()


def test_the_panel_reads_confirms_and_undoes(factory: MockFactory) -> None:
    pins = PanelPins()
    reader = FakeReader([list(s) for s in HAND])
    reader.cards[2] = reader.cards[2][:3]
    loop = TableLoop(LoopSettings(), reader=reader)
    loop.attach_camera(lambda: np.zeros((8, 8, 3), np.uint8))
    shutdowns: list[int] = []
    with Panel(pins, pin_factory=factory) as panel:
        driver = PanelDriver(loop, panel, on_shutdown=lambda: shutdowns.append(1))
        green, red = factory.pin(pins.green_led), factory.pin(pins.red_led)
        assert panel.lights == (Light.ON, Light.OFF)
        press(factory, pins.confirm)  # «leer»
        assert driver.poll() == 1 and loop.snapshot()["phase"] == "impossible"
        assert panel.lights == (Light.ON, Light.BLINK)  # look at the display
        reader.cards = [list(s) for s in HAND]
        press(factory, pins.correct)  # read again, after the fix on the felt
        driver.poll()
        assert loop.snapshot()["phase"] == "scored" and panel.lights == (Light.BLINK, Light.OFF)
        press(factory, pins.confirm)  # «confirmar»
        driver.poll()
        s = loop.snapshot()
        assert (s["phase"], s["hands"], s["mano"]) == ("playing", 1, 1) and green.state and not red.state
        press(factory, pins.undo)
        driver.poll()
        assert loop.snapshot()["hands"] == 0 and loop.snapshot()["phase"] == "scored"
        press(factory, pins.undo)  # nothing left to undo: refused, with the reason kept
        driver.poll()
        assert driver.refused and "deshacer" in driver.refused[-1]
        driver.handle(PanelEvent(PanelButton.UNDO, long=True))
        assert shutdowns == [1]
        driver.handle(PanelEvent(PanelButton.CONFIRM, long=True))
        assert loop.snapshot()["partida"]["id"] == 2
        loop.set_fault(FaultKind.CAMERA, "Cámara perdida", "mirad el cable")
        assert panel.lights[1] is Light.ON and red.state
        driver.close()


def test_a_folder_of_frames_read_end_to_end(tmp_path: Path) -> None:
    table = SyntheticTable(11, still_px_per_mm=1.5, watch_px_per_mm=1.5)
    table.moving_frames = 0
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "00.png"), table.still())
    table.show([[Card.parse(c) for c in seat] for seat in HAND])
    table.moving_frames = 0
    cv2.imwrite(str(frames / "01.png"), table.still())
    for i in range(2, 8):
        shutil.copy(frames / "01.png", frames / f"{i:02d}.png")
    loop = TableLoop(reader=TableReader())
    runner = TableRunner(loop, FolderCamera(frames), watcher=Watcher(WatchSettings(still_frames=3)))
    phases = []
    for _ in range(8):
        runner.step()
        phases.append(loop.snapshot()["phase"])
    s = loop.snapshot()
    assert phases[0] == "playing" and s["phase"] == "scored"
    assert s["cards"] is not None and [sorted(seat) for seat in s["cards"]] == [sorted(seat) for seat in HAND]
    assert s["stones_check"] == []  # the stones lie as a 0-0 score says


def test_synthetic_hands_end_to_end_confirmed_from_the_mock_panel(factory: MockFactory, tmp_path: Path) -> None:
    """The synthetic table deals and shows; the runner sees it still and reads it; the panel confirms;
    a restart in the middle of the next hand resumes it."""
    from firmware.journal import Journal
    from firmware.synthetic import SyntheticPlayers
    from firmware.table_commands import Say

    pins = PanelPins()
    synthetic = SyntheticTable(3)
    path = tmp_path / "j.sqlite"
    loop = TableLoop(reader=TableReader(), journal=Journal(path))
    runner = TableRunner(loop, synthetic, watcher=Watcher(WatchSettings(still_frames=2)))
    players = SyntheticPlayers(loop, synthetic, 3)
    with Panel(pins, pin_factory=factory) as panel:
        runner.panel_driver = PanelDriver(loop, panel)

        def read_then_confirm() -> TableState:
            for _ in range(30):
                runner.step()
                if loop.phase in (Phase.SCORED, Phase.IMPOSSIBLE):
                    break
            state = loop.state()
            assert state.phase is Phase.SCORED, state.problems
            press(factory, pins.confirm)  # «confirmar» on the panel
            runner.step()
            return loop.state()

        for n in (1, 2):
            players.play_hand(read_then_confirm)
            assert loop.snapshot()["hands"] == n
        synthetic.pick_up()
        mano = loop.snapshot()["mano"]
        loop.submit(Say(mano, "envido", 3))
        runner.panel_driver.close()
    before = loop.snapshot()
    again = TableLoop(reader=TableReader(), journal=Journal(path)).snapshot()
    assert again["bets"] == before["bets"] and again["score"] == before["score"] and again["hands"] == 2
    assert [h.record.to_json() for h in loop.hands()] == [r.to_json() for r, _ in Journal(path).hands(1)]


class LightCamera(FakeCamera):
    """A camera whose felt drifts (``drift``) and that counts the times its light was measured."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock)
        self.drift = 0.0
        self.relit = 0

    def light_drift(self, image: Any) -> float:
        return self.drift

    def relight(self) -> dict[str, Any]:
        self.relit += 1
        self.drift = 0.0
        return {}


def test_the_light_is_measured_again_between_hands_only_past_the_bound() -> None:
    clock = Clock()
    cam = LightCamera(clock)
    loop = TableLoop(reader=FakeReader())
    runner = TableRunner(loop, cam, watcher=Watcher(WatchSettings(zones=0)), clock=clock)
    runner.relight_drift, runner.relight_every = 0.25, 5
    cam.drift = 0.2  # within the bound: left alone
    for _ in range(10):
        runner.step()
    assert cam.relit == 0
    cam.drift = 0.4
    for _ in range(10):
        runner.step()
    assert cam.relit == 1 and runner.relit == 1
    runner.relight_drift = 0.0  # turned off
    cam.drift = 0.9
    for _ in range(10):
        runner.step()
    assert cam.relit == 1


def test_camera_jobs_run_in_the_runners_thread_before_the_next_frame() -> None:
    clock = Clock()
    cam = LightCamera(clock)
    runner = TableRunner(TableLoop(reader=FakeReader()), cam, watcher=Watcher(WatchSettings(zones=0)), clock=clock)
    done = runner.on_camera(lambda source: source.relight())
    assert not done.done()
    runner.step()
    assert done.result(timeout=0) == {} and cam.relit == 1
    failing = runner.on_camera(lambda source: 1 / 0)
    runner.step()
    with pytest.raises(ZeroDivisionError):
        failing.result(timeout=0)
