/* The streaming overlay (1920x1080, transparent). ``?layout=bar``: the score bar alone (and the
   winner); the full layout adds the lance in play, who speaks, the envite standing, an órdago as it
   happens, the cards once shown and the tanteo. */
"use strict";

const FULL = !document.body.classList.contains("layout-bar");

function overlayWinner(st) {
  const part = st.partida || {};
  if (part.over && part.winner !== null && part.winner !== undefined) return tr("partida_won", {p: pairPhrase(part.winner, st)});
  const answer = st.answer || {};
  const won = st.won_at ? st.won_at.pair : answer.winner;
  if (st.phase === "scored" && won !== null && won !== undefined) return tr("wins_juego", {p: pairPhrase(won, st).toUpperCase()});
  return "";
}

live((st) => {
  countScore(st, document.getElementById("score"));  /* the score moves with the tanteo */
  const win = document.getElementById("ov-win");
  const w = overlayWinner(st);
  win.textContent = w;
  win.hidden = !w;
  const lance = document.getElementById("ov-lance");
  const cards = document.getElementById("ov-cards");
  const tan = document.getElementById("ov-tanteo");
  if (!FULL) { tan.replaceChildren(); return; }
  const b = st.bets || {};
  const standing = b.standing;
  lance.replaceChildren();
  if (st.phase === "playing" && b.lance) {
    const answering = (b.legal || []).includes("quiero");
    lance.append(el("div", {class: "ov-lname"}, lanceName(b.lance)));
    if (b.speaker !== null && b.speaker !== undefined) {
      lance.append(el("div", {class: "ov-speaks"}, tr(answering ? "answers" : "speaks", {seat: seatWho(b.speaker, st)})));
    }
    if (standing && standing.ordago) lance.append(el("div", {class: "ov-ordago", id: "ov-ordago"}, tr("ordago_standing", {of: seatOf(standing.bettor, st)})));
    else if (standing) lance.append(el("div", {class: "ov-standing"}, tr("standing", {n: standing.total, lance: lanceName(b.lance).toLowerCase(), of: seatOf(standing.bettor, st)})));
    const ws = (b.words || {})[b.lance] || [];
    if (ws.length) lance.append(el("div", {class: "ov-words"}, wordsText(ws)));
    lance.hidden = false;
  } else {
    lance.hidden = true;
  }
  cards.replaceChildren();
  if (st.cards) {
    for (let s = 0; s < 4; s++) {
      cards.append(el("div", {class: "seatrow"}, el("span", {class: "seatname"}, seatLabel(s, st)),
        (st.cards[s] || []).map((c) => cardEl(c, "mid"))));
    }
    cards.hidden = false;
  } else {
    cards.hidden = true;
  }
  renderTanteo(tan, st, {animate: false});
});
