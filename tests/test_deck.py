"""The card art drawn in code: sizes, pintas, indices, pip counts, styles."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from models.deck import (
    ART_BOX,
    HELD_OUT_HERSHEY,
    HELD_OUT_STYLES,
    HELD_OUT_TTF_FONTS,
    PINTAS,
    PX_PER_MM,
    TRAINING_FONTS,
    TTF_INDEX_FONTS,
    DeckStyle,
    _reink,
    _vary_art,
    available_ttf_fonts,
    corner_style,
    deck_faces,
    held_out_traits,
    load_deck,
    load_fournier1878,
    random_style,
    redrawn_deck,
    render_card,
    restyle_faces,
)
from table.cards import DECK, Card, Suit


@pytest.mark.parametrize("name", sorted(HELD_OUT_STYLES))
def test_every_card_renders_at_the_style_size(name: str) -> None:
    style = HELD_OUT_STYLES[name]
    faces = [render_card(card, style) for card in DECK]
    w, h = style.size_px
    assert all(f.shape == (h, w, 3) and f.dtype == np.uint8 for f in faces)
    # forty different pictures
    assert len({f.tobytes() for f in faces}) == 40


def test_reference_size_is_246_by_380() -> None:
    assert render_card(Card.parse("1o"), DeckStyle()).shape == (380, 246, 3)


def _gaps_in_top_line(face: np.ndarray, style: DeckStyle, corner_mm: float = 6.0) -> int:
    y = int(round(style.border_inset_mm * PX_PER_MM))
    x0 = int(round((style.border_inset_mm + corner_mm) * PX_PER_MM))
    x1 = face.shape[1] - x0
    row = face[y - 1:y + 2, x0:x1].min(axis=0)  # darkest of three rows: the line
    ink = row.astype(int).sum(axis=1) < np.asarray(style.paper).sum() - 120
    changes = np.flatnonzero(np.diff(ink.astype(int)) == -1)  # ink -> paper: a gap starts
    return len(changes)


@pytest.mark.parametrize("suit", list(Suit))
@pytest.mark.parametrize("name", sorted(HELD_OUT_STYLES))
def test_pintas_count_the_suit(suit: Suit, name: str) -> None:
    style = HELD_OUT_STYLES[name]
    for rank in (4, 11):
        face = render_card(Card(rank, suit), style)
        assert _gaps_in_top_line(face, style) == PINTAS[suit]


def test_the_index_is_printed_top_left_and_turned_bottom_right() -> None:
    style = HELD_OUT_STYLES["clasica"]
    face = render_card(Card.parse("7o"), style).astype(int)
    cw, ch = int(style.border_inset_mm * PX_PER_MM), int(11 * PX_PER_MM)
    top_left = face[:ch, :cw]
    bottom_right = face[-ch:, -cw:][::-1, ::-1]
    assert top_left.min() < 100  # ink is there
    assert np.abs(top_left - bottom_right).mean() < 12
    other = render_card(Card.parse("1o"), style).astype(int)[:ch, :cw]
    assert np.abs(top_left - other).mean() > 3  # and it says the rank


@pytest.mark.parametrize("suit", [Suit.OROS, Suit.COPAS])
def test_round_signs_come_in_the_rank_count(suit: Suit) -> None:
    style = replace(HELD_OUT_STYLES["clasica"], layout_variant=0)
    inset = int((style.border_inset_mm + 2.5) * PX_PER_MM)
    paper = np.asarray(style.paper, int)
    for rank in range(1, 8):
        face = render_card(Card(rank, suit), style)[inset:-inset, inset:-inset].astype(int)
        marks = (np.abs(face - paper).sum(axis=2) > 60).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(marks)
        big = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 150]
        assert len(big) == rank, (suit, rank)


def test_random_styles_are_reproducible_and_never_a_held_out_one() -> None:
    a = [random_style(np.random.default_rng(s)) for s in range(30)]
    b = [random_style(np.random.default_rng(s)) for s in range(30)]
    assert a == b
    assert all(s not in HELD_OUT_STYLES.values() for s in a)
    assert all(s.font in TRAINING_FONTS for s in a)
    assert HELD_OUT_STYLES["clasica"].font not in TRAINING_FONTS
    for s in a:  # within ±15 % of the reference card
        assert 0.85 * 61.5 <= s.card_mm[0] <= 1.15 * 61.5
        assert 0.85 <= (s.card_mm[1] / s.card_mm[0]) / (95 / 61.5) <= 1.15


def test_random_styles_draw_all_cards() -> None:
    rng = np.random.default_rng(4)
    style = random_style(rng)
    for card in DECK[::7]:
        face = render_card(card, style, rng)
        assert face.shape[:2] == style.size_px[::-1]


def test_missing_scanned_deck_is_skipped(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert load_fournier1878(tmp_path / "absent") is None
    assert load_fournier1878(tmp_path) is None  # present but empty


def test_restyled_faces_keep_their_cards_and_sizes() -> None:
    style = HELD_OUT_STYLES["moderna"]
    faces = {c: render_card(c, style) for c in DECK[:5]}
    out = restyle_faces(faces, np.random.default_rng(2))
    assert set(out) == set(faces)
    assert all(out[c].shape == faces[c].shape for c in faces)


def test_redrawn_art_stays_inside_the_frame_line_and_leaves_the_rest_alone() -> None:
    face = render_card(Card.parse("5o"), HELD_OUT_STYLES["clasica"])
    h, w = face.shape[:2]
    x0, y0, x1, y1 = (round(ART_BOX[0] * w), round(ART_BOX[1] * h), round(ART_BOX[2] * w), round(ART_BOX[3] * h))
    changed = 0
    for seed in range(6):
        out = _vary_art(face, np.random.default_rng(seed))
        assert out.shape == face.shape
        outside = np.ones((h, w), bool)
        outside[y0:y1, x0:x1] = False
        assert np.array_equal(out[outside], face[outside])  # frame line, pintas, card edge untouched
        changed += int(not np.array_equal(out, face))
    assert changed == 6


def test_a_redrawn_deck_is_another_print_of_the_same_cards_and_reproducible() -> None:
    style = HELD_OUT_STYLES["moderna"]
    faces = {c: render_card(c, style) for c in DECK[:4]}
    a, b, c = redrawn_deck(faces, 1), redrawn_deck(faces, 1), redrawn_deck(faces, 2)
    assert set(a) == set(faces)
    assert all(a[k].shape == faces[k].shape and not np.array_equal(a[k], faces[k]) for k in faces)
    assert all(np.array_equal(a[k], b[k]) for k in faces)
    assert any(not np.array_equal(a[k], c[k]) for k in faces)


def test_a_scanned_deck_loads_from_png_and_an_incomplete_one_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    style = HELD_OUT_STYLES["clasica"]
    names = {Suit.OROS: "oro", Suit.COPAS: "copa", Suit.ESPADAS: "espada", Suit.BASTOS: "basto"}
    for card in DECK:
        cv2.imwrite(str(tmp_path / f"{card.rank}_{names[card.suit]}.png"), render_card(card, style))
    faces = load_deck(tmp_path)
    assert faces is not None and len(faces) == 40
    assert faces[Card.parse("12b")].shape == render_card(Card.parse("12b"), style).shape
    (tmp_path / "7_copa.png").unlink()
    assert load_deck(tmp_path) is None
    assert load_deck(tmp_path / "absent") is None


def test_printed_art_shades_and_hatches_shapes_and_ornaments_only_aces() -> None:
    plain = replace(HELD_OUT_STYLES["clasica"], shading=0.0, hatch_mm=0.0, ornaments=False)
    printed = replace(plain, shading=0.4, hatch_mm=0.8)
    for text in ("5c", "12e"):
        a = render_card(Card.parse(text), plain).astype(int)
        b = render_card(Card.parse(text), printed).astype(int)
        assert np.abs(a - b).sum() > 0
        assert b.sum() < a.sum()  # shading and hatching only darken
    ornate = replace(plain, ornaments=True)
    assert np.array_equal(render_card(Card.parse("5o"), ornate), render_card(Card.parse("5o"), plain))
    assert not np.array_equal(render_card(Card.parse("1o"), ornate), render_card(Card.parse("1o"), plain))


def test_sticks_can_be_printed_hilt_up() -> None:
    style = replace(HELD_OUT_STYLES["clasica"], stick_flip=0)
    up = render_card(Card.parse("4e"), style)
    down = render_card(Card.parse("4e"), replace(style, stick_flip=1))
    assert not np.array_equal(up, down)


def test_random_styles_size_signs_per_count_and_may_slant_the_ace() -> None:
    styles = [random_style(np.random.default_rng(s)) for s in range(40)]
    sizes = [s.pip_sizes for s in styles if s.pip_sizes is not None]
    assert len(sizes) == 40
    # the size of a 2's signs says nothing of the count: some styles print them smaller than a 7's
    assert any(p[1] < p[6] for p in sizes) and any(p[1] > p[6] for p in sizes)
    assert {s.ace_tilt for s in styles} == {True, False}
    assert all(s.pip_sizes is None and not s.ace_tilt for s in HELD_OUT_STYLES.values())


def test_reinked_faces_keep_their_size_with_fewer_inks() -> None:
    face = render_card(Card.parse("11c"), HELD_OUT_STYLES["moderna"])
    out = _reink(face, 4)
    assert out.shape == face.shape and out.dtype == np.uint8
    assert len(np.unique(out.reshape(-1, 3), axis=0)) < len(np.unique(face.reshape(-1, 3), axis=0))


def test_corner_styles_vary_the_ends_as_real_decks_do_and_keep_the_pintas() -> None:
    rng = np.random.default_rng(4)
    styles = [corner_style(rng) for _ in range(60)]
    assert all(s.name == "random" and s not in HELD_OUT_STYLES.values() for s in styles)
    assert min(s.index_height_mm for s in styles) < 3.5 and max(s.index_height_mm for s in styles) > 7.5
    assert {s.index_inside for s in styles} == {True, False}
    assert {s.pinta_spread for s in styles} == {True, False}
    assert all(not HELD_OUT_STYLES[n].index_inside and not HELD_OUT_STYLES[n].pinta_spread
               for n in ("clasica", "moderna"))
    for style in styles[:12]:
        for suit in Suit:
            face = render_card(Card(5, suit), replace(style, index_inside=False, double_border=False))
            assert _gaps_in_top_line(face, style, corner_mm=1.5) == PINTAS[suit]


def test_an_index_inside_the_frame_is_printed_inside_its_corner() -> None:
    style = replace(HELD_OUT_STYLES["clasica"], index_inside=True, index_height_mm=3.5)
    face = render_card(Card.parse("7o"), style).astype(int)
    inset = round(style.border_inset_mm * PX_PER_MM)
    outside = face[:inset - 2, :inset - 2]
    inside = face[inset + 2:inset + round(6 * PX_PER_MM), inset + 2:inset + round(6 * PX_PER_MM)]
    assert outside.min() > 150  # paper only
    assert inside.min() < 100  # the index's ink


@pytest.mark.skipif(not available_ttf_fonts(), reason="no TrueType fonts or no Pillow here")
def test_a_truetype_index_says_the_rank() -> None:
    style = replace(HELD_OUT_STYLES["clasica"], ttf=available_ttf_fonts()[0])
    cw, ch = int(style.border_inset_mm * PX_PER_MM), int(11 * PX_PER_MM)
    seven = render_card(Card.parse("7o"), style).astype(int)[:ch, :cw]
    one = render_card(Card.parse("1o"), style).astype(int)[:ch, :cw]
    assert seven.min() < 100 and np.abs(seven - one).mean() > 3
    assert corner_style(np.random.default_rng(0), ttf_share=0.0).ttf == ""


def test_no_training_style_can_be_a_held_out_one() -> None:
    """The held-out decks each have something no draw of training has: a face, signs, figures, wear..."""
    drawn = [random_style(np.random.default_rng(s)) for s in range(150)]
    drawn += [corner_style(np.random.default_rng(s)) for s in range(150)]
    assert all(held_out_traits(s) == frozenset() for s in drawn)
    assert all(held_out_traits(HELD_OUT_STYLES[n]) for n in HELD_OUT_STYLES if n != "moderna")
    assert len(HELD_OUT_STYLES) >= 5
    # the faces are nowhere in what the card, index and corner models draw from
    from models.index import HERSHEY

    assert not set(HELD_OUT_TTF_FONTS) & set(TTF_INDEX_FONTS)
    assert not set(HELD_OUT_HERSHEY) & (set(TRAINING_FONTS) | set(HERSHEY))


@pytest.mark.parametrize("name", ["catalana", "casino", "antigua", "cincuenta"])
def test_the_new_held_out_decks_print_an_index_in_the_corner_and_differ_from_the_old(name: str) -> None:
    style = HELD_OUT_STYLES[name]
    seven, one = render_card(Card.parse("7o"), style), render_card(Card.parse("1o"), style)
    corner = (slice(0, int(12 * PX_PER_MM)), slice(0, int(12 * PX_PER_MM)))
    assert seven[corner].astype(int).sum(axis=2).min() < np.asarray(style.paper).sum() - 150  # ink there
    assert np.abs(seven[corner].astype(int) - one[corner].astype(int)).mean() > 2  # and it says the rank
    faces = deck_faces(style)
    assert len(faces) == 40 and all(np.array_equal(faces[c], render_card(c, style)) for c in DECK[::9])
    for old in ("clasica", "moderna"):
        other = render_card(Card.parse("7o"), HELD_OUT_STYLES[old])
        if other.shape == seven.shape:
            assert np.abs(other.astype(int) - seven.astype(int)).mean() > 10


def test_a_notched_frame_steps_round_its_index() -> None:
    style = HELD_OUT_STYLES["cincuenta"]
    face = render_card(Card.parse("5o"), style).astype(int).sum(axis=2)
    ink = face < np.asarray(style.paper).sum() - 200
    i = round(style.border_inset_mm * PX_PER_MM)
    assert not ink[i, i + 2:i + round(4 * PX_PER_MM)].any()  # no frame line along the notch's top
    assert ink[i, face.shape[1] // 2 - round(8 * PX_PER_MM)]  # but further along, the line
    assert ink[i + 2:i + round(6 * PX_PER_MM), i + 2:i + round(8 * PX_PER_MM)].any()  # the index in the notch
