// The seats this browser plays: their tokens, kept in localStorage per game (a token is the seat's secret,
// shown once by the server when the game is created, or carried by an invite link).

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

/** The link that lets someone else play a seat. */
export function inviteLink(game: string, seat: number, token: string): string {
  return `${location.origin}/#/game/${encodeURIComponent(game)}?seat=${seat}&token=${encodeURIComponent(token)}`;
}
