/* The table display: score, bets as big buttons, the cards to correct, the tanteo, confirmation. */
"use strict";

let csrf = document.querySelector('meta[name="csrf-token"]').content;
let unlocked = document.getElementById("lockstate").dataset.unlocked === "yes";
let state = null;
let envidoN = 2;
let shownTanteo = "";
let view = null;     /* "bets" or "learn": what the display shows besides the phase's own view */
let learnK = null;   /* the learning frame shown */

function toast(text, bad) {
  const t = document.getElementById("toast");
  t.textContent = text;
  t.className = "toast" + (bad ? " bad" : "");
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 5000 : 2500);
}

async function post(url, body) {
  const r = await fetch(url, {method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf}, body: JSON.stringify(body)});
  let j = {};
  try { j = await r.json(); } catch (e) { /* not JSON */ }
  return {ok: r.ok, status: r.status, body: j};
}

/* Send one command, with the number of the state it was made on (a second tap on a state
   already changed is refused, not said for the next player); a refusal shows the table's
   reason and changes nothing. */
async function command(cmd) {
  if (!unlocked) { askPin(() => command(cmd)); return; }
  const r = await post("/api/command", state ? Object.assign({seq: state.seq}, cmd) : cmd);
  if (r.ok) { if (r.body.state) render(r.body.state); return; }
  if (r.status === 403 && r.body.code === "pin_needed") { setUnlocked(false); askPin(() => command(cmd)); return; }
  toast(tr("refused", {why: r.body.error || r.status}), true);
}

function setUnlocked(v) {
  unlocked = v;
  document.body.classList.toggle("locked", !v);
  document.getElementById("btn-lock").textContent = v ? tr("lock") : tr("unlock");
  const ls = document.getElementById("lockstate");
  ls.textContent = v ? "" : tr("locked");
}

/* The PIN pad: big digits, the wrong PIN refused in words. */
function askPin(then) {
  let pin = "";
  const shown = el("div", {class: "pinshown", id: "pinshown"}, "");
  const msg = el("div", {class: "pinmsg", id: "pinmsg"}, "");
  const pad = el("div", {class: "pinpad"});
  const upd = () => { shown.textContent = "\u2022".repeat(pin.length) || "\u00A0"; };
  for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "C", "0", "OK"]) {
    pad.append(el("button", {class: "pinkey", "data-key": d, onclick: async () => {
      if (d === "C") { pin = ""; upd(); return; }
      if (d !== "OK") { if (pin.length < 12) pin += d; upd(); return; }
      const r = await post("/api/unlock", {pin});
      if (r.ok) {
        csrf = r.body.csrf || csrf;
        closeModal(); setUnlocked(true);
        if (then) then();
      } else {
        pin = ""; upd();
        msg.textContent = r.body.error || tr("pin_wrong");
        msg.className = "pinmsg bad";
      }
    }}, d === "C" ? tr("clear") : d === "OK" ? tr("ok") : d));
  }
  upd();
  openModal(el("div", {class: "pinbox"}, el("h2", null, tr("pin_enter")), shown, msg, pad,
    el("button", {class: "small", onclick: closeModal}, tr("cancel"))));
}

function openModal(content) {
  const m = document.getElementById("modal");
  m.replaceChildren(content);
  m.hidden = false;
}
function closeModal() { document.getElementById("modal").hidden = true; }

function stoneWord(n, piedras) {
  return piedras ? tr(n === 1 ? "piedra" : "piedras") : tr(n === 1 ? "amarraco" : "amarracos");
}

/* The faults, each with what to do. */
function renderFaults(st) {
  const f = document.getElementById("faults");
  const items = [];
  for (const x of st.faults || []) items.push(el("div", {class: "fault"}, el("b", null, "\u26A0 " + x.text), x.todo ? el("span", null, " — " + x.todo) : null));
  const sc = st.stones_check || [];
  if (sc.length) items.push(el("div", {class: "fault warn"}, el("b", null, "\u26A0 " + tr("stones_disagree") + ": "),
    sc.map((x) => tr("stones_line", {seat: x.seat, seen: x.seen, expected: x.expected,
      what: stoneWord(x.seen, (st.piedras || [0, 1]).includes(x.seat))})).join("; "),
    " — " + tr("stones_todo")));
  const j = st.judge;
  if (j) items.push(el("div", {class: "fault judge", id: "judge"}, j.answer === null
    ? tr("judge_called") : tr("judge_answer", {text: j.answer})));
  f.replaceChildren(...items);
  f.hidden = !items.length;
  document.body.classList.toggle("has-faults", items.length > 0);
}

function wordButton(seat, word, n, label, cls) {
  return el("button", {class: "big word " + (cls || ""), "data-word": word, "data-n": n,
    onclick: () => command(n ? {kind: "say", seat, word, n} : {kind: "say", seat, word})}, label);
}

/* Playing: who speaks, only the words they may say, undo; or the whole lance in one tap. */
function renderBets(main, st) {
  const b = st.bets || {};
  const col = el("section", {class: "bets"});
  const side = el("section", {class: "side"});
  const legal = b.legal || [];
  const seat = b.speaker;
  const answering = legal.includes("quiero");
  if (b.lance && seat !== null && seat !== undefined) {
    col.append(el("div", {class: "speaker"}, el("span", {class: "lancebig"}, lanceName(b.lance)), " ",
      tr(answering ? "answers" : "speaks", {seat: seatName(seat)}),
      el("span", {class: "pairtag pair" + (seat % 2)}, tr("pair") + " " + (seat % 2))));
    const row = el("div", {class: "words"});
    for (const w of legal) {
      if (w === "envido") {
        const more = answering || (b.total || 0) > 0;
        row.append(wordButton(seat, "envido", envidoN, more ? tr("word_envido_more", {n: envidoN}) : tr("word_envido", {n: envidoN}), "envido"));
        const stepper = el("span", {class: "stepper"},
          el("button", {class: "big step", "data-step": "-", onclick: () => { envidoN = Math.max(2, envidoN - 1); render(state); }}, "\u2212"),
          el("button", {class: "big step", "data-step": "5", onclick: () => { envidoN = envidoN === 5 ? 2 : 5; render(state); }}, envidoN === 5 ? "2" : "5"),
          el("button", {class: "big step", "data-step": "+", onclick: () => { envidoN += 1; render(state); }}, "+"));
        row.append(stepper);
      } else {
        row.append(wordButton(seat, w, null, tr("word_" + w), "w-" + w.replace(" ", "-")));
      }
    }
    col.append(row);
    // the whole lance in one tap
    const quick = el("div", {class: "quick"}, el("span", {class: "label"}, tr("one_tap")));
    const L = b.lance;
    quick.append(el("button", {class: "mid q-paso", onclick: () => command({kind: "lance", lance: L, outcome: "en paso"})}, tr("out_en_paso")));
    quick.append(el("button", {class: "mid q-querido", onclick: () => command({kind: "lance", lance: L, outcome: "querido", n: envidoN})}, tr("out_querido", {n: envidoN})));
    for (const p of [0, 1]) {
      const by = [0, 1, 2, 3].map((i) => (st.mano + i) % 4).find((s) => s % 2 === p);
      quick.append(el("button", {class: "mid q-noquerido", onclick: () => command({kind: "lance", lance: L, outcome: "no querido", by})}, tr("out_no_querido", {p})));
    }
    quick.append(el("button", {class: "mid q-ordago", onclick: () => command({kind: "lance", lance: L, outcome: "ordago"})}, tr("out_ordago")));
    col.append(quick);
  } else if ((b.asked || []).length) {
    for (const q of b.asked) col.append(renderDeclare(q, st));
  } else {
    col.append(el("div", {class: "speaker"}, tr("bets_done")));
  }
  const said = el("div", {class: "said"}, el("h3", null, tr("said")));
  const words = b.words || {};
  let any = false;
  for (const [l, ws] of Object.entries(words)) {
    if (!ws || !ws.length) continue;
    any = true;
    said.append(el("div", null, el("b", null, lanceName(l) + ": "), wordsText(ws)));
  }
  if (!any) said.append(el("div", {class: "muted"}, tr("nothing_said")));
  if (st.cards) side.append(el("button", {class: "mid", id: "btn-cards", onclick: () => { view = null; render(state); }}, tr("to_cards")));
  side.append(said,
    el("button", {class: "big undo", id: "btn-unsay", onclick: () => command({kind: "unsay"})}, "\u21B6 " + tr("undo_word")),
    el("button", {class: "big read", id: "btn-read", onclick: () => command({kind: "read"})}, tr("read_cards")));
  main.append(col, side);
}

/* «¿Pares?», «¿Juego?» before the cards are shown: each seat says sí or no, in speaking order. */
function renderDeclare(lance, st) {
  const said = ((st.bets || {}).declared || {})[lance] || [null, null, null, null];
  const box = el("div", {class: "declare"}, el("span", {class: "speaker"}, tr("declare_q", {lance: lanceName(lance)})));
  for (let i = 0; i < 4; i++) {
    const s = (st.mano + i) % 4;
    const mk = (says) => el("button", {class: "mid decl-btn" + (said[s] === says ? " chosen" : ""),
      "data-seat": s, "data-says": says ? "yes" : "no",
      onclick: () => command({kind: "declare", seat: s, lance, says})}, tr(says ? "declare_yes" : "declare_no"));
    box.append(el("span", {class: "decl"}, el("b", null, String(s)), mk(true), mk(false)));
  }
  return box;
}

/* The sixteen cards by seat over the camera's picture; a tap corrects one. */
function renderCards(st) {
  const box = el("section", {class: "table-view"});
  box.append(el("img", {class: "camera", src: "/frame.jpg?seq=" + st.seq, alt: "",
    onerror: (e) => { e.target.style.visibility = "hidden"; }}));
  const cards = st.cards || [[], [], [], []];
  for (let s = 0; s < 4; s++) {
    const row = el("div", {class: "seatcards seat" + s}, el("span", {class: "seatname"}, String(s)));
    for (let i = 0; i < 4; i++) {
      const c = (cards[s] || [])[i] || null;
      row.append(el("button", {class: "cardbtn", "data-seat": s, "data-index": i,
        onclick: () => pickCard(s, i)}, cardEl(c)));
    }
    box.append(row);
  }
  box.append(el("div", {class: "hint"}, tr("tap_to_correct")));
  return box;
}

function pickCard(seat, index) {
  const grid = el("div", {class: "picker"});
  for (const s of ["o", "c", "e", "b"]) {
    for (const r of ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"]) {
      grid.append(el("button", {class: "pick suit-" + s, "data-card": r + s, onclick: () => {
        closeModal(); command({kind: "correct", seat, index, card: r + s});
      }}, el("b", null, r), el("small", null, SUIT_MARK[s])));
    }
  }
  openModal(el("div", {class: "pickbox"}, el("h2", null, tr("pick_card", {seat, i: index + 1})), grid,
    el("button", {class: "small", onclick: closeModal}, tr("cancel"))));
}

/* End of hand: cards, what each lance gave, the tanteo counted step by step, and who confirms. */
function renderEnd(main, st) {
  main.append(renderCards(st));
  const side = el("section", {class: "side end"});
  if ((st.problems || []).length) {
    side.append(el("div", {class: "problems", id: "problems"}, el("b", null, "\u26A0 " + tr("problems")),
      el("ul", null, st.problems.map((p) => el("li", null, p))),
      el("div", {class: "todo"}, tr("todo") + ": " + tr("impossible_todo"))));
  }
  renderLances(side, st);
  const tan = el("div", {class: "tanteo", id: "tanteo"});
  const key = JSON.stringify(st.tanteo || []);
  const animate = key !== shownTanteo;
  renderTanteo(tan, st, {animate});
  shownTanteo = key;
  side.append(tan);
  /* the banner and what was not counted stay in sight under the list, which scrolls */
  for (const x of tan.querySelectorAll(".winbanner, .notcounted")) side.append(x);
  /* keep the end of the count (the winning event, what was not counted) in sight */
  setTimeout(() => { tan.scrollTop = tan.scrollHeight; }, animate ? 350 * (st.tanteo || []).length : 0);
  const by = st.confirm_by || [];
  if (by.length && st.phase === "scored") {
    const pairs = new Set(by.map((x) => x % 2));
    side.append(el("div", {class: "confirm"},
      el("span", null, pairs.size === 1 ? tr("confirm_by", {p: by[0] % 2}) : tr("confirm_any")),
      by.map((x) => el("button", {class: "mid confirm-btn", "data-seat": x,
        onclick: () => command({kind: "confirm", seat: x})}, "\u2714 " + tr("seat") + " " + x))));
  }
  const row = el("div", {class: "endbtns"});
  if (st.phase !== "scored") row.append(el("button", {class: "small read", onclick: () => command({kind: "read"})}, tr("read_cards")));
  const b = st.bets || {};
  if (b.lance && !b.over && ((b.legal || []).length || (b.asked || []).length)) {
    row.append(el("button", {class: "small", id: "btn-bets", onclick: () => { view = "bets"; render(state); }}, tr("to_bets")));
  }
  side.append(row);
  main.append(side);
}

/* Deck learning: frame by frame, where each of the frame's cards goes, on a drawing of the mat. */
function renderLearning(main, st) {
  const L = st.learning || {};
  const done = L.done || [];
  const frames = (window.LEARN || []).length || 3;
  if (learnK === null || learnK >= frames) learnK = [...Array(frames).keys()].find((k) => !done.includes(k)) ?? 0;
  const k = learnK;
  const mat = el("section", {class: "learnmat"});
  const exp = (window.LEARN || [])[k] || [[], [], [], []];
  for (let s = 0; s < 4; s++) {
    mat.append(el("div", {class: "seatcards seat" + s}, el("span", {class: "seatname"}, String(s)),
      (exp[s] || []).map((c) => cardEl(c, "big"))));
  }
  const tabs = el("div", {class: "learntabs"});
  for (let i = 0; i < frames; i++) {
    tabs.append(el("button", {class: "mid" + (i === k ? " chosen" : "") + (done.includes(i) ? " done" : ""),
      onclick: () => { learnK = i; render(state); }}, (done.includes(i) ? "\u2713 " : "") + (i + 1)));
  }
  const side = el("section", {class: "side"},
    el("h2", null, tr("learn_deck")), tabs,
    el("p", {class: "learnstep"}, tr("learn_frame", {k: k + 1, total: frames})),
    el("p", null, tr("learn_where")),
    el("button", {class: "big", id: "btn-capture", onclick: () => { learnK = null; command({kind: "learn_frame", k}); }}, tr("learn_capture")));
  if (done.length === frames) {
    side.append(el("div", {class: "learnsave"},
      el("input", {id: "deckname", placeholder: tr("learn_name"), value: L.name || ""}),
      el("button", {class: "mid", onclick: () => command({kind: "learn_deck", name: document.getElementById("deckname").value})}, tr("learn_save"))));
  }
  side.append(el("button", {class: "mid", onclick: () => {
    learnK = null; view = null;
    if (st.phase === "learning") command({kind: "learn_cancel"}); else render(state);
  }}, tr("learn_cancel")));
  main.append(mat, side);
}

/* The partida is won: who won it, the vacas and the juegos of each, and a new partida. */
function renderOver(main, st) {
  const part = st.partida || {};
  const vacas = part.vacas || [0, 0];
  const vr = part.vaca_results || [];
  main.append(el("section", {class: "over"},
    el("div", {class: "winbanner big", id: "winbanner"}, tr("partida_won", {p: part.winner})),
    el("div", {class: "overline"}, tr("vacas_line", {a: vacas[0], b: vacas[1]})),
    vr.length ? el("div", {class: "overline muted"},
      tr("vaca_juegos") + " " + vr.map((v) => tr("a_to_b", {a: v[0], b: v[1]})).join("; ")) : null,
    el("button", {class: "big", id: "btn-new-partida", onclick: () => command({kind: "new_partida"})}, tr("new_partida"))));
}

function render(st) {
  if (!st) return;
  const inputFocused = document.activeElement && document.activeElement.id === "deckname";
  if (inputFocused && st.phase === "learning" && state && state.phase === "learning") { state = st; return; }
  state = st;
  renderScore(document.getElementById("score"), st);
  renderFaults(st);
  const main = document.getElementById("main");
  main.replaceChildren();
  main.dataset.phase = st.phase;
  if (st.phase === "learning" || view === "learn") renderLearning(main, st);
  else if (st.phase === "playing" || (view === "bets" && st.bets && st.bets.lance && !st.bets.over)) renderBets(main, st);
  else if (st.phase === "over") renderOver(main, st);
  else renderEnd(main, st);
}

document.getElementById("btn-lock").addEventListener("click", async () => {
  if (unlocked) { await post("/api/lock", {}); setUnlocked(false); } else askPin(null);
});
document.getElementById("btn-new").addEventListener("click", () => {
  if (confirm(tr("new_partida") + " " + tr("sure_q"))) command({kind: "new_partida"});
});
document.getElementById("btn-judge").addEventListener("click", () => command({kind: "call_judge"}));
document.getElementById("btn-undo-hand").addEventListener("click", () => {
  if (confirm(tr("undo_hand") + " " + tr("sure_q"))) command({kind: "undo_hand"});
});
document.getElementById("btn-learn").addEventListener("click", () => { view = "learn"; learnK = null; render(state); });

setUnlocked(unlocked);
live(render, showConn);
offerClock((message) => toast(message));
