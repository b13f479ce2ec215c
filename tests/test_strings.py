"""Every message a person can see has Spanish words (web/strings.py), and no English reaches the table."""

from __future__ import annotations

import ast
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.table_commands import (
    CommandRefused,
    Confirm,
    Correct,
    Declare,
    LanceOutcome,
    NewPartida,
    Say,
    UndoHand,
    Unsay,
    parse_command,
)
from firmware.table_loop import TableLoop
from table.cards import BY_TEXT
from web.strings import ES, say, say_entry

ROOT = Path(__file__).resolve().parent.parent
RAISERS = ("table/betting.py", "table/hand.py", "table/game.py", "firmware/table_commands.py",
           "firmware/table_loop.py", "firmware/runner.py", "vision/learnt.py")
"""The modules whose refusals, problems and faults reach a person."""


def _codes(path: Path) -> set[str]:
    """The message codes a module raises: ``Refused("code", ...)``, ``code="..."``,
    ``Message("code", ...)``, ``loop.fault(kind, "code")``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        args = node.args
        if name in ("Refused", "CommandRefused", "Message", "no") and args and isinstance(args[0], ast.Constant):
            found.add(str(args[0].value))
        if name in ("fault", "_coded_fault") and len(args) > 1 and isinstance(args[1], ast.Constant):
            found.add(str(args[1].value))
        found |= {str(k.value.value) for k in node.keywords
                  if k.arg == "code" and isinstance(k.value, ast.Constant)}
    return found


def test_every_code_raised_has_its_spanish_words() -> None:
    codes = set().union(*(_codes(ROOT / p) for p in RAISERS))
    assert len(codes) > 60  # the walk finds them (a rename of the raisers would empty it)
    assert sorted(c for c in codes if "msg_" + c not in ES) == []
    faults = _codes(ROOT / "firmware/runner.py") | {"photo_failed", "disk_full"}
    assert sorted(c for c in faults if "msg_" + c + "_todo" not in ES) == []


def test_sentences_fill_their_arguments() -> None:
    # seats as people count them, 1-4 (the codes keep 0-3)
    assert say("seat_cards", {"seat": 2, "n": 3}) == "Al asiento 3 le falta 1 carta"
    assert say("seat_cards", {"seat": 3, "n": 5}) == "El asiento 4 tiene 5 cartas"
    assert say("card_repeated", {"card": "12o", "times": 2, "seats": [0, 1], "outside": False}) == (
        "El 12o aparece 2 veces: asientos 1 y 2")
    assert say("confirm_other_pair", {"seat": 1, "allowed": [0, 2]}) == (
        "confirma un jugador de la pareja contraria (asientos 1 o 3), no el asiento 2")
    assert say("stones_off", {"seat": 3, "expected": 2, "seen": 4, "diff": 2, "what": "amarracos"}) == (
        "Asiento 4: sobran 2 amarracos (hay 4, el tanteo dice 2)")
    assert say_entry("say", {"seat": 2, "word": "envido", "n": 5}) == "Envido 5 del asiento 3"
    assert say_entry("lance", {"lance": "grande", "outcome": "ordago"}) == "Grande: órdago"
    assert "?" not in say("not_turn", {"lance": "chica", "seat": 1, "speaker": 0})
    assert say("learn_card_edge", {"photo": 1, "seat": 0, "place": 1, "places": [1, 2]}) == (
        "Foto 1, zona del asiento 1: las cartas 1 y 2 no se ven enteras (su sombra parece su borde): "
        "cambia la luz o el tapete y repite la foto")
    assert say("learn_card_edge", {"photo": 1, "seat": 1, "place": 3, "places": [3], "why": "felt"}) == (
        "Foto 1, zona del asiento 2: la carta 3 no se ve entera (el tapete es casi del color de la carta): "
        "cambia la luz o el tapete y repite la foto")


_ENGLISH = (" is ", " the ", " not ", " seat ", " may ", "turn", " card ", " has ")

_BODIES = st.one_of(
    st.builds(Say, st.integers(0, 3), st.sampled_from(["paso", "envido", "quiero", "no quiero", "ordago"]),
              st.none()),
    st.builds(LanceOutcome, st.sampled_from(["grande", "chica", "pares", "juego", "punto"]),
              st.sampled_from(["en paso", "querido", "no querido", "ordago"]), st.integers(1, 4) | st.none(),
              st.integers(0, 3) | st.none()),
    st.builds(Declare, st.integers(0, 3), st.sampled_from(["pares", "juego"]), st.booleans()),
    st.builds(Correct, st.integers(0, 3), st.integers(0, 4), st.sampled_from(list(BY_TEXT.values()))),
    st.builds(Confirm, st.integers(0, 3) | st.none()),
    st.just(Unsay()), st.just(UndoHand()), st.just(NewPartida()),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_BODIES, max_size=30))
def test_whatever_is_refused_is_refused_in_spanish_with_a_code(commands: list[Any]) -> None:
    loop = TableLoop()
    for cmd in commands:
        try:
            loop.submit(cmd)
        except CommandRefused as exc:
            text = f" {exc} "
            assert "msg_" + exc.code in ES, exc.code
            assert not any(w in text for w in _ENGLISH), text


def test_a_bad_body_is_refused_in_spanish() -> None:
    rng = random.Random(3)
    for body in ({"kind": "fly"}, {"kind": "say", "seat": 9, "word": "paso"}, {"kind": "say", "seat": 1},
                 {"kind": "correct", "seat": 1, "index": rng.randrange(8, 99), "card": "13z"}, [1]):
        try:
            parse_command(body)
        except CommandRefused as exc:
            assert "msg_" + exc.code in ES and not any(w in f" {exc} " for w in _ENGLISH)
        else:
            raise AssertionError(f"{body} was taken")


def test_a_message_shows_what_a_reader_cannot_see() -> None:
    # a zero-width space or a line separator typed with a word is written as its escape
    said = say("unknown_word", {"word": "envido\u200b"})
    assert "envido\\u200b" in said and said.isprintable()
    assert "\\u2028" in say("unknown_word", {"word": "paso\u2028"})
