"""Frames from files, bytes or camera arrays, made safe for the reader: one 8-bit BGR image or a narrow error.

Anything a user or a camera may hand the reader goes through here first:
:func:`load_frame` for encoded data (a file, or the bytes of a JPEG, PNG,
WebP or BMP), :func:`as_frame` for an array already decoded (a camera's).
Either gives an ``H x W x 3`` ``uint8`` BGR image or raises
:class:`InvalidFrame` with a one-line reason; nothing else escapes, whatever
the input (truncated, bit-flipped, random bytes, a header that lies about the
size, grey, with alpha, 16-bit).

The size is read from the header *before* decoding, so that a PNG claiming
60,000 x 60,000 px is refused without OpenCV trying to allocate it; the
decoder then gets no file whose pixel count exceeds :data:`MAX_PIXELS`.

>>> load_frame(b"not an image")
Traceback (most recent call last):
...
vision.frames.InvalidFrame: not an image: neither JPEG, PNG, WebP nor BMP
>>> as_frame(np.zeros((48, 64), np.uint16)).shape
(48, 64, 3)
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from table.errors import InvalidInput

Image = npt.NDArray[np.uint8]

MAX_PIXELS = 50_000_000
"""Largest frame accepted (a 48 MP phone photo passes; a Camera Module 3 full frame is 12 MP)."""
MAX_SIDE = 20_000
"""Longest side accepted, px (a panorama-shaped lie stays under the pixel cap yet costs as much)."""
MIN_SIDE = 32
"""Shortest side accepted, px: smaller holds no readable marker at all."""
MAX_FILE_BYTES = 256 * 1024 * 1024
"""Largest file read (a camera frame is a few MB)."""


class InvalidFrame(InvalidInput):
    """An image that cannot be read as a frame: not an image, damaged, too large or too small.
    The message says which (for logs); the edges say the code («invalid_frame»)."""

    code = "invalid_frame"


def load_frame(source: bytes | bytearray | memoryview | str | os.PathLike[str]) -> Image:
    """Decode a frame from encoded bytes or from a file (a path), checked before decoding.

    A path's errors name the file: ``InvalidFrame("photo.png: not an image ...")``.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _decode(bytes(source))
    path = Path(source)
    try:
        if not path.is_file():
            raise InvalidFrame(f"{path}: no such file", code="no_file", params={"path": str(path)})
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InvalidFrame(f"{path}: a file of {size} bytes is too large for a frame", code="frame_file_large",
                               params={"path": str(path), "size": size})
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidFrame(f"{path}: cannot read it ({exc.strerror or exc})", code="cannot_read",
                           params={"path": str(path), "errno": exc.errno}) from None
    try:
        return _decode(data)
    except InvalidFrame as exc:
        raise InvalidFrame(f"{path}: {exc}", code="frame_file_bad",
                           params={"path": str(path), "cause": {"code": exc.code, "args": exc.params}}) from None


def as_frame(image: npt.ArrayLike) -> Image:
    """An array as an 8-bit BGR frame: grey and alpha converted, 16-bit and float scaled.

    Float images are taken as 0-1. Refused: no pixels, sizes out of bounds,
    channels other than 1, 2, 3 or 4, other dtypes.
    """
    try:
        img = np.asarray(image)
    except (TypeError, ValueError) as exc:
        raise InvalidFrame(f"not an image array: {exc}") from None
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (2, 3, 4)):
        raise InvalidFrame(f"not an image: an array of shape {img.shape}")
    _check_size(img.shape[1], img.shape[0])
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    elif img.dtype in (np.float32, np.float64):
        if not np.isfinite(img).all():
            raise InvalidFrame("not an image: pixels that are not numbers")
        img = np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8)
    elif img.dtype == np.bool_:
        img = img.astype(np.uint8) * 255
    elif img.dtype != np.uint8:
        raise InvalidFrame(f"not an image: pixels of type {img.dtype}")
    if img.ndim == 2:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), np.uint8)
    channels = img.shape[2]
    if channels == 2:  # grey and alpha
        return np.asarray(cv2.cvtColor(np.ascontiguousarray(img[:, :, 0]), cv2.COLOR_GRAY2BGR), np.uint8)
    if channels == 4:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGRA2BGR), np.uint8)
    return np.ascontiguousarray(img, dtype=np.uint8)


def image_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` as the header of a JPEG, PNG, WebP or BMP says, without decoding.

    >>> image_size(bytes.fromhex("89504e470d0a1a0a0000000d49484452") + struct.pack(">II", 60000, 60000))
    (60000, 60000)
    """
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise InvalidFrame("a damaged PNG: no header")
        w, h = struct.unpack(">II", data[16:24])
        return int(w), int(h)
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data.startswith(b"BM"):
        if len(data) < 26:
            raise InvalidFrame("a damaged BMP: no header")
        header = struct.unpack("<I", data[14:18])[0]
        if header == 12:
            w, h = struct.unpack("<HH", data[18:22])
        else:
            w, h = struct.unpack("<ii", data[18:26])
        return abs(int(w)), abs(int(h))
    raise InvalidFrame("not an image: neither JPEG, PNG, WebP nor BMP")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            raise InvalidFrame("a damaged JPEG: no frame header")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            if i + 9 > len(data):
                break
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return int(w), int(h)
        if marker in (0xD9, 0xDA) or length < 2:  # end, or the scan before any frame header
            break
        i += 2 + length
    raise InvalidFrame("a damaged JPEG: no frame header")


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[26:30])
        return int(w & 0x3FFF), int(h & 0x3FFF)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    raise InvalidFrame("a damaged WebP: no frame header")


def _check_size(width: int, height: int) -> None:
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise InvalidFrame(f"{width} x {height} px is too large a frame (at most {MAX_PIXELS // 1_000_000} MP, "
                           f"{MAX_SIDE} px a side)", code="frame_too_large",
                           params={"w": width, "h": height, "mp": MAX_PIXELS // 1_000_000, "side": MAX_SIDE})
    if width < MIN_SIDE or height < MIN_SIDE:
        raise InvalidFrame(f"{width} x {height} px is too small a frame (at least {MIN_SIDE} px a side)",
                           code="frame_too_small", params={"w": width, "h": height, "side": MIN_SIDE})


def _decode(data: bytes) -> Image:
    if not data:
        raise InvalidFrame("an empty file", code="frame_empty")
    if len(data) > MAX_FILE_BYTES:
        raise InvalidFrame(f"{len(data)} bytes is too large for a frame")
    width, height = image_size(data)
    _check_size(width, height)
    try:
        # IMREAD_COLOR: 8-bit BGR whatever the file holds (grey, alpha, 16-bit), turned as its EXIF says
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise InvalidFrame("not an image (or a damaged one)")
    return as_frame(image)  # and its size checked again: the decoder may find another than the header's
