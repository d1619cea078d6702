import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { nearestShelter, threats } from "../src/danger";
import { Model } from "../src/model";
import type { GameView } from "../src/types";

const cargo = { ice: 0, iron: 0, carbon: 0, uranium: 0 };

// A path Camp – Mid – Far – Bunker (a shelter) and Hot (bare uranium reacting in round 6) off Camp.
function model(stormRound: number | null): Model {
  const rock = (id: string, neighbours: string[], extra: Record<string, unknown> = {}) =>
    ({ id, exists: true, mantle: 1, core: "iron", near: false, next_change: null, neighbours, gates: [], ...extra });
  const v = {
    round: 4, status: "running", turn: "s1", winnable: true,
    options: { uranium_fuse: 1, ufos: 0, haywire_gates: false, storm_warning: 2, storm_interval: 10, turns: "strict" },
    asteroids: [
      rock("Camp", ["Mid", "Hot"]), rock("Mid", ["Camp", "Far"]), rock("Far", ["Mid", "Bunker"]),
      rock("Bunker", ["Far"], { mantle: 0, core: "hollow", shelter: true }),
      rock("Hot", ["Camp"], { mantle: 0, core: "uranium", reacts_at: 6 }),
    ],
    settlers: [
      { id: "s1", at: "Camp", alive: true, cargo, gates: [] },
      { id: "s2", at: "Hot", alive: true, cargo, gates: [] },
      { id: "s3", at: "Mid", alive: false, cargo, gates: [] },
    ],
    robots: [], ufos: [], gates: [],
    forecasts: stormRound === null ? [] : [{ round: stormRound, asteroids: ["Camp", "Mid", "Bunker"], sector: null }],
  } as unknown as GameView;
  return new Model(v);
}

test("the nearest shelter is found within the hops a settler has, and not beyond", () => {
  const m = model(null);
  assert.equal(nearestShelter(m, "Camp", 3), "Bunker");
  assert.equal(nearestShelter(m, "Camp", 2), null);
  assert.equal(nearestShelter(m, "Far", 1), "Bunker");
});

test("a storm over a settler that is not sheltered is a threat naming the shelter it can reach in time", () => {
  // the storm comes at the end of round 6: two rounds from now, three steps (this one and two more)
  const got = threats(model(6), ["s1", "s3"]);
  assert.deepEqual(got, [{ kind: "storm", settler: "s1", at: "Camp", rounds: 2, shelter: "Bunker" }]);
  // at the end of this round: one step, no shelter in reach
  assert.deepEqual(threats(model(4), ["s1"])[0]?.shelter, null);
  // a settler on a shelter, or a dead one, is not threatened; the others' settlers are not this player's
  assert.deepEqual(threats(model(4), ["s3"]), []);
});

test("a bare uranium core that reacts soon is a threat to whoever stands on it, the soonest first", () => {
  const got = threats(model(7), ["s1", "s2"]);
  assert.deepEqual(got.map((x) => [x.kind, x.settler, x.rounds]), [["explosion", "s2", 2], ["storm", "s1", 3]]);
  assert.deepEqual(threats(model(null), ["s1"]), []);
});
