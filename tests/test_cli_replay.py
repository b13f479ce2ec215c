"""``mus-table replay``: a partida hand by hand; a hand that does not follow: one line, exit 2."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from _engine_helpers import SPEC_RECORD

from firmware.cli import main
from firmware.journal import Journal
from firmware.table_commands import Confirm, Say, UndoHand
from firmware.table_loop import LoopSettings, TableLoop
from table.cards import Card
from table.generate import random_record
from table.match import Partida
from table.record import HandRecord
from table.rules import Rules
from vision.reading import Reading


def partida_file(tmp_path: Path, seed: int = 4, juegos: int = 3,
                 **rules: object) -> tuple[Path, list[dict[str, object]]]:
    rng = random.Random(seed)
    p = Partida(Rules(**rules), juegos=juegos)  # type: ignore[arg-type]
    records = []
    while not p.over:
        rec = random_record(rng, p.rules, mano=p.mano, score=list(p.score))
        p.play(HandRecord.from_json(rec))
        records.append(rec)
    path = tmp_path / "partida.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path, records


def test_replay_prints_the_partida_hand_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, records = partida_file(tmp_path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Partida a 3 juegos, a 40 piedras")
    assert len(out) == len(records) + 2 and out[1].startswith("Mano 1 (línea 1), mano el asiento 1: ")
    assert sum("juego para los asientos " in line for line in out) >= 3
    assert "partida para los asientos " in out[-2] and out[-1].startswith("La pareja de los asientos ")


def test_replay_json_one_answer_per_hand_and_a_summary(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path, records = partida_file(tmp_path, 5, juegos=2, target=30)
    assert main(["replay", str(path), "--json", "--juegos", "2"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    *hands, summary = lines
    assert len(hands) == len(records) and summary["summary"]["format"] == {"juegos": 2, "vacas": 1} and summary["summary"]["over"]
    assert [h["hand"] for h in hands] == list(range(1, len(hands) + 1))
    assert all(set(h["answer"]) >= {"score", "winner", "lances", "tanteo"} for h in hands)
    assert hands[-1]["won"].get("partida") == summary["summary"]["winner"]


def test_replay_explain_and_one_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, records = partida_file(tmp_path)
    assert main(["replay", str(path), "--explain"]) == 0
    full = capsys.readouterr().out
    assert full.count("El tanteo, por su orden:") == len(records)
    assert main(["replay", str(path), "--hand", "2"]) == 0
    one = capsys.readouterr().out.splitlines()
    assert one[0] == "Mano 2 (línea 2):" and one[1].startswith("Mano el asiento 2.")
    assert main(["replay", str(path), "--hand", str(len(records) + 1)]) == 2
    assert capsys.readouterr().err == (f"mus-table replay: --hand {len(records) + 1}: la partida "
                                       f"tiene {len(records)} manos\n")


def test_one_hands_ruling_in_words_or_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, records = partida_file(tmp_path)
    assert main(["replay", str(path), "--hand", "3", "--explain"]) == 0
    words = capsys.readouterr().out.splitlines()
    assert words[0] == "Mano 3 (línea 3):" and "El tanteo, por su orden:" in "\n".join(words)
    assert main(["replay", str(path), "--hand", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == words
    assert main(["replay", str(path), "--json", "--hand", "3"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    one = json.loads(line)
    assert one["hand"] == 3 and one["line"] == 3 and one["mano"] == records[2]["mano"]
    assert main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[2]) == one


@pytest.mark.parametrize(("argv", "err"), [
    (["--hand", "0"], "mus-table replay: argumento --hand: debe ser 1 o más, no 0\n"),
    (["--juegos", "0"], "mus-table replay: argumento --juegos: debe ser de 1 a 1000, no 0\n"),
    (["--juegos", "abc"], "mus-table replay: argumento --juegos: no es un número entero: 'abc'\n"),
    (["--juegos", "abc\u200b"], "mus-table replay: argumento --juegos: no es un número entero: 'abc\\u200b'\n"),
    (["--json", "--explain"], "mus-table replay: argumento --explain: no va junto con --json\n"),
])
def test_a_bad_option_is_refused_in_one_line(tmp_path: Path, argv: list[str], err: str) -> None:
    path, _ = partida_file(tmp_path, juegos=1)
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "replay", str(path), *argv],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", err)


def test_an_empty_partida_is_called_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("")
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == "mus-table replay: la partida está vacía: no tiene manos\n"


def test_a_skipped_mano_is_named_though_its_words_follow_it(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path, records = partida_file(tmp_path)
    bad = [dict(r) for r in records]
    rec = bad[2]   # mano moved one seat on, its words left as they were said
    bad[2] = {**rec, "mano": (int(rec["mano"]) + 1) % 4}  # type: ignore[call-overload]
    path.write_text("".join(json.dumps(r) + "\n" for r in bad))
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == (f"mus-table replay: línea 3: «mano» debía ser {rec['mano']} "
                                       f"(el asiento {int(rec['mano']) + 1}), no {bad[2]['mano']}\n")


def test_a_hand_that_does_not_follow_is_refused_in_one_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    path, records = partida_file(tmp_path)
    bad = [dict(r) for r in records]
    rec = bad[6]
    wrong = (int(rec["mano"]) + 2) % 4  # type: ignore[call-overload]
    bad[6] = {**rec, "mano": wrong, "bets": {}}
    path.write_text("".join(json.dumps(r) + "\n" for r in bad))
    assert main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"mus-table replay: línea 7: «mano» debía ser {rec['mano']} "
                                 f"(el asiento {int(rec['mano']) + 1}), no {wrong}\n")
    path.write_text("".join(json.dumps(r) + "\n" for r in records + records[-1:]))
    assert main(["replay", str(path)]) == 2
    assert f"línea {len(records) + 1}: la partida acabó en la línea {len(records)}" in capsys.readouterr().err


def test_the_installed_command_refuses_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(SPEC_RECORD) + "\n" + json.dumps({**SPEC_RECORD, "mano": 1, "bets": {}}) + "\n")
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "mus-table replay: línea 2: «score» debía ser [3, 9], lo que llevaba la partida, no [0, 0]\n"


class _Reader:
    cards: list[list[str]] = [[], [], [], []]

    def read(self, frame: object) -> Reading:
        return Reading(tuple(tuple(Card.parse(c) for c in s) for s in self.cards))


def test_a_journal_export_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What the table journals (an undone hand included) is what replay reads."""
    journal = tmp_path / "j.sqlite"
    reader = _Reader()
    loop = TableLoop(LoopSettings(rules=Rules(target=30), juegos=2), reader=reader,
                     journal=Journal(journal))
    rng = random.Random(3)
    for n in range(400):
        s = loop.snapshot()
        if s["phase"] == "over":
            break
        rec = HandRecord.from_json(random_record(rng, loop.partida.rules, mano=s["mano"],
                                                 score=s["score"]))
        reader.cards = [list(c) for c in rec.cards]
        loop.read_now([b"frame"])  # type: ignore[list-item]
        for lance in rec.lances:
            for w in rec.bets.get(lance, ()):
                loop.submit(Say(w.seat, w.word, w.n))
        loop.submit(Confirm(loop.snapshot()["confirm_by"][0]))
        if n == 2:  # undone and confirmed again, as the journal's own test does
            loop.submit(UndoHand())
            loop.submit(Confirm(loop.snapshot()["confirm_by"][0]))
    assert loop.snapshot()["phase"] == "over"
    assert main(["journal", "export", str(journal)]) == 0
    exported = tmp_path / "partida.jsonl"
    exported.write_text(capsys.readouterr().out)
    assert main(["replay", str(exported), "--juegos", "2", "--json"]) == 0
    *hands, summary = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(hands) == len(loop.hands()) and summary["summary"]["winner"] == loop.partida.winner
    assert [h["answer"] for h in hands] == [h.answer.to_json() for h in loop.hands()]
