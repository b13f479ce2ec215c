"""``mus-table bench accuracy``, and the layout rule it came from: ``vision`` never imports the training code."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from typing import Any

import pytest

import vision
from firmware.cli import main
from vision.classifier import CardClassifier
from vision.ends import px_per_mm_of


def test_accuracy_reads_rendered_scenes_and_reports_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "accuracy", "--n", "2", "--seed", "7", "--no-model", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["scenes"] == 2 and result["calibrated_pct"] == 100.0
    assert result["finder_recall_pct"] > 90 and result["stones_exact_zones_pct"] >= 80
    assert "cards_right_pct" not in result  # no model: cards are not scored


def test_accuracy_of_full_resolution_stills_asks_the_ends(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float] = []
    with_ends = CardClassifier._with_ends

    def spy(self: CardClassifier, crops: list[Any], main: list[Any], p: Any) -> list[Any]:
        asked.extend(px_per_mm_of(c) for c in crops)
        return with_ends(self, crops, main, p)

    monkeypatch.setattr(CardClassifier, "_with_ends", spy)
    assert main(["bench", "accuracy", "--n", "1", "--seed", "7", "--px-per-mm", "2.9", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["scenes"] == 1 and result["cards_wrong_pct"] == 0.0
    assert asked and min(asked) >= 2.5  # the crops were cut from the fine frame, where the ends may speak


def test_accuracy_takes_one_held_out_style(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import models.accuracy
    from models.deck import HELD_OUT_STYLES

    drawn: list[object] = []
    random_scene = models.accuracy.random_scene

    def spy(rng: Any, **kw: Any) -> Any:
        drawn.append(kw.get("deck"))
        return random_scene(rng, **kw)

    monkeypatch.setattr(models.accuracy, "random_scene", spy)
    assert main(["bench", "accuracy", "--n", "2", "--seed", "7", "--no-model", "--style", "antigua", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert drawn == [HELD_OUT_STYLES["antigua"]] * 2
    assert result["scenes"] == 2 and result["finder_recall_pct"] > 90  # a worn deck's cards are found


def test_a_deck_folder_that_is_not_a_deck_is_one_line(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "accuracy", "--n", "1", "--no-model", "--deck-dir", str(tmp_path)]) == 2
    assert "no complete deck" in capsys.readouterr().err


def test_vision_imports_only_table_and_its_libraries() -> None:
    names = [f"vision.{m.name}" for m in pkgutil.iter_modules(vision.__path__)]
    code = ("import sys\n" + "".join(f"import {n}\n" for n in names)
            + "print(sorted({m.split('.')[0] for m in sys.modules} & {'models', 'firmware', 'web', 'hardware', 'torch'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
