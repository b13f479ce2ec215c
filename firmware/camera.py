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
>>> _ = [cv2.imwrite(str(d / f"{i}.png"), np.full((40, 40, 3), i, np.uint8)) for i in (1, 2)]
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
from vision.frames import InvalidFrame, load_frame

Image = npt.NDArray[np.uint8]
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
"""What a folder of frames may hold: the formats :func:`vision.frames.load_frame` checks before decoding."""


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

    ``loop=True`` starts again from the first. Each file goes through
    :func:`vision.frames.load_frame`, as ``mus-table read`` does: a file that is
    no frame (truncated, damaged, random bytes, a header that lies about its
    size, too large or too small) gives :class:`vision.frames.InvalidFrame`
    naming the file (an ``InvalidInput``: the runner's «frames» fault) and the
    next grab goes on with the next file; grey, alpha and 16-bit images
    become 8-bit BGR.
    """

    def __init__(self, folder: str | Path, *, loop: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise CameraError(f"no folder of frames at {self.folder}", code="camera_no_folder",
                              params={"path": str(self.folder)})
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise CameraError(f"{self.folder} holds no images ({', '.join(IMAGE_SUFFIXES)})", code="camera_no_images",
                              params={"path": str(self.folder), "kinds": ", ".join(IMAGE_SUFFIXES)})
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
        try:
            image = load_frame(path)
        except InvalidFrame as exc:
            raise InvalidFrame(f"frame {path.name}: {str(exc).removeprefix(f'{path}: ')}", code="frame_named",
                               params={"name": path.name, "cause": exc.params.get("cause")
                                       or {"code": exc.code, "args": exc.params}}) from None
        self._last = image
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
            raise CameraError(f"camera {device!r} cannot be opened (plugged in? another program using it?)",
                              code="camera_not_opened", params={"device": repr(device)})
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


def flicker_free(exposure_us: float, gain: float, period_us: float = 10_000.0) -> tuple[int, float]:
    """The exposure rounded to whole flicker periods (10 ms under 50 Hz mains lamps), the gain
    changed to keep the same brightness; an exposure shorter than one period is kept (a room
    that bright is lit by daylight, which does not flicker).

    >>> flicker_free(23_000, 4.0)
    (20000, 4.6)
    >>> flicker_free(6_000, 1.0)
    (6000, 1.0)
    """
    if exposure_us < period_us:
        return int(round(exposure_us)), gain
    periods = max(1, round(exposure_us / period_us))
    locked = periods * period_us
    return int(round(locked)), round(max(1.0, gain * exposure_us / locked), 3)


def sharpness(image: Image) -> float:
    """How sharp a frame is: the variance of its Laplacian (edges: the markers, the zone lines).

    >>> flat = np.full((64, 64, 3), 128, np.uint8)
    >>> edge = flat.copy(); edge[:, 32:] = 255
    >>> sharpness(edge) > sharpness(cv2.GaussianBlur(edge, (9, 9), 3)) > sharpness(flat) == 0.0
    True
    """
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return float(cv2.Laplacian(grey, cv2.CV_32F).var())


def felt_level(image: Image) -> float:
    """The felt's brightness: the median grey of the frame (the felt is most of it, cards or not).

    >>> felt_level(np.full((36, 64, 3), 90, np.uint8))
    90.0
    """
    small = cv2.resize(image, (64, 36), interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    return float(np.median(grey))


class PiCamera:
    """A Raspberry Pi camera through picamera2 (``python3-picamera2`` from Raspberry Pi OS).

    One configuration with two streams: ``main`` at full resolution for the
    stills, ``lores`` (YUV420, converted to BGR) to watch. While the automatic
    exposure and white balance settle (until the exposure reports converged,
    ``settle_s`` at most) the exposure is asked to avoid the lamps' flicker;
    then both are locked at what they found, the exposure rounded to whole
    flicker periods (:func:`flicker_free`), so the frames neither drift nor
    band while hands pass over the table. picamera2 is imported here only: off
    the Pi the table runs from the other sources. A frame that does not come
    within ``timeout_s`` (a ribbon cable pulled) gives None, as for any source.

    Focus (a camera with a lens it moves, the Camera Module 3): ``lens_position``
    in dioptres is set and kept; negative: one autofocus cycle at start, then
    that position kept (:meth:`focus` finds the sharpest by a sweep). Light:
    :meth:`relight` measures again; :meth:`light_drift` says how far the felt's
    brightness moved since.

    The still is the sensor's whole array unless ``still_size`` says otherwise
    (4608 x 2592 on a Camera Module 3: about 2.71 px/mm at 1.25 m), because the
    ends reader reads a deck no model knows only from such a frame. Where the
    Pi cannot give the memory for it (libcamera's buffers come from the CMA
    pool), the camera starts at half that in each direction, the sensor's
    binned mode, and :attr:`refused` says why.
    """

    SETTLE_FRAMES = 10
    """Frames at least before locking: the white balance has no «converged» flag."""

    def __init__(self, *, still_size: tuple[int, int] | None = None, watch_size: tuple[int, int] = (768, 432),
                 settle_s: float = 3.0, mains_hz: int = 50, timeout_s: float = 2.0,
                 lens_position: float = -1.0, clock: Callable[[], float] = time.monotonic) -> None:
        try:
            from picamera2 import Picamera2  # only here: the Pi's own package
        except ImportError as exc:
            raise CameraError("picamera2 is not installed (on Raspberry Pi OS: apt install python3-picamera2; "
                              "a virtual environment needs --system-site-packages)", code="camera_no_picamera2") from exc
        if mains_hz not in (50, 60):
            raise InvalidInput(f"mains_hz is 50 or 60, not {mains_hz!r}")
        self.period_us = 1e6 / (2 * mains_hz)
        """Lamps flicker at twice the mains frequency: 10 ms at 50 Hz, 8.33 ms at 60 Hz."""
        self.watch_size = watch_size
        self.timeout_s = timeout_s
        self._clock = clock
        self._n = 0
        self.locked: dict[str, Any] = {}
        """The controls locked after settling (for the log and the tests)."""
        self.refused = ""
        """Why the sensor's full resolution was not used for the still (empty: it was, or one was asked)."""
        self.settle_s = settle_s
        self.lens_position: float | None = None
        """Where the lens was set and kept (dioptres); None: a camera with a fixed focus."""
        self.reference_level: float | None = None
        """The felt's brightness (median grey) of the first frame after the light was locked."""
        try:
            self._cam = Picamera2()
            if still_size is None:
                w, h = (int(v) for v in self._cam.sensor_resolution)
                try:
                    self._start((w, h))
                except Exception as exc:  # noqa: BLE001 - libcamera says «Cannot allocate memory» many ways
                    self.refused = f"{w}x{h}: {exc}"
                    self._stop()
                    self._start((w // 4 * 2, h // 4 * 2))  # the binned mode, kept even
            else:
                self._start(still_size)
            self._focus_at_start(lens_position)
            meta = self._settle(settle_s)
            self.locked = self._lock_controls(meta)
            self._cam.set_controls(self.locked)
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds
            raise CameraError(f"the Pi camera cannot be started: {exc}", code="camera_not_started",
                              params={"detail": str(exc)}) from exc

    # ------------------------------------------------------------------ focus

    @property
    def has_focus(self) -> bool:
        """A lens the camera can move (the Camera Module 3; not the HQ camera's manual lenses)."""
        return "LensPosition" in (getattr(self._cam, "camera_controls", {}) or {})

    def _focus_at_start(self, lens_position: float) -> None:
        """The configured lens position, kept (manual focus); none configured: one autofocus cycle
        on the table as it lies, then that position kept, so the focus never hunts during a hand."""
        if not self.has_focus:
            return
        if lens_position < 0:
            self._cam.set_controls({"AfMode": 1})  # auto: one cycle when triggered
            self._cam.autofocus_cycle()
            meta = self._cam.wait(self._cam.capture_metadata(wait=False), timeout=self.timeout_s)
            lens_position = float(meta.get("LensPosition", 1.0))
        self.set_lens(lens_position)

    def set_lens(self, dioptres: float) -> None:
        """Manual focus at ``dioptres`` (1 / distance in metres: 0.8 for a mat 1.25 m away)."""
        self._cam.set_controls({"AfMode": 0, "LensPosition": float(dioptres)})
        self.lens_position = float(dioptres)

    def focus(self, positions: tuple[float, ...] | None = None, *, frames: int = 3) -> float:
        """The sharpest lens position on the table (the mat's markers are its sharpest edges),
        set and returned: each position held for ``frames`` frames, then measured.
        Default positions: 0.4-1.4 dioptres (2.5 m to 0.7 m) in steps of 0.1."""
        if not self.has_focus:
            raise CameraError("this camera has no lens to focus (a manual lens: turn its ring)", code="camera_no_focus")
        positions = positions or tuple(round(0.4 + 0.1 * i, 2) for i in range(11))
        scores: list[tuple[float, float]] = []
        for p in positions:
            self.set_lens(p)
            image = None
            for _ in range(frames):  # the lens takes a frame or two to get there
                frame = self.grab()
                image = frame.image if frame is not None else image
            if image is not None:
                scores.append((sharpness(image), p))
        if not scores:
            raise CameraError("no frame while focusing", code="camera_no_frame_focusing")
        best = max(scores)[1]
        self.set_lens(best)
        return best

    # ------------------------------------------------------------------ light

    def relight(self) -> dict[str, Any]:
        """Measure exposure and white balance again («Ajustar la luz», or the felt's brightness
        drifted between hands): automatic again until settled, then locked as at start."""
        self._cam.set_controls({"AeEnable": True, "AwbEnable": True})
        meta = self._settle(self.settle_s)
        self.locked = self._lock_controls(meta)
        self._cam.set_controls(self.locked)
        self.reference_level = None
        return self.locked

    def light_drift(self, image: Image) -> float:
        """How far the felt's brightness has moved since the light was locked (a fraction: 0.3 is
        30 % brighter or darker); the first frame after a lock sets the reference."""
        level = felt_level(image)
        if self.reference_level is None:
            self.reference_level = level
            return 0.0
        return abs(level - self.reference_level) / max(self.reference_level, 1.0)

    def _start(self, still_size: tuple[int, int]) -> None:
        config = self._cam.create_still_configuration(
            main={"size": still_size, "format": "RGB888"},  # RGB888 arrays are B, G, R: OpenCV's order
            lores={"size": self.watch_size, "format": "YUV420"}, buffer_count=2)
        self._cam.configure(config)
        available = getattr(self._cam, "camera_controls", {}) or {}
        if "AeFlickerMode" in available:  # libcamera's own flicker avoidance, while it settles
            self._cam.set_controls({"AeFlickerMode": 1, "AeFlickerPeriod": int(round(self.period_us))})
        self._cam.start()
        self.still_size = still_size

    def _stop(self) -> None:
        try:
            self._cam.stop()
        except Exception:  # noqa: BLE001, S110 - a camera that did not start need not stop
            pass

    def _settle(self, settle_s: float) -> dict[str, Any]:
        """Frames until the exposure has converged (and ``SETTLE_FRAMES`` at least); the last metadata."""
        start = self._clock()
        frames = 0
        while True:
            meta: dict[str, Any] = self._cam.wait(self._cam.capture_metadata(wait=False), timeout=self.timeout_s)
            frames += 1
            converged = meta.get("AeLocked") is True or meta.get("AeState") == 2  # AeStateConverged
            if frames >= self.SETTLE_FRAMES and converged or self._clock() - start >= settle_s:
                return meta

    def _lock_controls(self, meta: dict[str, Any]) -> dict[str, Any]:
        controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
        if "ExposureTime" in meta:
            exposure, gain = flicker_free(float(meta["ExposureTime"]), float(meta.get("AnalogueGain", 1.0)),
                                          self.period_us)
            controls["ExposureTime"] = exposure
            controls["AnalogueGain"] = gain
        if "ColourGains" in meta:
            red, blue = meta["ColourGains"]
            controls["ColourGains"] = (float(red), float(blue))
        return controls

    def _capture(self, stream: str) -> Any:
        job = self._cam.capture_array(stream, wait=False)
        return self._cam.wait(job, timeout=self.timeout_s)

    def grab(self) -> Frame | None:
        try:
            yuv = self._capture("lores")
        except Exception:  # noqa: BLE001 - a camera that went away (or timed out) gives no frame
            return None
        w, h = self.watch_size
        # YUV420 comes as one plane of 1.5 x the height, rows padded to the stride: cut to the width
        image = cv2.cvtColor(np.ascontiguousarray(yuv[: h * 3 // 2]), cv2.COLOR_YUV420p2BGR)[:, :w]
        self._n += 1
        return Frame(np.ascontiguousarray(image, np.uint8), self._n, self._clock())

    def still(self) -> Image | None:
        try:
            return np.asarray(self._capture("main"), np.uint8)
        except Exception:  # noqa: BLE001
            return None

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # noqa: BLE001, S110 - closing a camera that went away
            pass
