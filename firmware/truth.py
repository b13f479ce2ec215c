"""A table with no camera: a reader that reads the truth, and players who deal, bet and confirm.

For what follows tables rather than reads them (the hub's tests and
``mus-table bench hub``): the real :class:`~firmware.table_loop.TableLoop`
scores every hand, the cards come from :func:`table.generate.random_record`
and are "read" exactly as dealt, nothing is rendered.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from firmware.table_commands import Confirm, NewPartida, Say
from firmware.table_loop import Phase, TableLoop
from table.cards import Card
from table.generate import random_record
from table.record import HandRecord
from vision.reading import Reading


class TruthReader:
    """Reads whatever :attr:`cards` says lies on the table."""

    def __init__(self) -> None:
        self.cards: list[list[str]] = [[], [], [], []]

    def read(self, frame: object) -> Reading:
        return Reading(tuple(tuple(Card.parse(c) for c in seat) for seat in self.cards))


class TruthPlayers:
    """Four players who play whole hands on a loop read by a :class:`TruthReader`."""

    def __init__(self, loop: TableLoop, reader: TruthReader, seed: int = 1) -> None:
        self.loop = loop
        self.reader = reader
        self.rng = random.Random(seed)

    def play_hand(self) -> dict[str, Any]:
        """One hand from the reading to confirmed (a new partida first when one is over);
        the state after it."""
        for _ in self.steps():
            pass
        return self.loop.snapshot()

    def steps(self) -> Iterator[None]:
        """The same hand one command at a time (a benchmark paces them): each ``next`` submits
        one command to the loop."""
        s = self.loop.state()
        if s.phase is Phase.OVER:
            self.loop.submit(NewPartida())
            s = self.loop.state()
            yield
        rec = HandRecord.from_json(random_record(self.rng, s.rules, mano=s.mano, score=list(s.score)))
        self.reader.cards = [list(c) for c in rec.cards]
        self.loop.read_now([b"frame"])  # type: ignore[list-item]
        yield
        for lance in rec.lances:  # the words after the reading: the cards answer «¿pares?» and «¿juego?»
            for w in rec.bets.get(lance, ()):
                self.loop.submit(Say(w.seat, w.word, w.n))
                yield
        by = self.loop.state().confirm_by
        self.loop.submit(Confirm(by[self.rng.randrange(len(by))]))
        yield
