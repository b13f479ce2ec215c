"""The demo table: a partida played on the synthetic table, read by the camera pipeline.

Off the Pi there is no camera and no table, so the demo deals random legal
hands, renders each end-of-hand table as the overhead camera would see it
(``models.scene``: felt, markers, the sixteen cards of a deck style the model
never saw, the stones), reads the frame with :class:`vision.reading.TableReader`
and scores the hand read from the frame with the rules engine, hand after hand,
until the partida is won or the hands run out. Where the reading is not sure of
every card, the demo does what the table asks players to do: it takes the
players' correction (the dealt cards) and says so — it never guesses a card.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from models.deck import HELD_OUT_STYLES
from models.scene import random_scene, render_scene
from table.answer import Answer
from table.cards import Card
from table.explain import explain
from table.generate import random_record
from table.match import Partida
from table.record import HandRecord
from table.rules import Rules
from vision.reading import Reading, TableReader


@dataclass(frozen=True)
class DemoHand:
    """One hand of the demo: what was dealt, what the camera read, and the answer."""

    number: int
    record: HandRecord
    answer: Answer
    won: list[tuple[str, int]]
    read_ok: bool
    """True when the frame alone gave all sixteen cards, right, and no doubt."""
    misread: list[str]
    """What the reading got wrong or left unknown (empty when ``read_ok``)."""
    stones_read: dict[str, object]
    stones_truth: dict[str, object]
    frame_ms: float


def table_stones(score: list[int], target: int) -> tuple[int, tuple[int, int, int, int]]:
    """Stones on the felt for a score: seats 0 and 1 keep piedras, 2 and 3 amarracos (mat.md).

    Each pair's points are ``5 * amarracos + piedras``; a pair within 5 of the
    target («dentro») gives its amarracos back to the pool, as players do, and
    its piedras say how far inside it is. The pool holds what nobody has won.

    >>> table_stones([12, 37], 40)
    (16, (2, 2, 2, 0))
    """
    seats = [0, 0, 0, 0]
    for pair, points in enumerate(score):
        piedras_seat, amarracos_seat = pair, pair + 2
        if points >= target - 5:  # dentro: only the piedras past the line stay out
            seats[piedras_seat] = points - (target - 5)
        else:
            seats[amarracos_seat], seats[piedras_seat] = divmod(points, 5)
    pool = max(0, 22 - sum(seats))
    return pool, (seats[0], seats[1], seats[2], seats[3])


def play(hands: int, seed: int, rules: Rules, frames: Path | None = None,
         reader_factory: Callable[[], TableReader] = TableReader) -> Iterator[DemoHand]:
    """Play up to ``hands`` hands of a partida on the synthetic table (stops when it is won)."""
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    reader = reader_factory()
    partida = Partida(rules=rules)
    for number in range(1, hands + 1):
        if partida.over:
            return
        raw = random_record(rng, rules, mano=partida.mano, score=list(partida.score))
        dealt = [[Card.parse(c) for c in seat] for seat in raw["cards"]]
        pool, seat_stones = table_stones(partida.score, rules.target)
        pool = min(pool, 14)
        deck = HELD_OUT_STYLES[sorted(HELD_OUT_STYLES)[number % len(HELD_OUT_STYLES)]]
        spec = random_scene(np_rng, cards=dealt, deck=deck, pool_stones=pool, seat_stones=seat_stones,
                            hidden_markers=(), extras=(), hand_over_pool=False,
                            tilt_deg=float(np_rng.uniform(0, 8)))
        scene = render_scene(spec, np_rng)
        if frames is not None:
            frames.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(frames / f"hand-{number:03d}.jpg"), scene.image)
        reading = reader.read(scene.image)
        frame_ms = reader.timings.total
        misread = _compare(dealt, reading)
        read_ok = not misread and reading.ok
        record_obj = dict(raw)
        if read_ok:
            record_obj["cards"] = [[str(c) for c in seat] for seat in reading.cards]
        record = HandRecord.from_json(record_obj)
        answer, won = partida.play(record)
        yield DemoHand(number, record, answer, won, read_ok, misread,
                       reading.stones.to_json(), scene.stones, frame_ms)


def _compare(dealt: list[list[Card]], reading: Reading) -> list[str]:
    out: list[str] = []
    for seat, (truth, seen) in enumerate(zip(dealt, reading.cards, strict=True)):
        missing = set(truth) - set(seen)
        extra = set(seen) - set(truth)
        out += [f"seat {seat}: {c} not read" for c in sorted(missing, key=str)]
        out += [f"seat {seat}: {c} read but not there" for c in sorted(extra, key=str)]
    out += [f"impossible: {why}" for why in reading.impossible]
    return out


def narrate(hand: DemoHand) -> list[str]:
    """The lines the demo prints for one hand."""
    cards = "  ".join(" ".join(seat) for seat in hand.record.cards)
    lines = [f"— Mano {hand.number} —", f"Cartas leídas: {cards}"]
    if hand.read_ok:
        lines.append(f"La cámara leyó las dieciséis cartas ({hand.frame_ms:.0f} ms).")
    else:
        lines.append("La cámara no está segura de todas las cartas: "
                     + "; ".join(hand.misread) + ". Los jugadores las corrigen.")
    lines.append(f"Piedras vistas: {hand.stones_read} (sobre el tapete: {hand.stones_truth})")
    lines += explain(hand.record, hand.answer)
    for what, pair in hand.won:
        lines.append(f"¡La pareja {pair} gana {'el ' if what == 'juego' else 'la '}{what}!")
    return lines
