"""The demo: the synthetic table plays hands through the real loop; the camera's reading is what counts."""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path

import pytest

from firmware.cli import main
from firmware.demo import Demo, make_demo
from firmware.synthetic import LearningLayout, PlayersLost
from firmware.table_commands import LearnCancel, LearnStart, Say
from firmware.table_loop import Phase, TableLoop
from table.betting import BetWord
from table.rules import Rules
from vision.classifier import NeverSure
from vision.reading import TableReader


def test_the_demo_scores_what_the_camera_read() -> None:
    demo = make_demo(seed=3)
    demo.table.start()
    try:
        played = demo.play(2)
    finally:
        demo.table.stop()
    confirmed = demo.table.loop.hands()
    assert len(played) == len(confirmed) == 2
    # the camera alone read every card of these hands: nobody corrected anything
    assert [h.corrected for h in played] == [0, 0]
    assert [[sorted(s) for s in h.record.cards] for h in played] == [
        [sorted(s) for s in c.record.cards] for c in confirmed]
    assert [c.record.bets for c in confirmed] == [h.record.bets for h in played]
    # the partida carries on: mano moves, the score follows the hand before
    assert confirmed[1].record.mano == (confirmed[0].record.mano + 1) % 4
    first = confirmed[0].answer
    assert list(confirmed[1].record.score) == ([0, 0] if first.winner is not None else list(first.score))


def test_a_reader_that_reads_nothing_makes_the_players_correct_every_card() -> None:
    demo = make_demo(seed=2, reader=TableReader(classifier=NeverSure()))
    demo.table.start()
    try:
        [hand] = demo.play(1)
    finally:
        demo.table.stop()
    assert hand.corrected == 16  # nothing was guessed: every card came from the players
    [confirmed] = demo.table.loop.hands()
    assert [sorted(s) for s in confirmed.record.cards] == [sorted(s) for s in hand.record.cards]


def test_demo_command_narrates_without_the_web(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "web.app", None)  # --no-web must not need the display
    journal = tmp_path / "demo.sqlite"
    frames = tmp_path / "frames"
    assert main(["demo", "--no-web", "--hands", "1", "--seed", "3", "--journal", str(journal),
                 "--frames", str(frames)]) == 0
    assert any(p.name.endswith("-shown.jpg") for p in frames.iterdir())  # the still the cards were read from
    out = capsys.readouterr().out
    assert "— Mano 1 —" in out and "El tanteo, por su orden:" in out and "1 manos" in out
    assert main(["journal", "list", str(journal)]) == 0
    assert '"hands": 1' in capsys.readouterr().out
    assert main(["demo", "--no-web", "--hands", "0"]) == 2


def demo_partida(capsys: pytest.CaptureFixture[str], tmp_path: Path, seed: int, *more: str) -> str:
    """``mus-table demo --no-web --hands 200 --journal J``: it plays the partida to its end, and the
    journal's export is a partida ``mus-table replay`` takes, to the same winner. What it printed."""
    journal = tmp_path / f"demo-{seed}.sqlite"
    assert main(["demo", "--no-web", "--hands", "200", "--seed", str(seed), "--journal", str(journal), *more]) == 0
    out = capsys.readouterr().out
    hands = out.count("— Mano ")
    assert "¡Partida para los asientos " in out and f"{hands} manos" in out, out[-500:]
    assert main(["journal", "export", str(journal)]) == 0
    exported = tmp_path / f"demo-{seed}.jsonl"
    exported.write_text(capsys.readouterr().out)
    assert main(["replay", str(exported), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])["summary"]
    assert summary["over"] and summary["hands"] == hands
    w = summary["winner"]
    assert f"¡Partida para los asientos {w + 1} y {w + 3}!" in out  # the JSON says pairs 0-1, a person 1-4
    return out


def test_the_demo_plays_a_whole_partida_to_its_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Seed 1 died at hand 3 (the players said a word while the table still asked «¿juego?»);
    here the camera's reader reads every hand."""
    demo_partida(capsys, tmp_path, 1)


def test_the_demo_plays_whole_partidas_for_any_seed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Ten seeds, each a whole partida; the reader reads the cards laid (``--reader truth``) to
    keep it short: what is checked is the players, the loop and the journal, not the camera."""
    for seed in range(2, 12):
        demo_partida(capsys, tmp_path, seed, "--reader", "truth")


def test_the_demo_partida_follows_the_rules_given() -> None:
    demo = make_demo(seed=4, rules=Rules(target=30))
    assert demo.table.loop.snapshot()["target"] == 30
    demo.table.stop()


def _ctrl_c_as_at_a_terminal() -> None:
    """In the demo's process, before it starts: Ctrl-C as a terminal delivers it.

    A shell starts its background jobs with SIGINT ignored, and Python then
    leaves it ignored (no KeyboardInterrupt); tests started that way would
    see a demo that never stops.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_the_demo_serves_its_table_on_localhost(tmp_path: Path) -> None:
    """`mus-table demo` (the README's first command): the display on 127.0.0.1 shows the hands
    the synthetic players confirm, and Ctrl-C stops it."""
    import json
    import os
    import signal
    import socket
    import subprocess
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen([sys.executable, "-m", "firmware.cli", "demo", "--hands", "1", "--pace", "0",
                             "--seed", "6", "--port", str(port), "--journal", str(tmp_path / "d.sqlite")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_ctrl_c_as_at_a_terminal)
    state = None
    deadline = time.monotonic() + 120  # a safety net for a stuck demo, not a timing
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as r:
                    state = json.loads(r.read())
                if state["hands"] >= 1:
                    break
            except OSError:
                pass
            try:
                proc.wait(timeout=0.3)
            except subprocess.TimeoutExpired:
                pass
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            page = r.read().decode()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert state is not None and state["hands"] == 1 and state["table"] == "demo", err
    assert "<html" in page.lower()
    assert "http://127.0.0.1:" in out and "1 manos" in out


def test_a_word_tapped_on_the_display_does_not_stop_the_players() -> None:
    """With its display, people may tap while the synthetic players play: a word of theirs
    that the players' hand does not have is taken back, and the hand goes on as dealt. Without
    a display nobody else speaks, and the same crossing stops the demo (it would be a bug)."""
    for shared in (True, False):
        demo = make_demo(seed=4, truth=True)
        loop = demo.table.loop
        tapped: list[int] = []

        def person(_: float, loop: TableLoop = loop, tapped: list[int] = tapped) -> None:
            speaker = loop.state().bets.speaker
            if not tapped and speaker is not None:  # once, after the deal: «envido 7», said by no player
                loop.submit(Say(speaker, BetWord.ENVIDO, 7))
                tapped.append(speaker)

        demo.players._pause = person
        demo.table.start()
        try:
            if not shared:
                with pytest.raises(PlayersLost):
                    demo.play(1)
                continue
            [hand] = demo.play(1, shared=True)
        finally:
            demo.table.stop()
        assert tapped
        [confirmed] = loop.hands()
        assert confirmed.record.bets == hand.record.bets and demo.players.refused == []


def test_a_deck_learnt_on_the_display_mid_hand_pauses_the_players() -> None:
    """«Aprender baraja» in the middle of a hand: the table reads no hand meanwhile, the synthetic
    table shows the learning frame the display asks for (the hand's cards wait under it), the
    players wait without taking it for a crossing, and once learning ends they go on with the
    hand as dealt."""
    demo = make_demo(seed=5, truth=True)
    loop = demo.table.loop
    waited: list[threading.Thread] = []

    def person(_: float) -> None:
        if loop.phase is not Phase.LEARNING and demo.learner is not None and not demo.learner.laid:
            loop.submit(LearnStart(1))
            assert demo.synthetic.learning == LearningLayout(1)

    def leave_learning(stop: threading.Event | None = None) -> bool:
        if loop.phase is Phase.LEARNING and not waited:  # the person leaves learning while the players wait
            waited.append(threading.Thread(target=loop.submit, args=(LearnCancel(),)))
            waited[0].start()
        return Demo.wait_learnt(demo, stop)

    demo.players._pause = person
    demo.wait_learnt = leave_learning  # type: ignore[method-assign]
    demo.table.start()
    try:
        [hand] = demo.play(1)  # not shared: a crossing would stop it
    finally:
        demo.table.stop()
    waited[0].join()
    assert demo.learner is not None and demo.learner.laid == [LearningLayout(1)]
    assert any("learning_now" in r or "aprendiendo" in r for r in demo.players.refused)
    [confirmed] = loop.hands()
    assert confirmed.record.bets == hand.record.bets and confirmed.record.cards == hand.record.cards
    assert demo.synthetic.learning is None
