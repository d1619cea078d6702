// The server's protocol: every message, answer and record it sends or takes, as TypeScript types.
// GENERATED from the server's pydantic models (src/asteroid_mining/server/protocol.py) by `make protocol`;
// do not edit: change the models and run it again. A test fails when this file is stale.
/* eslint-disable */

/**
 * Any message the server sends over the WebSocket.
 */
export type ServerMessage = StateMessage | UpdateMessage | ErrorMessage | AckMessage | EndedMessage;
/**
 * One entry of a settler's choices.
 */
export type Choice =
  | MoveChoice
  | DrillChoice
  | MineChoice
  | DepositChoice
  | BuildRobotChoice
  | BuildGatesChoice
  | PlaceChoice
  | WaitChoice;
/**
 * A settler's action as updates and logs carry it.
 */
export type Action =
  | MoveAction
  | DrillAction
  | MineAction
  | DepositAction
  | BuildRobotAction
  | BuildGatesAction
  | PlaceAction
  | WaitAction;
/**
 * An event as the engine writes it (`event.to_json()`, docs/engine.md): its `type` and its fields.
 */
export type GameEvent =
  | MovedEvent
  | DrilledEvent
  | MinedEvent
  | DepositedEvent
  | RobotBuiltEvent
  | GatesBuiltEvent
  | GatePlacedEvent
  | WaitedEvent
  | SublimatedEvent
  | ExposureEvent
  | ExplodedEvent
  | DiedEvent
  | DestroyedEvent
  | LandedEvent
  | GateDestroyedEvent
  | StormForecastEvent
  | StormHitEvent
  | SunChangedEvent
  | WentHaywireEvent
  | DriftedEvent
  | RoundStartedEvent
  | WonEvent
  | LostEvent;
/**
 * Any message a client sends over the WebSocket.
 */
export type ClientMessage =
  ActMove | ActDrill | ActMine | ActDeposit | ActBuildRobot | ActBuildGates | ActPlace | ActWait | SyncMessage;
/**
 * Play one action for one of the seat's settlers.
 */
export type ActMessage = ActMove | ActDrill | ActMine | ActDeposit | ActBuildRobot | ActBuildGates | ActPlace | ActWait;

/**
 * The WebSocket messages, by who sends them; every other type is declared beside it.
 */
export interface Protocol {
  server: ServerMessage;
  client: ClientMessage;
}
/**
 * The whole game: on connecting, and in answer to a `sync` that updates cannot answer.
 */
export interface StateMessage {
  type: "state";
  /**
   * the number of commands played so far
   */
  seq: number;
  game: string;
  /**
   * `abandoned`: a player ended the game, or the server after `max_game_rounds` rounds (its view's own status stays as the rules left it)
   */
  status: "open" | "running" | "won" | "lost" | "abandoned";
  /**
   * null for a spectator
   */
  you: You | null;
  seats: SeatInfo[];
  turn_seconds: number | null;
  /**
   * when (seconds since the epoch) the server plays the turn itself
   */
  deadline: number | null;
  state: GameView;
  /**
   * the choices of each settler the client may move (none for a spectator, or a client that connected with `choices=false`); null for a settler that cannot act now (the view says why)
   */
  choices: {
    [k: string]: Choices | null;
  };
}
/**
 * Who the client is: its seat and the settlers it may move.
 */
export interface You {
  seat: number;
  settlers: string[];
}
/**
 * A seat as everyone may see it (never its token).
 */
export interface SeatInfo {
  seat: number;
  kind: "human" | "bot";
  bot?: string | null;
  settlers: string[];
  /**
   * Connections currently open with this seat's token.
   */
  connected?: number;
}
/**
 * The public view (R17) of a game; messages leave out each asteroid's `near` and `next_change`.
 */
export interface GameView {
  round: number;
  status: "running" | "won" | "lost";
  /**
   * the settler whose step it is; null once the game is over
   */
  turn: string | null;
  winnable: boolean;
  options: Options;
  asteroids: (Asteroid | DestroyedAsteroid)[];
  settlers: SettlerRecord[];
  robots: RobotRecord[];
  ufos: UfoRecord[];
  gates: GateRecord[];
  forecasts: ForecastRecord[];
}
/**
 * The game's rule options (RULES.md, Options).
 */
export interface Options {
  uranium_fuse: number;
  ufos: number;
  haywire_gates: boolean;
  storm_warning: number;
  storm_interval: number;
  turns: "strict" | "free";
}
/**
 * An asteroid as the players see it (R17).
 */
export interface Asteroid {
  id: string;
  exists: true;
  /**
   * layers of rock left over the core
   */
  mantle: number;
  /**
   * `unknown` until someone surveys it or drills through
   */
  core: "ice" | "iron" | "carbon" | "uranium" | "hollow" | "unknown";
  surveyed: boolean;
  /**
   * `P/K/F`: near the Sun in round r when (r - 1 + F) mod P < K; null: it is pinned
   */
  orbit: string | null;
  /**
   * where an asteroid without an orbit stays
   */
  pinned: ("near" | "far") | null;
  /**
   * where to draw it; null on a belt without a layout
   */
  position: [number, number] | null;
  /**
   * drilled through and hollow: it shelters from storms
   */
  shelter: boolean;
  /**
   * rounds its exposed uranium core has spent near the Sun
   */
  exposures: number;
  /**
   * the round at whose end its exposed reactive core reacts; null: no such core, or its orbit never brings it near
   */
  reacts_at: number | null;
  neighbours: string[];
  /**
   * the gates orbiting it
   */
  gates: string[];
  settlers: string[];
  robots: string[];
  ufos: string[];
}
/**
 * An asteroid blown apart (R6): only its id is left.
 */
export interface DestroyedAsteroid {
  id: string;
  exists: false;
}
/**
 * A settler: where it is (null once dead and gone), its cargo and the gates it carries.
 */
export interface SettlerRecord {
  id: string;
  at: string | null;
  alive: boolean;
  cargo: Cargo;
  gates: string[];
}
/**
 * Units of each material a settler carries.
 */
export interface Cargo {
  ice: number;
  iron: number;
  carbon: number;
  uranium: number;
}
/**
 * A robot: it drills and explores by itself (R13).
 */
export interface RobotRecord {
  id: string;
  at: string | null;
  alive: boolean;
}
/**
 * A UFO: it steals exposed cores (E2).
 */
export interface UfoRecord {
  id: string;
  at: string | null;
  alive: boolean;
  cargo: UfoCargo;
}
/**
 * What a UFO has taken (only the materials it has).
 */
export interface UfoCargo {
  ice?: number;
  iron?: number;
  carbon?: number;
  uranium?: number;
}
/**
 * A teleport gate: carried (`carrier`) or placed (`at`); `active` when it and its partner are placed.
 */
export interface GateRecord {
  id: string;
  partner: string;
  at: string | null;
  carrier: string | null;
  exists: boolean;
  haywire: boolean;
  active: boolean;
}
/**
 * A forecast storm: it hits `asteroids` at the end of `round` (R7).
 */
export interface ForecastRecord {
  round: number;
  asteroids: string[];
  sector: [number, number] | null;
}
/**
 * Every action a settler could take now, legal or refused, in a stable order, with the hints a player needs (`Game.choices`). The server sends the choices of a settler that may act now; for one that cannot (not its turn, dead, the game over) it sends null.
 */
export interface Choices {
  settler: string;
  round: number;
  /**
   * why the settler cannot act now (every entry would be refused with it), or null when it may
   */
  refusal: Refusal | null;
  /**
   * every action it could take, legal or refused; empty when `refusal` is not null
   */
  choices: Choice[];
  /**
   * the settler's asteroid and each asteroid one move away whose exposed reactive core will react
   */
  reactions: {
    [k: string]: Reaction;
  };
  /**
   * every storm forecast
   */
  storms: StormOutlook[];
}
/**
 * Why the rules refuse an action: a stable `code` and the values its sentence needs.
 *
 * The codes and their params are listed in docs/engine.md; a client words the refusal from `code` and `params`
 * (the choices' refusals carry nothing else; an `error` adds the English sentence as its `message`).
 */
export interface Refusal {
  code: string;
  params: {
    [k: string]: string | number;
  };
  /**
   * the English sentence (the engine's `Refusal.to_json()`; the server's choices leave it out)
   */
  message?: string;
}
/**
 * Whether the settler may fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid.
 */
export interface MoveChoice {
  action: "move";
  /**
   * a neighbouring asteroid, or a gate orbiting the actor's asteroid
   */
  target: string;
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * A drill that would expose a reactive core near the Sun: now (`in_rounds` 0) or in `in_rounds` rounds.
 */
export interface Danger {
  core: "ice" | "uranium";
  in_rounds: number;
}
/**
 * Whether the settler may drill one layer of the mantle.
 */
export interface DrillChoice {
  action: "drill";
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * Whether the settler may take the core's unit into the cargo hold (a UFO takes it into its hold).
 */
export interface MineChoice {
  action: "mine";
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * Whether the settler may put one unit of `kind` from the cargo into a shelter's hollow core.
 */
export interface DepositChoice {
  action: "deposit";
  /**
   * a material: ice, iron, carbon, uranium
   */
  kind: string;
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * Whether the settler may build a robot from 1 iron, 1 carbon and 1 uranium; `new_id` names it (else `robotN`).
 */
export interface BuildRobotChoice {
  action: "build_robot";
  /**
   * the new robot's id (default: the lowest free robotN)
   */
  new_id?: string;
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * Whether the settler may build a linked gate pair from 2 iron, 1 ice and 1 uranium; ids default to `gateN`.
 */
export interface BuildGatesChoice {
  action: "build_gates";
  /**
   * the first gate's id (give both ids or neither)
   */
  first?: string;
  /**
   * the second gate's id
   */
  second?: string;
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * Whether the settler may put a carried gate into orbit around the actor's asteroid.
 */
export interface PlaceChoice {
  action: "place";
  /**
   * a gate the settler carries
   */
  gate: string;
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * Whether the settler may do nothing this step.
 */
export interface WaitChoice {
  action: "wait";
  /**
   * null when the rules accept the action now
   */
  refusal: Refusal | null;
  danger?: Danger;
}
/**
 * An exposed reactive core that will react at the end of the round `in_rounds` from now (0: this one).
 */
export interface Reaction {
  core: "ice" | "uranium";
  effect: "explodes" | "sublimates";
  in_rounds: number;
}
/**
 * A forecast storm as it concerns a settler: it hits at the end of `round`; `in_path` when it covers the
 * settler's asteroid, `sheltered` when that asteroid is a shelter (drilled through and hollow).
 */
export interface StormOutlook {
  round: number;
  in_rounds: number;
  in_path: boolean;
  sheltered: boolean;
}
/**
 * One accepted command: to every client, in `seq` order.
 */
export interface UpdateMessage {
  type: "update";
  seq: number;
  action: Action;
  by: By;
  /**
   * the sender's `ref`, to the sender and everyone else
   */
  ref?: string | number;
  events: GameEvent[];
  diff: ViewDiff;
  deadline: number | null;
  /**
   * the choices of the client's settlers that changed (null: the settler cannot act now)
   */
  choices?: {
    [k: string]: Choices | null;
  };
}
/**
 * Fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid.
 */
export interface MoveAction {
  type: "move";
  actor: string;
  /**
   * a neighbouring asteroid, or a gate orbiting the actor's asteroid
   */
  target: string;
}
/**
 * Drill one layer of the mantle.
 */
export interface DrillAction {
  type: "drill";
  actor: string;
}
/**
 * Take the core's unit into the cargo hold (a UFO takes it into its hold).
 */
export interface MineAction {
  type: "mine";
  actor: string;
}
/**
 * Put one unit of `kind` from the cargo into a shelter's hollow core.
 */
export interface DepositAction {
  type: "deposit";
  actor: string;
  /**
   * a material: ice, iron, carbon, uranium
   */
  kind: string;
}
/**
 * Build a robot from 1 iron, 1 carbon and 1 uranium; `new_id` names it (else `robotN`).
 */
export interface BuildRobotAction {
  type: "build_robot";
  actor: string;
  /**
   * the new robot's id (default: the lowest free robotN)
   */
  new_id?: string | null;
}
/**
 * Build a linked gate pair from 2 iron, 1 ice and 1 uranium; ids default to `gateN`.
 */
export interface BuildGatesAction {
  type: "build_gates";
  actor: string;
  /**
   * the first gate's id (give both ids or neither)
   */
  first?: string | null;
  /**
   * the second gate's id
   */
  second?: string | null;
}
/**
 * Put a carried gate into orbit around the actor's asteroid.
 */
export interface PlaceAction {
  type: "place";
  actor: string;
  /**
   * a gate the settler carries
   */
  gate: string;
}
/**
 * Do nothing this step.
 */
export interface WaitAction {
  type: "wait";
  actor: string;
}
/**
 * Who played a command: a seat, or the server for it (`auto`: its timer ran out, or its bot played).
 */
export interface By {
  seat: number;
  /**
   * `timer`: the seat's time ran out; `bot`: its bot played
   */
  auto?: "timer" | "bot";
  /**
   * the sender's `ref`, kept with the command so that the command sent again is answered with an `ack`, not played twice (docs/server.md)
   */
  ref?: string | number;
}
/**
 * An actor flew to another asteroid, maybe through a gate (`via`).
 */
export interface MovedEvent {
  type: "moved";
  actor: string;
  origin: string;
  target: string;
  via: string | null;
}
/**
 * An actor drilled one layer of an asteroid's mantle.
 */
export interface DrilledEvent {
  type: "drilled";
  actor: string;
  asteroid: string;
  before: number;
  after: number;
}
/**
 * A settler mined the core of an asteroid, or a UFO took it.
 */
export interface MinedEvent {
  type: "mined";
  actor: string;
  asteroid: string;
  kind: string;
}
/**
 * A settler put a unit into a hollow core.
 */
export interface DepositedEvent {
  type: "deposited";
  actor: string;
  asteroid: string;
  kind: string;
}
/**
 * A settler built a robot.
 */
export interface RobotBuiltEvent {
  type: "robot_built";
  actor: string;
  robot: string;
  asteroid: string;
}
/**
 * A settler built a linked pair of gates and carries them.
 */
export interface GatesBuiltEvent {
  type: "gates_built";
  actor: string;
  first: string;
  second: string;
}
/**
 * A settler put a gate into orbit; `active` when its partner was already placed.
 */
export interface GatePlacedEvent {
  type: "gate_placed";
  actor: string;
  gate: string;
  asteroid: string;
  active: boolean;
}
/**
 * An actor did nothing.
 */
export interface WaitedEvent {
  type: "waited";
  actor: string;
}
/**
 * Exposed ice near the Sun sublimated: the core is hollow, the unit gone (R6a).
 */
export interface SublimatedEvent {
  type: "sublimated";
  asteroid: string;
}
/**
 * Exposed uranium near the Sun was counted (R6b); at `fuse` the asteroid explodes.
 */
export interface ExposureEvent {
  type: "exposure";
  asteroid: string;
  count: number;
  fuse: number;
}
/**
 * An asteroid exploded and left the belt (R8).
 */
export interface ExplodedEvent {
  type: "exploded";
  asteroid: string;
}
/**
 * A settler died (R10); `cause` is `explosion` or `storm`.
 */
export interface DiedEvent {
  type: "died";
  actor: string;
  asteroid: string;
  cause: string;
}
/**
 * A robot or UFO was destroyed; `cause` is `explosion` or `storm`.
 */
export interface DestroyedEvent {
  type: "destroyed";
  actor: string;
  asteroid: string;
  cause: string;
}
/**
 * A robot survived an explosion and landed on a former neighbour (R8).
 */
export interface LandedEvent {
  type: "landed";
  actor: string;
  origin: string;
  target: string;
}
/**
 * A gate was destroyed (its partner is destroyed with it).
 */
export interface GateDestroyedEvent {
  type: "gate_destroyed";
  gate: string;
}
/**
 * A solar storm was forecast (R7): it hits `asteroids` in the end-of-round phase of `round`.
 */
export interface StormForecastEvent {
  type: "storm_forecast";
  round: number;
  asteroids: string[];
  sector: [number, number] | null;
}
/**
 * A solar storm hit these asteroids (R7).
 */
export interface StormHitEvent {
  type: "storm";
  asteroids: string[];
}
/**
 * An asteroid was pinned near or far from the Sun.
 */
export interface SunChangedEvent {
  type: "sun";
  asteroid: string;
  near: boolean;
}
/**
 * A gate hit by a storm went haywire for good (E3).
 */
export interface WentHaywireEvent {
  type: "haywire";
  gate: string;
}
/**
 * A haywire gate drifted to a neighbouring asteroid (E3).
 */
export interface DriftedEvent {
  type: "drifted";
  gate: string;
  origin: string;
  target: string;
}
/**
 * A new round began (R12 step 2).
 */
export interface RoundStartedEvent {
  type: "round";
  round: number;
}
/**
 * The settlers on an asteroid built the base (R14).
 */
export interface WonEvent {
  type: "won";
  asteroid: string;
}
/**
 * Every settler is dead (R15).
 */
export interface LostEvent {
  type: "lost";
}
/**
 * What changed in the view after a command: the scalars always; a list's changed or new records (whole),
 * and `forecasts` (the whole list), only when they changed.
 */
export interface ViewDiff {
  round: number;
  status: "running" | "won" | "lost";
  turn: string | null;
  winnable: boolean;
  /**
   * the whole list, when it changed
   */
  forecasts?: ForecastRecord[];
  asteroids?: (Asteroid | DestroyedAsteroid)[];
  settlers?: SettlerRecord[];
  robots?: RobotRecord[];
  ufos?: UfoRecord[];
  gates?: GateRecord[];
}
/**
 * A message or command refused: to its sender only; nothing has changed.
 */
export interface ErrorMessage {
  type: "error";
  /**
   * a refusal code of the engine, or the server's (docs/server.md)
   */
  code: string;
  /**
   * a refusal's values (an act the rules refuse)
   */
  params?: {
    [k: string]: string | number;
  };
  message: string;
  /**
   * the field at fault
   */
  field?: string;
  /**
   * the `ref` of the message answered
   */
  ref?: string | number;
  /**
   * `rate_limited`: seconds until the connection may send again
   */
  retry_after?: number;
}
/**
 * An `act` whose `ref` its seat had sent before, and that was played then — once, as `seq` (sent again after a
 * reconnect, when its answer was lost; on a single server as on a cluster).
 */
export interface AckMessage {
  type: "ack";
  ref: string | number;
  /**
   * the command the act was played as
   */
  seq: number;
}
/**
 * The game ended without a command: a player abandoned it (`POST /api/games/{id}/abandon`), or the server did
 * once it had played `max_game_rounds` rounds. The last message of every connection, closed after it with code
 * 1000; the game is over, as a won or lost one.
 */
export interface EndedMessage {
  type: "ended";
  /**
   * the number of commands played: the log ends there
   */
  seq: number;
  status: "abandoned";
  by: EndedBy;
}
/**
 * The seat that ended the game.
 */
export interface EndedBy {
  /**
   * 0: the server ended it, the game having played its `max_game_rounds` rounds
   */
  seat: number;
}
/**
 * Fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid.
 */
export interface ActMove {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "move";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
  /**
   * a neighbouring asteroid, or a gate orbiting the actor's asteroid
   */
  target: string;
}
/**
 * Drill one layer of the mantle.
 */
export interface ActDrill {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "drill";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
}
/**
 * Take the core's unit into the cargo hold (a UFO takes it into its hold).
 */
export interface ActMine {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "mine";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
}
/**
 * Put one unit of `kind` from the cargo into a shelter's hollow core.
 */
export interface ActDeposit {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "deposit";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
  /**
   * a material: ice, iron, carbon, uranium
   */
  kind: string;
}
/**
 * Build a robot from 1 iron, 1 carbon and 1 uranium; `new_id` names it (else `robotN`).
 */
export interface ActBuildRobot {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "build_robot";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
  /**
   * the new robot's id (default: the lowest free robotN)
   */
  new_id?: string;
}
/**
 * Build a linked gate pair from 2 iron, 1 ice and 1 uranium; ids default to `gateN`.
 */
export interface ActBuildGates {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "build_gates";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
  /**
   * the first gate's id (give both ids or neither)
   */
  first?: string;
  /**
   * the second gate's id
   */
  second?: string;
}
/**
 * Put a carried gate into orbit around the actor's asteroid.
 */
export interface ActPlace {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "place";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
  /**
   * a gate the settler carries
   */
  gate: string;
}
/**
 * Do nothing this step.
 */
export interface ActWait {
  type: "act";
  /**
   * the settler that acts: one of the seat's
   */
  settler: string;
  action: "wait";
  /**
   * echoed in the answer (the update or the error), for the client's bookkeeping
   */
  ref?: string | number;
}
/**
 * Resend what came after `after` (the seq of the last update the client has).
 */
export interface SyncMessage {
  type: "sync";
  after: number;
  ref?: string | number | null;
}
/**
 * The body of `POST /api/games/{id}/abandon` (or send the token as `Authorization: Bearer TOKEN`).
 */
export interface AbandonGame {
  /**
   * A human seat's token: whoever plays a seat may end the game for everyone.
   */
  token?: string | null;
}
/**
 * A belt a game can be created on by name.
 */
export interface BeltEntry {
  /**
   * What to send as `belt` in `POST /api/games`.
   */
  name: string;
  /**
   * A hand-made belt, or a new one from each game's seed.
   */
  kind: "shipped" | "generated";
  asteroids: number;
  description: string;
}
/**
 * The answer to `GET /api/belts`.
 */
export interface Belts {
  belts: BeltEntry[];
  difficulties: DifficultyEntry[];
}
/**
 * A difficulty level (`difficulty` in `POST /api/games`).
 */
export interface DifficultyEntry {
  name: string;
  description: string;
}
/**
 * The answer to `GET /api/bots`: the names a bot seat may be given (`bots` in `POST /api/games`).
 */
export interface Bots {
  bots: string[];
}
/**
 * The body of `POST /api/games`; every field is optional.
 */
export interface CreateGame {
  /**
   * How many players (seats) share the team.
   */
  seats?: number;
  /**
   * How many settlers each seat plays.
   */
  settlers_per_seat?: number;
  /**
   * A belt's name from `GET /api/belts` (a shipped belt, or a generator preset generated from the game's seed; a shipped belt wins over a preset of the same name), or a whole belt document. The belt's recommended options (its storm interval) are set over the rules preset, under `options`.
   */
  belt?:
    | string
    | {
        [k: string]: unknown;
      };
  /**
   * A difficulty level (`easy`, `normal`, `hard`, `brutal`; `GET /api/belts` lists them): its belt-generator parameters and recommended options. Null: the belt as it is made.
   */
  difficulty?: string | null;
  /**
   * The rules preset.
   */
  rules?: "classic" | "extended";
  /**
   * Rule options set one by one over the preset: uranium_fuse, ufos, haywire_gates (true/false), storm_warning, storm_interval (RULES.md, Options). Turns are always strict.
   */
  options?: {
    [k: string]: number | boolean;
  };
  /**
   * The game's seed (R18); random when left out.
   */
  seed?: number | null;
  /**
   * A settler that has not acted this long waits; null: no timer. The server's `min_turn_seconds` (1 by default) is the least it takes.
   */
  turn_seconds?: number | null;
  /**
   * Seats played by the server: `{"2": "planner"}` (seat → bot name).
   */
  bots?: {
    [k: string]: string;
  };
  /**
   * Seats played by programs over the WebSocket (`[2, 3]`): their connections have the server's `program_rate_per_second` message budget instead of `rate_per_second`. When every seat the server does not play is a program's, the game has a turn timer by default (`program_turn_seconds`).
   *
   * @maxItems 8
   */
  programs?:
    | []
    | [number]
    | [number, number]
    | [number, number, number]
    | [number, number, number, number]
    | [number, number, number, number, number]
    | [number, number, number, number, number, number]
    | [number, number, number, number, number, number, number]
    | [number, number, number, number, number, number, number, number];
  /**
   * What a silent seat does: the named bot plays a person's or program's turn once it has not acted for `after` seconds (instead of `turn_seconds`, which makes it wait).
   */
  stand_in?: StandIn | null;
}
/**
 * `CreateGame.stand_in`: a bot that plays the turn of a seat that has not acted in time.
 */
export interface StandIn {
  /**
   * A bot's name from `GET /api/bots`.
   */
  bot: string;
  /**
   * Seconds a turn may last before the bot plays it; the server's `min_turn_seconds` (1 by default) is the least it takes.
   */
  after: number;
}
/**
 * The answer to `POST /api/games`.
 */
export interface CreatedGame {
  id: string;
  seats: CreatedSeat[];
  /**
   * The spectator link (`…/#/watch/ID`): it shows the game to anyone.
   */
  watch?: string | null;
}
/**
 * A seat as its creator receives it, with the token that plays it.
 */
export interface CreatedSeat {
  seat: number;
  kind: "human" | "bot";
  bot?: string | null;
  /**
   * The seat's secret: whoever has it plays the seat. None for bots.
   */
  token: string | null;
  settlers: string[];
  /**
   * The seat's invite link (`…/#/game/ID?seat=N&token=T`), as the lobby shows it: the program or person given it plays the seat. None for bots.
   */
  invite?: string | null;
}
/**
 * Every 4xx/5xx answer of the REST API.
 */
export interface ErrorBody {
  error: ErrorDetail;
}
/**
 * What went wrong: a stable code, a sentence, and the field at fault when there is one.
 */
export interface ErrorDetail {
  code: string;
  message: string;
  field?: string | null;
}
/**
 * One accepted command's events, as the `update` for it carried them.
 */
export interface EventStep {
  seq: number;
  by: By;
  events: GameEvent[];
}
/**
 * The answer to `GET /api/games/{id}`: the summary and the public view (R17) after command `seq`.
 */
export interface GameDetail {
  id: string;
  /**
   * `abandoned`: a player ended it (`POST /api/games/{id}/abandon`), or the server after `max_game_rounds` rounds, it is over as won and lost games are; `damaged`: a stored game that cannot be loaded any more (it is refused, its log kept).
   */
  status: "open" | "running" | "won" | "lost" | "abandoned" | "damaged";
  seq: number;
  round: number;
  turn: string | null;
  rules: string;
  belt: string;
  asteroids: number;
  turn_seconds: number | null;
  created: number;
  seats: SeatInfo[];
  state: GameView;
}
/**
 * The answer to `GET /api/games/{id}/events`: every accepted command's events (after `after`), oldest first.
 */
export interface GameEvents {
  id: string;
  status: string;
  seq: number;
  steps: EventStep[];
}
/**
 * The answer to `GET /api/games/{id}/log`: everything `Game.replay` needs, and more.
 */
export interface GameLog {
  id: string;
  belt: {
    [k: string]: unknown;
  };
  options: {
    [k: string]: unknown;
  };
  seed: number;
  settlers: number;
  seats: SeatInfo[];
  status: string;
  seq: number;
  commands: LoggedCommand[];
}
/**
 * One accepted command.
 */
export interface LoggedCommand {
  seq: number;
  action: Action;
  by: By;
  at: number;
}
/**
 * A game as the lobby lists it.
 */
export interface GameSummary {
  id: string;
  /**
   * `abandoned`: a player ended it (`POST /api/games/{id}/abandon`), or the server after `max_game_rounds` rounds, it is over as won and lost games are; `damaged`: a stored game that cannot be loaded any more (it is refused, its log kept).
   */
  status: "open" | "running" | "won" | "lost" | "abandoned" | "damaged";
  seq: number;
  round: number;
  turn: string | null;
  rules: string;
  belt: string;
  asteroids: number;
  turn_seconds: number | null;
  created: number;
  seats: SeatInfo[];
}
/**
 * The answer to `GET /api/health`.
 */
export interface Health {
  status: "ok";
}
/**
 * What a good player would do now: the planner bot's choice for the settler whose step it is.
 */
export interface Hint {
  /**
   * the settler whose step it is
   */
  settler: string;
  /**
   * the number of commands played when the hint was made
   */
  seq: number;
  action: Action;
  /**
   * why, as a code the client words (`hint.reason.<code>`)
   */
  reason:
    | "hazard"
    | "storm"
    | "gather"
    | "robot"
    | "gates"
    | "place"
    | "collect"
    | "survey"
    | "drill"
    | "mine"
    | "window"
    | "join"
    | "wait";
  /**
   * the reason's values (an asteroid, a kind, a count)
   */
  params: {
    [k: string]: string | number;
  };
}
/**
 * The body of `POST /api/games/{id}/hint` (or send the token as `Authorization: Bearer TOKEN`).
 */
export interface HintRequest {
  /**
   * The token of the seat that plays the settler whose step it is.
   */
  token?: string | null;
}
/**
 * A lesson or puzzle as `GET /api/lessons` lists it: its texts in every language and its steps.
 */
export interface LessonInfo {
  id: string;
  kind: "lesson" | "puzzle";
  order: number;
  /**
   * the rounds a puzzle can be solved in
   */
  par: number;
  title: {
    [k: string]: string;
  };
  goal: {
    [k: string]: string;
  };
  intro: {
    [k: string]: string;
  };
  /**
   * what the lesson taught, shown at its end
   */
  learned: {
    [k: string]: string;
  };
  steps: LessonStep[];
  /**
   * the shipped belt it is played on; null: a belt of its own
   */
  belt: string | null;
}
/**
 * One step of a lesson: its hint in every language, and what it asks the player to press (null: nothing
 * in particular).
 */
export interface LessonStep {
  hint: {
    [k: string]: string;
  };
  press: string | null;
}
/**
 * The answer to `GET /api/games/{id}/goals?lesson=ID`: which of the lesson's steps hold now, and its goal.
 */
export interface LessonProgress {
  lesson: string;
  round: number;
  status: string;
  steps: boolean[];
  goal: boolean;
}
/**
 * The answer to `GET /api/lessons`: every lesson and puzzle, in order.
 */
export interface Lessons {
  lessons: LessonInfo[];
}
/**
 * The answer to `GET /api/games`: one page of the lobby, open games first, then games in play, then damaged
 * ones, each group newest first.
 */
export interface Lobby {
  games: GameSummary[];
  /**
   * how many games the lobby lists (of the `status` asked for, when one is)
   */
  total: number;
  /**
   * the `cursor` of the next page; null: this page is the last
   */
  next: string | null;
}
/**
 * `GET /api/games/{id}/replay`: the view before the first command, and every step after it.
 */
export interface Replay {
  id: string;
  status: string;
  seq: number;
  seats: SeatInfo[];
  belt: string;
  state: GameView;
  steps: ReplayStep[];
}
/**
 * One accepted command of a replay: what an `update` carried for it.
 */
export interface ReplayStep {
  seq: number;
  action: Action;
  by: By;
  events: GameEvent[];
  diff: ViewDiff;
}

/** The rules' numbers a client shows (rules/materials.py). */
export const KINDS = ["ice","iron","carbon","uranium"] as const;
/** A material. */
export type Kind = (typeof KINDS)[number];
export const CARGO_LIMIT = 10;
export const WIN_TARGET = 3;
export const ROBOT_COST = {"iron":1,"carbon":1,"uranium":1} as Readonly<Partial<Record<Kind, number>>>;
export const GATES_COST = {"iron":2,"ice":1,"uranium":1} as Readonly<Partial<Record<Kind, number>>>;
/** Materials that react when exposed near the Sun (R6). */
export const REACTIVE: ReadonlySet<string> = new Set(["ice","uranium"]);
/** What each reactive material's exposed core does when the Sun reaches it (R6). */
export const REACTIONS = {"ice":"sublimates","uranium":"explodes"} as Readonly<Partial<Record<Kind, "explodes" | "sublimates">>>;
