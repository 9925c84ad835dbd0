// The lookup page: type a hand or click its cards (tiles), see the bull, the
// category or score, P(win) and EV (POST /v1/{game}/eval; Pok Deng: also advise).
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const el = Bull.el;
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const TILES = [];
  for (let hi = 6; hi >= 1; hi--) for (let lo = hi; lo >= 1; lo--) TILES.push(`[${hi}:${lo}]`);
  const SEP = { taungau: "" };

  function picker() {
    const game = $("l-game").value;
    const box = $("l-picker");
    box.replaceChildren();
    const add = (t) => {
      const input = $("l-hand");
      const sep = SEP[game] === undefined ? " " : SEP[game];
      input.value = input.value.trim() ? input.value.trim() + sep + t : t;
    };
    const items = game === "taungau" ? TILES : ["S", "H", "D", "C"].flatMap((s) => RANKS.map((r) => r + s));
    for (const t of items) {
      const b = el("button", { type: "button", class: "pick small", "aria-label": `add ${t}`, "data-token": t });
      b.append(Bull.face(t));
      b.addEventListener("click", () => add(t));
      box.append(b);
    }
  }

  function rows(pairs) {
    const t = el("table", { class: "facts" });
    for (const [k, v] of pairs) t.append(el("tr", {}, el("th", { scope: "row", text: k }), el("td", { text: v })));
    return t;
  }

  function facts(game, rec, advice) {
    const bull = rec.bull ? rec.bull.join(" ") : "none";
    if (game === "niuniu") {
      return [["Bull", bull], ["Category", rec.category], ["Points", String(rec.points)],
        ["P(win) against a random banker", Bull.pct(rec.p_win)],
        ["EV as player (stakes)", Bull.fmt(rec.ev_player)], ["EV as banker (stakes)", Bull.fmt(rec.ev_banker)],
        ["Rules", rec.rules]];
    }
    if (game === "taungau") {
      const vals = Object.entries(rec.values || {}).map(([t, v]) => `${t}=${v}`).join(" ") || "—";
      const dist = rec.banker_distribution || [];
      const total = dist.reduce((a, b) => a + b, 0);
      // the banker's scores run weakest first: the player wins against every one below his
      const at = (rec.banker_distribution_scores || []).indexOf(String(rec.points));
      const win = total && rec.has_bull && at >= 0 ? dist.slice(0, at).reduce((a, b) => a + b, 0) / total : null;
      return [["Bull", bull], ["3/6 values", vals], ["Score", rec.has_bull ? String(rec.points) : "no bull"],
        ["Reachable scores", (rec.reachable || []).join(", ") || "—"],
        ["P(win): the banker scores lower", Bull.pct(win)],
        ["EV (stakes)", Bull.fmt(rec.ev)], ["Declare or decline (banker last)", rec.decision_banker_last || "—"],
        ["Decline if the banker shows at least", rec.decline_if_banker_at_least === null ? "never" : String(rec.decline_if_banker_at_least)],
        ["Rules", rec.rules]];
    }
    const out = [["Type", rec.type], ["Points", String(rec.points)], ["Deng", String(rec.deng)]];
    if (advice) {
      out.push(["Best play", advice.action], ["EV standing", Bull.fmt(advice.ev_stand)], ["EV drawing", Bull.fmt(advice.ev_draw)]);
    }
    out.push(["Rules", rec.rules]);
    return out;
  }

  async function lookup(ev) {
    ev.preventDefault();
    const game = $("l-game").value;
    const hand = $("l-hand").value.trim();
    const out = $("l-result");
    if (!hand) { Bull.error(out, new Error("type a hand or click its cards")); return; }
    try {
      const [rec] = await Bull.api(`/v1/${game}/eval`, { hands: [hand] });
      let advice = null;
      if (game === "pokdeng" && rec.hand.length === 2) advice = await Bull.api(`/v1/${game}/advise`, { hand });
      out.replaceChildren(Bull.hand(rec.hand, rec.bull || []), rows(facts(game, rec, advice)));
    } catch (err) {
      Bull.error(out, err);
    }
  }

  Bull.pages.lookup = {
    init() {
      $("lookup-form").addEventListener("submit", lookup);
      $("l-game").addEventListener("change", () => { $("l-hand").value = ""; picker(); });
      $("l-clear").addEventListener("click", () => { $("l-hand").value = ""; $("l-result").replaceChildren(); $("l-hand").focus(); });
      picker();
    },
  };
})();
