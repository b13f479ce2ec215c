"""The synthetic table: the scene renderer playing whole hands, as a camera source.

A :class:`SyntheticTable` is what an overhead camera would see of a table
where four people play (``models.scene`` draws it): the cards dealt face down,
picked up (hands passing over the felt), laid face up at the end of the hand,
the stones moved by the tanteo. It is a :class:`~firmware.camera.CameraSource`
(small frames to watch, full-resolution stills to read), and the
:class:`SyntheticPlayers` move it along and speak for the four seats through
the same commands people use, so ``mus-table demo`` runs the real loop.

Card backs are drawn here (``models.scene`` draws faces): a deck whose every
card shows the back is how face-down cards are rendered.

The synthetic table also lays a deck out for learning it
(:meth:`SyntheticTable.lay_learning`): the three learning frames of
``docs/mat.md`` card by card, left to right as each seat sees them, and, to
try the display's checks, with a zone short of cards or a card face down.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from firmware.camera import Frame
from firmware.events import TableEvent
from firmware.state import TableState
from firmware.table_commands import Command, CommandRefused, Confirm, Correct, Declare, Say, Unsay
from firmware.table_loop import TableLoop, expected_stones
from models.deck import HELD_OUT_STYLES, DeckStyle, deck_faces
from models.scene import CardPlacement, SceneSpec, max_stones, place_row, render_scene
from table.answer import Answer
from table.betting import BetWord
from table.cards import DECK, Card
from table.errors import MusTableError
from table.generate import random_record
from table.hand import Phase
from table.jugadas import Jugadas
from table.lances import Lance
from table.record import HandRecord
from vision.reading import Reading
from vision.stones import StoneCount

Image = npt.NDArray[np.uint8]
STONES = 40
"""Stones in the game (two pairs can each hold up to the target)."""


def card_back(width_px: int = 123, height_px: int = 190, colour: tuple[int, int, int] = (40, 40, 150)) -> Image:
    """A card's back: a white margin, a coloured field with a lattice, as most Spanish decks.

    >>> card_back(62, 95).shape
    (95, 62, 3)
    """
    img = np.full((height_px, width_px, 3), 235, np.uint8)
    m = max(2, width_px // 12)
    cv2.rectangle(img, (m, m), (width_px - 1 - m, height_px - 1 - m), colour, -1)
    step = max(4, width_px // 8)
    light = tuple(min(255, c + 60) for c in colour)
    for k in range(-height_px, width_px + height_px, step):
        cv2.line(img, (k, m), (k + height_px, m + height_px), light, 1, cv2.LINE_AA)
        cv2.line(img, (k, m + height_px), (k + height_px, m), light, 1, cv2.LINE_AA)
    img[:m] = 235
    img[-m:] = 235
    img[:, :m] = 235
    img[:, -m:] = 235
    return img


def backs(style: DeckStyle) -> Mapping[Card, Image]:
    """A «deck» whose every card shows its back (to draw cards lying face down)."""
    w, h = style.card_mm
    back = card_back(int(round(w * 2)), int(round(h * 2)))
    return {card: back for card in DECK}


class Scene:
    """What lies on the table now (one of the hand's moments)."""

    DEALT, PLAYING, SHOWN, EMPTY, LEARNING = "dealt", "playing", "shown", "empty", "learning"


@dataclass(frozen=True)
class LearningLayout:
    """A deck-learning frame as laid on the synthetic table: frame ``k`` of ``docs/mat.md``,
    with ``missing`` cards left out of some zones (seat → how many, the last ones of its row)
    and the cards at ``face_down`` (seat, place 0-3) lying face down: what a person gets wrong."""

    k: int
    missing: tuple[tuple[int, int], ...] = ()
    face_down: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "missing": [list(m) for m in self.missing], "face_down": [list(f) for f in self.face_down]}

    def cards(self) -> tuple[tuple[Card, ...], ...]:
        """The cards laid, per seat, left to right as the seat sees them."""
        from vision.learnt import learning_cards  # noqa: PLC0415 - the layout's one definition

        short = dict(self.missing)
        return tuple(seat[:max(0, len(seat) - short.get(s, 0))] for s, seat in enumerate(learning_cards(self.k)))


class SyntheticTable:
    """A rendered table, frame by frame, moved on by :meth:`deal`, :meth:`pick_up`, :meth:`show`
    and :meth:`set_score`.

    After each change a few frames show hands passing over the felt (motion);
    then the picture is still. Stills are rendered at ``still_px_per_mm``
    (the reader wants at least 1.2), watch frames at ``watch_px_per_mm``.
    """

    WATCH_PX_PER_MM = 0.45
    STILL_PX_PER_MM = 1.5

    def __init__(self, seed: int = 1, *, style: DeckStyle | None = None, target: int = 40,
                 piedras: tuple[int, int] = (0, 1), watch_px_per_mm: float = WATCH_PX_PER_MM,
                 still_px_per_mm: float = STILL_PX_PER_MM, moving_frames: int = 3, tilt_deg: float = 4.0,
                 frames: Path | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.rng = np.random.default_rng(seed)
        self.style = style or HELD_OUT_STYLES["clasica"]
        self.target = target
        self.piedras = piedras
        self.watch_px_per_mm = watch_px_per_mm
        self.still_px_per_mm = still_px_per_mm
        self.moving_frames = moving_frames
        self._clock = clock
        self._lock = threading.Lock()
        self._base = SceneSpec(deck=self.style, tilt_deg=tilt_deg, tilt_dir_deg=float(self.rng.uniform(0, 360)),
                               rotation_deg=float(self.rng.uniform(-8, 8)), kelvin=4200.0, noise=1.5,
                               jpeg_quality=90, stone_colour=(30, 30, 200), stone_mm=20.0)
        self.cards: tuple[tuple[Card, ...], ...] = ((), (), (), ())
        self.scene = Scene.EMPTY
        self.score = (0, 0)
        self.unplugged = False
        self._n = 0
        self._version = 0
        self._moving = 0
        self._scene_seed = 0
        self._cache: dict[tuple[int, float, bool], Image] = {}
        self.renders = 0
        self.learning: LearningLayout | None = None
        """The deck-learning frame laid (scene ``learning``), else None."""
        self._before_learning: tuple[str, tuple[tuple[Card, ...], ...]] | None = None
        self._placements: tuple[tuple[CardPlacement, ...], ...] | None = None
        self.frames = frames
        """Where each still is also written (JPEG), to look at or to ``mus-table read``; None: nowhere."""

    # ------------------------------------------------------------------ what lies on the table

    def deal(self, cards: tuple[tuple[Card, ...], ...] | list[list[Card]]) -> None:
        """Four cards face down before each seat."""
        self._change(Scene.DEALT, cards)

    def pick_up(self) -> None:
        """The players take their cards in hand: the zones are empty, hands move."""
        self._change(Scene.PLAYING, self.cards)

    def show(self, cards: tuple[tuple[Card, ...], ...] | list[list[Card]] | None = None) -> None:
        """The cards laid face up in the zones (the end of the hand)."""
        self._change(Scene.SHOWN, self.cards if cards is None else cards)

    def gather(self) -> None:
        """The cards taken away for the next deal."""
        self._change(Scene.EMPTY, ((), (), (), ()))

    def lay_learning(self, layout: LearningLayout | int) -> None:
        """The deck laid out as learning frame ``layout`` (a frame number: laid right), each
        seat's cards in a row left to right as the seat sees them, upright or upside down, as
        ``docs/mat.md`` says; what lay there before comes back with :meth:`end_learning`."""
        if isinstance(layout, int):
            layout = LearningLayout(layout)
        with self._lock:
            if self._before_learning is None:
                self._before_learning = (self.scene, self.cards)
            self.learning = layout
            self.scene = Scene.LEARNING
            self.cards = layout.cards()
            rng = np.random.default_rng(int(self.rng.integers(1 << 30)))
            size = self.style.card_mm
            self._placements = tuple(
                tuple(place_row([size] * len(seat), s, self._base.mat, rng, 1.0, 6.0, 0.5)) if seat else ()
                for s, seat in enumerate(self.cards))
            self._bump()

    def end_learning(self) -> None:
        """The deck taken away after learning: the table as it was before it was laid out."""
        with self._lock:
            if self._before_learning is None:
                return
            self.scene, self.cards = self._before_learning
            self._before_learning = None
            self.learning = None
            self._placements = None
            self._bump()

    def set_score(self, score: tuple[int, int] | list[int]) -> None:
        """The stones moved to show ``score`` (piedras, amarracos, «dentro»)."""
        with self._lock:
            self.score = (int(score[0]), int(score[1]))
            self._bump()

    def _change(self, scene: str, cards: Any) -> None:
        with self._lock:
            if self._before_learning is not None:  # the deck lies out for learning: the hand waits for it
                self._before_learning = (scene, tuple(tuple(seat) for seat in cards))
                return
            self.scene = scene
            self.cards = tuple(tuple(seat) for seat in cards)
            self._bump()

    def _bump(self) -> None:
        self._version += 1
        self._moving = self.moving_frames
        self._scene_seed = int(self.rng.integers(1 << 30))
        self._cache.clear()

    # ------------------------------------------------------------------ the camera

    def stones(self) -> StoneCount:
        """The stones drawn: each seat's for the score (as many as its zone holds), some in the pool."""
        seats = expected_stones(self.score, self.target, self.piedras)
        cap = max_stones("seat", self._base.stone_mm)
        a, b, c, d = (min(cap, n) for n in seats)
        pool = min(max_stones("pool", self._base.stone_mm), max(0, STONES - a - b - c - d), 16)
        return StoneCount(pool, (a, b, c, d))

    def spec(self, px_per_mm: float, hand: bool = False) -> SceneSpec:
        stones = self.stones()
        seats, pool = stones.seats, stones.pool
        shown = self.scene in (Scene.DEALT, Scene.SHOWN, Scene.LEARNING)
        deck: DeckStyle | Mapping[Card, Image] = self.style if self.scene == Scene.SHOWN else backs(self.style)
        if self.scene == Scene.LEARNING and self.learning is not None:
            down = {self.learning.cards()[s][i] for s, i in self.learning.face_down}
            back = backs(self.style)
            deck = {c: back[c] if c in down else face for c, face in deck_faces(self.style).items()}
        return replace(self._base, cards=self.cards if shown else ((), (), (), ()), deck=deck,
                       placements=self._placements if self.scene == Scene.LEARNING else None,
                       px_per_mm=px_per_mm, pool_stones=pool, seat_stones=tuple(seats), hand_over_pool=hand,
                       card_width_mm=self.style.card_mm[0])

    def _render(self, px_per_mm: float, hand: bool) -> Image:
        key = (self._version, px_per_mm, hand)
        image = self._cache.get(key)
        if image is None:
            image = render_scene(self.spec(px_per_mm, hand), np.random.default_rng(self._scene_seed)).image
            self.renders += 1
            if self.frames is not None and px_per_mm == self.still_px_per_mm and not hand:
                self.frames.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(self.frames / f"still-{self.renders:04d}-{self.scene}.jpg"), image)
            self._cache[key] = image
        return image

    def grab(self) -> Frame | None:
        with self._lock:
            if self.unplugged:
                return None
            hand = self._moving > 0
            if hand:
                self._moving -= 1
            image = self._render(self.watch_px_per_mm, hand and self._moving % 2 == 0).copy()
            self._n += 1
            image[0, 0] = self._n % 256  # a live sensor never gives two identical frames
            return Frame(image, self._n, self._clock())

    def still(self) -> Image | None:
        with self._lock:
            if self.unplugged:
                return None
            if self.scene == Scene.LEARNING:  # learnt from, always at a reading's resolution
                return self._render(max(self.still_px_per_mm, self.STILL_PX_PER_MM), False)
            return self._render(self.still_px_per_mm, False)

    def close(self) -> None:
        with self._lock:
            self._cache.clear()


class LaidCardsReader:
    """Reads what the synthetic table lays face up without looking at the picture: the cards
    shown and the stones of its score, as a perfect camera would (where no picture is drawn at
    all, :class:`firmware.truth.TruthReader` reads the cards it is given).

    For long runs (``mus-table demo --reader truth``, ``mus-table bench soak``) where what is
    measured is the table's loop and journal, not the reading: it costs a lookup, where the
    real reader costs a tenth of a second. Cards face down or in hand read as none.
    """

    def __init__(self, table: SyntheticTable) -> None:
        self.table = table

    def read(self, frame: Image) -> Reading:
        t = self.table
        with t._lock:
            cards = t.cards if t.scene == Scene.SHOWN else ((), (), (), ())
            return Reading(tuple(tuple(seat) for seat in cards), t.stones())


class PlayersLost(MusTableError):
    """The players' hand and the table disagree on who speaks or what may be said (a bug:
    both come from the same betting machine)."""


@dataclass
class PlayedHand:
    """What the synthetic players dealt and said in one hand, and how the table took it."""

    record: HandRecord
    corrected: int
    """Cards the players had to correct (the camera misread or missed them)."""
    answer: Answer | None = None


class SyntheticPlayers:
    """Four players at the synthetic table: they deal, bet, show their cards, fix what the
    camera got wrong and confirm, through the same commands as people at a real table.

    They ask the table what it waits for (the speaker, the words it takes, the questions it
    asks) before each word, and a hand's cards and words follow from ``seed``, the partida
    and the hand's number: players started again on a table resumed from its journal (after
    a power cut, say) go on with the hand in play where it was, as the people would.
    """

    def __init__(self, loop: TableLoop, table: SyntheticTable, seed: int = 1, *,
                 pause: Callable[[float], None] = time.sleep, word_s: float = 0.0) -> None:
        self.loop = loop
        self.table = table
        self.seed = seed
        self._pause = pause
        self.word_s = word_s
        self.refused: list[str] = []
        """Every refusal the table gave them (none, when the players and the table agree)."""

    def deal(self, state: TableState) -> tuple[HandRecord, random.Random]:
        """The hand the players deal and play in the state's hand in play, and their dice for it."""
        rng = random.Random(f"{self.seed}:{state.partida.id}:{state.hand_no}")
        rec = HandRecord.from_json(random_record(rng, state.rules, mano=state.mano, score=list(state.score)))
        return rec, rng

    def _truth(self, rec: HandRecord, lance: Lance) -> list[bool]:
        j = Jugadas([[Card.parse(c).rank for c in seat] for seat in rec.cards], rec.rules, rec.mano)
        return [(s.pares_kind > 0) if lance == Lance.PARES else (s.juego > 0) for s in j.seats]

    def _submit(self, cmd: Command) -> TableState:
        try:
            self.loop.submit(cmd)
        except CommandRefused as exc:
            self.refused.append(f"{cmd.to_json()}: {exc}")
            raise
        return self.loop.state()

    def _say(self, rec: HandRecord, seat: int, word: str, n: int | None) -> None:
        """Say one word as a player would: first answer every «¿pares?» / «¿juego?» the table
        asks (truly: the cards are the record's), then say it when the table says it is that
        seat's turn and the word may be said."""
        bets = self.loop.state().bets
        for _ in range(len(Lance)):  # each answer may move the table on to the next question
            if not bets.asked:
                break
            for what in bets.asked:
                for s, says in enumerate(self._truth(rec, what)):
                    self._submit(Declare(s, what, says))
            bets = self.loop.state().bets
        if bets.asked or bets.speaker != seat or word not in bets.legal:
            raise PlayersLost(f"the table waits for {list(map(str, bets.asked)) or bets.speaker} "
                              f"(legal {list(map(str, bets.legal))}), the hand says seat {seat} {word}")
        self._submit(Say(seat, BetWord(word), n))

    def _words_left(self, rec: HandRecord, state: TableState) -> list[list[Any]]:
        """The hand's words not said yet; words said that are not the hand's are taken back first."""
        words = [w.to_json() for lance in rec.lances for w in rec.bets.get(lance, ())]
        said = [list(w) for ws in state.bets.words.values() for w in ws]
        same = 0
        while same < min(len(words), len(said)) and words[same] == said[same]:
            same += 1
        for _ in range(len(said) - same):
            self._submit(Unsay())
        return words[same:]

    def play_hand(self, wait_scored: Callable[[], TableState]) -> PlayedHand:
        """Deal, bet, show; ``wait_scored`` returns the state once the table has read the cards
        (the runner does it when the picture is still); then fix and confirm. A hand already
        under way (a table resumed from its journal) is taken up where it is."""
        s = self.loop.state()
        if self.table.score != s.score:
            self.table.set_score(s.score)
        rec, rng = self.deal(s)
        cards = [[Card.parse(c) for c in seat] for seat in rec.cards]
        if s.cards is None:
            self.table.deal(cards)
            self._pause(self.word_s)
            self.table.pick_up()
            for seat, word, *n in self._words_left(rec, s):
                self._say(rec, seat, word, n[0] if n else None)
                self._pause(self.word_s)
            self.table.show(cards)
            state = wait_scored()
        else:
            self.table.show(cards)
            state = s
        corrected = 0
        for _ in range(20):  # the players fix what the camera got wrong, card by card
            seen = [[str(c) for c in seat] for seat in state.cards or ((), (), (), ())]
            if state.phase is Phase.SCORED and _same(seen, rec.cards):
                break
            fix = _first_fix(seen, [list(seat) for seat in rec.cards])
            if fix is None:
                break
            try:
                state = self._submit(Correct(fix[0], fix[1], Card.parse(fix[2])))
            except CommandRefused:
                break
            corrected += 1
        played = PlayedHand(rec, corrected, state.answer)
        if state.phase is Phase.SCORED:
            by = state.confirm_by[rng.randrange(len(state.confirm_by))]
            state = self._submit(Confirm(by))
        if state.phase in (Phase.PLAYING, Phase.OVER):  # confirmed (here, or on the panel): the stones move
            self.table.gather()
            self.table.set_score(state.score)
        return played


def _same(seen: list[list[str]], truth: Any) -> bool:
    return [sorted(s) for s in seen] == [sorted(s) for s in truth]


def _first_fix(seen: list[list[str]], truth: list[list[str]]) -> tuple[int, int, str] | None:
    """The first correction that brings ``seen`` closer to ``truth``: (seat, index, card)."""
    for seat in range(4):
        have, want = seen[seat], truth[seat]
        missing = [c for c in want if c not in have]
        for i, c in enumerate(have):
            if c not in want and missing:
                return seat, i, missing[0]
        if missing and len(have) < 4:
            return seat, len(have), missing[0]
    return None


class SyntheticLearner:
    """The person who lays the deck out while the table learns it: whenever the table asks
    for learning frame k (``learning.frame`` in its state, from «Aprender baraja», a tab or a
    photo taken), the synthetic table shows that frame as ``docs/mat.md`` lays it; when
    learning ends, the deck is taken away.

    ``mistakes``: wrong layouts laid instead of the right one the first time their frame is
    asked for (a zone short of cards, a card face down); once a photo of that frame has been
    taken the person lays it right, as one does after reading the fault on the display.
    """

    def __init__(self, loop: TableLoop, table: SyntheticTable, mistakes: tuple[LearningLayout, ...] = ()) -> None:
        self.loop = loop
        self.table = table
        self.mistakes = {m.k: m for m in mistakes}
        self.laid: list[LearningLayout] = []
        """Every layout laid, in order."""
        self._stop = loop.bus.subscribe(self._on_event)

    def _on_event(self, event: TableEvent) -> None:
        learning = event.state.get("learning")
        if event.state.get("phase") != Phase.LEARNING.value or not learning:
            if self.table.learning is not None:
                self.table.end_learning()
            return
        k = int(learning.get("frame") or 0)
        wrong = self.mistakes.get(k)
        if wrong is not None and k in learning.get("done", []):  # its photo was taken: laid right now
            del self.mistakes[k]
            wrong = None
        layout = wrong or LearningLayout(k)
        if self.table.learning != layout:
            self.table.lay_learning(layout)
            self.laid.append(layout)

    def close(self) -> None:
        self._stop()
