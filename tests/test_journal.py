"""The journal: durable, append-only, read back as partidas and as mus-hand/1 records."""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from firmware.cli import main
from firmware.journal import Journal, JournalError
from firmware.table_commands import Confirm, NewPartida, Say, UndoHand
from firmware.table_loop import LoopSettings, TableLoop
from table.cards import Card
from table.generate import random_record
from table.match import read_partida
from table.record import HandRecord
from table.rules import Rules
from vision.reading import Reading


class Reader:
    cards: list[list[str]] = [[], [], [], []]

    def read(self, frame: object) -> Reading:
        return Reading(tuple(tuple(Card.parse(c) for c in s) for s in self.cards))


def play_hands(loop: TableLoop, reader: Reader, n: int, rng: random.Random) -> None:
    for _ in range(n):
        s = loop.snapshot()
        if s["phase"] == "over":
            return
        rec = HandRecord.from_json(random_record(rng, loop.partida.rules, mano=s["mano"], score=s["score"]))
        reader.cards = [list(c) for c in rec.cards]
        loop.read_now([b"frame"])  # type: ignore[list-item]
        for lance in rec.lances:
            for w in rec.bets.get(lance, ()):
                loop.submit(Say(w.seat, w.word, w.n))
        loop.submit(Confirm(loop.snapshot()["confirm_by"][0]))


def test_the_journal_is_wal_and_full_sync(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    assert j._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_nothing_is_deleted_and_partidas_list_and_export(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    reader = Reader()
    loop = TableLoop(LoopSettings(rules=Rules(target=30), juegos=1), reader=reader, journal=Journal(path))
    rng = random.Random(5)
    play_hands(loop, reader, 3, rng)
    loop.submit(UndoHand())
    loop.submit(Confirm(loop.snapshot()["confirm_by"][0]))
    play_hands(loop, reader, 200, rng)
    assert loop.snapshot()["phase"] == "over"
    loop.submit(NewPartida(names=("Jon", "Iker", "Ane", "")))
    play_hands(loop, reader, 2, rng)
    j = Journal(path)
    kinds = [k for _, _, k, _, _ in j.entries()]
    assert kinds.count("undo_hand") == 1 and kinds.count("confirm") == len(loop.hands(1)) + 2 + 1
    first, second = j.partidas()
    assert (first.id, first.hands, first.winner is not None) == (1, len(loop.hands(1)), True)
    assert sum(first.juegos) == 1 and first.result.startswith("ganada por los asientos ")
    assert (second.id, second.hands, second.winner) == (2, len(loop.hands()), loop.partida.winner)
    assert (first.names, second.names) == ((), ("Jon", "Iker", "Ane", ""))
    won = replace(second, winner=0)  # the pair said as on the display: by its players where both have names
    assert (won.result, replace(won, winner=1).result) == ("ganada por Jon y Ane", "ganada por los asientos 2 y 4")
    # the export is the partida as JSON lines the engine replays (what mus-table replay reads)
    lines = "".join(json.dumps(r) + "\n" for r in j.export(1))
    partida, answers = read_partida(lines, juegos=1)
    assert partida.winner == first.winner and len(answers) == first.hands
    assert [r.to_json() for r, _ in j.hands(2)] == j.export()  # the last partida by default


def test_the_cli_lists_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    reader = Reader()
    loop = TableLoop(LoopSettings(), reader=reader, journal=Journal(path))
    play_hands(loop, reader, 2, random.Random(8))
    assert main(["journal", "list", str(path)]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["id"] == 1 and json.loads(line)["hands"] == 2
    assert main(["journal", "export", str(path), "--partida", "1"]) == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [HandRecord.from_json(r).to_json() for r in records] == [h.record.to_json() for h in loop.hands()]
    exported = tmp_path / "partida.jsonl"
    exported.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["replay", str(exported), "--json"]) == 0  # the replay command takes the export as it is
    replayed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [a["score"] for a in replayed[:2]] == [list(h.answer.score) for h in loop.hands()]
    assert main(["journal", "export", str(path), "--partida", "7"]) == 2
    assert "no tiene la partida 7" in capsys.readouterr().err
    assert main(["journal", "list", str(tmp_path / "none.sqlite")]) == 2
    (tmp_path / "junk").write_text("hello")
    assert main(["journal", "list", str(tmp_path / "junk")]) == 2
    assert "no es un diario de la mesa" in capsys.readouterr().err


def test_a_failed_write_raises_and_keeps_nothing(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    j.append(1, 1, "new_partida", {"kind": "new_partida"})
    with pytest.raises(JournalError):
        j.append(1, 1, "say", {"kind": "say"})  # the same seq twice: refused by the database
    assert [seq for seq, *_ in j.entries()] == [1]
    ro = sqlite3.connect(tmp_path / "j.sqlite")
    assert ro.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1


FULL_DISK_CHILD = r'''
import os, sys
from firmware.journal import Journal
from firmware.table_commands import Say, Unsay
from firmware.table_loop import LoopSettings, TableLoop
d = sys.argv[1]
loop = TableLoop(LoopSettings(), journal=Journal(f"{d}/j.sqlite"))
fd = os.open(f"{d}/filler", os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b"x" * 4096)
except OSError:
    os.close(fd)
for _ in range(3):
    loop.submit(Say(0, "paso"))
    loop.submit(Unsay())
s = loop.snapshot()
print("full", [f["kind"] for f in s["faults"]], s["pending_entries"])
os.remove(f"{d}/filler")
print("freed", loop.flush(), loop.snapshot()["faults"], loop.snapshot()["pending_entries"])
again = TableLoop(LoopSettings(), journal=Journal(f"{d}/j.sqlite")).snapshot()
before = loop.snapshot()
print("resumed", {k: v for k, v in again.items() if k != "seq"} == {k: v for k, v in before.items() if k != "seq"},
      len(Journal(f"{d}/j.sqlite").entries()))
'''


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a real full disk needs root and unshare (a tmpfs in a private mount namespace)")
def test_a_really_full_disk_is_a_fault_keeps_everything_and_recovers(tmp_path: Path) -> None:
    """A 600 KB tmpfs, mounted in a mount namespace of the test's own, filled up: SQLite's own
    «disk is full» becomes the disk fault, the entries wait in memory, and once space is freed
    they are written and a restarted table is the same table."""
    disk = tmp_path / "disk"
    disk.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    script = (f"mount -t tmpfs -o size=600k tmpfs {disk} && "
              f"{sys.executable} -c {shlex.quote(FULL_DISK_CHILD)} {disk}")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, timeout=120, env=env)
    if done.returncode != 0 and "mount" in done.stderr and "full" not in done.stdout:
        pytest.skip(f"no tmpfs here: {done.stderr.strip()[:80]}")
    assert done.returncode == 0, done.stderr
    full, freed, resumed = done.stdout.splitlines()
    assert full == "full ['disk'] 6"  # every word of the table kept, waiting for the disk
    assert freed == "freed True [] 0"
    assert resumed == "resumed True 7"  # the new partida and the six words, on the disk


def test_a_journal_written_before_the_hand_moved_to_table_replays_to_the_same_table() -> None:
    """The entries a table journaled before ``table/hand.py`` (words, declarations, one-step lances,
    readings, corrections, an undo, a new partida: ``tests/data/journal-2026-12-01.json``, written
    by the loop of commit 0391f1a) replay to the state and hands that loop had."""
    saved = json.loads((Path(__file__).parent / "data" / "journal-2026-12-01.json").read_text(encoding="utf-8"))

    class Old:
        def entries(self) -> list[tuple[int, int, str, str, dict[str, Any]]]:
            return [tuple(e) for e in saved["entries"]]  # type: ignore[misc]

        def append(self, seq: int, partida: int, kind: str, body: dict[str, Any]) -> None:
            raise AssertionError("a replay writes nothing")

    loop = TableLoop(LoopSettings(), journal=Old())
    now, then = loop.snapshot(), saved["state"]
    for key in ("seq", "reading"):  # numbered anew; the reading is not journaled
        then.pop(key)
    assert {key: now.get(key) for key in then} == then  # every key the state had keeps its value (keys added since aside)
    assert [[h.n, h.record.to_json(), h.answer.to_json()] for h in loop.hands(1)] == saved["hands"]
    assert len(loop.hands(1)) == 11 and loop.partida_id == 2
