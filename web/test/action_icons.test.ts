import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { ACTION_SLOTS } from "../src/generated/actions";
import { initialOf, pictureOf } from "../src/ui/action_icons";
import { ICONS } from "../src/ui/dom";

test("the engine's actions keep their drawn pictures", () => {
  const drawn = Object.fromEntries(ACTION_SLOTS.map(({ name }) => [name, pictureOf(name)]));
  assert.deepEqual(drawn, {
    drill: ICONS.drill, mine: ICONS.mine, deposit: ICONS.deposit, build_robot: ICONS.robot,
    build_gates: ICONS.gates, place: ICONS.place, wait: ICONS.wait,
  });
});

test("an action without a drawn picture gets the initial of its word", () => {
  assert.equal(pictureOf("scan"), null);
  assert.equal(pictureOf("move"), null); // no button at all: played on the map
  assert.equal(initialOf("Scan"), "S");
  assert.equal(initialOf("szkennelés"), "S");
  assert.equal(initialOf("építés"), "É");
  assert.equal(initialOf("  „Ölts” "), "Ö"); // the first letter, past spaces and quotes
  assert.equal(initialOf("3D scan"), "3");
  assert.equal(initialOf(""), "?");
  assert.equal(initialOf("…"), "?");
});
