import io
import json
import sys
from pathlib import Path
from typing import Any

from _engine_helpers import SPEC_RECORD

from firmware.cli import main


def test_explain_a_file(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(SPEC_RECORD))
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Mano el asiento 1.")
    assert "  Tres de duples (pares), para los asientos 2 y 4: van 3 a 3." in out
    assert out[-1].startswith("Quedan 3 a 9 (los asientos 1 y 3, tres piedras;")


def test_explain_refuses_bad_input_in_one_line(capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"format": "mus-hand/2"}')))
    assert main(["explain", "-"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == 'mus-table explain: «format» debe ser "mus-hand/1", no "mus-hand/2"\n'
