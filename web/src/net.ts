// Talking to the game server: the REST API (lobby, games, logs) and one WebSocket per seat, which keeps its
// sequence number, reconnects with back-off and asks for what it missed (`sync`).

import { sunState } from "./sun";
import type * as P from "./protocol";
import type { AckMessage, Belts, Bots, EndedMessage, ErrorMessage } from "./protocol";
import type { Act } from "./choices";
import type { AsteroidView, GameView } from "./types";

// Every message and answer is typed by the generated protocol (protocol.ts, from the server's pydantic models);
// the names below are that protocol's, with one difference the client makes itself: a view it holds has each
// asteroid's sun state derived (`withSun`), so the answers and messages that carry a whole view carry the
// client's `GameView`.

export type { AckMessage, EndedMessage, ErrorMessage };

/** `T` with its `state` (a view as the server sends it) as the client holds it, sun state derived. */
type Sunned<T extends { state: P.GameView }> = Omit<T, "state"> & { state: GameView };

/** A seat as everyone sees it, with its open connections (`connected`, 0 when absent). */
export type SeatPublic = P.SeatInfo;
export type CreatedSeat = P.CreatedSeat;
export type CreatedGame = P.CreatedGame;
export type GameSummary = P.GameSummary;
export type GameDetail = Sunned<P.GameDetail>;
export type LoggedCommand = P.LoggedCommand;
export type GameLog = P.GameLog;
export type ReplayStep = P.ReplayStep;
export type Replay = Sunned<P.Replay>;
export type LessonInfo = P.LessonInfo;
export type LessonProgress = P.LessonProgress;
export type GameEvents = P.GameEvents;
/** The body of `POST /api/games`. */
export type CreateBody = P.CreateGame;

/** `GET /api/belts`: the belts a game can be created on by name, and the difficulty levels (generated type). */
export type BeltCatalog = Belts;

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly field?: string) {
    super(message);
  }
}

/** The request of a call (`fetch`'s arguments): a JSON body when there is one. */
export function request(method: string, body?: unknown): RequestInit {
  return {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  return answered<T>(fetch(path, request(method, body)));
}

/** The JSON of an API request's answer; an ApiError when the server cannot be reached or refuses (its code,
 * message and field). For a request made elsewhere too: the page's first one (index.html, early.ts). */
export async function answered<T>(sent: Promise<Response>): Promise<T> {
  let res: Response;
  try {
    res = await sent;
  } catch {
    throw new ApiError(0, "offline", "the server cannot be reached");
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data as Partial<P.ErrorBody> | null)?.error;
    throw new ApiError(res.status, err?.code ?? "http_" + res.status, err?.message ?? res.statusText, err?.field ?? undefined);
  }
  return data as T;
}

export const api = {
  health: () => call<P.Health>("GET", "/api/health"),
  /** One page of the lobby (`limit` games from `cursor`, the `next` of the page before; the server's page size
   * when not given). */
  lobby: (page: { limit?: number; cursor?: string | null } = {}) => {
    const q = new URLSearchParams();
    if (page.limit) q.set("limit", String(page.limit));
    if (page.cursor) q.set("cursor", page.cursor);
    const query = q.toString();
    return call<P.Lobby>("GET", `/api/games${query ? `?${query}` : ""}`);
  },
  belts: () => call<BeltCatalog>("GET", "/api/belts"),
  bots: () => call<Bots>("GET", "/api/bots"),
  create: (body: CreateBody) => call<CreatedGame>("POST", "/api/games", body),
  game: async (id: string) => {
    const d = await call<P.GameDetail>("GET", `/api/games/${encodeURIComponent(id)}`);
    return { ...d, state: withSun(d.state) } satisfies GameDetail;
  },
  log: (id: string) => call<GameLog>("GET", `/api/games/${encodeURIComponent(id)}/log`),
  events: (id: string, after = 0) =>
    call<GameEvents>("GET", `/api/games/${encodeURIComponent(id)}/events${after ? `?after=${after}` : ""}`),
  summary: (id: string) => call<GameSummary>("GET", `/api/games/${encodeURIComponent(id)}/summary`),
  /** Ends a running game for everyone, with one of its human seats' tokens. */
  abandon: (id: string, token: string) =>
    call<GameSummary>("POST", `/api/games/${encodeURIComponent(id)}/abandon`, { token }),
  lessons: () => call<P.Lessons>("GET", "/api/lessons"),
  lessonGame: (id: string) => call<CreatedGame>("POST", `/api/lessons/${encodeURIComponent(id)}/games`),
  goals: (game: string, lesson: string) =>
    call<LessonProgress>("GET", `/api/games/${encodeURIComponent(game)}/goals?lesson=${encodeURIComponent(lesson)}`),
  replay: async (id: string) => {
    const r = await call<P.Replay>("GET", `/api/games/${encodeURIComponent(id)}/replay`);
    return { ...r, state: withSun(r.state) } satisfies Replay;
  },
};

// ---- the WebSocket ---------------------------------------------------------------------------------------

/** The whole game, its view with the sun state derived (`withSun`) as the socket hands it on. */
export type StateMessage = Sunned<P.StateMessage>;
export type UpdateMessage = P.UpdateMessage;
export type ViewDiff = P.ViewDiff;
/** Any message the server sends (the protocol's union), its `state` as the client holds it. */
export type ServerMessage = Exclude<P.ServerMessage, P.StateMessage> | StateMessage;

export { sunState } from "./sun";

/** An asteroid record with its sun state for `round`; the record itself when that is what it already says. */
function sunned(a: AsteroidView, round: number): AsteroidView {
  if (!a.exists) return a;
  const { near, next_change } = sunState(a.orbit, a.pinned, round);
  return a.near === near && a.next_change === next_change ? a : { ...a, near, next_change };
}

/** A view as the server sends it, with every asteroid's sun state derived (the state of a `state` message, a
 * replay's first view, a game's detail). */
export function withSun(view: GameView): GameView {
  return { ...view, asteroids: view.asteroids.map((a) => sunned(a, view.round)) };
}

/** A view with a diff applied: changed records replace theirs by id, new ones are appended; the asteroids'
 * sun state moves on with the round. */
export function applyDiff(view: GameView, diff: ViewDiff): GameView {
  const merge = <T extends { id: string }>(list: T[], changed: T[] | undefined): T[] => {
    if (!changed || !changed.length) return list;
    const byId = new Map(changed.map((r) => [r.id, r]));
    const out = list.map((r) => byId.get(r.id) ?? r);
    const known = new Set(list.map((r) => r.id));
    for (const r of changed) if (!known.has(r.id)) out.push(r);
    return out;
  };
  let asteroids: AsteroidView[];
  if (diff.round !== view.round) {
    asteroids = merge(view.asteroids, diff.asteroids).map((a) => sunned(a, diff.round));
  } else {
    asteroids = merge(view.asteroids, diff.asteroids?.map((a) => sunned(a, diff.round)));
  }
  return {
    ...view,
    round: diff.round,
    status: diff.status,
    turn: diff.turn,
    winnable: diff.winnable,
    forecasts: diff.forecasts ?? view.forecasts,
    asteroids,
    settlers: merge(view.settlers, diff.settlers),
    robots: merge(view.robots, diff.robots),
    ufos: merge(view.ufos, diff.ufos),
    gates: merge(view.gates, diff.gates),
  };
}

export type SocketStatus = "connecting" | "open" | "closed" | "failed";

/** One WebSocket to a game (with a seat's token, or none to watch). */
export class GameSocket {
  private ws: WebSocket | null = null;
  private retry = 0;
  private stopped = false;
  // Refs start at a random point so that they stay unique for the seat across page loads: a command sent again
  // after a reconnect is recognised by its ref (a cluster answers it with an `ack` instead of playing it twice).
  private nextRef = Math.floor(Math.random() * 2 ** 40) + 1;
  /** Acts sent but not answered yet: sent again, with their refs, after a reconnect. */
  private unanswered = new Map<number, Record<string, unknown>>();
  seq = -1;
  /** What came before anyone listened (a socket opened early: `preconnect`), handed on by `listen`. */
  private backlog: ServerMessage[] = [];
  private lastStatus: { status: SocketStatus; detail: string | undefined } | null = null;
  onMessage: (m: ServerMessage) => void = (m) => {
    this.backlog.push(m);
  };
  onStatus: (s: SocketStatus, detail?: string) => void = (status, detail) => {
    this.lastStatus = { status, detail };
  };

  constructor(readonly game: string, readonly token: string | null) {}

  /** Listens to the socket: the handlers first hear its last status and the messages that came before (a
   * socket opened early), then what comes. */
  listen(onMessage: (m: ServerMessage) => void, onStatus: (s: SocketStatus, detail?: string) => void): void {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    const last = this.lastStatus;
    const held = this.backlog;
    this.lastStatus = null;
    this.backlog = [];
    if (last) onStatus(last.status, last.detail);
    for (const m of held) onMessage(m);
  }

  connect(): void {
    this.stopped = false;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    const ws = new WebSocket(`${proto}//${location.host}/api/games/${encodeURIComponent(this.game)}/ws${q}`);
    this.ws = ws;
    this.onStatus("connecting");
    ws.onopen = () => {
      this.retry = 0;
      this.onStatus("open");
    };
    ws.onmessage = (e) => {
      let m: ServerMessage;
      try {
        m = JSON.parse(String(e.data)) as ServerMessage;
      } catch {
        return;
      }
      if (m.type === "state") {
        this.seq = m.seq;
        m.state = withSun(m.state);
      }
      if (m.type === "ended") this.stopped = true; // the server closes the connection: no reconnecting
      if (m.type !== "state" && "ref" in m && typeof m.ref === "number") this.unanswered.delete(m.ref);
      if (m.type === "update") {
        if (this.seq >= 0 && m.seq <= this.seq) return; // already have it
        if (this.seq >= 0 && m.seq > this.seq + 1) {
          this.send({ type: "sync", after: this.seq }); // missed some: ask again, in order
          return;
        }
        this.seq = m.seq;
      }
      this.onMessage(m);
      if (m.type === "state") for (const msg of this.unanswered.values()) this.send(msg);
    };
    ws.onclose = (e) => {
      this.ws = null;
      if (this.stopped) return;
      if (e.code === 4401 || e.code === 4404 || e.code === 4403) {
        this.onStatus("failed", e.reason || String(e.code));
        return;
      }
      this.onStatus("closed");
      const wait = Math.min(8000, 300 * 2 ** this.retry++);
      window.setTimeout(() => {
        if (!this.stopped) this.reconnect();
      }, wait);
    };
  }

  private reconnect(): void {
    // On reconnect the server sends the whole state again; nothing else to do.
    this.connect();
  }

  get open(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  send(msg: Record<string, unknown>): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Sends an action; returns its ref (echoed in the answer), or null when not connected. */
  act(msg: Act): number | null {
    const ref = this.nextRef++;
    const act = { type: "act", ...msg, ref };
    if (!this.send(act)) return null;
    this.unanswered.set(ref, act);
    return ref;
  }

  close(): void {
    this.stopped = true;
    this.ws?.close();
    this.ws = null;
  }
}

// ---- sockets opened before the game screen --------------------------------------------------------------

/** Sockets opened for a game whose screen is still loading, by game and token, with the timer that closes
 * them if the screen never takes them; the screen takes them. */
const early = new Map<string, { sock: GameSocket; timer: number }>();
/** How long an early socket waits to be taken before it is closed (ms): its screen failed to come. */
const EARLY_KEPT_MS = 60_000;

function earlyKey(game: string, token: string | null): string {
  return `${game}\n${token ?? ""}`;
}

/** Opens a game's sockets (one per seat's token; a `null` token watches) while its screen's code is still
 * coming, so that the first state is on its way meanwhile rather than after it; the screen's session takes
 * them (`takeSocket`), with what they heard. Sockets not taken within a minute are closed. */
export function preconnect(game: string, tokens: (string | null)[]): void {
  for (const token of tokens) {
    const key = earlyKey(game, token);
    if (early.has(key)) continue;
    const sock = new GameSocket(game, token);
    const timer = window.setTimeout(() => {
      early.delete(key);
      sock.close();
    }, EARLY_KEPT_MS);
    early.set(key, { sock, timer });
    sock.connect();
  }
}

/** The socket `preconnect` opened for this game and token (no longer kept for anyone else), or null. */
export function takeSocket(game: string, token: string | null): GameSocket | null {
  const key = earlyKey(game, token);
  const kept = early.get(key);
  if (!kept) return null;
  early.delete(key);
  window.clearTimeout(kept.timer);
  return kept.sock;
}

/** Closes the early sockets of every game but `keep` (the page went elsewhere before their screen came). */
export function dropPreconnected(keep: string | null = null): void {
  for (const [key, { sock, timer }] of early) {
    if (sock.game === keep) continue;
    early.delete(key);
    window.clearTimeout(timer);
    sock.close();
  }
}
