"""Hundreds of broken files: each is a frame or a one-line error, in ``mus-table read`` and in the folder camera.

The files are generated from a seed (so a failure is reproducible): good
images of every format (colour, grey, with alpha, 16-bit; from 1 px to a few
hundred a side), then truncated, bit-flipped, overwritten with random bytes,
or with a header that lies about the size (60,000 x 60,000 with a right CRC,
as a hostile file would); and a real table frame damaged the same ways, so
that what decodes goes through the whole reader (felt, cards, stones).
The same files are given to ``mus-table read`` (in this process, and once in
a process of its own, as a user runs it) and to the table's folder camera
driven by the runner: each must end the same way in both, a reading or one
error line, never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.camera import FolderCamera
from firmware.cli import main
from firmware.runner import TableRunner
from firmware.table_loop import FaultKind, TableLoop
from models.scene import random_scene, render_scene
from vision.frames import InvalidFrame, load_frame

FORMATS = ((".png", ()), (".jpg", (cv2.IMWRITE_JPEG_QUALITY, 80)), (".bmp", ()), (".webp", ()),
           (".webp", (cv2.IMWRITE_WEBP_QUALITY, 101)), (".jpg", (cv2.IMWRITE_JPEG_PROGRESSIVE, 1)))
LIES = (0, 1, 31, 33, 7000, 20001, 60000, 65535, 2 ** 31 - 1, 2 ** 32 - 1)


def _good(rng: np.random.Generator) -> bytes:
    """A good image: colour, grey, alpha or 16-bit, mostly small, now and then a few hundred px a side."""
    top = 90 if rng.random() < 0.8 else 400
    h, w = int(rng.integers(1, top)), int(rng.integers(1, top))
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
        img = rng.integers(0, 65536, (h, w, 3) if rng.random() < 0.5 else (h, w), dtype=np.uint16)
    ok, buf = cv2.imencode(ext, img, list(params))
    assert ok
    return buf.tobytes()


def _lying(data: bytes, rng: np.random.Generator) -> bytes:
    """The same file with a header that claims another size (often a huge one); a PNG's CRC made right."""
    out = bytearray(data)
    w, h = (int(v) for v in rng.choice(LIES, 2))
    if out.startswith(b"\x89PNG"):
        out[16:24] = struct.pack(">II", w, h)
        if rng.random() < 0.7:  # the check a decoder makes first passes: only the size lies
            out[29:33] = struct.pack(">I", zlib.crc32(bytes(out[12:29])))
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


def _damaged(data: bytes, how: int, rng: np.random.Generator, i: int) -> bytes:
    if how == 0:  # truncated
        return data[:int(rng.integers(0, len(data)))]
    if how == 1:  # bits flipped
        arr = bytearray(data)
        for pos in rng.integers(0, len(arr), int(rng.integers(1, 12))):
            arr[pos] ^= 1 << int(rng.integers(8))
        return bytes(arr)
    if how == 2:  # random bytes, sometimes behind a real magic number
        magic = [b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"BM", b"RIFF\x00\x00\x00\x00WEBPVP8 "][i % 5]
        return magic + rng.integers(0, 256, int(rng.integers(0, 400)), dtype=np.uint8).tobytes()
    if how == 3:  # a header that lies
        return _lying(data, rng)
    if how == 4:  # a run of bytes overwritten
        arr = bytearray(data)
        at = int(rng.integers(0, len(arr)))
        arr[at:at + 32] = rng.integers(0, 256, 32, dtype=np.uint8).tobytes()
        return bytes(arr[:len(data)])
    return data  # the good file itself (tiny or grey or with alpha or 16-bit)


def bad_files(n: int, seed: int = 12) -> Iterator[bytes]:
    rng = np.random.default_rng(seed)
    for i in range(n):
        yield _damaged(_good(rng), i % 6, rng, i)


@pytest.fixture(scope="module")
def table_jpeg() -> bytes:
    """A real table frame (cards, stones, markers), as a camera's JPEG."""
    rng = np.random.default_rng(4)
    scene = render_scene(random_scene(rng, px_per_mm=1.2, hand_over_pool=False), rng)
    ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return buf.tobytes()


def damaged_tables(table: bytes, n: int, seed: int = 14) -> Iterator[bytes]:
    """The table frame truncated (half a frame decodes), bit-flipped, overwritten, lying, as grey or with alpha."""
    rng = np.random.default_rng(seed)
    frame = np.asarray(cv2.imdecode(np.frombuffer(table, np.uint8), cv2.IMREAD_COLOR), np.uint8)
    for i in range(n):
        how = i % 7
        if how == 5:  # the same frame grey, or with alpha, as another camera would keep it
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            img = grey if i % 2 else np.dstack([frame, np.full(frame.shape[:2], 200, np.uint8)])
            yield cv2.imencode(".png" if i % 2 == 0 else ".jpg", img)[1].tobytes()
        elif how == 6:  # a few bytes flipped well inside the scan: it decodes, with stripes of garbage
            arr = bytearray(table)
            for pos in rng.integers(len(arr) // 10, len(arr), 4):
                arr[pos] ^= 0xFF
            yield bytes(arr)
        elif how == 0:  # truncated after its header: the rest of the picture is grey
            yield table[:int(rng.integers(len(table) // 5, len(table)))]
        else:
            yield _damaged(table, how, rng, i)


def write_all(folder: Path, files: list[bytes]) -> list[Path]:
    folder.mkdir(exist_ok=True)
    exts = {b"\x89P": ".png", b"\xff\xd8": ".jpg", b"BM": ".bmp", b"RI": ".webp"}
    paths = []
    for i, data in enumerate(files):
        path = folder / f"f{i:03d}{exts.get(data[:2], '.jpg')}"  # the folder camera goes by the suffix
        path.write_bytes(data)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def stand_in_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model file the reader can load that is never sure of a card."""
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


@pytest.fixture(scope="module")
def files(table_jpeg: bytes, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """240 broken small files and 21 broken table frames, on disk."""
    data = list(bad_files(240, seed=13)) + list(damaged_tables(table_jpeg, 21))
    return write_all(tmp_path_factory.mktemp("bad"), data)


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
        assert frame.shape[0] * frame.shape[1] <= 50_000_000
        frames += 1
    assert frames > 50 and refused > 200  # both ways out are taken


@pytest.fixture(scope="module")
def read_out(files: list[Path], stand_in_model: Path) -> tuple[int, list[dict[str, object]]]:
    """``mus-table read --json`` on every file: its status and its lines."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["read", *map(str, files), "--json", "--model", str(stand_in_model)])
    return status, [json.loads(line) for line in out.getvalue().splitlines()]


def test_mus_table_read_gives_a_line_per_file_and_never_a_traceback(
        files: list[Path], read_out: tuple[int, list[dict[str, object]]]) -> None:
    status, lines = read_out
    assert status == 2 and len(lines) == len(files)
    errors = [line for line in lines if "error" in line]
    assert 0 < len(errors) < len(lines)
    assert all(set(e) == {"error"} and "\n" not in str(e["error"]) for e in errors)
    readings = lines[:240]
    assert all(line["stale"] is True for line in readings if "error" not in line)  # no mat in noise
    tables = [line for line in lines[240:] if "error" not in line]
    # the damaged table frames that decode are read whole: the mat placed, cards and stones counted
    assert sum(1 for t in tables if not t["stale"]) >= 5
    assert all(set(t) >= {"cards", "stones", "unknown", "stale"} for t in tables)


def test_the_folder_camera_refuses_the_same_files_and_the_runner_keeps_going(
        files: list[Path], read_out: tuple[int, list[dict[str, object]]]) -> None:
    _, lines = read_out
    refused_by_read = {p.name for p, line in zip(files, lines, strict=True) if "error" in line}
    # the camera alone: a frame, or InvalidFrame naming the file, for exactly the files `read` refused
    cam = FolderCamera(files[0].parent)
    refused_by_camera = set()
    for path in cam.paths:
        try:
            frame = cam.grab()
        except InvalidFrame as exc:
            assert str(exc).startswith(f"frame {path.name}: ") and "\n" not in str(exc)
            refused_by_camera.add(path.name)
            continue
        assert frame is not None and frame.image.dtype == np.uint8 and frame.image.shape[2] == 3
    assert refused_by_camera == refused_by_read
    # in the table's loop: each broken file is the «frames» fault, the camera is never taken for lost
    loop = TableLoop()
    runner = TableRunner(loop, FolderCamera(files[0].parent), camera_timeout_s=1e9)
    for path in runner.source.paths:  # type: ignore[union-attr]
        runner.step()
        faults = {f.kind: f for f in loop.faults}
        assert FaultKind.CAMERA not in faults and runner.source is not None
        if path.name in refused_by_read:
            assert path.name in faults[FaultKind.FRAMES].todo
        elif FaultKind.FRAMES in faults:  # a frame that decodes may still be too small to watch
            assert "imagen (" in faults[FaultKind.FRAMES].todo


def test_a_process_of_its_own_ends_with_status_2_and_no_traceback(files: list[Path], stand_in_model: Path) -> None:
    some = files[::8]  # a spread of every kind, and a few table frames
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "read", "--json", "--model", str(stand_in_model),
                           *map(str, some)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == len(some) and any("error" in line for line in lines)


def test_calibrate_refuses_a_lying_file_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.png"
    good = cv2.imencode(".png", np.zeros((40, 40, 3), np.uint8))[1].tobytes()
    path.write_bytes(good[:16] + struct.pack(">II", 60000, 60000) + good[24:])
    assert main(["calibrate", str(path), "--out", str(tmp_path / "v.png"), "--no-cards"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "huge.png: 60000 x 60000 px es demasiado grande" in err
