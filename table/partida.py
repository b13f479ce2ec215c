"""A whole partida told hand by hand: what ``mus-table replay`` prints.

The following itself (each hand's mano, score and rules checked against the
hand before, juegos, vacas, the end) is :func:`table.match.follow`; this module
only says it: one line per hand in the juez's words, the result, or each hand's
full narration (:func:`table.explain.explain`), and the same as JSON.

>>> import json
>>> from table.match import replay
>>> hand = {"format": "mus-hand/1", "mano": 0, "score": [0, 0], "bets": {
...     "grande": [[0, "ordago"], [1, "quiero"]]}, "cards": [
...     ["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
...     ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]]}
>>> partida, played = replay([json.dumps(hand)], juegos=1)
>>> hand_line(played[0], juegos=1)
'Mano 1 (línea 1), mano el asiento 1: juego para los asientos 1 y 3, por el órdago (iban 0 a 0). Juegos: 1 a 0: partida para los asientos 1 y 3.'
>>> result(partida, played)
'La pareja de los asientos 1 y 3 gana la partida, 1 juego a 0, en 1 mano.'
>>> result(partida, played, names=("Jon", "Iker", "Ane", "Mikel"))
'La pareja de Jon y Ane gana la partida, 1 juego a 0, en 1 mano.'
"""

from __future__ import annotations

from typing import Any

from table.explain import closing, explain
from table.match import JUEGO, PARTIDA, VACA, Partida, Played
from table.numerals import capitalised
from table.people import Names, pair, seat, the_pair
from table.rules import Rules
from table.vocabulary import ZAMORA, ZAPATERIA, juegos_names


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def heading(rules: Rules, juegos: int, vacas: int, mano: int, names: Names = None) -> str:
    """What the partida is played to: «Partida a 3 juegos, a 40 piedras, ...»."""
    vaca = "" if vacas == 1 else f" por vaca, {vacas} vacas"
    real = {False: "", True: ", 31 real con cualquier figura", "rey": ", 31 real con rey"}[rules.real]
    penalties = {"lance": "", "mundial": ", equivocaciones por la regla 19 del reglamento mundial",
                 "none": ", equivocaciones sin castigo"}[rules.penalties]
    deje = ", mus con deje" if rules.deje else ""
    return (f"Partida a {_plural(juegos, 'juego', 'juegos')}{vaca}, a {rules.target} piedras, "
            f"{rules.reyes} reyes{real}{penalties}{deje}; primera mano {seat(mano, names)}.")


def hand_line(step: Played, juegos: int, names: Names = None) -> str:
    """One hand in a line: the score after it, or the juego (vaca, partida) it won, with the
    players' words for a 2-0 («dos a cero, y Zamora de portero») and a vaca won to nil
    («zapatería»); ``juegos``: the juegos that win a vaca."""
    head = f"Mano {step.hand} (línea {step.line}), mano {seat(step.record.mano, names)}: "
    a = step.answer
    if a.winner is None:
        return head + f"van {a.score[0]} a {a.score[1]}."
    said = closing(a, names)
    text = head + said[0].lower() + said[1:-1]
    text += f". Juegos: {step.juegos[0]} a {step.juegos[1]}"
    won = dict(step.won)
    if VACA in won and not (PARTIDA in won and sum(step.vacas) == 1):  # a partida of one vaca
        text += f": vaca para {pair(won[VACA], names)}. Vacas: {step.vacas[0]} a {step.vacas[1]}"
    if PARTIDA in won:
        text += f": partida para {pair(won[PARTIDA], names)}"
    names = juegos_names(step.juegos, juegos, step.juegos if VACA in won else None)
    if ZAPATERIA in names:
        text += f". ¡Zapatería! {capitalised(the_pair(1 - won[VACA], names))} no ha ganado un solo juego"
    elif ZAMORA in names:
        text += f". «{capitalised(ZAMORA)}»"
    return text + "."


def juegos_won(played: list[Played]) -> tuple[int, int]:
    """Juegos won by each pair in the whole partida."""
    won = [0, 0]
    for step in played:
        for what, p in step.won:
            if what == JUEGO:
                won[p] += 1
    return won[0], won[1]


def result(partida: Partida, played: list[Played], names: Names = None) -> str:
    """The partida's result (or where it stands, if unfinished)."""
    hands = _plural(len(played), "mano", "manos")
    won = juegos_won(played)
    if partida.winner is not None:
        w = partida.winner
        if partida.vacas > 1:
            score = f"{_plural(partida.won_vacas[w], 'vaca', 'vacas')} a {partida.won_vacas[1 - w]}"
        else:
            score = f"{_plural(won[w], 'juego', 'juegos')} a {won[1 - w]}"
        return f"{capitalised(the_pair(w, names))} gana la partida, {score}, en {hands}."
    return (f"La partida sigue tras {hands}: van {partida.score[0]} a {partida.score[1]}, "
            f"juegos {partida.won_juegos[0]} a {partida.won_juegos[1]}"
            + (f", vacas {partida.won_vacas[0]} a {partida.won_vacas[1]}" if partida.vacas > 1
               else "") + ".")


def narrate(partida: Partida, played: list[Played], *, full: bool = False,
            hand: int | None = None, names: Names = None) -> list[str]:
    """The partida as text lines: a line per hand and the result; ``full``: every hand
    narrated as ``explain`` does; ``hand``: that hand only, narrated; ``names``: the
    players' names, one per seat, where the partida has them."""
    if hand is not None:
        step = played[hand - 1]
        return [f"Mano {step.hand} (línea {step.line}):", *explain(step.record, step.answer, names),
                hand_line(step, partida.juegos, names)]
    first = played[0].record
    lines = [heading(partida.rules, partida.juegos, partida.vacas, first.mano, names)]
    for step in played:
        if full:
            lines += ["", f"Mano {step.hand} (línea {step.line}):",
                      *explain(step.record, step.answer, names)]
        lines.append(hand_line(step, partida.juegos, names))
    if full:
        lines.append("")
    lines.append(result(partida, played, names))
    return lines


def hand_json(step: Played) -> dict[str, Any]:
    """One hand as ``replay --json`` writes it: the scorer's answer and the partida after it."""
    return {"hand": step.hand, "line": step.line, "mano": step.record.mano,
            "answer": step.answer.to_json(), "won": {what: pair for what, pair in step.won},
            "score": list(step.score), "juegos": list(step.juegos), "vacas": list(step.vacas)}


def summary_json(partida: Partida, played: list[Played]) -> dict[str, Any]:
    """The closing line of ``replay --json``."""
    return {"summary": {
        "hands": len(played), "rules": partida.rules.to_json(),
        "format": {"juegos": partida.juegos, "vacas": partida.vacas},
        "juegos": list(juegos_won(played)), "vacas": list(partida.won_vacas),
        "vaca_results": [list(v) for v in partida.vaca_results],
        "score": list(partida.score), "over": partida.over, "winner": partida.winner,
        "result": result(partida, played)}}
