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
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from table.cards import DECK, Card, Suit
from table.errors import MusTableError
from vision.cardcrop import BAND_H, BAND_W, CROP_H, CROP_W, card_bands, to_model_input
from vision.ends import (
    ENDS_THRESHOLD,
    MIN_PX_PER_MM,
    EndsModel,
    EndsReading,
    ends_installed,
    face_of,
    px_per_mm_of,
)

MODEL_NAME = "cards.onnx"
CORNER_MODEL_NAME = "corners.onnx"
FEATURES = "features"
"""The model's second output: what its last layer sees, one row per crop (for learnt decks)."""
DEFAULT_THRESHOLD = 0.9
"""Least probability (in both views) for a card to be called; below it the card is unknown."""
KERNEL_MARGIN = 0.02
"""How far from a bar a probability must lie for a test to assert which side of it it falls.

The shipped models are float: another CPU's kernels move a probability by
about 1e-6 (``models.agreement``, the model card's "The same calls on every
CPU"); the 8-bit copies moved them by up to 0.09 and flipped calls. A test
whose cards lie nearer a bar than this is a test of the CPU, not of the reader."""

ENDS_CHECK_BELOW = 0.96
"""A card the main model is sure of, but under this, is checked by the ends reader where the frame is fine enough:
the ends sure of another card leave it unknown. A card model that never saw a deck can be sure of the wrong card:
one trained without Fournier 1878 read its 4e as the 12e at 0.91-0.95 in every hand (13 wrong of 1 058 cards, seed
18001), the ends read it 4e at 0.90-0.99. Checking every sure call under 0.99 cost the read 50 ms (median 177
against 125 ms, ``mus-table bench read --style clasica``); under 0.96, 3 ms."""
CORNER_THRESHOLD = 0.97
"""Least probability (in both end bands) for the corner model to call a card the main model is unsure of."""


class ModelNotFound(MusTableError):
    """The card model file is missing or cannot be loaded."""


def default_model_path() -> Path:
    """``models/cards.onnx`` inside the installed ``models`` package."""
    return Path(str(importlib.resources.files("models").joinpath(MODEL_NAME)))


def default_corner_model_path() -> Path:
    """``models/corners.onnx`` (the corner model, which reads a card by its end bands) beside it."""
    return Path(str(importlib.resources.files("models").joinpath(CORNER_MODEL_NAME)))


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


@runtime_checkable
class SizedDeck(Protocol):
    """A classifier of one deck whose card size is known (a learnt deck's): the reader's finder fits the cards it
    finds to that size rather than guess it from the frame's cards (:func:`vision.cards.find_cards`)."""

    @property
    def card_mm(self) -> tuple[float, float] | None: ...


class NeverSure:
    """A classifier that is never sure of any crop: every card found is left unknown.

    The reader with it measures the finder and the stones alone
    (``vision.evaluate --no-model``), and tests use it to show that the table
    never invents a card.
    """

    def classify(self, crops: list[npt.NDArray[np.uint8]]) -> list[Prediction]:
        return [Prediction(DECK[0], 0.0, False) for _ in crops]


def _session(path: Path, threads: int, what: str) -> Any:
    """An onnxruntime CPU session with few threads and no spinning (a Pi runs other things too)."""
    import onnxruntime as ort

    if not path.is_file():
        raise ModelNotFound(f"{what} not found: {path}")
    so = ort.SessionOptions()
    so.intra_op_num_threads = max(1, int(threads))
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    so.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise ModelNotFound(f"{what} cannot be loaded from {path}: {exc}") from exc


class CornerModel:
    """onnxruntime session for the corner model (``models/corners.onnx``): a card read by its ends.

    Its input is a card's two end bands (:func:`vision.cardcrop.card_bands`,
    cut from the frame at the frame's own resolution), its output 40 card
    logits per band; the two bands are its two views.
    """

    def __init__(self, path: str | Path | None = None, threads: int = 1) -> None:
        self.path = Path(path) if path is not None else default_corner_model_path()
        self._session: Any = _session(self.path, threads, "corner model")
        if [i.name for i in self._session.get_inputs()] != ["bands"]:
            raise ModelNotFound(f"{self.path} is not a corner model (needs input 'bands')")

    def probabilities(self, crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float64]:
        """Class probabilities ``[N, 2, 40]`` of the crops' two end bands, in one call."""
        n = len(crops)
        if n == 0:
            return np.zeros((0, 2, len(DECK)))
        bands = np.concatenate([card_bands(c) for c in crops])  # [2N, H, W, 3], card by card
        batch = np.ascontiguousarray(bands[..., ::-1].transpose(0, 3, 1, 2), np.float32) / np.float32(255.0)
        assert batch.shape[1:] == (3, BAND_H, BAND_W)
        logits = np.asarray(self._session.run(["logits"], {"bands": batch})[0], np.float32)
        return softmax(logits).reshape(n, 2, len(DECK))


def combine(main: list[Prediction], corner: list[Prediction], threshold: float = DEFAULT_THRESHOLD,
            corner_threshold: float = CORNER_THRESHOLD) -> list[Prediction]:
    """One call per card from the main model's and the corner model's: either may call it, neither
    against the other.

    A card is called when one model is sure of it (the main model at
    ``threshold``, the corner model at ``corner_threshold``, each in both its
    views) and the other is not sure (at ``threshold``) of another card; two
    sure models that disagree leave it unknown. So the wrong calls are at
    most those of the two models added, and the right ones at least those of
    the better one, less the clashes.

    >>> from table.cards import Card
    >>> m = [Prediction(Card.parse("6o"), 0.95, True), Prediction(Card.parse("6o"), 0.4, True)]
    >>> c = [Prediction(Card.parse("7o"), 0.99, True), Prediction(Card.parse("7o"), 0.99, True)]
    >>> [(str(p.card), p.sure()) for p in combine(m, c)]
    [('6o', False), ('7o', True)]
    """
    out = []
    for m, c in zip(main, corner, strict=True):
        if m.sure(threshold):
            clash = c.sure(threshold) and c.card != m.card
            out.append(Prediction(m.card, m.probability, not clash))
        elif c.sure(corner_threshold):
            out.append(Prediction(c.card, c.probability, True))
        else:
            out.append(m)
    return out


@dataclass(frozen=True, slots=True)
class Backing:
    """An ends call whose suit is under the ends' bar is taken where the card model backs that suit.

    The pinta model is the ends' weak half on a deck it never saw: it may
    hold espadas and bastos (two breaks or three) at 0.6-0.8 where the index
    model names the rank at 0.99. The card model, unsure of such a card as a
    whole, still sees its suit's art: asked only among the four cards of the
    rank the index names, it picks a suit in each view. Where that pick is
    the pintas' suit in both views, two readers of the suit that look at
    different things agree, and the pintas need only ``suit_least``. The
    rank keeps the ends' own bar (and the cut guard's look beyond the quad).
    """

    suit_least: float = 0.6
    """Least pinta probability, in both views, of a suit the card model backs (the ends' bar is 0.8)."""


BACKING = Backing()


def backs(p: npt.NDArray[np.float64], rank: int, suit: Suit) -> bool:
    """Whether the card model's probabilities ``[2, 40]``, among the four cards of ``rank``, pick ``suit`` in each view.

    >>> p = np.full((2, 40), 0.02); p[:, Card(12, Suit.ESPADAS).index] = [0.05, 0.04]
    >>> backs(p, 12, Suit.ESPADAS), backs(p, 12, Suit.BASTOS), backs(p, 11, Suit.ESPADAS)
    (True, False, False)
    """
    four = [Card(rank, s).index for s in Suit]
    return all(four[int(np.argmax(view[four]))] == Card(rank, suit).index for view in p)


def fall_back(main: list[Prediction], ends: list[EndsReading], threshold: float = DEFAULT_THRESHOLD,
              ends_threshold: float = ENDS_THRESHOLD, probabilities: npt.NDArray[np.float64] | None = None,
              backing: Backing = BACKING) -> list[Prediction]:
    """The main model's call where it is sure, else the ends reader's where that is sure, else unknown.

    The ends never overrule a sure main model: on the decks the main model
    knows it is the better reader, and the ends are there for the rest. An
    ends call is given at least the main model's ``threshold`` as its
    probability, so that the reader, which knows one threshold, takes it:
    the ends have their own (four probabilities, two models in two views,
    must each reach it). With the main model's ``probabilities`` ``[N, 2, 40]``,
    an ends call whose suit is under that bar but at ``backing.suit_least``
    is taken too where the main model :func:`backs` its suit (:class:`Backing`).

    >>> from table.cards import Card, Suit
    >>> m = [Prediction(Card.parse("6o"), 0.95, True), Prediction(Card.parse("6o"), 0.4, True)]
    >>> e = [EndsReading(7, 0.99, Suit.OROS, 0.99, True)] * 2
    >>> [(str(p.card), p.sure()) for p in fall_back(m, e)]
    [('6o', True), ('7o', True)]
    >>> near = [EndsReading(7, 0.99, Suit.OROS, 0.7, True)] * 2
    >>> p = np.full((2, 2, 40), 0.02); p[:, :, Card.parse("7o").index] = 0.05
    >>> [(str(c.card), c.sure()) for c in fall_back(m, near, probabilities=p)]
    [('6o', True), ('7o', True)]
    >>> [(str(c.card), c.sure()) for c in fall_back(m, near)]
    [('6o', True), ('6o', False)]
    """
    out = []
    for i, (m, e) in enumerate(zip(main, ends, strict=True)):
        backed = (probabilities is not None and e.suit is not None and e.agreed
                  and e.rank_probability >= ends_threshold and e.suit_probability >= backing.suit_least
                  and backs(probabilities[i], e.rank, e.suit))
        if not m.sure(threshold) and (e.sure(ends_threshold) or backed):
            out.append(Prediction(e.card, max(e.probability, threshold), True))
        else:
            out.append(m)
    return out


class CardClassifier:
    """onnxruntime session for the card model, with the corner model beside it where there is one.

    ``threads`` is onnxruntime's intra-op thread count (1-2 on a Pi);
    ``both_ways`` also shows each crop turned 180 degrees and requires agreement.
    ``corners``: the corner model's path, ``None`` for ``models/corners.onnx``
    when the main model is the default one and that file is there, ``False``
    for the main model alone. With it, :meth:`classify` combines the two
    (:func:`combine`).
    ``ends``: the ends reader (:class:`vision.ends.EndsModel`, rank from the
    index and suit from the pintas), ``None`` for the installed one when the
    main model is the default one and its two files are there, ``False`` for
    none. It is asked about the cards the main model is not sure of, and checks those it is sure of under
    :data:`ENDS_CHECK_BELOW`.
    """

    def __init__(self, path: str | Path | None = None, threads: int = 1,
                 both_ways: bool = True, corners: str | Path | bool | None = None,
                 ends: EndsModel | bool | None = None, ends_threshold: float = ENDS_THRESHOLD) -> None:
        self.path = Path(path) if path is not None else default_model_path()
        self._session: Any = _session(self.path, threads, "card model")
        self.corners: CornerModel | None = None
        if corners is None and path is None and default_corner_model_path().is_file():
            corners = default_corner_model_path()
        if corners not in (None, False, True):
            self.corners = CornerModel(corners, threads)  # type: ignore[arg-type]
        elif corners is True:
            self.corners = CornerModel(None, threads)
        self.ends: EndsModel | None = None
        self.ends_threshold = ends_threshold
        if ends is None and path is None and ends_installed():
            ends = True
        if ends is True:
            self.ends = EndsModel(threads=threads)
        elif isinstance(ends, EndsModel):
            self.ends = ends
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
        """One prediction per crop, all crops in one model call (one more for the corner model)."""
        if not crops:
            return []
        p = self.probabilities(crops)
        main = call_cards(p)
        if not self.both_ways:
            return main
        if self.corners is not None:
            main = combine(main, call_cards(self.corners.probabilities(crops)))
        if self.ends is not None:
            main = self._with_ends(crops, main, p)
        return main

    def _with_ends(self, crops: list[npt.NDArray[np.uint8]], main: list[Prediction],
                   p: npt.NDArray[np.float64]) -> list[Prediction]:
        """The ends reader's call for each card the main model is not sure of, where it is sure
        (or its suit is backed by the main model's probabilities ``p``, :func:`fall_back`); and each card the
        main model is sure of under :data:`ENDS_CHECK_BELOW` left unknown where the ends are sure of another.

        Only cards cut from a frame fine enough for the ends are asked
        (:data:`vision.ends.MIN_PX_PER_MM`: a full-resolution still).
        """
        assert self.ends is not None
        fine = [px_per_mm_of(c) >= MIN_PX_PER_MM for c in crops]
        unsure = [i for i, c in enumerate(main) if not c.sure() and fine[i]]
        checked = [i for i, c in enumerate(main) if c.sure() and c.probability < ENDS_CHECK_BELOW and fine[i]]
        if not unsure and not checked:
            return main
        out = list(main)
        asked = unsure + checked
        frames = [getattr(crops[i], "source", None) for i in asked]
        ends = self.ends.read([face_of(crops[i]) for i in asked], self.ends_threshold, frames)
        told = fall_back([main[i] for i in unsure], ends[:len(unsure)], ends_threshold=self.ends_threshold,
                         probabilities=p[unsure])
        for i, call in zip(unsure, told, strict=True):
            out[i] = call
        doubted = [j for j, i in enumerate(checked, len(unsure))
                   if ends[j].sure(self.ends_threshold) and ends[j].card != main[i].card]
        if doubted:  # a sure rank the ends read off a cut quad is looked at beyond it first (vision.ends.CutGuard)
            guarded = self.ends.guard_cuts([ends[j] for j in doubted], [frames[j] for j in doubted],
                                           self.ends_threshold)
            for j, e in zip(doubted, guarded, strict=True):
                i = asked[j]
                if e.sure(self.ends_threshold) and e.card != main[i].card:
                    # two readers sure of two cards: unknown, never a card they disagree on
                    out[i] = Prediction(main[i].card, min(main[i].probability, 1.0 - e.probability), True)
        return out
