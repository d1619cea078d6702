import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyDiff, withSun } from "../src/net";
import type { GameView } from "../src/types";

function view(): GameView {
  return withSun({
    round: 1, status: "running", turn: "s1", winnable: true,
    options: { uranium_fuse: 1, ufos: 0, haywire_gates: false, storm_warning: 2, storm_interval: 10, turns: "strict" },
    asteroids: [
      { id: "A", exists: true, mantle: 2, core: "unknown", orbit: "4/1/0", neighbours: ["B"] },
      { id: "B", exists: true, mantle: 0, core: "ice", orbit: "4/1/3", neighbours: ["A"] },
    ],
    settlers: [{ id: "s1", at: "A", alive: true, cargo: { ice: 0, iron: 0, carbon: 0, uranium: 0 }, gates: [] }],
    robots: [], ufos: [], gates: [], forecasts: [],
  });
}

test("a state's asteroids get their sun state for its round", () => {
  const v = view();
  assert.equal(v.asteroids[0]!.near, true); // (1 - 1 + 0) mod 4 < 1
  assert.equal(v.asteroids[0]!.next_change, 2);
  assert.equal(v.asteroids[1]!.near, false);
  assert.equal(v.asteroids[1]!.next_change, 2);
});

test("a diff replaces changed records by id, appends new ones and keeps the rest", () => {
  const v = view();
  const next = applyDiff(v, {
    round: 1, status: "running", turn: "s1", winnable: true,
    asteroids: [{ id: "A", exists: true, mantle: 1, core: "unknown", orbit: "4/1/0", neighbours: ["B"] }],
    robots: [{ id: "robot1", at: "A", alive: true }],
  });
  assert.equal(next.asteroids[0]!.mantle, 1);
  assert.equal(next.asteroids[0]!.near, true); // the changed record gets its sun state too
  assert.equal(next.asteroids[1], v.asteroids[1]); // untouched: the same object
  assert.deepEqual(next.robots.map((r) => r.id), ["robot1"]);
  assert.equal(next.settlers, v.settlers);
  assert.equal(v.asteroids[0]!.mantle, 2); // views are never mutated
});

test("a new round moves every asteroid's sun state on, and the top fields come from the diff", () => {
  const next = applyDiff(view(), { round: 2, status: "won", turn: null, winnable: false, forecasts: [] });
  assert.deepEqual(next.asteroids.map((a) => [a.near, a.next_change]), [[false, 5], [true, 3]]);
  assert.equal(next.status, "won");
  assert.equal(next.turn, null);
  assert.equal(next.winnable, false);
});
