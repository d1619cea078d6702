// The JSON the server sends: the public view of a game (rules/view.py), its events (rules/events.py)
// and the messages of the play protocol (server/). Kept as plain data: the client never mutates a view.

export type Kind = "ice" | "iron" | "carbon" | "uranium";
export type Core = Kind | "hollow" | "unknown";
export const KINDS: readonly Kind[] = ["ice", "iron", "carbon", "uranium"];

/** Named constants of the rules (materials.py). */
export const CARGO_LIMIT = 10;
export const GATE_LIMIT = 2;
export const WIN_TARGET = 3;
export const ROBOT_COST: Readonly<Partial<Record<Kind, number>>> = { iron: 1, carbon: 1, uranium: 1 };
export const GATES_COST: Readonly<Partial<Record<Kind, number>>> = { iron: 2, ice: 1, uranium: 1 };
/** Materials that react when exposed near the Sun (R6). */
export const REACTIVE: ReadonlySet<string> = new Set(["ice", "uranium"]);

export type Cargo = Record<Kind, number>;

export interface AsteroidView {
  id: string;
  exists: boolean;
  mantle?: number;
  core?: Core;
  surveyed?: boolean;
  near?: boolean;
  next_change?: number | null;
  /** The round at whose end an exposed reactive core reacts (null: its orbit never brings it near). */
  reacts_at?: number | null;
  orbit?: string | null;
  pinned?: string | null;
  position?: [number, number] | null;
  shelter?: boolean;
  exposures?: number;
  neighbours?: string[];
  gates?: string[];
  settlers?: string[];
  robots?: string[];
  ufos?: string[];
}

export interface SettlerView {
  id: string;
  at: string | null;
  alive: boolean;
  cargo: Cargo;
  gates: string[];
}

export interface RobotView {
  id: string;
  at: string | null;
  alive: boolean;
}

export interface UfoView extends RobotView {
  cargo: Partial<Cargo>;
}

export interface GateView {
  id: string;
  partner: string;
  at: string | null;
  carrier: string | null;
  exists: boolean;
  haywire: boolean;
  active: boolean;
}

export interface ForecastView {
  round: number;
  asteroids: string[];
  sector: [number, number] | null;
}

export interface Options {
  uranium_fuse: number;
  ufos: number;
  haywire_gates: boolean;
  storm_warning: number;
  storm_interval: number;
  turns: "strict" | "free";
}

export type Status = "running" | "won" | "lost";

/** The public view (R17) of a game. */
export interface GameView {
  round: number;
  status: Status;
  turn: string | null;
  winnable: boolean;
  options: Options;
  asteroids: AsteroidView[];
  settlers: SettlerView[];
  robots: RobotView[];
  ufos: UfoView[];
  gates: GateView[];
  forecasts: ForecastView[];
}

/** An event as rules/events.py writes it: `type` plus its fields. */
export interface GameEvent {
  type: string;
  [field: string]: unknown;
}

export interface SeatInfo {
  seat: number;
  token?: string;
  settlers: string[];
  name?: string;
  connected?: boolean;
}

/** One legal or refused action of the current settler, as the server (or the client's mirror) says. */
export interface LegalEntry {
  action: string;
  target?: string;
  kind?: string;
  gate?: string;
  ok: boolean;
  code?: string;
  message?: string;
}

/** What a client sends to act. */
export interface ActMessage {
  type: "act";
  settler: string;
  action: string;
  target?: string;
  kind?: string;
  gate?: string;
}
