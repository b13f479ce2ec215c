// The tables page refreshes itself from /api/tables every two seconds.
(function () {
  const body = document.querySelector("#tables tbody");
  const text = (v) => (v === null || v === undefined ? "" : String(v));
  const status = (s) => (s === "online" ? "en línea" : s === "offline" ? "desconectada" : "¿?");
  function row(t) {
    const tr = document.createElement("tr");
    tr.dataset.table = t.table;
    tr.className = t.status + (t.call ? " calling" : "");
    const cells = [null, t.pairs ? t.pairs.join(" – ") : "", text(t.partida),
      t.juegos ? t.juegos.join("-") : "", t.score ? t.score.join("-") : "", text(t.lance), text((window.PHASES || {})[t.phase] || t.phase),
      text(t.seen).slice(11, 19), status(t.status), (t.faults || []).join(", "), null];
    cells.forEach((c, i) => {
      const td = document.createElement("td");
      if (i === 0 || i === 10) {
        if (i === 0 || t.call) {
          const a = document.createElement("a");
          a.href = "/mesa/" + encodeURIComponent(t.table);
          a.textContent = i === 0 ? t.table : "¡Llaman al juez!";
          td.appendChild(a);
        }
      } else td.textContent = c;
      if (i === 4) td.className = "score";
      if (i === 8) td.className = "status";
      if (i === 10) td.className = "call";
      tr.appendChild(td);
    });
    return tr;
  }
  async function refresh() {
    try {
      const r = await fetch("/api/tables", { cache: "no-store" });
      if (r.ok) body.replaceChildren(...(await r.json()).tables.map(row));
    } catch (e) { /* the next try will do */ }
  }
  setInterval(refresh, 2000);
})();
