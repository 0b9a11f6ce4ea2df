// Shared helpers of the pages: DOM building, the JSON API, names, score tables.

export const SVG_NS = "http://www.w3.org/2000/svg";
export const PLAYER_COLORS = ["var(--p0)", "var(--p1)", "var(--p2)", "var(--p3)", "var(--p4)", "var(--p5)"];

function put(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function setAttrs(el, attrs, isSvg) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.setAttribute("class", v);
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  return el;
}

/** h("div", {class: "x"}, child, ...) builds an HTML element. */
export function h(tag, attrs, ...children) {
  return put(setAttrs(document.createElement(tag), attrs, false), children);
}

/** s("rect", {...}) builds an SVG element. */
export function s(tag, attrs, ...children) {
  return put(setAttrs(document.createElementNS(SVG_NS, tag), attrs, true), children);
}

export class ApiError extends Error {
  constructor(status, detail) {
    super(typeof detail === "string" ? detail : JSON.stringify(detail));
    this.status = status;
    this.detail = detail;
  }
}

/** fetch JSON; throws ApiError with the server's detail on a 4xx/5xx. */
export async function api(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(url, init);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    let detail = data && data.detail !== undefined ? data.detail : res.statusText;
    if (Array.isArray(detail)) detail = detail.map(d => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
    throw new ApiError(res.status, detail);
  }
  return data;
}

export function playerColor(seat) {
  return PLAYER_COLORS[seat % PLAYER_COLORS.length];
}

/** "player_1 (greedy)", "player_0 (you)". */
export function seatName(seats, seat, viewer, you = "you") {
  const info = seats && seats[seat];
  let who = info ? (info.human ? "person" : info.player) : "";
  if (viewer !== null && viewer !== undefined && seat === viewer) who = you;
  return who ? `player_${seat} (${who})` : `player_${seat}`;
}

export function dot(seat) {
  return h("span", { class: "dot", style: { background: playerColor(seat) } });
}

export function fmt(x) {
  if (x === null || x === undefined) return "";
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100);
}

/** What the viewer made of the game: "You win!", "A draw", "2nd place of 3". */
export function verdict(places, viewer) {
  if (!places) return "";
  const n = places.length;
  if (viewer === null || viewer === undefined) {
    const winners = places.map((p, i) => (p === 1 ? `player_${i}` : null)).filter(Boolean);
    return winners.length > 1 ? `Shared win: ${winners.join(", ")}` : `${winners[0]} wins`;
  }
  const mine = places[viewer];
  const shared = places.filter(p => p === mine).length > 1;
  if (n === 2) return shared ? "A draw" : mine === 1 ? "You win!" : "You lose";
  const ord = mine === 1 ? "1st" : mine === 2 ? "2nd" : mine === 3 ? "3rd" : `${mine}th`;
  if (mine === 1 && !shared) return "You win!";
  return `${shared ? "Shared " : ""}${ord} place of ${n}`;
}

/** The final scores: one column per seat, a row per part of the breakdown, the total. */
export function scoreTable(scores, breakdown, seats, viewer, you = "you") {
  const n = scores.length;
  const head = h("tr", {}, h("th", {}, ""), ...Array.from({ length: n }, (_, i) =>
    h("th", {}, dot(i), " ", seatName(seats, i, viewer, you))));
  const rows = [];
  for (const [part, values] of Object.entries(breakdown || {})) {
    if (part === "total") continue;
    rows.push(h("tr", {}, h("td", {}, part.replaceAll("_", " ")), ...values.map(v => h("td", {}, fmt(v)))));
  }
  rows.push(h("tr", { class: "total" }, h("td", {}, "score"),
    ...scores.map((v, i) => h("td", { "data-seat": i, class: "score" }, fmt(v)))));
  return h("table", { id: "final-scores" }, h("thead", {}, head), h("tbody", {}, rows));
}

export function copyButton(input) {
  return h("button", {
    type: "button",
    onclick: async (e) => {
      input.select();
      try { await navigator.clipboard.writeText(input.value); } catch (err) { document.execCommand("copy"); }
      e.target.textContent = "Copied";
      setTimeout(() => { e.target.textContent = "Copy"; }, 1500);
    },
  }, "Copy");
}

export function sleep(ms) {
  return new Promise(resolve => setTimeout(resolve, ms));
}
