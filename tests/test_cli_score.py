"""``mus-table score``: the answer as JSON; invalid input: one line, exit 2, no traceback."""

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _engine_helpers import SPEC_RECORD

from firmware.cli import main


def run(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        stdin: bytes | None = None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_score_a_file(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(SPEC_RECORD))
    code, out, err = run(["score", str(path)], capsys, monkeypatch)
    assert code == 0 and err == ""
    answer = json.loads(out)
    assert answer["score"] == [3, 9] and answer["winner"] is None
    assert answer["tanteo"][2]["why"] == "tres de duples"


def test_score_stdin(capsys: Any, monkeypatch: Any) -> None:
    code, out, _ = run(["score", "-"], capsys, monkeypatch, json.dumps(SPEC_RECORD).encode())
    assert code == 0 and json.loads(out)["lances"]["juego"]["how"] == "not bet"


@pytest.mark.parametrize(("data", "message"), [
    (b"{", "bad JSON"),
    (b"", "bad JSON"),
    (b"\xff", "not UTF-8"),
    (json.dumps({**SPEC_RECORD, "mano": 7}).encode(), "mano must be a seat 0-3, not 7"),
    (json.dumps({**SPEC_RECORD, "bets": {"grande": [[1, "paso"]]}}).encode(),
     "it is seat 0's turn, not seat 1's"),
])
def test_invalid_input_is_one_line_and_exit_2(data: bytes, message: str, capsys: Any,
                                              monkeypatch: Any) -> None:
    code, out, err = run(["score", "-"], capsys, monkeypatch, data)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("mus-table score: ")


def test_missing_file(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    code, _, err = run(["score", str(tmp_path / "nope.json")], capsys, monkeypatch)
    assert code == 2 and "cannot read" in err and err.count("\n") == 1


def test_jsonl_goes_on_after_a_bad_line(capsys: Any, monkeypatch: Any) -> None:
    good = json.dumps(SPEC_RECORD)
    data = "\n".join([good, "{bad", "", json.dumps({**SPEC_RECORD, "score": [40, 0]}), good])
    code, out, _ = run(["score", "--jsonl", "-"], capsys, monkeypatch, data.encode())
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and len(lines) == 4
    assert lines[0]["score"] == [3, 9] and lines[3]["score"] == [3, 9]
    assert lines[1] == {"error": lines[1]["error"]} and lines[1]["error"].startswith("line 2: bad JSON")
    assert lines[2]["error"].startswith("line 4: score: pair 0 has 40")


def test_jsonl_all_good_exits_0(capsys: Any, monkeypatch: Any) -> None:
    data = (json.dumps(SPEC_RECORD) + "\n") * 3
    code, out, _ = run(["score", "--jsonl", "-"], capsys, monkeypatch, data.encode())
    assert code == 0 and len(out.splitlines()) == 3


def test_the_installed_command_never_prints_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "mus-hand/1", "mano": 0, "score": [0, 0], "cards": [[]]}')
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "score", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "mus-table score: cards must be a list of four seats' cards, not 1 seats"
