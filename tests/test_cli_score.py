"""``mus-table score``: the answer as JSON; invalid input: one line, exit 2, no traceback."""

import contextlib
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _engine_helpers import SPEC_RECORD
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.cli import main
from table.generate import random_record


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
    (b"{", "JSON no válido: falta un nombre de clave entre comillas dobles en la línea 1, columna 2"),
    (b"", "vacío: no hay ningún registro"),
    (b"\xff", "JSON no válido: no es texto UTF-8"),
    (json.dumps({**SPEC_RECORD, "mano": 7}).encode(), "«mano» es un asiento de 0 a 3 (0 es el asiento 1), no 7"),
    (json.dumps({**SPEC_RECORD, "bets": {"grande": [[1, "paso"]]}}).encode(),
     'bets.grande, palabra 1 [1, "paso"]: en grande habla el asiento 1, no el asiento 2'),
])
def test_invalid_input_is_one_line_and_exit_2(data: bytes, message: str, capsys: Any,
                                              monkeypatch: Any) -> None:
    code, out, err = run(["score", "-"], capsys, monkeypatch, data)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("mus-table score: ")


def test_missing_file(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    code, _, err = run(["score", str(tmp_path / "nope.json")], capsys, monkeypatch)
    assert code == 2 and "no se puede leer" in err and err.count("\n") == 1


def test_jsonl_goes_on_after_a_bad_line(capsys: Any, monkeypatch: Any) -> None:
    good = json.dumps(SPEC_RECORD)
    data = "\n".join([good, "{bad", "", json.dumps({**SPEC_RECORD, "score": [40, 0]}), good])
    code, out, _ = run(["score", "--jsonl", "-"], capsys, monkeypatch, data.encode())
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and len(lines) == 4
    assert lines[0]["score"] == [3, 9] and lines[3]["score"] == [3, 9]
    assert lines[1] == {"error": lines[1]["error"]} and lines[1]["error"].startswith("line 2: bad JSON")
    assert lines[2]["error"].startswith("line 4: score: pair 0 has 40")


def test_jsonl_an_invisible_or_line_breaking_character_is_escaped(capsys: Any, monkeypatch: Any) -> None:
    # U+0085 and U+2028 end a line for many readers: a message quoting one stays one line
    bad = json.dumps({**SPEC_RECORD, "bets": "\x85\u2028\u200b"}, ensure_ascii=False)
    data = "\n".join([bad, json.dumps(SPEC_RECORD)])
    code, out, _ = run(["score", "--jsonl", "-"], capsys, monkeypatch, data.encode())
    lines = out.splitlines()
    assert code == 2 and len(lines) == 2
    assert json.loads(lines[0])["error"] == ('line 1: bets must be an object of lances, not '
                                             '"\\u0085\\u2028\\u200b"')


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
    assert done.stderr.strip() == ("mus-table score: «cards» son las cartas de los cuatro asientos "
                                   "(cuatro listas), no 1 listas")


# -- no input can crash a command: score, score --jsonl and explain --------------------

def _run_captured(args: list[str], data: bytes) -> tuple[int, str, str]:
    """Run a command in-process on ``data`` as standard input (hypothesis needs no fixtures)."""
    out, err = io.StringIO(), io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


HUGE = "7" * 5000  # more digits than Python prints by default
SURROGATES = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3)
garbage = st.recursive(
    st.none() | st.booleans() | st.integers(-(10 ** 40), 10 ** 40) | st.just(HUGE)
    | st.sampled_from(["paso", "envido", "quiero", "ordago", "12o", "grande", "pares", "mundial"])
    | st.text(max_size=8) | SURROGATES,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["format", "mano", "bets", "cards", "rules", "grande"])
                      | SURROGATES, children, max_size=4),
    max_leaves=12,
)


def _put(rng: random.Random, obj: Any, value: Any) -> Any:
    """``obj`` with one node somewhere replaced by ``value``."""
    if isinstance(obj, dict) and obj and rng.random() < 0.75:
        key = rng.choice(list(obj))
        return {**obj, key: _put(rng, obj[key], value)}
    if isinstance(obj, list) and obj and rng.random() < 0.75:
        i = rng.randrange(len(obj))
        return obj[:i] + [_put(rng, obj[i], value)] + obj[i + 1:]
    return value


def _text(obj: Any) -> str:
    return json.dumps(obj).replace(f'"{HUGE}"', HUGE)  # the huge integer as a JSON number


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), garbage, st.integers(0, 3))
def test_fuzz_the_three_commands_never_crash(seed: int, value: Any, nesting: int) -> None:
    rng = random.Random(seed)
    good = random_record(rng, lies=0.2)
    bad = _put(rng, good, value)
    lines = [_text(good), _text(bad), "[" * (3000 * nesting) + "]" * (3000 * nesting),
             '{"format": "mus-hand/1", "\\ud800": 1}', _text(good)]
    for args in (["score", "-"], ["explain", "-"]):
        code, out, err = _run_captured(args, lines[1].encode())
        assert code in (0, 2)
        if code == 2:
            assert out == "" and err.count("\n") == 1 and len(err) < 400
            assert err.startswith(f"mus-table {args[0]}: ")
    code, out, err = _run_captured(["score", "--jsonl", "-"], "\n".join(lines).encode())
    answers = [json.loads(x) for x in out.splitlines()]
    assert code == 2 and err == "" and len(answers) == (5 if nesting else 4)
    assert "score" in answers[0] and "score" in answers[-1]
    assert all(len(a["error"]) < 400 for a in answers if "error" in a)


def test_a_lone_surrogate_or_a_huge_envite_is_one_bad_line(capsys: Any, monkeypatch: Any) -> None:
    good = json.dumps(SPEC_RECORD)
    word = json.dumps({**SPEC_RECORD, "bets": {"grande": [[0, "\ud800"]]}})
    key = json.dumps({**SPEC_RECORD, "\udfff": 0})
    envite = json.dumps({**SPEC_RECORD, "bets": {"grande": [[0, "envido", 77]]}}).replace("77", HUGE)
    big = json.dumps({**SPEC_RECORD, "bets": {"grande": [[0, "envido", 1001]]}})
    card = json.dumps({**SPEC_RECORD, "cards": [["x" * 10_000_000, "3c", "1e", "4b"],
                                                *SPEC_RECORD["cards"][1:]]})
    data = "\n".join([word, key, envite, big, card, good]).encode()
    code, out, _ = run(["score", "--jsonl", "-"], capsys, monkeypatch, data)
    errors = [json.loads(x).get("error", "") for x in out.splitlines()]
    assert code == 2 and len(errors) == 6 and errors[-1] == ""
    assert errors[0] == ('line 1: bets.grande, word 1 [0, "\\ud800"]: unknown word "\\ud800" '
                         "(words: paso, envido, quiero, no quiero, ordago)")
    assert errors[1].startswith('line 2: unknown key "\\udfff"')
    assert errors[2] == "line 3: bad JSON: a number of more than 4300 digits"
    assert errors[3].endswith("envido takes a whole number from 2 to 1000, not 1001")
    assert errors[4].startswith('line 5: cards: seat 0: not a card: "xxxx') and len(errors[4]) < 120
    for command in ("score", "explain"):
        for line in (word, envite, big, card):
            code, out, err = run([command, "-"], capsys, monkeypatch, line.encode())
            assert code == 2 and out == "" and err.count("\n") == 1 and len(err) < 200


def test_jsonl_jobs_give_the_same_bytes(tmp_path: Path) -> None:
    rng = random.Random(2)
    lines = [json.dumps(random_record(rng, lies=0.05 if i % 3 else 0.0)) for i in range(4500)]
    lines[100] = "{bad"
    lines[4400] = ""
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(lines) + "\n")
    outs = []
    for jobs in ("1", "3"):
        done = subprocess.run([sys.executable, "-m", "firmware.cli", "score", "--jsonl", "--jobs", jobs,
                               str(path)], capture_output=True, timeout=300)
        assert done.returncode == 2 and done.stderr == b""
        outs.append(done.stdout)
    assert outs[0] == outs[1] and outs[0].count(b"\n") == 4499
    assert json.loads(outs[0].splitlines()[100])["error"].startswith("line 101: bad JSON")


def test_bench_score_runs_the_command(capsys: Any) -> None:
    assert main(["bench", "score", "--n", "30", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["hands"] == 30 and figures["command_wall_per_s"] > 0
    assert figures["command_cpu_per_s"] > 0 and figures["from_json_per_s"] > 0
    assert 0 < figures["start_cpu_s"] < 60
