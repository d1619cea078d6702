// The settler actions as the client offers them: the action bar's slots and their keys, what a lesson may ask
// to press, and each action's fields. GENERATED from the engine's action specs (rules.ACTION_SPECS: each
// action's rule says its fields and its button's key) by `make protocol`; do not edit. A test fails when this
// file is stale.

/** The action bar's buttons, in order: each settler action that has one, and its key (a move is played on the
 * map, or with 1-9). */
export const ACTION_SLOTS = [{"name":"drill","key":"d"},{"name":"mine","key":"m"},{"name":"deposit","key":"e"},{"name":"build_robot","key":"b"},{"name":"build_gates","key":"g"},{"name":"place","key":"p"},{"name":"wait","key":"w"}] as const;
/** An action with a button on the bar. */
export type SlotName = (typeof ACTION_SLOTS)[number]["name"];
/** Every settler action: what a lesson's step may ask to press (`move:ID`, `drill`, `deposit:ice`, ...). */
export const PRESSES = ["move","drill","mine","deposit","build_robot","build_gates","place","wait"] as const;
/** Each settler action's own fields (besides `settler`), as its `act` carries them. */
export const ACTION_FIELDS = {"move":["target"],"drill":[],"mine":[],"deposit":["kind"],"build_robot":["new_id"],"build_gates":["first","second"],"place":["gate"],"wait":[]} as const;
/** A field any settler action takes. */
export type ActionField = (typeof ACTION_FIELDS)[keyof typeof ACTION_FIELDS][number];
/** The fields of a choice that are hints for the player, not the action: the client sends the rest back. */
export const CHOICE_HINTS = ["refusal","danger"] as const;
