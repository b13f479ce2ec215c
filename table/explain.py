"""The juez's narration of a hand: how each lance went, then the tanteo step by step.

Spanish text lines, as a juez de mesa would say them aloud, in the players' own
words (the rule texts of ``docs/sources.md``): raises said as raises («el 0 envida
dos, el 1 envida tres más»), «¡órdago a la grande!», ties that «gana la mano», «punto y miedo»,
each event with the score after it, «estamos dentro», where the juego was won
(«muerte dulce» when exactly), by how much, and what was not counted because of
it; the stones between hands in amarracos and piedras.
"""

from __future__ import annotations

from table.answer import Answer, LanceResult
from table.betting import ENVIDO, NO_QUIERO, ORDAGO, PASO, QUIERO, Word
from table.cards import BY_TEXT, RANK_NAMES
from table.jugadas import SeatJugadas, strength
from table.lances import Lance
from table.numerals import amarracos, capitalised, stones
from table.record import HandRecord
from table.tanteo import score as score_hand
from table.vocabulary import (
    ESTAMOS_DENTRO,
    MUERTE_DULCE,
    PUNTO_Y_MIEDO,
    answer_names,
    envite_name,
    hand_names,
    score_names,
)

_WINS = {"grande": "La gana", "chica": "La gana", "pares": "Los gana", "juego": "Lo gana",
         "punto": "Lo gana"}
_ENDING = {"grande": "a", "chica": "a", "pares": "os", "juego": "o", "punto": "o"}


def _pair(pair: int) -> str:
    return f"la pareja {pair} (asientos {pair} y {pair + 2})"


def _words(rec: HandRecord, lance: Lance, words: tuple[Word, ...]) -> str:
    """The words of a lance as they are said: «el 0 envida, el 1 envida tres más, ...»."""
    out = []
    total = 0
    need = max(rec.rules.target - rec.score[0], rec.rules.target - rec.score[1])
    worth_juego = False
    for w in words:
        if w.word == PASO:
            out.append(f"el {w.seat} pasa")
        elif w.word == ENVIDO:
            n = w.n or 2
            if total == 0:
                said = f"el {w.seat} envida {stones(n)}"
                total = n
            else:
                said = f"el {w.seat} envida {stones(n)} más"
                total += n
            name = envite_name(n)
            if name is not None:
                said += f" ({name})"
            if total >= need and not worth_juego:
                worth_juego = True
                said += " (lo que sea: el envite ya vale el juego)"
            out.append(said)
        elif w.word == QUIERO:
            out.append(f"el {w.seat} quiere")
        elif w.word == NO_QUIERO:
            out.append(f"el {w.seat} no quiere")
        elif w.word == ORDAGO:
            out.append(f"el {w.seat}: ¡órdago {lance.a}!")
    return ", ".join(out)


def _cards(rec: HandRecord, seat: int, lance: Lance) -> str:
    ranks = sorted((BY_TEXT[c].rank for c in rec.cards[seat]),
                   key=lambda r: strength(r, rec.rules.reyes), reverse=lance == Lance.GRANDE)
    names = [RANK_NAMES[r] for r in ranks]
    return ", ".join(names[:-1]) + " y " + names[-1]


def _jugada(rec: HandRecord, lance: Lance, seat: int) -> str:
    sj: SeatJugadas = rec.jugadas.seats[seat]
    if lance in (Lance.GRANDE, Lance.CHICA):
        text = _cards(rec, seat, lance)
        names = hand_names((BY_TEXT[c].rank for c in rec.cards[seat]), rec.rules)
        names = [n for n in names if n in ("solomillo", "tío Perete")]
        return text + (f" ({names[0]})" if names else "")
    if lance == Lance.PARES:
        return sj.pares_name
    if lance == Lance.JUEGO:
        if sj.sum == 31:
            return "treinta y una real" if (sj.real and rec.rules.real) else "treinta y una"
        return f"{stones(sj.sum)} de juego".replace("una de", "uno de")
    return f"{stones(sj.sum)} de punto".replace("una de", "uno de")


def _tie(rec: HandRecord, lance: Lance, seat: int) -> int | None:
    """A seat of the other pair whose jugada equals the winner's: the tie went to mano."""
    seats = rec.jugadas.seats
    key = seats[seat].key(lance)
    if key == 0 and lance not in (Lance.GRANDE, Lance.CHICA):
        return None
    for other in rec.jugadas.order:
        if other & 1 != seat & 1 and seats[other].key(lance) == key:
            return other
    return None


def _score(points: list[int] | tuple[int, int]) -> str:
    return f"{points[0]} a {points[1]}"


def _stones_of(points: list[int] | tuple[int, int]) -> str:
    """«la pareja 0, dos amarracos y tres piedras; la pareja 1, nada»."""
    return "; ".join(f"la pareja {p}, {amarracos(points[p])}" for p in (0, 1))


def _result(rec: HandRecord, lance: Lance, res: LanceResult) -> str:
    """How a lance ended, in words."""
    e = _ENDING[lance]
    if res.annulled and res.penalty:
        return (f"Se anula lo jugado (regla 19): {_pair(res.winner or 0)} se apunta "
                f"el deje por la equivocación.")
    if res.annulled:
        nobody = "" if res.winner is not None else f", y nadie tiene {lance}"
        return f"Se anula lo jugado (regla 19): se cuenta por las cartas{nobody}."
    if res.how == "paso":
        return "En paso."
    if res.how == "querido":
        return f"Querid{e} a {stones(res.stake)}."
    if res.how == "no querido":
        if lance == Lance.PUNTO and res.deje == 1:
            return (f"No querido: {PUNTO_Y_MIEDO}, {_pair(res.winner or 0)} se lleva una "
                    f"porque no, y la de punto al final.")
        return (f"No querid{e}: {_pair(res.winner or 0)} se lleva "
                f"{stones(res.deje or 1)} porque no.")
    if res.how == "ordago":
        return "Órdago querido: se enseñan las cartas."
    if res.how == "not bet":
        return "No se juega: solo una pareja lo tiene."
    return f"Nadie tiene {lance}."


def explain(rec: HandRecord, answer: Answer | None = None) -> list[str]:
    """The narration of ``rec`` (scored again unless its ``answer`` is given)."""
    a = answer or score_hand(rec)
    target = rec.rules.target
    head = (f"Mano el asiento {rec.mano}. {capitalised(_pair(0))} contra {_pair(1)}; "
            f"van {_score(rec.score)}, a {target}")
    dentro = [p for p in (0, 1) if ESTAMOS_DENTRO in score_names(rec.score[p], target)]
    head += "".join(f"; la pareja {p} está dentro" for p in dentro) + "."
    lines = [head]
    for m in a.mistakes:
        lines.append(f"Equivocación: el asiento {m.seat} {m.why}.")
    lines.append("Los lances:")
    for name, res in a.lances.items():
        lance = Lance(name)
        said = _words(rec, lance, rec.bets.get(lance, ()))
        line = f"  {lance.heading}: " + (capitalised(said) + ". " if said else "")
        line += _result(rec, lance, res)
        if res.seat is not None:
            line += (f" {_WINS[lance]} el asiento {res.seat} (pareja {res.seat & 1}) con "
                     f"{_jugada(rec, lance, res.seat)}")
            tie = _tie(rec, lance, res.seat)
            line += f"; empata el asiento {tie}, y gana la mano." if tie is not None else "."
        lines.append(line)
    lines.extend(f"  {capitalised(r)}." for r in a.rulings)
    lines.append("El tanteo, por su orden:")
    points = list(a.start)
    if not a.tanteo:
        lines.append("  No hay nada que contar.")
    won = a.won_at
    for ev in a.tanteo:
        before = points[ev.pair]
        points[ev.pair] += ev.stones
        line = f"  {capitalised(ev.why)} ({ev.lance}), para la pareja {ev.pair}: "
        if ev is won:
            line += f"llega a {points[ev.pair]}."
        else:
            line += f"van {_score(points)}."
            if (ESTAMOS_DENTRO in score_names(points[ev.pair], target)
                    and ESTAMOS_DENTRO not in score_names(before, target)):
                line += f" «Estamos dentro», dice la pareja {ev.pair}."
        lines.append(line)
    names = answer_names(a)
    if won is not None:
        if MUERTE_DULCE in names:
            lines.append(f"La pareja {won.pair} llega a {target} justas con «{won.why}» y gana "
                         f"el juego: {MUERTE_DULCE}.")
        else:
            lines.append(f"La pareja {won.pair} llega a {points[won.pair]} con «{won.why}» "
                         f"y gana el juego.")
    elif a.ordago is not None and a.winner is not None:
        pre = " (ya lo había ganado por un deje)" if a.tanteo and points[a.winner] >= target else ""
        lines.append(f"El órdago {Lance(a.ordago).a} {_WINS[a.ordago].lower()} la pareja "
                     f"{a.winner}: gana el juego{pre}.")
    elif a.ordago is not None:
        lines.append(f"El órdago {Lance(a.ordago).a} no {_WINS[a.ordago].split()[0].lower()} "
                     f"gana nadie: nadie tiene la jugada.")
    if a.not_counted:
        why = "el juego ya estaba ganado" if a.ordago is None else "el órdago acabó la mano"
        lines.append(f"No se cuenta, porque {why}:")
        for ev in a.not_counted:
            lines.append(f"  {capitalised(ev.why)} ({ev.lance}), de la pareja {ev.pair}.")
    lines.append(closing(a))
    return lines


def closing(a: Answer) -> str:
    """The hand's last word: where the stones stand, or who won the juego and by how much."""
    w = a.winner
    if w is None:
        return (f"Quedan {_score(a.score)} ({_stones_of(a.score)}); nadie gana el juego "
                f"en esta mano.")
    if a.ordago is not None and a.score[w] < a.target:
        return f"Juego para {_pair(w)}, por el órdago (iban {_score(a.score)})."
    by = a.score[w] - a.score[1 - w]
    return (f"Juego para {_pair(w)}, por {stones(by)} {'piedra' if by == 1 else 'piedras'} "
            f"de diferencia: {_score(a.score)}.")
