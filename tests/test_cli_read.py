"""``mus-table read`` and ``mus-table calibrate`` from the command line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from models.scene import HELD_OUT_STYLES, SceneSpec, render_scene
from table.cards import DECK


@pytest.fixture(scope="module")
def flat_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in card model with the real one's interface that is never sure of anything."""
    import onnx
    from onnx import TensorProto, helper

    w = np.random.default_rng(0).normal(0, 0.01, (3, 40)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["crops", "axes"], ["mean"], keepdims=0),
         helper.make_node("MatMul", ["mean", "w"], ["logits"])],
        "flat",
        [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, 112, 72])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 40])],
        [helper.make_tensor("axes", TensorProto.INT64, [2], [2, 3]),
         helper.make_tensor("w", TensorProto.FLOAT, [3, 40], w.ravel().tolist())],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    path = tmp_path_factory.mktemp("model") / "flat.onnx"
    onnx.save(model, str(path))
    return path


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("frames")
    rng = np.random.default_rng(41)
    spec = SceneSpec(cards=(tuple(DECK[0:4]), (), tuple(DECK[20:22]), ()), pool_stones=6,
                     seat_stones=(2, 0, 0, 3), stone_colour=(30, 30, 200), deck=HELD_OUT_STYLES["clasica"],
                     px_per_mm=1.3, rotation_deg=15.0)
    scene = render_scene(spec, rng)
    covered = render_scene(replace(spec, hidden_markers=(0, 1)), np.random.default_rng(41))
    out = {"good": d / "table.png", "covered": d / "covered.png", "black": d / "black.png", "corrupt": d / "broken.jpg",
           "empty": d / "empty.png", "missing": d / "nope.png"}
    cv2.imwrite(str(out["good"]), scene.image)
    cv2.imwrite(str(out["covered"]), covered.image)
    cv2.imwrite(str(out["black"]), np.zeros((720, 1280, 3), np.uint8))
    data = out["good"].read_bytes()
    out["corrupt"].write_bytes(b"\xff\xd8\xff\xe0" + data[200:1200])  # a JPEG header, then garbage
    out["empty"].write_bytes(b"")
    return out


def lines_of(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_one_json_line_per_image_errors_on_their_own_line(images: dict[str, Path], flat_model: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    order = ["good", "corrupt", "black", "missing", "empty", "good"]
    status = main(["read", *[str(images[k]) for k in order], "--json", "--model", str(flat_model)])
    assert status == 2
    out = lines_of(capsys)
    assert len(out) == len(order)
    good, corrupt, black, missing, empty, again = out
    for bad in (corrupt, missing, empty):
        assert set(bad) == {"error"} and isinstance(bad["error"], str) and bad["error"]
    assert {"cards", "stones", "unknown", "stale"} <= set(good)
    assert good["stale"] is False and good["stones"] == {"pool": 6, "seats": [2, 0, 0, 3]}
    # the stand-in model is never sure: every card found is unknown, none is guessed
    assert good["cards"] == [[], [], [], []]
    unknown = good["unknown"]
    assert isinstance(unknown, list) and len(unknown) == 6
    assert all(u["why"] in ("low confidence", "views disagree") and len(u["box"]) == 4 for u in unknown)
    assert black["stale"] is True and black["cards"] == [[], [], [], []]
    assert again == good


def test_all_good_images_exit_zero(images: dict[str, Path], flat_model: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(images["good"]), str(images["black"]), "--json", "--model", str(flat_model)]) == 0
    assert len(lines_of(capsys)) == 2


def test_a_sequence_keeps_the_last_good_calibration(images: dict[str, Path], flat_model: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(images["good"]), str(images["covered"])]
    assert main(["read", *files, "--json", "--model", str(flat_model)]) == 0
    _, alone = lines_of(capsys)
    assert alone["stale"] is True and alone["unknown"] == [] and alone["markers"] == [2, 3]
    assert main(["read", *files, "--json", "--sequence", "--model", str(flat_model)]) == 0
    _, later = lines_of(capsys)
    assert later["stale"] is True and len(later["unknown"]) == 6  # type: ignore[arg-type]
    assert later["stones"] == {"pool": 6, "seats": [2, 0, 0, 3]}


def test_human_summary(images: dict[str, Path], flat_model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(images["good"]), "--model", str(flat_model)]) == 0
    text = capsys.readouterr().out
    assert "asiento 1:" in text and "piedras: 6 en el centro; por asiento, 2 el 1, 0 el 2, 0 el 3, 3 el 4" in text
    assert "la cámara no está segura" in text


def test_a_missing_model_is_one_line_and_status_2(images: dict[str, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(images["good"]), "--model", str(tmp_path / "none.onnx")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "card model not found" in err


def test_calibrate_writes_the_view(images: dict[str, Path], tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    view = tmp_path / "view.png"
    assert main(["calibrate", str(images["good"]), "--out", str(view), "--no-cards"]) == 0
    assert "marcas 0 1 2 3" in capsys.readouterr().out
    drawn = cv2.imread(str(view))
    original = cv2.imread(str(images["good"]))
    assert drawn.shape == original.shape and np.abs(drawn.astype(int) - original).sum() > 0
    assert main(["calibrate", str(images["black"]), "--out", str(tmp_path / "b.png"), "--no-cards"]) == 2
    assert "no se ve el tapete" in capsys.readouterr().out and (tmp_path / "b.png").is_file()


def test_read_with_the_card_model(images: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(images["good"]), "--json"]) == 0
    (reading,) = lines_of(capsys)
    truth = [sorted(map(str, DECK[0:4])), [], sorted(map(str, DECK[20:22])), []]
    cards = reading["cards"]
    assert isinstance(cards, list)
    for got, want in zip(cards, truth, strict=True):
        assert set(got) <= set(want)  # never a wrong card
    assert sum(len(s) for s in cards) >= 5
