"""The tanteo: a hand's stones counted event by event, in strict order.

1. During the bets, each deje the moment its envite is refused (lance order).
2. At the end of the hand, lance by lance (grande, chica, pares, juego or punto),
   stake before bonus, each seat's bonus one event, the better jugada first.

The first pair to reach the target wins the juego at that event and nothing
after it counts. An accepted órdago ends the hand: the pair that wins that lance
wins the juego (unless a deje already won it).

A false declaration («pares sí», «juego sí» without them) is judged by
``rules.penalties``: ``"lance"`` (the default: the beginners' treatise and the lances
text: the offending pair loses the lance and its envites, whatever the partner holds;
a hidden jugada does not count; when nobody holds juego the last lance is punto),
``"mundial"`` (rule 19 of the World Championship rules, case by case) or ``"none"``
(no penalty: the cards decide, as records written before ``"lance"`` were scored).
See ``docs/decisions-engine.md``.
"""

from __future__ import annotations

from collections.abc import Iterable

from table.answer import (
    BONUS,
    DEJE,
    ENVITE,
    PASO_STONE,
    PENALTY,
    PUNTO_STONE,
    Answer,
    Event,
    LanceResult,
    Mistake,
)
from table.betting import (
    EN_PASO,
    NO_QUERIDO,
    NOT_BET,
    ORDAGO_QUERIDO,
    PASSED,
    QUERIDO,
    UNBET,
    Outcome,
)
from table.jugadas import PARES_BONUS, PARES_KINDS, Jugadas
from table.lances import How, Lance
from table.numerals import stones as say
from table.people import seat as say_seat
from table.people import seats as say_seats
from table.people import the_pair
from table.record import HandRecord, parse
from table.rules import LANCE, MUNDIAL, Rules

NONE = How.NONE


class _Plan:
    """One lance's result and its events (the deje during the bets, the rest at the end)."""

    __slots__ = ("lance", "winner", "how", "seat", "deje", "end", "stake", "annulled", "penalty",
                 "lost_by")

    def __init__(self, lance: Lance, winner: int | None, how: str, seat: int | None,
                 deje: Event | None, end: list[Event], stake: int = 0) -> None:
        self.lance, self.winner, self.how, self.seat = lance, winner, how, seat
        self.deje, self.end, self.stake = deje, end, stake
        self.annulled = False
        """Rule 19 annulled what was played in the lance (its envites, deje or órdago)."""
        self.penalty = False
        """Rule 19 gave the lance to the other pair with a penalty deje."""
        self.lost_by: tuple[int, ...] = ()
        """The pairs that lost the lance by a false «sí» (``penalties: "lance"``)."""

    def result(self) -> LanceResult:
        stones = 0 if self.how == ORDAGO_QUERIDO else (
            (self.deje.stones if self.deje else 0) + sum(e.stones for e in self.end))
        return LanceResult(self.lance, self.winner, self.how, stones, self.seat, self.stake,
                           self.deje.stones if self.deje else 0, self.annulled, self.penalty,
                           self.lost_by)


def _annul(plan: _Plan) -> _Plan:
    plan.annulled = True
    return plan


def _bonus(lance: Lance, pair: int, holders: Iterable[int], j: Jugadas, rules: Rules) -> list[Event]:
    """Each seat of ``pair`` among ``holders``: its bonus, better jugada first."""
    seats = [s for s in holders if s & 1 == pair]
    if not seats:
        return []
    if len(seats) == 2:
        seats = j.ranked(lance, seats)
    events = []
    for i, seat in enumerate(seats):
        sj = j.seats[seat]
        if lance == Lance.PARES:
            value, name = PARES_BONUS[sj.pares_kind], PARES_KINDS[sj.pares_kind]
        elif sj.sum == 31:
            value, name = 3, "treinta y una real" if (sj.real and rules.real) else "treinta y una"
        else:
            value, name = 2, Lance.JUEGO
        why = f"{say(value)} de {name}" + (" del compañero" if i else "")
        events.append(Event(lance, pair, value, why, BONUS, seat))
    return events


def _plan(lance: Lance, o: Outcome, holders: Iterable[int] | None, j: Jugadas,
          rules: Rules) -> _Plan:
    """The lance scored on the cards: ``holders`` are the seats that may win it
    (None: all four, as in grande and chica)."""
    held = list(holders) if holders is not None else None
    seat = j.best(lance, held)
    pair = None if seat is None else seat & 1
    how = o.how
    deje: Event | None = None
    end: list[Event] = []
    if how == NO_QUERIDO:
        assert o.pair is not None
        pair, seat = o.pair, None
        deje = _deje(lance, o, rules)
        if lance == Lance.PUNTO:
            end = [Event(lance, pair, 1, "una de punto", PUNTO_STONE)]
        elif lance in (Lance.PARES, Lance.JUEGO):
            end = _bonus(lance, pair, held or (), j, rules)
    elif how == ORDAGO_QUERIDO or pair is None:
        if pair is None and how == NOT_BET:
            how = NONE
    elif how == QUERIDO:
        end = [Event(lance, pair, o.stake, f"{say(o.stake)} de envite a {lance}", ENVITE)]
        if lance == Lance.PUNTO:
            end.append(Event(lance, pair, 1, "una de punto", PUNTO_STONE))
        elif lance in (Lance.PARES, Lance.JUEGO):
            end += _bonus(lance, pair, held or (), j, rules)
    elif lance in (Lance.GRANDE, Lance.CHICA):
        end = [Event(lance, pair, 1, f"una de {lance} en paso", PASO_STONE)]
    elif lance == Lance.PUNTO:
        end = [Event(lance, pair, 1, "una de punto", PUNTO_STONE)]
    else:  # pares or juego, en paso or not bet: the bonus
        end = _bonus(lance, pair, held or (), j, rules)
    return _Plan(lance, pair, how, seat, deje, end, o.stake if how == QUERIDO else 0)


def _deje(lance: Lance, o: Outcome, rules: Rules) -> Event:
    """The deje of a refused envite, counted in the act; with mus con deje (``rules.deje``)
    a refused raise in pares, juego or punto adds a stone («añadir una piedra adicional ...
    cuando, tras aumentar una apuesta, la pareja contraria no la acepta»)."""
    assert o.pair is not None
    why = f"{say(o.deje)} porque no"
    if rules.deje and o.deje >= 2 and not lance.everyone:  # a first envite's deje is 1
        return Event(lance, o.pair, o.deje + 1, why + " y una de deje", DEJE)
    return Event(lance, o.pair, o.deje, why, DEJE)


def _penalty(lance: Lance, pair: int, holders: Iterable[int], j: Jugadas, rules: Rules,
             why: str) -> _Plan:
    """Rule 19: the lance goes to ``pair``: one stone of deje, then its bonus."""
    end = [Event(lance, pair, 1, why, PENALTY)]
    if lance == Lance.PUNTO:
        end.append(Event(lance, pair, 1, "una de punto", PUNTO_STONE))
    else:
        end += _bonus(lance, pair, holders, j, rules)
    plan = _Plan(lance, pair, NO_QUERIDO, None, None, end)
    plan.penalty = True
    return _annul(plan)


def _mistakes(rec: HandRecord, asked: tuple[bool, bool]) -> tuple[Mistake, ...]:
    """The false declarations, among those that were asked for (``asked``: «¿pares?»,
    «¿juego?»; an órdago accepted before a lance ends the hand before its question)."""
    out = []
    has = rec.holds()
    for i, lance in enumerate((Lance.PARES, Lance.JUEGO)):
        if not asked[i]:
            continue
        for seat in range(4):
            said, held = rec.declared[i][seat], has[i][seat]
            if said and not held:
                why = f"cantó {lance} sin " + ("tenerlos" if lance == Lance.PARES else "tenerlo")
            elif held and not said:
                why = f"no cantó {lance} " + ("teniéndolos" if lance == Lance.PARES else "teniéndolo")
            else:
                continue
            out.append(Mistake(seat, lance, said, why))
    return tuple(out)


def _mundial_pares(o: Outcome, decl: tuple[bool, ...], has: tuple[bool, ...], j: Jugadas,
                   rules: Rules, rulings: list[str]) -> _Plan:
    """Rule 19, pares: «cantar pares no teniendo», «no cantar pares teniendo»."""
    true = [s for s in range(4) if decl[s] and has[s]]
    false = [s for s in range(4) if decl[s] and not has[s]]
    if any(has[s] and not decl[s] for s in range(4)):
        rulings.append("regla 19: pares no cantados no valen, ni para envites ni para el tanteo")
    pairs = {s & 1 for s in false}
    if not pairs:
        return _plan(Lance.PARES, o, true, j, rules)
    if len(pairs) == 2:
        rulings.append("regla 19: las dos parejas cantaron pares sin tenerlos: se anula lo "
                       "jugado a pares y se cuentan los pares de quien los tiene")
        return _annul(_plan(Lance.PARES, UNBET, true, j, rules))
    p = pairs.pop()
    q = 1 - p
    p_has, q_has = any(s & 1 == p for s in true), any(s & 1 == q for s in true)
    if not p_has:
        rulings.append(f"regla 19: {the_pair(p)} cantó pares sin tenerlos y su compañero no "
                       f"los tiene: se anula lo jugado a pares y {the_pair(q)} cuenta sus pares")
        return _annul(_plan(Lance.PARES, UNBET, true, j, rules))
    if q_has:
        rulings.append(f"regla 19: {the_pair(p)} cantó pares sin tenerlos; su compañero y los "
                       f"contrarios los tienen: se anula lo jugado y {the_pair(q)} se apunta el "
                       f"deje de pares y sus pares")
        return _penalty(Lance.PARES, q, true, j, rules, "una de deje por pares mal cantados")
    return _plan(Lance.PARES, o, true, j, rules)


def _mundial_juego(lance: Lance, o: Outcome, decl: tuple[bool, ...], has: tuple[bool, ...],
                   j: Jugadas, rules: Rules, rulings: list[str]) -> _Plan:
    """Rule 19, juego: «cantar juego no teniendo», «no cantar juego teniendo».
    ``lance`` is the one that was played (juego, or punto when nobody declared juego)."""
    true = [s for s in range(4) if decl[s] and has[s]]
    false = [s for s in range(4) if decl[s] and not has[s]]
    hidden = [s for s in range(4) if has[s] and not decl[s]]
    no_juego = [s for s in range(4) if not has[s]]
    if not false and not hidden:
        return _plan(lance, o, true if lance == Lance.JUEGO else no_juego, j, rules)
    pairs = {s & 1 for s in false + hidden}
    if len(pairs) == 2 or (false and hidden):
        rulings.append("regla 19: juego mal cantado por las dos parejas: se anula lo jugado "
                       "y se cuenta por las cartas")
        if any(has):
            return _annul(_plan(Lance.JUEGO, UNBET, [s for s in range(4) if has[s]], j, rules))
        return _annul(_plan(Lance.PUNTO, Outcome(EN_PASO), no_juego, j, rules))
    p = pairs.pop()
    q = 1 - p
    p_has, q_has = any(s & 1 == p for s in true), any(s & 1 == q for s in true)
    if false:
        if not any(has):
            rulings.append(f"regla 19: {the_pair(p)} cantó juego sin tenerlo y nadie lo tiene: "
                           f"{the_pair(q)} se apunta el deje de punto y el punto")
            return _penalty(Lance.PUNTO, q, (), j, rules, "una de deje de punto por juego mal cantado")
        if p_has and not q_has:
            rulings.append(f"regla 19: {the_pair(p)} cantó juego sin tenerlo; su compañero lo "
                           f"tiene y los contrarios no: no influye")
            return _plan(lance, o, true, j, rules)
        if q_has and not p_has:
            rulings.append(f"regla 19: {the_pair(p)} cantó juego sin tenerlo y su compañero no "
                           f"lo tiene: se anula cualquier envite y {the_pair(q)} cuenta su juego")
            return _annul(_plan(Lance.JUEGO, UNBET, true, j, rules))
        rulings.append(f"regla 19: {the_pair(p)} cantó juego sin tenerlo; su compañero y los "
                       f"contrarios lo tienen: se anulan los envites y {the_pair(q)} se apunta "
                       f"el deje y su juego")
        return _penalty(Lance.JUEGO, q, true, j, rules, "una de deje por juego mal cantado")
    # hidden juego only, in pair p
    if not true:
        rulings.append(f"regla 19: {the_pair(p)} no cantó juego teniéndolo y nadie más lo tiene: "
                       f"se anula lo jugado a punto y cuenta lo que vale su juego")
        return _annul(_plan(Lance.JUEGO, UNBET, hidden, j, rules))
    if p_has and not q_has:
        rulings.append(f"regla 19: {the_pair(p)} no cantó un juego; su compañero lo tiene y los "
                       f"contrarios no: cuentan los dos juegos")
        return _plan(Lance.JUEGO, o, true + hidden, j, rules)
    if p_has and q_has:
        rulings.append(f"regla 19: {the_pair(p)} no cantó un juego; su compañero y los contrarios "
                       f"lo tienen: ese juego no vale, solo el del compañero")
        return _plan(Lance.JUEGO, o, true, j, rules)
    rulings.append(f"regla 19: {the_pair(p)} no cantó juego teniéndolo, su compañero no lo tiene "
                   f"y los contrarios sí: {the_pair(q)} se apunta el deje de juego y su juego")
    return _penalty(Lance.JUEGO, q, true, j, rules, "una de deje por juego no cantado")


def _them(lance: Lance) -> str:
    return "tenerlos" if lance == Lance.PARES else "tenerlo"


def _lance_rule(lance: Lance, said: Lance, o: Outcome, decl: tuple[bool, ...],
                has: tuple[bool, ...], j: Jugadas, rules: Rules, rulings: list[str]) -> _Plan:
    """``penalties: "lance"``, the beginners' treatise and the lances text: «si alguno de los
    jugadores declara tener pares o juego sin tenerlos, la pareja perderá ese lance y los
    envites que en él pudiera haber realizado, aunque las cartas del compañero sean mejores»;
    a seat that hides its jugada «perderá la ocasión de jugar estos lances».

    ``said`` is the lance the declarations were about (pares or juego), ``lance`` the one
    played (juego, or punto when nobody declared juego); ``has`` what the cards hold."""
    true = [s for s in range(4) if decl[s] and has[s]]
    false = [s for s in range(4) if decl[s] and not has[s]]
    for s in range(4):
        if has[s] and not decl[s]:
            rulings.append(f"{say_seat(s)} no cantó {said} teniéndo{'los' if said == Lance.PARES else 'lo'}"
                           f": no cuenta{'n' if said == Lance.PARES else ''} («sólo los juegan "
                           f"los que los tienen»)")
    if lance == Lance.PUNTO:  # nobody said «juego sí»: punto among the seats without juego
        return _plan(lance, o, [s for s in range(4) if not has[s]], j, rules)
    if not false:
        return _plan(lance, o, true, j, rules)
    scored: Lance = lance
    if lance == Lance.JUEGO and not any(has):
        scored = Lance.PUNTO  # «si ninguno de los cuatro jugadores tiene juego, se apuesta al punto»
        rulings.append("nadie tiene juego: se cuenta el punto, como si se hubiera jugado")
    liars = sorted({s & 1 for s in false})
    for p in liars:
        liars_p = [s for s in false if s & 1 == p]
        who = f"{say_seats(liars_p)} {'cantó' if len(liars_p) == 1 else 'cantaron'}"
        rulings.append(f"{who} {said} sin {_them(said)}: {the_pair(p)} pierde "
                       f"el lance y sus envites, aunque las cartas del compañero sean mejores"
                       + ("" if len(liars) == 2 else f"; lo gana {the_pair(1 - p)}"))
    if len(liars) == 2:
        rulings.append(f"las dos parejas cantaron {said} sin {_them(said)}: el lance no es de nadie")
        plan = _Plan(scored, None, o.how, None, None, [])
        plan.lost_by = (0, 1)
        return plan
    p = liars[0]
    q = 1 - p
    deje: Event | None = None
    end: list[Event] = []
    if o.how == NO_QUERIDO:
        if o.pair == q:  # the others' envite was refused: theirs in the act, as always
            deje = _deje(scored, o, rules)
        else:  # the offending pair's envite, refused: its deje goes to the others
            d = _deje(scored, o, rules)
            end.append(Event(scored, q, d.stones, f"{d.why}, por {said} mal cantado"
                             + ("s" if said == Lance.PARES else ""), PENALTY))
    elif o.how == QUERIDO:
        end.append(Event(scored, q, o.stake, f"{say(o.stake)} de envite a {scored}", ENVITE))
    if o.how != ORDAGO_QUERIDO:
        if scored == Lance.PUNTO:
            end.append(Event(scored, q, 1, "una de punto", PUNTO_STONE))
        else:
            end += _bonus(scored, q, true, j, rules)
    plan = _Plan(scored, q, o.how, None, deje, end, o.stake if o.how == QUERIDO else 0)
    plan.lost_by = (p,)
    return plan


def score(rec: HandRecord) -> Answer:
    """Score one checked hand record."""
    j = rec.jugadas
    rules = rec.rules
    ordago = rec.ordago
    # «¿pares?» is asked after chica, «¿juego?» after pares: not after an órdago that ended the hand
    asked = (ordago is None or ordago in _AFTER_CHICA, ordago is None or ordago in _AFTER_PARES)
    mistakes = _mistakes(rec, asked) if rec.declared_given != (False, False) else ()
    mundial = rules.penalties == MUNDIAL and bool(mistakes)
    texts = rules.penalties == LANCE and bool(mistakes)
    rulings: list[str] = []
    plans: list[_Plan] = []
    for lance, o in rec.outcomes.items():
        if lance == Lance.GRANDE or lance == Lance.CHICA:
            plans.append(_plan(lance, o, None, j, rules))
            continue
        if mundial:
            has_pares, has_juego = rec.holds()
            if lance == Lance.PARES:
                plan = _mundial_pares(o, rec.declared[0], has_pares, j, rules, rulings)
            else:
                plan = _mundial_juego(lance, o, rec.declared[1], has_juego, j, rules, rulings)
        elif texts:
            i = 0 if lance == Lance.PARES else 1
            plan = _lance_rule(lance, Lance.PARES if i == 0 else Lance.JUEGO, o, rec.declared[i],
                               rec.holds()[i], j, rules, rulings)
        else:
            plan = _plan(lance, o, _holders(lance, j), j, rules)
        if o.how == ORDAGO_QUERIDO and plan.annulled:
            # «se invalida cualquier jugada habida»: the órdago goes with the rest of the lance
            rulings.append(f"regla 19: el órdago {Lance(lance).a} se anula con lo jugado "
                           f"{Lance(lance).a}, y la mano se cuenta como si no se hubiera echado")
            ordago = None
            plans.append(plan)
            if lance == Lance.PARES:  # juego was never asked: the last lance is scored en paso
                fourth = Lance.JUEGO if any(s.juego for s in j.seats) else Lance.PUNTO
                holders = _holders(fourth, j)
                bettable = fourth == Lance.PUNTO or len({s & 1 for s in holders}) == 2
                plans.append(_plan(fourth, PASSED if bettable else UNBET, holders, j, rules))
            break
        if o.how == ORDAGO_QUERIDO and plan.how != ORDAGO_QUERIDO:
            # rule 19 left what was played standing: it only decides who wins the órdago
            plan = _Plan(plan.lance, plan.winner, ORDAGO_QUERIDO, plan.seat, None, [])
        plans.append(plan)

    target = rules.target
    points = list(rec.score)
    winner: int | None = None
    counted: list[Event] = []
    skipped: list[Event] = []
    events = [p.deje for p in plans if p.deje is not None]
    ending = [e for p in plans for e in p.end]
    if ordago is None:
        events += ending
    for ev in events:
        if winner is not None:
            skipped.append(ev)
            continue
        points[ev.pair] += ev.stones
        counted.append(ev)
        if points[ev.pair] >= target:
            winner = ev.pair
    if ordago is not None:
        skipped += ending
        if winner is None:
            winner = plans[-1].winner
    return Answer(
        score=(points[0], points[1]),
        winner=winner,
        lances={p.lance: p.result() for p in plans},
        tanteo=tuple(counted),
        mistakes=mistakes,
        start=rec.score,
        target=target,
        not_counted=tuple(skipped),
        ordago=ordago,
        rulings=tuple(rulings),
    )


def _holders(lance: Lance, j: Jugadas) -> list[int]:
    """The seats whose cards hold the jugada of ``lance`` (pares, juego or punto)."""
    seats = j.seats
    if lance == Lance.PARES:
        return [s for s in range(4) if seats[s].pares]
    if lance == Lance.JUEGO:
        return [s for s in range(4) if seats[s].juego]
    return [s for s in range(4) if seats[s].punto]


_AFTER_CHICA = frozenset((Lance.PARES, Lance.JUEGO, Lance.PUNTO))
_AFTER_PARES = frozenset((Lance.JUEGO, Lance.PUNTO))


def score_text(text: str | bytes) -> Answer:
    """Parse and score one record given as JSON text."""
    return score(parse(text))
