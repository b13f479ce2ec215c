"""``mus-table deck learn/list/remove`` and ``mus-table read --deck``: a learnt deck kept on disk and read back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main
from firmware.config import parse_config
from firmware.table_app import deck_to_use, make_reader
from models.deck import HELD_OUT_STYLES
from models.scene import learning_scene, random_cards, random_scene, render_scene
from vision.learnt import DeckNotFound, LearntClassifier
from vision.mat import Mat

STYLE = HELD_OUT_STYLES["clasica"]


@pytest.fixture()
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def write_frames(folder: Path, seed: int = 8) -> list[str]:
    rng = np.random.default_rng(seed)
    paths = []
    for k in range(3):
        path = folder / f"frame{k}.jpg"
        cv2.imwrite(str(path), render_scene(learning_scene(rng, k, deck=STYLE), rng).image,
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(str(path))
    return paths


def test_learn_list_read_and_remove(tmp_path: Path, data_home: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    frames = write_frames(tmp_path)
    assert main(["deck", "learn", "club", *frames]) == 0
    assert "baraja aprendida: club" in capsys.readouterr().out
    assert (data_home / "mus-table" / "decks" / "club" / "deck.json").is_file()
    assert main(["deck", "list"]) == 0
    assert capsys.readouterr().out.splitlines() == ["club  (en uso)"]  # learning makes it the table's deck
    assert deck_to_use(parse_config("")) == "club"
    rng = np.random.default_rng(31)
    scene = render_scene(random_scene(rng, cards=random_cards(rng), deck=STYLE, extras=(), glare=0.0), rng)
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), scene.image)
    # read in a new reader from the files alone
    assert main(["read", "--deck", "club", "--json", str(image)]) == 0
    reading = json.loads(capsys.readouterr().out)
    read = [set(seat) for seat in reading["cards"]]
    assert all(r <= set(t) for r, t in zip(read, scene.truth_cards, strict=True))
    assert sum(map(len, read)) >= 15
    # after a restart: another process, which knows the deck only from $XDG_DATA_HOME
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    done = subprocess.run([sys.executable, "-m", "firmware.cli", "read", "--deck", "club", "--json", str(image)],
                          capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cards"] == reading["cards"]
    # the table's configuration names it: the table reads with it
    reader = make_reader(parse_config('[deck]\nname = "club"\n'), Mat())
    assert isinstance(reader.classifier, LearntClassifier)  # type: ignore[attr-defined]
    assert [[str(c) for c in seat] for seat in reader.read(scene.image).cards] == reading["cards"]
    # the table's deck is changed, and the change kept: the card model alone, then the deck again
    assert main(["deck", "use", "--none"]) == 0 and deck_to_use(parse_config('[deck]\nname = "club"\n')) is None
    assert main(["deck", "use", "club"]) == 0 and deck_to_use(parse_config("")) == "club"
    assert main(["deck", "use", "other"]) == 2 and deck_to_use(parse_config("")) == "club"
    assert "no hay ninguna baraja aprendida que se llame «other»" in capsys.readouterr().err
    assert main(["deck", "remove", "club"]) == 0
    assert main(["deck", "list"]) == 0
    assert capsys.readouterr().out.split()[-3:] == ["baraja", "olvidada:", "club"]
    assert deck_to_use(parse_config('[deck]\nname = "club"\n')) is None  # a deck forgotten is in use no more
    with pytest.raises(DeckNotFound, match="no learnt deck called 'club'"):
        make_reader(parse_config(""), Mat(), "club")


def test_a_refused_frame_keeps_nothing_and_says_one_line(tmp_path: Path, data_home: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    f = write_frames(tmp_path)
    assert main(["deck", "learn", "club", f[0], f[2], f[1]]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mus-table deck: Foto 2, zona del asiento 1:") and "\n" not in err
    assert not (data_home / "mus-table" / "decks" / "club").exists()
    assert main(["deck", "list"]) == 0 and capsys.readouterr().out == ""


@pytest.mark.parametrize("argv, message", [
    (["deck", "remove", "nothing"], "no hay ninguna baraja aprendida que se llame «nothing»"),
    (["deck", "learn", "../up", "a", "b", "c"], "nombre de la baraja"),
    (["deck", "learn", "ok", "missing0.png", "b", "c"], "foto 1: missing0.png: no existe ese archivo"),
    (["read", "--deck", "nothing", "x.png"], "no hay ninguna baraja aprendida que se llame «nothing»"),
])
def test_bad_requests_are_one_line_errors(argv: list[str], message: str, data_home: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
