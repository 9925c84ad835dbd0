// The trainer: deal 2-4 hands from a seeded shuffle (GET /v1/{game}/deal, what
// `bull drill` deals), ask each hand's bull and points (Niu Niu, Tau Ngau: also the
// [4:2]/[2:1] values) or draw/stand (Pok Deng), and the winner; the server judges
// (verify, rank, advise) and every wrong answer is explained in a line.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const el = Bull.el;
  const session = { asked: 0, right: 0, seconds: [] };
  let state = null; // the deal on the table: {game, hands, recs, rank, advice, started}
  let dealt = { seed: null, game: null, n: null, next: 1 };

  const tokens = (hand) => hand.match(/\[\d:\d\]/g) || hand.trim().split(/\s+/);
  const FLEX = ["[4:2]", "[2:1]"]; // Tau Ngau tiles worth 3 or 6

  function statsLine() {
    if (!session.asked) return "No hands played yet.";
    const t = session.seconds;
    const mean = t.reduce((a, b) => a + b, 0) / t.length;
    return `Accuracy ${session.right}/${session.asked} (${Bull.pct(session.right / session.asked)}) · ` +
      `this deal ${t[t.length - 1].toFixed(1)} s · mean ${mean.toFixed(1)} s over ${t.length} deal${t.length > 1 ? "s" : ""}`;
  }

  function pointsSelect(i) {
    const s = el("select", { class: "points", id: `points-${i}`, "aria-label": `hand ${i} points` });
    s.append(el("option", { value: "", text: "points?" }));
    for (let p = 0; p <= 10; p++) s.append(el("option", { value: String(p), text: String(p) }));
    return s;
  }

  function bullHand(i, hand, game) {
    const box = el("fieldset", { class: "deal-hand", id: `hand-${i}` }, el("legend", { text: `Hand ${i}` }));
    const cards = el("div", { class: "hand" });
    const noBull = el("button", { type: "button", class: "nobull", "aria-pressed": "false", text: "No bull" });
    const toks = tokens(hand);
    for (const t of toks) {
      cards.append(Bull.cardButton(t, () => noBull.setAttribute("aria-pressed", "false")));
    }
    noBull.addEventListener("click", () => {
      const on = noBull.getAttribute("aria-pressed") !== "true";
      noBull.setAttribute("aria-pressed", String(on));
      if (on) for (const b of cards.querySelectorAll(".pick")) b.setAttribute("aria-pressed", "false");
    });
    const row = el("div", { class: "answer-row" }, noBull, el("label", {}, "Points ", pointsSelect(i)));
    if (game === "taungau") {
      for (const t of toks.filter((x) => FLEX.includes(x))) {
        const s = el("select", { class: "value", "data-tile": t, "aria-label": `hand ${i} value of ${t}` },
          el("option", { value: "3", text: "3" }), el("option", { value: "6", text: "6" }));
        row.append(el("label", {}, `${t} = `, s));
      }
    }
    box.append(cards, row, el("p", { class: "explain", hidden: true }));
    return box;
  }

  function drawHand(i, hand) {
    const box = el("fieldset", { class: "deal-hand", id: `hand-${i}` }, el("legend", { text: `Hand ${i}` }));
    box.append(Bull.hand(tokens(hand)));
    const row = el("div", { class: "answer-row choices" });
    for (const a of ["draw", "stand"]) {
      row.append(el("label", {}, el("input", { type: "radio", name: `action-${i}`, value: a }), " " + a[0].toUpperCase() + a.slice(1)));
    }
    box.append(row, el("p", { class: "explain", hidden: true }));
    return box;
  }

  async function deal(ev) {
    if (ev) ev.preventDefault();
    const game = $("t-game").value;
    const n = Number($("t-hands").value);
    if ($("t-seed").value === "") $("t-seed").value = String(Math.floor(Math.random() * 1e9));
    const seed = Number($("t-seed").value);
    if (seed !== dealt.seed || game !== dealt.game || n !== dealt.n) dealt = { seed, game, n, next: 1 };
    $("t-result").replaceChildren();
    try {
      const d = await Bull.api(`/v1/${game}/deal?seed=${seed}&hands=${n}&deal=${dealt.next}`);
      dealt.next += 1;
      const recs = await Bull.api(`/v1/${game}/eval`, { hands: d.hands });
      const rank = game === "pokdeng" ? null : await Bull.api(`/v1/${game}/rank`, { hands: d.hands });
      const advice = game === "pokdeng" ? await Bull.api(`/v1/${game}/advise`, { hands: d.hands }) : null;
      state = { game, hands: d.hands, deal: d.deal, recs, rank, advice, started: performance.now() };
    } catch (err) {
      Bull.error($("t-result"), err);
      return;
    }
    const area = $("t-hands-area");
    area.replaceChildren(el("p", { class: "note", text: `Seed ${seed}, deal ${state.deal}` +
      (game === "pokdeng" ? ": draw or stand with each hand?" : ": click each bull's three cards (or No bull), name the points, pick the winner.") }));
    state.hands.forEach((h, k) => area.append(game === "pokdeng" ? drawHand(k + 1, h) : bullHand(k + 1, h, game)));
    const winner = $("t-winner");
    winner.hidden = game === "pokdeng";
    const choices = $("t-winner-choices");
    choices.replaceChildren();
    state.hands.forEach((_, k) => choices.append(el("label", {},
      el("input", { type: "radio", name: "winner", value: String(k + 1) }), ` Hand ${k + 1}`)));
    $("t-check").hidden = false;
    $("t-check").disabled = false;
    const first = area.querySelector("button, input");
    if (first) first.focus();
  }

  // The claim row of a hand for verify, or a message when the answer is incomplete.
  function claim(i, hand) {
    const box = $(`hand-${i}`);
    const picked = [...box.querySelectorAll(".pick[aria-pressed=true]")].map((b) => b.dataset.token);
    const none = box.querySelector(".nobull").getAttribute("aria-pressed") === "true";
    if (none) return { row: { hand, has_bull: false } };
    if (picked.length !== 3) return { missing: `hand ${i}: click three cards for the bull, or No bull` };
    const pts = box.querySelector(".points").value;
    if (pts === "") return { missing: `hand ${i}: choose the points` };
    const row = { hand, bull: picked.join(state.game === "taungau" ? "" : " "), points: Number(pts) };
    const values = {};
    for (const s of box.querySelectorAll(".value")) values[s.dataset.tile] = Number(s.value);
    if (Object.keys(values).length) row.values = values;
    return { row };
  }

  function mark(i, ok, line, rightBull) {
    const box = $(`hand-${i}`);
    box.classList.add(ok ? "right" : "wrong");
    const p = box.querySelector(".explain");
    p.hidden = false;
    p.textContent = (ok ? "✓ right" : "✗ ") + (ok ? "" : line);
    for (const b of box.querySelectorAll(".pick")) {
      if (rightBull && rightBull.includes(b.dataset.token)) b.classList.add("bull");
    }
  }

  async function checkBulls() {
    const claims = state.hands.map((h, k) => claim(k + 1, h));
    const missing = claims.filter((c) => c.missing).map((c) => c.missing);
    const win = document.querySelector("input[name=winner]:checked");
    if (!win) missing.push("pick the winning hand");
    if (missing.length) return { missing };
    const v = await Bull.api(`/v1/${state.game}/verify`, { rows: claims.map((c) => c.row), out: true });
    const wrong = {};
    for (const row of v.out) wrong[row.line] = row.reason;
    const results = state.recs.map((rec, k) => {
      const row = claims[k].row;
      let why = wrong[k + 1];
      if (!why && row.points !== undefined && rec.points !== row.points) {
        why = `the best is ${rec.points} points (bull ${(rec.bull || []).join(" ")}), not ${row.points}`;
      }
      return { ok: !why, line: why, bull: rec.bull };
    });
    const best = state.rank.hands[0];
    const key = (h) => `${h.strength}/${h.deng}`;
    const tied = state.rank.hands.filter((h) => key(h) === key(best)).map((h) => h.position + 1);
    const said = Number(win.value);
    const winLine = `hand ${best.position + 1} wins (${best.reason || "the hands tie"})`;
    return { results, winner: { ok: tied.includes(said), line: winLine } };
  }

  function checkDraws() {
    const missing = [];
    const results = state.advice.map((a, k) => {
      const pick = document.querySelector(`input[name=action-${k + 1}]:checked`);
      if (!pick) { missing.push(`hand ${k + 1}: draw or stand?`); return null; }
      const line = `${a.action} with ${a.hand.join(" ")} (${a.points} points): EV draw ${Bull.fmt(a.ev_draw)} ` +
        `vs stand ${Bull.fmt(a.ev_stand)}, exact, dealer draws at ${a.dealer_draws_at_most} or less`;
      return { ok: pick.value === a.action, line };
    });
    return missing.length ? { missing } : { results };
  }

  async function check(ev) {
    ev.preventDefault();
    if (!state || $("t-check").disabled) return;
    const out = $("t-result");
    let got;
    try {
      got = state.game === "pokdeng" ? checkDraws() : await checkBulls();
    } catch (err) {
      Bull.error(out, err);
      return;
    }
    if (got.missing) {
      out.replaceChildren(el("p", { class: "error", role: "alert", text: got.missing.join("; ") }));
      return;
    }
    const seconds = (performance.now() - state.started) / 1000;
    got.results.forEach((r, k) => mark(k + 1, r.ok, r.line, state.recs[k].bull));
    const all = got.winner ? [...got.results, got.winner] : got.results;
    session.asked += all.length;
    session.right += all.filter((r) => r.ok).length;
    session.seconds.push(seconds);
    out.replaceChildren();
    if (got.winner) {
      out.append(el("p", { class: "explain winner " + (got.winner.ok ? "right" : "wrong"),
        text: (got.winner.ok ? "✓ winner right: " : "✗ winner: ") + got.winner.line }));
    }
    $("t-stats").textContent = statsLine();
    $("t-check").disabled = true;
    for (const x of $("answer-form").querySelectorAll("input, select, .pick, .nobull")) x.disabled = true;
    $("t-deal").textContent = "Next deal";
    $("t-deal").focus();
  }

  Bull.pages.trainer = {
    init() {
      $("deal-form").addEventListener("submit", deal);
      $("answer-form").addEventListener("submit", check);
    },
    session,
  };
})();
