// The lobby: choose a game and its options, who sits in each seat (you, a friend by
// link, a bot), a seed; start it. Also: your games in this browser, finished games
// (replay, download) and uploading a record.
import { h, api, copyButton, fmt } from "./common.js";

const $ = id => document.getElementById(id);
const MY_GAMES = "choco_envs.my_games";
const OPTION_LABELS = { scoring_card: "scoring card", edition: "edition", length: "length", packages: "packages" };
const BLURBS = {
  chocolates_v0: "Predict what the face-down chocolates will show.",
  le_chocolat_v0: "Split the bar, claim the small chunks, guess the backs.",
  chocolatiers_v1: "Fill your Sampler with box tiles bought with chocolate cards.",
  chocolate_factory_v2: "Draft dice for your stations before the shift ends.",
};

let catalog = null;
let env = null;        // the chosen catalog entry
let bots = [];         // [{spec, ok, reason}] for the chosen configuration
let botsRequest = 0;

function choiceLabel(v) {
  if (v === null) return "drawn at random";
  if (v === true) return "yes";
  if (v === false) return "no";
  return String(v);
}

function playerRange() {
  const chosen = readOptions(false);
  for (const entry of env.players_for || []) {
    if (Object.entries(entry.options).every(([k, v]) => chosen[k] === undefined || chosen[k] === v)) {
      return [entry.min, entry.max];
    }
  }
  return [env.min_players, env.max_players];
}

function readOptions(withPlayers = true) {
  const out = {};
  for (const opt of env.options) {
    const el = $(`opt-${opt.name}`);
    if (el) out[opt.name] = JSON.parse(el.value);
  }
  if (withPlayers && $("opt-num_players")) out.num_players = Number($("opt-num_players").value);
  return out;
}

function renderGames() {
  $("game-tiles").replaceChildren(...catalog.envs.map(e => h("button", {
    type: "button", class: `game-tile${env && env.env_id === e.env_id ? " chosen" : ""}`,
    "data-env": e.env_id, onclick: () => choose(e.env_id),
  },
  h("div", { class: "title" }, e.name),
  h("div", { class: "sub" }, `${e.min_players === e.max_players ? e.min_players : `${e.min_players}–${e.max_players}`} players · ${e.env_id}`),
  h("div", { class: "sub" }, BLURBS[e.env_id] || ""))));
}

function choose(envId) {
  env = catalog.envs.find(e => e.env_id === envId) || catalog.envs[0];
  history.replaceState(null, "", `#env=${env.env_id}`);
  renderGames();
  renderOptions();
}

function renderOptions() {
  const fields = [];
  for (const opt of env.options) {
    const select = h("select", { id: `opt-${opt.name}`, title: opt.doc, onchange: renderPlayers },
      opt.choices.map(c => h("option", { value: JSON.stringify(c), selected: c === opt.default }, choiceLabel(c))));
    fields.push(h("label", { for: `opt-${opt.name}` }, OPTION_LABELS[opt.name] || opt.name), select);
  }
  fields.push(h("label", { for: "opt-num_players" }, "players"), h("select", { id: "opt-num_players", onchange: () => renderSeats() }));
  fields.push(h("label", { for: "seed" }, "seed"), h("div", {},
    h("input", { id: "seed", type: "number", min: 0, step: 1, placeholder: "random" }),
    h("span", { class: "muted" }, " the same seed deals the same game")));
  $("setup-fields").replaceChildren(...fields);
  renderPlayers();
}

function renderPlayers() {
  const [low, high] = playerRange();
  const el = $("opt-num_players");
  const before = Number(el.value) || env.default_players;
  const value = Math.min(high, Math.max(low, before));
  el.replaceChildren(...Array.from({ length: high - low + 1 }, (_, i) => low + i).map(n =>
    h("option", { value: n, selected: n === value }, String(n))));
  renderSeats();
}

async function renderSeats() {
  const n = Number($("opt-num_players").value);
  const rows = [];
  for (let i = 0; i < n; i++) {
    const select = h("select", {
      id: `seat-${i}`, "data-seat": i,
      onchange: (e) => { e.target.dataset.chosen = "1"; toggleCustom(i); },
    });
    const custom = h("input", { id: `seat-${i}-spec`, class: "custom", type: "text", placeholder: "bot spec, e.g. mcts:simulations=300", hidden: true });
    rows.push(h("label", { for: `seat-${i}` }, `player_${i}`), h("div", { class: "seat-row" }, select, custom));
  }
  $("seat-fields").replaceChildren(...rows);
  fillSeats();
  const request = ++botsRequest;
  $("bots-note").textContent = "Finding the bots that can play this configuration…";
  try {
    const found = await api("POST", "/api/bots", { env_id: env.env_id, options: readOptions() });
    if (request !== botsRequest) return;
    bots = found.bots;
    const missing = bots.filter(b => !b.ok);
    $("bots-note").textContent = missing.length
      ? `Not available here: ${missing.map(b => b.spec).join(", ")} (hover a seat for why).`
      : "";
    $("bots-note").title = missing.map(b => `${b.spec}: ${b.reason}`).join("\n");
  } catch (err) {
    if (request !== botsRequest) return;
    bots = [];
    $("bots-note").textContent = `Could not list the bots: ${err.message}`;
  }
  fillSeats();
}

function fillSeats() {
  const n = Number($("opt-num_players").value);
  const ok = bots.filter(b => b.ok).map(b => b.spec);
  const preferred = ["ppo", "greedy", "random"].find(spec => ok.includes(spec));
  for (let i = 0; i < n; i++) {
    const select = $(`seat-${i}`);
    const before = select.value;
    const options = [
      h("option", { value: "you" }, "You"),
      h("option", { value: "friend" }, "A friend (gets a link)"),
      ...ok.map(spec => h("option", { value: `bot:${spec}` }, `bot: ${spec}`)),
      h("option", { value: "other" }, "another bot spec…"),
    ];
    select.replaceChildren(...options);
    const fallback = i === 0 ? "you" : preferred ? `bot:${preferred}` : "other";
    const keep = select.dataset.chosen && [...select.options].some(o => o.value === before);
    select.value = keep ? before : fallback;
    toggleCustom(i);
  }
}

function toggleCustom(i) {
  $(`seat-${i}-spec`).hidden = $(`seat-${i}`).value !== "other";
}

async function start(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const n = Number($("opt-num_players").value);
  const kinds = [];
  const seats = [];
  for (let i = 0; i < n; i++) {
    const v = $(`seat-${i}`).value;
    kinds.push(v);
    if (v === "you" || v === "friend") seats.push("human");
    else if (v === "other") seats.push($(`seat-${i}-spec`).value.trim());
    else seats.push(v.slice(4));
  }
  const seedText = $("seed").value.trim();
  const body = { env_id: env.env_id, options: readOptions(), seats, seed: seedText === "" ? null : Number(seedText) };
  $("start").disabled = true;
  const slow = seats.some(spec => spec === "ppo" || spec.startsWith("policy:") || spec.startsWith("ppo:"));
  $("setup-error").textContent = slow ? "Starting: loading the checkpoint takes a few seconds…" : "";
  try {
    const made = await api("POST", "/api/games", body);
    if (!$("allow-analysis").checked) await forbidAnalysis(made);
    $("setup-error").textContent = "";
    const mine = kinds.map((k, i) => (k === "you" ? made.seat_urls[i] : null)).filter(Boolean);
    remember({ id: made.game_id, name: env.name, url: mine[0] || `/play/${made.game_id}`, when: Date.now() });
    if (mine.length === 1 && !kinds.includes("friend")) {
      location.href = mine[0];
      return;
    }
    showLinks(made, kinds);
  } catch (err) {
    $("setup-error").textContent = err.message;
  } finally {
    $("start").disabled = false;
  }
}

/** No analysis panel in this game, for any seat (a seat's token forbids it for all). */
async function forbidAnalysis(made) {
  const url = made.seat_urls.find(Boolean);
  if (!url) return;
  const token = new URL(url).searchParams.get("token");
  await api("POST", `/api/games/${encodeURIComponent(made.game_id)}/analysis/forbid`, { token });
}

function showLinks(made, kinds) {
  const rows = [];
  kinds.forEach((k, i) => {
    const url = made.seat_urls[i];
    if (!url) return;
    const input = h("input", { type: "text", readonly: true, value: url, id: `link-${i}` });
    rows.push(h("div", { class: "link-row" }, h("b", {}, `player_${i} (${k === "you" ? "you" : "friend"})`), input,
      copyButton(input), h("a", { class: "button", href: url, target: k === "you" ? "_self" : "_blank" }, "Open")));
  });
  const watch = h("input", { type: "text", readonly: true, value: `${location.origin}/play/${made.game_id}` });
  rows.push(h("div", { class: "link-row" }, h("b", {}, "spectators"), watch, copyButton(watch)));
  rows.push(h("p", { class: "muted" }, "Each seat's link acts for that seat only: send each friend their own. Links stay valid while the game is live."));
  $("created-links").replaceChildren(...rows);
  $("created").hidden = false;
  renderMyGames();
}

function remember(entry) {
  let games = [];
  try { games = JSON.parse(localStorage.getItem(MY_GAMES) || "[]"); } catch (e) { games = []; }
  games.unshift(entry);
  localStorage.setItem(MY_GAMES, JSON.stringify(games.slice(0, 12)));
}

function renderMyGames() {
  let games = [];
  try { games = JSON.parse(localStorage.getItem(MY_GAMES) || "[]"); } catch (e) { games = []; }
  if (!games.length) return;
  $("my-games").replaceChildren(h("ul", {}, games.map(g => h("li", {},
    h("a", { href: g.url }, g.name), h("span", { class: "muted" }, ` · started ${new Date(g.when).toLocaleString()}`)))));
}

async function renderRecords() {
  try {
    const { records } = await api("GET", "/api/records?limit=30");
    if (!records.length) {
      $("record-list").replaceChildren(h("span", { class: "muted" }, "No finished games yet."));
      return;
    }
    $("record-list").replaceChildren(h("table", { class: "records" },
      h("thead", {}, h("tr", {}, h("th", {}, "game"), h("th", {}, "finished"), h("th", {}, "moves"), h("th", {}, "scores"), h("th", {}, ""))),
      h("tbody", {}, records.map(r => h("tr", {},
        h("td", {}, r.name || r.id),
        h("td", {}, new Date(r.saved * 1000).toLocaleString()),
        h("td", {}, r.moves ?? ""),
        h("td", {}, r.scores ? r.scores.map(fmt).join(" – ") : r.error ? "unreadable" : "unfinished"),
        h("td", {}, r.error ? "" : h("a", { href: `/replay/${encodeURIComponent(r.id)}` }, "replay"), " ",
          h("a", { href: `/api/records/${encodeURIComponent(r.id)}`, download: `${r.id}.json` }, "download")))))));
  } catch (err) {
    $("record-list").replaceChildren(h("span", { class: "muted" }, `Records: ${err.message}`));
  }
}

async function upload(event) {
  const file = event.target.files[0];
  if (!file) return;
  $("upload-error").textContent = "";
  try {
    const text = await file.text();
    const { record_id } = await api("POST", "/api/records", text);
    location.href = `/replay/${encodeURIComponent(record_id)}`;
  } catch (err) {
    $("upload-error").textContent = err.message;
  }
}

async function main() {
  $("setup").addEventListener("submit", start);
  $("upload").addEventListener("change", upload);
  renderMyGames();
  renderRecords();
  catalog = await api("GET", "/api/catalog");
  const wanted = new URLSearchParams(location.hash.slice(1)).get("env");
  choose(wanted || catalog.envs[0].env_id);
}

main();
