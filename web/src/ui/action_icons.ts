// The pictures of the action bar's buttons. The drawn ones are a choice of the client's, optional for each action:
// an action the engine offers without one (a new action, until someone draws it) shows the initial of its name, in
// the player's language, in a rounded frame. So a new action has a sensible button with no edit here, and its
// drawn picture, when it gets one, is one line of ICON_OF.

import type { SlotName } from "../generated/actions";
import { ICONS, icon } from "./dom";

/** Each action's drawn picture (a path in a 24×24 box), by the slot's name in the generated action table: a name
 * that is no action fails to compile; an action left out gets its lettered frame. */
const ICON_OF: Partial<Record<SlotName, string>> = {
  drill: ICONS.drill,
  mine: ICONS.mine,
  deposit: ICONS.deposit,
  build_robot: ICONS.robot,
  build_gates: ICONS.gates,
  place: ICONS.place,
  wait: ICONS.wait,
};

const DRAWN: ReadonlyMap<string, string> = new Map(Object.entries(ICON_OF));

/** The frame of a lettered picture: a rounded square ring, drawn as heavy as the drawn pictures' strokes. */
const FRAME = "M6 2h12a4 4 0 0 1 4 4v12a4 4 0 0 1-4 4H6a4 4 0 0 1-4-4V6a4 4 0 0 1 4-4zm0 2a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V6a2 2 0 0 0-2-2z";

/** The drawn picture of an action's button, or null when it has none (it shows its initial, `letteredIcon`). */
export function pictureOf(name: string): string | null {
  return DRAWN.get(name) ?? null;
}

/** The letter of a lettered picture: the first letter of the action's word (its button's label) as a capital;
 * `?` for a word with no letter. */
export function initialOf(word: string): string {
  const first = [...word].find((c) => /\p{L}|\p{N}/u.test(c));
  return first === undefined ? "?" : first.toLocaleUpperCase();
}

/** A picture for an action with no drawn one: `letter` in a rounded frame; the caller sets the letter again when
 * the language changes (`setLetter`). */
export function letteredIcon(letter: string): SVGSVGElement {
  const svg = icon(FRAME, "icon lettered");
  const text = document.createElementNS("http://www.w3.org/2000/svg", "text");
  text.setAttribute("x", "12");
  text.setAttribute("y", "16.3");
  text.setAttribute("text-anchor", "middle");
  text.setAttribute("font-size", "12");
  text.setAttribute("font-weight", "700");
  text.textContent = letter;
  svg.appendChild(text);
  return svg;
}

/** Sets the letter of a lettered picture (`letteredIcon`). */
export function setLetter(svg: SVGSVGElement, letter: string): void {
  const text = svg.querySelector("text");
  if (text && text.textContent !== letter) text.textContent = letter;
}
