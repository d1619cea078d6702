import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { nearIn, sunState } from "../src/sun";
import fixture from "./fixtures/orbits.json";

const orbits = fixture.orbits as Record<string, { near: string; next_change: (number | null)[] }>;

test("the orbit formula gives the engine's near and next change for every orbit of a belt over 100 rounds", () => {
  assert.ok(Object.keys(orbits).length > 20);
  for (const [orbit, want] of Object.entries(orbits)) {
    for (let r = 1; r <= fixture.rounds; r++) {
      const got = sunState(orbit, null, r);
      assert.equal(got.near, want.near[r - 1] === "1", `${orbit} near in round ${r}`);
      assert.equal(got.next_change, want.next_change[r - 1], `${orbit} next change after round ${r}`);
      assert.equal(nearIn(orbit, null, r), got.near);
    }
  }
});

test("an asteroid without an orbit is near only when pinned near, and never changes", () => {
  assert.deepEqual(sunState(null, "near", 4), { near: true, next_change: null });
  assert.deepEqual(sunState(null, "far", 4), { near: false, next_change: null });
  assert.deepEqual(sunState(undefined, null, 1), { near: false, next_change: null });
});
