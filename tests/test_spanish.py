"""No English where a person reads: every page of the display and of the hub in the states a
table goes through, their error pages, the API's refusals and the command line's refusals
and human output.

What is looked for is a small vocabulary of English words that never occur in the Spanish
text (:data:`ENGLISH`); what is not for a person is taken out first: scripts and styles,
JSON keys quoted or written as a record's path (``bets.grande``), options (``--hand``),
command names (``mus-table deck list``), paths and addresses. The pages' scripts are
checked in a real browser (``tests/test_browser_play.py``) with the same words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from firmware.cli import main
from firmware.journal import Journal
from firmware.table_loop import LoopSettings, Phase, TableLoop
from firmware.truth import TruthPlayers, TruthReader
from table.rules import Rules
from web.app import create_app
from web.strings import ES, say_reading

PIN = "4321"

ENGLISH = frozenset("""
the of and or is are was were be been not must should cannot could would will
seat seats pair pairs hand hands card stone stones pool frame frames found missing unknown
invalid empty wrote written file folder such page method allowed internal request waiting
please nothing only with from this that which there yet already more less than turn word
words bet says said speaks won wins winner game match table camera reading stale outside
inside zone zones marker markers failed refused wrong left right back undo lock unlock cancel
save saved next previous live watch deck sheet sheets print row column mat none yes
""".split())
"""English words that never occur in the Spanish text («no», «real», «total», «error», «red»,
«as», «once» are Spanish words too: not here)."""

_NOT_FOR_PEOPLE = [
    r"mus-table(?: [a-z][a-z-]*){0,2}",  # the command and its subcommands, named as typed
    r"https?://\S+|\S*/\S*",  # addresses and paths
    r"--?[a-z][\w-]*",  # options
    r"\b\w+(?:\.\w+)+\b",  # a record's path (bets.grande), file names
    r"\"[^\"]*\"|'[^']*'",  # values quoted as JSON or Python write them
    r"«[a-z_]+»",  # a JSON key named in a sentence («cards» son…)
    r"\[[a-z_.]+\]",  # a section of the configuration ([table])
    r"\{[^}]*\}",  # a sentence's placeholders ({seat})
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b",  # an environment variable (MUS_TABLE_HUB_PIN)
    r"\b(?:format|rules|mano|score|cards|bets|declared):",  # a record's key that opens a fault (cards: …)
]


def english(text: str) -> list[str]:
    """The words of :data:`ENGLISH` in ``text`` once what is not for people is taken out.

    >>> english("mus-table score: «mano» es un asiento de 0 a 3, no 7")
    []
    >>> english("mus-table score: the seat must be 0-3")
    ['the', 'seat', 'must', 'be']
    """
    for pattern in _NOT_FOR_PEOPLE:
        text = re.sub(pattern, " ", text)
    return [w for w in re.findall(r"[A-Za-z]+", text) if w.lower() in ENGLISH]


class _Visible(HTMLParser):
    """The text of a page a person sees or hears: data outside scripts and styles, and the
    attributes read aloud or shown (alt, title, placeholder, aria-label)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template"):
            self._hidden += 1
        self.parts += [v for k, v in attrs if k in ("alt", "title", "placeholder", "aria-label") and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template"):
            self._hidden = max(0, self._hidden - 1)

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible(html: str) -> str:
    parser = _Visible()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def _human(obj: Any) -> Iterator[str]:
    """The sentences in a JSON answer: the values of keys a person reads."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("error", "message", "text", "why", "todo", "title", "detail") and isinstance(v, str):
                yield v
            else:
                yield from _human(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _human(v)


def test_the_vocabulary_finds_english_and_spares_spanish() -> None:
    assert english("mus-table replay: line 7: mano should be seat 2, not 0") == ["should", "be", "seat", "not"]
    assert english("Esta página no existe en la mesa") == []
    assert english('<p>Página</p>') == []
    assert visible("<p title='Cámara'>Hola<script>var the = 1</script></p>") == "Cámara Hola"


def test_the_strings_table_has_no_english() -> None:
    found = {k: english(v) for k, v in ES.items() if english(v)}
    assert found == {}


# --------------------------------------------------------------------------------- the display


def _seen(client: Any, url: str, status: int = 200, **kw: Any) -> str:
    r = client.get(url, **kw) if not kw.get("method") else client.open(url, **kw)
    assert r.status_code == status, (url, r.status_code)
    if r.is_json:
        return " | ".join(_human(r.get_json()))
    return visible(r.get_data(as_text=True))


PAGES = ("/", "/watch", "/overlay", "/overlay?layout=bar", "/settings", "/health")


def _all_pages(client: Any, loop: TableLoop) -> dict[str, str]:
    out = {url: _seen(client, url) for url in PAGES}
    hands = loop.snapshot().get("hands", 0) or 0
    out["/api/state"] = " | ".join(_human(loop.snapshot()))
    if hands:
        out["/hands/1"] = _seen(client, "/hands/1")
    out["/partidas/1"] = _seen(client, "/partidas/1")
    return out


def test_every_page_of_the_display_in_every_state_is_spanish(tmp_path: Path) -> None:
    reader = TruthReader()
    journal = Journal(tmp_path / "journal.sqlite")
    loop = TableLoop(LoopSettings(rules=Rules(target=20), juegos=1), reader=reader, journal=journal)
    app = create_app(loop, pin=PIN, keepalive=0.05)
    app.testing = True
    c = app.test_client()
    players = TruthPlayers(loop, reader, 11)
    seen: dict[str, str] = {}

    def look(state: str) -> None:
        for url, text in _all_pages(c, loop).items():
            seen[f"{state} {url}"] = text

    look("empty")
    phases = set()
    for _ in players.steps():  # one hand command by command: read, words said, scored, confirmed
        phase = loop.state().phase
        if phase not in phases or len(phases) == 1:
            phases.add(phase)
            look(f"{phase} {len(seen)}")
    assert {Phase.PLAYING, Phase.SCORED} <= phases
    look("confirmed")
    for _ in range(60):
        if loop.state().phase is Phase.OVER:
            break
        players.play_hand()
    assert loop.state().phase is Phase.OVER
    look("over")
    # error pages and refusals, locked and unlocked
    seen["404"] = _seen(c, "/nowhere", 404)
    seen["no hand"] = _seen(c, "/hands/999", 404)
    seen["no partida"] = _seen(c, "/partidas/999", 404)
    seen["405"] = visible(c.post("/watch").get_data(as_text=True))
    seen["locked command"] = " | ".join(_human(c.post("/api/command", json={"kind": "unsay"}).get_json()))
    seen["wrong pin"] = " | ".join(_human(c.post("/api/unlock", json={"pin": "0000"}).get_json()))
    r = c.post("/api/unlock", json={"pin": PIN})
    token = r.get_json()["csrf"]
    for body in ({"kind": "fly"}, {"kind": "say", "seat": 9, "word": "paso"}, [1], {"kind": "say"},
                 {"kind": "correct", "seat": 1, "index": 0, "card": "13z"}, {"kind": "confirm", "seat": 0},
                 {"kind": "undo_hand"}, {"kind": "say", "seat": 0, "word": "paso"}):
        answer = c.post("/api/command", json=body, headers={"X-CSRF-Token": token})
        seen[f"refusal {json.dumps(body)}"] = " | ".join(_human(answer.get_json()))
    seen["not json"] = " | ".join(_human(c.post("/api/command", data="x", headers={"X-CSRF-Token": token})
                                          .get_json()))
    seen["too large"] = " | ".join(_human(c.post("/api/command", data="x" * 3_000_000,
                                                  headers={"X-CSRF-Token": token,
                                                           "Content-Type": "application/json"}).get_json()
                                          or {}))
    assert "Mesa de mus" in seen["empty /"] and "Manos de la partida" in seen["over /watch"]  # pages rendered
    assert "Esta página no existe" in seen["404"] and "Salud de la mesa" in seen["over /health"]
    found = {where: english(text) for where, text in seen.items() if english(text)}
    assert found == {}, found
    journal.close()


# --------------------------------------------------------------------------------- the hub


@pytest.fixture
def hub_app(tmp_path: Path) -> Any:
    from hub.app import create_app as hub_create
    from hub.store import Store

    store = Store(f"sqlite:///{tmp_path / 'hub.sqlite'}")
    app = hub_create(store, None, pin="2468")
    app.testing = True
    yield app
    store.close()


def test_every_page_of_the_hub_is_spanish(hub_app: Any) -> None:
    c = hub_app.test_client()
    seen: dict[str, str] = {}
    for url in ("/", "/torneo", "/sorteo", "/clasificacion", "/ver"):
        seen[f"empty {url}"] = _seen(c, url)
    seen["bad pin"] = visible(c.post("/entrar", data={"pin": "1"}).get_data(as_text=True))
    assert c.post("/entrar", data={"pin": "2468"}).status_code == 302
    for name in ("Txapeldunak", "Los de Tolosa", "Ane y Jon", "Peña Mus"):
        assert c.post("/torneo/pareja", data={"name": name, "players": "A, B"}).status_code == 302
    assert c.post("/torneo/ronda", data={"format": "liguilla", "tables": "mesa-1, mesa-2"}).status_code == 302
    for url in ("/", "/torneo", "/sorteo", "/clasificacion", "/ver"):
        seen[f"drawn {url}"] = _seen(c, url)
    seen["no table"] = visible(c.get("/mesa/nowhere").get_data(as_text=True))
    seen["404"] = visible(c.get("/nowhere").get_data(as_text=True))
    seen["refused"] = visible(c.post("/torneo/retraso", data={"delay": "x"}).get_data(as_text=True))
    assert "Asientos 1 y 3" in seen["drawn /sorteo"] or "Asientos 1 y 3" in seen["drawn /torneo"]
    found = {where: english(text) for where, text in seen.items() if english(text)}
    assert found == {}, found


# --------------------------------------------------------------------------------- the command line


def _spec_record(**over: Any) -> str:
    rec = {"format": "mus-hand/1", "mano": 0, "score": [0, 0],
           "cards": [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"], ["5o", "6c", "2b", "10e"],
                     ["10o", "10c", "1o", "12b"]], "bets": {}}
    return json.dumps({**rec, **over})


REFUSALS: list[tuple[list[str], str | None]] = [
    (["score", "-"], ""),
    (["score", "-"], "   "),
    (["score", "-"], "{"),
    (["score", "-"], "[1, 2]"),
    (["score", "-"], _spec_record(mano=4)),
    (["score", "-"], _spec_record(score=[0, 45])),
    (["score", "-"], _spec_record(cards=[[]])),
    (["score", "-"], _spec_record(cards=[["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
                                         ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12o"]])),
    (["score", "-"], _spec_record(cards=[["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
                                         ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "13x"]])),
    (["score", "-"], _spec_record(bets={"grande": [[1, "paso"]]})),
    (["score", "-"], _spec_record(bets={"grande": [[0, "envido", 2]]})),
    (["score", "-"], _spec_record(bets={"grande": [[0, "grito"]]})),
    (["score", "-"], _spec_record(bets={"tute": []})),
    (["score", "-"], _spec_record(rules={"reyes": 5})),
    (["score", "-"], _spec_record(rules={"deje": 1})),
    (["score", "-"], _spec_record(declared={"pares": [True]})),
    (["score", "-"], _spec_record(extra=1)),
    (["score", "/nonexistent/hand.json"], None),
    (["score", "--jsonl", "--jobs", "-1", "-"], "{}"),
    (["explain", "-"], _spec_record(format="mus-hand/2")),
    (["replay", "-"], ""),
    (["replay", "-"], _spec_record() + "\n" + _spec_record(mano=3)),
    (["replay", "-"], _spec_record() + "\n" + _spec_record(mano=1)),
    (["replay", "-", "--hand", "5"], _spec_record()),
    (["replay", "-", "--hand", "0"], None),
    (["replay", "-", "--juegos", "abc"], None),
    (["replay", "-", "--json", "--explain"], None),
    (["replay"], None),
    (["fly"], None),
    (["score", "-", "--nope"], None),
    (["read", "/nonexistent.png"], None),
    (["calibrate", "/nonexistent.png"], None),
    (["deck", "remove", "nothing"], None),
    (["deck", "use"], None),
    (["deck", "learn", "../up", "a", "b", "c"], None),
    (["deck", "learn", "ok", "/nonexistent.png", "b", "c"], None),
    (["mat", "--out", "/nonexistent/mat.pdf"], None),
    (["mat", "--out", "mat.docx"], None),
    (["camera-check", "--tilt", "50"], None),
    (["hub", "--port", "70000", "--pin", "1"], None),
    (["demo", "--no-web", "--hands", "0"], None),
    (["mat", "--size", "100", "--out", "mat.svg"], None),
    (["journal", "list", "/nonexistent/journal.sqlite"], None),
    (["journal", "list", "/etc/hostname"], None),
    (["check", "--config", "/nonexistent/table.toml"], None),
]


@pytest.mark.parametrize(("argv", "stdin"), REFUSALS, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_every_refusal_of_the_command_line_is_spanish(argv: list[str], stdin: str | None, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((stdin or "").encode())))
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's refusals
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    if argv[0] == "read":  # each image's fault on its own line of the output, the others go on
        err = out
    assert code == 2 and err.count("\n") == 1 and (err.startswith("mus-table") or argv[0] == "read"), (
        code, out, err)
    assert "no se pudo (" not in err, err  # a code without its Spanish words
    assert english(err) == [], err


def test_the_list_of_commands_is_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith("uso: mus-table") and "órdenes:" in out
    from firmware.cli import COMMANDS

    listed = re.sub(r"^ +(" + "|".join(map(re.escape, COMMANDS)) + r")\b", " ", out, flags=re.M)  # names typed
    assert english(listed) == [], english(listed)


HELPS = [["run"], ["demo"], ["deck"], ["deck", "learn"], ["deck", "list"], ["deck", "use"], ["deck", "remove"],
         ["check"], ["journal"], ["calibrate"], ["mat"], ["read"], ["score"], ["replay"], ["explain"],
         ["camera-check"], ["hub"]]
"""Every command a person uses, with its subcommands (the developer's ``bench`` and ``train`` are not)."""


@pytest.mark.parametrize("argv", HELPS, ids=" ".join)
def test_every_commands_help_is_spanish(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith(f"uso: mus-table {' '.join(argv)}"), out
    assert "opciones:" in out and "muestra esta ayuda y termina" in out, out
    helps = [line for line in out.splitlines() if line.startswith("  ") and "  " in line.strip()]
    assert len(helps) >= 1, out  # some option or argument with its help, not only the usage line
    assert english(out) == [], (english(out), out)


@pytest.mark.parametrize("toml", [
    "[table\nname = 1", "table = 3", "[tabla]\nname = 'a'", "[table]\nnombre = 'a'", "[table]\nname = 1",
    "[camera]\nsource = 'usb'", "[camera]\nsource = 'folder'", "[camera]\nmains_hz = 55",
    "[web]\nport = 0", "[mat]\nside_mm = 100", "[rules]\nreyes = 5",
])
def test_a_bad_configuration_is_refused_in_spanish(toml: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text(toml, encoding="utf-8")
    assert main(["check", "--config", str(path), "--no-camera"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mus-table check: configuración: ") and err.count("\n") == 1, err
    assert "no se pudo (" not in err and english(err) == [], err


def test_the_command_lines_human_output_is_spanish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    from tests.test_cli_replay import partida_file

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path, _ = partida_file(tmp_path)
    said: dict[str, str] = {}
    for argv in (["replay", str(path)], ["replay", str(path), "--explain", "--hand", "2"],
                 ["deck", "list"], ["mat", "--out", "mat.svg"], ["mat", "--out", "mat.pdf", "--tile", "a4"]):
        assert main(argv) == 0, argv
        said[" ".join(argv)] = capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_spec_record().encode())))
    assert main(["explain", "-"]) == 0
    said["explain"] = capsys.readouterr().out
    from hardware.camera_geometry import CAMERAS

    products = re.compile("|".join(sorted({re.escape(c.name) for c in CAMERAS}, key=len, reverse=True)))
    for argv in (["camera-check"], ["camera-check", "--full-res"], ["camera-check", "--mat", "1200"]):
        assert main(argv) == 0, argv  # every verdict: good, too low, too high, none works
        out = capsys.readouterr().out
        assert "| Cámara |" in out and "Veredicto" in out, out
        said[" ".join(argv)] = products.sub(" ", out)  # the cameras' names as the shops sell them
    assert "ninguna altura sirve" in said["camera-check --mat 1200"] and "| bien |" in said["camera-check --full-res"]
    found = {k: english(v) for k, v in said.items() if english(v)}
    assert found == {}, found


def test_a_reading_is_said_in_spanish_with_seats_one_to_four() -> None:
    from table.cards import Card
    from vision.reading import Item, Reading
    from vision.stones import StoneCount

    reading = Reading((tuple(Card.parse(c) for c in ("12o", "1e")), (), (), ()), StoneCount(5, (1, 2, 3, 4)),
                      unknown=(Item(None, (0, 0, 9, 9), "low confidence"),
                               Item(None, (1, 1, 9, 9), "card 12o seen twice"),
                               Item(None, (2, 2, 9, 9), "card-sized, not found as a card")),
                      stale=True, impossible=("card 12o seen twice (seat 0 and outside)", "5 cards at seat 3"),
                      ignored=(Item(None, (0, 0, 1, 1), "stone outside every zone"),))
    lines = say_reading(reading)
    assert lines[1].startswith("asiento 1: 12o 1e") and lines[4].startswith("asiento 4: -")
    assert "piedras: 5 en el centro; por asiento, 1 el 1, 2 el 2, 3 el 3, 4 el 4" in lines
    assert english("\n".join(lines)) == [], lines
