// The client's entry: a hash router over the lobby, the game screen, watching and the replay viewer.
//
//   #/                      the lobby
//   #/quick                 create the quick game (standard belt, classic, two players hot-seat) and play it
//   #/game/ID               play with the seats whose tokens this browser has (hot-seat when several)
//   #/game/ID?seat=N&token=T   an invite link: keep the token, then play seat N
//   #/game/ID?only=N        play only seat N of those held here
//   #/watch/ID              watch as a spectator
//   #/replay/ID             the replay viewer
//
// The game screen and the replay viewer (with the renderer, PixiJS) are loaded when first opened: the lobby and
// the Learn page need neither, and on a phone network they open in about half the time without them.

import { getLang, onLangChange, t } from "./i18n";
import { ApiError, type CreatedGame, answered, dropPreconnected, preconnect } from "./net";
import { api } from "./net";
import { QUICK_GAME, resumableQuickGame, saveToken, setQuickGame, takeEarlyQuickGame, tokensFor } from "./session";
import { clear, h } from "./ui/dom";
import type { GameScreen } from "./ui/game";
import { LearnScreen, LessonGuide } from "./ui/learn";
import { Lobby, createAndSave, saveCreated } from "./ui/lobby";

/** Asks at once for every file of a screen loaded later (the build names them on the entry's script element as
 * `data-game`, `data-replay`): one round trip for all, rather than one per level of imports. */
function preload(screen: "game" | "replay"): void {
  const script = document.querySelector<HTMLScriptElement>(`script[data-${screen}]`);
  for (const file of script?.dataset[screen]?.split(" ") ?? []) {
    if (!file || document.querySelector(`link[rel="modulepreload"][href="${file}"]`)) continue;
    document.head.appendChild(h("link", { rel: "modulepreload", href: file }));
  }
}

/** The game screen's module (and the renderer), loaded once when a game is first opened. */
let gameModule: Promise<typeof import("./ui/game")> | null = null;
function loadGame(): Promise<typeof import("./ui/game")> {
  if (!gameModule) preload("game");
  gameModule ??= import("./ui/game").catch((e: unknown) => {
    gameModule = null; // a network that failed may work at the next try
    throw e;
  });
  return gameModule;
}

/** A screen whose module is loaded first: a spinner meanwhile; when the module cannot be loaded (no network,
 * or a newer build has replaced this page's files on the server), a message with a reload. */
function later(make: () => Promise<Screen>): Screen {
  const el = h("div", { class: "loading" }, h("span", { class: "logo spin", "aria-hidden": "true" }), t("loading"));
  let inner: Screen | null = null;
  let gone = false;
  return {
    el,
    async start() {
      let next: Screen;
      try {
        next = await make();
      } catch (e) {
        console.error(e);
        if (!gone) el.replaceWith(navigator.onLine ? reloadCard() : offlineCard());
        return;
      }
      if (gone) return;
      inner = next;
      el.replaceWith(next.el);
      await next.start();
    },
    destroy() {
      gone = true;
      inner?.destroy();
    },
  };
}

interface Screen {
  el: HTMLElement;
  start(): void | Promise<void>;
  destroy(): void;
}

const root = document.getElementById("app")!;
let screen: Screen | null = null;
let route = "";

function parse(hash: string): { path: string[]; query: URLSearchParams } {
  const raw = hash.replace(/^#\/?/, "");
  const [path = "", query = ""] = raw.split("?");
  return { path: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

function show(next: Screen): void {
  screen?.destroy();
  clear(root);
  screen = next;
  root.appendChild(next.el);
  void Promise.resolve(next.start()).catch((e: unknown) => {
    console.error(e);
    clear(root);
    root.appendChild(problemScreen(e instanceof Error ? e.message : String(e)));
  });
}

async function navigate(force = false): Promise<void> {
  if (location.hash === route && screen && !force) return;
  route = location.hash;
  const { path, query } = parse(location.hash);
  const [page, id] = path;
  // sockets opened for a game whose screen did not come (the page went elsewhere first)
  dropPreconnected(page === "game" || page === "watch" ? id ?? null : null);
  document.body.dataset.ready = "";
  document.body.dataset.page = page ?? "lobby";
  if (!navigator.onLine && (!page || page === "lobby" || page === "learn" || page === "quick")) {
    show(message(offlineCard()));
    return;
  }
  if (page === "quick") {
    show(loading());
    // This browser's unfinished quick game, when there is one, rather than another new game.
    const last = resumableQuickGame();
    // A new game is asked for before the game screen's files (which come while it is made): on a phone's six
    // connections it would otherwise wait behind them. The page asked for it as it opened (early.ts) when it
    // was opened on this address.
    const early = takeEarlyQuickGame();
    const making = last ? null : early ? saveCreated(answered<CreatedGame>(early)) : createAndSave(QUICK_GAME);
    making?.catch(() => {}); // handled below, once awaited
    void loadGame().catch(() => {});
    try {
      if (last) {
        const running = (await api.lobby()).games.some((g) => g.id === last && (g.status === "open" || g.status === "running"));
        if (running) {
          history.replaceState(null, "", `#/game/${encodeURIComponent(last)}`);
          route = "";
          void navigate();
          return;
        }
      }
      const made = await (making ?? createAndSave(QUICK_GAME));
      setQuickGame(made.id);
      history.replaceState(null, "", `#/game/${encodeURIComponent(made.id)}`);
      route = "";
      void navigate();
    } catch (e) {
      show(message(e instanceof ApiError ? e.message : t("error.connection")));
    }
    return;
  }
  if ((page === "game" || page === "watch" || page === "replay") && !id) {
    show(message(t("problem.no_game")));
    return;
  }
  if (page === "game") {
    const token = query.get("token");
    const seat = Number(query.get("seat"));
    if (token && seat > 0) {
      saveToken(id!, seat, token);
      history.replaceState(null, "", `#/game/${encodeURIComponent(id!)}?only=${seat}`);
      route = location.hash;
    }
    let tokens = tokensFor(id!);
    const only = Number(query.get("only"));
    if (only > 0) tokens = new Map([...tokens].filter(([s]) => s === only));
    if (!tokens.size) {
      show(message(t("problem.no_token")));
      return;
    }
    const lesson = query.get("lesson");
    // the game's first state comes while the screen's files do
    preconnect(id!, [...tokens.values()]);
    show(later(async () => gameWithGuide(new (await loadGame()).GameScreen(id!, tokens), id!, lesson)));
    return;
  }
  if (page === "learn") {
    show(new LearnScreen());
    return;
  }
  if (page === "watch") {
    preconnect(id!, [null]);
    show(later(async () => new (await loadGame()).GameScreen(id!, new Map())));
    return;
  }
  if (page === "replay") {
    preload("replay");
    show(later(async () => new (await import("./ui/replay")).ReplayScreen(id!)));
    return;
  }
  show(new Lobby());
}

/** What the app says without a network: every game is played on the server, so each needs a connection. */
function offlineCard(): HTMLElement {
  return h("div", { class: "problem offline", "data-offline": "1" }, h("div", { class: "card", role: "status" },
    h("h2", {}, t("offline.title")), h("p", {}, t("offline.text")),
    h("button", { type: "button", class: "button primary", onclick: () => void navigate(true) }, t("offline.retry"))));
}

/** The game's files did not arrive: the network failed, or a newer build has replaced this page's files on the
 * server (the newer build is used after a reload). */
function reloadCard(): HTMLElement {
  return h("div", { class: "problem" }, h("div", { class: "card", role: "alert" },
    h("h2", {}, t("update.title")), h("p", {}, t("update.text")),
    h("button", { type: "button", class: "button primary", onclick: () => location.reload() }, t("update.reload"))));
}

/** A problem's card, with a way back to the lobby. */
function problemScreen(text: string): HTMLElement {
  return h("div", { class: "problem" }, h("div", { class: "card" }, h("h2", {}, t("problem.title")), h("p", {}, text),
    h("a", { class: "button primary", href: "#/" }, t("nav.lobby"))));
}

/** The game screen, with a lesson's guide (from `?lesson=`) or a puzzle's (recognised by its belt). */
function gameWithGuide(game: GameScreen, id: string, lesson: string | null): Screen {
  let guide: LessonGuide | null = null;
  return {
    el: game.el,
    async start() {
      await game.start();
      let which = lesson;
      if (!which) {
        const belt = await game.beltName;
        which = (await api.lessons()).lessons.find((l) => l.kind === "puzzle" && l.belt === belt)?.id ?? null;
      }
      if (!which) return;
      guide = new LessonGuide(game, id, which);
      await guide.start();
    },
    destroy() {
      guide?.destroy();
      game.destroy();
    },
  };
}

function loading(): Screen {
  return { el: h("div", { class: "loading" }, h("span", { class: "logo spin", "aria-hidden": "true" }), t("loading")), start() {}, destroy() {} };
}

function message(content: string | HTMLElement): Screen {
  return { el: typeof content === "string" ? problemScreen(content) : content, start() {}, destroy() {} };
}

/** The web app manifest of the chosen language (its name and description). */
function pointManifest(): void {
  const link = document.querySelector<HTMLLinkElement>('link[rel="manifest"]');
  if (link) link.href = getLang() === "en" ? "manifest.webmanifest" : `manifest-${getLang()}.webmanifest`;
}

/** The service worker (sw.js) keeps this build's files for offline opens; registered once the page has loaded,
 * so that it never competes with the page's own files on a slow network. Not under `npm run watch`. */
function registerWorker(): void {
  if (!("serviceWorker" in navigator) || !document.querySelector('script[src^="assets/main-"]')) return;
  const register = (): void => {
    navigator.serviceWorker.register("sw.js", { scope: "./" }).catch((e: unknown) => console.warn("no service worker:", e));
  };
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

document.documentElement.lang = getLang();
document.title = t("app.name");
pointManifest();
registerWorker();
// Without a network the lobby says so; it comes back by itself with the network.
const onLine = (): void => {
  const { path } = parse(location.hash);
  if (!path[0] || path[0] === "lobby" || path[0] === "learn") void navigate(true);
};
window.addEventListener("online", onLine);
window.addEventListener("offline", onLine);
window.addEventListener("hashchange", () => void navigate());
onLangChange(() => {
  document.title = t("app.name");
  pointManifest();
  // The lobby and message screens are simple: draw them again in the new language.
  const { path } = parse(location.hash);
  if (!path[0] || path[0] === "lobby") void navigate(true);
});
void navigate();
