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

# What both children start with: a table on a journal whose reader shows the cards it is told.
CHILD_START = r'''
import random, sys
from firmware.journal import Journal
from firmware.table_commands import Confirm, NewPartida, Reopen, Say
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
'''

# The child: a table that plays hands for ever from the journal's state, deterministically
# (the hand dealt depends only on the partida, the hand number, mano and score), printing a
# line after each confirmation returned (so: after its commit).
CHILD = CHILD_START + r'''
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


# The same table, that now and then closes its partida for a new one or re-opens a closed one
# between hands; it says its state after each change («ok KIND partida hands score»), and
# «try» before asking for one (a change in flight when the plug is pulled may or may not be kept).
CHILD_REOPEN = CHILD_START + r'''

def said(kind):
    s = loop.snapshot()
    print("ok" if kind != "start" else "start", kind, s["partida"]["id"], s["hands"], *s["score"], flush=True)

def change(kind, do):
    print("try", kind, flush=True)
    do()
    said(kind.split()[0])

said("start")
while True:
    s = loop.snapshot()
    key = f"{s['partida']['id']}-{s['hand_no']}-{s['mano']}-{s['score']}-{len(loop.partidas())}"
    rng = random.Random("choose" + key)
    fresh = s["cards"] is None and not any(s["bets"]["words"].values())
    if s["phase"] == "over" or (fresh and rng.random() < 0.4):
        closed = [p.id for p in loop.partidas() if p.reopenable]
        if closed and (s["phase"] == "over" or rng.random() < 0.6):
            k = rng.choice(closed)
            change(f"reopen {k}", lambda: loop.submit(Reopen(k), seq=s["seq"]))
        else:
            change("new_partida", lambda: loop.submit(NewPartida(), seq=s["seq"]))
        continue
    rec = HandRecord.from_json(random_record(random.Random(key), Rules(target=30), mano=s["mano"],
                                             score=s["score"]))
    if s["cards"] is None:
        reader.cards = [list(c) for c in rec.cards]
        change("read", lambda: loop.read_now([b"frame"]))
        continue
    done = sum(len(w) for w in s["bets"]["words"].values())
    for w in [w for lance in rec.lances for w in rec.bets.get(lance, ())][done:]:
        change("say", lambda: loop.submit(Say(w.seat, w.word, w.n)))
    change("confirm", lambda: loop.submit(Confirm(loop.snapshot()["confirm_by"][0])))
'''


def test_partidas_reopened_survive_sigkill_and_a_restart_resumes_the_partida_in_play(tmp_path: Path) -> None:
    """Killed anywhere, the restarted table is in the partida that was in play with its score
    (the state said last, or one change on when one was in flight); a reopen is never half kept."""

    def follows(start: list[str], ok: list[str], flight: list[str]) -> bool:
        """Whether the restarted state (``start``) is the last one said (``ok``), or the change in
        flight (``flight``, or none) kept whole."""
        p, hands = int(ok[2]), int(ok[3])
        q, now = int(start[2]), int(start[3])
        if start[2:] == ok[2:]:
            return True
        kind = flight[1] if flight else ""
        if kind == "confirm":
            return q == p and now == hands + 1
        if kind == "reopen":
            return q == int(flight[2]) != p
        if kind == "new_partida":
            return q > p and now == 0 and start[4:] == ["0", "0"]
        return False  # a word or a reading moves neither the partida, its hands nor its score

    path = tmp_path / "journal.sqlite"
    rng = random.Random(29)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    ok: list[str] = []
    flight: list[str] = []
    checked = reopens = 0
    for _ in range(8):
        child = subprocess.Popen([sys.executable, "-c", CHILD_REOPEN, str(path)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        lines = []
        for _ in range(rng.randrange(10, 120)):
            line = child.stdout.readline()
            if not line:
                raise AssertionError(child.stderr.read() if child.stderr else "child died")
            lines.append(line.split())
        child.send_signal(signal.SIGKILL)
        child.wait()
        lines += [line.split() for line in child.stdout if line.strip()]
        start = lines[0]
        assert start[0] == "start"
        if ok:
            assert follows(start, ok, flight), (start, ok, flight)
            checked += 1
        reopens += sum(1 for x in lines if x[:2] == ["ok", "reopen"])
        ok = next(x for x in reversed(lines) if x[0] in ("ok", "start"))
        flight = lines[-1] if lines[-1][0] == "try" else []
    assert checked == 7 and reopens >= 2
    journal = Journal(path)
    kinds = [kind for _, _, kind, _, _ in journal.entries()]
    assert kinds.count("reopen") >= reopens
    # the table on that journal: each partida's hands as the journal folds them by partida number
    loop = TableLoop(LoopSettings(rules=Rules(target=30), juegos=1), journal=journal)
    summaries = journal.partidas()
    assert {s.id for s in summaries} == {p.id for p in loop.partidas()}
    for s in summaries:
        assert [h.record.to_json() for h in loop.hands(s.id)] == [r.to_json() for r, _ in journal.hands(s.id)]
        assert s.in_play == (s.id == loop.partida_id)
        partida = Partida(Rules(target=30), 0, 1, 1)
        for record, answer in journal.hands(s.id):  # each hand follows the one before, reopen or not
            assert partida.play(record)[0].to_json() == answer
