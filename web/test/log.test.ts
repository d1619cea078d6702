import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { eventSettlers, groupByRound } from "../src/ui/log";

test("steps fold into rounds in seq order, whatever order they came in, each once", () => {
  const steps = [
    { seq: 2, events: [{ type: "waited", actor: "s2" }, { type: "round", round: 2 }] },
    { seq: 1, events: [{ type: "moved", actor: "s1" }] },
    { seq: 3, events: [{ type: "drilled", actor: "s1" }] },
    { seq: 2, events: [{ type: "waited", actor: "s2" }, { type: "round", round: 2 }] },
  ];
  const groups = groupByRound(steps);
  assert.deepEqual(groups.map((g) => [g.round, g.events.map((e) => e.type)]), [[1, ["moved", "waited"]], [2, ["drilled"]]]);
});

test("a round just begun is shown empty; nothing is dropped, however many events a step has", () => {
  const many = Array.from({ length: 12 }, (_, i) => ({ type: "waited", actor: `s${i + 1}` }));
  const groups = groupByRound([{ seq: 1, events: [...many, { type: "round", round: 2 }] }]);
  assert.equal(groups[0]!.events.length, 12);
  assert.deepEqual(groups[1], { round: 2, events: [] });
});

test("the settlers an event is about", () => {
  assert.deepEqual(eventSettlers({ type: "died", actor: "s3", asteroid: "A", cause: "storm" }), ["s3"]);
  assert.deepEqual(eventSettlers({ type: "moved", actor: "robot1" }), []);
  assert.deepEqual(eventSettlers({ type: "storm", asteroids: ["A"] }), []);
});
