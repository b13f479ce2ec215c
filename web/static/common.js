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
const SUIT_MARK = {o: "\u25CF", c: "\u2665", e: "\u2660", b: "\u2663"};

/* A card "12o" as a small element: the index big, the suit under it. */
function cardEl(card, extra) {
  if (!card) return el("span", {class: "card unknown " + (extra || "")}, tr("unknown_card"));
  const rank = card.slice(0, -1), suit = card.slice(-1);
  return el("span", {class: "card suit-" + suit + " " + (extra || ""), title: rank + " " + SUITS[suit]},
    el("b", null, rank), el("small", null, SUIT_MARK[suit] + " " + SUITS[suit]));
}

function plural(n, one, many) { return n + " " + tr(n === 1 ? one : many); }
function seatName(s) { return tr("seat_n", {n: s}); }
function lanceName(l) { return l ? tr("lance_" + l) : tr("no_lance"); }

/* The score of both pairs as the table shows it. */
function renderScore(root, st) {
  if (!root || !st) return;
  root.replaceChildren();
  const part = st.partida || {};
  for (const p of [0, 1]) {
    const sc = (st.score || [0, 0])[p];
    const stn = (st.stones || [])[p] || {};
    const box = el("div", {class: "pair pair" + p + (st.winner === p ? " won" : "")},
      el("div", {class: "pairname"}, tr("pair") + " " + p,
        el("small", null, " " + tr("seats_of_pair", {a: p, b: p + 2}))),
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
        el("div", {class: "mano"}, tr("mano") + ": " + seatName(st.mano)),
        st.phase === "playing" || !st.phase
          ? el("div", {class: "lance"}, lanceName(bets.lance))
          : el("div", {class: "lance phase"}, tr("phase_" + st.phase)),
        el("div", {class: "handno"}, tr("hand_no", {n: st.hand_no ?? "?"}) + " · " + tr("target", {n: st.target ?? 40}))));
    }
  }
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
      el("span", {class: "why"}, el("i", {class: "pchip pair" + ln.pair}, String(ln.pair)), ln.text),
      sc.length ? el("span", {class: "run"}, tr("running", {a: sc[0], b: sc[1]})) : null));
  });
  if (!counted.length && won && !st.won_at) ol.append(el("li", {class: "tev wins"}, el("span", {class: "why"}, tr("out_ordago"))));
  else if (!counted.length) ol.append(el("li", {class: "muted"}, tr("no_tanteo")));
  root.append(ol);
  if (won && won.pair !== undefined && won.pair !== null) {
    root.append(el("div", {class: "winbanner", id: "winbanner",
                           style: opts && opts.animate ? "animation-delay:" + (counted.length * 0.35) + "s" : null},
      tr("wins_juego", {p: won.pair}), won.why ? el("small", null, "«" + won.why + "»") : null));
  }
  if (uncounted.length) {
    root.append(el("div", {class: "notcounted",
                           style: opts && opts.animate ? "animation-delay:" + ((counted.length + 1) * 0.35) + "s" : null},
      el("b", null, tr("not_counted")),
      el("ul", null, uncounted.map((x) => el("li", null, el("i", {class: "pchip pair" + x.pair}, String(x.pair)), x.text)))));
  }
}

/* The words said in a lance, as the players say them: «0 envido 2, 1 no quiero». */
function wordsText(ws) {
  return ws.map((w) => w[0] + " " + (w[1] === "envido" ? tr("word_envido", {n: w[2]}) : tr("word_" + w[1])).toLowerCase()).join(", ");
}

function renderLances(root, st) {
  const lances = (st.answer && st.answer.lances) || {};
  const names = Object.keys(lances);
  if (!names.length) return;
  const tbl = el("table", {class: "lances"});
  for (const l of names) {
    const r = lances[l];
    tbl.append(el("tr", null, el("th", null, lanceName(l)),
      el("td", null, r.winner === null || r.winner === undefined ? tr("won_by_nobody") : tr("won_by", {p: r.winner})),
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
