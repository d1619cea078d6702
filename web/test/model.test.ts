import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Choices, actions, moves, reactionOf, viewMoves } from "../src/choices";
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

test("a screen without a settler's choices shows its neighbours and gates from the view, judging none", () => {
  const moves = viewMoves(model(), "s2");
  assert.deepEqual(moves, [
    { action: "move", target: "Ore", refusal: null },
    { action: "move", target: "Hot", refusal: null },
  ]);
  assert.deepEqual(viewMoves(model(), "s3"), []); // dead: nowhere
});

test("the server's choices split into moves and the action bar's entries", () => {
  const c: Choices = {
    settler: "s2", round: 3, reactions: {}, storms: [],
    choices: [
      { action: "move", target: "Ore", refusal: null },
      { action: "drill", refusal: { code: "drilled_through", params: { actor: "s2", asteroid: "Home" } } },
      { action: "wait", refusal: null },
    ],
  };
  assert.deepEqual(moves(c).map((x) => x.target), ["Ore"]);
  assert.deepEqual(actions(c).map((x) => x.action), ["drill", "wait"]);
  assert.deepEqual(moves(null), []);
});
