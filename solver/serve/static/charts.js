// The charts page: the Pok Deng drawing chart (GET /v1/pokdeng/strategy) and the
// Tau Ngau decline chart (GET /v1/taungau/edge?banker_reveals=first: decline_from).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const el = Bull.el;
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const LETTER = { draw: "D", stand: "S", pok: "P" };
  let loaded = false;

  function pokdeng(chart) {
    const cells = {};
    for (const c of chart.cells) cells[c.row + "/" + c.column] = c;
    const head = el("tr", {}, el("th", { text: "" }));
    for (const r of RANKS) head.append(el("th", { scope: "col", text: r }));
    const t = el("table", { class: "chart", id: "pokdeng-chart" }, el("caption", {
      text: `Exact: player EV ${Bull.fmt(chart.ev_optimal, 4)} per stake, dealer draws at ${chart.dealer_draws_at_most} or less (${chart.rules})` }), head);
    for (const r of RANKS) {
      const tr = el("tr", {}, el("th", { scope: "row", text: r }));
      for (const c of RANKS) {
        const cell = cells[r + "/" + c];
        if (!cell) { tr.append(el("td", { text: "" })); continue; }
        tr.append(el("td", { class: cell.action, title: `${cell.cell}: ${cell.action} (margin ${Bull.fmt(cell.margin)})`,
          text: LETTER[cell.action] || cell.action }));
      }
      t.append(tr);
    }
    return el("div", {}, t, el("ul", {}, ...chart.summary.map((s) => el("li", { text: s }))));
  }

  function taungau(edge) {
    const scores = Object.keys(edge.decline_from).map(Number).sort((a, b) => a - b);
    const head = el("tr", {}, el("th", { text: "you \\ banker" }));
    for (const b of scores) head.append(el("th", { scope: "col", text: String(b) }));
    const t = el("table", { class: "chart", id: "taungau-chart" }, el("caption", {
      text: `Your score (rows) against the banker's (columns): decline (X) or declare (·). EV declining optimally: ${Bull.fmt(edge.ev_optimal_first, 4)} (${edge.rules})` }), head);
    for (const p of scores) {
      const from = edge.decline_from[String(p)];
      const tr = el("tr", {}, el("th", { scope: "row", text: String(p) }));
      for (const b of scores) {
        const decline = from !== null && b >= from;
        tr.append(el("td", { class: decline ? "decline" : "declare", text: decline ? "X" : "·" }));
      }
      t.append(tr);
    }
    return t;
  }

  async function load() {
    if (loaded) return;
    loaded = true;
    try {
      $("c-pokdeng").replaceChildren(pokdeng(await Bull.api("/v1/pokdeng/strategy")));
    } catch (err) { Bull.error($("c-pokdeng"), err); }
    try {
      $("c-taungau").replaceChildren(taungau(await Bull.api("/v1/taungau/edge?banker_reveals=first")));
    } catch (err) { Bull.error($("c-taungau"), err); }
  }

  Bull.pages.charts = { shown: load };
})();
