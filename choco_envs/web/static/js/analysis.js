// The analysis panel (game and replay pages): a chosen bot's view of the legal moves of
// the seat to act, computed by the server from that seat's information only. Off until
// switched on; the game's own setting may forbid it. Each kind answers the same shape
// (docs/web.md): moves best first, each with `p` (a policy's probability), `share` (how
// often a bot chose it over samples of what the seat cannot see) or `visits` (a search),
// and maybe a `value` (the seat's expected return; `value_note` says which).
import { h, api } from "./common.js";
import { hint } from "./boards/index.js";

const KIND_KEY = "choco-analysis-kind";

export class AnalysisPanel {
  /** root: the panel element; board: the board element (rows hint it); kindsUrl: the
   * URL listing the kinds and whether analysis is allowed. */
  constructor(root, board, kindsUrl) {
    this.root = root;
    this.board = board;
    this.on = false;
    this.allowed = true;
    this.kinds = [];
    this.url = null;      // what to analyse now (null: nothing, see `reason`)
    this.reason = "";
    this.shown = null;    // the URL of the analysis on screen
    this.seq = 0;
    this.toggle = h("input", { type: "checkbox", id: "analysis-on", onchange: () => { this.on = this.toggle.checked; this.refresh(); } });
    this.select = h("select", { id: "analysis-kind", "aria-label": "analysis by", onchange: () => { localStorage.setItem(KIND_KEY, this.select.value); this.shown = null; this.refresh(); } });
    this.body = h("div", { id: "analysis-body", class: "analysis-body" });
    root.replaceChildren(h("h3", {}, "Analysis"),
      h("div", { class: "analysis-controls" },
        h("label", {}, this.toggle, " show a bot's view of the moves"), this.select),
      this.body);
    this.load(kindsUrl);
  }

  async load(kindsUrl) {
    try {
      const info = await api("GET", kindsUrl);
      this.allowed = info.allowed;
      this.kinds = info.kinds;
    } catch (err) {
      this.allowed = false;
      this.reason = `Analysis unavailable: ${err.message}`;
    }
    const saved = localStorage.getItem(KIND_KEY);
    this.select.replaceChildren(...this.kinds.map(k => h("option", {
      value: k.kind, disabled: !k.ok || null, title: k.ok ? k.doc : k.reason,
    }, k.ok ? k.label : `${k.label} (unavailable)`)));
    const usable = this.kinds.filter(k => k.ok).map(k => k.kind);
    if (usable.includes(saved)) this.select.value = saved;
    else if (usable.length) this.select.value = usable[0];
    if (!this.allowed) {
      this.toggle.disabled = true;
      this.select.disabled = true;
      this.root.dataset.forbidden = "true";
    }
    this.refresh();
  }

  kind() {
    return this.select.value;
  }

  /** What to analyse: a URL builder (kind -> URL), or null and why not. */
  update(urlFor, reason) {
    this.urlFor = urlFor;
    this.reason = reason || "";
    this.refresh();
  }

  async refresh() {
    this.root.dataset.on = String(this.on);
    if (!this.allowed) {
      this.body.replaceChildren(h("p", { class: "muted" }, this.reason || "The analysis is switched off for this game."));
      return;
    }
    if (!this.on) {
      this.body.replaceChildren();
      this.shown = null;
      return;
    }
    const url = this.urlFor && this.kind() ? this.urlFor(this.kind()) : null;
    if (!url) {
      this.shown = null;
      this.body.replaceChildren(h("p", { class: "muted" }, this.reason || "Nothing to analyse here."));
      return;
    }
    if (url === this.shown) { this.mark(); return; }
    const seq = ++this.seq;
    this.body.replaceChildren(h("p", { class: "muted" }, "Thinking…"));
    try {
      const data = await api("GET", url);
      if (seq !== this.seq) return;
      this.shown = url;
      this.data = data;
      this.draw(data);
    } catch (err) {
      if (seq !== this.seq) return;
      this.shown = null;
      this.body.replaceChildren(h("p", { class: "error" }, err.message));
    }
  }

  draw(data) {
    const rows = data.moves.map(m => {
      let number = "", width = 0;
      if (m.visits !== undefined) { number = `${m.visits} visits`; width = m.visits / Math.max(1, data.moves[0].visits || 1); }
      else if (m.p !== undefined) { number = `${(100 * m.p).toFixed(1)}%`; width = m.p; }
      else if (m.share !== undefined) { number = `${Math.round(100 * m.share)}%`; width = m.share; }
      const marks = [];
      if (m.action === data.best) marks.push(h("span", { class: "best", title: "the move it would play" }, "★"));
      if (data.played === m.action) marks.push(h("span", { class: "played", title: "the move played" }, "▶ played"));
      return h("tr", {
        "data-analysis-action": m.action,
        onmouseenter: () => hint(this.board, m.action, true),
        onmouseleave: () => hint(this.board, m.action, false),
      }, h("td", { class: "mv" }, marks, " ", m.name),
      h("td", { class: "num" }, number),
      h("td", { class: "barcell" }, h("span", { class: "bar", style: { width: `${Math.round(100 * width)}%` } })));
    });
    const value = data.value !== undefined
      ? h("div", { class: "analysis-value", title: data.value_note },
        `Estimate for player_${data.seat}: `, h("b", { id: "analysis-value" }, `${data.value > 0 ? "+" : ""}${data.value.toFixed(2)}`),
        h("span", { class: "muted" }, " (−1 last … +1 first)"),
        h("span", { class: "vbar" }, h("span", { style: { left: "50%", width: `${Math.min(50, Math.abs(50 * data.value))}%`, transform: data.value < 0 ? "translateX(-100%)" : "none" } })))
      : null;
    this.body.replaceChildren(...[
      h("p", { class: "muted small" }, `${data.label}: ${data.doc}. From player_${data.seat}'s information only.`),
      value,
      h("div", { class: "analysis-table-wrap" }, h("table", { class: "analysis-table", id: "analysis-table" }, h("tbody", {}, rows))),
    ].filter(Boolean));
    this.mark();
  }

  /** Outline the board element of the move the bot would play. */
  mark() {
    for (const node of this.board.querySelectorAll(".analysis-best")) node.classList.remove("analysis-best");
    if (!this.on || !this.data || this.shown === null) return;
    for (const node of this.board.querySelectorAll(`[data-action="${this.data.best}"], [data-offers~="${this.data.best}"]`)) node.classList.add("analysis-best");
  }
}
