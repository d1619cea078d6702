// The seats this browser plays: their tokens, kept in localStorage per game (a token is the seat's secret,
// shown once by the server when the game is created, or carried by an invite link).

import type { CreateBody } from "./net";

const KEY = "am.tokens";

type Store = Record<string, Record<string, string>>;

function read(): Store {
  try {
    const raw = localStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Store) : {};
  } catch {
    return {};
  }
}

function write(store: Store): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(store));
  } catch {
    /* storage may be off: the tokens then live as long as the page */
  }
}

const memory: Store = {};

/** seat number → token, for one game. */
export function tokensFor(game: string): Map<number, string> {
  const all = { ...read(), ...memory };
  const seats = all[game] ?? {};
  return new Map(Object.entries(seats).map(([seat, token]) => [Number(seat), token]));
}

export function saveToken(game: string, seat: number, token: string): void {
  const store = read();
  store[game] = { ...(store[game] ?? {}), [String(seat)]: token };
  memory[game] = { ...(memory[game] ?? {}), [String(seat)]: token };
  write(store);
}

const HANDOVER = "am.handover";

/** Whether this browser shows a hand-over screen between the seats of a hot-seat game (the lobby's option). */
export function wantsHandover(game: string): boolean {
  try {
    return (JSON.parse(localStorage.getItem(HANDOVER) ?? "[]") as string[]).includes(game);
  } catch {
    return false;
  }
}

export function setHandover(game: string, on: boolean): void {
  try {
    const all = (JSON.parse(localStorage.getItem(HANDOVER) ?? "[]") as string[]).filter((g) => g !== game);
    if (on) all.push(game);
    localStorage.setItem(HANDOVER, JSON.stringify(all.slice(-50)));
  } catch {
    /* storage off: no hand-over */
  }
}

/** Forgets this browser's seats of a game (it leaves the lobby's list of its games). */
export function forgetGame(game: string): void {
  const store = read();
  delete store[game];
  delete memory[game];
  write(store);
}

/** Every game this browser holds a seat of. */
export function myGames(): string[] {
  return Object.keys({ ...read(), ...memory });
}

const QUICK = "am.quick";

/** The quick game of `make play` and the lobby's big button: standard belt, classic rules, two players
 * hot-seat. */
export const QUICK_GAME: CreateBody = { seats: 2, settlers_per_seat: 2, belt: "standard", rules: "classic" };

/** The id of this browser's last quick game, if any. */
export function quickGame(): string | null {
  try {
    return localStorage.getItem(QUICK);
  } catch {
    return null;
  }
}

/** This browser's last quick game when it still holds its seats (`#/quick` resumes it if it is not over), or
 * null. */
export function resumableQuickGame(): string | null {
  const last = quickGame();
  return last && tokensFor(last).size ? last : null;
}

declare global {
  interface Window {
    /** The request for a new quick game that the page made before its entry came (early.ts). */
    __amQuickGame?: Promise<Response>;
  }
}

/** The request for a new quick game that the page made as it opened (early.ts), once; null when it made none. */
export function takeEarlyQuickGame(): Promise<Response> | null {
  const sent = window.__amQuickGame ?? null;
  delete window.__amQuickGame;
  return sent;
}

export function setQuickGame(game: string | null): void {
  try {
    if (game) localStorage.setItem(QUICK, game);
    else localStorage.removeItem(QUICK);
  } catch {
    /* storage off */
  }
}

/** The link that lets someone else play a seat. */
export function inviteLink(game: string, seat: number, token: string): string {
  return `${location.origin}/#/game/${encodeURIComponent(game)}?seat=${seat}&token=${encodeURIComponent(token)}`;
}
