"""Where the table's frames come from: one small interface, several sources.

A source gives a steady stream of small frames to watch the table
(:meth:`CameraSource.grab`) and, when the cards are to be read, a
full-resolution still (:meth:`CameraSource.still`). Sources:

* :class:`PiCamera` — picamera2 on the Pi (imported only when one is opened):
  a low-resolution stream to watch, a full-resolution still to read;
  exposure and white balance settle, then are locked.
* :class:`OpenCVCamera` — ``cv2.VideoCapture``: a USB webcam or a video file.
* :class:`FolderCamera` — the images of a folder, replayed in name order.
* :class:`firmware.synthetic.SyntheticTable` — the scene renderer playing whole hands.

A source that gives no frame returns None (the runner turns that into the
«camera» fault after a while); one that cannot be opened raises
:class:`CameraError` with a one-line reason.

>>> import numpy as np, tempfile, cv2, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = [cv2.imwrite(str(d / f"{i}.png"), np.full((4, 4, 3), i, np.uint8)) for i in (1, 2)]
>>> cam = FolderCamera(d)
>>> [int(cam.grab().image[0, 0, 0]) for _ in range(3)]
[1, 2, 2]
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from table.errors import InvalidInput, MusTableError

Image = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class CameraError(MusTableError):
    """A camera that cannot be opened or has gone (the message says which and why)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of the watch stream: the BGR image, its number in the stream, when it came."""

    image: Image
    number: int
    at: float


class CameraSource(Protocol):
    """What the runner needs from a camera."""

    def grab(self) -> Frame | None:
        """The next frame to watch (small is fine), or None when none came."""
        ...

    def still(self) -> Image | None:
        """A full-resolution still to read the cards from, or None."""
        ...

    def close(self) -> None: ...


class FolderCamera:
    """The images of a folder in name order; at the end the last one stays (the table lies still).

    ``loop=True`` starts again from the first. An image that cannot be decoded
    gives :class:`InvalidInput` (the «frames» fault), naming the file.
    """

    def __init__(self, folder: str | Path, *, loop: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraError(f"no folder of frames at {self.folder}")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise CameraError(f"{self.folder} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.loop = loop
        self._i = 0
        self._n = 0
        self._last: Image | None = None
        self._clock = clock

    def grab(self) -> Frame | None:
        if self._i >= len(self.paths):
            if not self.loop:
                if self._last is None:
                    return None
                self._n += 1
                return Frame(self._last, self._n, self._clock())
            self._i = 0
        path = self.paths[self._i]
        self._i += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise InvalidInput(f"frame {path.name} cannot be decoded")
        self._last = np.asarray(image, np.uint8)
        self._n += 1
        return Frame(self._last, self._n, self._clock())

    def still(self) -> Image | None:
        return self._last

    def close(self) -> None:
        self._last = None


class OpenCVCamera:
    """``cv2.VideoCapture`` on a device number (a USB webcam) or a video file.

    A video file is read frame by frame, in order. A webcam is read by a thread
    of its own, so that a camera that hangs (a driver blocked on a pulled
    cable) makes :meth:`grab` return None after ``timeout_s`` instead of
    stopping the table. :meth:`still` is the latest full frame (a webcam gives
    one resolution; ``width``/``height`` ask it for one).
    """

    def __init__(self, device: int | str = 0, *, width: int | None = None, height: int | None = None,
                 capture: Any = None, timeout_s: float = 1.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.device = device
        self._cap = capture if capture is not None else cv2.VideoCapture(device)
        if not self._cap.isOpened():
            raise CameraError(f"camera {device!r} cannot be opened (plugged in? another program using it?)")
        if width and height:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._n = 0
        self._last: Image | None = None
        self._clock = clock
        self._lock = threading.Lock()
        self.timeout_s = timeout_s
        self._live = isinstance(device, int) and capture is None
        self._fresh = threading.Condition()
        self._taken = 0
        self._running = True
        if self._live:
            threading.Thread(target=self._pump, name="opencv-camera", daemon=True).start()

    def _read(self) -> Image | None:
        ok, image = self._cap.read()
        return np.asarray(image, np.uint8) if ok and image is not None else None

    def _pump(self) -> None:
        while self._running:
            image = self._read()
            if image is None:
                time.sleep(0.05)  # noqa: ASYNC251 - a camera thread: nothing to read, try again soon
                continue
            with self._fresh:
                self._last = image
                self._n += 1
                self._fresh.notify_all()

    def grab(self) -> Frame | None:
        if not self._live:
            with self._lock:
                image = self._read()
                if image is None:
                    return None
                self._last = image
                self._n += 1
                return Frame(image, self._n, self._clock())
        with self._fresh:
            if not self._fresh.wait_for(lambda: self._n > self._taken, timeout=self.timeout_s):
                return None
            self._taken = self._n
            assert self._last is not None
            return Frame(self._last, self._n, self._clock())

    def still(self) -> Image | None:
        frame = self.grab()
        return frame.image if frame is not None else self._last

    def close(self) -> None:
        self._running = False
        with self._lock:
            self._cap.release()


class PiCamera:
    """A Raspberry Pi camera through picamera2 (``python3-picamera2`` from Raspberry Pi OS).

    One configuration with two streams: ``main`` at full resolution for the
    stills, ``lores`` (converted to BGR) to watch. After ``settle_s`` the
    automatic exposure and white balance are locked at what they found, so the
    frames do not drift while hands pass over the table.
    """

    def __init__(self, *, still_size: tuple[int, int] = (2304, 1296), watch_size: tuple[int, int] = (768, 432),
                 settle_s: float = 2.0, clock: Callable[[], float] = time.monotonic) -> None:
        try:
            from picamera2 import Picamera2  # only here: the Pi's own package
        except ImportError as exc:
            raise CameraError("picamera2 is not installed (on Raspberry Pi OS: apt install python3-picamera2; "
                              "a virtual environment needs --system-site-packages)") from exc
        try:
            self._cam = Picamera2()
            config = self._cam.create_still_configuration(
                main={"size": still_size, "format": "RGB888"},  # RGB888 arrays are B, G, R: OpenCV's order
                lores={"size": watch_size, "format": "YUV420"}, buffer_count=3)
            self._cam.configure(config)
            self._cam.start()
            time.sleep(settle_s)
            meta = self._cam.capture_metadata()
            controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
            for key, name in (("ExposureTime", "ExposureTime"), ("AnalogueGain", "AnalogueGain"),
                              ("ColourGains", "ColourGains")):
                if key in meta:
                    controls[name] = meta[key]
            self._cam.set_controls(controls)
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
            raise CameraError(f"the Pi camera cannot be started: {exc}") from exc
        self._n = 0
        self._clock = clock
        self._watch_h = watch_size[1]

    def grab(self) -> Frame | None:
        try:
            yuv = self._cam.capture_array("lores")
        except Exception:  # noqa: BLE001 - a camera that went away gives no frame
            return None
        image = cv2.cvtColor(yuv, cv2.COLOR_YUV420p2BGR)
        self._n += 1
        return Frame(np.asarray(image, np.uint8), self._n, self._clock())

    def still(self) -> Image | None:
        try:
            return np.asarray(self._cam.capture_array("main"), np.uint8)
        except Exception:  # noqa: BLE001
            return None

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # noqa: BLE001, S110 - closing a camera that went away
            pass
