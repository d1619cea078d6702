import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { nearIn, reactsAt, sunState } from "../src/sun";
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

test("a bare reactive core reacts at the end of the round before its orbit brings it near", () => {
  const a = { id: "A", exists: true, mantle: 0, core: "ice" as const, orbit: "6/3/3", exposures: 0 };
  assert.equal(reactsAt(a, 1, 1), 3); // near in round 4: sublimates at the end of round 3
  assert.equal(reactsAt({ ...a, core: "uranium" }, 1, 1), 3);
  // a fuse of 3 counts once at each round end that finds it near: rounds 4, 5, 6 → explodes at the end of 5
  assert.equal(reactsAt({ ...a, core: "uranium" }, 1, 3), 5);
  assert.equal(reactsAt({ ...a, core: "uranium", exposures: 2 }, 1, 3), 3);
  assert.equal(reactsAt({ ...a, mantle: 1 }, 1, 1), null);
  assert.equal(reactsAt({ ...a, core: "iron" }, 1, 1), null);
  assert.equal(reactsAt({ ...a, orbit: "5/0/0" }, 1, 1), null);
  assert.equal(reactsAt({ ...a, orbit: null, pinned: "near" }, 7, 1), 7);
  assert.equal(reactsAt({ ...a, orbit: null, pinned: "far" }, 7, 1), null);
});
