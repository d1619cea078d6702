// What the panels of the game screen are drawn from, and what they may ask the screen to do.

import type { Model } from "../model";
import type { SeatPublic } from "../net";
import type { Choice, Choices } from "../choices";
import type { SettlerView } from "../types";

export interface Ctx {
  model: Model;
  seats: SeatPublic[];
  /** Seats this browser plays (their tokens are here); empty for a spectator. */
  mySeats: Set<number>;
  mySettlers: Set<string>;
  /** The settler whose step it is (alive, game running). */
  current: SettlerView | undefined;
  /** The current settler is played from this browser and no action is waiting for the server. */
  canAct: boolean;
  /** An action of the current settler is on its way to the server (so `canAct` is false for that moment only). */
  sending: boolean;
  /** Why this browser cannot act now, when it cannot (translated). */
  waitingReason: string | null;
  /** Everything the current settler can do (the server's choices, or the client's until it sends them). */
  all: Choices | null;
  choices: Choice[];
  destinations: Choice[];
  /** Index of the keyboard-chosen destination, or -1. */
  focus: number;
  spectator: boolean;
  seatOf(settler: string): number;
}

export interface Controller {
  act(choice: Choice): void;
  setFocus(index: number, show?: boolean): void;
  inspect(id: string | null): void;
  centre(id: string): void;
  /** Frames these asteroids on the map. */
  show(ids: string[]): void;
  /** The deposit's kinds were just drawn: a lesson's pointer may name one of them. */
  menuOpened(): void;
}
