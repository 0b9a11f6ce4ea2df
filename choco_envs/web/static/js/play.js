// The game page: /play/{game_id}?token=T (a seat) or /play/{game_id} (a spectator).
// It waits for changes with long polls (GET ...?since=VERSION), so every move, a bot's
// or a friend's, shows as it is made.
import { h, api, ApiError, dot, seatName, scoreTable, verdict, sleep } from "./common.js";
import { boardFor, hint } from "./boards/index.js";
import { AnalysisPanel } from "./analysis.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const token = new URLSearchParams(location.search).get("token");
const $ = id => document.getElementById(id);

let current = null;   // the latest snapshot
let log = [];
let busy = false;
let analysis = null;

function stateUrl(since) {
  const q = new URLSearchParams();
  if (token) q.set("token", token);
  if (since !== undefined) { q.set("since", since); q.set("wait", "20"); }
  q.set("log_from", String(log.length));
  return `/api/games/${encodeURIComponent(gameId)}?${q}`;
}

function takeLog(snap) {
  if (snap.log_from <= log.length) log = log.slice(0, snap.log_from).concat(snap.log);
}

function render(snap) {
  if (current && snap.version < current.version) return;
  takeLog(snap);
  current = snap;
  document.body.dataset.version = String(snap.version);
  document.body.dataset.over = String(snap.over);
  const view = snap.view;
  const board = boardFor(view);
  const mine = snap.seat !== null && snap.to_act === snap.seat;
  const legal = mine && !busy ? snap.legal : [];
  document.title = `${snap.name}: ${snap.over ? "game over" : mine ? "your turn" : "choco_envs"}`;
  $("where").textContent = `${snap.name} · ${snap.seat === null ? "spectating (public information only)" : `you are ${seatName(snap.seats, snap.seat, snap.seat)}`} · seed ${snap.seed}`;
  $("watch-link").href = `/play/${encodeURIComponent(gameId)}`;
  board.render($("board"), view, { legal, seats: snap.seats, onAction: move, lastMove: log[log.length - 1] });
  renderStatus(snap, board, mine);
  renderSeats(snap);
  renderMoves(snap, legal);
  renderLog(snap);
  renderFinal(snap);
  renderAnalysis(snap, mine);
}

function renderAnalysis(snap, mine) {
  if (!analysis) return;
  if (snap.seat === null) { analysis.update(null, "The analysis is of a seat's own moves: open your seat's link."); return; }
  if (snap.over || !mine || snap.error) { analysis.update(null, snap.over ? "The game is over: the replay analyses every move." : "The analysis shows your moves on your turn."); return; }
  const version = snap.version;
  analysis.update(kind => `/api/games/${encodeURIComponent(gameId)}/analysis?${new URLSearchParams({ token, kind, v: String(version) })}`);
}

function renderStatus(snap, board, mine) {
  const el = $("status");
  el.classList.toggle("your-turn", mine && !snap.over);
  if (snap.error) el.textContent = `The game stopped: ${snap.error}`;
  else if (snap.over) el.textContent = `Game over: ${verdict(snap.places, snap.seat)}`;
  else if (mine) el.textContent = `Your turn: ${board.describeTurn(snap.view)}`;
  else {
    const who = snap.seats[snap.to_act];
    const name = seatName(snap.seats, snap.to_act, snap.seat);
    el.textContent = who.human ? `Waiting for ${name}…` : `${name} is thinking…`;
  }
}

function renderSeats(snap) {
  $("seats").replaceChildren(...snap.seats.map(info => h("li", {
    class: info.seat === snap.to_act ? "to-act" : "",
  }, dot(info.seat), seatName(snap.seats, info.seat, snap.seat),
  info.seat === snap.to_act ? " ← to act" : "",
  snap.scores ? h("span", { class: "muted" }, ` · ${snap.scores[info.seat]} pts`) : null)));
}

function renderMoves(snap, legal) {
  const list = $("moves");
  if (!legal.length) {
    const why = snap.over ? "The game is over." : snap.seat === null ? "Spectators do not move." : "Not your turn.";
    list.replaceChildren(h("li", { class: "muted" }, why));
    return;
  }
  list.replaceChildren(...legal.map(m => h("li", {}, h("button", {
    type: "button", "data-move": m.action, title: `action ${m.action}`,
    onclick: () => move(m.action),
    onmouseenter: () => hint($("board"), m.action, true),
    onmouseleave: () => hint($("board"), m.action, false),
  }, m.name))));
}

function renderLog(snap) {
  const el = $("log");
  el.replaceChildren(...log.map((entry, i) => h("li", {
    class: i === log.length - 1 ? "latest" : "",
  }, dot(entry.seat), " ", seatName(snap.seats, entry.seat, snap.seat), ": ", entry.name)));
  el.scrollTop = el.scrollHeight;
}

function renderFinal(snap) {
  const el = $("final");
  if (!snap.over || !snap.scores) { el.hidden = true; return; }
  el.hidden = false;
  const actions = h("div", { class: "actions" },
    snap.record_id ? h("a", { class: "button", href: `/replay/${encodeURIComponent(snap.record_id)}`, id: "replay-link" }, "Replay with the slider") : null,
    h("a", { class: "button", href: `/api/games/${encodeURIComponent(gameId)}/record`, download: `${snap.env_id}-${gameId}.json` }, "Download the record"),
    h("a", { class: "button", href: "/" }, "New game"));
  el.replaceChildren(h("h3", {}, "Final scores"),
    h("div", { class: "verdict", id: "verdict" }, verdict(snap.places, snap.seat)),
    scoreTable(snap.scores, snap.breakdown, snap.seats, snap.seat), actions);
}

async function move(action) {
  if (busy || !current || current.to_act !== current.seat) return;
  busy = true;
  $("move-error").textContent = "";
  try {
    const snap = await api("POST", `/api/games/${encodeURIComponent(gameId)}/actions`, { token, action });
    busy = false;
    render(snap);
  } catch (err) {
    busy = false;
    $("move-error").textContent = err.message;
    if (current) render(current);
  }
}

function fail(err) {
  const text = err instanceof ApiError && err.status === 403
    ? "This link is not a seat of this game (check the link you were sent)."
    : err instanceof ApiError && err.status === 404
      ? "No such game: it may have ended long ago and expired. Finished games are in the lobby's list."
      : `Cannot load the game: ${err.message}`;
  $("status").textContent = text;
  $("status").classList.add("error");
}

async function main() {
  if (!gameId) { fail(new Error("no game id in the address")); return; }
  // one listener for every board element that makes a move (boards redraw themselves)
  $("board").addEventListener("click", e => {
    const node = e.target.closest("[data-action]");
    if (node && $("board").contains(node)) move(Number(node.dataset.action));
  });
  const q = token ? `?${new URLSearchParams({ token })}` : "";
  analysis = new AnalysisPanel($("analysis"), $("board"), `/api/games/${encodeURIComponent(gameId)}/analysis/kinds${q}`);
  try {
    render(await api("GET", stateUrl()));
  } catch (err) { fail(err); return; }
  while (!current.over) {
    try {
      render(await api("GET", stateUrl(current.version)));
    } catch (err) {
      if (err instanceof ApiError && (err.status === 403 || err.status === 404)) { fail(err); return; }
      await sleep(2000);  // the server restarted or the network blinked: try again
    }
  }
}

main();
