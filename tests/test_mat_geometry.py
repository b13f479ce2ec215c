from vision.mat import Mat


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
