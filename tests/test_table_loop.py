"""The table's state machine, driven by commands and by a reader that returns chosen cards."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.events import EventKind
from firmware.journal import Journal, JournalError
from firmware.table_commands import (
    CommandRefused,
    Confirm,
    Correct,
    Declare,
    LanceOutcome,
    NewPartida,
    Reopen,
    Say,
    UndoHand,
    Unsay,
    parse_command,
)
from firmware.table_loop import FaultKind, LoopSettings, TableLoop, expected_stones
from table.cards import BY_TEXT, Card
from table.generate import random_record
from table.record import HandRecord
from table.rules import Rules
from table.tanteo import score
from vision.reading import Reading
from vision.stones import StoneCount

FRAME = np.zeros((8, 8, 3), np.uint8)
HAND = [["12o", "3c", "1e", "4b"], ["11o", "11c", "7e", "7b"],
        ["5o", "6c", "2b", "10e"], ["10o", "10c", "1o", "12b"]]


class FakeReader:
    """Reads whatever cards and stones the test lays on the «table»."""

    def __init__(self) -> None:
        self.cards: list[list[str]] = [[], [], [], []]
        self.stones = StoneCount()
        self.impossible: tuple[str, ...] = ()
        self.reads = 0

    def read(self, frame: Any) -> Reading:
        self.reads += 1
        return Reading(tuple(tuple(Card.parse(c) for c in seat) for seat in self.cards), self.stones,
                       impossible=self.impossible)


def new_loop(journal: Journal | None = None, **kw: Any) -> tuple[TableLoop, FakeReader]:
    reader = FakeReader()
    return TableLoop(LoopSettings(**kw), reader=reader, journal=journal), reader


def lay(loop: TableLoop, reader: FakeReader, cards: list[list[str]], stones: StoneCount | None = None
        ) -> dict[str, Any]:
    reader.cards = [list(s) for s in cards]
    reader.stones = stones or StoneCount(22 - sum(expected_stones(loop.snapshot()["score"], 40)),
                                         tuple(expected_stones(loop.snapshot()["score"], 40)))  # type: ignore[arg-type]
    return loop.read_now([FRAME])


def play(loop: TableLoop, reader: FakeReader, obj: dict[str, Any]) -> dict[str, Any]:
    """Lay a record's cards, then say its words one by one, as the table would get them."""
    state = lay(loop, reader, obj["cards"])
    rec = HandRecord.from_json(obj)
    for lance in rec.lances:
        for w in rec.bets.get(lance, ()):
            state = loop.submit(Say(w.seat, w.word, w.n))
    return state


def confirm(loop: TableLoop) -> dict[str, Any]:
    s = loop.snapshot()
    return loop.submit(Confirm(s["confirm_by"][0]))


def test_a_hand_from_the_first_word_to_the_confirmed_score() -> None:
    loop, reader = new_loop()
    s = loop.snapshot()
    assert (s["phase"], s["mano"], s["score"], s["bets"]["lance"], s["bets"]["speaker"]) == (
        "playing", 0, [0, 0], "grande", 0)
    loop.submit(Say(0, "envido", 2))
    loop.submit(Say(1, "no quiero"))
    loop.submit(Say(3, "quiero"))
    loop.submit(LanceOutcome("chica", "en paso"))
    s = loop.snapshot()
    assert s["bets"]["asked"] == ["pares"] and s["bets"]["legal"] == []  # ¿pares? before the cards
    s = lay(loop, reader, HAND)
    assert s["phase"] == "scored" and s["bets"]["lance"] == "pares"  # nobody spoke in pares: en paso
    want = score(HandRecord.from_json({"format": "mus-hand/1", "mano": 0, "score": [0, 0], "cards": HAND,
                                       "bets": {"grande": [[0, "envido", 2], [1, "no quiero"], [3, "quiero"]]}}))
    assert s["answer"] == want.to_json() and s["answer"]["score"] == [3, 9]
    assert s["confirm_by"] == [0, 2]  # the hand went against pair 0: pair 0 confirms
    with pytest.raises(CommandRefused, match="pareja contraria"):
        loop.submit(Confirm(1))
    s = loop.submit(Confirm(2))
    assert (s["phase"], s["score"], s["mano"], s["hand_no"], s["cards"]) == ("playing", [3, 9], 1, 2, None)
    [hand] = loop.hands()
    assert hand.n == 1 and hand.answer.score == (3, 9) and hand.by == 2


def test_a_refused_word_changes_nothing() -> None:
    loop, _ = new_loop()
    before = loop.snapshot()
    with pytest.raises(CommandRefused, match="^en grande habla el asiento 1, no el asiento 3$") as refused:
        loop.submit(Say(2, "paso"))  # said in Spanish, with its code for the edges
    assert (refused.value.code, refused.value.params) == ("not_turn", {"lance": "grande", "seat": 2, "speaker": 0})
    with pytest.raises(CommandRefused):
        loop.submit(Unsay())
    with pytest.raises(CommandRefused, match="tanteada"):
        loop.submit(Confirm(1))
    assert loop.snapshot() == before and loop.bus.last_seq == before["seq"]


@pytest.mark.parametrize(("outcome", "n", "by", "how", "pair", "stones"), [
    ("en paso", None, None, "paso", None, 0),
    ("querido", 5, 1, "querido", None, 5),
    ("no querido", 1, 2, "no querido", 0, 1),
    ("no querido", 7, 3, "no querido", 1, 7),
    ("ordago", None, 2, "ordago", None, 0),
])
def test_a_lance_ends_in_one_step(outcome: str, n: int | None, by: int | None, how: str,
                                  pair: int | None, stones: int) -> None:
    loop, _ = new_loop()
    s = loop.submit(LanceOutcome("grande", outcome, n, by))
    o = s["bets"]["outcomes"]["grande"]
    assert o["how"] == how and o["pair"] == pair
    assert (o["stake"] if how == "querido" else o["deje"]) == stones
    if by is not None and how != "no querido":
        assert o["bettor"] == by
    with pytest.raises(CommandRefused):
        loop.submit(LanceOutcome("grande", "en paso"))  # grande is decided


@pytest.mark.parametrize(("outcome", "n", "by", "why"), [
    ("querido", 1, None, "2 piedras o más"),
    ("ordago", 3, 1, "no lleva número"),
    ("en paso", 2, None, "no lleva número"),
    ("no querido", 2, None, "qué pareja"),
])
def test_a_lance_outcome_that_cannot_be_is_refused(outcome: str, n: int | None, by: int | None, why: str) -> None:
    loop, _ = new_loop()
    before = loop.snapshot()
    with pytest.raises(CommandRefused, match=why):
        loop.submit(LanceOutcome("grande", outcome, n, by))
    assert loop.snapshot() == before


def test_an_impossible_table_waits_for_a_fix_and_never_scores_a_guess() -> None:
    loop, reader = new_loop()
    for lance in ("grande", "chica"):
        loop.submit(LanceOutcome(lance, "en paso"))
    short = [list(s) for s in HAND]
    short[2] = short[2][:3]
    short[1][0] = "12o"  # the rey de oros seen at seats 0 and 1
    s = lay(loop, reader, short)
    assert s["phase"] == "impossible" and s["answer"] is None
    assert any("12o" in p and "1 y 2" in p for p in s["problems"])  # seats as people count them
    assert any("asiento 3" in p for p in s["problems"])
    with pytest.raises(CommandRefused, match="no es posible"):
        loop.submit(Confirm(0))
    loop.submit(Correct(1, 0, Card.parse("11o")))
    s = loop.submit(Correct(2, 3, Card.parse("10e")))
    assert s["phase"] == "scored" and s["problems"] == [] and s["corrected"]
    assert s["cards"] == HAND


def test_a_reread_after_a_fix_on_the_felt() -> None:
    loop, reader = new_loop()
    reader.impossible = ("5 cards at seat 3",)
    s = lay(loop, reader, HAND)
    assert s["phase"] == "impossible" and "El asiento 4 tiene 5 cartas" in s["problems"]  # said in Spanish, 1-4
    reader.impossible = ()
    assert loop.read_now([FRAME])["phase"] != "impossible"


def test_a_misread_card_corrected_scores_the_true_hand() -> None:
    loop, reader = new_loop()
    obj = random_record(random.Random(4), Rules(), mano=0, score=[0, 0])
    rec = HandRecord.from_json(obj)
    wrong = [list(s) for s in obj["cards"]]
    free = next(c for c in ("1o", "2o", "3o", "4o", "5o", "6o", "7o", "10o", "11o", "12o")
                if all(c not in seat for seat in obj["cards"]))
    true_card, wrong[3][1] = wrong[3][1], free
    lay(loop, reader, wrong)
    for lance in ("pares", "juego"):  # the players said what they hold, whatever the camera read
        for seat, says in enumerate(rec.holds()[0 if lance == "pares" else 1]):
            loop.submit(Declare(seat, lance, says))
    for lance in rec.lances:
        for w in rec.bets.get(lance, ()):
            loop.submit(Say(w.seat, w.word, w.n))
    misread = loop.snapshot()
    s = loop.submit(Correct(3, 1, Card.parse(true_card)))
    assert s["cards"] == obj["cards"] and s["phase"] == "scored" and s["corrected"]
    want = score(HandRecord.from_json({**obj, "declared": {"pares": list(rec.holds()[0]),
                                                          "juego": list(rec.holds()[1])}}))
    assert s["answer"] == want.to_json()
    assert misread["cards"] != s["cards"]


def test_undo_brings_the_last_hand_back_and_deletes_nothing(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    loop, reader = new_loop(journal)
    play(loop, reader, random_record(random.Random(1), Rules(), mano=0, score=[0, 0]))
    after_one = confirm(loop)
    s = loop.submit(UndoHand())
    assert s["phase"] == "scored" and s["score"] == [0, 0] and s["mano"] == 0 and loop.hands() == []
    assert s["answer"]["score"] == after_one["score"]
    s = loop.submit(Correct(0, 0, Card.parse(s["cards"][0][0])))  # e.g. a correction, then confirm again
    s = confirm(loop)
    assert s["score"] == after_one["score"] and len(loop.hands()) == 1
    kinds = [k for _, _, k, _, _ in journal.entries()]
    assert kinds.count("confirm") == 2 and kinds.count("undo_hand") == 1
    with pytest.raises(CommandRefused):
        TableLoop(reader=FakeReader()).submit(UndoHand())


def test_a_restart_in_the_middle_of_a_hand_resumes_exactly(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    loop, reader = new_loop(Journal(path))
    play(loop, reader, random_record(random.Random(2), Rules(), mano=0, score=[0, 0]))
    confirm(loop)
    loop.submit(LanceOutcome("grande", "querido", 3, 1))
    loop.submit(Say(1, "envido", 2))
    before = loop.snapshot()
    again = TableLoop(LoopSettings(), reader=FakeReader(), journal=Journal(path))
    after = again.snapshot()
    assert after["seq"] > before["seq"]  # the resume publishes the whole state once, numbered on
    del before["seq"], after["seq"]
    assert after == before
    assert again.bus.latest is not None and again.bus.latest.kind is EventKind.STATE
    assert [h.record.to_json() for h in again.hands()] == [h.record.to_json() for h in loop.hands()]


def test_after_a_restart_no_event_number_comes_back(tmp_path: Path) -> None:
    """Faults and «reading» are numbered events but no journal entries: a listener that saw one
    before a restart must still get the restarted table's state when it resumes from it."""
    path = tmp_path / "j.sqlite"
    for run in range(3):
        loop, reader = new_loop(Journal(path))
        first = loop.bus.latest
        assert first is not None
        for i in range(TableLoop.RESERVE + 30 if run == 1 else 3):  # past one reservation, on run 1
            loop.set_fault(FaultKind.CAMERA, f"Cámara perdida {i}", "mirad el cable")
            loop.clear_fault(FaultKind.CAMERA)
        seen = loop.bus.last_seq  # the last number a listener saw: a fault's, not an entry's
        again, _ = new_loop(Journal(path))
        state = again.bus.latest
        assert state is not None and state.kind is EventKind.STATE and state.seq > seen
        assert again.bus.since(seen) == [state]  # the listener resumes with the whole state
        assert first.seq < seen
    loop.submit(Say(0, "paso"))
    seqs = [seq for seq, *_ in Journal(path).entries()]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_a_partida_is_won_and_a_new_one_starts() -> None:
    loop, reader = new_loop(juegos=1, rules=Rules(target=30))
    rng = random.Random(7)
    for _ in range(200):
        s = loop.snapshot()
        if s["phase"] == "over":
            break
        play(loop, reader, random_record(rng, Rules(target=30), mano=s["mano"], score=s["score"]))
        confirm(loop)
    s = loop.snapshot()
    assert s["phase"] == "over" and s["partida"]["over"] and s["partida"]["winner"] in (0, 1)
    assert s["partida"]["vacas"][s["partida"]["winner"]] == 1  # one juego, one vaca: the partida
    with pytest.raises(CommandRefused, match="terminado"):
        loop.submit(Say(s["mano"], "paso"))
    s = loop.submit(NewPartida())
    assert (s["phase"], s["partida"]["id"], s["score"], s["mano"], s["hands"]) == ("playing", 2, [0, 0], 0, 0)
    assert loop.hands(1) and loop.hands() == []


def test_a_new_partida_takes_the_house_rules_agreed_for_it(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    loop, reader = new_loop(journal=journal, rules=Rules(target=30))
    house = Rules(reyes=4, real="rey", target=20, penalties="mundial", deje=True)
    s = loop.submit(NewPartida(house))
    assert s["rules"] == house.to_json() and s["partida"]["id"] == 2
    starts = [body for _, _, kind, _, body in journal.entries() if kind == "new_partida"]
    assert starts[-1]["rules"] == house.to_json()             # the journal carries them
    rec = random_record(random.Random(4), house, mano=0, score=[0, 0])
    play(loop, reader, rec)
    confirm(loop)
    assert loop.hands()[0].record.to_json()["rules"] == house.to_json()  # and every record
    again = TableLoop(LoopSettings(rules=Rules(target=30)), reader=reader, journal=Journal(tmp_path / "j.sqlite"))
    assert again.snapshot()["rules"] == house.to_json()        # a restart keeps them
    assert loop.submit(NewPartida())["rules"] == Rules(target=30).to_json()  # else the table's own


def test_the_stones_are_checked_seat_by_seat() -> None:
    loop, reader = new_loop()
    play(loop, reader, random_record(random.Random(3), Rules(), mano=0, score=[0, 0]))
    s = confirm(loop)
    want = expected_stones(s["score"], 40)
    seen = list(want)
    seen[3] += 2
    seen[0] = max(0, seen[0] - 1)
    s = lay(loop, reader, HAND, StoneCount(5, tuple(seen)))  # type: ignore[arg-type]
    checks = {c["seat"]: c for c in s["stones_check"]}
    assert checks[3]["diff"] == 2 and "Asiento 4" in checks[3]["text"] and "sobran 2" in checks[3]["text"]
    if want[0]:
        assert checks[0]["diff"] == -1
    assert set(checks) <= {0, 3}


def test_declarations_decide_who_bets_pares() -> None:
    loop, _ = new_loop()
    for lance in ("grande", "chica"):
        loop.submit(LanceOutcome(lance, "en paso"))
    with pytest.raises(CommandRefused, match="pares"):
        loop.submit(Say(0, "paso"))
    for seat, says in enumerate((True, False, False, True)):
        s = loop.submit(Declare(seat, "pares", says))
    assert s["bets"]["speaker"] == 0 and s["bets"]["asked"] == []
    with pytest.raises(CommandRefused):
        loop.submit(Say(1, "paso"))  # seat 1 said it has no pares


class BrokenDisk(Journal):
    def __init__(self) -> None:
        super().__init__(":memory:")
        self.full = False

    def append(self, seq: int, partida: int, kind: str, body: dict[str, Any]) -> None:
        if self.full:
            raise JournalError("database or disk is full")
        super().append(seq, partida, kind, body)


def test_a_full_disk_is_a_fault_and_nothing_is_lost_when_it_goes() -> None:
    disk = BrokenDisk()
    loop, _ = new_loop(disk)
    disk.full = True
    s = loop.submit(Say(0, "paso"))
    assert [f["kind"] for f in s["faults"]] == ["disk"] and s["pending_entries"] == 1
    s = loop.submit(Say(1, "paso"))  # the table goes on
    assert s["bets"]["speaker"] == 2
    disk.full = False
    assert loop.flush()
    s = loop.snapshot()
    assert s["faults"] == [] and s["pending_entries"] == 0
    assert [b["word"] for _, _, k, _, b in disk.entries() if k == "say"] == ["paso", "paso"]
    assert loop.bus.latest is not None and loop.bus.latest.kind is EventKind.RECOVERED
    assert FaultKind.DISK not in {f.kind for f in loop.faults}


def test_every_change_is_one_numbered_event_with_the_whole_state() -> None:
    loop, reader = new_loop()
    seen = []
    loop.bus.subscribe(seen.append)
    loop.submit(parse_command({"kind": "lance", "lance": "grande", "outcome": "en paso"}))
    lay(loop, reader, HAND)
    assert [e.kind for e in seen] == [EventKind.LANCE, EventKind.READING, EventKind.READ]
    assert [e.seq for e in seen] == list(range(seen[0].seq, seen[0].seq + 3))
    assert all(e.state["seq"] == e.seq for e in seen)
    assert seen[-1].state == loop.snapshot()


def test_nothing_read_by_the_watcher_is_not_an_impossible_table() -> None:
    loop, reader = new_loop()
    s = loop.read_now([FRAME], auto=True)  # cards face down: nothing read for sure
    assert s["phase"] == "playing" and s["cards"] is None and reader.reads == 1
    s = loop.read_now([FRAME])  # but «leer» pressed: the table says what it misses
    assert s["phase"] == "impossible" and len(s["problems"]) == 4 and s["cards"] == [[], [], [], []]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_any_legal_hand_played_word_by_word_scores_as_the_engine(seed: int) -> None:
    loop, reader = new_loop()
    obj = random_record(random.Random(seed), Rules(), mano=0, score=[0, 0])
    s = play(loop, reader, obj)
    assert s["phase"] == "scored"
    assert s["answer"] == score(HandRecord.from_json(obj)).to_json()
    assert s["record"]["bets"] == {k: v for k, v in HandRecord.from_json(obj).to_json()["bets"].items()}


def test_the_watcher_reads_again_only_an_impossible_table_nobody_corrected() -> None:
    loop, reader = new_loop()
    assert loop.wants_reading()
    short = [list(s) for s in HAND]
    short[0] = short[0][:3]
    lay(loop, reader, short)
    assert loop.snapshot()["phase"] == "impossible" and loop.wants_reading()  # a fix on the felt is read
    loop.submit(Correct(1, 0, Card.parse("11o")))  # a hand correction: the camera no longer overrides it
    assert not loop.wants_reading()
    loop.submit(Correct(0, 3, Card.parse("4b")))
    assert loop.snapshot()["phase"] == "scored" and not loop.wants_reading()


_COMMANDS = st.one_of(
    st.builds(Say, st.integers(0, 3), st.sampled_from(["paso", "envido", "quiero", "no quiero", "ordago"]),
              st.none()),
    st.builds(LanceOutcome, st.sampled_from(["grande", "chica", "pares", "juego", "punto"]),
              st.sampled_from(["en paso", "querido", "no querido", "ordago"]), st.integers(1, 6) | st.none(),
              st.integers(0, 3) | st.none()),
    st.builds(Declare, st.integers(0, 3), st.sampled_from(["pares", "juego"]), st.booleans()),
    st.builds(Correct, st.integers(0, 3), st.integers(0, 4), st.sampled_from(list(BY_TEXT.values()))),
    st.builds(Confirm, st.integers(0, 3) | st.none()),
    st.just(Unsay()), st.just(UndoHand()), st.just(NewPartida()), st.just("read"), st.just("short read"),
    st.builds(Reopen, st.integers(1, 3)),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_COMMANDS, max_size=40), st.integers(0, 1000))
def test_whatever_is_done_the_journal_replays_to_the_same_table(commands: list[Any], seed: int) -> None:
    """Event sourcing: any sequence of commands, accepted or refused, replays from the journal
    to exactly the state the table was in; a refused command changed nothing."""
    journal = Journal(":memory:")
    loop, reader = new_loop(journal)
    rng = random.Random(seed)
    for cmd in commands:
        before = loop.snapshot()
        try:
            if cmd in ("read", "short read"):
                cards = random_record(rng, Rules(), mano=0, score=[0, 0])["cards"]
                if cmd == "short read":
                    cards[rng.randrange(4)].pop()
                lay(loop, reader, cards)
            else:
                loop.submit(cmd)
        except CommandRefused:
            assert loop.snapshot() == before
    again = TableLoop(LoopSettings(), reader=FakeReader(), journal=journal).snapshot()
    now = loop.snapshot()
    for s in (again, now):
        del s["seq"], s["reading"]
    assert again == now


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.lists(st.tuples(st.sampled_from(["en paso", "querido", "no querido", "ordago"]),
                                                 st.integers(1, 12), st.integers(0, 3)), min_size=4, max_size=4))
def test_every_lance_ended_in_one_step_is_a_legal_record_the_engine_scores(
        seed: int, outcomes: list[tuple[str, int, int]]) -> None:
    """Cards read first (they declare pares and juego), then each lance in play ended in one
    step: whatever was accepted is a mus-hand/1 record that scores, confirms and is journaled."""
    journal = Journal(":memory:")
    loop, reader = new_loop(journal, first_mano=seed % 4)
    obj = random_record(random.Random(seed), Rules(), mano=seed % 4, score=[0, 0])
    lay(loop, reader, obj["cards"])
    for outcome, n, by in outcomes:
        lance = loop.snapshot()["bets"]["lance"]
        if lance is None:
            break
        number = n if outcome in ("querido", "no querido") else None
        if outcome == "querido" and number is not None and number < 2:
            number = 2
        try:
            loop.submit(LanceOutcome(lance, outcome, number, by))
        except CommandRefused:  # that seat cannot bet here (its pair has no pares, say): en paso
            loop.submit(LanceOutcome(lance, "en paso"))
    s = loop.snapshot()
    if s["partida"]["over"]:
        return
    assert s["phase"] == "scored", s["problems"]
    record = HandRecord.from_json(s["record"])
    assert s["answer"] == score(record).to_json()
    confirm(loop)
    kept = [b for _, _, k, _, b in journal.entries() if k == "confirm"]
    assert HandRecord.from_json(kept[-1]["record"]).to_json() == record.to_json()


def test_juegos_and_vacas_end_the_partida_as_configured() -> None:
    """A partida of two vacas of two juegos: each juego won starts the score at 0-0 again, each
    vaca at 0-0 juegos; mano moves one seat on every hand; the partida ends with the second vaca."""
    loop, reader = new_loop(juegos=2, vacas=2, rules=Rules(target=30), first_mano=3)
    rng = random.Random(11)
    juegos_won = 0
    for _ in range(500):
        s = loop.snapshot()
        if s["phase"] == "over":
            break
        play(loop, reader, random_record(rng, Rules(target=30), mano=s["mano"], score=s["score"]))
        after = confirm(loop)
        assert after["mano"] == (s["mano"] + 1) % 4 and after["hands"] == s["hands"] + 1
        if after["partida"]["vaca_results"] != s["partida"]["vaca_results"] or after["partida"]["juegos"] != \
                s["partida"]["juegos"]:
            juegos_won += 1
            assert after["score"] == [0, 0]  # a juego won: the next starts from nothing
    s = loop.snapshot()
    p = s["partida"]
    assert s["phase"] == "over" and p["winner"] in (0, 1) and p["vacas"][p["winner"]] == 2
    assert all(max(v) == 2 for v in p["vaca_results"]) and len(p["vaca_results"]) == sum(p["vacas"])
    assert juegos_won == sum(sum(v) for v in p["vaca_results"])


def test_after_an_accepted_ordago_the_pair_that_lost_it_confirms() -> None:
    """An órdago leaves the stones as they were: who confirms is who lost the órdago, not who gained less."""
    loop, reader = new_loop()
    loop.submit(LanceOutcome("grande", "ordago", by=1))  # seat 1 calls órdago a la grande, pair 0 accepts
    s = lay(loop, reader, HAND)
    grande = s["answer"]["lances"]["grande"]
    assert s["phase"] == "scored" and grande["how"] == "ordago" and s["answer"]["winner"] == grande["winner"]
    lost = 1 - grande["winner"]
    assert s["confirm_by"] == [lost, lost + 2]
    for seat in (1 - lost, 3 - lost):
        with pytest.raises(CommandRefused, match="pareja contraria"):
            loop.submit(Confirm(seat))
    s = loop.submit(Confirm(lost + 2))
    assert s["partida"]["juegos"][1 - lost] == 1 and s["score"] == [0, 0]


def test_a_double_tap_is_refused_not_said_by_the_next_player(tmp_path: Path) -> None:
    """Two taps on «Paso» made on the same state: the second names what was already entered
    and nothing is stored for the next player."""
    journal = Journal(tmp_path / "j.sqlite")
    loop, _ = new_loop(journal)
    seen = loop.snapshot()["seq"]
    s = loop.submit(Say(0, "paso"), seq=seen)
    assert s["bets"]["speaker"] == 1
    with pytest.raises(CommandRefused, match="^ya se anotó: Paso del asiento 1$") as refused:
        loop.submit(Say(1, "paso"), seq=seen)  # the second tap, sent with the state it was made on
    assert refused.value.code == "stale"
    assert loop.snapshot() == s and [k for _, _, k, _, _ in journal.entries()] == ["new_partida", "say"]
    s = loop.submit(Say(1, "paso"), seq=s["seq"])  # made on the state now: taken
    assert s["bets"]["speaker"] == 2


def test_events_that_change_no_entry_do_not_make_a_command_stale() -> None:
    loop, _ = new_loop()
    seen = loop.snapshot()["seq"]
    loop.set_fault(FaultKind.CAMERA, "Cámara perdida", "mirad el cable")
    assert loop.submit(Say(0, "paso"), seq=seen)["bets"]["speaker"] == 1


def test_the_players_names_are_kept_with_their_partida(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    loop, _ = new_loop(Journal(path))
    assert loop.snapshot()["names"] is None
    s = loop.submit(parse_command({"kind": "new_partida", "names": ["  Jon ", "Ane", "", "Iñaki  Etxeberria"]}))
    assert s["names"] == ["Jon", "Ane", "", "Iñaki Etxeberria"]  # spaces tidied, accents kept
    again = TableLoop(LoopSettings(), reader=FakeReader(), journal=Journal(path))
    assert again.snapshot()["names"] == s["names"]  # replayed from the journal
    with pytest.raises(CommandRefused, match="cuatro, uno por asiento"):
        parse_command({"kind": "new_partida", "names": ["Jon", "Ane"]})
    with pytest.raises(CommandRefused, match="24 letras"):
        parse_command({"kind": "new_partida", "names": ["J" * 25, "", "", ""]})
    assert again.submit(parse_command({"kind": "new_partida"}))["names"] is None  # a partida's own


def test_a_closed_partida_is_reopened_its_score_back_and_play_goes_on(tmp_path: Path) -> None:
    """«Reabrir»: one journal entry, under the partida it takes back; the one in play is closed and
    listed; a restart replays to the same table; hands played on count in the reopened partida."""
    path = tmp_path / "j.sqlite"
    journal = Journal(path)
    loop, reader = new_loop(journal)
    rng = random.Random(5)
    for _ in range(2):
        s = loop.snapshot()
        play(loop, reader, random_record(rng, Rules(), mano=s["mano"], score=s["score"]))
        confirm(loop)
    first = loop.snapshot()
    assert first["hands"] == 2
    loop.submit(parse_command({"kind": "new_partida", "names": ["Jon", "Iker", "Ane", "Mikel"]}))
    s = loop.snapshot()
    play(loop, reader, random_record(rng, Rules(), mano=s["mano"], score=s["score"]))
    second = confirm(loop)
    seen = second["seq"]
    events: list[Any] = []
    loop.bus.subscribe(events.append)
    s = loop.submit(parse_command({"kind": "reopen", "partida": 1}), seq=seen)
    assert [e.kind for e in events] == [EventKind.REOPENED]
    for key in ("score", "mano", "hands", "names", "partida", "phase", "hand_no", "rules"):
        assert s[key] == first[key], key
    row = journal.entries()[-1]
    assert row[1:3] == (1, "reopen") and row[4] == {"kind": "reopen", "partida": 1, "closes": 2}
    assert [(p.id, p.hands, p.in_play, p.reopenable) for p in loop.partidas()] == [
        (1, 2, True, False), (2, 1, False, True)]
    with pytest.raises(CommandRefused) as stale:  # the same tap again, made on the state before
        loop.submit(parse_command({"kind": "reopen", "partida": 2}), seq=seen)
    assert stale.value.code == "stale" and str(stale.value) == "ya se anotó: se reabrió la partida 1"
    # a pulled plug here: the journal replays to the same table
    again = TableLoop(LoopSettings(), reader=FakeReader(), journal=Journal(path)).snapshot()
    now = loop.snapshot()
    for x in (again, now):
        del x["seq"]
    assert again == now
    # play goes on in partida 1: its third hand, journaled under it
    s = loop.snapshot()
    play(loop, reader, random_record(rng, Rules(), mano=s["mano"], score=s["score"]))
    s = confirm(loop)
    assert s["partida"]["id"] == 1 and s["hands"] == 3 and len(loop.hands(2)) == 1
    assert [p.hands for p in Journal(path).partidas()] == [3, 1]
    assert len(Journal(path).export()) == 3  # the partida in play is the one exported by default
    assert [p.in_play for p in Journal(path).partidas()] == [True, False]
    # partida 2 back again, its names with it; a new partida after that is number 3
    s = loop.submit(Reopen(2))
    assert s["partida"]["id"] == 2 and s["names"] == ["Jon", "Iker", "Ane", "Mikel"] and s["hands"] == 1
    assert loop.submit(NewPartida())["partida"]["id"] == 3


@pytest.mark.parametrize(("partida", "code", "words"), [
    (1, "reopen_in_play", "la partida 1 es la que está en juego: no hay que reabrirla"),
    (4, "reopen_unknown", "no hay ninguna partida 4 cerrada en esta mesa"),
])
def test_a_reopen_that_cannot_be_is_refused_in_one_spanish_line(partida: int, code: str, words: str) -> None:
    journal = Journal(":memory:")
    loop, _ = new_loop(journal)
    before = loop.snapshot()
    with pytest.raises(CommandRefused) as exc:
        loop.submit(Reopen(partida))
    assert exc.value.code == code and str(exc.value) == words
    assert loop.snapshot() == before and len(journal.entries()) == 1
    with pytest.raises(CommandRefused, match="número de una partida"):
        parse_command({"kind": "reopen", "partida": "1"})


def test_a_won_partida_is_not_reopened() -> None:
    journal = Journal(":memory:")
    loop, reader = new_loop(journal, juegos=1, rules=Rules(target=30))
    loop.submit(parse_command({"kind": "new_partida", "names": ["Jon", "Iker", "Ane", "Mikel"]}))
    rng = random.Random(7)
    while loop.snapshot()["phase"] != "over":
        s = loop.snapshot()
        play(loop, reader, random_record(rng, Rules(target=30), mano=s["mano"], score=s["score"]))
        confirm(loop)
    winner = loop.snapshot()["partida"]["winner"]
    s = loop.submit(Reopen(1))  # from the won partida in play, the unfinished one comes back
    assert s["partida"]["id"] == 1 and s["phase"] == "playing"
    before, rows = loop.snapshot(), len(journal.entries())
    with pytest.raises(CommandRefused) as exc:
        loop.submit(Reopen(2))
    who = ["Jon y Ane", "Iker y Mikel"][winner]
    assert exc.value.code == "reopen_won" and str(exc.value) == (
        f"la partida 2 ya la ganó la pareja de {who}: una partida ganada no se reabre "
        "(sus manos siguen en la lista, para verlas y descargarlas)")
    assert loop.snapshot() == before and len(journal.entries()) == rows
