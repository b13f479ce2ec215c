"""The juez's narration of a hand: how each lance went, then the tanteo step by step.

Spanish text lines, as a juez de mesa would say them aloud: each event with the
score after it, where the juego was won, and what was not counted because of it.
"""

from __future__ import annotations

from table.answer import Answer
from table.betting import ENVIDO, NO_QUIERO, ORDAGO, PASO, QUIERO, Word
from table.cards import BY_TEXT, RANK_NAMES
from table.jugadas import SeatJugadas, strength
from table.lances import Lance
from table.numerals import capitalised, stones
from table.record import HandRecord
from table.tanteo import score as score_hand

_LANCE = {"grande": "Grande", "chica": "Chica", "pares": "Pares", "juego": "Juego",
          "punto": "Punto"}
_WINS = {"grande": "La gana", "chica": "La gana", "pares": "Los gana", "juego": "Lo gana",
         "punto": "Lo gana"}
_ENDING = {"grande": "a", "chica": "a", "pares": "os", "juego": "o", "punto": "o"}
_A = {"grande": "a grande", "chica": "a chica", "pares": "a pares", "juego": "al juego",
      "punto": "al punto"}


def _pair(pair: int) -> str:
    return f"la pareja {pair} (asientos {pair} y {pair + 2})"


def _word(w: Word) -> str:
    if w.word == PASO:
        return f"el {w.seat} pasa"
    if w.word == ENVIDO:
        return f"el {w.seat} envida {stones(w.n or 2)}"
    if w.word == QUIERO:
        return f"el {w.seat} quiere"
    if w.word == NO_QUIERO:
        return f"el {w.seat} no quiere"
    if w.word == ORDAGO:
        return f"el {w.seat} echa órdago"
    return f"el {w.seat}: {w.word}"


def _cards(rec: HandRecord, seat: int, lance: str) -> str:
    ranks = sorted((BY_TEXT[c].rank for c in rec.cards[seat]),
                   key=lambda r: strength(r, rec.rules.reyes), reverse=lance == "grande")
    names = [RANK_NAMES[r] for r in ranks]
    return ", ".join(names[:-1]) + " y " + names[-1]


def _jugada(rec: HandRecord, lance: str, seat: int) -> str:
    sj: SeatJugadas = rec.jugadas.seats[seat]
    if lance in ("grande", "chica"):
        return _cards(rec, seat, lance)
    if lance == "pares":
        return sj.pares_name
    if lance == "juego":
        if sj.sum == 31:
            return "treinta y una real" if (sj.real and rec.rules.real) else "treinta y una"
        return f"{stones(sj.sum)} de juego".replace("una de", "uno de")
    return f"{stones(sj.sum)} de punto".replace("una de", "uno de")


def _score(points: list[int]) -> str:
    return f"{points[0]} a {points[1]}"


def explain(rec: HandRecord, answer: Answer | None = None) -> list[str]:
    """The narration of ``rec`` (scored again unless its ``answer`` is given)."""
    a = answer or score_hand(rec)
    target = rec.rules.target
    lines = [
        f"Mano el asiento {rec.mano}. {capitalised(_pair(0))} contra {_pair(1)}; "
        f"van {_score(list(rec.score))}, a {target}.",
    ]
    for m in a.mistakes:
        lines.append(f"Equivocación: el asiento {m.seat} {m.why}.")
    lines.append("Los lances:")
    for lance, res in a.lances.items():
        words = rec.bets.get(Lance(lance), ())
        said = ", ".join(_word(w) for w in words)
        head = f"  {_LANCE[lance]}: " + (capitalised(said) + ". " if said else "")
        if res.how == "paso":
            head += "En paso."
        elif res.how == "querido":
            head += f"Querid{_ENDING[lance]} a {stones(res.stake)}."
        elif res.how == "no querido":
            head += (f"No querid{_ENDING[lance]}: {_pair(res.winner or 0)} se lleva "
                     f"{stones(res.deje or 1)} porque no." if res.deje
                     else f"Lo gana {_pair(res.winner or 0)} por deje.")
        elif res.how == "ordago":
            head += "Órdago querido: se enseñan las cartas."
        elif res.how == "not bet":
            head += "No se juega: solo una pareja lo tiene."
        else:
            head += f"Nadie tiene {lance}."
        if res.seat is not None:
            head += (f" {_WINS[lance]} el asiento {res.seat} (pareja {res.seat & 1}) con "
                     f"{_jugada(rec, lance, res.seat)}.")
        lines.append(head)
    lines.extend(f"  {r[0].upper()}{r[1:]}." for r in a.rulings)
    lines.append("El tanteo, por su orden:")
    points = list(a.start)
    if not a.tanteo:
        lines.append("  No hay nada que contar.")
    for ev in a.tanteo:
        points[ev.pair] += ev.stones
        lines.append(f"  {capitalised(ev.why)} ({ev.lance}), para la pareja {ev.pair}: "
                     f"van {_score(points)}.")
    won = a.won_at
    if won is not None:
        lines.append(f"La pareja {won.pair} llega a {points[won.pair]} con «{won.why}» "
                     f"y gana el juego.")
    elif a.ordago is not None and a.winner is not None:
        pre = " (ya lo había ganado por un deje)" if a.tanteo and points[a.winner] >= target else ""
        lines.append(f"El órdago {_A[a.ordago]} {_WINS[a.ordago].lower()} la pareja {a.winner}: gana el juego{pre}.")
    elif a.ordago is not None:
        lines.append(f"El órdago {_A[a.ordago]} no {_WINS[a.ordago].split()[0].lower()} gana "
                     f"nadie: nadie tiene la jugada.")
    if a.not_counted:
        why = "el juego ya estaba ganado" if a.ordago is None else "el órdago acabó la mano"
        lines.append(f"No se cuenta, porque {why}:")
        for ev in a.not_counted:
            lines.append(f"  {capitalised(ev.why)} ({ev.lance}), de la pareja {ev.pair}.")
    if a.winner is None:
        lines.append(f"Quedan {_score(points)}; nadie gana el juego en esta mano.")
    else:
        lines.append(f"Queda {_score(points)}: juego para {_pair(a.winner)}.")
    return lines
