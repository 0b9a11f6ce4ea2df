// Chocolatiers (both editions): the tray of chocolate cards, the line of box tiles (the
// classic edition's five stacks), the Score tiles and the First tile, the tile being
// boxed with what is left to pay, and each player's hand, wilds, reserved tile and
// Sampler.
//
// Every clickable place comes from the server's legal moves (their `target`): the board
// never decides what is legal. Click a tray card to take it; a card of your hand to
// exchange, pay or discard it ("×2" pays with two cards of that type); a tile's Box or
// Reserve button; the wild tokens, then a space of your Sampler; to place a tile, hover
// the highlighted places of your Sampler (the tile shows there), rotate with the button or
// the R key, and click.
import { h, s, dot, seatName } from "../common.js";

const TYPE_COLORS = {
  truffle: "#4a2c1d", nut_cluster: "#b47a3c", raspberry: "#cf3f63",
  mint: "#4fb386", blueberry: "#4467c4", violet: "#8a56bd",
};
const TYPE_LETTERS = { truffle: "T", nut_cluster: "N", raspberry: "R", mint: "M", blueberry: "B", violet: "V" };
const C = 26;  // a Sampler space, px (SVG units)

// what the page keeps between renders: the rotation chosen and whether a wild is in hand
const ui = { rotation: 0, wild: false, last: null };
let keysBound = false;

function typeName(t) {
  return t.replace("_", " ");
}

function rerender() {
  if (ui.last) render(ui.last.el, ui.last.view, ui.last.ctx);
}

function bindKeys() {
  if (keysBound) return;
  keysBound = true;
  document.addEventListener("keydown", e => {
    if (!ui.last || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if ((e.key === "r" || e.key === "R") && document.querySelector("#board [data-kind=place]")) {
      ui.rotation = (ui.rotation + 1) % 4;
      rerender();
    } else if (e.key === "Escape" && ui.wild) {
      ui.wild = false;
      rerender();
    }
  });
}

function chip(type, text, extra = {}) {
  return h("span", { class: "ct-chip", style: { background: TYPE_COLORS[type] || "#999" }, title: typeName(type), ...extra },
    TYPE_LETTERS[type] || "?", text !== undefined ? h("span", { class: "n" }, text) : null);
}

// ------------------------------------------------------------------ drawing
function chocolate(x, y, size, value, extra = {}) {
  // one space: a chocolate (coloured, its letter), a wild (gold star), an empty space
  const g = s("g", extra);
  if (value === "wild") {
    g.append(s("rect", { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 5, fill: "#f6d46b", stroke: "#b98f14" }),
      s("text", { x: x + size / 2, y: y + size / 2 + size * 0.22, "text-anchor": "middle", "font-size": size * 0.62, fill: "#7a5a00" }, "★"));
  } else if (value === "empty" || value === null) {
    g.append(s("rect", { x: x + 1, y: y + 1, width: size - 2, height: size - 2, rx: 4, fill: "#f3ebdd", stroke: "#d6c5aa", "stroke-dasharray": "3 2" }));
  } else {
    g.append(s("rect", { x: x + 2, y: y + 2, width: size - 4, height: size - 4, rx: size * 0.3, fill: TYPE_COLORS[value], stroke: "#2a1b10", "stroke-width": 1 }),
      s("text", { x: x + size / 2, y: y + size / 2 + size * 0.17, "text-anchor": "middle", "font-size": size * 0.45, "font-weight": 700, fill: "#fff" }, TYPE_LETTERS[value]));
  }
  return g;
}

function tileSvg(spaces, size = 22) {
  const svg = s("svg", { viewBox: `0 0 ${2 * size + 6} ${2 * size + 6}`, width: 2 * size + 6, height: 2 * size + 6, class: "ct-tile-svg" });
  svg.append(s("rect", { x: 1, y: 1, width: 2 * size + 4, height: 2 * size + 4, rx: 6, fill: "#fffaf2", stroke: "#8a5a3b", "stroke-width": 1.5 }));
  spaces.forEach((v, k) => svg.append(chocolate(3 + (k % 2) * size, 3 + Math.floor(k / 2) * size, size, v === null ? "empty" : v)));
  return svg;
}

function tileCard(tile, buttons, note) {
  if (!tile) return h("div", { class: "ct-tile empty" }, h("span", { class: "muted" }, "no tile"), note);
  const cost = Object.entries(tile.cost).map(([t, n]) => chip(t, n > 1 ? `×${n}` : undefined));
  return h("div", { class: "ct-tile", "data-tile": tile.id, title: `#${tile.id} ${tile.text}` },
    h("div", { class: "ct-tile-top" }, tileSvg(tile.spaces), h("div", { class: "ct-points" }, `${tile.points}`, h("small", {}, " pts"))),
    h("div", { class: "ct-cost" }, "cost ", cost),
    buttons.length ? h("div", { class: "ct-buttons" }, buttons) : null,
    note);
}

function actionButton(move, label, cls = "") {
  return h("button", { type: "button", class: `ct-btn ${cls}`, "data-action": move.action, "data-kind": move.target.kind, title: move.name }, label);
}

// ------------------------------------------------------------------ the Sampler
function samplerSvg(p, view, moves, mine) {
  // the anchored 6x6 grid; while the seat places a tile, a ring of one tile slot around it
  const placing = mine && moves.place.length > 0;
  const wilds = mine && ui.wild ? moves.wild : [];
  const off = placing ? 2 : 0;  // spaces of margin on each side
  const n = 6 + 2 * off;
  const size = n * C + 8;
  const svg = s("svg", { viewBox: `0 0 ${size} ${size}`, class: `ct-sampler${placing ? " placing" : ""}`, role: "img", "aria-label": `player_${p.seat}'s Sampler` });
  svg.append(s("rect", { x: 0, y: 0, width: size, height: size, rx: 10, fill: "#efe2cc" }));
  const X = col => 4 + (col + off) * C;
  const Y = row => 4 + (row + off) * C;
  const cells = p.sampler.cells;
  if (!p.sampler.tiles.length && !placing) {
    svg.append(s("text", { x: size / 2, y: size / 2 + 5, "text-anchor": "middle", "font-size": 13, fill: "#7a6655" }, "no tile yet"));
  }
  for (let i = 0; i < 36; i++) {
    if (cells[i] === null) continue;
    svg.append(chocolate(X(i % 6), Y(Math.floor(i / 6)), C, cells[i], { "data-space": i }));
  }
  for (const t of p.sampler.tiles) {
    svg.append(s("rect", { x: X(2 * t.col) + 0.5, y: Y(2 * t.row) + 0.5, width: 2 * C - 1, height: 2 * C - 1, rx: 6, fill: "none", stroke: "#5a3722", "stroke-width": 2.5 },
      s("title", {}, `tile #${t.tile}, rotated ${90 * t.rotation}°`)));
  }
  if (placing) {
    const spaces = view.boxing ? view.boxing.rotations[ui.rotation] : [null, null, null, null];
    const byPosition = new Map();
    for (const m of moves.place) {
      if (!byPosition.has(m.target.position)) byPosition.set(m.target.position, []);
      byPosition.get(m.target.position).push(m);
    }
    for (const [position, list] of byPosition) {
      const m = list.find(x => x.target.rotation === ui.rotation) || list[0];
      const x = X(2 * m.target.col), y = Y(2 * m.target.row);
      const preview = s("g", { class: "preview" });
      spaces.forEach((v, k) => preview.append(chocolate(x + (k % 2) * C, y + Math.floor(k / 2) * C, C, v === null ? "empty" : v)));
      svg.append(s("g", {
        class: "ct-place", "data-action": m.action, "data-kind": "place", "data-position": position,
        "data-offers": list.map(x2 => x2.action).join(" "),
      }, s("rect", { x: x + 1, y: y + 1, width: 2 * C - 2, height: 2 * C - 2, rx: 6, class: "slot" }), preview, s("title", {}, m.name)));
    }
  }
  for (const m of wilds) {
    const x = X(m.target.col), y = Y(m.target.row);
    svg.append(s("g", { class: "ct-wild-target", "data-action": m.action, "data-kind": "wild" },
      s("rect", { x: x + 1, y: y + 1, width: C - 2, height: C - 2, rx: 5, class: "slot" }),
      s("text", { x: x + C / 2, y: y + C / 2 + 6, "text-anchor": "middle", "font-size": 16, class: "star" }, "★"),
      s("title", {}, m.name)));
  }
  return svg;
}

// ------------------------------------------------------------------ a player's area
function handCards(p, view, moves, mine, act) {
  if (!mine) {
    const known = Object.entries(p.known).filter(([, n]) => n > 0).map(([t, n]) => chip(t, `×${n}`));
    return h("div", { class: "ct-hand" },
      known.length ? known : null,
      p.unseen ? h("span", { class: "ct-chip unseen", title: "dealt cards nobody else has seen" }, "?", h("span", { class: "n" }, `×${p.unseen}`)) : null,
      !known.length && !p.unseen ? h("span", { class: "muted" }, "no cards") : null,
      h("span", { class: "muted" }, ` ${p.cards} card(s)`));
  }
  const one = {}, two = {};
  for (const m of act ? [...moves.exchange, ...moves.discard, ...moves.pay] : []) {
    if (m.target.kind === "pay" && m.target.cards === 2) two[m.target.type] = m;
    else one[m.target.type] = m;
  }
  const cards = view.types.filter(t => p.hand[t] > 0).map(t => {
    const m = one[t];
    const attrs = { class: "ct-card", style: { background: TYPE_COLORS[t] }, title: m ? m.name : typeName(t) };
    if (m) Object.assign(attrs, { "data-action": m.action, "data-kind": m.target.kind });
    const card = h("div", attrs, h("span", { class: "l" }, TYPE_LETTERS[t]), h("span", { class: "n" }, `×${p.hand[t]}`), h("span", { class: "t" }, typeName(t)));
    const pair = two[t] ? h("button", { type: "button", class: "ct-pair", "data-action": two[t].action, "data-kind": "pay", title: two[t].name }, `pay ×2`) : null;
    return h("div", { class: "ct-card-wrap" }, card, pair);
  });
  return h("div", { class: "ct-hand mine" }, cards.length ? cards : h("span", { class: "muted" }, "no cards in hand"),
    h("span", { class: "muted" }, ` ${p.cards} card(s), at most 6 at the end of a turn`));
}

function wildTokens(p, moves, mine) {
  const tokens = [];
  for (let i = 0; i < p.wilds; i++) tokens.push(h("span", { class: "ct-wild" }, "★"));
  const label = h("span", { class: "muted" }, p.wilds ? ` ${p.wilds} wild(s)` : "no wild left");
  if (mine && moves.wild.length) {
    return h("button", {
      type: "button", class: `ct-wilds armable${ui.wild ? " armed" : ""}`, "data-ui": "wild",
      "data-offers": moves.wild.map(m => m.action).join(" "),
      title: ui.wild ? "put the wild back (Esc)" : "take a wild, then click a space of your Sampler",
      onclick: () => { ui.wild = !ui.wild; rerender(); },
    }, tokens, label, ui.wild ? " · now click a space of your Sampler" : " · click to place one");
  }
  return h("div", { class: "ct-wilds" }, tokens, label);
}

function playerPanel(p, view, ctx, moves) {
  const mine = view.viewer === p.seat;
  const acting = view.to_act === p.seat;
  const act = mine && acting;
  const boxReserved = act ? moves.box.find(m => m.target.where === "reserved") : null;
  const reserved = p.reserved
    ? h("div", { class: "ct-reserved" }, h("div", { class: "muted" }, "reserved (a wild locked on it)"),
      tileCard(p.reserved, boxReserved ? [actionButton(boxReserved, "Box it")] : []))
    : null;
  const badges = [];
  if (p.first) badges.push(h("span", { class: "ct-badge first" }, `First +${view.first_points}`));
  for (const name of p.score_tiles) if (name !== "first") badges.push(h("span", { class: "ct-badge" }, scoreLabel(name)));
  return h("div", { class: `ct-player${acting ? " to-act" : ""}${mine ? " mine" : ""}`, "data-seat": p.seat },
    h("div", { class: "name" }, dot(p.seat), seatName(ctx.seats, p.seat, view.viewer, ctx.you),
      h("span", { class: "muted" }, `· ${p.tiles}/${view.max_tiles} tiles · ${p.points} tile pts`), badges),
    handCards(p, view, moves, mine, act),
    wildTokens(p, moves, act),
    h("div", { class: "ct-player-body" }, samplerSvg(p, view, moves, act), reserved));
}

function scoreLabel(name) {
  if (name === "first") return "First";
  if (name === "three_or_four") return "most 3-4 pt tiles";
  return typeName(name);
}

// ------------------------------------------------------------------ the board
function sortMoves(legal) {
  const moves = { take: [], exchange: [], box: [], reserve: [], wild: [], pay: [], place: [], discard: [], pass: [] };
  for (const m of legal || []) if (m.target && moves[m.target.kind]) moves[m.target.kind].push(m);
  return moves;
}

function phaseText(view) {
  if (view.over) return "Game over";
  const who = `player_${view.to_act}`;
  switch (view.phase) {
    case "choose":
      if (view.edition === "classic") {
        return view.actions_left === 2 ? `${who}: action phase (take a card or exchange)` : `${who}: bonus phase (box a tile, place a wild, or skip)`;
      }
      return `${who}: action ${3 - view.actions_left} of 2`;
    case "take": return `${who}: exchange, takes ${view.takes_left} more card(s) from the tray`;
    case "pay": return `${who}: paying a tile (${typeName(view.boxing.paying)} now)`;
    case "place": return `${who}: placing the tile in the Sampler`;
    default: return `${who}: discarding down to 6 cards`;
  }
}

export function render(el, view, ctx) {
  bindKeys();
  ui.last = { el, view, ctx };
  const moves = sortMoves(ctx.legal);
  if (!moves.wild.length) ui.wild = false;
  const take = {};
  for (const m of moves.take) take[m.target.type] = m;

  const tray = h("div", { class: "ct-tray" }, view.types.map(t => {
    const n = view.tray[t];
    const m = take[t];
    const attrs = { class: `ct-card${n ? "" : " gone"}`, style: { background: TYPE_COLORS[t] }, title: m ? m.name : `${typeName(t)}: ${n} on the tray` };
    if (m) Object.assign(attrs, { "data-action": m.action, "data-kind": "take" });
    return h("div", attrs, h("span", { class: "l" }, TYPE_LETTERS[t]), h("span", { class: "n" }, `×${n}`), h("span", { class: "t" }, typeName(t)));
  }));
  const discard = Object.entries(view.discard).filter(([, n]) => n).map(([t, n]) => chip(t, `×${n}`));
  const deckNote = view.deck_content
    ? ` (rebuilt from the discards: ${Object.entries(view.deck_content).filter(([, n]) => n).map(([t, n]) => `${TYPE_LETTERS[t]}${n}`).join(" ")})`
    : "";
  const piles = h("div", { class: "ct-piles muted" }, `deck ${view.deck}${deckNote} · discard `, discard.length ? discard : "empty");

  const line = h("div", { class: "ct-line" }, view.line.map((tile, i) => {
    const buttons = [];
    const box = moves.box.find(m => m.target.where === "line" && m.target.line === i);
    const reserve = moves.reserve.find(m => m.target.line === i);
    if (box) buttons.push(actionButton(box, "Box"));
    if (reserve) buttons.push(actionButton(reserve, "Reserve", "secondary"));
    const note = view.stacks ? h("div", { class: "muted small" }, `stack ${i}: ${view.stacks[i]} under`) : null;
    return tileCard(tile, buttons, note);
  }));
  const lineTitle = view.stacks ? "The five stacks (top tiles face up)" : `The line · ${view.stack} tile(s) in the face-down stack`;

  const scoreTiles = h("div", { class: "ct-scores" }, view.score_tiles.map(st => {
    const color = TYPE_COLORS[st.name];
    return h("div", { class: "ct-score", title: `${scoreLabel(st.name)}: ${st.points} points to ${st.holder >= 0 ? `player_${st.holder}` : "nobody (yet)"}` },
      color ? chip(st.name) : h("span", { class: "ct-chip other" }, st.name === "first" ? "1st" : "3-4"),
      h("span", {}, ` ${scoreLabel(st.name)} +${st.points} `),
      st.holder >= 0 ? dot(st.holder) : h("span", { class: "muted" }, "—"));
  }));

  let boxing = null;
  if (view.boxing) {
    const b = view.boxing;
    const owed = Object.entries(b.to_pay).filter(([, n]) => n).map(([t, n]) =>
      chip(t, `×${n}`, { class: `ct-chip${t === b.paying ? " paying" : ""}` }));
    boxing = h("div", { class: "ct-boxing panel" },
      h("b", {}, `Boxing (from ${b.from === "reserved" ? "the reserve" : `line ${b.line}`}) `),
      tileSvg(b.rotations[0], 18),
      owed.length ? [h("span", {}, " still to pay: "), owed] : h("span", {}, " paid: now place it in the Sampler"));
  }

  const controls = [];
  for (const m of moves.pass) controls.push(actionButton(m, m.target.label === "pass" ? "Pass" : "Skip the bonus phase"));
  if (moves.place.length) {
    controls.push(h("button", {
      type: "button", class: "ct-btn secondary", "data-ui": "rotate", title: "rotate the tile a quarter turn (R)",
      onclick: () => { ui.rotation = (ui.rotation + 1) % 4; rerender(); },
    }, `⟳ Rotate (R) · ${90 * ui.rotation}°`));
  }

  const players = h("div", { class: "ct-players" }, view.players.map(p => playerPanel(p, view, ctx, moves)));
  el.replaceChildren(h("div", { class: "ct-board" },
    h("div", { class: "ct-status" }, h("span", {}, `Chocolatiers (${view.edition}) · round ${view.round}/${view.rounds}`),
      h("span", { class: "phase" }, phaseText(view)), controls.length ? h("span", { class: "ct-controls" }, controls) : null),
    h("div", { class: "ct-top" },
      h("div", { class: "ct-section" }, h("div", { class: "label" }, "The tray (click a card to take it)"), tray, piles),
      h("div", { class: "ct-section" }, h("div", { class: "label" }, "Score tiles (who holds each now)"), scoreTiles)),
    h("div", { class: "ct-section" }, h("div", { class: "label" }, lineTitle), line),
    boxing,
    players));
}

export function describeTurn(view) {
  if (view.over) return "Game over";
  switch (view.phase) {
    case "choose":
      if (view.edition === "classic" && view.actions_left === 1) return "bonus phase: box a tile, place a wild, or skip";
      if (view.edition === "classic") return "take a card from the tray, or exchange one of yours";
      return `action ${3 - view.actions_left} of 2: take a card, exchange one of yours, box or reserve a tile, or place a wild`;
    case "take": return `take ${view.takes_left} more card(s) from the tray`;
    case "pay": return `pay the ${typeName(view.boxing.paying)}: click a ${typeName(view.boxing.paying)} card, or "pay ×2" under a pair`;
    case "place": return "place the tile: hover the highlighted places of your Sampler, R rotates, click to place";
    default: return "over 6 cards: click a card of your hand to discard it";
  }
}
