// The service worker (built by build.mjs into /sw.js, which the server always revalidates). It keeps one
// build's app shell in a cache named by the build's version, so that the app opens without a network and says
// that its games need one; it never keeps an API answer (/api/*) nor a page with a query (an invite link's
// seat token), and never mixes the files of two builds:
//
// - the page is asked for from the network first (a new build is used at the next open); only when the network
//   fails (or takes longer than NAVIGATION_WAIT) does the cached page of this worker's build answer, and that
//   page names only files of the same build, which are in the same cache;
// - the hashed files (assets/*) never change under their name: they are answered from the cache, or fetched
//   and kept (the game screen's chunks, kept when a game is first opened);
// - a new build's worker takes over at once and deletes the caches of every other build.

declare const SW_VERSION: string;
declare const SW_SHELL: string[];

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  respondWith(response: Response | Promise<Response>): void;
}
interface WorkerScope {
  readonly registration: { readonly scope: string };
  skipWaiting(): Promise<void>;
  readonly clients: { claim(): Promise<void> };
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void;
}

const worker = self as unknown as WorkerScope;
const PREFIX = "asteroid-mining-";
const CACHE = `${PREFIX}${SW_VERSION}`;
/** How long an open waits for the network's page before the kept one answers (a network that hangs). */
const NAVIGATION_WAIT = 6000;
const scope = new URL(worker.registration.scope);
const page = new URL("./", scope).href;
const assets = new URL("assets/", scope).pathname;
const api = new URL("api/", scope).pathname;

worker.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const entry = SW_SHELL.find((p) => p.endsWith(".js")) ?? "";
    // The page is fetched past the HTTP cache; a page of another build (the server was updated meanwhile)
    // is refused, so that the install fails and is tried again at the next open rather than keep a mix.
    const fresh = await fetch(page, { cache: "no-cache" });
    if (!fresh.ok || !(await fresh.clone().text()).includes(entry)) throw new Error("the page is of another build");
    await cache.put(page, fresh);
    await cache.addAll(SW_SHELL.filter((p) => p !== "./").map((p) => new URL(p, scope).href));
    await worker.skipWaiting();
  })());
});

worker.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    await worker.clients.claim();
  })());
});

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== scope.origin || url.pathname.startsWith(api)) return; // the network's, never kept
  if (request.mode === "navigate") {
    if (url.href.split("#")[0] !== page) return; // another page, or one with a query: the network's alone
    event.respondWith(openPage(request));
    return;
  }
  if (url.pathname.startsWith(assets) && !url.search) event.respondWith(hashedFile(request));
});

/** The page from the network; the kept one when the network fails or hangs. */
async function openPage(request: Request): Promise<Response> {
  const network = fetch(request);
  // caches.match with a cacheName (not caches.open) never makes a deleted cache anew
  const kept = async (): Promise<Response> => (await caches.match(page, { cacheName: CACHE, ignoreVary: true }))
    ?? network;
  let timer = 0;
  const slow = new Promise<"slow">((resolve) => { timer = setTimeout(() => resolve("slow"), NAVIGATION_WAIT); });
  try {
    const first = await Promise.race([network, slow]);
    if (first !== "slow") return first;
    return await kept();
  } catch {
    return await kept();
  } finally {
    clearTimeout(timer);
  }
}

/** A hashed file: from this build's cache, or from the network and then kept (its name never changes content). */
async function hashedFile(request: Request): Promise<Response> {
  const hit = await caches.match(request, { cacheName: CACHE, ignoreVary: true });
  if (hit) return hit;
  const answer = await fetch(request);
  // Not kept when a newer build's worker has taken over meanwhile (and deleted this build's cache): putting it
  // would make the deleted cache anew, left behind for good.
  if (answer.status === 200 && !request.url.endsWith(".map") && (await caches.has(CACHE))) {
    await (await caches.open(CACHE)).put(request, answer.clone());
  }
  return answer;
}
