"""The card model (``models/cards.onnx``) behind a small interface: crops in, cards out.

All the crops of a frame go through the model in one call (sixteen crops cost
little more than one). Each crop is also shown upside down in the same call:
a face-up card may lie either way round, the model is trained for both, and a
card is only called when both views agree — a cheap guard against the one
mistake that matters, a wrong card.

onnxruntime runs with few threads and without spinning, so that on a Raspberry
Pi the model does not starve the camera and the web server.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from table.cards import DECK, Card
from table.errors import MusTableError
from vision.cardcrop import CROP_H, CROP_W, to_model_input

MODEL_NAME = "cards.onnx"
FEATURES = "features"
"""The model's second output: what its last layer sees, one row per crop (for learnt decks)."""
DEFAULT_THRESHOLD = 0.9
"""Least probability (in both views) for a card to be called; below it the card is unknown."""


class ModelNotFound(MusTableError):
    """The card model file is missing or cannot be loaded."""


def default_model_path() -> Path:
    """``models/cards.onnx`` inside the installed ``models`` package."""
    return Path(str(importlib.resources.files("models").joinpath(MODEL_NAME)))


@dataclass(frozen=True, slots=True)
class Prediction:
    """What the model makes of one crop."""

    card: Card
    probability: float
    """The card's probability, the lesser of the two views'."""
    agreed: bool
    """Whether the crop and its upside-down view gave the same card."""

    def sure(self, threshold: float = DEFAULT_THRESHOLD) -> bool:
        return self.agreed and self.probability >= threshold


def softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    z = logits.astype(np.float64)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float64)


def call_cards(p: npt.NDArray[np.float64]) -> list[Prediction]:
    """Predictions from class probabilities ``[N, 40]`` (one view) or ``[N, 2, 40]`` (both views).

    The one place the two-views rule lives: with both views, the card is the
    one most likely in both together, its probability the lesser of the two,
    and it is ``agreed`` only when each view alone picks it too.

    >>> p = np.zeros((1, 2, 40)); p[0, :, 5] = [0.95, 0.92]; p[0, :, 6] = [0.05, 0.08]
    >>> call_cards(p)[0]
    Prediction(card=Card.parse('6o'), probability=0.92, agreed=True)
    """
    result = []
    for row in p:
        if row.ndim == 1:
            k = int(np.argmax(row))
            result.append(Prediction(DECK[k], float(row[k]), True))
            continue
        a, b = int(np.argmax(row[0])), int(np.argmax(row[1]))
        k = int(np.argmax(row[0] * row[1]))
        result.append(Prediction(DECK[k], float(min(row[0, k], row[1, k])), a == b == k))
    return result


class Classifier(Protocol):
    """What the reader needs of a card classifier (the ONNX model, or a fake in tests)."""

    def classify(self, crops: list[npt.NDArray[np.uint8]]) -> list[Prediction]: ...


class NeverSure:
    """A classifier that is never sure of any crop: every card found is left unknown.

    The reader with it measures the finder and the stones alone
    (``vision.evaluate --no-model``), and tests use it to show that the table
    never invents a card.
    """

    def classify(self, crops: list[npt.NDArray[np.uint8]]) -> list[Prediction]:
        return [Prediction(DECK[0], 0.0, False) for _ in crops]


class CardClassifier:
    """onnxruntime session for the card model.

    ``threads`` is onnxruntime's intra-op thread count (1-2 on a Pi);
    ``both_ways`` also shows each crop turned 180 degrees and requires agreement.
    """

    def __init__(self, path: str | Path | None = None, threads: int = 1,
                 both_ways: bool = True) -> None:
        import onnxruntime as ort

        self.path = Path(path) if path is not None else default_model_path()
        if not self.path.is_file():
            raise ModelNotFound(f"card model not found: {self.path}")
        so = ort.SessionOptions()
        so.intra_op_num_threads = max(1, int(threads))
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.add_session_config_entry("session.inter_op.allow_spinning", "0")
        so.log_severity_level = 3
        try:
            self._session: Any = ort.InferenceSession(str(self.path), so,
                                                      providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelNotFound(f"card model cannot be loaded from {self.path}: {exc}") from exc
        inputs = {i.name for i in self._session.get_inputs()}
        outputs = {o.name for o in self._session.get_outputs()}
        if "crops" not in inputs or "logits" not in outputs:
            raise ModelNotFound(f"{self.path} is not a card model (needs input 'crops', output 'logits')")
        self.both_ways = both_ways
        self.has_features = FEATURES in outputs
        """Whether the model also gives ``features`` (needed to read a learnt deck)."""

    def logits(self, batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Raw logits ``[N, 40]`` of a ready model input ``[N, 3, 112, 72]`` (one call)."""
        if len(batch) == 0:
            return np.zeros((0, len(DECK)), dtype=np.float32)
        out = self._session.run(["logits"], {"crops": batch})[0]
        return np.asarray(out, dtype=np.float32)

    def logits_and_features(self, batch: npt.NDArray[np.float32]
                            ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Logits ``[N, 40]`` and features ``[N, F]`` of a ready model input, in one call."""
        if not self.has_features:
            raise ModelNotFound(f"{self.path} has no 'features' output (re-export it with "
                                "models.train.add_features_output)")
        if len(batch) == 0:
            width = int(self._session.get_outputs()[1].shape[1])
            return np.zeros((0, len(DECK)), np.float32), np.zeros((0, width), np.float32)
        logits, feats = self._session.run(["logits", FEATURES], {"crops": batch})
        return np.asarray(logits, np.float32), np.asarray(feats, np.float32)

    def probabilities(self, crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float64]:
        """Class probabilities ``[N, 40]`` (or ``[N, 2, 40]`` with both views) of BGR crops."""
        batch = to_model_input(crops)
        assert batch.shape[1:] == (3, CROP_H, CROP_W)
        n = len(batch)
        if self.both_ways and n:
            batch = np.ascontiguousarray(np.concatenate([batch, batch[:, :, ::-1, ::-1]]))
        p = softmax(self.logits(batch))
        if self.both_ways and n:
            return np.stack([p[:n], p[n:]], axis=1)
        return p

    def classify(self, crops: list[npt.NDArray[np.uint8]]) -> list[Prediction]:
        """One prediction per crop, all crops in one model call."""
        if not crops:
            return []
        return call_cards(self.probabilities(crops))
