/* The table display: score, bets as the players say them, the cards to correct, the tanteo,
   confirmation, deck learning. Every tap says what it did, in large type, or why it could not. */
"use strict";

let csrf = document.querySelector('meta[name="csrf-token"]').content;
let unlocked = document.getElementById("lockstate").dataset.unlocked === "yes";
let state = null;
let shownTanteo = "";
let view = null;     /* "bets": what the display shows besides the phase's own view */
/* The envido's amount: the smallest legal one at every new bet (``stepKey`` names the bet). */
let stepN = 2;
let stepKey = "";
const MIN_ENVIDO = 2;
const REPEAT_MS = 1000;  /* the same word tapped again within this is a double tap: ignored */
let lastTap = {key: "", at: 0};
let busy = false;        /* a command on its way: other taps wait for its answer */
let pending = null;      /* a command that could not reach the table: {cmd, label} */
window.tapAge = () => Date.now() - lastTap.at;  /* for the browser tests: a repeat is taken after REPEAT_MS */

function toast(text, bad, ms) {
  const t = document.getElementById("toast");
  t.textContent = text;
  t.className = "toast" + (bad ? " bad" : "");
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, ms || (bad ? 5000 : 2500));
}

/* What was just entered, in large type for a moment («Paso — asiento 2 ✓»). */
function flash(text) {
  const f = document.getElementById("flash");
  f.textContent = text + " \u2713";
  f.hidden = false;
  f.classList.remove("go");
  void f.offsetWidth;  /* restart the fade */
  f.classList.add("go");
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => { f.hidden = true; }, 1300);
  window.lastFlash = f.textContent;
}

const POST_TIMEOUT_MS = 8000;  /* an answer later than this: the tap is taken as not arrived */
/* commands that read a photo or learn a deck (a minute on the Pi): how long to wait, said while they work */
const SLOW_MS = {learn_frame: 60000, learn_deck: 300000};
const SLOW_SAY = {learn_frame: () => tr("working_learn_frame"), learn_deck: () => tr("working_learn_deck")};

async function post(url, body, timeoutMs) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs || POST_TIMEOUT_MS);
  let r;
  try {
    r = await fetch(url, {method: "POST", credentials: "same-origin", signal: ctl.signal,
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf}, body: JSON.stringify(body)});
  } finally {
    clearTimeout(timer);
  }
  let j = {};
  try { j = await r.json(); } catch (e) { /* not JSON */ }
  return {ok: r.ok, status: r.status, body: j};
}

/* A refusal's words: the server's text (rendered from web/strings.py), else the code's. */
function refusalText(body, status) {
  if (body && body.error) return body.error;
  if (body && body.code && window.T && window.T[body.code]) return tr(body.code, body.args || {});
  return tr("error_status", {status});
}

/* Send one command; ``label`` is what the flash says once the table took it. A double tap is
   ignored; a refusal shows the reason and changes nothing; a command that could not reach the
   table is said so and offered again (and sent again by itself when the table is back). */
async function command(cmd, label) {
  if (!unlocked) { askPin(() => command(cmd, label)); return; }
  const key = JSON.stringify({...cmd, seat: undefined});
  const now = Date.now();
  if (busy || (key === lastTap.key && now - lastTap.at < REPEAT_MS)) { window.ignoredTaps = (window.ignoredTaps || 0) + 1; return; }
  lastTap = {key, at: now};
  busy = true;
  const body = state && typeof state.seq === "number" ? {...cmd, seq: state.seq} : cmd;
  const slow = SLOW_MS[cmd.kind];
  if (slow) toast(SLOW_SAY[cmd.kind](), false, slow);
  let r;
  try {
    r = await post("/api/command", body, slow);
  } catch (e) {
    busy = false;
    if (slow) document.getElementById("toast").hidden = true;
    setPending({cmd, label});
    return;
  }
  busy = false;
  if (slow) document.getElementById("toast").hidden = true;
  if (r.ok) {
    setPending(null);
    if (r.body.state) render(r.body.state);
    if (label) flash(label);
    return;
  }
  if (r.status === 403 && r.body.code === "pin_needed") { setUnlocked(false); askPin(() => command(cmd, label)); return; }
  if (r.status >= 500) { setPending({cmd, label}); return; }
  setPending(null);
  toast(tr("refused", {why: refusalText(r.body, r.status)}), true);
}

/* The strip that says a tap did not reach the table, with «Reintentar» and «Descartar». */
function setPending(p) {
  pending = p;
  const bar = document.getElementById("pending");
  if (!p) { bar.hidden = true; bar.replaceChildren(); document.body.classList.remove("has-pending"); return; }
  bar.replaceChildren(
    el("b", null, "\u26A0 " + tr("not_sent", {what: p.label || tr("the_tap")})),
    el("button", {class: "mid", id: "btn-retry", onclick: () => { const q = pending; setPending(null); lastTap = {key: "", at: 0}; command(q.cmd, q.label); }}, tr("retry")),
    el("button", {class: "mid", id: "btn-drop", onclick: () => setPending(null)}, tr("discard")));
  bar.hidden = false;
  document.body.classList.add("has-pending");
}

function setUnlocked(v) {
  unlocked = v;
  document.body.classList.toggle("locked", !v);
  document.getElementById("btn-lock").textContent = v ? tr("lock") : tr("unlock");
  const ls = document.getElementById("lockstate");
  ls.textContent = v ? "" : tr("locked");
}

/* After the table restarts (or the session ends) the page must not claim to be unlocked. */
async function checkSession() {
  try {
    const r = await fetch("/api/session", {credentials: "same-origin"});
    const j = await r.json();
    if (typeof j.unlocked === "boolean" && j.unlocked !== unlocked) setUnlocked(j.unlocked);
    if (j.csrf) csrf = j.csrf;
  } catch (e) { /* offline: the live connection says so */ }
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
      let r;
      try { r = await post("/api/unlock", {pin}); } catch (e) {
        msg.textContent = tr("offline"); msg.className = "pinmsg bad"; return;
      }
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

/* A second step before something that closes or takes back: what it does, and two big answers. */
function askSure(title, text, yes, then) {
  openModal(el("div", {class: "surebox", id: "surebox"}, el("h2", null, title), el("p", null, text),
    el("div", {class: "surebtns"},
      el("button", {class: "big", id: "btn-sure", onclick: () => { closeModal(); then(); }}, yes),
      el("button", {class: "big cancel", onclick: closeModal}, tr("cancel")))));
}

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
    sc.map((x) => tr("stones_line", {seat: seatShort(x.seat, st), seen: x.seen, expected: x.expected,
      what: stoneWord(x.seen, (st.piedras || [0, 1]).includes(x.seat))})).join("; "),
    " — " + tr("stones_todo")));
  const j = st.judge;
  if (j) items.push(el("div", {class: "fault judge", id: "judge"}, j.answer === null
    ? tr("judge_called") : tr("judge_answer", {text: j.answer})));
  f.replaceChildren(...items);
  f.hidden = !items.length;
  document.body.classList.toggle("has-faults", items.length > 0);
}

/* A button for a word, with what it would score under it. */
function wordButton(seat, word, n, label, sub, cls, flashText) {
  return el("button", {class: "big word " + (cls || ""), "data-word": word, "data-n": n,
    onclick: () => command(n ? {kind: "say", seat, word, n} : {kind: "say", seat, word}, flashText)},
    el("span", {class: "wl"}, label), sub ? el("small", {class: "ws"}, sub) : null);
}

/* Playing: who speaks and what stands; only the words they may say, each with what it scores;
   the whole lance in one tap; what was said, undo, and «Leer las cartas». */
function renderBets(main, st) {
  const b = st.bets || {};
  const col = el("section", {class: "bets"});
  const side = el("section", {class: "side"});
  const legal = b.legal || [];
  const seat = b.speaker;
  const standing = b.standing || null;
  const answering = legal.includes("quiero");
  const L = b.lance;
  if (L && seat !== null && seat !== undefined && legal.length) {
    const key = [st.hand_no, L, JSON.stringify((b.words || {})[L] || [])].join("|");
    if (key !== stepKey) { stepKey = key; stepN = MIN_ENVIDO; }
    const who = seatLabel(seat, st);
    col.append(el("div", {class: "speaker"}, el("span", {class: "lancebig"}, lanceName(L)), " ",
      tr(answering ? "answers" : "speaks", {seat: seatWho(seat, st)}), pairChip(seat % 2)));
    const total = standing ? standing.total : 0;
    col.append(el("div", {class: "standing", id: "standing"},
      !standing ? tr("nothing_bet", {lance: lanceName(L).toLowerCase()})
        : standing.ordago ? tr("ordago_standing", {of: seatOf(standing.bettor, st)})
        : tr("standing", {n: total, lance: lanceName(L).toLowerCase(), of: seatOf(standing.bettor, st)})));
    const row = el("div", {class: "words"});
    const done = (w) => tr("flash_word", {word: w, seat: who});
    for (const w of legal) {
      if (w === "envido") {
        const more = answering && standing && !standing.ordago;
        const label = more ? tr("word_more", {n: stepN}) : stepN === MIN_ENVIDO ? tr("word_envido") : tr("word_envido_n", {n: stepN});
        const sub = tr("would_stand", {n: more ? total + stepN : stepN});
        row.append(el("span", {class: "envbox"},
          wordButton(seat, "envido", stepN, label, sub, "envido", done(label)),
          el("span", {class: "stepper"},
            el("button", {class: "mid step", "data-step": "-", "aria-label": tr("step_less"), disabled: stepN <= MIN_ENVIDO,
              onclick: () => { stepN = Math.max(MIN_ENVIDO, stepN - 1); render(state); }}, "\u2212"),
            el("button", {class: "mid step", "data-step": "+", "aria-label": tr("step_more"),
              onclick: () => { stepN += 1; render(state); }}, "+"))));
      } else if (w === "quiero") {
        row.append(wordButton(seat, w, null, tr("word_quiero"),
          standing && standing.ordago ? tr("ordago_sub") : tr("quiero_sub", {n: total}), "w-quiero", done(tr("word_quiero"))));
      } else if (w === "no quiero") {
        const deje = standing ? (standing.deje ?? 1) : 1;
        row.append(wordButton(seat, w, null, tr("word_no quiero"),
          tr("no_quiero_sub", {n: deje, p: pairPhrase((standing ? standing.bettor : 0) % 2, st)}), "w-no-quiero", done(tr("word_no quiero"))));
      } else {
        row.append(wordButton(seat, w, null, tr("word_" + w), null, "w-" + w.replace(" ", "-"), done(tr("word_" + w))));
      }
    }
    col.append(row);
    if (!((b.words || {})[L] || []).length) {
      /* the whole lance in one tap (only before anybody spoke in it) */
      const quick = el("div", {class: "quick"}, el("span", {class: "label"}, tr("one_tap")));
      const lname = lanceName(L);
      quick.append(el("button", {class: "mid q-paso", onclick: () => command({kind: "lance", lance: L, outcome: "en paso"},
        tr("flash_lance", {lance: lname, how: tr("out_en_paso")}))}, tr("out_en_paso")));
      quick.append(el("button", {class: "mid q-querido", onclick: () => command({kind: "lance", lance: L, outcome: "querido", n: stepN},
        tr("flash_lance", {lance: lname, how: tr("out_querido", {n: stepN})}))}, tr("out_querido", {n: stepN})));
      for (const p of [0, 1]) {
        const by = [0, 1, 2, 3].map((i) => (st.mano + i) % 4).find((s) => s % 2 === p);
        quick.append(el("button", {class: "mid q-noquerido", "data-pair": p, onclick: () => command({kind: "lance", lance: L, outcome: "no querido", by},
          tr("flash_lance", {lance: lname, how: tr("out_no_querido", {p: pairPhrase(p, st)})}))}, tr("out_no_querido_short", {p: pairShort(p, st)})));
      }
      quick.append(el("button", {class: "mid q-ordago", onclick: () => command({kind: "lance", lance: L, outcome: "ordago"},
        tr("flash_lance", {lance: lname, how: tr("out_ordago")}))}, tr("out_ordago")));
      col.append(quick);
    }
  } else if ((b.asked || []).length) {
    for (const q of b.asked) col.append(renderDeclare(q, st));
    col.append(el("div", {class: "readnow"}, el("span", null, tr("or_read")),
      el("button", {class: "big read", id: "btn-read-now", onclick: () => command({kind: "read"}, tr("read_cards"))}, tr("read_cards"))));
  } else {
    col.append(el("div", {class: "speaker"}, tr("bets_done")));
    col.append(el("button", {class: "big read", id: "btn-read-now", onclick: () => command({kind: "read"}, tr("read_cards"))}, tr("read_cards")));
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
    el("button", {class: "big undo", id: "btn-unsay", onclick: () => command({kind: "unsay"}, tr("undo_word"))}, "\u21B6 " + tr("undo_word")));
  if (L && legal.length) side.append(el("button", {class: "big read", id: "btn-read", onclick: () => command({kind: "read"}, tr("read_cards"))}, tr("read_cards")));
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
      onclick: () => command({kind: "declare", seat: s, lance, says},
        tr("flash_word", {word: lanceName(lance) + ": " + tr(says ? "declare_yes" : "declare_no"), seat: seatLabel(s, st)}))},
      tr(says ? "declare_yes" : "declare_no"));
    box.append(el("span", {class: "decl"}, el("b", {class: "seatnum"}, seatShort(s, st)), mk(true), mk(false)));
  }
  return box;
}

/* The cards the camera read, by seat: a card differs from it only where it was corrected by hand. */
function correctedAt(st, s, i) {
  const read = st.reading && st.reading.cards;
  if (!read || !st.cards) return false;
  const was = (read[s] || [])[i];
  const now = (st.cards[s] || [])[i];
  return now !== undefined && now !== null && was !== now;
}

/* The sixteen cards by seat over the camera's picture; a tap corrects one. */
function renderCards(st) {
  const box = el("section", {class: "table-view"});
  box.append(el("img", {class: "camera", src: "/frame.jpg?seq=" + st.seq, alt: "",
    onerror: (e) => { e.target.style.visibility = "hidden"; }}));
  const cards = st.cards || [[], [], [], []];
  for (let s = 0; s < 4; s++) {
    const row = el("div", {class: "seatcards seat" + s}, el("span", {class: "seatname", title: seatLabel(s, st)}, seatShort(s, st)));
    const n = Math.max(4, (cards[s] || []).length);
    for (let i = 0; i < n; i++) {
      const c = (cards[s] || [])[i] || null;
      row.append(el("button", {class: "cardbtn", "data-seat": s, "data-index": i,
        onclick: () => pickCard(s, i)}, cardEl(c, null, correctedAt(st, s, i))));
    }
    box.append(row);
  }
  return box;
}

function pickCard(seat, index) {
  const grid = el("div", {class: "picker"});
  for (const s of ["o", "c", "e", "b"]) {
    grid.append(el("div", {class: "pickrow"}, suitIcon(s, "pickicon"), el("span", {class: "pickname"}, SUITS[s])));
    for (const r of ["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"]) {
      grid.append(el("button", {class: "pick suit-" + s, "data-card": r + s, "aria-label": r + " " + tr("de") + " " + SUITS[s], onclick: () => {
        closeModal();
        command({kind: "correct", seat, index, card: r + s},
          tr("flash_card", {card: r + " " + tr("de") + " " + SUITS[s], seat: seatWho(seat, state)}));
      }}, el("b", null, r), suitIcon(s)));
    }
  }
  openModal(el("div", {class: "pickbox"}, el("h2", null, tr("pick_card", {seat: seatLabel(seat, state), i: index + 1})), grid,
    el("button", {class: "mid", onclick: closeModal}, tr("cancel"))));
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
      el("span", null, pairs.size === 1 ? tr("confirm_by", {p: pairPhrase(by[0] % 2, st)}) : tr("confirm_any")),
      by.map((x) => el("button", {class: "mid confirm-btn", "data-seat": x,
        onclick: () => command({kind: "confirm", seat: x}, tr("flash_confirmed", {seat: seatWho(x, st)}))},
        "\u2714 " + seatLabel(x, st)))));
  }
  const row = el("div", {class: "endbtns endrow"});
  const fixed = [0, 1, 2, 3].some((s) => [0, 1, 2, 3].some((i) => correctedAt(st, s, i)));
  if (!(st.problems || []).length) row.append(el("div", {class: "hint", id: "hint"}, fixed ? tr("some_corrected") : tr("tap_to_correct")));
  row.append(el("button", {class: "small read", id: "btn-reread", onclick: () => command({kind: "read"}, tr("read_cards"))}, tr("read_cards")));
  const b = st.bets || {};
  if (b.lance && !b.over && ((b.legal || []).length || (b.asked || []).length)) {
    row.append(el("button", {class: "small", id: "btn-bets", onclick: () => { view = "bets"; render(state); }}, tr("to_bets")));
  }
  side.append(row);
  main.append(side);
}

/* Deck learning: frame by frame, where each of the frame's cards goes, on a drawing of the mat.
   The table says which frame is to be laid (learning.frame: the next one once a photo is right,
   the same one while it is wrong); a tab asks the table for another. */
function renderLearning(main, st) {
  const L = st.learning || {};
  const frames = (window.LEARN || []).length || 3;
  const bad = Object.keys(L.faults || {}).map(Number).filter((k) => ((L.faults || {})[k] || []).length);
  const done = (L.done || []).filter((k) => !bad.includes(k));  /* taken and right */
  const all = done.length >= frames;
  const k = Math.min(frames - 1, Math.max(0, Number(L.frame) || 0));
  const mat = el("section", {class: "learnmat", "data-frame": k});
  const exp = (window.LEARN || [])[k] || [[], [], [], []];
  const faults = (L.faults || {})[k] || (L.faults || {})[String(k)] || [];
  const badSeats = faults.map((x) => (x.args || {}).seat).filter((x) => x !== undefined);
  for (let s = 0; s < 4; s++) {
    mat.append(el("div", {class: "seatcards seat" + s + (badSeats.includes(s) ? " bad" : "")},
      el("span", {class: "seatname"}, String(s + 1)), (exp[s] || []).map((c, i) => {
        const card = cardEl(c, "big");  /* a card the photo shows face down: crossed, to be turned */
        if (faults.some((x) => x.code === "learn_face_down" && (x.args || {}).seat === s && ((x.args || {}).places || []).includes(i + 1))) card.classList.add("facedown");
        return card;
      })));
  }
  /* what is wrong, on the mat (the photo's number is in the heading: each line starts at its zone) */
  const faultBox = faults.length ? el("div", {class: "learnfaults", id: "learnfaults"},
    faults.map((x) => el("div", {class: "learnfault"}, "\u26A0 " + String(x.text || x).replace(/^Foto \d+, /, "")))) : null;
  if (faultBox) mat.append(faultBox);
  const tabs = el("div", {class: "learntabs"});
  for (let i = 0; i < frames; i++) {
    tabs.append(el("button", {class: "mid" + (i === k ? " chosen" : "") + (done.includes(i) ? " done" : "") + (bad.includes(i) ? " bad" : ""),
      "data-frame": i, onclick: () => { if (i !== k) command({kind: "learn_start", k: i}, tr("learn_frame", {k: i + 1, total: frames})); }},
      (done.includes(i) ? "\u2713 " : bad.includes(i) ? "\u26A0 " : "") + (i + 1)));
  }
  const side = el("section", {class: "side learnside", "aria-label": tr("learn_deck")}, tabs,
    el("p", {class: "learnstep"}, all ? tr("learn_all_done") : tr("learn_frame", {k: k + 1, total: frames})),
    all ? null : el("p", {class: "learnwhere"}, bad.includes(k) ? tr("learn_fix") : tr("learn_where")),
    el("button", {class: all ? "mid" : "big", id: "btn-capture", onclick: () => command({kind: "learn_frame", k}, tr("learn_taken", {k: k + 1}))},
      all || done.includes(k) || bad.includes(k) ? tr("learn_retake", {k: k + 1}) : tr("learn_capture")));
  if (all) {
    side.append(el("button", {class: "big", id: "btn-deck-save", onclick: () => askName(L.name || "")}, tr("learn_name_save")));
  }
  /* the deck the table reads with now, and the way back to the card model alone */
  const deck = el("div", {class: "deckrow"}, el("span", {class: "deckname", id: "deckname"}, deckLine(st)));
  if (st.deck && !(L.done || []).length) {
    deck.append(el("button", {class: "small", id: "btn-deck-base", onclick: () => command({kind: "use_deck", name: null}, tr("deck_base_done"))}, tr("deck_base")));
  }
  side.append(deck);
  side.append(el("button", {class: "mid", id: "btn-learn-cancel", onclick: () => {
    view = null;
    if (st.phase === "learning") command({kind: "learn_cancel"}, tr("learn_cancel")); else render(state);
  }}, tr("learn_cancel")));
  main.append(mat, side);
  if (faultBox) fitFaults(faultBox);
}

/* The faults of a photo, in a box over the middle of the mat: every one that fits is said whole, the
   rest summed up in a last line («y 2 avisos más»); their zones are marked on the mat all the same. */
function fitFaults(box) {
  const lines = [...box.querySelectorAll(".learnfault")];
  const over = () => box.scrollHeight > box.clientHeight + 1;
  if (!over()) return;
  const more = el("div", {class: "learnmore", id: "learnmore"});
  box.append(more);
  let shown = lines.length;
  while (shown > 1 && over()) {
    shown -= 1;
    lines[shown].remove();
    const n = lines.length - shown;
    more.textContent = tr(n === 1 ? "learn_more_fault" : "learn_more_faults", {n});
  }
  if (over()) box.classList.add("tight");  /* one fault longer than the box: smaller type */
}

/* «Baraja: …»: the learnt deck the table reads with, or the card model alone. */
function deckLine(st) {
  return st.deck ? tr("deck_in_use", {name: st.deck}) : tr("deck_none");
}

/* Text on an on-screen keyboard (a kiosk has no other; a real keyboard types in the box too):
   letters with accents, spaces. The first letter is a capital, the rest small unless «⇧» is
   tapped first (the keys show what they write). ``done(text)`` gets what was typed; ``back``
   goes back. */
function askText(title, start, okLabel, done, back, most) {
  const box = el("input", {class: "kbshown", id: "kbshown", value: start || "", maxlength: most || 64,
    autocomplete: "off", spellcheck: "false"});
  let shift = false;
  const upper = () => shift || !box.value;
  const add = (t) => { if (box.value.length < (most || 64)) box.value += t; };
  const rows = ["1234567890", "QWERTYUIOP", "ASDFGHJKLÑ", "ZXCVBNMÁÉÍ", "ÓÚÜÇ-\u2014'.&"];
  const kb = el("div", {class: "kb"});
  const shiftKey = el("button", {class: "kbkey", "data-key": "shift", "aria-label": tr("kb_shift"),
    onclick: () => { shift = !shift; relabel(); }}, "\u21E7");
  const relabel = () => {
    for (const b of kb.querySelectorAll(".kbkey.letter")) b.textContent = upper() ? b.dataset.key : b.dataset.key.toLowerCase();
    shiftKey.classList.toggle("chosen", shift);
  };
  for (const r of rows) {
    const row = el("div", {class: "kbrow"});
    if (r === rows[rows.length - 1]) row.append(shiftKey);
    for (const ch of r) {
      const letter = ch.toLowerCase() !== ch;
      row.append(el("button", {class: "kbkey" + (letter ? " letter" : ""), "data-key": ch, onclick: () => {
        add(letter && !upper() ? ch.toLowerCase() : ch);
        shift = false;
        relabel();
      }}, ch));
    }
    kb.append(row);
  }
  kb.append(el("div", {class: "kbrow"},
    el("button", {class: "kbkey wide", "data-key": "space", onclick: () => { add(" "); relabel(); }}, tr("kb_space")),
    el("button", {class: "kbkey", "data-key": "back", "aria-label": tr("kb_back"), onclick: () => { box.value = box.value.slice(0, -1); relabel(); }}, "\u232B"),
    el("button", {class: "kbkey ok", "data-key": "ok", onclick: () => done(box.value.trim())}, okLabel),
    el("button", {class: "kbkey", "data-key": "cancel", onclick: back || closeModal}, tr("cancel"))));
  box.addEventListener("input", relabel);
  relabel();
  openModal(el("div", {class: "kbbox"}, el("h2", null, title), box, kb));
}

/* The deck's name: ordinary names (accents, spaces), sent as typed. */
function askName(start) {
  askText(tr("learn_name"), start, tr("learn_save"), (name) => {
    if (!name) return;
    closeModal();
    command({kind: "learn_deck", name}, tr("learn_saved", {name}));
  });
}

/* The partida is won: who won it, the vacas and the juegos of each, and a new partida. */
function renderOver(main, st) {
  const part = st.partida || {};
  const vacas = part.vacas || [0, 0];
  const vr = part.vaca_results || [];
  main.append(el("section", {class: "over"},
    el("div", {class: "winbanner big", id: "winbanner"}, tr("partida_won", {p: pairPhrase(part.winner, st)})),
    el("div", {class: "overline"}, tr("vacas_line", {a: vacas[0], b: vacas[1]})),
    vr.length ? el("div", {class: "overline muted"},
      tr("vaca_juegos") + " " + vr.map((v) => tr("a_to_b", {a: v[0], b: v[1]})).join("; ")) : null,
    el("div", {class: "surebtns"},
      el("button", {class: "big", id: "btn-new-partida", onclick: askNewPartida}, tr("new_partida")),
      el("button", {class: "big", id: "btn-reopen-over", onclick: askReopen}, tr("reopen_open")))));
}

/* «Nueva partida», the second step: what happens to the partida in play, the players' names
   (optional) and the house rules agreed for the new one; then one tap starts it. */
const RULE_CHOICES = window.RULES || [];  /* table.rules' values, from the page */
let newPartida = null;  /* what the second step holds while names are typed */

function askNewPartida() {
  const go = () => {
    const st = state || {};
    newPartida = {names: (st.names || ["", "", "", ""]).slice(), rules: Object.assign({}, st.rules || {})};
    showNewPartida();
  };
  if (!unlocked) askPin(go); else go();
}

function showNewPartida() {
  const np = newPartida;
  const st = state || {};
  const names = el("div", {class: "nprow npnames"}, el("span", {class: "nplabel"}, tr("np_names")));
  for (let s = 0; s < 4; s++) {
    names.append(el("button", {class: "mid npname", "data-seat": s, onclick: () => askText(
      tr("np_name_of", {n: s + 1}), np.names[s], tr("ok"),
      (text) => { np.names[s] = text; showNewPartida(); }, showNewPartida, 24)},
      np.names[s] ? tr("seat_named", {name: np.names[s], n: s + 1}) : tr("seat_n", {n: s + 1})));
  }
  const rules = el("div", {class: "nprules"});
  for (const [key, values] of RULE_CHOICES) {
    const row = el("div", {class: "nprow", "data-rule": key}, el("span", {class: "nplabel"}, tr("rule_" + key)));
    for (const v of values) {
      row.append(el("button", {class: "mid npopt" + (np.rules[key] === v ? " chosen" : ""), "data-value": String(v),
        onclick: () => { np.rules[key] = v; showNewPartida(); }}, tr("rule_" + key + "_" + String(v))));
    }
    rules.append(row);
  }
  const start = () => {
    closeModal();
    const cmd = {kind: "new_partida", rules: np.rules};
    if (np.names.some((n) => n)) cmd.names = np.names;
    command(cmd, tr("new_partida"));
  };
  openModal(el("div", {class: "surebox npbox", id: "surebox"}, el("h2", null, tr("new_partida")),
    el("p", {class: "npwhat"}, tr("new_partida_what", {id: (st.partida && st.partida.id) || ""})),
    names, rules,
    el("div", {class: "surebtns"},
      el("button", {class: "big", id: "btn-sure", onclick: start}, tr("new_partida_yes")),
      el("button", {class: "big", id: "btn-reopen-list", onclick: showReopen}, tr("reopen_open")),
      el("button", {class: "big cancel", onclick: closeModal}, tr("cancel")))));
}

/* «Reabrir»: the closed partidas (newest first), each with its date, its pairs and its score;
   one that is not won comes back as it was left, after a second step that says what happens
   to the partida in play. Behind the PIN, as «Nueva partida». */
function askReopen() {
  if (!unlocked) askPin(showReopen); else showReopen();
}

function partidaWhen(iso) {
  const d = new Date(iso);
  if (!iso || isNaN(d)) return "";
  return d.toLocaleString("es-ES", {day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
}

function partidaScore(p, sep) {
  const who = {names: p.names || ["", "", "", ""]};
  const sc = p.score || [0, 0];
  if (sep) return tr("reopen_score", {a: pairLabel(0, who), sa: sc[0], b: pairLabel(1, who), sb: sc[1]});
  return el("span", {class: "rpscore"}, pairLabel(0, who), " ", el("b", null, String(sc[0])), " \u2013 ",
    el("b", null, String(sc[1])), " ", pairLabel(1, who));
}

async function showReopen() {
  const box = el("div", {class: "surebox rpbox", id: "reopenbox"}, el("h2", null, tr("reopen_title")),
    el("p", {class: "rpintro"}, tr("reopen_loading")));
  openModal(box);
  let ps;
  try {
    const r = await fetch("/api/partidas", {credentials: "same-origin"});
    ps = await r.json();
  } catch (e) {
    closeModal(); toast(tr("offline"), true); return;
  }
  const closed = ps.filter((p) => !p.in_play).reverse();
  const list = el("div", {class: "rplist"});
  for (const p of closed) {
    const hands = p.hands === 1 ? tr("reopen_hands_1") : tr("reopen_hands", {n: p.hands});
    const when = partidaWhen(p.started);
    const won = p.winner !== null && p.winner !== undefined;
    list.append(el("div", {class: "rprow" + (won ? " won" : ""), "data-partida": p.id},
      el("div", {class: "rpwhat"},
        el("div", {class: "rphead"}, el("b", null, tr("reopen_row", {id: p.id})),
          " \u00B7 " + (when ? tr("reopen_started", {when}) + " \u00B7 " : "") + hands),
        partidaScore(p)),
      p.reopenable ? el("button", {class: "mid reopen-btn", "data-partida": p.id, onclick: () => sureReopen(p, ps)}, tr("reopen"))
        : el("span", {class: "rpwon"}, tr("reopen_won", {p: pairLabel(p.winner, {names: p.names || ["", "", "", ""]})}))));
  }
  box.replaceChildren(el("h2", null, tr("reopen_title")),
    el("p", {class: "rpintro"}, closed.some((p) => p.reopenable) ? tr("reopen_intro") : tr("reopen_none")),
    list,
    el("div", {class: "surebtns"}, el("button", {class: "big cancel", id: "btn-reopen-cancel", onclick: closeModal}, tr("cancel"))));
}

/* The second step: what comes back, and what is closed in its place. */
function sureReopen(p, ps) {
  const now = ps.find((x) => x.in_play) || {};
  const jv = p.juegos_vaca || [0, 0];
  const juegos = jv[0] || jv[1] ? tr("reopen_juegos", {a: jv[0], b: jv[1]}) : "";
  const who = {names: p.names || ["", "", "", ""]};
  askSure(tr("reopen_sure", {id: p.id}),
    tr("reopen_what", {id: p.id, score: partidaScore(p, true), mano: seatLabel(p.mano, who), juegos,
      now: now.id ?? "", now_score: partidaScore(now.score ? now : {score: [0, 0]}, true)}),
    tr("reopen_yes", {id: p.id}),
    () => command({kind: "reopen", partida: p.id}, tr("reopen_done", {id: p.id})));
}

function render(st) {
  if (!st) return;
  state = st;
  window.STATE = st;
  renderScore(document.getElementById("score"), st);
  renderFaults(st);
  const mid = document.querySelector("#score .mid");  /* a learnt deck in use is said under the hand's number */
  if (mid && st.deck) mid.append(el("div", {class: "deck", id: "deck"}, deckLine(st)));
  const main = document.getElementById("main");
  main.replaceChildren();
  main.dataset.phase = st.phase;
  if (st.phase === "learning") renderLearning(main, st);
  else if (st.phase === "playing" || (view === "bets" && st.bets && st.bets.lance && !st.bets.over)) renderBets(main, st);
  else if (st.phase === "over") renderOver(main, st);
  else renderEnd(main, st);
}

document.getElementById("btn-lock").addEventListener("click", async () => {
  if (unlocked) {
    try { await post("/api/lock", {}); } catch (e) { /* locked here all the same */ }
    setUnlocked(false);
  } else askPin(null);
});
document.getElementById("btn-new").addEventListener("click", askNewPartida);
document.getElementById("btn-judge").addEventListener("click", () => command({kind: "call_judge"}, tr("call_judge")));
document.getElementById("btn-undo-hand").addEventListener("click", () => {
  askSure(tr("undo_hand"), tr("undo_hand_what"), tr("undo_hand_yes"), () => command({kind: "undo_hand"}, tr("undo_hand")));
});
document.getElementById("btn-learn").addEventListener("click", () => command({kind: "learn_start", k: 0}, tr("learn_deck")));

setUnlocked(unlocked);
live(render, (s, message) => {
  showConn(s, message);
  if (s === "online") {
    checkSession();
    if (pending) { const q = pending; setPending(null); lastTap = {key: "", at: 0}; command(q.cmd, q.label); }
  }
});
offerClock((message) => toast(message));
