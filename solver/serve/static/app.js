// bull web pages: shared helpers (the API, drawing cards and tiles, the tabs).
// Plain JavaScript, no build step, no network beyond this server.
"use strict";

const Bull = {};

// POST (body given) or GET a path of this server's API; a JSON error answer throws
// an Error carrying the server's one-line message.
Bull.api = async function (path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, init);
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
  return data;
};

// Build an element: el("div", {class: "x", text: "hi"}, child, ...).
Bull.el = function (tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
};

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED = { H: true, D: true };

// A card token "10H" as {rank: "10", suit: "H"}; a tile "[6:5]" as {pips: [6, 5]}.
Bull.parse = function (token) {
  const t = /^\[(\d):(\d)\]$/.exec(token);
  if (t) return { tile: true, pips: [Number(t[1]), Number(t[2])] };
  return { tile: false, rank: token.slice(0, -1), suit: token.slice(-1) };
};

// The face of a card or a tile (a span), for any container; the token is its label.
Bull.face = function (token) {
  const p = Bull.parse(token);
  if (p.tile) {
    const half = (n) => Bull.el("span", { class: "half" + (n === 1 || n === 4 ? " red" : ""), text: "●".repeat(n) });
    return Bull.el("span", { class: "tile", "aria-hidden": "true" }, half(p.pips[0]), half(p.pips[1]));
  }
  const red = RED[p.suit] ? " red" : "";
  return Bull.el("span", { class: "card" + red, "aria-hidden": "true" },
    Bull.el("span", { class: "rank", text: p.rank }),
    Bull.el("span", { class: "suit", text: SUITS[p.suit] || p.suit }));
};

// A clickable card or tile: a toggle button (aria-pressed) named by its token.
Bull.cardButton = function (token, onToggle) {
  const b = Bull.el("button", { type: "button", class: "pick", "aria-pressed": "false", "aria-label": token, "data-token": token });
  b.append(Bull.face(token));
  b.addEventListener("click", () => {
    const on = b.getAttribute("aria-pressed") !== "true";
    b.setAttribute("aria-pressed", String(on));
    if (onToggle) onToggle(token, on);
  });
  return b;
};

// A row of faces (not clickable), the tokens in `mark` highlighted.
Bull.hand = function (tokens, mark) {
  const row = Bull.el("div", { class: "hand", role: "img", "aria-label": tokens.join(" ") });
  for (const t of tokens) {
    const f = Bull.face(t);
    if (mark && mark.includes(t)) f.classList.add("mark");
    row.append(f);
  }
  return row;
};

Bull.fmt = (x, digits) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits === undefined ? 3 : digits));
Bull.pct = (x) => (x === null || x === undefined ? "—" : (100 * x).toFixed(1) + "%");

Bull.error = function (where, err) {
  where.replaceChildren(Bull.el("p", { class: "error", role: "alert", text: String(err.message || err) }));
};

// The tabs: one page shown at a time; arrow keys move between tabs.
Bull.pages = {};
Bull.show = function (name) {
  for (const tab of document.querySelectorAll(".tab")) {
    const on = tab.dataset.page === name;
    tab.setAttribute("aria-selected", String(on));
    document.getElementById("page-" + tab.dataset.page).hidden = !on;
  }
  if (Bull.pages[name] && Bull.pages[name].shown) Bull.pages[name].shown();
};

document.addEventListener("DOMContentLoaded", () => {
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => {
      history.replaceState(null, "", "#" + tab.dataset.page);
      Bull.show(tab.dataset.page);
    });
  }
  window.addEventListener("hashchange", () => {
    const page = location.hash.slice(1);
    if (page in Bull.pages) Bull.show(page);
  });
  for (const page of Object.values(Bull.pages)) if (page.init) page.init();
  const wanted = location.hash.slice(1);
  Bull.show(wanted in Bull.pages ? wanted : "trainer");
});
