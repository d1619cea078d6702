import "./env";
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { actOf, type Choice, type Choices } from "../src/choices";
import { dropPreconnected, preconnect, takeSocket } from "../src/net";
import { PlaySession, type SessionHandlers } from "../src/play";
import type { GameEvent, GameView } from "../src/types";

/** A WebSocket that the test drives: it records what the client sends and delivers what the test says. */
class FakeSocket {
  static readonly OPEN = 1;
  static made: FakeSocket[] = [];
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number; reason: string }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  send(text: string): void {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  receive(message: unknown): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  close(): void {
    this.readyState = 3;
  }
}
const g = globalThis as Record<string, unknown>;
g.WebSocket = FakeSocket;
g.window ??= globalThis;

const cargo = { ice: 0, iron: 0, carbon: 0, uranium: 0 };
function view(round = 1): GameView {
  return {
    round, status: "running", turn: "s1", winnable: true,
    options: { uranium_fuse: 1, ufos: 0, haywire_gates: false, storm_warning: 2, storm_interval: 10, turns: "strict" },
    asteroids: [
      { id: "Home", exists: true, mantle: 0, core: "hollow", surveyed: true, orbit: "4/1/0", pinned: null, position: null,
        shelter: true, exposures: 0, reacts_at: null, neighbours: ["Ore"], gates: [], settlers: ["s1", "s2"], robots: [], ufos: [] },
      { id: "Ore", exists: true, mantle: 2, core: "unknown", surveyed: false, orbit: null, pinned: "far", position: null,
        shelter: false, exposures: 0, reacts_at: null, neighbours: ["Home"], gates: [], settlers: [], robots: [], ufos: [] },
    ],
    settlers: [{ id: "s1", at: "Home", alive: true, cargo, gates: [] }, { id: "s2", at: "Home", alive: true, cargo, gates: [] }],
    robots: [], ufos: [], gates: [], forecasts: [],
  };
}
const seats = [{ seat: 1, kind: "human", settlers: ["s1"], connected: 1 }, { seat: 2, kind: "human", settlers: ["s2"], connected: 1 }];
const moveOre: Choice = { action: "move", target: "Ore", refusal: null };
const choicesOf = (settler: string): Choices => ({ settler, round: 1, refusal: null, choices: [moveOre], reactions: {}, storms: [] });

function state(you: number, seq = 0): Record<string, unknown> {
  return {
    type: "state", seq, game: "g1", status: "running", you: { seat: you, settlers: [`s${you}`] }, seats,
    turn_seconds: null, deadline: null, state: view(), choices: { [`s${you}`]: choicesOf(`s${you}`) },
  };
}
const moved: GameEvent = { type: "moved", actor: "s1", origin: "Home", target: "Ore", via: null };
function update(seq: number, ref?: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "update", seq, action: { type: "move", actor: "s1", target: "Ore" }, by: { seat: 1 }, ...(ref ? { ref } : {}),
    events: [moved], diff: { round: 2, status: "running", turn: "s2", winnable: true,
      settlers: [{ id: "s1", at: "Ore", alive: true, cargo, gates: [] }] },
    deadline: null, ...extra,
  };
}

/** What the session told the screen, in order. */
function recorder(): { calls: [string, ...unknown[]][]; on: SessionHandlers } {
  const calls: [string, ...unknown[]][] = [];
  return {
    calls,
    on: {
      state: (v, first) => calls.push(["state", v, first]),
      update: (v, events, seq, mine) => calls.push(["update", v, events, seq, mine]),
      choices: () => calls.push(["choices"]),
      error: (code, message, ref) => calls.push(["error", code, message, ref]),
      status: (s) => calls.push(["status", s]),
    },
  };
}

/** A session of seat 1 (token `tok1`) whose socket is open and has had the first `state`. */
function connected(): { calls: [string, ...unknown[]][]; session: PlaySession; sock: FakeSocket } {
  const { calls, on } = recorder();
  const session = new PlaySession("g1", new Map([[1, "tok1"]]), on);
  session.connect();
  const sock = FakeSocket.made[0]!;
  sock.open();
  sock.receive(state(1));
  return { calls, session, sock };
}

beforeEach(() => {
  FakeSocket.made = [];
});

test("a state message gives the whole view, the sun state derived, and each settler's choices", () => {
  const { calls, on } = recorder();
  const session = new PlaySession("g1", new Map([[1, "tok1"]]), on);
  session.connect();
  const [sock] = FakeSocket.made;
  assert.match(sock!.url, /\/api\/games\/g1\/ws\?token=tok1$/);
  sock!.open();
  sock!.receive(state(1, 4));
  assert.equal(session.seq, 4);
  assert.deepEqual(session.seats.map((s) => s.seat), [1, 2]);
  assert.deepEqual(session.choices, { s1: choicesOf("s1") });
  const [name, shown, first] = calls.at(-1)!;
  assert.equal(name, "state");
  assert.equal(first, true);
  const home = (shown as GameView).asteroids[0]!;
  assert.deepEqual([home.near, home.next_change], [true, 2]); // orbit 4/1/0 in round 1: near, far from round 2
  assert.equal((shown as GameView).asteroids[1]!.near, false); // pinned far
});

test("an act is sent as the offered choice with a ref; its update is the answer, folded into the view", () => {
  const { calls, session, sock } = connected();
  assert.equal(session.act(1, actOf("s1", moveOre)), true);
  const sent = sock.sent.at(-1)!;
  assert.deepEqual({ ...sent, ref: 0 }, { type: "act", settler: "s1", action: "move", target: "Ore", ref: 0 });
  assert.equal(typeof sent.ref, "number");
  assert.equal(session.pending?.ref, sent.ref);
  assert.equal(session.act(2, actOf("s2", moveOre)), false, "seat 2 is not played here");
  sock.receive(update(1, sent.ref as number, { choices: { s1: null } }));
  const [name, v, events, seq, mine] = calls.at(-1)!;
  assert.equal(name, "update");
  assert.equal(seq, 1);
  assert.deepEqual(events, [moved]);
  assert.ok(mine, "the update answers this browser's act");
  assert.equal(session.pending, null);
  assert.equal((v as GameView).round, 2);
  assert.equal((v as GameView).settlers.find((s) => s.id === "s1")?.at, "Ore");
  assert.equal((v as GameView).asteroids[0]!.near, false); // the new round moved the sun state on
  assert.deepEqual(session.choices, { s1: null }); // it cannot act now
});

test("updates come in order: a repeated one is dropped, a gap asks the server again", () => {
  const { calls, on } = recorder();
  const session = new PlaySession("g1", new Map([[1, "tok1"]]), on);
  session.connect();
  const sock = FakeSocket.made[0]!;
  sock.open();
  sock.receive(state(1, 3));
  sock.receive(update(3)); // already in the state
  assert.equal(calls.filter(([n]) => n === "update").length, 0);
  sock.receive(update(5)); // 4 is missing
  assert.equal(calls.filter(([n]) => n === "update").length, 0);
  assert.deepEqual(sock.sent.at(-1), { type: "sync", after: 3 });
  sock.receive(update(4));
  assert.equal(session.seq, 4);
});

test("an error answers the pending act: it is over, and the screen hears the code and ref", () => {
  const { calls, session, sock } = connected();
  session.act(1, actOf("s1", moveOre));
  const ref = session.pending!.ref;
  sock.receive({ type: "error", code: "not_your_turn", params: { actor: "s1", turn: "s2" }, message: "not yet", ref });
  assert.deepEqual(calls.at(-1), ["error", "not_your_turn", "not yet", ref]);
  assert.equal(session.pending, null);
  assert.equal(session.view?.round, 1, "nothing changed");
});

test("an act not answered before a reconnect is sent again with its ref; its ack ends it", () => {
  const { calls, session, sock } = connected();
  session.act(1, actOf("s1", moveOre));
  const act = sock.sent.at(-1)!;
  sock.receive(state(1)); // the state a reconnect brings
  assert.deepEqual(sock.sent.at(-1), act, "the same act, the same ref");
  sock.receive({ type: "ack", ref: act.ref, seq: 1 });
  assert.equal(session.pending, null);
  assert.deepEqual(calls.at(-1), ["choices"]);
  sock.receive(state(1));
  assert.deepEqual(sock.sent.filter((m) => m.type === "act").length, 2, "answered: not sent a third time");
});

test("hot seat: the primary connection is followed, another seat's brings only its choices", () => {
  const { calls, on } = recorder();
  const session = new PlaySession("g1", new Map([[2, "tok2"], [1, "tok1"]]), on);
  session.connect();
  const [one, two] = FakeSocket.made;
  assert.match(one!.url, /token=tok1$/); // the lowest seat is the primary
  one!.open();
  two!.open();
  one!.receive(state(1));
  two!.receive(state(2));
  assert.deepEqual(Object.keys(session.choices).sort(), ["s1", "s2"]);
  assert.equal(calls.filter(([n]) => n === "state").length, 1, "the second seat's state is not a new view");
  two!.receive(update(1, undefined, { choices: { s2: choicesOf("s2") } }));
  assert.deepEqual(calls.at(-1), ["choices"]);
  assert.equal(session.view?.round, 1, "only the primary's updates move the view");
  assert.equal(session.choicesSeq[2], 1);
  one!.receive(update(1));
  assert.equal(session.view?.round, 2);
});

test("a spectator connects without a token and takes no choices; an ended game is over for everyone", () => {
  const { calls, on } = recorder();
  const session = new PlaySession("g1", new Map(), on);
  session.connect();
  const sock = FakeSocket.made[0]!;
  assert.match(sock.url, /\/ws$/);
  sock.open();
  sock.receive({ ...state(1), you: null, choices: {} });
  assert.deepEqual(session.choices, {});
  assert.equal(session.act(1, actOf("s1", moveOre)), false);
  sock.receive({ type: "ended", seq: 0, status: "abandoned", by: { seat: 2 } });
  assert.equal(session.view?.status, "abandoned");
  assert.deepEqual(calls.at(-1)?.slice(0, 1), ["state"]);
});

test("sockets opened before the screen are taken by its session with what they heard meanwhile", () => {
  preconnect("g1", ["tok1", "tok2"]);
  assert.equal(FakeSocket.made.length, 2);
  const [one, two] = FakeSocket.made;
  one!.open();
  one!.receive(state(1, 3));
  two!.receive(state(2, 3));
  const { calls, on } = recorder();
  const session = new PlaySession("g1", new Map([[2, "tok2"], [1, "tok1"]]), on);
  session.connect();
  assert.equal(FakeSocket.made.length, 2, "no other socket is opened");
  assert.deepEqual(calls.map(([n]) => n), ["status", "state", "choices"]);
  assert.deepEqual(calls[0], ["status", "open"]);
  assert.equal(session.seq, 3);
  assert.deepEqual(Object.keys(session.choices).sort(), ["s1", "s2"]);
  one!.receive(update(4));
  assert.equal(session.view?.round, 2, "what comes after is handled as before");
  assert.equal(takeSocket("g1", "tok1"), null, "a socket is taken once");
});

test("sockets opened early for a game the page left are closed; another game's session opens its own", () => {
  preconnect("g1", ["tok1"]);
  preconnect("g2", ["tok9"]);
  dropPreconnected("g2");
  assert.equal(FakeSocket.made[0]!.readyState, 3);
  assert.equal(takeSocket("g1", "tok1"), null);
  const session = new PlaySession("g2", new Map([[1, "tok9"]]), recorder().on);
  session.connect();
  assert.equal(FakeSocket.made.length, 2, "g2's socket was taken");
  dropPreconnected();
  assert.notEqual(FakeSocket.made[1]!.readyState, 3, "a taken socket is the session's own");
  const other = new PlaySession("g1", new Map([[1, "tok1"]]), recorder().on);
  other.connect();
  assert.equal(FakeSocket.made.length, 3);
});
