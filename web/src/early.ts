// The page's first moves, run inline in index.html (web/build.mjs puts it there) before the entry's code has
// come. On a phone's network each request costs a round trip, and the page has six connections to the server:
//
// - on a game's address (`#/quick`, `#/game/ID`, `#/watch/ID`, `#/replay/ID`) it asks at once for the files of
//   the screen (named on the entry's script element: `data-game`, `data-replay`), which the entry would ask
//   for only once it had come and run;
// - on `#/quick`, when this browser has no quick game to resume, it first asks the server for a new one, which
//   would otherwise wait behind those files for a connection. The entry takes the answer over (main.ts).
//
// Without a network it does nothing: the entry says that games need one.

import { QUICK_GAME, resumableQuickGame } from "./session";

const [path = "", id = ""] = location.hash.replace(/^#\/?/, "").split("?")[0]!.split("/");
if (navigator.onLine && (path === "quick" || (id && (path === "game" || path === "watch" || path === "replay")))) {
  if (path === "quick" && !resumableQuickGame()) {
    window.__amQuickGame = fetch("/api/games", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(QUICK_GAME),
    });
    // an unhandled rejection here would be reported before the entry handles it
    window.__amQuickGame.catch(() => {});
  }
  const screen = path === "replay" ? "replay" : "game";
  const files = document.querySelector<HTMLScriptElement>(`script[data-${screen}]`)?.dataset[screen] ?? "";
  for (const file of files.split(" ")) {
    if (!file) continue;
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.href = file;
    document.head.appendChild(link);
  }
}
