/* The settings and health pages: each form posts JSON with the page's CSRF token; the answers'
   texts come from the server (in Spanish), never made up here. */
"use strict";

const CSRF = () => document.querySelector('meta[name="csrf-token"]').content;
const say = (text, bad) => { const m = document.getElementById("msg"); m.textContent = text; m.className = bad ? "bad" : "ok"; };

async function send(url, body) {
  const r = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": CSRF()},
                              body: JSON.stringify(body), credentials: "same-origin"});
  let data = {};
  try { data = await r.json(); } catch (e) { data = {error: tr("set_refused")}; }
  if (!r.ok) { say(data.error || tr("set_refused"), true); return null; }
  return data;
}

function on(id, ev, fn) { const e = document.getElementById(id); if (e) e.addEventListener(ev, fn); }

on("pin-form", "submit", async (ev) => {
  ev.preventDefault();
  const r = await send("/api/unlock", {pin: document.getElementById("pin").value});
  if (r) location.reload();
});

on("table-form", "submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const body = {table_name: f.get("table_name"), mqtt_host: f.get("mqtt_host"), mqtt_prefix: f.get("mqtt_prefix")};
  if (f.get("mains_hz")) body.mains_hz = Number(f.get("mains_hz"));
  if (f.get("mqtt_port")) body.mqtt_port = Number(f.get("mqtt_port"));
  if (await send("/api/settings", body)) say(tr("set_saved"));
});

on("focus", "click", async () => {
  say(tr("set_working"));
  const r = await send("/api/camera/focus", {});
  if (r) { document.getElementById("lens").textContent = r.lens_position.toFixed(2); say(tr("set_focused")); }
});

on("light", "click", async () => {
  say(tr("set_working"));
  if (await send("/api/camera/light", {})) say(tr("set_lit"));
});

on("net-form", "submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const body = {country: f.get("country"), mode: f.get("mode")};
  if (body.mode !== "country") { body.ssid = f.get("ssid"); body.psk = f.get("psk"); }
  if (await send("/api/network", body)) say(tr("set_net_asked"));
});

on("pin-change-form", "submit", async (ev) => {
  ev.preventDefault();
  const r = await send("/api/pin", {pin: document.getElementById("new-pin").value});  /* web/app.py's own */
  if (r) { say(r.message || tr("set_saved")); document.getElementById("new-pin").value = ""; }
});

on("update-usb", "click", async () => {
  if (await send("/api/update", {source: "usb"})) say(tr("set_update_asked"));
});

on("upload-form", "submit", async (ev) => {
  ev.preventDefault();
  const r = await fetch("/api/update", {method: "POST", body: new FormData(ev.target), credentials: "same-origin",
                                        headers: {"X-CSRF-Token": CSRF()}});
  const data = await r.json().catch(() => ({}));
  if (!r.ok) say(data.error || tr("set_refused"), true); else say(tr("set_update_asked"));
});

async function updateStatus() {
  const v = document.getElementById("version");
  if (!v) return;
  const r = await fetch("/api/update");
  if (!r.ok) return;
  const d = await r.json();
  v.textContent = d.version;
  if (d.status && d.status.state) document.getElementById("update-status").textContent =
    tr("set_update_" + d.status.state) + (d.status.current ? " (" + d.status.current + ")" : "");
}

function fmt(k, v) {
  if (v === null || v === undefined) return tr("health_unknown");
  if (k === "uptime_s") { const h = Math.floor(v / 3600), m = Math.floor(v % 3600 / 60); return h + " h " + m + " min"; }
  if (k === "cpu_temp_c") return v + " °C";
  if (k === "throttle_flags") return v.length ? v.map(f => tr("health_" + f)).join(", ") : tr("health_ok");
  if (k === "disk_free_mb") return (v / 1024).toFixed(1) + " GB " + tr("health_free");
  if (k === "journal_mb") return v + " MB";
  if (k === "camera_fps") return v + " " + tr("health_fps_unit");
  return String(v);
}

async function health() {
  const t = document.getElementById("health");
  if (!t) return;
  const r = await fetch("/api/health");
  const d = await r.json().catch(() => ({}));
  if (!r.ok) { say(d.error || tr("set_refused"), true); return; }
  for (const td of t.querySelectorAll("td[data-k]")) td.textContent = fmt(td.dataset.k, d[td.dataset.k]);
}

updateStatus(); health();
setInterval(() => { updateStatus(); health(); }, 5000);
