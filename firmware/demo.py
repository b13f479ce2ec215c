"""The demo: the whole product on a laptop, the synthetic table playing hands by itself.

The same loop as a real table (:func:`firmware.table_app.build_table`): the
synthetic table (``models.scene``) is the camera, the watcher sees the cards
lie still, the reader reads them, the loop scores the hand; four synthetic
players deal, bet, fix what the camera got wrong and confirm, through the same
commands people use. With the web display (``web/``) it is served on
localhost; without it, the demo narrates each hand as a juez de mesa would.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from firmware.config import CameraSection, PanelSection, TableConfig, TableSection, WebSection
from firmware.events import EventKind
from firmware.state import TableState
from firmware.synthetic import (
    LaidCardsReader,
    LearningLayout,
    PlayedHand,
    PlayersLost,
    SyntheticLearner,
    SyntheticPlayers,
    SyntheticTable,
)
from firmware.table_app import Table, build_table
from firmware.table_commands import CommandRefused, Read
from firmware.table_loop import ConfirmedHand, Phase, Reader
from table.errors import MusTableError
from table.explain import explain
from table.people import pair
from table.rules import Rules

log = logging.getLogger(__name__)


class DemoStuck(MusTableError):
    """The synthetic table did not get read in time (the demo says so and stops)."""


def demo_config(rules: Rules | None = None, port: int = 8000, seed: int = 1, pin: str = "") -> TableConfig:
    """A laptop's table: the synthetic camera, no panel, the display on localhost; ``pin``: the
    display's PIN (empty: a random one, :func:`web.security.random_pin`, printed by the command)."""
    if not pin:
        from web.security import random_pin  # noqa: PLC0415

        pin = random_pin()
    return TableConfig(table=TableSection(name="demo", pin=pin, journal=":none:"), rules=rules or Rules(),
                       camera=CameraSection(source="synthetic", seed=seed, fps=30.0),
                       panel=PanelSection(enabled=False), web=WebSection(host="127.0.0.1", port=port))


@dataclass
class Demo:
    """A demo table and its players; :meth:`play` plays hands, :attr:`played` keeps them."""

    table: Table
    players: SyntheticPlayers
    synthetic: SyntheticTable
    learner: SyntheticLearner | None = None
    """Lays the deck out as the display asks when people learn it (``docs/mat.md``)."""
    played: list[PlayedHand] = field(default_factory=list)
    timeout_s: float = 60.0
    CROSSED = 20
    """Times in a row people at the display may cross the players before the demo stops."""

    def wait_read(self) -> TableState:
        """The state once the runner has read the shown cards (scored or impossible)."""
        loop = self.table.loop
        seq = loop.bus.last_seq
        phase = loop.phase
        waited = 0.0
        while phase not in (Phase.SCORED, Phase.IMPOSSIBLE):
            if phase is Phase.LEARNING:  # people learn a deck on the display: however long it takes
                waited = 0.0
            if waited >= self.timeout_s:
                raise DemoStuck(f"the table was not read in {self.timeout_s:.0f} s (phase {phase})")
            events = loop.bus.wait(seq, 1.0)
            waited += 1.0 if not events else 0.0
            if events:
                seq = events[-1].seq
                phase = loop.phase
                if events[-1].kind is EventKind.READ and phase is Phase.PLAYING:
                    self._press_read()  # nothing read for sure: a player presses «leer»
                    phase = loop.phase
        return loop.state()

    def wait_learnt(self, stop: threading.Event | None = None) -> bool:
        """While people learn a deck on the display, the players wait (the learner lays it
        out); True if they waited."""
        loop = self.table.loop
        waited = False
        while loop.phase is Phase.LEARNING and not (stop is not None and stop.is_set()):
            waited = True
            loop.bus.wait(loop.bus.last_seq, 1.0)
        return waited

    def _press_read(self) -> None:
        """«leer», unless the camera has just started reading by itself (then the press is not needed)."""
        loop = self.table.loop
        try:
            loop.submit(Read())
        except CommandRefused:
            if loop.phase is not Phase.READING:
                raise

    def play(self, hands: int, on_hand: Callable[[PlayedHand, TableState], None] | None = None,
             stop: threading.Event | None = None, *, shared: bool = False) -> list[PlayedHand]:
        """Play up to ``hands`` hands (fewer when the partida is won).

        ``shared``: people may tap the display meanwhile (the demo with its display). A word
        or a confirmation of theirs that crosses the players' is no reason to stop: the
        players take the hand up again as the table has it (a word that is not theirs is
        taken back). Without it, the first disagreement stops the demo (a bug)."""
        crossed = played = 0
        while played < hands:
            if stop is not None and stop.is_set():
                break
            if self.table.loop.phase is Phase.OVER:
                break
            if self.wait_learnt(stop):
                continue
            try:
                hand = self.players.play_hand(self.wait_read)
            except (PlayersLost, CommandRefused) as exc:
                if self.table.loop.phase is Phase.LEARNING:  # the table stopped for a deck: no crossing
                    continue
                crossed += 1
                if not shared or crossed > self.CROSSED:
                    raise
                log.info("the players take up the hand again: %s", exc)
                continue
            crossed = 0
            played += 1
            self.played.append(hand)
            if on_hand is not None:
                on_hand(hand, self.table.loop.state())
        return self.played


def make_demo(*, seed: int = 1, rules: Rules | None = None, journal: Path | None = None, port: int = 8000,
              reader: Reader | None = None, word_s: float = 0.0, frames: Path | None = None,
              truth: bool = False, learning_mistakes: bool = False) -> Demo:
    """A demo table; ``truth``: read with :class:`~firmware.synthetic.LaidCardsReader` (what was laid,
    without looking at the picture) instead of the camera's reader. A deck is learnt on its
    display as at a real table (:class:`~firmware.synthetic.SyntheticLearner` lays each frame);
    ``learning_mistakes``: photo 1 is first laid with two cards missing from seat 2's zone,
    photo 2 with a card face down."""
    config = demo_config(rules, port, seed)
    if journal is not None:
        config = replace(config, table=replace(config.table, journal=str(journal)))
    # the truth reader never looks at the still: it is drawn as small as the frames watched, and no
    # hands are drawn crossing the felt (the change of picture itself is the motion the watcher sees)
    still_px = SyntheticTable.WATCH_PX_PER_MM if truth else SyntheticTable.STILL_PX_PER_MM
    synthetic = SyntheticTable(seed, target=config.rules.target, piedras=config.seats.piedras, frames=frames,
                               still_px_per_mm=still_px, moving_frames=0 if truth else 3)
    if truth:
        reader = LaidCardsReader(synthetic)
    # the truth reader runs the camera as fast as frames come (no frame rate to wait for)
    table = build_table(config, source=synthetic, reader=reader, panel=False, fps=0.0 if truth else None)
    learner = SyntheticLearner(table.loop, synthetic, LEARNING_MISTAKES if learning_mistakes else ())
    return Demo(table, SyntheticPlayers(table.loop, synthetic, seed, word_s=word_s), synthetic, learner)


LEARNING_MISTAKES = (LearningLayout(0, missing=((1, 2),)), LearningLayout(1, face_down=((2, 2),)))
"""What ``mus-table demo --learning-mistakes`` lays wrong: photo 1 short of two cards in seat 2's zone,
photo 2 with the third card of seat 3's zone face down."""


def narrate(hand: PlayedHand, confirmed: ConfirmedHand | None, state: TableState, number: int) -> list[str]:
    """What the demo prints for one hand: the cards, what the camera needed, the juez's tanteo."""
    rec = hand.record
    lines = [f"— Mano {number} —", "Cartas: " + "  ".join(" ".join(seat) for seat in rec.cards)]
    if hand.corrected:
        lines.append(f"La cámara no estuvo segura de {hand.corrected} carta(s): los jugadores las corrigieron.")
    else:
        lines.append("La cámara leyó las dieciséis cartas.")
    if confirmed is not None:
        lines += explain(confirmed.record, confirmed.answer, state.names)
    partida = state.partida
    lines.append(f"Juegos {partida.juegos[0]}-{partida.juegos[1]}; van {state.score[0]} a {state.score[1]}.")
    if partida.over:
        lines.append(f"¡Partida para {pair(partida.winner or 0, state.names)}!")
    return lines
