"""The examples of the contracts in ``docs/`` are what the commands really answer.

``docs/hand-record.md`` and ``docs/mat.md`` are written so that someone can
build a compatible scorer or reader from them alone, so their examples must
stay true: each answer shown is compared with what ``mus-table score`` (or
``mus-table read --json``) prints for the record (or frame) the text describes,
and the ``>>>`` examples run as doctests.
"""

from __future__ import annotations

import copy
import doctest
import json
import re
from pathlib import Path
from typing import Any

import pytest

from firmware.cli import main

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _blocks(name: str, lang: str = "json") -> list[Any]:
    """The ``lang`` code blocks of a doc, in order; JSON fragments (``"key": value``) become objects."""
    text = (DOCS / name).read_text(encoding="utf-8")
    out: list[Any] = []
    for body in re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S):
        if lang != "json":
            out.append(body)
            continue
        try:
            out.append(json.loads(body))
        except json.JSONDecodeError:
            out.append(json.loads("{" + body + "}"))
    return out


(RECORD, DECLARED, ANSWER, RAISE_BETS, ORDAGO_ANSWER, DEJE_ANSWER, HIDDEN_ANSWER, REAL_ANSWER,
 FALSE_PARES, FALSE_PARES_ANSWER) = _blocks("hand-record.md")


def _score(tmp_path: Path, capsys: pytest.CaptureFixture[str], record: dict[str, Any]) -> Any:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["score", str(path)]) == 0
    return json.loads(capsys.readouterr().out)


def _with(**changes: Any) -> dict[str, Any]:
    record = copy.deepcopy(RECORD)
    record.update(copy.deepcopy(changes))
    return record


def test_the_record_and_its_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert RECORD["format"] == "mus-hand/1"
    assert _score(tmp_path, capsys, RECORD) == ANSWER


def test_a_refused_raise_then_an_ordago(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _score(tmp_path, capsys, _with(score=[30, 36], **RAISE_BETS)) == ORDAGO_ANSWER


def test_a_deje_that_wins_the_juego(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bets = {"grande": RAISE_BETS["bets"]["grande"],
            "chica": [[0, "paso"], [1, "envido", 2], [2, "quiero"]]}
    assert _score(tmp_path, capsys, _with(score=[35, 20], bets=bets)) == DEJE_ANSWER


def test_a_hidden_juego_is_listed_in_mistakes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _score(tmp_path, capsys, _with(**DECLARED)) == HIDDEN_ANSWER
    free = _with(**DECLARED)
    free["rules"] = {**free["rules"], "penalties": "none"}
    assert _score(tmp_path, capsys, free) == {**ANSWER, "mistakes": HIDDEN_ANSWER["mistakes"]}


def test_a_false_pares_si(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _score(tmp_path, capsys, FALSE_PARES) == FALSE_PARES_ANSWER


def test_the_31_real(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cards = [["12o", "11c", "1e", "10b"], ["7o", "7c", "7e", "10o"],
             ["4o", "5c", "6e", "2b"], ["4c", "5o", "6c", "1c"]]
    record = _with(rules={"real": True}, cards=cards, bets={})
    assert _score(tmp_path, capsys, record) == REAL_ANSWER
    rey = _score(tmp_path, capsys, _with(rules={"real": "rey"}, cards=cards, bets={}))
    assert rey["lances"]["juego"] == {"winner": 0, "how": "paso", "stones": 3}


def test_the_errors_shown_are_the_errors_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (DOCS / "hand-record.md").read_text(encoding="utf-8")
    shown = re.search(r"^\$ mus-table score bad\.json\n(.*)$", text, flags=re.M)
    assert shown is not None
    bad = _with(bets={"grande": [[0, "envido", 2], [1, "paso"]]})
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["score", str(path)]) == 2
    assert capsys.readouterr().err.strip() == shown.group(1)


def test_the_mat_examples_run() -> None:
    failures, tried = doctest.testfile(str(DOCS / "mat.md"), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_the_reading_shown_is_what_the_reader_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    make_frame, read = (line for line in _blocks("mat.md", "sh")[0].splitlines() if line)
    assert make_frame.startswith('python3 -c "') and read == "mus-table read --json frame.png"
    monkeypatch.chdir(tmp_path)
    exec(make_frame.removeprefix('python3 -c "').removesuffix('"'), {})
    assert main(["read", "--json", "frame.png"]) == 0
    shown = next(b for b in _blocks("mat.md") if "markers" in b)
    assert json.loads(capsys.readouterr().out) == shown
    # and every card of it is read far from the bar, so that no CPU reads it otherwise
    import cv2

    from vision.classifier import DEFAULT_THRESHOLD, KERNEL_MARGIN
    from vision.reading import TableReader

    reader = TableReader()
    reader.read(cv2.imread("frame.png"))
    probabilities = [p.probability for p in reader.detail.predictions if p is not None]
    assert len(probabilities) == 16
    assert all(abs(p - DEFAULT_THRESHOLD) > KERNEL_MARGIN for p in probabilities)
