"""The ends reader (vision/ends.py): corner patches and end strips, the two-views rule, and its place
in the classifier: asked only about the cards the main model is not sure of."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from models.deck import HELD_OUT_STYLES, render_card
from models.scene import SceneSpec, render_scene
from table.cards import DECK, Card, Suit
from vision.cardcrop import half_turn, order_quad, warp_card
from vision.classifier import (
    BACKING,
    DEFAULT_THRESHOLD,
    ENDS_CHECK_BELOW,
    KERNEL_MARGIN,
    CardClassifier,
    Prediction,
    backs,
    fall_back,
)
from vision.ends import (
    CUT_GUARD,
    END_H,
    END_W,
    ENDS_THRESHOLD,
    FACE_H,
    FACE_W,
    MIN_PX_PER_MM,
    PATCH,
    SECOND_LOOK,
    CutGuard,
    EndsModel,
    EndsReading,
    Frame,
    beyond_patches,
    call_ends,
    close_notch,
    corner_patches,
    end_strips,
    ends_installed,
    face_of,
    normalise,
    px_per_mm_of,
    warp_face,
)


def _face(card: str, style: str = "clasica") -> npt.NDArray[np.uint8]:
    img = render_card(Card.parse(card), HELD_OUT_STYLES[style])
    return np.asarray(__import__("cv2").resize(img, (FACE_W, FACE_H)), np.uint8)


def test_the_two_views_are_the_two_ends_so_a_turned_card_gives_the_same_views() -> None:
    face = _face("4e")
    c, e = corner_patches(face), end_strips(face)
    assert c.shape == (2, PATCH, PATCH) and e.shape == (2, END_H, END_W)
    turned = np.ascontiguousarray(face[::-1, ::-1])
    assert np.array_equal(corner_patches(turned), c[::-1])
    assert np.array_equal(end_strips(turned), e[::-1])


def test_normalise_takes_away_light_and_ink_colour() -> None:
    face = _face("7c")
    dim = (face.astype(np.float32) * np.array([0.5, 0.6, 0.8])).astype(np.uint8)  # warm, dim light
    a, b = normalise(face[:PATCH, :PATCH]), normalise(dim[:PATCH, :PATCH])
    assert np.abs(a.astype(int) - b.astype(int)).mean() < 12
    assert a.min() == 0 and np.percentile(a, 80) >= 200


def test_a_face_is_cut_from_the_frame_where_the_crop_remembers_it() -> None:
    rng = np.random.default_rng(3)
    scene = render_scene(SceneSpec(cards=((DECK[3],), (), (), ()), deck=HELD_OUT_STYLES["clasica"],
                                   px_per_mm=2.6), rng)
    quad = scene.cards[0].quad_image
    crop = warp_card(scene.image, quad)
    assert np.array_equal(face_of(crop), warp_face(scene.image, quad))
    assert np.array_equal(face_of(half_turn(crop)), warp_face(scene.image, quad))  # the same card
    plain = face_of(np.ascontiguousarray(crop))  # a crop that forgot its frame: enlarged
    assert plain.shape == (FACE_H, FACE_W, 3)


def test_call_ends_needs_both_ends_to_agree_and_both_models_sure() -> None:
    ranks = np.full((3, 2, 10), 0.001)
    suits = np.full((3, 2, 4), 0.001)
    ranks[:, :, 7] = 0.99  # a 10 everywhere
    suits[0, :, 1] = 0.99  # copas at both ends
    suits[1, 0, 1], suits[1, 1, 2] = 0.99, 0.99  # the two ends disagree
    suits[2, :, 3] = 0.6  # bastos, but not sure
    got = call_ends(ranks, suits)
    assert str(got[0].card) == "10c" and got[0].sure()
    assert not got[1].agreed and not got[1].sure()
    assert got[2].suit is Suit.BASTOS and got[2].agreed and not got[2].sure()


class _FakeEnds(EndsModel):
    """An ends reader that names the cards it is told to, sure or not, and counts what it was asked."""

    def __init__(self, answers: list[EndsReading]) -> None:
        self.answers = answers
        self.asked = 0

    def read(self, faces: list[npt.NDArray[np.uint8]], threshold: float = ENDS_THRESHOLD,
             frames: Sequence[Frame | None] | None = None, guard: CutGuard = CUT_GUARD) -> list[EndsReading]:
        self.asked += len(faces)
        return self.answers[:len(faces)]


def test_a_second_look_cuts_the_same_face_a_little_aside_and_keeps_its_size() -> None:
    face = _face("7c")
    assert np.array_equal(corner_patches(face, (0, 0)), corner_patches(face))
    right = corner_patches(face, (3, 0))
    assert np.array_equal(right[0], normalise(np.ascontiguousarray(face[:PATCH, 3:3 + PATCH])))
    up = end_strips(face, (0, -3))  # above the face: its top row repeated
    assert up.shape == (2, END_H, END_W)
    assert np.array_equal(up[0], normalise(np.concatenate([face[:1]] * 3 + [face[:END_H - 3]])))
    wide = end_strips(face, (3, 0))  # the strip is the face's whole width: its right edge repeated
    assert wide.shape == (2, END_H, END_W)
    assert np.array_equal(wide[0], normalise(np.concatenate([face[:END_H, 3:]] + [face[:END_H, -1:]] * 3, axis=1)))


def _frame_end(breaks: list[tuple[int, int]], notch: bool) -> npt.NDArray[np.uint8]:
    """A normalised end strip drawn by hand: paper, a frame line at row 12 from x=12 to x=147 (corners
    turning down), gaps at ``breaks``; with ``notch`` the line steps in round an index at the left:
    it starts at x=36, turns down to row 30 and runs out to x=12 there."""
    cv2 = __import__("cv2")
    s = np.full((END_H, END_W), 220, np.uint8)
    left = 36 if notch else 12
    cv2.line(s, (left, 12), (147, 12), 40, 2)
    for a, b in breaks:
        s[10:15, a:b] = 220
    cv2.line(s, (147, 12), (147, END_H), 40, 2)
    if notch:
        cv2.line(s, (36, 12), (36, 30), 40, 2)
        cv2.line(s, (36, 30), (12, 30), 40, 2)
        cv2.line(s, (12, 30), (12, END_H), 40, 2)
        cv2.putText(s, "7", (18, 27), cv2.FONT_HERSHEY_SIMPLEX, 0.5, 40, 2)  # the index in the notch
    else:
        cv2.line(s, (12, 12), (12, END_H), 40, 2)
    return s


def test_a_notch_round_the_index_is_closed_and_the_pintas_are_left_as_they_are() -> None:
    pintas = [(70, 78), (88, 96)]
    notched = _frame_end(pintas, notch=True)
    closed = close_notch(notched)
    assert (closed[12:14, 16:33] < 100).all()  # the line drawn in where the step left it out ...
    assert (closed[14:, 12:14] < 100).all()  # ... and the frame's side below it
    for a, b in pintas:  # the pintas stay breaks
        assert np.array_equal(closed[:, a + 1:b - 1], notched[:, a + 1:b - 1])
    assert (closed[:, 40:] == notched[:, 40:]).all()
    inked = notched.copy()
    inked[6:15, 20:26] = 60  # ink where the line would run (an ornament, a worn line): not paper, not closed
    assert np.array_equal(close_notch(inked), inked)


@pytest.mark.parametrize("breaks", [[], [(70, 78)], [(17, 24), (135, 142)], [(40, 46), (77, 83), (114, 120)]])
def test_a_frame_with_both_corners_or_a_break_beside_a_corner_is_not_touched(breaks: list[tuple[int, int]]) -> None:
    plain = _frame_end(breaks, notch=False)
    assert np.array_equal(close_notch(plain), plain)
    blank = np.full((END_H, END_W), 220, np.uint8)
    assert np.array_equal(close_notch(blank), blank)


def _cincuenta_12e(seed: int) -> npt.NDArray[np.uint8]:
    """The face of a 12 de espadas of ``cincuenta`` (its frame line steps in round the index) cut from a
    still at 2.1 px/mm, the coarsest the ends read: enlarged to the face's 2.6 px/mm."""
    scene = render_scene(SceneSpec(cards=((Card.parse("12e"),), (), (), ()), deck=HELD_OUT_STYLES["cincuenta"],
                                   px_per_mm=2.1), np.random.default_rng(seed))
    return warp_face(scene.image, scene.cards[0].quad_image)


@pytest.mark.skipif(not ends_installed(), reason="the ends models are not installed")
@pytest.mark.parametrize("seed", [1, 2, 4, 6])
def test_a_notch_the_index_blurs_into_at_a_coarse_still_is_closed_and_not_read_as_a_pinta(seed: int) -> None:
    """At 2.1 px/mm the index's ink runs into the notch's side: no corner there has paper outside it.
    Left open, the step read as a third break (12e as a sure 12b, both views, in a scene at 2.1)."""
    face = _cincuenta_12e(seed)
    strips = end_strips(face)
    assert all(not np.array_equal(close_notch(s), s) for s in strips)  # both ends' notches drawn in
    model = EndsModel()
    bastos = model._suits([face], (0, 0), close=True)[0][:, 3]
    assert (bastos < ENDS_THRESHOLD - 0.15).all()  # three breaks: far under the bar in both views
    reading = model.read([face])[0]
    assert not (reading.suit is Suit.BASTOS and reading.sure())


@pytest.mark.parametrize("breaks", [[(14, 26)], [(13, 30)], [(14, 26), (70, 78)]])
@pytest.mark.parametrize("blur", [0.0, 1.0, 1.5])
def test_a_break_beside_a_corner_over_the_index_is_not_closed_however_blurred(
        breaks: list[tuple[int, int]], blur: float) -> None:
    """A pinta from the frame's corner, the index under it: the line past it has no corner running down."""
    cv2 = __import__("cv2")
    s = _frame_end(breaks, notch=False)
    cv2.putText(s, "7", (18, 27), cv2.FONT_HERSHEY_SIMPLEX, 0.5, 40, 2)
    if blur:
        s = np.asarray(cv2.GaussianBlur(s, (0, 0), blur), np.uint8)
    assert np.array_equal(close_notch(s), s)


class _Looks(EndsModel):
    """An ends model whose first look is unsure of a face of 1s and whose looks aside are sure of it.

    It never tells the class of a face of 2s."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, tuple[int, int]]] = []

    def _probabilities(self, faces: list[npt.NDArray[np.uint8]], shift: tuple[int, int],
                       k: int, sure: int) -> npt.NDArray[np.float64]:
        self.asked.append((len(faces), shift))
        p = np.full((len(faces), 2, k), 0.01)
        for i, f in enumerate(faces):
            first = shift == (0, 0)
            p[i, :, sure] = {1: 0.1 if first else 0.95, 2: 0.015}.get(int(f[0, 0, 0]), 0.95)
        return p / p.sum(axis=-1, keepdims=True)

    def _ranks(self, faces: list[npt.NDArray[np.uint8]], shift: tuple[int, int]) -> npt.NDArray[np.float64]:
        return self._probabilities(faces, shift, 10, 6)

    def _suits(self, faces: list[npt.NDArray[np.uint8]], shift: tuple[int, int],
               close: bool = False) -> npt.NDArray[np.float64]:
        return self._probabilities(faces, shift, 5, 1)


def test_only_what_the_first_look_doubts_gets_a_second_look_and_the_five_looks_must_reach_the_bar() -> None:
    faces = [np.zeros((FACE_H, FACE_W, 3), np.uint8) + v for v in (0, 1, 0, 2)]
    model = _Looks()
    first = call_ends(*model.probabilities(faces))
    assert [r.sure() for r in first] == [True, False, True, False]
    model.asked.clear()
    got = model.read(faces)
    assert [str(r.card) for r in got[:3]] == ["7c"] * 3 and [r.sure() for r in got] == [True, True, True, False]
    # the first look at all four, then face 1 alone, four cuts aside, for the rank and then the suit;
    # face 3 was too far off the bar for a second look
    assert model.asked == [(4, (0, 0))] * 2 + [(1, s) for s in SECOND_LOOK] * 2
    # the looks are combined, not the best taken: with a bar above their mean the face stays unsure
    strict = model.read(faces, threshold=0.9)
    assert [r.sure(0.9) for r in strict] == [True, False, True, False]


def _good_and_blank(px_per_mm: float) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """A crop the main model is sure of, and grey paper (sure of nothing) cut from a frame as fine."""
    rng = np.random.default_rng(8)
    scene = render_scene(SceneSpec(cards=((DECK[5], DECK[6]), (), (), ()), deck=HELD_OUT_STYLES["moderna"],
                                   px_per_mm=px_per_mm), rng)
    good = warp_card(scene.image, scene.cards[0].quad_image)
    blank = np.full_like(good, 128).view(type(good))  # grey paper: the main model is sure of nothing
    blank.source = (np.full_like(scene.image, 128), scene.cards[1].quad_image)
    return good, blank


def test_the_ends_are_asked_only_where_the_main_model_is_unsure() -> None:
    good, blank = _good_and_blank(2.6)
    assert px_per_mm_of(good) == pytest.approx(2.6, rel=0.1)
    sure = EndsReading(12, 0.99, Suit.BASTOS, 0.99, True)
    fake = _FakeEnds([sure])
    clf = CardClassifier(threads=1, ends=fake)
    main_only = CardClassifier(threads=1, ends=False)
    base = main_only.classify([good, blank])
    assert base[0].sure() and not base[1].sure()
    got = clf.classify([good, blank])
    assert fake.asked == 1  # only the blank
    assert got[0] == base[0]
    assert str(got[1].card) == "12b" and got[1].sure()
    unsure = _FakeEnds([EndsReading(12, 0.99, Suit.BASTOS, 0.5, True)])
    got = CardClassifier(threads=1, ends=unsure).classify([good, blank])
    assert not got[1].sure()


def _backing(rank: int, picks: tuple[Suit, Suit], lead: float = 0.1) -> npt.NDArray[np.float64]:
    """Main-model probabilities ``[2, 40]`` of a card it is unsure of: in each view the card of ``rank``
    and of that view's suit in ``picks`` is ``lead`` above the rest of the rank (far above a kernel's wobble)."""
    p = np.full((2, 40), 0.02)
    for view, suit in enumerate(picks):
        p[view, Card(rank, suit).index] += lead
    return np.asarray(p / p.sum(axis=1, keepdims=True), np.float64)


def test_a_suit_under_the_ends_bar_is_taken_only_where_the_card_model_backs_it_in_both_views() -> None:
    e, b = Suit.ESPADAS, Suit.BASTOS
    near = BACKING.suit_least + 0.1
    assert near + KERNEL_MARGIN < ENDS_THRESHOLD
    unsure = Prediction(Card.parse("3c"), 0.2, True)
    cases = [  # (ends reading, main model's probabilities, called card or None)
        (EndsReading(12, 0.99, e, near, True), _backing(12, (e, e)), "12e"),
        (EndsReading(12, 0.99, e, near, True), _backing(12, (e, b)), None),  # one view backs bastos
        (EndsReading(12, 0.99, e, near, True), _backing(12, (b, b)), None),  # the card model backs another suit
        (EndsReading(12, 0.99, e, near, True), _backing(11, (e, e)), None),  # ... the suit of another rank only
        (EndsReading(12, 0.99, e, near, False), _backing(12, (e, e)), None),  # the ends' views disagree
        (EndsReading(12, 0.99, e, BACKING.suit_least - 0.1, True), _backing(12, (e, e)), None),  # pintas too unsure
        (EndsReading(12, ENDS_THRESHOLD - 0.1, e, 0.99, True), _backing(12, (e, e)), None),  # the rank keeps its bar
        (EndsReading(12, 0.99, None, near, True), _backing(12, (e, e)), None),  # no card's end
        (EndsReading(12, 0.99, b, 0.99, True), _backing(12, (e, e)), "12b"),  # sure ends need no backing
    ]
    got = fall_back([unsure] * len(cases), [c[0] for c in cases], probabilities=np.stack([c[1] for c in cases]))
    assert [str(p.card) if p.sure() else None for p in got] == [c[2] for c in cases]
    assert all(p.probability >= DEFAULT_THRESHOLD for p in got if p.sure())
    assert backs(_backing(12, (e, e)), 12, e) and not backs(_backing(12, (e, e)), 12, b)
    # without the main model's probabilities, only sure ends are taken; a sure main model is never overruled
    assert [p.sure() for p in fall_back([unsure] * 2, [cases[0][0], cases[-1][0]])] == [False, True]
    sure = Prediction(Card.parse("3c"), 0.99, True)
    assert fall_back([sure], [cases[0][0]], probabilities=cases[0][1][None]) == [sure]


class _Told(CardClassifier):
    """The installed reader, with the main model's probabilities of the last crop replaced by ``last``."""

    def __init__(self, ends: EndsModel, last: npt.NDArray[np.float64]) -> None:
        super().__init__(threads=1, ends=ends)
        self.last = last

    def probabilities(self, crops: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float64]:
        p = super().probabilities(crops)
        p[-1] = self.last
        return p


def test_the_reader_backs_each_unsure_card_by_its_own_probabilities() -> None:
    good, blank = _good_and_blank(2.6)
    near = EndsReading(12, 0.99, Suit.ESPADAS, BACKING.suit_least + 0.1, True)
    e, b = Suit.ESPADAS, Suit.BASTOS
    backed = _Told(_FakeEnds([near]), _backing(12, (e, e))).classify([good, blank])
    assert backed[0].sure() and str(backed[0].card) == str(DECK[5])  # the sure card, as it was
    assert str(backed[1].card) == "12e" and backed[1].sure()  # the blank's own row was the one looked at
    assert not _Told(_FakeEnds([near]), _backing(12, (e, b))).classify([good, blank])[1].sure()


def test_a_sure_call_under_the_check_bar_is_unknown_where_the_ends_are_sure_of_another_card() -> None:
    # a card model trained without Fournier 1878 was sure its 4e was the 12e (0.91-0.95) in every hand; the ends
    # read 4e. Two readers sure of two cards: unknown. The ends naming the same card, or a call above the check's
    # bar, change nothing
    good, _ = _good_and_blank(2.6)
    card = DECK[5]
    sure = np.full((2, 40), 0.05 / 39)
    sure[:, card.index] = 0.93
    assert DEFAULT_THRESHOLD + KERNEL_MARGIN < 0.93 < ENDS_CHECK_BELOW - KERNEL_MARGIN
    other = _FakeEnds([EndsReading(4, 0.99, Suit.ESPADAS, 0.99, True)])
    got = _Told(other, sure).classify([good])[0]
    assert other.asked == 1 and not got.sure()
    assert got.probability < DEFAULT_THRESHOLD - KERNEL_MARGIN
    same = _Told(_FakeEnds([EndsReading(card.rank, 0.99, card.suit, 0.99, True)]), sure).classify([good])[0]
    assert same.sure() and same.card == card
    surer = sure.copy()
    surer[:, card.index] = 0.995
    above = _FakeEnds([EndsReading(4, 0.99, Suit.ESPADAS, 0.99, True)])
    assert _Told(above, surer).classify([good])[0].sure() and above.asked == 0


def test_the_ends_are_not_asked_about_a_card_from_a_coarse_frame() -> None:
    good, blank = _good_and_blank(1.5)  # the live camera: a small index is a few px tall
    assert px_per_mm_of(blank) < MIN_PX_PER_MM
    fake = _FakeEnds([EndsReading(12, 0.99, Suit.BASTOS, 0.99, True)])
    got = CardClassifier(threads=1, ends=fake).classify([good, blank])
    assert fake.asked == 0 and not got[1].sure()
    assert px_per_mm_of(np.ascontiguousarray(blank)) == pytest.approx(72 / 61.5)  # no frame: the crop's own


@pytest.mark.skipif(not ends_installed(), reason="the ends models are not installed")
def test_the_installed_ends_models_read_a_held_out_deck_they_never_saw() -> None:
    rng = np.random.default_rng(2024)
    scene = render_scene(SceneSpec(cards=((DECK[0], DECK[13]), (DECK[26],), (DECK[39],), (DECK[8],)),
                                   deck=HELD_OUT_STYLES["clasica"], px_per_mm=2.6), rng)
    faces = [warp_face(scene.image, t.quad_image) for t in scene.cards]
    got = EndsModel().read(faces)
    right = sum(r.card == t.card for r, t in zip(got, scene.cards, strict=True))
    wrong = sum(r.sure() and r.card != t.card for r, t in zip(got, scene.cards, strict=True))
    assert right >= 4 and wrong == 0


@pytest.mark.skipif(not ends_installed(), reason="the ends models are not installed")
def test_the_measure_gives_a_row_per_reader_and_the_reader_never_calls_more_wrong_than_the_main_model(
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from models.evaluate_ends import main

    assert main(["--scenes", "2", "--px", "still", "--json", "--only", "clasica", "--only", "moderna"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["deck"], r["reader"]) for r in rows] == [
        (d, r) for d in ("clasica", "moderna") for r in ("main", "ends", "combined")]
    for r in rows:
        assert r["cards"] == 32 and abs(r["right"] + r["wrong"] + r["unknown"] - 1) < 1e-9
        assert (r["rank_top1"] is None) == (r["reader"] != "ends")
    main_rows = {r["deck"]: r for r in rows if r["reader"] == "main"}
    for r in (r for r in rows if r["reader"] == "combined"):
        assert r["right"] >= main_rows[r["deck"]]["right"] and r["wrong"] == 0


def _narrowed(style: str, card: str, mm: float) -> tuple[npt.NDArray[np.uint8], Frame]:
    """A card's face cut from a quad ``mm`` inside the card's long edges, as a finder's quad off inwards: both
    index corners lose their outer ``mm``; with the frame and that quad."""
    scene = render_scene(SceneSpec(cards=((Card.parse(card),), (), (), ()), deck=HELD_OUT_STYLES[style],
                                   px_per_mm=2.8), np.random.default_rng(5))
    q = order_quad(scene.cards[0].quad_image)
    f = mm / 61.5
    cut = np.array([q[0] + f * (q[1] - q[0]), q[1] + f * (q[0] - q[1]),
                    q[2] + f * (q[3] - q[2]), q[3] + f * (q[2] - q[3])], np.float32)
    return warp_face(scene.image, cut), (scene.image, cut)


def test_a_look_beyond_the_quad_cuts_the_corners_from_the_frame_further_out() -> None:
    face, frame = _narrowed("antigua", "12c", 3.0)
    wide = warp_face(frame[0], frame[1], 6)
    assert wide.shape == (FACE_H + 12, FACE_W + 12, 3)
    assert np.abs(wide[6:-6, 6:-6].astype(int) - face.astype(int)).max() <= 1  # the same face inside
    out = beyond_patches(frame, 6)
    assert out.shape == (2, PATCH, PATCH)
    here = corner_patches(face)
    assert (out[:, :, :6] < 110).sum() > (here[:, :, :6] < 110).sum()  # the cut-off "1" is there, left of the cut


@pytest.mark.skipif(not ends_installed(), reason="the ends models are not installed")
@pytest.mark.parametrize("card", ["12c", "11o"])
def test_an_index_cut_to_its_last_digit_is_no_call_when_the_frame_shows_its_first(card: str) -> None:
    face, frame = _narrowed("antigua", card, 3.0)  # the leading "1" cut off in both corners
    ends = EndsModel()
    blind = ends.read([face])[0]
    assert blind.rank == Card.parse(card).rank - 10 and blind.rank_probability >= ENDS_THRESHOLD + KERNEL_MARGIN
    got = ends.read([face], frames=[frame])[0]
    assert not got.sure() and got.rank_probability == 0.0
    assert ends.read([face], frames=[None])[0] == blind  # no frame: nothing to look at beyond the quad
    assert ends.read([face], frames=[frame], guard=CutGuard(ranks=()))[0] == blind


@pytest.mark.skipif(not ends_installed(), reason="the ends models are not installed")
@pytest.mark.parametrize("card", ["2c", "1e", "12c"])
def test_a_look_beyond_the_quad_keeps_an_index_it_reads_the_same(card: str) -> None:
    face, frame = _narrowed("antigua", card, 1.0 if card == "12c" else 2.5)
    ends = EndsModel()
    blind = ends.read([face])[0]
    assert blind.rank == Card.parse(card).rank and blind.rank_probability >= ENDS_THRESHOLD + KERNEL_MARGIN
    assert ends.read([face], frames=[frame])[0] == blind
