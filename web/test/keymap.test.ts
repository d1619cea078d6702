import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { KEYMAP, commandFor, helpRows } from "../src/ui/keymap";

test("each key has one command, letters in either case", () => {
  assert.equal(commandFor("d"), "act:drill");
  assert.equal(commandFor("D"), "act:drill");
  assert.equal(commandFor("n"), "next");
  assert.equal(commandFor("N"), "prev"); // Shift+N goes back: the capital has its own command
  assert.equal(commandFor("7"), "move:n");
  assert.equal(commandFor("Enter"), "go");
  assert.equal(commandFor("?"), "help");
  assert.equal(commandFor("x"), null);
  const seen = new Set<string>();
  for (const b of KEYMAP) for (const k of b.keys) {
    assert.ok(!seen.has(k), `${k} bound twice`);
    seen.add(k);
  }
});

test("the help screen lists every command of the table", () => {
  const rows = helpRows();
  const labels = new Set(rows.map(([, label]) => label));
  for (const b of KEYMAP) assert.ok(labels.has(b.label), b.label);
  assert.deepEqual(rows.find(([, l]) => l === "keys.pan")?.[0], "← → ↑ ↓");
  assert.equal(rows.length, labels.size);
});
