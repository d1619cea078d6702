// The client's mirror of rules/refusals.py: for the settler whose step it is, every action the action bar
// offers, each either legal or refused with the engine's refusal code and the numbers its sentence needs.
// The server stays the judge (it refuses with the same codes); this only lets the screen explain in advance.

import type { Model } from "./model";
import { CARGO_LIMIT, GATES_COST, KINDS, type Kind, REACTIVE, ROBOT_COST } from "./types";

import type { Choice, Danger, Refusal } from "./choices";

function refuse(code: string, params: Record<string, unknown> = {}): Refusal {
  return { code, params };
}

function lacking(cargo: Record<Kind, number>, cost: Readonly<Partial<Record<Kind, number>>>): string[] {
  const out: string[] = [];
  for (const k of KINDS) {
    const need = cost[k] ?? 0;
    if (cargo[k] < need) out.push(`${need - cargo[k]} ${k}`);
  }
  return out;
}

/** The refusal the rules would give, before any action-specific check (R16a, R10, R9a). */
function general(model: Model, settler: string): Refusal | null {
  const v = model.view;
  if (v.status !== "running") return refuse("game_over", { status: v.status });
  const s = model.settlers.get(settler);
  if (!s) return refuse("unknown_actor", { actor: settler });
  if (!s.alive) return refuse("dead", { actor: settler });
  if (v.options.turns === "strict" && v.turn !== settler) return refuse("not_your_turn", { turn: v.turn ?? "" });
  return null;
}

/** Why `settler` may not move to `target` (an asteroid or a gate), or null. */
export function checkMove(model: Model, settler: string, target: string): Refusal | null {
  const g = general(model, settler);
  if (g) return g;
  const s = model.settlers.get(settler)!;
  const here = model.asteroids.get(s.at ?? "");
  const a = model.asteroids.get(target);
  if (a) {
    if (!a.exists) return refuse("exploded", { target });
    if (here && a.id === here.id) return refuse("already_here", { target });
    if (!here?.neighbours?.includes(target)) return refuse("not_neighbour", { target, here: here?.id ?? "" });
    return null;
  }
  const gate = model.gates.get(target);
  if (!gate) return refuse("no_such_target", { target });
  if (!gate.exists) return refuse("gate_destroyed", { gate: target });
  if (gate.at !== here?.id) return refuse("gate_elsewhere", { gate: target, here: here?.id ?? "" });
  if (!gate.active) return refuse("gate_inactive", { gate: target, partner: gate.partner });
  return null;
}

/** Every action the bar shows for `settler`, legal or not, in the bar's order (moves excluded). */
export function choices(model: Model, settler: string): Choice[] {
  const s = model.settlers.get(settler);
  const out: Choice[] = [];
  const g = general(model, settler);
  const here = s && s.at ? model.asteroids.get(s.at) : undefined;
  const mantle = here?.mantle ?? 0;
  const core = here?.core ?? "unknown";
  const cargo = s?.cargo ?? { ice: 0, iron: 0, carbon: 0, uranium: 0 };
  const total = KINDS.reduce((n, k) => n + (cargo[k] ?? 0), 0);
  const add = (c: Omit<Choice, "refusal">, own: Refusal | null): void => {
    out.push({ ...c, refusal: g ?? own });
  };

  // drill (R11)
  let danger: Danger | undefined;
  if (here && mantle === 1 && (core === "ice" || core === "uranium") && REACTIVE.has(core)) {
    if (here.near) danger = { core, in_rounds: 0 };
    else if (here.next_change != null && here.next_change - model.round <= 2) {
      danger = { core, in_rounds: here.next_change - model.round };
    }
  }
  add({ action: "drill", ...(danger ? { danger } : {}) },
    mantle === 0 ? refuse("drilled_through", { here: here?.id ?? "" }) : null);

  // mine (R11)
  let mine: Refusal | null = null;
  if (mantle > 0) mine = refuse("mantle_left", { here: here?.id ?? "", n: mantle });
  else if (core === "hollow") mine = refuse("core_hollow", { here: here?.id ?? "" });
  else if (total >= CARGO_LIMIT) mine = refuse("cargo_full", { limit: CARGO_LIMIT });
  add({ action: "mine" }, mine);

  // deposit, one per kind (R11)
  for (const kind of KINDS) {
    let r: Refusal | null = null;
    if (mantle > 0) r = refuse("deposit_mantle_left", { here: here?.id ?? "", n: mantle });
    else if (core !== "hollow") r = refuse("core_not_hollow", { here: here?.id ?? "", core });
    else if ((cargo[kind] ?? 0) === 0) r = refuse("not_carried", { kind });
    add({ action: "deposit", kind }, r);
  }

  // build robot, build gates (R11)
  const robotLack = lacking(cargo, ROBOT_COST);
  add({ action: "build_robot" }, robotLack.length ? refuse("missing_materials", { what: "robot", lack: robotLack.join(",") }) : null);
  let gates: Refusal | null = null;
  if (s && s.gates.length) gates = refuse("carries_gates", { gates: s.gates.join(", ") });
  else {
    const gateLack = lacking(cargo, GATES_COST);
    if (gateLack.length) gates = refuse("missing_materials", { what: "gates", lack: gateLack.join(",") });
  }
  add({ action: "build_gates" }, gates);

  // place, one per carried gate (R11); with none carried, one refused entry explains
  if (s && s.gates.length) {
    for (const gid of s.gates) {
      const gate = model.gates.get(gid);
      const partner = gate ? model.gates.get(gate.partner) : undefined;
      const r = partner && partner.at === here?.id ? refuse("partner_here", { gate: gid, partner: partner.id }) : null;
      add({ action: "place", gate: gid }, r);
    }
  } else {
    add({ action: "place" }, refuse("no_gate_carried", {}));
  }

  add({ action: "wait" }, null);
  return out;
}

/** Move destinations of `settler`: its asteroid's neighbours, then the gates orbiting it. */
export function destinations(model: Model, settler: string): Choice[] {
  const s = model.settlers.get(settler);
  const here = s && s.at ? model.asteroids.get(s.at) : undefined;
  if (!here) return [];
  const out: Choice[] = [];
  for (const n of here.neighbours ?? []) out.push({ action: "move", target: n, refusal: checkMove(model, settler, n) });
  for (const gid of here.gates ?? []) out.push({ action: "move", target: gid, refusal: checkMove(model, settler, gid) });
  return out;
}
