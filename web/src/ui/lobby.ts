// The lobby: play at once (one click), create a game with every setting (seats, settlers, belt preset or a
// belt file, rules and options, seed, turn timer, bot seats), share invite links, list games to resume,
// watch or replay.

import { has, t } from "../i18n";
import { ApiError, type BeltCatalog, type CreateBody, type CreatedGame, type CreatedSeat, type GameSummary, api } from "../net";
import type { Lobby as LobbyPage } from "../protocol";
import { forgetGame, inviteLink, myGames, saveToken, setHandover, tokensFor } from "../session";
import { botName, seatName, settlerName } from "../words";
import { ICONS, fill, h, icon } from "./dom";
import { lessonGames, markLessonGame } from "./lesson_store";
import { langSwitch } from "./topbar";

const TIMERS = [0, 30, 60, 120, 300];
/** The largest lobby page the server gives by default (`lobby_max_page_size`): the list shown is asked for again
 * in pages this large, every 5 seconds, after "More games" (in pages of the server's own size on a server that
 * allows fewer). */
const PAGE_MAX = 200;
let pageMax = PAGE_MAX;

/** One page of the lobby, at most `limit` games (fewer on a server whose largest page is smaller). */
async function lobbyPage(limit: number, cursor?: string | null): Promise<LobbyPage> {
  try {
    return await api.lobby({ limit: pageMax ? Math.min(limit, pageMax) : undefined, cursor });
  } catch (e) {
    if (!(e instanceof ApiError && e.field === "limit") || pageMax === 0) throw e;
    pageMax = 0; // from now on, the server's own page size (no `limit`)
    return api.lobby({ cursor });
  }
}

/** A new game of a lesson, its seats' tokens kept in this browser. */
export async function createLessonGame(lesson: string): Promise<{ id: string; seats: CreatedSeat[] }> {
  const made = await api.lessonGame(lesson);
  markLessonGame(made.id);  // practice: kept out of "your games"
  for (const s of made.seats) if (s.token) saveToken(made.id, s.seat, s.token);
  return made;
}

export async function createAndSave(body: CreateBody): Promise<{ id: string; seats: CreatedSeat[] }> {
  return saveCreated(api.create(body));
}

/** A new game's seats kept in this browser once the server has made it (`answer`: the server's answer). */
export async function saveCreated(answer: Promise<CreatedGame>): Promise<CreatedGame> {
  const made = await answer;
  for (const s of made.seats) if (s.token) saveToken(made.id, s.seat, s.token);
  return made;
}

export class Lobby {
  readonly el: HTMLElement;
  private readonly games = h("ul", { class: "games", "aria-live": "polite" });
  private readonly mine = h("ul", { class: "games mine" });
  private readonly created = h("section", { class: "panel created", hidden: true, "aria-live": "polite" });
  private readonly error = h("p", { class: "form-error", role: "alert" });
  private readonly form: HTMLFormElement;
  private beltFile: Record<string, unknown> | null = null;
  private timer = 0;
  /** The lobby's games shown: the first page, and those "More games" added. */
  private listed: GameSummary[] = [];
  /** The `next` cursor after the games shown (null: every game is shown). */
  private next: string | null = null;
  /** How many games the person asked to see (0: the first page only): each refresh lists as many. */
  private wanted = 0;
  /** Bumped by each listing asked for: an answer that a later one overtook is dropped. */
  private generation = 0;
  private loadingMore = false;
  private readonly count = h("p", { class: "muted small games-count", id: "games-count", hidden: true });
  private readonly more = h("button", { type: "button", class: "button more-games", id: "more-games", hidden: true,
    "aria-describedby": "games-count", onclick: () => void this.loadMore() }, t("lobby.more"));

  constructor() {
    this.form = this.buildForm();
    this.el = h("div", { class: "lobby" },
      h("header", { class: "lobby-head" },
        h("div", { class: "brand big" }, h("span", { class: "logo", "aria-hidden": "true" }), h("h1", {}, t("app.name"))),
        h("div", { class: "spacer" }), langSwitch()),
      h("section", { class: "hero" },
        h("div", { class: "hero-text" },
          h("p", { class: "tagline" }, t("lobby.tagline")),
          h("p", { class: "muted" }, t("lobby.pitch"))),
        h("div", { class: "hero-play" },
          h("button", { type: "button", class: "primary huge", id: "quick-play", onclick: () => this.quick() },
            icon(ICONS.play), t("lobby.quick")),
          h("p", { class: "muted small" }, t("lobby.quick_sub")),
          h("a", { class: "button big learn-link", id: "learn", href: "#/learn" }, icon(ICONS.help), t("lobby.learn")))),
      h("div", { class: "lobby-cols" },
        h("section", { class: "panel new-game", "aria-labelledby": "new-title" },
          h("h2", { id: "new-title" }, t("lobby.new")), this.form, this.error),
        h("div", { class: "lobby-right" }, this.created,
          h("section", { class: "panel list", "aria-labelledby": "games-title" },
            h("div", { class: "row-head" }, h("h2", { id: "games-title" }, t("lobby.games")),
              h("button", { type: "button", class: "icon-btn", title: t("lobby.refresh"), "aria-label": t("lobby.refresh"),
                onclick: () => void this.refresh() }, icon(ICONS.replay))),
            this.games,
            h("div", { class: "games-foot" }, this.count, this.more)),
          h("section", { class: "panel list", "aria-labelledby": "mine-title" },
            h("h2", { id: "mine-title" }, t("lobby.mine")), this.mine))));
  }

  start(): void {
    void this.refresh();
    this.timer = window.setInterval(() => void this.refresh(), 5000);
  }

  destroy(): void {
    window.clearInterval(this.timer);
  }

  /** The quick game: this browser's unfinished one, or a new one (`#/quick` decides). */
  private quick(): void {
    location.hash = "#/quick";
  }

  private field(label: string, control: HTMLElement, hint?: string): HTMLElement {
    return h("label", { class: "field" }, h("span", { class: "flabel" }, label), control,
      hint ? h("span", { class: "hint" }, hint) : null);
  }

  private buildForm(): HTMLFormElement {
    const num = (name: string, value: number, min: number, max: number): HTMLInputElement =>
      h("input", { type: "number", name, value: String(value), min: String(min), max: String(max), required: true });
    // The belts, difficulty levels and bots are the server's (GET /api/belts, GET /api/bots).
    const fileOption = h("option", { value: "__file" }, t("belt.file"));
    const beltSelect = h("select", { name: "belt" }, fileOption);
    const difficultySelect = h("select", { name: "difficulty" }, h("option", { value: "" }, t("difficulty.none")));
    let botNames: string[] = [];
    void api.belts().then((catalog: BeltCatalog) => {
      for (const b of catalog.belts) {
        beltSelect.insertBefore(h("option", { value: b.name, selected: b.name === "standard", title: b.description },
          has(`belt.${b.name}`) ? t(`belt.${b.name}`) : `${b.name} (${b.asteroids})`), fileOption);
      }
      if (beltSelect.value === "__file") beltSelect.value = catalog.belts[0]?.name ?? "__file";
      for (const d of catalog.difficulties) {
        difficultySelect.append(h("option", { value: d.name, title: d.description },
          has(`difficulty.${d.name}`) ? t(`difficulty.${d.name}`) : d.name));
      }
    }).catch((e: unknown) => this.showError(e));
    const fileInput = h("input", { type: "file", name: "belt_file", accept: ".json,application/json", hidden: true });
    const fileNote = h("span", { class: "hint file-note" });
    beltSelect.addEventListener("change", () => {
      fileInput.hidden = beltSelect.value !== "__file";
      if (!fileInput.hidden) fileInput.click();
    });
    fileInput.addEventListener("change", async () => {
      const f = fileInput.files?.[0];
      if (!f) return;
      try {
        this.beltFile = JSON.parse(await f.text()) as Record<string, unknown>;
        fileNote.textContent = t("belt.file_loaded", { name: String(this.beltFile.name || f.name) });
        this.error.textContent = "";
      } catch {
        this.beltFile = null;
        fileNote.textContent = "";
        this.error.textContent = t("belt.file_bad");
      }
    });
    const rules = h("div", { class: "segmented", role: "radiogroup", "aria-label": t("lobby.rules") },
      ...["classic", "extended"].map((r) => h("label", {},
        h("input", { type: "radio", name: "rules", value: r, checked: r === "classic" }), h("span", {}, t(`rules.${r}`)))));
    const opt = (key: string, control: HTMLElement): HTMLElement => this.field(t(`opt.${key}`), control, t(`opt.${key}_hint`));
    const options = h("details", { class: "options" },
      h("summary", {}, t("lobby.options")),
      h("p", { class: "hint" }, t("lobby.options_hint")),
      h("div", { class: "grid2" },
        opt("uranium_fuse", h("input", { type: "number", name: "opt_uranium_fuse", min: "1", max: "20", placeholder: t("opt.preset") })),
        opt("ufos", h("input", { type: "number", name: "opt_ufos", min: "0", max: "50", placeholder: t("opt.preset") })),
        opt("haywire_gates", h("select", { name: "opt_haywire_gates" }, h("option", { value: "" }, t("opt.preset")),
          h("option", { value: "on" }, t("opt.on")), h("option", { value: "off" }, t("opt.off")))),
        opt("storm_warning", h("input", { type: "number", name: "opt_storm_warning", min: "0", max: "20", placeholder: t("opt.preset") })),
        opt("storm_interval", h("input", { type: "number", name: "opt_storm_interval", min: "0", max: "200", placeholder: t("opt.preset") }))));
    const seatsInput = num("seats", 2, 1, 8);
    const bots = h("div", { class: "bots" });
    const drawBots = (): void => {
      const n = Math.max(1, Math.min(8, Number(seatsInput.value) || 1));
      fill(bots, ...Array.from({ length: n }, (_, i) => h("label", { class: "bot-seat" },
        h("span", {}, seatName(i + 1)),
        h("select", { name: `seat_${i + 1}` }, h("option", { value: "" }, t("seat.human")),
          ...botNames.map((b) => h("option", { value: b }, botName(b)))))));
    };
    seatsInput.addEventListener("input", drawBots);
    drawBots();
    void api.bots().then((found) => {
      botNames = found.bots;
      drawBots();
    }).catch((e: unknown) => this.showError(e));
    const form = h("form", { class: "form", onsubmit: (e: Event) => { e.preventDefault(); void this.create(); } },
      h("div", { class: "grid2" },
        this.field(t("lobby.seats"), seatsInput, t("lobby.seats_hint")),
        this.field(t("lobby.settlers"), num("settlers_per_seat", 2, 1, 6))),
      h("div", { class: "field" }, h("span", { class: "flabel" }, t("lobby.players")), bots),
      this.field(t("lobby.belt"), beltSelect), fileInput, fileNote,
      this.field(t("lobby.difficulty"), difficultySelect),
      h("div", { class: "field" }, h("span", { class: "flabel" }, t("lobby.rules")), rules),
      options,
      h("label", { class: "check" }, h("input", { type: "checkbox", name: "handover", id: "opt-handover" }), h("span", {}, t("lobby.handover"))),
      h("div", { class: "grid2" },
        this.field(t("lobby.seed"), h("input", { type: "number", name: "seed", min: "0", placeholder: t("lobby.seed_random") })),
        this.field(t("lobby.timer"), h("select", { name: "timer" },
          ...TIMERS.map((s) => h("option", { value: String(s) }, s ? t("lobby.timer_s", { s }) : t("lobby.timer_none")))))),
      h("button", { type: "submit", class: "primary", id: "create-game" }, icon(ICONS.play), t("lobby.create")));
    return form;
  }

  private body(): CreateBody {
    const data = new FormData(this.form);
    const get = (k: string): string => String(data.get(k) ?? "").trim();
    const beltChoice = get("belt");
    const belt = beltChoice === "__file" ? this.beltFile : beltChoice;
    if (!belt) throw new Error(t("belt.file_missing"));
    const seats = Number(get("seats"));
    const body: CreateBody = {
      seats,
      settlers_per_seat: Number(get("settlers_per_seat")),
      belt,
      rules: get("rules") === "extended" ? "extended" : "classic",
    };
    if (get("difficulty")) body.difficulty = get("difficulty");
    if (get("seed")) body.seed = Number(get("seed"));
    const timer = Number(get("timer"));
    if (timer > 0) body.turn_seconds = timer;
    const bots: Record<string, string> = {};
    for (let i = 1; i <= seats; i++) if (get(`seat_${i}`)) bots[String(i)] = get(`seat_${i}`);
    if (Object.keys(bots).length) body.bots = bots;
    const options: Record<string, number | boolean> = {};
    for (const key of ["uranium_fuse", "ufos", "storm_warning", "storm_interval"]) {
      if (get(`opt_${key}`)) options[key] = Number(get(`opt_${key}`));
    }
    if (get("opt_haywire_gates")) options.haywire_gates = get("opt_haywire_gates") === "on";
    if (Object.keys(options).length) body.options = options;
    return body;
  }

  private async create(): Promise<void> {
    this.error.textContent = "";
    let body: CreateBody;
    try {
      body = this.body();
    } catch (e) {
      this.error.textContent = (e as Error).message;
      return;
    }
    const button = this.form.querySelector<HTMLButtonElement>("#create-game");
    if (button) button.disabled = true;
    try {
      const made = await createAndSave(body);
      setHandover(made.id, new FormData(this.form).get("handover") === "on");
      this.showCreated(made.id, made.seats);
      void this.refresh();
    } catch (e) {
      this.showError(e);
    } finally {
      if (button) button.disabled = false;
    }
  }

  private showError(e: unknown): void {
    if (e instanceof ApiError) {
      this.error.textContent = `${t("error.create")} ${e.message}`;
    } else {
      this.error.textContent = `${t("error.create")} ${(e as Error).message}`;
    }
  }

  private showCreated(id: string, seats: CreatedSeat[]): void {
    const humans = seats.filter((s) => s.token);
    const rows = seats.map((s) => {
      if (!s.token) return h("li", { class: "seat-row" }, h("strong", {}, seatName(s.seat)), h("span", { class: "muted" }, botName(s.bot ?? "")));
      const link = inviteLink(id, s.seat, s.token);
      const input = h("input", { type: "text", readOnly: true, value: link, class: "invite", "aria-label": t("lobby.invite_for", { seat: seatName(s.seat) }) });
      return h("li", { class: "seat-row" },
        h("strong", {}, seatName(s.seat)), h("span", { class: "muted" }, t("lobby.seat_settlers", { who: s.settlers.map(settlerName).join(", ") })), input,
        h("button", { type: "button", class: "icon-btn copy", title: t("lobby.copy"), "aria-label": t("lobby.copy"),
          onclick: async (e: Event) => {
            input.select();
            try {
              await navigator.clipboard.writeText(link);
            } catch {
              document.execCommand("copy");
            }
            (e.currentTarget as HTMLElement).classList.add("done");
          } }, icon(ICONS.copy)),
        h("a", { class: "button", href: `#/game/${encodeURIComponent(id)}?only=${s.seat}` }, t("lobby.play_seat")));
    });
    fill(this.created,
      h("h2", {}, t("lobby.created")),
      h("p", { class: "muted" }, t("lobby.created_hint")),
      h("ul", { class: "seats" }, ...rows),
      h("div", { class: "buttons" },
        humans.length ? h("a", { class: "button primary", id: "play-here", href: `#/game/${encodeURIComponent(id)}` }, icon(ICONS.play),
          humans.length > 1 ? t("lobby.play_hotseat") : t("lobby.play")) : null,
        h("a", { class: "button", href: `#/watch/${encodeURIComponent(id)}` }, icon(ICONS.eye), t("lobby.watch"))));
    this.created.hidden = false;
  }

  /** This browser's games: running ones to resume or leave, finished ones with their replay. */
  private async refreshMine(): Promise<void> {
    const practice = lessonGames();
    const ids = myGames().filter((id) => !practice.has(id)).slice(-20).reverse();
    const found = await Promise.all(ids.map(async (id) => {
      try {
        return await api.summary(id);
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) forgetGame(id);
        return null;
      }
    }));
    const games = found.filter((g): g is GameSummary => g !== null);
    if (!games.length) {
      fill(this.mine, h("li", { class: "muted empty" }, t("lobby.mine_none")));
      return;
    }
    fill(this.mine, ...games.map((g) => {
      const over = g.status === "won" || g.status === "lost" || g.status === "abandoned";
      const token = [...tokensFor(g.id).entries()].find(([seat]) => g.seats.some((s) => s.seat === seat && s.kind === "human"))?.[1];
      return h("li", { class: "game-row", dataset: { game: g.id, status: g.status } },
        h("div", { class: "g-main" },
          h("strong", { class: "belt-name" }, has(`belt.${g.belt}`) ? t(`belt.${g.belt}`) : g.belt),
          h("span", { class: "muted" }, ` · ${t("lobby.round", { n: g.round })} · ${t(`status.${g.status}`)}`)),
        h("div", { class: "g-actions" },
          over ? h("a", { class: "button primary replay-link", href: `#/replay/${encodeURIComponent(g.id)}` }, icon(ICONS.replay), t("lobby.replay"))
            : h("a", { class: "button primary", href: `#/game/${encodeURIComponent(g.id)}` }, t("lobby.resume")),
          !over && token ? h("button", { type: "button", class: "button abandon", onclick: async (e: Event) => {
            if (!window.confirm(t("lobby.abandon_confirm"))) return;
            const button = e.currentTarget as HTMLButtonElement;
            button.disabled = true;
            try {
              await api.abandon(g.id, token);
            } catch (err) {
              // already over (409): the list shows it as it is now; anything else is said
              if (!(err instanceof ApiError && err.status === 409)) window.alert(t("lobby.abandon_failed"));
            }
            void this.refresh();
          } }, t("lobby.abandon")) : null,
          h("button", { type: "button", class: "button leave", onclick: () => {
            if (!over && !window.confirm(t("lobby.leave_confirm"))) return;
            forgetGame(g.id);
            void this.refresh();
          } }, t("lobby.leave"))));
    }));
  }

  private async refresh(): Promise<void> {
    void this.refreshMine();
    if (this.loadingMore) return; // the page being added is shown with the list as it is then
    const generation = ++this.generation;
    const games: GameSummary[] = [];
    let answer: LobbyPage;
    try {
      // as many games as are shown: the first page, or every page "More games" added (in pages of PAGE_MAX)
      answer = this.wanted ? await lobbyPage(this.wanted) : await api.lobby();
      games.push(...answer.games);
      while (answer.next && games.length < this.wanted) {
        answer = await lobbyPage(this.wanted - games.length, answer.next);
        games.push(...answer.games);
      }
    } catch {
      if (generation !== this.generation) return;
      fill(this.games, h("li", { class: "muted" }, t("error.connection")));
      this.count.hidden = this.more.hidden = true;
      return;
    }
    if (generation === this.generation) this.show(games, answer.total, answer.next);
  }

  /** Add the next page of the lobby to the games shown ("More games"). */
  private async loadMore(): Promise<void> {
    if (!this.next || this.loadingMore) return;
    const generation = ++this.generation;
    const before = this.listed.length;
    this.loadingMore = true;
    this.more.setAttribute("aria-busy", "true"); // (not disabled: a disabled button would drop the focus)
    try {
      const answer = await api.lobby({ cursor: this.next });
      if (generation !== this.generation) return;
      this.show([...this.listed, ...answer.games], answer.total, answer.next);
      this.wanted = this.listed.length;
      if (!answer.next) {
        // the button is gone: focus goes to the first game added rather than to the page's start
        this.games.querySelectorAll<HTMLElement>(".game-row")[before]?.querySelector<HTMLElement>("a, button")?.focus();
      }
    } catch {
      this.count.hidden = false;
      this.count.textContent = t("error.connection");
    } finally {
      this.loadingMore = false;
      this.more.removeAttribute("aria-busy");
    }
  }

  /** Show `games` (one game listed twice, on two pages, once), `total` of them listed, more after `next`. */
  private show(games: GameSummary[], total: number, next: string | null): void {
    const seen = new Set<string>();
    this.listed = games.filter((g) => !seen.has(g.id) && seen.add(g.id));
    this.next = next;
    this.more.hidden = next === null;
    this.count.hidden = !this.listed.length || (next === null && !this.wanted);
    this.count.textContent = t("lobby.count", { shown: this.listed.length, n: Math.max(total, this.listed.length) });
    if (!this.listed.length) {
      fill(this.games, h("li", { class: "muted empty" }, t("lobby.no_games")));
      return;
    }
    fill(this.games, ...this.listed.map((g) => {
      const mine = tokensFor(g.id).size > 0;
      const seats = g.seats.map((s) => h("span", {
        class: `seat-dot ${s.connected ? "on" : ""} ${s.kind}`,
        title: `${seatName(s.seat)} · ${s.kind === "bot" ? botName(s.bot ?? "") : s.connected ? t("seat.online") : t("seat.offline")}`,
      }, String(s.seat)));
      return h("li", { class: "game-row", dataset: { game: g.id } },
        h("div", { class: "g-main" },
          h("strong", { class: "belt-name" }, has(`belt.${g.belt}`) ? t(`belt.${g.belt}`) : g.belt),
          h("span", { class: "muted" }, ` · ${t(`rules.${g.rules}`)} · ${t("lobby.round", { n: g.round })} · ${t(`status.${g.status}`)}`),
          h("div", { class: "seat-dots" }, ...seats)),
        h("div", { class: "g-actions" },
          mine ? h("a", { class: "button primary", href: `#/game/${encodeURIComponent(g.id)}` }, t("lobby.resume")) : null,
          h("a", { class: "button", href: `#/watch/${encodeURIComponent(g.id)}` }, icon(ICONS.eye), t("lobby.watch"))));
    }));
  }
}
