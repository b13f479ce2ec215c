"""``mus-table train``'s faults and its cache, which need no torch."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.cli import main
from models.train import cache_dir


def test_train_with_an_incomplete_deck_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "1_oro.webp").write_bytes(b"")
    assert main(["train", "--deck", str(tmp_path), "--scenes", "1", "--epochs", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("mus-table train: ") and "not a whole deck" in err and "\n" not in err
    assert main(["train", "--deck", str(tmp_path / "none")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_training_caches_outside_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MUS_TABLE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "mus-table"
    monkeypatch.setenv("MUS_TABLE_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
