/* Shared by every page: texts, the live connection, and drawing the score and cards. */
"use strict";

function tr(key, vars) {
  let s = (window.T && window.T[key]) || key;
  if (vars) for (const k of Object.keys(vars)) s = s.split("{" + k + "}").join(vars[k]);
  return s;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c.nodeType ? c : document.createTextNode(String(c)));
  }
  return e;
}

const SUITS = {o: "oros", c: "copas", e: "espadas", b: "bastos"};

/* The Spanish suits drawn as simple signs (never the French ♥♠♣): a coin, a cup, a sword, a club. */
const SUIT_SVG = {
  o: '<circle cx="12" cy="12" r="9.5" fill="#e0a81c" stroke="#7a5200" stroke-width="2"/>' +
     '<circle cx="12" cy="12" r="4.5" fill="none" stroke="#7a5200" stroke-width="1.8"/>',
  c: '<path d="M4 3h16c0 6-3 9.5-6.2 10.2V18h3.7v3H6.5v-3h3.7v-4.8C7 12.5 4 9 4 3z" fill="#c62828" stroke="#6d0f0f" stroke-width="1.2"/>',
  e: '<path d="M12 1.5l2.2 4v11h-4.4v-11z" fill="#9fb7d9" stroke="#1f4fa8" stroke-width="1.4"/>' +
     '<rect x="5.5" y="16" width="13" height="2.6" rx="1" fill="#1f4fa8"/>' +
     '<rect x="10.8" y="18.4" width="2.4" height="4.2" fill="#1f4fa8"/>',
  b: '<path d="M9.2 22.5l1.6-13.5c-1.6-.6-2.6-2.2-2.4-4C8.7 2.6 10.6 1.2 12.9 1.6c2.4.4 3.6 2.6 3.1 4.7' +
     '-.3 1.3-1.2 2.3-2.4 2.8l-.6 13.4z" fill="#4e8a2f" stroke="#234d12" stroke-width="1.3"/>' +
     '<circle cx="11.2" cy="12.5" r="1.2" fill="#234d12"/><circle cx="13" cy="17" r="1.2" fill="#234d12"/>',
};

function suitIcon(suit, cls) {
  const span = el("span", {class: "suiticon " + (cls || ""), "aria-hidden": "true"});
  span.innerHTML = '<svg viewBox="0 0 24 24" width="100%" height="100%">' + (SUIT_SVG[suit] || "") + "</svg>";
  return span;
}

/* A card "12o" as a small element: the index big, the suit drawn and named under it.
   ``corrected``: the card was put right by hand, and says so. */
function cardEl(card, extra, corrected) {
  if (!card) return el("span", {class: "card unknown " + (extra || "")}, tr("unknown_card"));
  const rank = card.slice(0, -1), suit = card.slice(-1);
  return el("span", {class: "card suit-" + suit + " " + (extra || "") + (corrected ? " corrected" : ""),
                     title: rank + " " + tr("de") + " " + SUITS[suit] + (corrected ? " (" + tr("corrected_card") + ")" : ""),
                     "data-card": card},
    el("b", null, rank), suitIcon(suit), el("small", {class: "suitname"}, SUITS[suit]),
    corrected ? el("i", {class: "fixmark"}, tr("corrected_short")) : null);
}

function plural(n, one, many) { return n + " " + tr(n === 1 ? one : many); }

/* People read seats 1-4 (the JSON keeps 0-3), with the players' names where the partida has them. */
function seatNames(st) { return (st && Array.isArray(st.names)) ? st.names : (window.NAMES || []); }
function seatLabel(s, st) {
  if (s === null || s === undefined) return "?";
  const n = seatNames(st || window.STATE)[s];
  return n ? tr("seat_named", {name: n, n: s + 1}) : tr("seat_n", {n: s + 1});
}
function seatName(s, st) { return seatLabel(s, st); }
/* A seat inside a sentence: «el asiento 2» or «Jon (asiento 2)»; «del asiento 2» or «de Jon (asiento 2)». */
function seatWho(s, st) {
  const n = seatNames(st || window.STATE)[s];
  return n ? tr("seat_named", {name: n, n: s + 1}) : tr("seat_the", {n: s + 1});
}
function seatOf(s, st) {
  const n = seatNames(st || window.STATE)[s];
  return n ? tr("seat_of_named", {name: n, n: s + 1}) : tr("seat_of", {n: s + 1});
}
function seatShort(s, st) {
  const n = seatNames(st || window.STATE)[s];
  return n ? n : String(s + 1);
}
/* A pair by its players («Jon y Ane») or its seats («asientos 1 y 3»). */
function pairLabel(p, st) {
  const ns = seatNames(st || window.STATE);
  if (ns[p] && ns[p + 2]) return tr("pair_named", {a: ns[p], b: ns[p + 2]});
  return tr("seats_of_pair", {a: p + 1, b: p + 3});
}
/* The pair inside a sentence: «Jon y Ane» or «los asientos 1 y 3». */
function pairPhrase(p, st) {
  const ns = seatNames(st || window.STATE);
  if (ns[p] && ns[p + 2]) return tr("pair_named", {a: ns[p], b: ns[p + 2]});
  return tr("pair_seats_phrase", {a: p + 1, b: p + 3});
}
/* The pair in few words, for a button: «Jon y Ane» or «2 y 4». */
function pairShort(p, st) {
  const ns = seatNames(st || window.STATE);
  if (ns[p] && ns[p + 2]) return tr("pair_named", {a: ns[p], b: ns[p + 2]});
  return tr("pair_named", {a: p + 1, b: p + 3});
}
function lanceName(l) { return l ? tr("lance_" + l) : tr("no_lance"); }

/* The score of both pairs as the table shows it. ``shown``: the points to show instead of
   st.score (a spectator's score moving with the tanteo as it is counted). */
function renderScore(root, st, shown) {
  if (!root || !st) return;
  window.STATE = st;
  root.replaceChildren();
  const part = st.partida || {};
  const pts = shown || st.score || [0, 0];
  for (const p of [0, 1]) {
    const sc = pts[p];
    const stn = (st.stones || [])[p] || {};
    const won = part.over && part.winner === p;
    const box = el("div", {class: "pair pair" + p + (won ? " won" : "")},
      el("div", {class: "pairname"}, pairLabel(p, st)),
      el("div", {class: "points", "data-pair": p}, String(sc)),
      el("div", {class: "stones"},
        stn.dentro ? el("span", {class: "dentro"}, tr("dentro") + " ")
                   : el("span", null, (stn.amarracos ?? 0) + " " + tr((stn.amarracos === 1) ? "amarraco" : "amarracos") + " · "),
        el("span", null, (stn.piedras ?? 0) + " " + tr((stn.piedras === 1) ? "piedra" : "piedras"))),
      el("div", {class: "jv"},
        plural((part.juegos || [0, 0])[p], "juego", "juegos") + " · " + plural((part.vacas || [0, 0])[p], "vaca", "vacas")));
    root.append(box);
    if (p === 0) {
      const bets = st.bets || {};
      root.append(el("div", {class: "mid"},
        el("div", {class: "mano"}, tr("mano") + ": " + seatLabel(st.mano, st)),
        st.phase === "playing" || !st.phase
          ? el("div", {class: "lance"}, lanceName(bets.lance))
          : el("div", {class: "lance phase"}, tr("phase_" + st.phase)),
        el("div", {class: "handno"}, tr("hand_no", {n: st.hand_no ?? "?"}) + " · " + tr("target", {n: st.target ?? 40}))));
    }
  }
}

let countKey = "";
let countTimer = null;

/* The big numbers follow the tanteo as the juez counts it, event by event. */
function countScore(st, root) {
  const lines = (st.tanteo || []).filter((x) => x.counted !== false && x.score);
  const key = JSON.stringify([st.hand_no, lines.map((x) => x.score)]);
  if (st.phase !== "scored" || !lines.length) {
    clearTimeout(countTimer); countKey = ""; renderScore(root, st); window.countDone = true; return;
  }
  if (key === countKey) return;
  countKey = key;
  window.countDone = false;
  clearTimeout(countTimer);
  let i = 0;
  const step = () => {
    renderScore(root, st, i === 0 ? st.score : lines[i - 1].score);
    document.querySelectorAll(".tanteo-list .tev").forEach((li, k) => li.classList.toggle("now", k === i - 1));
    if (i < lines.length) { i += 1; countTimer = setTimeout(step, 700); } else window.countDone = true;
  };
  step();
}

/* The live state: an EventSource that resumes by itself (Last-Event-ID) and ignores repeats. */
function live(onState, onStatus) {
  let last = -1;
  const es = new EventSource("/api/events");
  const handle = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (typeof msg.seq === "number" && msg.seq <= last && msg.kind !== "state") return;
    if (typeof msg.seq === "number") last = msg.seq;
    window.lastSeq = last;
    window.lastKind = msg.kind;
    onState(msg.state || msg, msg);
  };
  for (const k of ["state", "message"].concat(window.KINDS || [])) es.addEventListener(k, handle);
  es.addEventListener("full", (ev) => {
    let m = {};
    try { m = JSON.parse(ev.data); } catch (e) { /* nothing */ }
    if (onStatus) onStatus("full", m.message);
  });
  es.onopen = () => onStatus && onStatus("online");
  es.onerror = () => onStatus && onStatus("offline");
  window.liveSource = es;
  return es;
}

/* The table's clock without a network: where the page says the table wants the time (its
   clock is not synchronised), send this phone's once. The table decides whether to take it. */
async function offerClock(onSet) {
  if (offerClock.sent || !document.querySelector('meta[name="clock-wanted"]')) return;
  offerClock.sent = true;
  const token = document.querySelector('meta[name="csrf-token"]').content;
  try {
    const r = await fetch("/api/clock", {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": token},
      body: JSON.stringify({now_ms: Date.now()})});
    const j = await r.json();
    window.clockAnswer = j.code;
    if (r.ok && onSet) onSet(j.message);
  } catch (e) { /* the table keeps its clock */ }
}

function showConn(state) {
  const c = document.getElementById("conn");
  if (!c) return;
  c.className = "conn " + state;
  c.textContent = state === "online" ? "\u25CF " + tr("online") : state === "offline" ? tr("offline") : "";
}

/* The tanteo as a list: each event with the running score; the event that wins the juego
   unmistakable, and what was not counted because of it struck through under it. */
function renderTanteo(root, st, opts) {
  root.replaceChildren();
  const lines = st.tanteo || [];
  if (!st.answer) return;
  root.append(el("h2", null, tr("tanteo")));
  const counted = lines.filter((ln) => ln.counted !== false);
  const uncounted = lines.filter((ln) => ln.counted === false);
  const answer = st.answer || {};
  const won = st.won_at || (answer.winner !== null && answer.winner !== undefined
    ? {pair: answer.winner, why: tr("word_ordago")} : null);
  const ol = el("ol", {class: "tanteo-list"});
  counted.forEach((ln, i) => {
    const sc = ln.score || [];
    const wins = won && i === counted.length - 1;
    ol.append(el("li", {class: "tev" + (wins ? " wins" : ""),
                        style: opts && opts.animate ? "animation-delay:" + (i * 0.35) + "s" : null},
      el("span", {class: "why"}, pairChip(ln.pair), ln.text),
      sc.length ? el("span", {class: "run"}, tr("running", {a: sc[0], b: sc[1]})) : null));
  });
  if (!counted.length && won && !st.won_at) ol.append(el("li", {class: "tev wins"}, el("span", {class: "why"}, tr("out_ordago"))));
  else if (!counted.length) ol.append(el("li", {class: "muted"}, tr("no_tanteo")));
  root.append(ol);
  if (won && won.pair !== undefined && won.pair !== null) {
    root.append(el("div", {class: "winbanner", id: "winbanner",
                           style: opts && opts.animate ? "animation-delay:" + (counted.length * 0.35) + "s" : null},
      tr("wins_juego", {p: pairPhrase(won.pair, st).toUpperCase()}), won.why ? el("small", null, "«" + won.why + "»") : null));
  }
  if (uncounted.length) {
    root.append(el("div", {class: "notcounted",
                           style: opts && opts.animate ? "animation-delay:" + ((counted.length + 1) * 0.35) + "s" : null},
      el("b", null, tr("not_counted")),
      el("ul", null, uncounted.map((x) => el("li", null, pairChip(x.pair), x.text)))));
  }
}

/* A chip of a pair's colour with its seats («1·3»), for a line of the tanteo. */
function pairChip(p) {
  return el("i", {class: "pchip pair" + p, title: pairLabel(p)}, (p + 1) + "·" + (p + 3));
}

/* One word as people say it: «Envido», «3 más», «Paso». ``raise``: an envido over a bet standing. */
function wordText(w, raise) {
  if (w[1] === "envido") {
    if (raise) return tr("word_more", {n: w[2]});
    return w[2] === 2 ? tr("word_envido") : tr("word_envido_n", {n: w[2]});
  }
  return tr("word_" + w[1]);
}

/* The words said in a lance, as the players say them: «1: envido · 2: 3 más · 3: no quiero». */
function wordsText(ws) {
  let bet = false;
  return ws.map((w) => {
    const t = seatShort(w[0]) + ": " + wordText(w, bet && w[1] === "envido").toLowerCase();
    if (w[1] === "envido" || w[1] === "ordago") bet = true;
    return t;
  }).join(" · ");
}

function renderLances(root, st) {
  const lances = (st.answer && st.answer.lances) || {};
  const names = Object.keys(lances);
  if (!names.length) return;
  const tbl = el("table", {class: "lances"});
  for (const l of names) {
    const r = lances[l];
    tbl.append(el("tr", null, el("th", null, lanceName(l)),
      el("td", null, r.winner === null || r.winner === undefined ? tr("won_by_nobody") : pairLabel(r.winner, st)),
      el("td", {class: "how"}, tr("how_" + r.how)),
      el("td", {class: "num"}, String(r.stones))));
  }
  root.append(tbl);
  const mistakes = (st.answer && st.answer.mistakes) || [];
  if (mistakes.length) {
    root.append(el("div", {class: "mistakes"}, el("b", null, tr("mistakes")),
      el("ul", null, mistakes.map((m) => el("li", null, seatName(m.seat) + ": " + m.why)))));
  }
}
