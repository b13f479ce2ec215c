"""``mus-table bench hub`` runs whole on a small scale and prints its figures (never a pass or a
fail on them: the numbers are for the docs)."""

from __future__ import annotations

import argparse
import json

import pytest

from firmware.benchmarks import hub
from tests._mosquitto import needs_mosquitto


@needs_mosquitto
def test_a_small_run_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(tables=2, spectators=4, spectator_procs=2, seconds=2.0, rate=4.0, broker="",
                              seed=1, json=True, n=None)
    assert hub.run(args) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["subscribed"] == 4 and figures["events_per_s"] > 0
    assert figures["table_to_hub_ms"]["n"] > 0 and figures["table_to_spectator_ms"]["n"] > 0
    assert figures["hub_rss_mb"] > 0


def test_bad_options_are_refused() -> None:
    from table.errors import InvalidInput

    args = argparse.Namespace(tables=0, spectators=4, spectator_procs=2, seconds=2.0, rate=4.0, broker="",
                              seed=1, json=True, n=None)
    with pytest.raises(InvalidInput):
        hub.run(args)
