"""``mus-table bench read``: figures for every stage, the model alone and the ends reader's two looks."""

from __future__ import annotations

import json
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
