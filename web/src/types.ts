// The JSON the server sends, as the client keeps it. The records, messages and the rules' constants are the
// generated protocol (protocol.ts, from the server's schemas); this file adds what the client derives itself:
// each asteroid's `near` and `next_change` (the server leaves them out: `withSun` in net.ts), and events whose
// fields can be read by name whatever their kind.

import type {
  ActMessage as ProtocolAct,
  Asteroid,
  GameEvent as ProtocolEvent,
  Cargo as ProtocolCargo,
  GameView as ProtocolView,
  ForecastRecord,
  GateRecord,
  Options as ProtocolOptions,
  RobotRecord,
  SettlerRecord,
  UfoRecord,
} from "./protocol";

export type { Kind } from "./protocol";
export { CARGO_LIMIT, GATES_COST, KINDS, REACTIONS, REACTIVE, ROBOT_COST, WIN_TARGET } from "./protocol";

/** A field of any kind of event. */
export type EventField = ProtocolEvent extends infer E ? (E extends unknown ? keyof E : never) : never;

/** An event: the protocol's union, one type per kind (`switch (e.type)` narrows it), where a field of another
 * kind may be read too (`e.actor` of any event): it is `undefined` for a kind that does not have it. */
export type GameEvent = ProtocolEvent extends infer E
  ? E extends unknown ? E & { readonly [K in Exclude<EventField, keyof E>]?: undefined } : never
  : never;

export type Core = Asteroid["core"];
export type Cargo = ProtocolCargo;

/** An asteroid of the view, destroyed or not, with the sun state the client derives from its orbit (R5). */
export type AsteroidView = Partial<Omit<Asteroid, "id" | "exists">> & {
  id: string;
  exists: boolean;
  near?: boolean;
  next_change?: number | null;
};

export type SettlerView = SettlerRecord;
export type RobotView = RobotRecord;
export type UfoView = UfoRecord;
export type GateView = GateRecord;
export type ForecastView = ForecastRecord;
export type Options = ProtocolOptions;
/** The rules' status, or `abandoned`: a player, or the server after `max_game_rounds` rounds, ended the game (the server says so; the view is over as well). */
export type Status = ProtocolView["status"] | "abandoned";

/** The public view (R17) of a game, its asteroids with their derived sun state. */
export type GameView = Omit<ProtocolView, "asteroids" | "status"> & { asteroids: AsteroidView[]; status: Status };

/** What the client sends to act: one message per settler action, each with that action's fields. */
export type ActMessage = ProtocolAct;
