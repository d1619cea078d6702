// The client's entry: a hash router over the lobby, the game screen, watching and the replay viewer.
//
//   #/                      the lobby
//   #/quick                 create the quick game (standard belt, classic, two players hot-seat) and play it
//   #/game/ID               play with the seats whose tokens this browser has (hot-seat when several)
//   #/game/ID?seat=N&token=T   an invite link: keep the token, then play seat N
//   #/game/ID?only=N        play only seat N of those held here
//   #/watch/ID              watch as a spectator
//   #/replay/ID             the replay viewer

import { getLang, onLangChange, t } from "./i18n";
import { ApiError } from "./net";
import { api } from "./net";
import { quickGame, saveToken, setQuickGame, tokensFor } from "./session";
import { clear, h } from "./ui/dom";
import { GameScreen, problemScreen } from "./ui/game";
import { LearnScreen, LessonGuide } from "./ui/learn";
import { Lobby, QUICK_GAME, createAndSave } from "./ui/lobby";
import { ReplayScreen } from "./ui/replay";

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
  document.body.dataset.ready = "";
  document.body.dataset.page = page ?? "lobby";
  if (page === "quick") {
    show(loading());
    try {
      // This browser's unfinished quick game, when there is one, rather than another new game.
      const last = quickGame();
      if (last && tokensFor(last).size) {
        const running = (await api.lobby()).games.some((g) => g.id === last && (g.status === "open" || g.status === "running"));
        if (running) {
          history.replaceState(null, "", `#/game/${encodeURIComponent(last)}`);
          route = "";
          void navigate();
          return;
        }
      }
      const made = await createAndSave(QUICK_GAME);
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
    show(gameWithGuide(id!, tokens, query.get("lesson")));
    return;
  }
  if (page === "learn") {
    show(new LearnScreen());
    return;
  }
  if (page === "watch") {
    show(new GameScreen(id!, new Map()));
    return;
  }
  if (page === "replay") {
    show(new ReplayScreen(id!));
    return;
  }
  show(new Lobby());
}

/** The game screen, with a lesson's guide (from `?lesson=`) or a puzzle's (recognised by its belt). */
function gameWithGuide(id: string, tokens: Map<number, string>, lesson: string | null): Screen {
  const game = new GameScreen(id, tokens);
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

function message(text: string): Screen {
  return { el: problemScreen(text), start() {}, destroy() {} };
}

document.documentElement.lang = getLang();
document.title = t("app.name");
window.addEventListener("hashchange", () => void navigate());
onLangChange(() => {
  document.title = t("app.name");
  // The lobby and message screens are simple: draw them again in the new language.
  const { path } = parse(location.hash);
  if (!path[0] || path[0] === "lobby") void navigate(true);
});
void navigate();
