import assert from "node:assert/strict";
import { test } from "node:test";
import { HANDOVER_BUDGET_MS, QualityGovernor, WINDOW } from "../src/render/quality";
import { Tweens } from "../src/render/tween";

/** Feeds `n` frames whose hand-over cost `ms` each; the changes it announced. */
function feed(g: QualityGovernor, n: number, ms: number) {
  const changes = [];
  for (let i = 0; i < n; i++) {
    const next = g.record(ms);
    if (next) changes.push(next);
  }
  return changes;
}

test("a screen of pixel ratio 2 whose frames are costly to hand over steps down to 1.5, 1, then no pulse", () => {
  const g = new QualityGovernor(2);
  assert.deepEqual(g.quality, { resolution: 2, pulse: true });
  const changes = feed(g, 200, HANDOVER_BUDGET_MS * 3);
  assert.deepEqual(changes, [
    { resolution: 1.5, pulse: true },
    { resolution: 1, pulse: true },
    { resolution: 1, pulse: false },
  ]);
  assert.ok(g.settled);
  assert.equal(g.record(1000), null);
});

test("cheap hand-overs (a GPU) keep the sharpest drawing and the pulse", () => {
  const g = new QualityGovernor(3);
  assert.deepEqual(g.quality, { resolution: 2, pulse: true });
  assert.deepEqual(feed(g, 200, 2), []);
  assert.deepEqual(g.quality, { resolution: 2, pulse: true });
  assert.ok(!g.settled);
});

test("a step needs the median of a whole window over the budget, not a few slow frames", () => {
  const g = new QualityGovernor(2);
  feed(g, 4, 100); // the first frames of a screen do not count
  const slow = WINDOW / 2 - 1;
  for (let round = 0; round < 5; round++) {
    assert.deepEqual(feed(g, slow, 500), []);
    assert.deepEqual(feed(g, WINDOW - slow, 1), []);
  }
  assert.deepEqual(g.quality, { resolution: 2, pulse: true });
});

test("a screen of pixel ratio 1 can only stop the pulse; odd ratios start where they are", () => {
  const one = new QualityGovernor(1);
  assert.deepEqual(feed(one, 100, 50), [{ resolution: 1, pulse: false }]);
  const odd = new QualityGovernor(1.25);
  assert.deepEqual(odd.quality, { resolution: 1.25, pulse: true });
  assert.deepEqual(feed(odd, 100, 50), [{ resolution: 1, pulse: true }, { resolution: 1, pulse: false }]);
  assert.deepEqual(new QualityGovernor(0).quality, { resolution: 1, pulse: true });
});

test("a tween that starts tells the scene (which then draws frames until it ends)", () => {
  const tweens = new Tweens();
  let started = 0;
  tweens.onStart = () => started++;
  const seen: number[] = [];
  tweens.add(100, (p) => seen.push(p));
  assert.equal(started, 1);
  assert.ok(tweens.busy);
  tweens.tick(50);
  tweens.tick(60);
  assert.ok(!tweens.busy);
  assert.equal(seen.at(-1), 1);
  tweens.reducedMotion = true;
  tweens.add(100, () => {});
  assert.equal(started, 1, "with reduced motion a tween ends at once: no frames to draw");
});
