"""Hundreds of broken files: each is a frame or an InvalidFrame, and ``mus-table read`` never tracebacks.

The files are generated from a seed (so a failure is reproducible): good
images of every format, sizes and depth, then truncated, bit-flipped,
overwritten with random bytes, or with a header that lies about the size.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from vision.frames import InvalidFrame, load_frame

FORMATS = ((".png", ()), (".jpg", (cv2.IMWRITE_JPEG_QUALITY, 80)), (".bmp", ()), (".webp", ()),
           (".webp", (cv2.IMWRITE_WEBP_QUALITY, 101)), (".jpg", (cv2.IMWRITE_JPEG_PROGRESSIVE, 1)))


def _good(rng: np.random.Generator) -> bytes:
    """A small good image: colour, grey, alpha or 16-bit, of some size."""
    h, w = int(rng.integers(1, 90)), int(rng.integers(1, 90))
    kind = int(rng.integers(4))
    ext, params = FORMATS[int(rng.integers(len(FORMATS)))]
    if kind == 0:
        img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    elif kind == 1:
        img = rng.integers(0, 256, (h, w), dtype=np.uint8)
    elif kind == 2 and ext in (".png", ".webp"):
        img = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    else:
        ext, params = ".png", ()
        img = rng.integers(0, 65536, (h, w, 3), dtype=np.uint16)
    ok, buf = cv2.imencode(ext, img, list(params))
    assert ok
    return buf.tobytes()


def _lying(data: bytes, rng: np.random.Generator) -> bytes:
    """The same file with a header that claims another size (often a huge one)."""
    out = bytearray(data)
    w, h = (int(v) for v in rng.choice([0, 1, 31, 33, 7000, 20001, 60000, 65535, 2 ** 31 - 1, 2 ** 32 - 1], 2))
    if out.startswith(b"\x89PNG"):
        out[16:24] = struct.pack(">II", w, h)
    elif out.startswith(b"\xff\xd8"):
        for sof in (b"\xff\xc0", b"\xff\xc2"):
            i = out.find(sof)
            if i > 0:
                out[i + 5:i + 9] = struct.pack(">HH", h & 0xFFFF, w & 0xFFFF)
    elif out.startswith(b"BM"):
        out[18:26] = struct.pack("<ii", w & 0x7FFFFFFF, -(h & 0x7FFFFFFF))
    elif out.startswith(b"RIFF"):
        out[26:30] = struct.pack("<HH", w & 0x3FFF, h & 0x3FFF)
    return bytes(out)


def bad_files(n: int, seed: int = 12) -> Iterator[bytes]:
    rng = np.random.default_rng(seed)
    for i in range(n):
        data = _good(rng)
        how = i % 6
        if how == 0:  # truncated
            data = data[:int(rng.integers(0, len(data)))]
        elif how == 1:  # bits flipped
            arr = bytearray(data)
            for pos in rng.integers(0, len(arr), int(rng.integers(1, 12))):
                arr[pos] ^= 1 << int(rng.integers(8))
            data = bytes(arr)
        elif how == 2:  # random bytes, sometimes behind a real magic number
            magic = [b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"BM", b"RIFF\x00\x00\x00\x00WEBPVP8 "][i % 5]
            data = magic + rng.integers(0, 256, int(rng.integers(0, 400)), dtype=np.uint8).tobytes()
        elif how == 3:  # a header that lies
            data = _lying(data, rng)
        elif how == 4:  # a run of bytes overwritten
            arr = bytearray(data)
            at = int(rng.integers(0, len(arr)))
            arr[at:at + 32] = rng.integers(0, 256, 32, dtype=np.uint8).tobytes()
            data = bytes(arr[:len(data)])
        # how == 5: the good file itself (tiny or grey or with alpha or 16-bit)
        yield data


def test_every_bad_file_is_a_frame_or_an_invalid_frame() -> None:
    frames = refused = 0
    for data in bad_files(600):
        try:
            frame = load_frame(data)
        except InvalidFrame as exc:
            assert str(exc) and "\n" not in str(exc)
            refused += 1
            continue
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        assert frame.shape[0] * frame.shape[1] <= 20_000 * 20_000
        frames += 1
    assert frames > 50 and refused > 200  # both ways out are taken


@pytest.fixture(scope="module")
def stand_in_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model file the reader can load (the frames here hold no cards: it is never asked)."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["crops", "axes"], ["mean"], keepdims=0),
         helper.make_node("MatMul", ["mean", "w"], ["logits"])], "flat",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 112, 72])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 40])],
        [helper.make_tensor("axes", TensorProto.INT64, [2], [2, 3]),
         helper.make_tensor("w", TensorProto.FLOAT, [3, 40], [0.0] * 120)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    path = tmp_path_factory.mktemp("model") / "flat.onnx"
    onnx.save(model, str(path))
    return path


def test_mus_table_read_gives_a_line_per_file_and_never_a_traceback(
        tmp_path: Path, stand_in_model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for i, data in enumerate(bad_files(240, seed=13)):
        path = tmp_path / f"f{i}.img"
        path.write_bytes(data)
        paths.append(str(path))
    status = main(["read", *paths, "--json", "--model", str(stand_in_model)])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 2 and len(lines) == len(paths)
    errors = [line for line in lines if "error" in line]
    assert 0 < len(errors) < len(lines)
    assert all(set(e) == {"error"} for e in errors)
    assert all(line["stale"] is True for line in lines if "error" not in line)  # no mat in noise


def test_calibrate_refuses_a_lying_file_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.png"
    good = cv2.imencode(".png", np.zeros((40, 40, 3), np.uint8))[1].tobytes()
    path.write_bytes(good[:16] + struct.pack(">II", 60000, 60000) + good[24:])
    assert main(["calibrate", str(path), "--out", str(tmp_path / "v.png"), "--no-cards"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "huge.png: 60000 x 60000 px is too large" in err
