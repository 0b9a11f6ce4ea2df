// The board of each view kind ("board" in the view); unknown kinds fall back to text.
import * as chocolates from "./chocolates.js";
import * as chocolatiers from "./chocolatiers.js";
import * as chocolate_factory from "./chocolate_factory.js";
import * as le_chocolat from "./le_chocolat.js";
import * as text from "./text.js";

const BOARDS = { chocolates, chocolatiers, chocolate_factory, le_chocolat, text };

export function boardFor(view) {
  return BOARDS[view.board] || text;
}

/** Mark (or unmark) the board elements of one action, e.g. while its move is hovered:
 * the element that makes it, or those that lead to it (a die to choose first, the
 * place of a tile in another rotation: `data-offers`). */
export function hint(el, action, on) {
  for (const node of el.querySelectorAll(`[data-action="${action}"], [data-offers~="${action}"]`)) node.classList.toggle("hint", on);
}
