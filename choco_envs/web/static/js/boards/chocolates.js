// Chocolates: the display of 3 prediction cards (green "true" front, red "false" back),
// the 4x4 grid of chocolates with the 5 beside it, and each player's cards and nougats.
import { h, s, dot, seatName, fmt } from "../common.js";

const TYPE_COLORS = {
  dark: "#3d2314", brown: "#8b5a2b", white: "#f4ecd8",
  green: "#7fb069", pink: "#f2a7c3", gold: "#e0b43c",
};
const TYPE_STROKE = {
  dark: "#1c0f07", brown: "#5a3817", white: "#bfae8c",
  green: "#4e7a3b", pink: "#c76d91", gold: "#a57f16",
};

function shapePath(shape) {
  // centred in a 84x84 box
  if (shape === "round") return s("circle", { cx: 42, cy: 39, r: 25 });
  if (shape === "triangular") return s("polygon", { points: "42,12 70,62 14,62" });
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = Math.PI / 6 + i * Math.PI / 3;
    pts.push(`${42 + 27 * Math.cos(a)},${39 + 27 * Math.sin(a)}`);
  }
  return s("polygon", { points: pts.join(" ") });
}

function chocolateTile(choc, action, last) {
  const cls = ["tile", choc.face_up ? "face-up" : "face-down"];
  if (last) cls.push("last");
  const svg = s("svg", { viewBox: "0 0 84 84" });
  if (!choc.face_up) {
    svg.append(
      s("rect", { x: 2, y: 2, width: 80, height: 80, rx: 10, fill: "#6b4226", stroke: "#3b2416", "stroke-width": 2 }),
      s("rect", { x: 10, y: 10, width: 64, height: 64, rx: 7, fill: "none", stroke: "#8a5a3b", "stroke-width": 2 }),
      s("text", { x: 42, y: 52, "text-anchor": "middle", "font-size": 30, fill: "#c9a27e", "font-weight": 700 }, "?"),
    );
  } else {
    const shape = shapePath(choc.shape);
    shape.setAttribute("fill", TYPE_COLORS[choc.type] || "#999");
    shape.setAttribute("stroke", TYPE_STROKE[choc.type] || "#555");
    shape.setAttribute("stroke-width", 3);
    svg.append(
      s("rect", { x: 2, y: 2, width: 80, height: 80, rx: 10, fill: "#fbf6ee", stroke: "#cdb99b", "stroke-width": 2 }),
      shape,
    );
  }
  const attrs = {
    class: cls.join(" "),
    title: choc.face_up ? `${choc.name}: ${choc.type} ${choc.shape}` : `${choc.name}: face down`,
    "data-pos": choc.pos,
  };
  if (action !== undefined) attrs["data-action"] = action;
  return h("div", attrs, svg, choc.face_up ? h("div", { class: "cap" }, `${choc.type} ${choc.shape}`) : null);
}

function areaDiagram(area) {
  // the card's grid: white where the prediction looks, grey elsewhere; the 5 beside it
  const cell = 9, gap = 1.5;
  const svg = s("svg", { viewBox: "0 0 56 44", width: 78, height: 61, class: "area" });
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) {
      const on = area.cells[r * 4 + c];
      svg.append(s("rect", {
        x: 2 + c * (cell + gap), y: 2 + r * (cell + gap), width: cell, height: cell, rx: 1.5,
        fill: on ? "#ffffff" : "#b9afa3", stroke: "#8c7f70", "stroke-width": .6,
      }));
    }
  }
  if (area.split) {
    svg.append(s("line", { x1: 2 + 2 * (cell + gap) - gap / 2, y1: 0, x2: 2 + 2 * (cell + gap) - gap / 2, y2: 44, stroke: "#b8423a", "stroke-width": 1.4 }));
  }
  for (let i = 0; i < 5; i++) {
    svg.append(s("rect", {
      x: 46, y: 1 + i * 8.4, width: 7, height: 7, rx: 1.2,
      fill: area.beside ? "#ffffff" : "#b9afa3", stroke: "#8c7f70", "stroke-width": .6,
    }));
  }
  return svg;
}

function nougats(n) {
  const row = h("div", { class: "nougats", title: `${n} nougat cube(s)` });
  for (let i = 0; i < Math.min(n, 12); i++) row.append(h("span", { class: "nougat" }));
  if (n) row.append(` ${n}`);
  return row;
}

function displayCard(slot, takes) {
  if (!slot.card) return h("div", { class: "pcard empty" }, "empty (the pile ran out)");
  const c = slot.card;
  const side = (name, points, mark) => {
    const attrs = { class: `side-btn ${name}`, title: `take it with the ${name} side up` };
    if (takes[name] !== undefined) attrs["data-action"] = takes[name];
    return h("div", attrs, `${mark} ${name} · ${points}`);
  };
  return h("div", { class: "pcard", "data-slot": slot.slot },
    h("div", { class: "pcard-body" }, h("div", { class: "pcard-text" }, c.text), areaDiagram(c.area)),
    nougats(slot.nougats),
    h("div", { class: "pcard-sides" }, side("true", c.true_points, "✓"), side("false", c.false_points, "✗")),
  );
}

function heldCard(held) {
  const mark = held.side === "true" ? "✓" : "✗";
  let res = null;
  if (held.right !== undefined) {
    res = h("span", { class: `res ${held.right ? "right" : "wrong"}` },
      held.right ? `came true: +${held.points}` : `wrong: −${held.points}`);
  }
  return h("div", { class: `mini-card ${held.side}`, title: held.card.text },
    `${mark} ${held.side} · ${held.points}`, h("span", { class: "txt" }, held.card.text), res);
}

export function render(el, view, ctx) {
  const legal = ctx.legal || [];
  const reveal = {};
  const takes = [{}, {}, {}];
  for (const m of legal) {
    if (!m.target) continue;
    if (m.target.kind === "reveal") reveal[m.target.pos] = m.action;
    if (m.target.kind === "take") takes[m.target.slot][m.target.side] = m.action;
  }
  const last = ctx.lastMove && ctx.lastMove.target;
  const lastPos = last && last.kind === "reveal" ? last.pos : null;

  const top = h("div", { class: "choc-top" },
    h("span", { class: "pile" }, `Prediction pile: ${view.pile} card(s)`),
    h("span", {}, `Nougat supply: ${view.supply}`),
    h("span", {}, `Card limit: ${view.card_limit} each`),
    view.final_turns >= 0 && !view.over
      ? h("span", { class: "end-note" }, `End triggered: ${view.final_turns} more turn(s) after this one`)
      : null,
    view.over ? h("span", { class: "end-note" }, "Game over: every chocolate is face up") : null,
  );
  const display = h("div", { class: "choc-display" }, view.display.map((d, i) => displayCard(d, takes[i])));
  const grid = h("div", { class: "choc-grid" },
    view.grid.map(c => chocolateTile(c, reveal[c.pos], c.pos === lastPos)));
  const beside = h("div", { class: "choc-beside" },
    view.beside.map(c => chocolateTile(c, reveal[c.pos], c.pos === lastPos)));
  const table = h("div", { class: "choc-table" },
    h("div", { class: "choc-grid-wrap" }, h("div", { class: "label" }, "the grid (display side on top)"), grid),
    h("div", { class: "choc-grid-wrap" }, h("div", { class: "label" }, "next to the grid"), beside),
  );
  const players = h("div", { class: "choc-players" }, view.players.map(p => h("div", {
    class: `cplayer${view.to_act === p.seat ? " to-act" : ""}`, "data-seat": p.seat,
  },
  h("div", { class: "name" }, dot(p.seat), seatName(ctx.seats, p.seat, view.viewer, ctx.you),
    view.to_act === p.seat ? h("span", { class: "muted" }, view.took_card ? "· reveals" : "· to act") : null),
  h("div", { class: "muted" }, `${p.cards.length}/${view.card_limit} cards · nougats ${p.nougats}`),
  h("div", { class: "held" }, p.cards.length ? p.cards.map(heldCard) : h("span", { class: "muted" }, "no cards yet")),
  )));
  el.replaceChildren(h("div", { class: "choc-board" }, top, display, table, players));
}

export function describeTurn(view) {
  if (view.over) return "Game over";
  return view.took_card ? "now reveal a chocolate" : "take a card (or not), then reveal a chocolate";
}

export { fmt };
