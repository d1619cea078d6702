// Learning to play: the list of lessons and puzzles ("Learn to play" in the lobby), and the guide shown over a
// lesson's game — its goal, the hint of the step at hand, what to press highlighted — which asks the server
// whether the step's expectations hold after every update, moves on, and shows a success card at the goal.
// A lesson opens with its introduction and a picture of what it teaches, ticks its steps off as they are met,
// and ends with what it taught; finished lessons are remembered by this browser (localStorage) and marked done.

import { getLang, onLangChange, t } from "../i18n";
import { ApiError, api, type LessonInfo } from "../net";
import type { GameView } from "../types";
import { createLessonGame } from "./lobby";
import { ICONS, fill, h, icon } from "./dom";
import type { GameScreen } from "./game";
import { langSwitch } from "./topbar";
import { lessonPicture } from "./lesson_picture";
import { doneLessons, markDone } from "./lesson_store";

const TICK = "M9 16.2L4.8 12l-1.4 1.4L9 19 21 7l-1.4-1.4z";

function text(x: Record<string, string>): string {
  return x[getLang()] ?? x.en ?? "";
}

/** `#/learn`: every lesson in order, then the puzzles with their par. */
export class LearnScreen {
  readonly el: HTMLElement;
  private readonly list = h("div", { class: "learn-list" });
  private readonly error = h("p", { class: "form-error", role: "alert", hidden: true });
  private readonly unsub: () => void;

  constructor() {
    this.el = h("div", { class: "lobby learn" },
      h("header", { class: "lobby-head" },
        h("a", { class: "brand big", href: "#/" }, h("span", { class: "logo", "aria-hidden": "true" }), h("h1", {}, t("app.name"))),
        h("div", { class: "spacer" }), langSwitch()),
      this.error, this.list);
    this.unsub = onLangChange(() => void this.start());
  }

  async start(): Promise<void> {
    let lessons: LessonInfo[];
    try {
      lessons = (await api.lessons()).lessons;
    } catch {
      fill(this.list, h("p", { class: "form-error" }, t("error.connection")));
      return;
    }
    const done = doneLessons();
    const lessonsOnly = lessons.filter((l) => l.kind === "lesson");
    const next = lessonsOnly.find((l) => !done.has(l.id))?.id ?? null;
    const card = (l: LessonInfo, n: number | null): HTMLElement => {
      const state = done.has(l.id) ? "done" : l.id === next ? "next" : "todo";
      return h("li", { class: `lesson-card ${state}`, dataset: { lesson: l.id, state } },
        h("div", { class: "lesson-num", "aria-hidden": "true" },
          state === "done" ? icon(TICK) : n === null ? icon(ICONS.target) : String(n)),
        h("div", { class: "lesson-text" },
          h("div", { class: "lesson-name" }, h("h3", {}, text(l.title)),
            state === "todo" ? null : h("span", { class: `badge lesson-state ${state}` }, t(`learn.state_${state}`))),
          h("p", { class: "muted" }, text(l.goal)),
          l.kind === "puzzle" ? h("p", { class: "small" }, t("learn.par", { n: l.par })) : null),
        h("button", { type: "button", class: state === "done" ? "" : "primary", onclick: () => void startLesson(l.id, this.error) },
          icon(state === "done" ? ICONS.replay : ICONS.play),
          t(state === "done" ? "learn.again" : l.kind === "puzzle" ? "learn.solve" : "learn.start")));
    };
    const puzzles = lessons.filter((l) => l.kind === "puzzle");
    fill(this.list,
      h("section", { class: "panel" }, h("h2", {}, t("learn.title")), h("p", { class: "muted" }, t("learn.text")),
        h("ol", { class: "lessons" }, ...lessonsOnly.map((l, i) => card(l, i + 1)))),
      h("section", { class: "panel" }, h("h2", {}, t("learn.puzzles")), h("p", { class: "muted" }, t("learn.puzzles_text")),
        h("ol", { class: "lessons" }, ...puzzles.map((l) => card(l, null)))));
    document.body.dataset.ready = "1";
  }

  destroy(): void {
    this.unsub();
  }
}

/** Starts a new game of a lesson and opens it; a refusal (too many games, no server) is shown in `where`. */
export async function startLesson(id: string, where: HTMLElement): Promise<void> {
  try {
    const made = await createLessonGame(id);
    location.hash = `#/game/${encodeURIComponent(made.id)}?lesson=${encodeURIComponent(id)}`;
  } catch (e) {
    where.textContent = `${t("error.create")} ${e instanceof ApiError ? e.message : t("error.connection")}`;
    where.hidden = false;
  }
}

/** The guide over a lesson's (or puzzle's) game screen. */
export class LessonGuide {
  private lesson: LessonInfo | null = null;
  private next: LessonInfo | null = null;
  private step = 0;
  private done = false;
  private checking = false;
  private again = false;
  private round = 1;
  /** The introduction stays until it is dismissed or the first step is met. */
  private introOpen = true;
  private readonly unsub: () => void;

  constructor(private readonly screen: GameScreen, private readonly gameId: string, private readonly lessonId: string) {
    this.unsub = onLangChange(() => this.draw());
  }

  async start(): Promise<void> {
    const all = (await api.lessons()).lessons;
    const i = all.findIndex((l) => l.id === this.lessonId);
    if (i < 0) return;
    this.lesson = all[i]!;
    const after = all[i + 1];
    this.next = after && after.kind === this.lesson.kind ? after : null;
    this.screen.customEnd = true;
    this.screen.onView = (view) => this.seen(view);
    this.draw();
    void this.check();
  }

  destroy(): void {
    this.unsub();
  }

  private seen(view: GameView): void {
    this.round = view.round;
    void this.check();
  }

  /** Asks the server which steps hold; one question at a time, once more if updates came meanwhile. */
  private async check(): Promise<void> {
    if (!this.lesson || this.done) return;
    if (this.checking) {
      this.again = true;
      return;
    }
    this.checking = true;
    const asked = window.__am.seq;
    try {
      const g = await api.goals(this.gameId, this.lesson.id);
      while (this.step < g.steps.length && g.steps[this.step]) this.step++;
      this.round = g.round;
      if (g.goal) this.finish(g.round, g.status);
      else if (g.status === "lost") this.failed();
      this.draw();
      window.__am.lessonSeq = Math.max(window.__am.lessonSeq, asked);
    } catch {
      /* the next update asks again */
    } finally {
      this.checking = false;
    }
    if (this.again) {
      this.again = false;
      void this.check();
    }
  }

  private currentStep(): LessonInfo["steps"][number] | null {
    const steps = this.lesson?.steps ?? [];
    return steps[Math.min(this.step, steps.length - 1)] ?? null;
  }

  private draw(): void {
    const l = this.lesson;
    if (!l) return;
    const step = this.currentStep();
    const banner = this.screen.banner;
    fill(banner,
      h("div", { class: "lesson-head" },
        h("span", { class: "eyebrow" }, t(l.kind === "puzzle" ? "learn.puzzle" : "learn.lesson")),
        h("strong", { class: "lesson-title" }, text(l.title)),
        l.kind === "puzzle" ? h("span", { class: "badge" }, t("learn.par_round", { n: l.par, round: this.round })) : null,
        l.kind === "lesson" ? h("span", { class: "badge" }, t("learn.step", { n: Math.min(this.step + 1, l.steps.length), of: l.steps.length })) : null),
      h("p", { class: "lesson-goal" }, h("span", { class: "muted" }, t("learn.goal")), " ", text(l.goal)),
      this.intro(l),
      this.ticks(l),
      step && !this.done ? h("p", { class: "lesson-hint" }, icon(ICONS.target), h("span", {}, text(step.hint))) : null);
    banner.hidden = false;
    this.screen.el.querySelector(".map")?.classList.add("has-banner");
    this.screen.pointAt(this.done ? null : step?.press ?? null);
  }

  /** The introduction and the picture of what to do, until dismissed or the first step is met. */
  private intro(l: LessonInfo): HTMLElement | null {
    if (this.step > 0 || this.done) this.introOpen = false;
    if (!this.introOpen) return null;
    return h("div", { class: "lesson-intro" },
      lessonPicture(l.id, l.steps[0]?.press ?? null, text(l.goal)),
      h("p", {}, text(l.intro)),
      h("button", { type: "button", class: "primary", id: "lesson-intro-ok", onclick: () => {
        this.introOpen = false;
        this.draw();
      } }, t("learn.got_it")));
  }

  /** The steps as ticks: one mark a step, ticked once met, and the last step met written out. */
  private ticks(l: LessonInfo): HTMLElement | null {
    if (l.kind !== "lesson") return null;
    const met = Math.min(this.step, l.steps.length);
    const last = met > 0 ? l.steps[met - 1] : undefined;
    return h("div", { class: "lesson-progress" },
      h("ol", { class: "lesson-ticks", "aria-label": t("learn.step", { n: Math.min(met + 1, l.steps.length), of: l.steps.length }) },
        ...l.steps.map((s, i) => h("li", { class: i < met ? "met" : i === met ? "now" : "", title: text(s.hint) },
          i < met ? icon(TICK) : null))),
      last && !this.done ? h("p", { class: "lesson-met" }, icon(TICK), h("span", {}, text(last.hint))) : null);
  }

  private finish(rounds: number, status: string): void {
    if (this.done || !this.lesson) return;
    this.done = true;
    const l = this.lesson;
    this.step = l.steps.length;
    markDone(l.id);
    const error = h("p", { class: "form-error", role: "alert", hidden: true });
    const taken = Math.max(0, status === "running" ? rounds - 1 : rounds);
    this.screen.showCard(h("div", { class: "card lesson-done" },
      h("div", { class: "eyebrow" }, t(l.kind === "puzzle" ? "learn.solved" : "learn.done")),
      h("h2", { id: "overlay-title" }, text(l.title)),
      h("p", {}, text(l.goal)),
      h("p", { class: "lesson-learned" }, h("strong", {}, t("learn.learned")), " ", text(l.learned)),
      h("div", { class: "stats two" },
        h("div", { class: "stat" }, h("strong", {}, String(taken)), h("span", {}, t("learn.rounds_taken", { n: taken }))),
        h("div", { class: "stat" }, h("strong", {}, String(l.par)), h("span", {}, t("learn.par_label")))),
      h("div", { class: "buttons" },
        this.next ? h("button", { type: "button", class: "primary", id: "lesson-next", onclick: () => void startLesson(this.next!.id, error) },
          icon(ICONS.next), t("learn.next", { title: text(this.next.title) })) : null,
        h("a", { class: "button", href: "#/learn", id: "lesson-list" }, icon(ICONS.back), t("learn.all"))),
      error));
  }

  private failed(): void {
    if (this.done || !this.lesson) return;
    this.done = true;
    const id = this.lesson.id;
    const error = h("p", { class: "form-error", role: "alert", hidden: true });
    this.screen.showCard(h("div", { class: "card lesson-done lost" },
      h("div", { class: "eyebrow" }, t("learn.failed")),
      h("h2", { id: "overlay-title" }, text(this.lesson.title)),
      h("p", {}, t("learn.failed_text")),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "primary", id: "lesson-retry", onclick: () => void startLesson(id, error) }, icon(ICONS.replay), t("learn.retry")),
        h("a", { class: "button", href: "#/learn" }, icon(ICONS.back), t("learn.all"))),
      error));
  }
}
