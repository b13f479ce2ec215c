"""A pulled plug: the table is killed (SIGKILL) at random points while hands are confirmed, and
restarted many times; every hand it said was confirmed is in the journal, and no half-written one."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

from firmware.journal import Journal
from firmware.table_loop import LoopSettings, TableLoop
from table.match import Partida
from table.rules import Rules
from table.tanteo import score

# The child: a table that plays hands for ever from the journal's state, deterministically
# (the hand dealt depends only on the partida, the hand number, mano and score), printing a
# line after each confirmation returned (so: after its commit).
CHILD = r'''
import random, sys
from firmware.journal import Journal
from firmware.table_commands import Confirm, NewPartida, Say
from firmware.table_loop import LoopSettings, TableLoop
from table.cards import Card
from table.generate import random_record
from table.record import HandRecord
from table.rules import Rules
from vision.reading import Reading

class Reader:
    cards = [[], [], [], []]
    def read(self, frame):
        return Reading(tuple(tuple(Card.parse(c) for c in s) for s in self.cards))

reader = Reader()
loop = TableLoop(LoopSettings(rules=Rules(target=30), juegos=1), reader=reader, journal=Journal(sys.argv[1]))
while True:
    s = loop.snapshot()
    if s["phase"] == "over":
        loop.submit(NewPartida())
        continue
    rng = random.Random(f"{s['partida']['id']}-{s['hand_no']}-{s['mano']}-{s['score']}")
    rec = HandRecord.from_json(random_record(rng, Rules(target=30), mano=s["mano"], score=s["score"]))
    if s["cards"] is None:
        reader.cards = [list(c) for c in rec.cards]
        loop.read_now([b"frame"])
        print("read", flush=True)
        continue
    said = sum(len(w) for w in s["bets"]["words"].values())
    words = [w for lance in rec.lances for w in rec.bets.get(lance, ())]
    for w in words[said:]:
        loop.submit(Say(w.seat, w.word, w.n))
        print("word", flush=True)
    s = loop.snapshot()
    after = loop.submit(Confirm(s["confirm_by"][0]))
    print("confirmed", s["partida"]["id"], after["hands"] if after["partida"]["id"] == s["partida"]["id"]
          else "?", flush=True)
'''


def test_every_confirmed_hand_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    rng = random.Random(13)
    confirmed: list[tuple[int, int]] = []
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for _ in range(12):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        lines = rng.randrange(3, 60)
        for _ in range(lines):  # let it work a random while, then pull the plug wherever it is
            line = child.stdout.readline()
            if not line:
                raise AssertionError(child.stderr.read() if child.stderr else "child died")
            if line.startswith("confirmed"):
                _, p, n = line.split()
                confirmed.append((int(p), int(n)))
        child.send_signal(signal.SIGKILL)
        child.wait()
        for line in child.stdout:  # what it printed before dying counts too
            if line.startswith("confirmed"):
                _, p, n = line.split()
                confirmed.append((int(p), int(n)))
    assert len(confirmed) >= 10

    import sqlite3

    with sqlite3.connect(path) as db:  # the file itself is whole after every kill
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    journal = Journal(path)
    seqs = [seq for seq, *_ in journal.entries()]
    assert seqs == sorted(set(seqs))  # each entry once, in order, numbers never reused
    assert journal.reserved() > seqs[-1]  # the event numbers' mark is ahead of every entry
    by_partida = {s.id: s for s in journal.partidas()}
    for p, n in confirmed:
        assert by_partida[p].hands >= n, f"hand {n} of partida {p} was confirmed but is not in the journal"
    for p in by_partida:  # every hand kept is whole: its answer is its score, each follows the one before
        partida = Partida(Rules(target=30), 0, 1, 1)
        for record, answer in journal.hands(p):
            assert answer == score(record).to_json()
            assert partida.play(record)[0].to_json() == answer
    # and a table started on that journal resumes with exactly those hands, in every partida
    loop = TableLoop(LoopSettings(rules=Rules(target=30), juegos=1), journal=journal)
    for p in by_partida:
        assert [h.record.to_json() for h in loop.hands(p)] == [r.to_json() for r, _ in journal.hands(p)]
