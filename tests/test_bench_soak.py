"""``mus-table bench soak``: a smoke run (one partida, the fast reader); the figures come from long runs."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from firmware.cli import main


def test_the_soak_finishes_a_partida_through_kills_and_checks_its_journal(tmp_path: Path, capsys: Any) -> None:
    journal = tmp_path / "soak.sqlite"
    assert main(["bench", "soak", "--partidas", "1", "--reader", "truth", "--kill-every", "5", "--seed", "5",
                 "--journal", str(journal), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["errors"] == [] and got["partidas_finished"] == 1 and not got["stopped_by_seconds"]
    assert got["refusals"] == 0 and got["lost_confirmed_hands"] == 0
    assert got["starts"] == got["kills"] + 1  # every life but the last was killed
    assert got["hands_said_confirmed"] <= got["hands_confirmed"] >= 3
    assert got["journal"] == {**got["journal"], "sqlite": "ok", "seq_grows": True, "replayed_as_listed": True,
                              "resumed_same_hands": True}
    with sqlite3.connect(journal) as db:  # the soak's journal is the table's, as it was left
        assert db.execute("SELECT count(*) FROM entries WHERE kind = 'confirm'").fetchone()[0] == got["hands_confirmed"]


def test_the_soak_checks_what_it_is_given(capsys: Any) -> None:
    assert main(["bench", "soak", "--partidas", "0"]) == 2
    assert "--partidas" in capsys.readouterr().err
