// Spectators follow the public tree straight from the broker, over MQTT on WebSockets (mqtt.js):
// public/<mesa>/state (retained: the whole state at once) and public/index.
(function () {
  const board = document.getElementById("board");
  const url = window.HUB_WS || ("ws://" + location.hostname + ":9001");
  const link = document.getElementById("link");
  const client = mqtt.connect(url, { reconnectPeriod: 2000, clean: true });
  client.on("connect", () => {
    link.textContent = "En directo";
    client.subscribe(board ? "public/" + board.dataset.table + "/state" : "public/index");
  });
  client.on("reconnect", () => { link.textContent = "Reconectando…"; });
  client.on("message", (topic, payload) => {
    let body;
    try { body = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return; }
    if (board) { window.showBoard(body); return; }
    const tbody = document.querySelector("#index tbody");
    tbody.replaceChildren(...(body.tables || []).map((t) => {
      const tr = document.createElement("tr");
      for (const v of [t.table, t.pairs ? t.pairs.join(" – ") : "", t.score ? t.score.join("-") : "", t.phase || "", t.status]) {
        const td = document.createElement("td"); td.textContent = v; tr.appendChild(td);
      }
      tr.firstChild.replaceChildren(Object.assign(document.createElement("a"), { href: "/ver/" + encodeURIComponent(t.table), textContent: t.table }));
      return tr;
    }));
  });
})();
