"""vision.frames: every file a frame or a one-line InvalidFrame, checked before decoding."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from table.errors import InvalidInput
from vision.frames import MAX_PIXELS, InvalidFrame, as_frame, image_size, load_frame


def encoded(image: np.ndarray, ext: str, *params: int) -> bytes:
    ok, buf = cv2.imencode(ext, image, list(params))
    assert ok
    return buf.tobytes()


def png_claiming(width: int, height: int) -> bytes:
    """A PNG whose header (with a right CRC) claims a size its data do not hold."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    idat = zlib.compress(b"\x00" * 64)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
            + struct.pack(">I", len(idat)) + b"IDAT" + idat + struct.pack(">I", zlib.crc32(b"IDAT" + idat))
            + struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND")))


COLOUR = np.random.default_rng(3).integers(0, 256, (40, 50, 3), dtype=np.uint8)


@pytest.mark.parametrize("ext,params", [(".png", ()), (".jpg", ()), (".bmp", ()), (".webp", ()),
                                        (".webp", (cv2.IMWRITE_WEBP_QUALITY, 101))])
def test_the_header_size_is_read_without_decoding(ext: str, params: tuple[int, ...]) -> None:
    data = encoded(COLOUR, ext, *params)
    assert image_size(data) == (50, 40)
    frame = load_frame(data)
    assert frame.shape == (40, 50, 3) and frame.dtype == np.uint8


def test_a_png_that_claims_sixty_thousand_pixels_a_side_is_refused_before_decoding() -> None:
    with pytest.raises(InvalidFrame, match="60000 x 60000 px is too large"):
        load_frame(png_claiming(60_000, 60_000))


def test_a_jpeg_whose_frame_header_lies_is_refused() -> None:
    data = bytearray(encoded(COLOUR, ".jpg"))
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", 65000, 65000)
    with pytest.raises(InvalidFrame, match="too large"):
        load_frame(bytes(data))


def test_grey_alpha_and_sixteen_bit_become_eight_bit_bgr() -> None:
    grey = np.full((40, 50), 90, np.uint8)
    alpha = np.dstack([COLOUR, np.full((40, 50), 7, np.uint8)])
    deep = (COLOUR.astype(np.uint16) << 8) | 0xFF
    assert (load_frame(encoded(grey, ".png")) == 90).all()
    assert (load_frame(encoded(alpha, ".png")) == COLOUR).all()  # alpha dropped, colour kept
    assert (load_frame(encoded(deep, ".png")) == COLOUR).all()


@pytest.mark.parametrize("array,shape", [
    (np.zeros((40, 50), np.uint8), (40, 50, 3)),
    (np.zeros((40, 50, 1), np.uint8), (40, 50, 3)),
    (np.zeros((40, 50, 2), np.uint8), (40, 50, 3)),
    (np.zeros((40, 50, 4), np.uint8), (40, 50, 3)),
    (np.ones((40, 50, 3), np.float32), (40, 50, 3)),
    (np.zeros((40, 50), bool), (40, 50, 3)),
])
def test_arrays_become_frames(array: np.ndarray, shape: tuple[int, ...]) -> None:
    frame = as_frame(array)
    assert frame.shape == shape and frame.dtype == np.uint8
    if array.dtype == np.float32:
        assert (frame == 255).all()


@pytest.mark.parametrize("array,why", [
    (np.zeros((0, 0, 3), np.uint8), "too small"),
    (np.zeros((10, 500, 3), np.uint8), "too small"),
    (np.zeros((40, 50, 5), np.uint8), "shape"),
    (np.zeros(7, np.uint8), "shape"),
    (np.zeros((40, 50, 3), np.int64), "type int64"),
    (np.full((40, 50), np.nan, np.float32), "not numbers"),
    ("a string", "shape"),
])
def test_arrays_that_are_no_frame_are_refused(array: object, why: str) -> None:
    with pytest.raises(InvalidFrame, match=why):
        as_frame(array)  # type: ignore[arg-type]


def test_the_pixel_cap_holds_for_arrays_too() -> None:
    side = int(MAX_PIXELS ** 0.5) + 2
    big = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), (side, side, 3), (0, 0, 0))
    with pytest.raises(InvalidFrame, match="too large"):
        as_frame(big)


def test_files_errors_name_the_file_and_are_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidFrame, match="nope.png: no such file"):
        load_frame(tmp_path / "nope.png")
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(InvalidInput, match="empty.png: an empty file"):
        load_frame(str(tmp_path / "empty.png"))
    with pytest.raises(InvalidFrame, match="no such file"):
        load_frame(tmp_path)  # a folder
    (tmp_path / "ok.png").write_bytes(encoded(COLOUR, ".png"))
    assert (load_frame(tmp_path / "ok.png") == COLOUR).all()
