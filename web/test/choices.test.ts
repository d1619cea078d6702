import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Choice, type Choices, actOf, choiceFor, reactionOf } from "../src/choices";
import { ACTION_FIELDS, ACTION_SLOTS, CHOICE_HINTS, PRESSES } from "../src/generated/actions";
import { Model } from "../src/model";
import type { GameView } from "../src/types";
import { commandFor } from "../src/ui/keymap";

const refused = { code: "core_hollow", params: { asteroid: "Home" } };

/** A settler's choices as the server sends them (`Game.choices(...).to_json()`). */
const choices: Choices = {
  settler: "s1",
  round: 3,
  refusal: null,
  choices: [
    { action: "move", target: "Ore", refusal: null },
    { action: "move", target: "g1", refusal: { code: "gate_inactive", params: { gate: "g1" } } },
    { action: "drill", refusal: null, danger: { core: "ice", in_rounds: 0 } },
    { action: "mine", refusal: refused },
    { action: "deposit", kind: "ice", refusal: { code: "cargo_empty", params: { kind: "ice" } } },
    { action: "deposit", kind: "iron", refusal: null },
    { action: "deposit", kind: "uranium", refusal: null },
    { action: "build_robot", refusal: null },
    { action: "build_gates", refusal: null },
    { action: "place", gate: "g1", refusal: { code: "gate_here", params: { gate: "g1" } } },
    { action: "place", gate: "g2", refusal: null },
    { action: "wait", refusal: null },
  ],
  reactions: { Ore: { core: "ice", effect: "sublimates", in_rounds: 1 } },
  storms: [],
};
const all = choices.choices as Choice[];

test("an act is the offered entry as it came, every field but the player's hints", () => {
  const drill = all.find((c) => c.action === "drill")!;
  assert.deepEqual(actOf("s1", drill), { settler: "s1", action: "drill" }); // its danger is a hint, not the act
  assert.deepEqual(actOf("s1", all[0]!), { settler: "s1", action: "move", target: "Ore" });
  assert.deepEqual(actOf("s1", all[5]!), { settler: "s1", action: "deposit", kind: "iron" });
  const gates = { action: "build_gates", first: "ga", second: "gb", refusal: null } as Choice;
  assert.deepEqual(actOf("s2", gates), { settler: "s2", action: "build_gates", first: "ga", second: "gb" });
  // a field the client has never heard of (a new action's) goes back too: nothing is rebuilt field by field
  const future = { action: "wait", refusal: null, beacon: "b7" } as unknown as Choice;
  assert.deepEqual(actOf("s1", future), { settler: "s1", action: "wait", beacon: "b7" });
  for (const hint of CHOICE_HINTS) for (const c of all) assert.ok(!(hint in actOf("s1", c)), hint);
});

test("a button plays its action's entry: deposit the first accepted kind (or the asked one), place a placeable gate", () => {
  assert.equal(choiceFor(all, "drill"), all[2]);
  assert.equal(choiceFor(all, "deposit")?.kind, "iron"); // ice is refused: the first the rules accept
  assert.equal(choiceFor(all, "deposit", "ice")?.refusal?.code, "cargo_empty");
  assert.equal(choiceFor(all, "deposit", "carbon"), undefined);
  assert.equal(choiceFor(all, "place")?.gate, "g2");
  assert.equal(choiceFor(all.filter((c) => c.gate !== "g2"), "place")?.gate, "g1"); // refused, still the one shown
  assert.equal(choiceFor(all.filter((c) => c.action !== "place"), "place"), undefined);
  const onlyRefused = all.filter((c) => c.action !== "deposit" || c.kind === "ice");
  assert.equal(choiceFor(onlyRefused, "deposit")?.kind, "ice");
});

function model(): Model {
  const v: GameView = {
    round: 3, status: "running", turn: "s1", winnable: true,
    options: { uranium_fuse: 1, ufos: 0, haywire_gates: false, storm_warning: 2, storm_interval: 10, turns: "strict" },
    asteroids: [
      { id: "Home", exists: true, mantle: 0, core: "hollow", near: false, next_change: null, neighbours: ["Ore"], gates: [] },
      { id: "Ore", exists: true, mantle: 0, core: "ice", near: false, next_change: null, reacts_at: 9, neighbours: ["Home"], gates: [] },
      { id: "Far", exists: true, mantle: 0, core: "ice", near: false, next_change: null, reacts_at: 6, neighbours: [], gates: [] },
      { id: "Rock", exists: true, mantle: 0, core: "iron", near: false, next_change: null, reacts_at: 4, neighbours: [], gates: [] },
    ],
    settlers: [{ id: "s1", at: "Home", alive: true, cargo: { ice: 0, iron: 1, carbon: 0, uranium: 1 }, gates: ["g1", "g2"] }],
    robots: [], ufos: [], gates: [], forecasts: [],
  };
  return new Model(v);
}

test("a reaction is the server's word where its choices say one, else the view's round and the rules' table", () => {
  const m = model();
  assert.deepEqual(reactionOf(m, "Ore", choices.reactions), { core: "ice", effect: "sublimates", in_rounds: 1 });
  assert.deepEqual(reactionOf(m, "Ore"), { core: "ice", effect: "sublimates", in_rounds: 6 });
  assert.deepEqual(reactionOf(m, "Far", choices.reactions), { core: "ice", effect: "sublimates", in_rounds: 3 });
  assert.equal(reactionOf(m, "Rock"), null); // iron does not react, whatever a record says
  assert.equal(reactionOf(m, "Home", choices.reactions), null);
  assert.equal(reactionOf(m, "Nowhere"), null);
});

test("the generated action table gives every settler action its press, and each button its key", () => {
  assert.deepEqual([...PRESSES].sort(), Object.keys(ACTION_FIELDS).sort());
  assert.ok(PRESSES.includes("move") && !ACTION_SLOTS.some((s) => (s.name as string) === "move"));
  assert.deepEqual(ACTION_SLOTS.map((s) => s.name), PRESSES.filter((p) => p !== "move"));
  for (const { name, key } of ACTION_SLOTS) {
    assert.equal(commandFor(key), `act:${name}`);
    assert.equal(commandFor(key.toUpperCase()), `act:${name}`);
  }
  assert.deepEqual(ACTION_FIELDS.deposit, ["kind"]);
  assert.deepEqual(new Set(ACTION_SLOTS.map((s) => s.key)).size, ACTION_SLOTS.length);
});
