// One table's board from an event ({seq, kind, at, state}): what /ver/<mesa> and /sse/<mesa> show.
window.showBoard = function (event) {
  const s = event.state || {};
  const set = (id, v) => { const el = document.getElementById(id); if (el) el.textContent = v === null || v === undefined ? "–" : v; };
  set("score", s.score ? s.score.join(" – ") : "–");
  set("phase", (window.PHASES || {})[s.phase] || s.phase);
  set("juegos", s.partida && s.partida.juegos ? s.partida.juegos.join(" – ") : null);
  set("lance", s.bets ? s.bets.lance : null);
  set("hand", s.hand_no);
  set("seq", event.seq);
  const list = document.getElementById("tanteo");
  if (list) list.replaceChildren(...(s.tanteo || []).map((t) => { const li = document.createElement("li"); li.textContent = t.text; return li; }));
};
