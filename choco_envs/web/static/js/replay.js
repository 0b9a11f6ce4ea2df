// The replay page: /replay/{record_id}. A slider through every position of a finished
// game, from the spectator's view or any seat's; the move list jumps to a move.
import { h, api, dot, scoreTable, seatName, verdict } from "./common.js";
import { boardFor } from "./boards/index.js";
import { AnalysisPanel } from "./analysis.js";

const recordId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
const params = new URLSearchParams(location.search);
const $ = id => document.getElementById(id);

let data = null;
let step = 0;
let timer = null;
let analysis = null;

function seats() {
  return Array.from({ length: data.num_players }, (_, i) => {
    const player = data.players ? data.players[i] : "";
    return { seat: i, player, human: player === "human" };
  });
}

function name(seat) {
  return seatName(seats(), seat, data.seat, "this view");
}

function show(n) {
  step = Math.max(0, Math.min(data.steps, n));
  const frame = data.frames[step];
  const board = boardFor(frame.view);
  board.render($("board"), frame.view, { legal: [], seats: seats(), lastMove: frame.move, you: "this view" });
  $("slider").value = String(step);
  document.body.dataset.step = String(step);
  $("step-label").textContent = `move ${step} of ${data.steps}`;
  $("status").textContent = frame.view.over ? `Game over: ${verdict(data.final && data.final.places, null)}` :
    `${name(frame.to_act)} to move`;
  $("move-now").textContent = frame.move ? `last move: ${name(frame.move.seat)}: ${frame.move.name}` : "the start of the game";
  for (const li of $("log").children) li.classList.toggle("current", Number(li.dataset.step) === step);
  const current = $("log").querySelector("li.current");
  if (current) current.scrollIntoView({ block: "nearest" });
  const final = $("final");
  final.hidden = !(step === data.steps && data.final);
  if (!final.hidden) {
    final.replaceChildren(h("h3", {}, "Final scores"),
      h("div", { class: "verdict" }, verdict(data.final.places, null)),
      scoreTable(data.final.scores, data.final.breakdown, seats(), data.seat, "this view"));
  }
  const q = new URLSearchParams({ seat: data.seat === null ? "spectator" : String(data.seat), step: String(step) });
  history.replaceState(null, "", `?${q}`);
  if (analysis) {
    const at = step;
    if (frame.to_act === null || frame.to_act === undefined) analysis.update(null, "The game is over here: nobody is to move.");
    else analysis.update(kind => `/api/records/${encodeURIComponent(recordId)}/analysis?${new URLSearchParams({ step: String(at), kind })}`);
  }
}

function renderLog() {
  $("log").replaceChildren(...data.frames.slice(1).map(f => h("li", {
    "data-step": f.step, onclick: () => { stop(); show(f.step); },
  }, dot(f.move.seat), ` ${name(f.move.seat)}: ${f.move.name}`)));
}

function stop() {
  if (timer) clearInterval(timer);
  timer = null;
  $("playpause").textContent = "▶ play";
}

function playPause() {
  if (timer) { stop(); return; }
  if (step >= data.steps) show(0);
  $("playpause").textContent = "⏸ pause";
  timer = setInterval(() => {
    if (step >= data.steps) { stop(); return; }
    show(step + 1);
  }, 700);
}

async function load(seat, at) {
  data = await api("GET", `/api/records/${encodeURIComponent(recordId)}/frames?seat=${encodeURIComponent(seat)}`);
  $("where").textContent = `Replay of ${data.name} · seed ${data.seed} · ${data.steps} moves`;
  $("slider").max = String(data.steps);
  const select = $("seat");
  select.replaceChildren(h("option", { value: "spectator" }, "the spectator (public)"),
    ...Array.from({ length: data.num_players }, (_, i) => h("option", { value: String(i) }, `player_${i}`)));
  select.value = data.seat === null ? "spectator" : String(data.seat);
  renderLog();
  show(at);
}

async function main() {
  $("download").href = `/api/records/${encodeURIComponent(recordId)}`;
  analysis = new AnalysisPanel($("analysis"), $("board"), `/api/records/${encodeURIComponent(recordId)}/analysis/kinds`);
  $("download").setAttribute("download", `${recordId}.json`);
  $("slider").addEventListener("input", e => { stop(); show(Number(e.target.value)); });
  $("first").addEventListener("click", () => { stop(); show(0); });
  $("prev").addEventListener("click", () => { stop(); show(step - 1); });
  $("next").addEventListener("click", () => { stop(); show(step + 1); });
  $("last").addEventListener("click", () => { stop(); show(data.steps); });
  $("playpause").addEventListener("click", playPause);
  $("seat").addEventListener("change", e => { stop(); load(e.target.value, step); });
  document.addEventListener("keydown", e => {
    if (!data || e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") { stop(); show(step - 1); }
    else if (e.key === "ArrowRight") { stop(); show(step + 1); }
    else if (e.key === "Home") { stop(); show(0); }
    else if (e.key === "End") { stop(); show(data.steps); }
    else if (e.key === " ") { e.preventDefault(); playPause(); }
  });
  try {
    const at = params.get("step");
    await load(params.get("seat") || "spectator", at === null ? Number.MAX_SAFE_INTEGER : Number(at));
  } catch (err) {
    $("status").textContent = `Cannot load the record: ${err.message}`;
    $("status").classList.add("error");
  }
}

main();
