// What the browser gives the client's modules at import time, for tests under Node.
const g = globalThis as Record<string, unknown>;
g.location ??= { search: "", origin: "http://localhost", host: "localhost", protocol: "http:" };
g.localStorage ??= { getItem: () => null, setItem: () => {}, removeItem: () => {} };
try {
  if (!g.navigator) g.navigator = { language: "en" };
} catch {
  /* Node's own navigator */
}
export {};
