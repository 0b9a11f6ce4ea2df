// Chocolate Factory: the roll (dice grouped by kind, the roller marked), each player's
// four stations (variety, tier, each ingredient's progress, machines, special), the
// master and applications, the packages and the supply, the shift time left, and the
// recipes a freed station may take.
//
// Every clickable place comes from the server's legal moves (their `target`). Click a
// quantity die and an ingredient die (a pair), a machine die or a special die: the
// stations that take it light up; click one. "Hire the master", then a machine of a
// station. Pass and Reroll are buttons; a finished bar goes into a lit package; a freed
// station takes a recipe clicked below.
import { h, dot, seatName, fmt } from "../common.js";

const INGREDIENT_COLORS = {
  cocoa: "#6b3e26", milk: "#f4f1ea", sugar: "#ffffff", nuts: "#c58f4f", butter: "#f2d98b", fruit: "#d64545",
};
const INGREDIENT_INK = { cocoa: "#fff", fruit: "#fff" };
const TIER_COLORS = { bronze: "#b07a48", silver: "#9aa3ad", gold: "#d9a520" };

// the dice chosen so far (a pick is made by choosing, then clicking a station)
const sel = { q: null, i: null, m: null, x: null, master: false };
let last = null;

function clear() {
  Object.assign(sel, { q: null, i: null, m: null, x: null, master: false });
}

function rerender() {
  if (last) render(last.el, last.view, last.ctx);
}

function nice(name) {
  return String(name).replaceAll("_", " ");
}

function sortMoves(legal) {
  const out = { pair: [], machine: [], special: [], master: [], pass: [], reroll: [], pack: [], variety: [] };
  for (const m of legal || []) if (m.target && out[m.target.kind]) out[m.target.kind].push(m);
  return out;
}

/** Drop a choice the legal moves no longer allow (a new position came in). */
function checkSelection(moves) {
  const pairOk = moves.pair.some(m => (sel.q === null || m.target.quantity === sel.q) && (sel.i === null || m.target.ingredient === sel.i));
  if ((sel.q !== null || sel.i !== null) && !pairOk) clear();
  if (sel.m !== null && !moves.machine.some(m => m.target.machine === sel.m)) clear();
  if (sel.x !== null && !moves.special.some(m => m.target.special === sel.x)) clear();
  if (sel.master && !moves.master.length) clear();
}

function pick(kind, face) {
  if (kind === "q" || kind === "i") {
    sel.m = null; sel.x = null; sel.master = false;
    sel[kind] = sel[kind] === face ? null : face;
  } else if (kind === "master") {
    const on = !sel.master;
    clear();
    sel.master = on;
  } else {
    const again = sel[kind] === face;
    clear();
    if (!again) sel[kind] = face;
  }
  rerender();
}

// ------------------------------------------------------------------ the roll
function die(kind, face, attrs) {
  const cls = `fd-die ${kind}`;
  let label = nice(face);
  let style = {};
  if (kind === "quantity") label = face === "joker" ? "★" : face;
  if (kind === "ingredient") style = { background: INGREDIENT_COLORS[face], color: INGREDIENT_INK[face] || "#2a1b10" };
  return h("span", { class: cls, style, title: `${kind} die: ${nice(face)}`, ...attrs }, h("span", { class: "face" }, label));
}

function rollPanel(view, moves) {
  const groups = [
    ["quantity", "q", m => m.target.quantity, moves.pair.filter(m => sel.i === null || m.target.ingredient === sel.i)],
    ["ingredient", "i", m => m.target.ingredient, moves.pair.filter(m => sel.q === null || m.target.quantity === sel.q)],
    ["machine", "m", m => m.target.machine, moves.machine],
    ["special", "x", m => m.target.special, moves.special],
  ];
  const parts = groups.map(([kind, key, faceOf, usable]) => {
    const dice = [];
    for (const d of view.dice[kind]) {
      const offers = usable.filter(m => faceOf(m) === d.face);
      for (let k = 0; k < d.count; k++) {
        const attrs = {};
        if (offers.length) {
          Object.assign(attrs, {
            "data-pick": `${key}:${d.face}`, "data-offers": offers.map(m => m.action).join(" "),
            role: "button", tabindex: 0, onclick: () => pick(key, d.face),
            onkeydown: e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(key, d.face); } },
          });
        }
        const node = die(kind, d.face, attrs);
        if (sel[key] === d.face && k === 0) node.classList.add("chosen");
        if (offers.length) node.classList.add("usable");
        dice.push(node);
      }
    }
    return h("div", { class: "fd-group" }, h("div", { class: "label" }, `${kind} dice`),
      h("div", { class: "fd-dice" }, dice.length ? dice : h("span", { class: "muted" }, "none left")));
  });
  return h("div", { class: "fd-roll panel" },
    h("div", { class: "fd-roll-head" }, h("b", {}, "The roll"), " · rolled by ", dot(view.roller), ` player_${view.roller}`),
    h("div", { class: "fd-groups" }, parts), selectionNote(moves));
}

function selectionNote(moves) {
  let text = "";
  if (sel.q !== null && sel.i !== null) text = `Chosen: ${sel.q === "joker" ? "★ joker" : sel.q} × ${nice(sel.i)}: click a lit station`;
  else if (sel.q !== null) text = `Chosen: quantity ${sel.q === "joker" ? "★ joker" : sel.q}: now an ingredient die`;
  else if (sel.i !== null) text = `Chosen: ${nice(sel.i)}: now a quantity die`;
  else if (sel.m !== null) text = `Chosen: machine ${nice(sel.m)}: click a lit station`;
  else if (sel.x !== null) text = `Chosen: special ${nice(sel.x)}: click a lit station`;
  else if (sel.master) text = "Hiring the master: click a machine of a station (dashed)";
  else if (moves.pair.length || moves.machine.length || moves.special.length) text = "Click a quantity and an ingredient die, or a machine or special die.";
  return h("div", { class: "fd-note" }, text);
}

// ------------------------------------------------------------------ stations
function stationTarget(st, moves) {
  if (sel.q !== null && sel.i !== null) return moves.pair.find(m => m.target.station === st && m.target.quantity === sel.q && m.target.ingredient === sel.i);
  if (sel.m !== null) return moves.machine.find(m => m.target.station === st && m.target.machine === sel.m);
  if (sel.x !== null) return moves.special.find(m => m.target.station === st && m.target.special === sel.x);
  return null;
}

function stationCard(st, p, view, moves, act) {
  if (!st.variety) {
    const pending = view.pending && view.to_act === p.seat && view.pending.station === st.station;
    return h("div", { class: `fd-station free${pending ? " pending" : ""}`, "data-station": st.station },
      h("div", { class: "fd-st-head" }, `station ${st.station}`), h("div", { class: "muted" }, pending ? "freed: its new recipe is chosen below" : "free"));
  }
  const m = act ? stationTarget(st.station, moves) : null;
  const attrs = { class: `fd-station tier-${st.tier}`, "data-station": st.station };
  if (m) Object.assign(attrs, { "data-action": m.action, "data-kind": m.target.kind, title: m.name });
  const rows = st.ingredients.map(ing => {
    const have = ing.needed - ing.missing;
    return h("div", { class: "fd-ing", title: `${nice(ing.ingredient)}: ${have} of ${ing.needed} delivered` },
      h("span", { class: "sw", style: { background: INGREDIENT_COLORS[ing.ingredient] } }),
      h("span", { class: "nm" }, nice(ing.ingredient)),
      h("span", { class: "bar" }, h("span", { style: { width: `${(100 * have) / ing.needed}%` } })),
      h("span", { class: "ct" }, `${have}/${ing.needed}`));
  });
  const machines = st.machines.map(mc => {
    const hire = act && sel.master ? moves.master.find(x => x.target.station === st.station && x.target.machine === mc.machine) : null;
    const a = { class: `fd-machine${mc.placed ? " placed" : ""}`, title: `${nice(mc.machine)} (${nice(mc.ingredient)}): ${mc.placed ? "placed" : "still needed"}` };
    if (hire) Object.assign(a, { "data-action": hire.action, "data-kind": "master", title: hire.name, class: `${a.class} hire` });
    return h("span", a, mc.placed ? "⚙ " : "○ ", nice(mc.machine));
  });
  return h("div", attrs,
    h("div", { class: "fd-st-head" }, h("span", { class: "tier", style: { background: TIER_COLORS[st.tier] } }, st.tier),
      h("b", {}, nice(st.variety)), h("span", { class: "muted" }, ` · ${st.points} pts · station ${st.station}`)),
    rows,
    machines.length ? h("div", { class: "fd-machines" }, machines) : h("div", { class: "muted small" }, "no machines (bronze)"),
    h("div", { class: `fd-special${st.special_placed ? " placed" : ""}` },
      st.special_placed ? "✓ " : "○ ", `special: ${nice(st.special)}`, st.special_placed ? "" : ` (+${view.refine_bonus})`));
}

function playerPanel(p, view, ctx, moves) {
  const act = view.to_act === p.seat && view.viewer === p.seat;
  const apps = [];
  for (let k = 0; k < view.max_apps; k++) apps.push(h("span", { class: `fd-app${k < p.apps ? " on" : ""}` }));
  return h("div", { class: `fd-player${view.to_act === p.seat ? " to-act" : ""}`, "data-seat": p.seat },
    h("div", { class: "name" }, dot(p.seat), seatName(ctx.seats, p.seat, view.viewer, ctx.you),
      view.roller === p.seat ? h("span", { class: "fd-roller", title: "rolled this round's dice" }, "roller") : null,
      h("span", { class: "score" }, `${fmt(p.score)} pts`)),
    h("div", { class: "fd-meta muted" },
      h("span", { title: "applications: at the maximum the master can be hired" }, "applications ", apps, ` ${p.apps}/${view.max_apps}`),
      ` · master hired ${p.masters}× · ${p.finished} finished · storage ${p.storage}`,
      ` · varieties ${p.variety_points} + refined ${p.refine_points} + packages ${p.bonus_points}`),
    h("div", { class: "fd-stations" }, p.stations.map(st => stationCard(st, p, view, moves, act))));
}

// ------------------------------------------------------------------ packages, recipes
function packagesPanel(view, moves) {
  if (!view.packages_on) return h("div", { class: "panel muted" }, "Played without packages: only variety points (and refinements) count.");
  const slots = view.packages.map(pk => {
    const m = moves.pack.find(x => x.target.package === pk.slot);
    const attrs = { class: `fd-package ${pk.state}`, "data-package": pk.slot };
    if (m) Object.assign(attrs, { "data-action": m.action, "data-kind": "pack", title: m.name });
    const owners = pk.owners.map((n, seat) => (n ? h("span", { class: "own" }, dot(seat), `×${n}`) : null));
    const fill = [];
    for (let k = 0; k < view.package_size; k++) fill.push(h("span", { class: `cell${k < pk.fill ? " on" : ""}` }));
    return h("div", attrs, h("div", { class: "muted small" }, `package ${pk.slot}`),
      pk.state === "closed" ? h("div", {}, "full (none left)") : pk.state === "empty" ? h("div", { class: "muted" }, "empty") :
        h("div", {}, h("b", {}, nice(pk.variety)), h("span", { class: "muted" }, ` (${pk.tier}, +${view.package_bonus[pk.tier]} a bar)`)),
      h("div", { class: "fd-fill" }, fill), h("div", { class: "owners" }, owners));
  });
  return h("div", { class: "fd-packages panel" },
    h("div", {}, h("b", {}, "Packages"), h("span", { class: "muted" }, ` · ${view.supply_left} in the supply · ${view.packages_filled} filled (the game ends when every package is full and none is left)`)),
    view.pending && view.phase === "pack" ? h("div", { class: "fd-note" }, `player_${view.to_act}'s finished ${nice(view.pending.variety)} goes into a lit package`) : null,
    h("div", { class: "fd-package-row" }, slots));
}

function recipes(view, moves) {
  const choosing = moves.variety.length > 0;
  const cards = view.varieties.map(v => {
    const m = moves.variety.find(x => x.target.variety === v.name);
    const attrs = { class: `fd-recipe tier-${v.tier}` };
    if (m) Object.assign(attrs, { "data-action": m.action, "data-kind": "variety", title: m.name });
    return h("div", attrs,
      h("div", {}, h("span", { class: "tier", style: { background: TIER_COLORS[v.tier] } }, v.tier), " ", h("b", {}, nice(v.name)), ` · ${v.points} pts`),
      h("div", { class: "small" }, Object.entries(v.recipe).map(([ing, q]) => `${nice(ing)} ${q}`).join(", ")),
      h("div", { class: "small muted" }, `special ${nice(v.special)}${v.machines.length ? ` · machines ${v.machines.map(nice).join(", ")}` : ""}`));
  });
  const title = choosing ? `Choose the new recipe of station ${view.pending ? view.pending.station : ""}` : "Recipes";
  return h("details", { class: "fd-recipes panel", open: choosing || null }, h("summary", {}, h("b", {}, title)), h("div", { class: "fd-recipe-grid" }, cards));
}

function phaseText(view) {
  if (view.over) return "Game over";
  const who = `player_${view.to_act}`;
  if (view.phase === "pack") return `${who} packs a finished ${nice(view.pending.variety)}`;
  if (view.phase === "choose") return `${who} chooses station ${view.pending.station}'s new recipe`;
  return `${who} ${view.to_act === view.roller ? "(the roller) " : ""}picks from the roll`;
}

export function render(el, view, ctx) {
  last = { el, view, ctx };
  const moves = sortMoves(ctx.legal);
  checkSelection(moves);
  const controls = [];
  for (const m of moves.pass) controls.push(h("button", { type: "button", class: "ct-btn secondary", "data-action": m.action, "data-kind": "pass", title: m.name }, "Pass (+1 application)"));
  for (const m of moves.reroll) controls.push(h("button", { type: "button", class: "ct-btn secondary", "data-action": m.action, "data-kind": "reroll", title: m.name }, "Reroll (−1 application)"));
  if (moves.master.length) {
    controls.push(h("button", {
      type: "button", class: `ct-btn${sel.master ? " armed" : ""}`, "data-pick": "master", "data-offers": moves.master.map(m => m.action).join(" "),
      title: "hire the master: he works as any machine", onclick: () => pick("master"),
    }, sel.master ? "Hiring the master… (click a machine)" : "Hire the master"));
  }
  const clock = h("span", { class: "fd-clock", title: "rolls left after this one" }, `shift time left: ${view.time_left} of ${view.total_rolls} rolls`);
  el.replaceChildren(h("div", { class: "fd-board" },
    h("div", { class: "ct-status" }, h("span", {}, `Chocolate Factory · ${view.num_players} players`), clock,
      h("span", { class: "phase" }, phaseText(view)), controls.length ? h("span", { class: "ct-controls" }, controls) : null),
    rollPanel(view, moves),
    h("div", { class: "fd-players" }, view.players.map(p => playerPanel(p, view, ctx, moves))),
    packagesPanel(view, moves),
    recipes(view, moves)));
}

export function describeTurn(view) {
  if (view.over) return "Game over";
  if (view.phase === "pack") return "click a lit package for your finished bar";
  if (view.phase === "choose") return "choose the freed station's new recipe (below)";
  return "click a quantity and an ingredient die (or a machine or special die), then a lit station; or pass";
}

