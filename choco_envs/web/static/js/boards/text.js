// The fallback board: the seat's own text view, cut into labelled panels (one per player).
// Moves are made from the move list beside it.
import { h, dot, seatName } from "../common.js";

export function render(el, view, ctx) {
  const blocks = view.blocks.map(b => {
    const player = b.seat !== undefined;
    const cls = ["text-block"];
    if (player) cls.push("player");
    if (player && b.seat === view.to_act) cls.push("to-act");
    const label = player
      ? [dot(b.seat), seatName(ctx.seats, b.seat, view.viewer, ctx.you)]
      : [b.label || ""];
    return h("div", { class: cls.join(" "), "data-seat": player ? b.seat : null },
      h("div", { class: "label" }, ...label),
      b.text ? h("div", { class: "text" }, b.text) : null,
      b.lines.length ? h("pre", { class: "lines" }, b.lines.join("\n")) : null);
  });
  el.replaceChildren(h("div", { class: "text-board" },
    h("div", { class: "title" }, view.title),
    h("div", { class: "note" }, `The drawn board of ${view.name} comes later; make your moves from the move list.`),
    h("div", { class: "text-blocks" }, blocks)));
}

export function describeTurn(view) {
  return view.over ? "Game over" : "choose a move from the list";
}
