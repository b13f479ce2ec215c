"""Camera sources: a folder of frames, OpenCV on a video file, the Pi camera (through a stand-in for
picamera2, which exists only on Raspberry Pi OS) and its absence off the Pi."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from firmware.camera import CameraError, FolderCamera, OpenCVCamera, PiCamera, flicker_free
from table.errors import InvalidInput


def frames(folder: Path, n: int) -> None:
    folder.mkdir(exist_ok=True)
    for i in range(n):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), np.full((70, 90, 3), 10 * (i + 1), np.uint8))


def test_a_folder_replays_in_name_order_then_holds_the_last(tmp_path: Path) -> None:
    frames(tmp_path, 3)
    cam = FolderCamera(tmp_path)
    got = [cam.grab() for _ in range(5)]
    assert [int(f.image[0, 0, 0]) for f in got if f] == [10, 20, 30, 30, 30]
    assert [f.number for f in got if f] == [1, 2, 3, 4, 5]
    assert cam.still() is not None and int(cam.still()[0, 0, 0]) == 30  # type: ignore[index]
    looped = FolderCamera(tmp_path, loop=True)
    assert [int(looped.grab().image[0, 0, 0]) for _ in range(4)] == [10, 20, 30, 10]  # type: ignore[union-attr]


def test_a_broken_frame_is_named(tmp_path: Path) -> None:
    frames(tmp_path, 1)
    (tmp_path / "f99.jpg").write_bytes(b"not a jpeg")
    cam = FolderCamera(tmp_path)
    cam.grab()
    with pytest.raises(InvalidInput, match="f99.jpg"):
        cam.grab()


def test_no_folder_or_no_images_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no folder"):
        FolderCamera(tmp_path / "missing")
    with pytest.raises(CameraError, match="no images"):
        FolderCamera(tmp_path)


def test_opencv_reads_a_video_file(tmp_path: Path) -> None:
    path = tmp_path / "v.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (96, 64))
    for i in range(4):
        out.write(np.full((64, 96, 3), 40 * i, np.uint8))
    out.release()
    cam = OpenCVCamera(str(path))
    got = [cam.grab() for _ in range(6)]
    assert [f is not None for f in got] == [True] * 4 + [False] * 2  # the end of the video: no frame
    assert got[0] is not None and got[0].image.shape == (64, 96, 3)
    cam.close()
    with pytest.raises(CameraError, match="cannot be opened"):
        OpenCVCamera(str(tmp_path / "nothing.avi"))


def test_the_pi_camera_says_what_is_missing_off_the_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # as on a laptop: not importable
    with pytest.raises(CameraError, match="python3-picamera2"):
        PiCamera()
    import firmware.camera as camera
    assert "picamera2" not in vars(camera)  # never imported at module level


class HangingCapture:
    """A webcam driver that gives two frames, then blocks (a pulled cable), until released."""

    def __init__(self) -> None:
        import threading
        self.frames = 2
        self.released = threading.Event()

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's spelling
        return True

    def set(self, prop: int, value: float) -> bool:
        return True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.frames:
            self.frames -= 1
            return True, np.zeros((64, 64, 3), np.uint8)
        self.released.wait()
        return False, None

    def release(self) -> None:
        self.released.set()


def test_a_hanging_webcam_gives_no_frame_instead_of_stopping_the_table() -> None:
    cap = HangingCapture()
    cam = OpenCVCamera(0, capture=cap, timeout_s=0.05)
    cam._live = True  # as for a device number: read by its own thread
    import threading
    threading.Thread(target=cam._pump, daemon=True).start()
    got = [cam.grab() for _ in range(4)]
    assert [f is not None for f in got].count(True) >= 1 and got[-1] is None
    cam.close()


class FakePicamera2:
    """What the table uses of picamera2's ``Picamera2``: two streams, metadata, controls, jobs.

    Its automatic exposure converges after ``converge_after`` frames; ``lores`` is YUV420 with
    rows padded to a stride of 64 bytes, as libcamera delivers it; ``stall`` makes every
    capture time out (a ribbon cable pulled).
    """

    made: list[FakePicamera2] = []
    sensor_resolution = (4608, 2592)
    cma_bytes = 10**10
    """The memory libcamera's buffers may take: a configuration asking more is refused, as on a Pi."""

    def __init__(self) -> None:
        self.config: dict[str, Any] = {}
        self.controls: list[dict[str, Any]] = []
        self.camera_controls = {"AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1_000_000, 10_000)}
        self.frames = 0
        self.converge_after = 14
        self.started = self.closed = self.stall = False
        FakePicamera2.made.append(self)

    def create_still_configuration(self, main: dict[str, Any], lores: dict[str, Any],
                                   buffer_count: int) -> dict[str, Any]:
        return {"main": main, "lores": lores, "buffer_count": buffer_count}

    def configure(self, config: dict[str, Any]) -> None:
        w, h = config["main"]["size"]
        if w * h * 3 * config["buffer_count"] > self.cma_bytes:
            raise RuntimeError("Failed to allocate buffers: Cannot allocate memory")
        self.config = config

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.append(dict(controls))

    def start(self) -> None:
        self.started = True

    def capture_metadata(self, wait: bool | None = None) -> str:
        assert wait is False
        return "metadata"

    def capture_array(self, name: str = "main", wait: bool | None = None) -> str:
        assert wait is False  # always asynchronous, so that a stalled camera cannot hang the table
        return name

    def wait(self, job: str, timeout: float | None = None) -> Any:
        assert timeout is not None
        if self.stall:
            raise TimeoutError(job)
        if job == "metadata":
            self.frames += 1
            return {"ExposureTime": 23_000, "AnalogueGain": 4.0, "ColourGains": (1.9, 1.6),
                    "AeLocked": self.frames >= self.converge_after}
        w, h = self.config[job]["size"]
        if job == "main":
            return np.full((h, w, 3), (200, 100, 50), np.uint8)  # B, G, R
        stride = -(-w // 64) * 64
        yuv = np.full((h * 3 // 2, stride), 128, np.uint8)
        yuv[:h, :w] = 90  # a grey picture; the padding beyond the width is garbage
        yuv[:h, w:] = 255
        return yuv

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.made = []
    return FakePicamera2


def test_the_pi_camera_watches_small_reads_full_and_locks_exposure(picamera2: type[FakePicamera2]) -> None:
    cam = PiCamera(still_size=(2304, 1296), watch_size=(500, 282), settle_s=60.0)
    fake = picamera2.made[0]
    assert fake.config["main"] == {"size": (2304, 1296), "format": "RGB888"}
    assert fake.config["lores"] == {"size": (500, 282), "format": "YUV420"}
    # while settling, libcamera is asked to avoid 50 Hz lamps' flicker; it settled when the
    # exposure converged (not after a fixed sleep), then exposure and white balance were locked
    assert fake.controls[0] == {"AeFlickerMode": 1, "AeFlickerPeriod": 10_000}
    assert fake.frames == fake.converge_after
    assert fake.controls[-1] == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 20_000,
                                 "AnalogueGain": 4.6, "ColourGains": (1.9, 1.6)}
    frame = cam.grab()
    assert frame is not None and frame.image.shape == (282, 500, 3) and frame.number == 1
    assert int(frame.image.max()) < 120  # the stride's padding was cut off, not shown
    still = cam.still()
    assert still is not None and still.shape == (1296, 2304, 3) and tuple(still[0, 0]) == (200, 100, 50)
    fake.stall = True  # the cable pulled: no frame, and no hang
    assert cam.grab() is None and cam.still() is None
    cam.close()
    assert fake.closed


def test_the_pi_camera_reads_from_the_sensors_whole_array_unless_told(picamera2: type[FakePicamera2]) -> None:
    cam = PiCamera(settle_s=60.0)
    still = cam.still()
    assert still is not None and still.shape == (2592, 4608, 3)  # a Camera Module 3's 12 MP: the ends need it
    assert cam.still_size == (4608, 2592) and cam.refused == ""
    assert picamera2.made[0].config["lores"]["size"] == (768, 432)
    cam.close()


def test_a_pi_without_memory_for_the_whole_array_takes_the_binned_still(picamera2: type[FakePicamera2],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FakePicamera2, "cma_bytes", 40 * 2**20)  # two 36 MB stills do not fit in 40 MB
    cam = PiCamera(settle_s=60.0)
    still = cam.still()
    assert still is not None and still.shape == (1296, 2304, 3)
    assert cam.refused.startswith("4608x2592: ") and "Cannot allocate memory" in cam.refused
    assert cam.locked["AeEnable"] is False  # it settled and locked as ever
    cam.close()
    with pytest.raises(CameraError, match="cannot be started: Failed to allocate"):  # a size asked is not changed
        PiCamera(still_size=(4608, 2592))


def test_the_pi_camera_settles_at_most_settle_s(picamera2: type[FakePicamera2]) -> None:
    t = [0.0]

    def clock() -> float:
        t[0] += 0.5
        return t[0]

    picamera2.converge_after = 10_000  # type: ignore[assignment]
    try:
        cam = PiCamera(settle_s=3.0, mains_hz=60, clock=clock)
    finally:
        picamera2.converge_after = 14  # type: ignore[assignment]
    fake = picamera2.made[0]
    assert fake.frames <= 7 and fake.controls[0]["AeFlickerPeriod"] == 8333
    assert fake.controls[-1]["ExposureTime"] == 25_000  # three 8.33 ms periods of 60 Hz lamps
    cam.close()


def test_a_pi_camera_that_stalls_while_settling_is_a_camera_error(picamera2: type[FakePicamera2],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def never(self: FakePicamera2, job: str, timeout: float | None = None) -> Any:
        raise TimeoutError(job)

    monkeypatch.setattr(FakePicamera2, "wait", never)  # no frame ever: the opening fails, it does not hang
    with pytest.raises(CameraError, match="cannot be started"):
        PiCamera()


def test_a_pi_camera_that_cannot_start_is_a_camera_error(picamera2: type[FakePicamera2],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def no_camera(self: FakePicamera2) -> None:
        raise RuntimeError("Camera __init__ sequence did not complete")

    monkeypatch.setattr(FakePicamera2, "start", no_camera)
    with pytest.raises(CameraError, match="cannot be started: Camera __init__"):
        PiCamera()
    with pytest.raises(InvalidInput, match="mains_hz"):
        PiCamera(mains_hz=55)


def test_flicker_free_exposures_are_whole_periods() -> None:
    assert flicker_free(10_000, 1.0) == (10_000, 1.0)
    assert flicker_free(14_000, 2.0) == (10_000, 2.8)
    assert flicker_free(16_000, 2.0) == (20_000, 1.6)
    assert flicker_free(12_000, 1.0, 8_333.3) == (8_333, 1.44)


class FakeLensCamera(FakePicamera2):
    """A Camera Module 3: a lens it moves (sharpest at 0.8 dioptres, the mat 1.25 m below; its
    own autofocus lands at 0.7), and a room whose light the test changes (``room``)."""

    def __init__(self) -> None:
        super().__init__()
        self.camera_controls = {**self.camera_controls, "AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}
        self.lens = 1.0
        self.room = 1.0
        self.gain = 1.0
        self.auto = True
        self.cycles = 0

    def set_controls(self, controls: dict[str, Any]) -> None:
        super().set_controls(controls)
        self.lens = float(controls.get("LensPosition", self.lens))
        if controls.get("AeEnable") is True:
            self.auto = True
        if controls.get("AeEnable") is False:
            self.auto = False

    def autofocus_cycle(self) -> bool:
        self.cycles += 1
        self.lens = 0.7
        return True

    def wait(self, job: str, timeout: float | None = None) -> Any:
        if job == "metadata":
            self.frames += 1
            if self.auto:
                self.gain = 1.0 / self.room  # the automatic exposure makes up for the room
            return {"ExposureTime": 20_000, "AnalogueGain": self.gain, "ColourGains": (1.9, 1.6),
                    "AeLocked": True, "LensPosition": self.lens}
        if job == "main":
            return super().wait(job, timeout)
        w, h = self.config["lores"]["size"]
        squares = (np.indices((h, w)).sum(axis=0) // 16 % 2 * 160 + 40).astype(np.float32)
        blur = 0.5 + 8 * abs(self.lens - 0.8)
        y = cv2.GaussianBlur(squares, (0, 0), blur) * min(self.room * self.gain, 2.0)
        yuv = np.full((h * 3 // 2, w), 128, np.uint8)
        yuv[:h] = np.clip(y, 0, 255).astype(np.uint8)
        return yuv


@pytest.fixture
def lens_camera(monkeypatch: pytest.MonkeyPatch) -> type[FakeLensCamera]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakeLensCamera  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.made = []
    return FakeLensCamera


def test_the_configured_focus_is_set_and_kept(lens_camera: type[FakeLensCamera]) -> None:
    cam = PiCamera(still_size=(2304, 1296), lens_position=0.8)
    fake = FakePicamera2.made[0]
    assert {"AfMode": 0, "LensPosition": 0.8} in fake.controls  # manual: it never hunts mid-hand
    assert cam.lens_position == 0.8 and fake.cycles == 0  # type: ignore[attr-defined]


def test_without_a_configured_focus_it_focuses_once_at_start_and_keeps_it(lens_camera: type[FakeLensCamera]) -> None:
    cam = PiCamera(still_size=(2304, 1296))
    fake = FakePicamera2.made[0]
    assert fake.cycles == 1  # type: ignore[attr-defined]
    assert fake.controls[-2] == {"AfMode": 0, "LensPosition": 0.7} and cam.lens_position == 0.7


def test_the_focus_sweep_finds_the_sharpest_position(lens_camera: type[FakeLensCamera]) -> None:
    cam = PiCamera(still_size=(2304, 1296), lens_position=2.0)
    assert cam.focus() == pytest.approx(0.8)
    fake = FakePicamera2.made[0]
    assert fake.lens == pytest.approx(0.8) and fake.controls[-1] == {"AfMode": 0, "LensPosition": 0.8}  # type: ignore[attr-defined]


def test_a_camera_without_a_moving_lens_is_left_alone(picamera2: type[FakePicamera2]) -> None:
    cam = PiCamera(still_size=(2304, 1296), lens_position=0.8)
    assert cam.lens_position is None and not any("LensPosition" in c for c in picamera2.made[0].controls)
    with pytest.raises(CameraError, match="no lens to focus"):
        cam.focus()


def test_the_light_is_measured_again_when_the_room_changes(lens_camera: type[FakeLensCamera]) -> None:
    cam = PiCamera(still_size=(2304, 1296), lens_position=0.8)
    fake = FakePicamera2.made[0]
    first = cam.grab()
    assert first is not None and cam.light_drift(first.image) == 0.0  # the reference
    fake.room = 0.5  # the club's lights dimmed: the locked exposure leaves the felt darker
    dim = cam.grab()
    assert dim is not None and 0.4 < cam.light_drift(dim.image) < 0.7  # about half as bright
    locked = cam.relight()
    assert locked["AeEnable"] is False and locked["AnalogueGain"] == pytest.approx(2.0)
    again = cam.grab()
    assert again is not None and cam.light_drift(again.image) == 0.0
    back = cam.grab()
    assert back is not None and cam.light_drift(back.image) < 0.05
