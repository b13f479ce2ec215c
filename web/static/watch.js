/* The spectator page: the same table live; the hands of the partida with downloads and replays. */
"use strict";

let handsSeen = -1;

async function loadHands() {
  const r = await fetch("/api/hands");
  if (!r.ok) return;
  const hs = await r.json();
  const ol = document.getElementById("hands");
  ol.replaceChildren();
  if (!hs.length) ol.append(el("li", {class: "muted"}, tr("no_hands")));
  for (const h of hs) {
    const after = (h.answer && h.answer.score) || h.record.score;
    const won = h.answer && h.answer.winner !== null && h.answer.winner !== undefined;
    const row = won ? tr("hand_row_won", {n: h.n, mano: seatName(h.record.mano), p: h.answer.winner})
                    : tr("hand_row", {n: h.n, mano: seatName(h.record.mano), a: after[0], b: after[1]});
    ol.append(el("li", {class: won ? "won" : null},
      el("a", {href: "/hands/" + h.n}, row),
      " · ", el("a", {href: "/download/hand/" + h.n + ".json", download: true}, tr("download_json"))));
  }
}

function renderWatch(st) {
  renderScore(document.getElementById("score"), st);
  const b = st.bets || {};
  const lance = document.getElementById("lance");
  const answering = (b.legal || []).includes("quiero");
  const betting = st.phase === "playing" && b.lance;  /* once the cards are read, the lance is history */
  lance.textContent = tr("phase_" + st.phase) + (betting ? " · " + tr("lance") + ": " + lanceName(b.lance) : "") +
    (betting && b.speaker !== null && b.speaker !== undefined
      ? " · " + tr(answering ? "answers" : "speaks", {seat: seatName(b.speaker)}) : "");
  const said = document.getElementById("said");
  said.replaceChildren();
  for (const [l, ws] of Object.entries(b.words || {})) {
    if (ws && ws.length) said.append(el("div", null, el("b", null, lanceName(l) + ": "), wordsText(ws)));
  }
  const cards = document.getElementById("cards");
  cards.replaceChildren();
  if (st.cards) {
    for (let s = 0; s < 4; s++) {
      cards.append(el("div", {class: "seatrow"}, el("span", {class: "seatname"}, tr("seat") + " " + s),
        (st.cards[s] || []).map((c) => cardEl(c))));
    }
  } else {
    cards.append(el("p", {class: "muted"}, tr("waiting_cards")));
  }
  const tan = document.getElementById("tanteo");
  renderTanteo(tan, st, {animate: false});
  const side = el("div");
  renderLances(side, st);
  tan.prepend(...side.childNodes);
  if (st.hands !== handsSeen) { handsSeen = st.hands; loadHands(); }
}

live(renderWatch, (s, message) => {
  if (s === "full") {
    const f = document.getElementById("full");
    f.textContent = message || tr("spectators_full");
    f.hidden = false;
    return;
  }
  showConn(s);
});

offerClock();
