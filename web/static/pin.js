/* The table's PIN on its own screen: a long press on «Desbloquear/Bloquear» shows it (the server
   answers /api/pin to the kiosk on loopback only) and offers to change it (POST /api/pin, which
   needs the display unlocked). Uses display.js's helpers: el, tr, post, openModal, askPin. */
"use strict";
(function () {
  const LONG_MS = 1200;
  const btn = document.getElementById("btn-lock");
  if (!btn) return;
  let timer = null;
  let fired = false;

  function newPinPad() {
    let pin = "";
    const shown = el("div", {class: "pinshown", id: "newpinshown"}, "\u00A0");
    const msg = el("div", {class: "pinmsg", id: "newpinmsg"}, "");
    const pad = el("div", {class: "pinpad"});
    const upd = () => { shown.textContent = pin || "\u00A0"; };
    for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "C", "0", "OK"]) {
      pad.append(el("button", {class: "pinkey newpinkey", "data-key": d, onclick: async () => {
        if (d === "C") { pin = ""; upd(); return; }
        if (d !== "OK") { if (pin.length < 12) pin += d; upd(); return; }
        let r;
        try { r = await post("/api/pin", {pin}); } catch (e) { msg.textContent = tr("offline"); return; }
        if (r.ok) { msg.textContent = r.body.message || tr("pin_changed"); msg.className = "pinmsg good"; return; }
        if (r.status === 403 && r.body.code === "pin_needed") { askPin(newPinPad); return; }
        msg.textContent = r.body.error || tr("pin_bad"); msg.className = "pinmsg bad";
      }}, d === "C" ? tr("clear") : d === "OK" ? tr("ok") : d));
    }
    openModal(el("div", {class: "pinbox", id: "newpinbox"}, el("h2", null, tr("pin_new")), shown, msg, pad,
      el("button", {class: "small", onclick: closeModal}, tr("cancel"))));
  }

  async function showPin() {
    let r;
    try { r = await fetch("/api/pin", {credentials: "same-origin", cache: "no-store"}); } catch (e) { return; }
    const j = await r.json().catch(() => ({}));
    if (!r.ok) { openModal(el("div", {class: "surebox"}, el("p", null, j.error || tr("pin_only_kiosk")),
      el("button", {class: "small", onclick: closeModal}, tr("cancel")))); return; }
    openModal(el("div", {class: "surebox", id: "pinshow"}, el("h2", null, tr("pin_of_table")),
      el("p", {class: "pinshown", id: "pinvalue"}, j.pin),
      el("div", {class: "surebtns"},
        el("button", {class: "big", id: "btn-change-pin", onclick: () => (unlocked ? newPinPad() : askPin(newPinPad))},
          tr("pin_change")),
        el("button", {class: "big cancel", onclick: closeModal}, tr("cancel")))));
  }

  const cancel = () => { if (timer) { clearTimeout(timer); timer = null; } };
  btn.addEventListener("pointerdown", () => {
    fired = false; cancel();
    timer = setTimeout(() => { timer = null; fired = true; showPin(); }, LONG_MS);
  });
  for (const ev of ["pointerup", "pointerleave", "pointercancel"]) btn.addEventListener(ev, cancel);
  btn.addEventListener("contextmenu", (e) => e.preventDefault());
  /* The click that ends a long press is not a tap on «Bloquear». */
  document.addEventListener("click", (e) => {
    if (fired && e.target.closest && e.target.closest("#btn-lock")) { fired = false; e.stopImmediatePropagation(); e.preventDefault(); }
  }, true);
})();
