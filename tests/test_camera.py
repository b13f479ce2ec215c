"""Camera sources: a folder of frames, OpenCV on a video file, and the Pi camera's absence off the Pi."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.camera import CameraError, FolderCamera, OpenCVCamera, PiCamera
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
