"""``mus-table bench read``: figures for every stage, the model alone and the ends reader's two looks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from firmware.cli import main
from vision.ends import ends_installed


def test_bench_read_gives_every_stage_and_the_two_looks_of_the_ends(capsys: Any) -> None:
    assert main(["bench", "read", "--n", "2", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["frames"] == 2 and got["cards_per_frame"] > 10
    assert set(got["ms"]) == {"calibration", "rectify_felt", "cards", "model", "stones", "total"}
    for stage in got["ms"].values():
        assert 0 < stage["median"] <= stage["p95"]
    if ends_installed():
        ends = got["ends_ms"]
        assert set(ends) == {"sixteen_faces", "sixteen_faces_looked_at_again"}
        assert all(v["median"] > 0 for v in ends.values())


def test_bench_read_draws_a_scanned_deck_and_refuses_an_incomplete_one(tmp_path: Path, capsys: Any) -> None:
    import cv2

    from models.deck import HELD_OUT_STYLES, render_card
    from table.cards import DECK

    names = {"o": "oro", "c": "copa", "e": "espada", "b": "basto"}
    for card in DECK[:39]:
        cv2.imwrite(str(tmp_path / f"{card.rank}_{names[str(card)[-1]]}.webp"),
                    render_card(card, HELD_OUT_STYLES["moderna"]))
    assert main(["bench", "read", "--n", "1", "--deck-dir", str(tmp_path)]) == 2
    assert "no complete deck" in capsys.readouterr().err
    last = DECK[39]
    cv2.imwrite(str(tmp_path / f"{last.rank}_{names[str(last)[-1]]}.webp"),
                render_card(last, HELD_OUT_STYLES["moderna"]))
    assert main(["bench", "read", "--n", "1", "--deck-dir", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["frames"] == 1


def test_bench_read_saves_its_frames_reads_them_again_in_cpu_time_and_writes_each_reading(
        tmp_path: Path, capsys: Any) -> None:
    frames, first, again = tmp_path / "frames", tmp_path / "first.jsonl", tmp_path / "again.jsonl"
    assert main(["bench", "read", "--n", "2", "--seed", "4", "--save-frames", str(frames),
                 "--readings", str(first), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clock"] == "wall"
    assert sorted(p.name for p in frames.iterdir()) == ["000.png", "001.png"]
    assert main(["bench", "read", "--frames", str(frames), "--cpu", "--repeat", "2", "--readings", str(again),
                 "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["frames"] == 2 and got["clock"] == "cpu" and got["repeat"] == 2 and got["ms"]["total"]["median"] > 0
    lines = again.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and sum(len(seat) for seat in json.loads(lines[0])["cards"]) > 10
    assert lines == first.read_text(encoding="utf-8").splitlines()  # a png keeps the frame: the same calls
    assert main(["bench", "read", "--frames", str(tmp_path / "none")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_bench_read_learns_the_frames_deck_first_and_reads_with_it(capsys: Any) -> None:
    assert main(["bench", "read", "--n", "1", "--px-per-mm", "2.9", "--learn-px-per-mm", "1.45", "--style",
                 "cincuenta", "--cpu", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["frames"] == 1 and got["clock"] == "cpu" and got["cards_per_frame"] > 10
    learnt = got["learnt"]
    assert learnt["px_per_mm"] == 1.45 and learnt["looks"] >= 1 and learnt["learn_cpu_s"] > 0
    assert 0 < got["ms"]["model"]["median"] <= got["ms"]["total"]["median"]
    assert main(["bench", "read", "--n", "1", "--style", "nonesuch"]) == 2
    assert "no held-out style" in capsys.readouterr().err
