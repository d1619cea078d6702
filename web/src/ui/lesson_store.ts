// What this browser remembers about the tutorial (localStorage): the lessons and puzzles finished (the Learn
// page marks them done and the first one left next), and which of its games are lessons' games (practice, kept
// out of the lobby's "your games"). Storage that is off or holds something else counts as nothing kept.

const DONE_KEY = "am.lessons.done";
const GAMES_KEY = "am.lessons.games";
/** A lesson's game older than the last this many is forgotten here (the lobby may list it again). */
const GAMES_KEPT = 100;

function readList(key: string): string[] {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(key) ?? "[]");
    return Array.isArray(kept) ? kept.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function writeList(key: string, list: string[]): void {
  try {
    localStorage.setItem(key, JSON.stringify(list));
  } catch {
    /* private mode or full: simply not kept */
  }
}

/** The lessons and puzzles finished in this browser. */
export function doneLessons(): Set<string> {
  return new Set(readList(DONE_KEY));
}

/** Remembers that a lesson or puzzle was finished in this browser. */
export function markDone(id: string): void {
  const done = doneLessons();
  if (!done.has(id)) writeList(DONE_KEY, [...done, id]);
}

/** The games this browser started for lessons and puzzles. */
export function lessonGames(): Set<string> {
  return new Set(readList(GAMES_KEY));
}

/** Remembers that `game` was started for a lesson or puzzle. */
export function markLessonGame(game: string): void {
  writeList(GAMES_KEY, [...readList(GAMES_KEY).filter((x) => x !== game), game].slice(-GAMES_KEPT));
}
