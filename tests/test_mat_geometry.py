import json

import pytest

from table.errors import InvalidInput
from vision.mat import MAX_SIDE_MM, MIN_SIDE_MM, Mat, Zone, ZoneKind


def test_zones_match_the_spec_table() -> None:
    mat = Mat()
    assert mat.card_zone(0) == (220, 620, 580, 740)
    assert mat.card_zone(1) == (620, 220, 740, 580)
    assert mat.card_zone(2) == (220, 60, 580, 180)
    assert mat.card_zone(3) == (60, 220, 180, 580)
    assert mat.stone_zone(0) == (600, 600, 720, 720)


def test_zone_lookup() -> None:
    mat = Mat()
    assert mat.zone_at(400, 400) == "pool"
    assert mat.zone_at(400, 700) == "seat 0 cards"
    assert mat.zone_at(700, 300) == "seat 1 cards"
    assert mat.zone_at(660, 660) == "seat 0 stones"
    assert mat.zone_at(5, 400) is None


def test_markers_sit_in_the_corners_and_scale() -> None:
    mat = Mat(1000)
    assert mat.marker_corners(0)[0] == (0, 950)
    assert mat.marker_corners(2)[2] == (1000, 50)
    assert mat.card_zone(0) == (275, 775, 725, 925)


def test_zones_are_typed_values_that_keep_the_readings_spelling() -> None:
    zones = list(Zone)
    assert len(zones) == 9 and all(Zone.parse(str(z)) is z for z in zones)
    assert {z.kind for z in zones} == set(ZoneKind)
    assert [Zone.cards(s).seat for s in range(4)] == [0, 1, 2, 3] and Zone.POOL.seat is None
    assert Zone.stones(2).kind is ZoneKind.STONES and json.dumps(Zone.stones(2)) == '"seat 2 stones"'
    with pytest.raises(InvalidInput, match="not a zone"):
        Zone.parse("seat 4 cards")


@pytest.mark.parametrize("side", [MIN_SIDE_MM - 1, MAX_SIDE_MM + 1, 0.0])
def test_a_mat_outside_the_allowed_sides_is_refused(side: float) -> None:
    with pytest.raises(InvalidInput, match="a play area between 640 and 1500 mm"):
        Mat(side)
