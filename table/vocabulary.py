"""The names players give to hands, scores and results (from the rule texts of docs/sources.md).

The scorer can name them; the display says them. Each function returns the
names that fit, in Spanish, possibly none.

>>> hand_names((12, 3, 12, 1))
['solomillo']
>>> score_names(36, 40)
['estamos dentro']
"""

from __future__ import annotations

from collections.abc import Iterable

from table.answer import Answer
from table.jugadas import seat_jugadas, strength
from table.match import Partida
from table.record import HandRecord
from table.rules import DEFAULT, Rules

SOLOMILLO = "solomillo"
"""Three reyes and an as (with 8 reyes a 3 is a rey and a 2 an as): medias and 31."""
TIO_PERETE = "tío Perete"
"""4, 5, 6 and 7: no grande, no chica, no pares, no juego, a poor punto."""
LA_REAL = "la real"
"""Three sietes and a figure, where the rules make the 31 real valid."""
CIEGO = "ciego"
"""Neither pares nor juego (the seña: closing the eyes)."""
TORIBIO = "toribio"
"""Two ases, exactly."""
ESTAMOS_DENTRO = "estamos dentro"
"""Fewer than five stones to go: the amarracos go back to the pool."""
GANDUL = "gandul"
"""19 stones («gandul y mano no puede perder»)."""
ESTAMOS_FUERA = "estamos fuera"
"""The juego is won."""
PUNTO_Y_MIEDO = "punto y miedo"
"""A punto envite refused: una porque no and una de punto."""
TRAN_TRAN = "tran-tran"
"""Every lance that was played went en paso."""
ZAPATERIA = "zapatería"
"""A vaca (of three juegos or more) won without the other pair winning a juego."""
ZAMORA = "dos a cero, y Zamora de portero"
"""Two juegos to none in a vaca of three."""


def hand_names(ranks: Iterable[int], rules: Rules = DEFAULT) -> list[str]:
    """Names for one seat's four cards (their ranks)."""
    ranks = tuple(ranks)
    st = sorted((strength(r, rules.reyes) for r in ranks), reverse=True)
    sj = seat_jugadas(ranks, rules)
    names = []
    if st == [10, 10, 10, 1]:
        names.append(SOLOMILLO)
    if sorted(ranks) == [4, 5, 6, 7]:
        names.append(TIO_PERETE)
    if sj.real and rules.real:
        names.append(LA_REAL)
    if not sj.pares_kind and not sj.juego:
        names.append(CIEGO)
    if st.count(1) == 2:
        names.append(TORIBIO)
    return names


def score_names(stones: int, target: int = 40) -> list[str]:
    """Names for one pair's stones."""
    names = []
    if target - 5 < stones < target:
        names.append(ESTAMOS_DENTRO)
    if stones == 19:
        names.append(GANDUL)
    if stones >= target:
        names.append(ESTAMOS_FUERA)
    return names


def answer_names(answer: Answer) -> list[str]:
    """Names for how a hand went."""
    names = []
    if answer.winner is not None:
        names.append(ESTAMOS_FUERA)
    punto = answer.lances.get("punto")
    if punto is not None and punto.how == "no querido" and punto.deje:
        names.append(PUNTO_Y_MIEDO)
    played = [r for r in answer.lances.values() if r.how not in ("not bet", "none")]
    if len(played) >= 2 and all(r.how == "paso" for r in played):
        names.append(TRAN_TRAN)
    return names


def robbed_lances(rec: HandRecord, answer: Answer) -> list[str]:
    """The lances won by a refused envite that the cards gave to the other pair: «lo cual se
    llama "robar", en este caso "robar la chica"» (the beginners' treatise)."""
    out = []
    j = rec.jugadas
    for lance, r in answer.lances.items():
        if r.how != "no querido" or r.winner is None or r.penalty or r.lost_by:
            continue
        seat = j.best(lance)
        if seat is not None and seat & 1 != r.winner:
            out.append(lance)
    return out


def robbed(rec: HandRecord, answer: Answer) -> list[str]:
    """«Robar»: lances won by a refused envite that the cards gave to the other pair
    (``["robar la chica"]``)."""
    article = {"grande": "la", "chica": "la", "pares": "los"}
    return [f"robar {article.get(lance, 'el')} {lance}" for lance in robbed_lances(rec, answer)]


def match_names(partida: Partida) -> list[str]:
    """Names for where the partida stands."""
    return juegos_names(partida.won_juegos, partida.juegos,
                        partida.vaca_results[-1] if partida.vaca_results and sum(partida.won_juegos) == 0
                        else None)


def juegos_names(standing: Iterable[int], juegos: int,
                 vaca: tuple[int, int] | None = None) -> list[str]:
    """Names for the juegos won in a vaca to ``juegos``: ``standing`` in the vaca being
    played, ``vaca`` the juegos of the vaca just won (if one was).

    Zapatería: «cuando una pareja gana los tres juegos seguidos … los contrarios que no han
    ganado un solo juego» (a vaca of three or more won with the other pair at none);
    «dos a cero, y Zamora de portero»: 2-0 with one juego to go (a vaca of three)."""
    if vaca is not None:
        return [ZAPATERIA] if juegos >= 3 and 0 in vaca else []
    if juegos == 3 and sorted(standing) == [0, 2]:
        return [ZAMORA]
    return []


def envite_name(n: int) -> str | None:
    """What some envites are called: «la mano de un niño» (5), «los dientes del choto» (18)."""
    return {5: "la mano de un niño", 18: "los dientes del choto"}.get(n)
