import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import { setLang } from "../src/i18n";
import { Model } from "../src/model";
import { dangerText, needsConfirm, outcomeOf, warningHere } from "../src/outcome";
import type { GameView } from "../src/types";

// setLang marks the page's language on the document: a stand-in for it under Node.
(globalThis as Record<string, unknown>).document ??= { documentElement: { lang: "en" } };

const cargo = (ice = 0, iron = 0, carbon = 0, uranium = 0) => ({ ice, iron, carbon, uranium });

/** A view in round 3: s1 on Frost (bare ice reacting at the end of round `reacts`), Rock beside it. */
function model(reacts: number | null, core: "ice" | "uranium" | "hollow" = "ice"): Model {
  const v: GameView = {
    round: 3, status: "running", turn: "s1", winnable: true,
    options: { uranium_fuse: 1, ufos: 0, haywire_gates: false, storm_warning: 2, storm_interval: 10, turns: "strict" },
    asteroids: [
      { id: "Frost", exists: true, mantle: 0, core, near: false, next_change: null, reacts_at: reacts, neighbours: ["Rock"], gates: [] },
      { id: "Rock", exists: true, mantle: 2, core: "iron", near: false, next_change: null, neighbours: ["Frost"], gates: [] },
    ],
    settlers: [{ id: "s1", at: "Frost", alive: true, cargo: cargo(2, 1), gates: [] }],
    robots: [], ufos: [], gates: [], forecasts: [],
  };
  return new Model(v);
}

test("a drill done says what changed, in green, and marks the asteroid drilled", () => {
  setLang("en");
  const out = outcomeOf([{ type: "drilled", actor: "s1", asteroid: "Rock", before: 2, after: 1 }], "s1", model(null));
  assert.deepEqual(out.parts, [{ text: "Drilled: Rock's mantle 2 → 1.", tone: "done" }]);
  assert.equal(out.at, "Rock");
});

test("a drill through names the core it bared, even when the Sun took it in the same step, and tells that too", () => {
  setLang("en");
  const events = [
    { type: "drilled", actor: "s1", asteroid: "Frost", before: 1, after: 0 },
    { type: "sublimated", asteroid: "Frost" },
  ];
  const out = outcomeOf(events, "s1", model(null, "hollow"));
  assert.equal(out.parts[0]!.text, "Drilled through Frost: its ice core is bare.");
  assert.equal(out.parts[0]!.tone, "done");
  assert.deepEqual(out.parts[1], { text: "The ice of Frost boiled away in the Sun.", tone: "news" });
});

test("a drill that bares a core the Sun reaches rounds later says when, without a warning's urgency", () => {
  setLang("en");
  const drilled = [{ type: "drilled", actor: "s1", asteroid: "Frost", before: 1, after: 0 }];
  const later = outcomeOf(drilled, "s1", model(9));
  assert.deepEqual(later.parts.map((p) => p.tone), ["done", "note"]);
  assert.equal(later.parts[1]!.text, "Frost's ice will boil away near the Sun in 6 rounds.");
  // two rounds ahead or closer, the warning under the settler tells it (with what to do): not said twice
  assert.deepEqual(outcomeOf(drilled, "s1", model(5)).parts.map((p) => p.tone), ["done"]);
});

test("mining counts the hold after it; a move names where it went; others' events are not the player's", () => {
  setLang("en");
  const mined = outcomeOf([{ type: "mined", actor: "s1", kind: "ice", asteroid: "Frost" }], "s1", model(null));
  assert.equal(mined.parts[0]!.text, "Mined ice on Frost (cargo 3/10).");
  const moved = outcomeOf([{ type: "moved", actor: "s1", origin: "Rock", target: "Frost" }], "s1", model(null));
  assert.equal(moved.parts[0]!.text, "Flew to Frost.");
  assert.equal(moved.at, "Frost");
  const other = outcomeOf([{ type: "moved", actor: "robot1", origin: "Rock", target: "Frost" }], "s1", model(null));
  assert.deepEqual(other.parts, []);
  setLang("hu");
  assert.equal(outcomeOf([{ type: "waited", actor: "s1" }], "s1", model(null)).parts[0]!.text, "Ebben a lépésben várakoztál.");
  setLang("en");
});

test("a drill asks twice only when the bare core would react before the driller could mine it", () => {
  assert.equal(needsConfirm({ core: "ice", in_rounds: 0 }), true);
  assert.equal(needsConfirm({ core: "uranium", in_rounds: 1 }), true);
  assert.equal(needsConfirm({ core: "ice", in_rounds: 2 }), false);
  assert.equal(needsConfirm({ core: "ice", in_rounds: 7 }), false);
  setLang("en");
  assert.match(dangerText({ core: "ice", in_rounds: 7 }, "B"), /boils away when B nears the Sun in 7 rounds: mine it before then/);
  assert.match(dangerText({ core: "uranium", in_rounds: 0 }, "B"), /explodes at once/);
});

test("the warning about the bare core under the settler comes two rounds ahead, and says what to do", () => {
  setLang("en");
  assert.equal(warningHere(model(6), "s1", true), null); // 3 rounds ahead: not yet
  assert.equal(warningHere(model(5), "s1", true), "Frost's ice will boil away near the Sun in 2 rounds: mine it now.");
  assert.equal(warningHere(model(3), "s1", true), "Frost's ice will boil away near the Sun at the end of this round: mine it now.");
  assert.equal(warningHere(model(4), "s1", false), "Frost's ice will boil away near the Sun at the end of the next round.");
  assert.match(warningHere(model(4, "uranium"), "s1", false) ?? "", /explodes .* fly away before then/);
  assert.equal(warningHere(model(null), "s1", true), null);
  setLang("hu");
  assert.equal(warningHere(model(5), "s1", true), "Frost vízjege 2 kör múlva elpárolog a napközelben: bányászd ki most!");
  setLang("en");
});
