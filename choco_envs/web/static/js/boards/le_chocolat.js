// Le Chocolat: the 7x5 grid of two-sided tiles, chunks outlined; cut a chunk by clicking
// a dashed line through it, claim a chunk of 3 or fewer by clicking it. The scoring card,
// the boxed tile and both players' claimed tiles beside it.
import { h, s, dot, seatName, playerColor } from "../common.js";

const T = 80, G = 8, M = 30;
const FLAVOR_COLORS = {
  almond: "#e3c08f", cashew: "#f3e3b3", pistachio: "#97c26a", orange: "#f39c34",
  macadamia: "#f7efd9", raspberry: "#d23f6a", blank: "#d9cfc4",
};
const FALLBACK_COLORS = ["#e3c08f", "#f3e3b3", "#97c26a", "#f39c34", "#f7efd9", "#d23f6a", "#8fb8de", "#c9a0dc"];

function flavorColor(name, flavors) {
  if (FLAVOR_COLORS[name]) return FLAVOR_COLORS[name];
  const i = (flavors || []).indexOf(name);
  return FALLBACK_COLORS[(i < 0 ? 0 : i) % FALLBACK_COLORS.length];
}

function short(name) {
  return name === "blank" ? "" : name.slice(0, 2).toUpperCase();
}

const X = col => M + col * (T + G);
const Y = row => M + row * (T + G);

export function chip(name, flavors, extra) {
  return h("span", { class: "chip", style: { background: flavorColor(name, flavors) } },
    name === "blank" ? "blank/blank" : name, extra ? ` ${extra}` : "");
}

function tileGroup(t, flavors, over) {
  const x = X(t.col), y = Y(t.row);
  const claimed = t.owner >= 0;
  const g = s("g", { class: "lc-tile", "data-cell": t.cell, opacity: claimed && !over ? 0.4 : 1 });
  g.append(
    s("rect", { x, y, width: T, height: T, rx: 8, fill: "#5a3520", stroke: "#2e1a0e", "stroke-width": 2 }),
    s("rect", { x: x + 7, y: y + 7, width: T - 14, height: T - 14, rx: 5, fill: "#6e4329", stroke: "#7d5134", "stroke-width": 1.5 }),
  );
  if (t.face !== "blank") {
    g.append(
      s("circle", { cx: x + T / 2, cy: y + T / 2 - 6, r: 20, fill: flavorColor(t.face, flavors), stroke: "#2e1a0e", "stroke-width": 1.5 }),
      s("text", { x: x + T / 2, y: y + T / 2 - 1, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#2a1b10" }, short(t.face)),
      s("text", { x: x + T / 2, y: y + T - 9, "text-anchor": "middle", "font-size": 11, fill: "#f3e6d2" }, t.face),
    );
  } else if (t.back !== undefined && t.back !== "blank") {
    // a blank face whose flavor back the viewer knows (their own tile, or the game is over)
    g.append(
      s("circle", { cx: x + T / 2, cy: y + T / 2 - 6, r: 17, fill: flavorColor(t.back, flavors), stroke: "#f3e6d2", "stroke-width": 2, "stroke-dasharray": "4 3", opacity: 0.85 }),
      s("text", { x: x + T / 2, y: y + T / 2 - 1, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#2a1b10" }, short(t.back)),
      s("text", { x: x + T / 2, y: y + T - 9, "text-anchor": "middle", "font-size": t.back.length > 7 ? 8.5 : 10, fill: "#f3e6d2" }, `back: ${t.back}`),
    );
  } else if (t.back === "blank") {
    g.append(s("text", { x: x + T / 2, y: y + T / 2 + 4, "text-anchor": "middle", "font-size": 11, fill: "#c9a27e" }, "blank/blank"));
  }
  const title = t.face !== "blank" ? `${t.cell}: ${t.face}` :
    t.back !== undefined ? `${t.cell}: blank face, back ${t.back}` : `${t.cell}: blank face, back unknown`;
  g.append(s("title", {}, title));
  if (claimed) {
    g.append(s("rect", { x: x + 2, y: y + 2, width: T - 4, height: T - 4, rx: 7, fill: "none", stroke: playerColor(t.owner), "stroke-width": 4 }));
  }
  return g;
}

function chunkBox(c, pad) {
  return {
    x: X(c.col) - pad, y: Y(c.row) - pad,
    width: c.cols * T + (c.cols - 1) * G + 2 * pad,
    height: c.rows * T + (c.rows - 1) * G + 2 * pad,
  };
}

function cutLine(target) {
  const c = target.chunk;
  if (target.orientation === "vertical") {
    const x = X(target.at) - G / 2;
    return { x1: x, y1: Y(c.row) - 6, x2: x, y2: Y(c.row + c.rows) - G + 6 };
  }
  const y = Y(target.at) - G / 2;
  return { x1: X(c.col) - 6, y1: y, x2: X(c.col + c.cols) - G + 6, y2: y };
}

function gridSvg(view, ctx) {
  const width = 2 * M + 7 * T + 6 * G - G, height = 2 * M + 5 * T + 4 * G - G;
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "the chocolate grid" });
  svg.append(s("rect", { x: 0, y: 0, width, height, rx: 14, fill: "#efe2cc" }));
  for (let c = 0; c < view.width; c++) {
    svg.append(s("text", { x: X(c) + T / 2, y: M - 10, "text-anchor": "middle", "font-size": 14, fill: "#7a6655" }, view.columns[c]));
  }
  for (let r = 0; r < view.height; r++) {
    svg.append(s("text", { x: M / 2, y: Y(r) + T / 2 + 5, "text-anchor": "middle", "font-size": 14, fill: "#7a6655" }, String(r + 1)));
  }
  for (const t of view.tiles) svg.append(tileGroup(t, view.flavors, view.over));
  for (const c of view.chunks) {
    const b = chunkBox(c, 3);
    svg.append(s("rect", {
      ...b, rx: 10, fill: "none", stroke: c.small ? "#d9a520" : "#2e1a0e",
      "stroke-width": c.small ? 3 : 2.5, "stroke-dasharray": c.small ? "8 5" : null,
      "data-chunk": c.top_left,
    }));
  }
  const last = ctx.lastMove && ctx.lastMove.target;
  if (last && last.kind === "split") svg.append(s("line", { ...cutLine(last), class: "last-cut" }));
  if (last && last.kind === "claim") {
    svg.append(s("rect", { ...chunkBox(last.chunk, 5), rx: 10, fill: "none", stroke: playerColor(ctx.lastMove.seat), "stroke-width": 4, "stroke-dasharray": "3 4" }));
  }
  for (const m of ctx.legal || []) {
    const t = m.target;
    if (!t) continue;
    if (t.kind === "claim") {
      svg.append(s("rect", { ...chunkBox(t.chunk, 4), rx: 10, class: "claim", "data-action": m.action },
        s("title", {}, m.name)));
    }
  }
  for (const m of ctx.legal || []) {
    const t = m.target;
    if (!t || t.kind !== "split") continue;
    const l = cutLine(t);
    const hit = t.orientation === "vertical"
      ? { x: l.x1 - 9, y: l.y1, width: 18, height: l.y2 - l.y1 }
      : { x: l.x1, y: l.y1 - 9, width: l.x2 - l.x1, height: 18 };
    svg.append(s("g", { class: "cut", "data-action": m.action },
      s("rect", { ...hit, class: "hit" }), s("line", { ...l, class: "knife" }), s("title", {}, m.name)));
  }
  return svg;
}

function chainIcon() {
  // two linked rings: these flavors score as a set
  return s("svg", { viewBox: "0 0 26 14", width: 26, height: 14, class: "chain" },
    s("title", {}, "chained: one of each makes a set"),
    s("rect", { x: 1.5, y: 2, width: 13, height: 10, rx: 5, fill: "none", stroke: "#7a6655", "stroke-width": 2 }),
    s("rect", { x: 11.5, y: 2, width: 13, height: 10, rx: 5, fill: "none", stroke: "#7a6655", "stroke-width": 2 }));
}

function scoringCard(card, flavors) {
  const vp = (v, what) => h("span", { class: `vp${v < 0 ? " neg" : ""}` }, `${v > 0 ? "+" : ""}${v} VP ${what}`);
  const rows = [];
  for (const e of card.each) rows.push(h("div", { class: "row" }, chip(e.flavor, flavors), vp(e.vp, "each")));
  for (const set of card.sets) {
    const parts = [];
    set.flavors.forEach((f, i) => { if (i) parts.push(chainIcon()); parts.push(chip(f, flavors)); });
    rows.push(h("div", { class: "row" }, ...parts, vp(set.vp, "per complete set")));
  }
  for (const m of card.majority) {
    rows.push(h("div", { class: "row" }, h("span", { title: "majority" }, "♛"), chip(m.flavor, flavors), vp(m.vp, "for strictly the most")));
  }
  return h("div", { class: "lc-card" }, h("div", { class: "title" }, `Scoring card: ${card.name}`), rows);
}

function handPanel(p, view, ctx) {
  const tiles = Object.entries(p.known).sort().map(([name, n]) => chip(name, view.flavors, `×${n}`));
  if (p.unknown) tiles.push(h("span", { class: "chip", style: { background: "#5a3520", color: "#f3e6d2" } }, `? ×${p.unknown}`));
  return h("div", { class: `lc-hand${view.to_act === p.seat ? " to-act" : ""}`, "data-seat": p.seat },
    h("div", { class: "name" }, dot(p.seat), seatName(ctx.seats, p.seat, view.viewer, ctx.you),
      h("span", { class: "muted" }, `· ${p.claimed} tile(s)`)),
    h("div", { class: "tiles" }, tiles.length ? tiles : h("span", { class: "muted" }, "nothing claimed yet")));
}

export function render(el, view, ctx) {
  const box = view.box;
  const boxText = box.face !== "blank" ? `shows ${box.face}` :
    box.back !== undefined ? `blank face; back: ${box.back}` : "blank face up (back unseen)";
  const phase = view.over ? "Game over: every tile is flipped for scoring" :
    view.phase === "claim" ? `player_${view.to_act} claims one chunk of 3 or fewer tiles` :
      `player_${view.to_act} splits a chunk along a straight line`;
  const side = h("div", { class: "lc-side" },
    scoringCard(view.card, view.flavors),
    h("div", { class: "panel" }, h("b", {}, "In the box: "), boxText),
    h("div", { class: "lc-hands" }, view.players.map(p => handPanel(p, view, ctx))),
    h("div", { class: "muted" }, `${view.tiles_left} tile(s) left on the table`),
  );
  el.replaceChildren(h("div", {},
    h("div", { class: "lc-phase" }, phase),
    h("div", { class: "lc-board" }, h("div", { class: "lc-grid" }, gridSvg(view, ctx)), side)));
}

export function describeTurn(view) {
  if (view.over) return "Game over";
  return view.phase === "claim" ? "claim a chunk of 3 or fewer tiles" : "split a chunk: click a dashed line";
}
