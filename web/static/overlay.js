/* The streaming overlay: score bar, lance in play and the tanteo, on a transparent page. */
"use strict";

live((st) => {
  renderScore(document.getElementById("score"), st);
  const b = st.bets || {};
  document.getElementById("ov-lance").textContent = b.lance ? lanceName(b.lance) : tr("phase_" + st.phase);
  renderTanteo(document.getElementById("ov-tanteo"), st, {animate: false});
});
