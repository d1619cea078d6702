// The game screen's keyboard shortcuts as one table: the key handler looks keys up in it and the help screen
// lists it, so the two cannot disagree. The actions' keys are the generated action table's (from the engine's
// action specs, as the action bar's buttons): a new action comes with its key.

import { ACTION_SLOTS, type SlotName } from "../generated/actions";

/** What a key does on the game screen. */
export type Command =
  | `act:${SlotName}`
  | "move:n" | "next" | "prev" | "go"
  | "pan:left" | "pan:right" | "pan:up" | "pan:down" | "zoom:in" | "zoom:out"
  | "centre" | "fit" | "lang" | "help" | "close";

export interface Binding {
  /** The `KeyboardEvent.key` values that run the command (letters match in either case unless listed). */
  keys: readonly string[];
  /** How the help screen writes the keys. */
  shown: string;
  /** The translation key of what the command does. */
  label: string;
  command: Command;
}

export const KEYMAP: readonly Binding[] = [
  ...ACTION_SLOTS.map(({ name, key }): Binding => (
    { keys: [key], shown: key.toUpperCase(), label: `action.${name}`, command: `act:${name}` })),
  { keys: ["1", "2", "3", "4", "5", "6", "7", "8", "9"], shown: "1–9", label: "keys.move_n", command: "move:n" },
  { keys: ["n", "]"], shown: "N / ]", label: "keys.next", command: "next" },
  { keys: ["N", "["], shown: "Shift+N / [", label: "keys.prev", command: "prev" },
  { keys: ["Enter", "v"], shown: "Enter / V", label: "keys.go", command: "go" },
  { keys: ["ArrowLeft"], shown: "←", label: "keys.pan", command: "pan:left" },
  { keys: ["ArrowRight"], shown: "→", label: "keys.pan", command: "pan:right" },
  { keys: ["ArrowUp"], shown: "↑", label: "keys.pan", command: "pan:up" },
  { keys: ["ArrowDown"], shown: "↓", label: "keys.pan", command: "pan:down" },
  { keys: ["+", "="], shown: "+", label: "keys.zoom", command: "zoom:in" },
  { keys: ["-", "_"], shown: "−", label: "keys.zoom", command: "zoom:out" },
  { keys: ["c"], shown: "C", label: "keys.centre", command: "centre" },
  { keys: ["f"], shown: "F", label: "keys.fit", command: "fit" },
  { keys: ["l"], shown: "L", label: "keys.lang", command: "lang" },
  { keys: ["h", "?"], shown: "H / ?", label: "keys.help", command: "help" },
  { keys: ["Escape"], shown: "Esc", label: "keys.close", command: "close" },
];

const exact = new Map<string, Command>();
const folded = new Map<string, Command>();
for (const b of KEYMAP) {
  for (const k of b.keys) {
    exact.set(k, b.command);
    // A single lower-case letter also answers to its capital, unless the capital has a command of its own.
    if (k.length === 1 && k >= "a" && k <= "z") folded.set(k.toUpperCase(), b.command);
  }
}

/** The command of a key, or null. */
export function commandFor(key: string): Command | null {
  return exact.get(key) ?? folded.get(key) ?? null;
}

/** The help screen's rows: keys as shown and what they do, one row per label (the four arrows are one row). */
export function helpRows(): [string, string][] {
  const rows: [string, string][] = [];
  const seen = new Map<string, number>();
  for (const b of KEYMAP) {
    const at = seen.get(b.label);
    if (at !== undefined && b.label === "keys.pan") {
      rows[at] = [`${rows[at]![0]} ${b.shown}`, b.label];
      continue;
    }
    if (at !== undefined && b.label === "keys.zoom") {
      rows[at] = [`${rows[at]![0]} / ${b.shown}`, b.label];
      continue;
    }
    seen.set(b.label, rows.length);
    rows.push([b.shown, b.label]);
  }
  return rows;
}
