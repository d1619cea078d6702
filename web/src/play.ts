// A play session: the connections of one game screen (one WebSocket per seat played in this browser, or one to
// watch), the view kept up to date from the server's `state` and `update` messages, the choices the server sends
// for the settlers this browser moves, and the action waiting for its answer. It draws nothing: the screen
// reacts to its callbacks.

import type { Act, Choices } from "./choices";
import { GameSocket, type SeatPublic, type ServerMessage, type SocketStatus, applyDiff, takeSocket } from "./net";
import type { GameEvent, GameView } from "./types";

export interface SessionHandlers {
  /** A whole view came: the first one, or again after a reconnect. */
  state(view: GameView, first: boolean): void;
  /** An update was folded into the view; `mine`: it answers this browser's pending action (sent at `mine.t0`);
   * `received`: when the message came (performance.now). */
  update(view: GameView, events: GameEvent[], seq: number, mine: { t0: number } | null, received: number): void;
  /** The choices of a seat played here changed outside the primary connection's messages. */
  choices(): void;
  /** The server refused or could not read an action (`ref` of the action, when it said). */
  error(code: string, message: string, ref?: string | number): void;
  /** The primary connection's state; `detail` for a failure. */
  status(state: SocketStatus, detail?: string): void;
}

export class PlaySession {
  view: GameView | null = null;
  seats: SeatPublic[] = [];
  /** When the server plays the current turn itself (seconds since the epoch), or null. */
  deadline: number | null = null;
  turnSeconds: number | null = null;
  seq = -1;
  /** By settler: what it can do now, as the server last said (only settlers this browser moves); null while it
   * cannot act (not its turn, dead, the game over: the view says which). */
  choices: Record<string, Choices | null> = {};
  /** By seat played here: the seq of the last message that brought its settlers' choices. */
  readonly choicesSeq: Record<number, number> = {};
  /** The action sent and not yet answered. */
  pending: { ref: number; t0: number } | null = null;
  private readonly sockets = new Map<number, GameSocket>();
  private primary: GameSocket | null = null;

  constructor(readonly gameId: string, readonly tokens: Map<number, string>, private readonly on: SessionHandlers) {}

  /** Seats this browser plays; none: a spectator. */
  get mySeats(): Set<number> {
    return new Set(this.tokens.keys());
  }

  /** Opens the connections, or takes those opened while the screen was loading (`preconnect`): what they
   * heard meanwhile is handled at once. */
  connect(): void {
    const seats = [...this.tokens.keys()].sort((a, b) => a - b);
    const open = (token: string | null): [GameSocket, boolean] => {
      const taken = takeSocket(this.gameId, token);
      return taken ? [taken, true] : [new GameSocket(this.gameId, token), false];
    };
    if (!seats.length) {
      const [sock, started] = open(null);
      this.primary = sock;
      this.wire(sock, true, 0);
      if (!started) sock.connect();
      return;
    }
    for (const seat of seats) {
      const [sock, started] = open(this.tokens.get(seat)!);
      this.sockets.set(seat, sock);
      const primary = this.primary === null;
      if (primary) this.primary = sock;
      this.wire(sock, primary, seat);
      if (!started) sock.connect();
    }
  }

  close(): void {
    for (const s of this.sockets.values()) s.close();
    this.primary?.close();
  }

  private wire(sock: GameSocket, primary: boolean, seat: number): void {
    const onStatus = (s: SocketStatus, detail?: string): void => {
      if (primary || s === "failed") this.on.status(s, detail);
    };
    const onMessage = (m: ServerMessage): void => {
      if (m.type === "ack") {  // an action sent again after a reconnect had been applied already: it is done
        if (this.pending && m.ref === this.pending.ref) this.pending = null;
        this.on.choices();
        return;
      }
      if (m.type === "error") {
        if (this.pending && (m.ref === undefined || m.ref === this.pending.ref)) this.pending = null;
        this.on.error(m.code, m.message, m.ref);
        return;
      }
      if (m.type === "ended") {  // every connection hears it (and closes); the primary's ends the game here
        if (primary) this.receive(m);
        return;
      }
      if (m.choices) {
        this.choices = { ...this.choices, ...m.choices };
        this.choicesSeq[seat] = m.seq;
      }
      // Every connection hears every update: one (the primary) is followed, the others bring their choices.
      if (primary) this.receive(m);
      else if (m.choices) this.on.choices();
    };
    sock.listen(onMessage, onStatus);
  }

  private receive(m: ServerMessage): void {
    const received = performance.now();
    if (m.type === "state") {
      this.seats = m.seats;
      this.deadline = m.deadline;
      this.turnSeconds = m.turn_seconds;
      this.seq = m.seq;
      const first = this.view === null;
      this.view = m.status === "abandoned" ? { ...m.state, status: "abandoned" } : m.state;
      this.on.state(this.view, first);
      return;
    }
    if (m.type === "ended") {  // a player abandoned the game: it is over as a won or lost one is
      if (!this.view) return;
      this.deadline = null;
      this.pending = null;
      this.view = { ...this.view, status: m.status };
      this.on.state(this.view, false);
      return;
    }
    if (m.type === "update") {
      if (!this.view) return;
      this.deadline = m.deadline;
      this.seq = m.seq;
      this.view = applyDiff(this.view, m.diff);
      const mine = this.pending && m.ref === this.pending.ref ? this.pending : null;
      if (mine) this.pending = null;
      this.on.update(this.view, m.events, m.seq, mine, received);
    }
  }

  /** Sends an action of a settler of `seat`; false when that seat is not played here or not connected. */
  act(seat: number, msg: Act): boolean {
    const sock = this.sockets.get(seat);
    if (!sock) return false;
    const t0 = performance.now();
    const ref = sock.act(msg);
    if (ref === null) return false;
    this.pending = { ref, t0 };
    return true;
  }

  /** The seat (1-based) that plays a settler, or 0. */
  seatOf(settler: string): number {
    return this.seats.find((s) => s.settlers.includes(settler))?.seat ?? 0;
  }
}
