import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { localChoices, reactionOf } from "../src/choices";
import { Model } from "../src/model";
import type { GameView } from "../src/types";

const cargo = (ice = 0, iron = 0, carbon = 0, uranium = 0) => ({ ice, iron, carbon, uranium });

function model(): Model {
  const v: GameView = {
    round: 3, status: "running", turn: "s2", winnable: true,
    options: { uranium_fuse: 1, ufos: 0, haywire_gates: false, storm_warning: 2, storm_interval: 10, turns: "strict" },
    asteroids: [
      { id: "Home", exists: true, mantle: 0, core: "hollow", near: false, next_change: null, shelter: true, neighbours: ["Ore", "Hot"], gates: [] },
      { id: "Ore", exists: true, mantle: 1, core: "iron", near: false, next_change: null, neighbours: ["Home"], gates: [] },
      { id: "Hot", exists: true, mantle: 0, core: "uranium", near: false, next_change: null, reacts_at: 5, neighbours: ["Home"], gates: [] },
    ],
    settlers: [
      { id: "s1", at: "Home", alive: true, cargo: cargo(3, 1), gates: [] },
      { id: "s2", at: "Home", alive: true, cargo: cargo(0, 2, 3, 4), gates: [] },
      { id: "s3", at: "Ore", alive: false, cargo: cargo(9), gates: [] },
    ],
    robots: [], ufos: [], gates: [],
    forecasts: [{ round: 5, asteroids: ["Home", "Ore"], sector: [10, 40] }, { round: 4, asteroids: ["Ore"], sector: null }],
  };
  return new Model(v);
}

test("the model pools the cargo of the living settlers on an asteroid and counts what the base lacks", () => {
  const m = model();
  assert.deepEqual(m.pooled("Home"), cargo(3, 3, 3, 4));
  assert.deepEqual(m.missing("Home"), cargo(0, 0, 0, 0));
  assert.deepEqual(m.pooled("Ore"), cargo()); // the dead settler's cargo does not count
  assert.deepEqual(m.occupied(), ["Home"]);
  assert.equal(m.current()?.id, "s2");
});

test("storms: the earliest forecast hitting an asteroid, in rounds from now", () => {
  const m = model();
  assert.equal(m.stormIn("Ore"), 1);
  assert.equal(m.stormIn("Home"), 2);
  assert.equal(m.stormIn("Hot"), undefined);
});

test("a bare reactive core's countdown comes from the view's reacts_at", () => {
  const m = model();
  assert.deepEqual(reactionOf(m, "Hot"), { core: "uranium", effect: "explodes", in_rounds: 2 });
  assert.equal(reactionOf(m, "Ore"), null);
});

test("local choices have the server's shape: moves first, then every action, each legal or refused", () => {
  const c = localChoices(model(), "s2");
  assert.equal(c.settler, "s2");
  assert.equal(c.round, 3);
  assert.deepEqual(c.choices.filter((x) => x.action === "move").map((x) => x.target), ["Ore", "Hot"]);
  assert.deepEqual(c.choices.filter((x) => x.action !== "move").map((x) => x.kind ? `${x.action}:${x.kind}` : x.action),
    ["drill", "mine", "deposit:ice", "deposit:iron", "deposit:carbon", "deposit:uranium", "build_robot", "build_gates", "wait"]);
  const robot = c.choices.find((x) => x.action === "build_robot")!;
  assert.equal(robot.refusal, null);
  assert.equal(c.choices.find((x) => x.action === "drill")!.refusal?.code, "drilled_through");
  assert.deepEqual(c.reactions, { Hot: { core: "uranium", effect: "explodes", in_rounds: 2 } });
  assert.deepEqual(c.storms, [
    { round: 5, in_rounds: 2, in_path: true, sheltered: true },
    { round: 4, in_rounds: 1, in_path: false, sheltered: true },
  ]);
  assert.ok(localChoices(model(), "s1").choices.every((x) => x.refusal?.code === "not_your_turn"));
});
