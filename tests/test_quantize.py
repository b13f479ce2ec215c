"""models.quantize: an 8-bit copy keeps the reader's contract and its calls; the shipped models stay float."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from models.quantize import (  # noqa: E402
    calibration_batches,
    index_batches,
    is_quantized,
    main,
    quantize,
    quantize_index,
)
from vision.cardcrop import CROP_H, CROP_W  # noqa: E402
from vision.classifier import FEATURES, CardClassifier, default_model_path  # noqa: E402
from vision.ends import INDEX_MODEL_NAME, PATCH, PINTA_MODEL_NAME, EndsModel  # noqa: E402
from vision.ends import default_path as ends_path  # noqa: E402


def _tiny_card_model(path: Path) -> None:
    """A float model with the card model's contract: conv, relu, average, linear; logits and features."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(np.zeros(8, np.float32), "b")
    fc = numpy_helper.from_array(rng.normal(0, 0.5, (40, 8)).astype(np.float32), "fc")
    fcb = numpy_helper.from_array(np.zeros(40, np.float32), "fcb")
    nodes = [helper.make_node("Conv", ["crops", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "fc", "fcb"], ["logits"], transB=1),
             helper.make_node("Identity", ["f"], [FEATURES])]
    graph = helper.make_graph(
        nodes, "tiny", [helper.make_tensor_value_info("crops", TensorProto.FLOAT, ["n", 3, CROP_H, CROP_W])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 40]),
         helper.make_tensor_value_info(FEATURES, TensorProto.FLOAT, ["n", 8])], [w, b, fc, fcb])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_the_shipped_models_are_float_so_that_every_cpu_makes_the_same_calls() -> None:
    # 8-bit kernels differ by CPU (VNNI or not, the Pi's ARM): a call could flip (model card)
    assert not any(is_quantized(p) for p in (default_model_path(), ends_path(INDEX_MODEL_NAME),
                                            ends_path(PINTA_MODEL_NAME)))


def _tiny_index_model(path: Path) -> None:
    """A float model with the index model's contract: one grey corner in, ten rank logits out."""
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.normal(0, 0.5, (6, 1, 3, 3)).astype(np.float32), "w")
    fc = numpy_helper.from_array(rng.normal(0, 0.5, (10, 6)).astype(np.float32), "fc")
    nodes = [helper.make_node("Conv", ["corners", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["logits"], transB=1)]
    graph = helper.make_graph(
        nodes, "tiny_index", [helper.make_tensor_value_info("corners", TensorProto.FLOAT, ["n", 1, PATCH, PATCH])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 10])], [w, fc])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


def test_an_index_model_made_8_bit_gives_the_same_ranks(tmp_path: Path) -> None:
    src, dst = tmp_path / "index.onnx", tmp_path / "index8.onnx"
    _tiny_index_model(src)
    quantize_index(src, dst)
    assert is_quantized(dst)
    f = EndsModel(src, ends_path(PINTA_MODEL_NAME))._index
    q = EndsModel(dst, ends_path(PINTA_MODEL_NAME))._index
    x = index_batches(64, seed=3)[0]  # corners it was not calibrated on
    lf, lq = f.run(["logits"], {"corners": x})[0], q.run(["logits"], {"corners": x})[0]
    assert lq.shape == lf.shape == (64, 10)
    assert np.abs(lq - lf).max() < 0.05 * float(np.ptp(lf))


def test_quantising_keeps_the_contract_and_the_calls(tmp_path: Path) -> None:
    src, dst = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    _tiny_card_model(src)
    quantize(src, dst, scenes=2)
    assert is_quantized(dst) and not is_quantized(src)
    f, q = CardClassifier(src, corners=False, ends=False), CardClassifier(dst, corners=False, ends=False)
    x = calibration_batches(3, seed=5)[2]  # crops it was not calibrated on
    lf, ff = f.logits_and_features(x)
    lq, fq = q.logits_and_features(x)
    assert lq.shape == lf.shape == (32, 40) and fq.shape == ff.shape == (32, 8)
    spread = float(np.ptp(lf))
    assert np.abs(lq - lf).max() < 0.05 * spread  # the same logits, to a few steps of 8 bits
    assert (lq.argmax(1) == lf.argmax(1)).mean() >= 0.9


def test_the_command_refuses_a_model_quantised_already_and_a_missing_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, done = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    _tiny_card_model(src)
    quantize(src, done, scenes=1)
    assert main([str(done), str(tmp_path / "x.onnx")]) == 2
    assert "quantised already" in capsys.readouterr().err
    assert main([str(tmp_path / "none.onnx")]) == 2
    assert "no model at" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()
