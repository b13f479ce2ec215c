/* The spectator page: the same table live, the result first; the score moving with the tanteo
   as it is counted; the hands of the partida with downloads and replays, and the partidas before. */
"use strict";

let handsSeen = -1;

async function loadHands() {
  const r = await fetch("/api/hands");
  if (!r.ok) return;
  const hs = await r.json();
  const ol = document.getElementById("hands");
  ol.replaceChildren();
  if (!hs.length) { ol.hidden = true; document.getElementById("no-hands").hidden = false; }
  else { ol.hidden = false; document.getElementById("no-hands").hidden = true; }
  for (const h of hs) {
    const after = (h.answer && h.answer.score) || h.record.score;
    const won = h.answer && h.answer.winner !== null && h.answer.winner !== undefined;
    const row = won ? tr("hand_row_won", {n: h.n, mano: seatWho(h.record.mano), p: pairPhrase(h.answer.winner)})
                    : tr("hand_row", {n: h.n, mano: seatWho(h.record.mano), a: after[0], b: after[1]});
    ol.append(el("li", {class: won ? "won" : null},
      el("a", {href: "/hands/" + h.n}, row),
      " · ", el("a", {href: "/download/hand/" + h.n + ".json", download: true}, tr("download_json"))));
  }
}

/* Every partida of the table, closed ones too: each listed, to see and download. */
async function loadPartidas() {
  const r = await fetch("/api/partidas");
  if (!r.ok) return;
  const ps = await r.json();
  const ul = document.getElementById("partidas");
  ul.replaceChildren(...ps.map((p) => el("li", {class: p.in_play ? "won" : null},
    el("a", {href: "/partidas/" + p.id}, tr("partida_row", {id: p.id, hands: p.hands}) +
      (p.winner !== null && p.winner !== undefined
        ? " · " + tr("partida_won", {p: pairPhrase(p.winner, {names: p.names || ["", "", "", ""]})}) : "") +
      (p.in_play ? " " + tr("partida_in_play") : "")),
    " · ", el("a", {href: "/download/partida.jsonl?partida=" + p.id, download: true}, tr("download_json")))));
}

/* The result, first thing on the page: who won the partida, the juego, or the hand's juego now. */
function resultText(st) {
  const part = st.partida || {};
  if (part.over && part.winner !== null && part.winner !== undefined) {
    const v = part.vacas || [0, 0];
    return tr("partida_won", {p: pairPhrase(part.winner, st)}) + " " + tr("vacas_line", {a: v[0], b: v[1]});
  }
  const answer = st.answer || {};
  const won = st.won_at ? st.won_at.pair : answer.winner;
  if (st.phase === "scored" && won !== null && won !== undefined) return tr("wins_juego", {p: pairPhrase(won, st).toUpperCase()});
  const last = st.last_hand;
  if (st.phase === "playing" && last && last.winner !== null && last.winner !== undefined && (st.score || [0, 0]).every((x) => x === 0)) {
    const vr = part.vaca_results || [];
    if (vr.length && (part.juegos || [0, 0]).every((x) => x === 0)) {  /* that juego closed a vaca */
      const v = vr[vr.length - 1];
      return tr("vaca_was_won", {p: pairPhrase(v[0] > v[1] ? 0 : 1, st), a: v[0], b: v[1]});
    }
    return tr("juego_was_won", {p: pairPhrase(last.winner, st)});
  }
  return "";
}

function renderWatch(st) {
  const b = st.bets || {};
  const lance = document.getElementById("lance");
  const answering = (b.legal || []).includes("quiero");
  const betting = st.phase === "playing" && b.lance;  /* once the cards are read, the lance is history */
  const standing = b.standing;
  lance.textContent = tr("phase_" + st.phase) + (betting ? " · " + lanceName(b.lance) : "") +
    (betting && b.speaker !== null && b.speaker !== undefined
      ? " · " + tr(answering ? "answers" : "speaks", {seat: seatWho(b.speaker, st)}) : "") +
    (betting && standing ? " · " + (standing.ordago ? tr("ordago_standing", {of: seatOf(standing.bettor, st)})
                                    : tr("would_stand", {n: standing.total})) : "");
  const res = document.getElementById("result");
  const text = resultText(st);
  res.textContent = text;
  res.hidden = !text;
  const said = document.getElementById("said");
  said.replaceChildren();
  for (const [l, ws] of Object.entries(b.words || {})) {
    if (ws && ws.length) said.append(el("div", null, el("b", null, lanceName(l) + ": "), wordsText(ws)));
  }
  const cards = document.getElementById("cards");
  cards.replaceChildren();
  if (st.cards) {
    for (let s = 0; s < 4; s++) {
      cards.append(el("div", {class: "seatrow"}, el("span", {class: "seatname"}, seatLabel(s, st)),
        (st.cards[s] || []).map((c) => cardEl(c, "mid"))));
    }
  } else if (st.phase === "playing") {
    cards.append(el("p", {class: "muted"}, tr("waiting_cards")));
  }
  const tan = document.getElementById("tanteo");
  renderTanteo(tan, st, {animate: false});
  const side = el("div");
  renderLances(side, st);
  tan.prepend(...side.childNodes);
  countScore(st, document.getElementById("score"));
  const seen = st.hands + "/" + ((st.partida || {}).id);
  if (seen !== handsSeen) { handsSeen = seen; loadHands(); loadPartidas(); }
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
