"""The juez's narration of a hand: how each lance went, then the tanteo step by step.

Spanish text lines, as a juez de mesa would say them aloud, in the players' own
words (the rule texts of ``docs/sources.md``): raises said as raises («el 1 envida
dos, el 2 envida tres más»), «¡órdago a la grande!», every tie with its seats and
who wins it («gana la mano», «gana el más cercano a la mano»), a robbed lance,
«punto y miedo», «tran-tran», each event with the score after it (the dejes «en el
acto»), «estamos dentro», where the juego was won, by how much, and what was not
counted because of it, and why; the stones between hands as they lie on the felt.
Seats and pairs are said as the display says them (:mod:`table.people`): seats 1-4,
pairs by their seats («los asientos 1 y 3») or, given ``names``, by their players.
"""

from __future__ import annotations

from table.answer import DEJE, Answer, Event, LanceResult
from table.betting import ENVIDO, NO_QUIERO, ORDAGO, PASO, QUIERO, Word
from table.cards import BY_TEXT, RANK_NAMES
from table.jugadas import SeatJugadas, strength
from table.lances import Lance
from table.numerals import amarracos, capitalised, stones
from table.people import Names, pair, seat, seat_in_pair, speaker, the_pair
from table.people import seats as seats_
from table.record import HandRecord
from table.tanteo import score as score_hand
from table.vocabulary import (
    ESTAMOS_DENTRO,
    PUNTO_Y_MIEDO,
    TRAN_TRAN,
    answer_names,
    envite_name,
    hand_names,
    robbed_lances,
    score_names,
)

_WINS = {"grande": "La gana", "chica": "La gana", "pares": "Los gana", "juego": "Lo gana",
         "punto": "Lo gana"}
_ENDING = {"grande": "a", "chica": "a", "pares": "os", "juego": "o", "punto": "o"}


def _words(rec: HandRecord, lance: Lance, words: tuple[Word, ...], names: Names = None) -> str:
    """The words of a lance as they are said: «el 1 envida dos, el 2 envida tres más, ...»."""
    out = []
    total = 0
    for w in words:
        who = speaker(w.seat, names)
        if w.word == PASO:
            out.append(f"{who} pasa")
        elif w.word == ENVIDO:
            n = w.n or 2
            if total == 0:
                said = f"{who} envida {stones(n)}"
                total = n
            else:
                said = f"{who} envida {stones(n)} más"
                total += n
            name = envite_name(n)
            if name is not None:
                said += f" ({name})"
            out.append(said)
        elif w.word == QUIERO:
            out.append(f"{who} quiere")
        elif w.word == NO_QUIERO:
            out.append(f"{who} no quiere")
        elif w.word == ORDAGO:
            out.append(f"{who}: ¡órdago {lance.a}!")
    return ", ".join(out)


_PLURAL = {"as": "ases", "cuatro": "cuatros", "cinco": "cincos", "seis": "seises",
           "siete": "sietes", "sota": "sotas", "caballo": "caballos", "rey": "reyes",
           "dos": "doses", "tres": "treses"}
_HOW_MANY = {2: "dos", 3: "tres", 4: "cuatro"}


def _cards(rec: HandRecord, seat: int, lance: Lance) -> str:
    """A seat's four cards in the lance's order, as they count: with 8 reyes a tres is a
    rey and a dos an as («dos reyes, cuatro y as»)."""
    reyes = rec.rules.reyes
    ranks = sorted((BY_TEXT[c].rank for c in rec.cards[seat]),
                   key=lambda r: strength(r, reyes), reverse=lance == Lance.GRANDE)
    names: list[str] = []
    counts: list[int] = []
    for r in ranks:
        name = RANK_NAMES[12 if (reyes == 8 and r == 3) else 1 if (reyes == 8 and r == 2) else r]
        if names and names[-1] == name:
            counts[-1] += 1
        else:
            names.append(name)
            counts.append(1)
    said = [n if k == 1 else f"{_HOW_MANY[k]} {_PLURAL[n]}" for n, k in zip(names, counts, strict=True)]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " y " + said[-1]


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


def _tie(rec: HandRecord, lance: Lance, seat: int, names: Names = None) -> str:
    """A lance won on a tie, said with its seats: «; empata con el asiento 4, y gana la mano»,
    «; empatan los asientos 2, 3 y 4: gana el más cercano a la mano» (the texts: «gana el
    jugador mano o el más cercano al mano»). Empty when no seat of the other pair ties."""
    seats = rec.jugadas.seats
    key = seats[seat].key(lance)
    tied = [s for s in rec.jugadas.order if seats[s].key(lance) == key]
    if lance.jugada and rec.rules.penalties != "none":  # a hidden jugada does not count
        said = rec.declared[0 if lance == Lance.PARES else 1]
        tied = [s for s in tied if said[s] or s == seat]
    if not any(s & 1 != seat & 1 for s in tied):
        return ""
    if seat == rec.mano:
        others = [s for s in tied if s != seat]
        return f"; empata con {seats_(others, names)}, y gana la mano"
    return f"; empatan {seats_(tied, names)}: gana el más cercano a la mano"


def _score(points: list[int] | tuple[int, int]) -> str:
    return f"{points[0]} a {points[1]}"


def _stones_of(points: list[int] | tuple[int, int], target: int, names: Names = None) -> str:
    """«los asientos 1 y 3, dos amarracos y tres piedras; los asientos 2 y 4, dentro y una piedra».

    At «estamos dentro» the amarracos go back to the centre and the pair keeps its piedras
    («los devuelve al centro diciendo "estamos dentro"», the general rules), as the table's
    stone check expects them (``table.game.expected_stones``)."""
    out = []
    for p in (0, 1):
        n = points[p]
        if ESTAMOS_DENTRO in score_names(n, target):
            felt = f"dentro y {amarracos(n - (target - 5))}"
        else:
            felt = amarracos(n)
        out.append(f"{pair(p, names)}, {felt}")
    return "; ".join(out)


def _result(rec: HandRecord, lance: Lance, res: LanceResult, names: Names = None) -> str:
    """How a lance ended, in words."""
    e = _ENDING[lance]
    if res.lost_by:  # what was bet; who takes it is said after (a false «sí» lost it)
        return {"paso": "En paso.", "querido": f"Querid{e} a {stones(res.stake)}.",
                "no querido": f"No querid{e}.", "ordago": "Órdago querido: se enseñan las cartas.",
                }.get(res.how, "No se jugó: solo una pareja lo cantó.")
    if res.annulled and res.penalty:
        return (f"Se anula lo jugado (regla 19): {the_pair(res.winner or 0, names)} se apunta "
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
            return (f"No querido: {PUNTO_Y_MIEDO}, {the_pair(res.winner or 0, names)} se lleva una "
                    f"porque no, y la de punto al final.")
        return (f"No querid{e}: {the_pair(res.winner or 0, names)} se lleva "
                f"{stones(res.deje or 1)} porque no.")
    if res.how == "ordago":
        return "Órdago querido: se enseñan las cartas."
    if res.how == "not bet":
        return f"No se juega: solo una pareja {_ARTICLE[e]} tiene."
    return f"Nadie tiene {lance}."


_ARTICLE = {"a": "la", "os": "los", "o": "lo"}
_ORDER = {Lance.GRANDE: 0, Lance.CHICA: 1, Lance.PARES: 2, Lance.JUEGO: 3, Lance.PUNTO: 3}


def _event(ev: Event) -> str:
    """«Tres de duples (pares)», «Dos de envite a grande» (the lance said once)."""
    return capitalised(ev.why) + ("" if ev.lance in ev.why else f" ({ev.lance})")


def _lances(rec: HandRecord, a: Answer, names: Names = None) -> list[str]:
    """How each lance went: its words, how it ended, who wins it and with what."""
    lines = []
    robbed = robbed_lances(rec, a)
    for name, res in a.lances.items():
        lance = Lance(name)
        words = rec.bets.get(lance, ())
        heading = lance.heading
        bet = lance
        if lance == Lance.PUNTO and rec.fourth == Lance.JUEGO:  # declared juego, nobody has it
            bet = Lance.JUEGO  # the words were said at juego («¡órdago al juego!»)
            words = rec.bets.get(bet, ())
            heading = "Punto (se cantó juego, pero nadie lo tiene)"
        said = _words(rec, bet, words, names)
        line = f"  {heading}: " + (capitalised(said) + ". " if said else "")
        line += _result(rec, lance, res, names)
        e = _ENDING[lance]
        if res.lost_by and res.winner is not None:
            p = res.lost_by[0]
            line += (f" {_WINS[lance]} {the_pair(res.winner, names)}: {the_pair(p, names)} "
                     f"{_ARTICLE[e]} pierde por la equivocación.")
        elif res.lost_by:
            line += " No es de nadie: las dos parejas se equivocaron."
        elif res.seat is not None:
            line += (f" {_WINS[lance]} {seat_in_pair(res.seat, names)} con "
                     f"{_jugada(rec, lance, res.seat)}{_tie(rec, lance, res.seat, names)}.")
        if lance in robbed and res.winner is not None:
            line += (f" {capitalised(the_pair(res.winner, names))} roba {lance.the}: las cartas "
                     f"eran de {pair(1 - res.winner, names)}.")
        lines.append(line)
    if TRAN_TRAN in answer_names(a):
        lines.append("  Tran-tran: un lance tras otro en paso.")
    lines.extend(f"  {capitalised(r)}." for r in a.rulings)
    return lines


def _tanteo(a: Answer, target: int, names: Names = None) -> list[str]:
    """The events that counted, in order, each with the score after it."""
    dejes = any(ev.kind == DEJE for ev in (*a.tanteo, *a.not_counted))
    lines = ["El tanteo, por su orden" + (
        ": los dejes en el acto, cuando se rehúsa el envite («los dejes se irán contando en el "
        "acto, a medida que se produzcan»); lo demás al final de la mano, lance por lance:"
        if dejes else ":")]
    points = list(a.start)
    if not a.tanteo:
        lines.append("  No hay nada que contar.")
    won = a.won_at
    for ev in a.tanteo:
        before = points[ev.pair]
        points[ev.pair] += ev.stones
        when = ", en el acto" if ev.kind == DEJE else ""
        line = f"  {_event(ev)}, para {pair(ev.pair, names)}{when}: "
        if ev is won:
            line += f"llega a {points[ev.pair]}."
        else:
            line += f"van {_score(points)}."
            if (ESTAMOS_DENTRO in score_names(points[ev.pair], target)
                    and ESTAMOS_DENTRO not in score_names(before, target)):
                line += f" «Estamos dentro», dice {the_pair(ev.pair, names)}."
        lines.append(line)
    return lines


def _not_counted(a: Answer, names: Names = None) -> list[str]:
    """What was not counted, and why: the juego won before it, or the órdago."""
    if not a.not_counted:
        return []
    won = a.won_at
    if a.ordago is not None:
        lines = [f"No se cuenta, porque el órdago {Lance(a.ordago).a} acabó la mano: solo cuentan "
                 f"los dejes, que se cuentan en el acto:"]
    elif won is not None:
        lines = [f"No se cuenta, porque {the_pair(won.pair, names)} ya había ganado el juego con "
                 f"«{won.why}» ({won.lance}), y lo que se cuenta después ya no vale:"]
    else:
        lines = ["No se cuenta:"]
    lines += [f"  {_event(ev)}, de {pair(ev.pair, names)}." for ev in a.not_counted]
    if won is not None and won.kind == DEJE:
        before = sorted({ev.lance for ev in a.not_counted
                         if _ORDER[Lance(ev.lance)] < _ORDER[Lance(won.lance)]},
                        key=lambda name: _ORDER[Lance(name)])
        if before:
            earlier = " y ".join(Lance(n).the for n in before)
            lines.append(f"  {capitalised(earlier)} va{'n' if len(before) > 1 else ''} antes que "
                         f"{Lance(won.lance).the}, pero el deje {Lance(won.lance).of} se contó en el "
                         f"acto, durante los envites, y {earlier} se cuenta{'n' if len(before) > 1 else ''}"
                         f" al final de la mano.")
    return lines


def explain(rec: HandRecord, answer: Answer | None = None, names: Names = None) -> list[str]:
    """The narration of ``rec`` (scored again unless its ``answer`` is given); ``names``: the
    players' names, one per seat (empty where none), where the partida has them."""
    a = answer or score_hand(rec)
    target = rec.rules.target
    head = (f"Mano {seat(rec.mano, names)}. {capitalised(the_pair(0, names))} contra "
            f"{the_pair(1, names)}; van {_score(rec.score)}, a {target}")
    dentro = [p for p in (0, 1) if ESTAMOS_DENTRO in score_names(rec.score[p], target)]
    head += "".join(f"; {the_pair(p, names)} está dentro" for p in dentro) + "."
    lines = [head]
    for m in a.mistakes:
        lines.append(f"Equivocación: {seat(m.seat, names)} {m.why}.")
    lines.append("Los lances:")
    lines += _lances(rec, a, names)
    lines += _tanteo(a, target, names)
    won = a.won_at
    if won is not None:
        lines.append(f"{capitalised(the_pair(won.pair, names))} llega a {a.score[won.pair]} con «{won.why}» "
                     f"y gana el juego.")
    elif a.ordago is not None and a.winner is not None:
        pre = " (ya lo había ganado por un deje)" if a.tanteo and a.score[a.winner] >= target else ""
        lines.append(f"El órdago {Lance(a.ordago).a} lo gana {the_pair(a.winner, names)}: gana el "
                     f"juego{pre}.")
    elif a.ordago is not None:
        last = list(a.lances.values())[-1]
        why = ("las dos parejas se equivocaron" if len(last.lost_by) == 2
               else "nadie tiene la jugada")
        lines.append(f"El órdago {Lance(a.ordago).a} no lo gana nadie: {why}.")
    lines += _not_counted(a, names)
    lines.append(closing(a, names))
    return lines


def closing(a: Answer, names: Names = None) -> str:
    """The hand's last word: where the stones stand, or who won the juego and by how much."""
    w = a.winner
    if w is None:
        return (f"Quedan {_score(a.score)} ({_stones_of(a.score, a.target, names)}); nadie gana el juego "
                f"en esta mano.")
    if a.ordago is not None and a.score[w] < a.target:
        return f"Juego para {pair(w, names)}, por el órdago (iban {_score(a.score)})."
    by = a.score[w] - a.score[1 - w]
    return (f"Juego para {pair(w, names)}, por {stones(by)} {'piedra' if by == 1 else 'piedras'} "
            f"de diferencia: {_score(a.score)}.")
