// The game screen's top bar: back to the lobby, the belt and rules, the round, the turn order (whose step it
// is, who is dead), the turn timer, the connection, the language switch and the help.

import { type Lang, LANGS, getLang, has, setLang, t } from "../i18n";
import { seatName, settlerName } from "../words";
import type { Ctx } from "./context";
import { ICONS, fill, h, icon } from "./dom";
import { token } from "./panels";

export function langSwitch(): HTMLElement {
  const el = h("div", { class: "lang", role: "group", "aria-label": t("lang.label") });
  const draw = (): void => {
    el.setAttribute("aria-label", t("lang.label"));
    fill(el, icon(ICONS.globe), ...LANGS.map((l: Lang) => h("button", {
      type: "button",
      class: l === getLang() ? "on" : "",
      "aria-pressed": l === getLang() ? "true" : "false",
      lang: l,
      title: t(`lang.${l}`),
      dataset: { lang: l },
      onclick: () => setLang(l),
    }, l.toUpperCase())));
  };
  draw();
  (el as HTMLElement & { redraw?: () => void }).redraw = draw;
  return el;
}

export class TopBar {
  readonly el: HTMLElement;
  private readonly info = h("div", { class: "info" });
  private readonly round = h("div", { class: "round-box", role: "status", "aria-live": "polite" });
  private readonly order = h("ol", { class: "order", "aria-label": "turn order" });
  private readonly timer = h("div", { class: "timer", role: "timer", hidden: true });
  private readonly conn = h("span", { class: "conn", role: "status" });
  private readonly lang = langSwitch();
  private readonly helpBtn: HTMLButtonElement;
  private readonly lobbyBtn: HTMLAnchorElement;
  private deadline: number | null = null;
  private turnSeconds: number | null = null;

  /** The rules preset and the belt's name, shown beside the brand. */
  mode = "classic";
  title = "";

  constructor(onHelp: () => void) {
    this.helpBtn = h("button", { type: "button", class: "icon-btn", onclick: onHelp }, icon(ICONS.help));
    this.lobbyBtn = h("a", { class: "brand", href: "#/" }, h("span", { class: "logo", "aria-hidden": "true" }), h("span", { class: "brand-name" }));
    this.el = h("header", { class: "topbar" }, this.lobbyBtn, this.info, this.round, this.order, this.timer,
      h("div", { class: "spacer" }), this.conn, this.lang, this.helpBtn);
    window.setInterval(() => this.tick(), 250);
  }

  setClock(deadline: number | null, turnSeconds: number | null): void {
    this.deadline = deadline;
    this.turnSeconds = turnSeconds;
    this.tick();
  }

  setConnection(state: string): void {
    this.conn.className = `conn ${state}`;
    this.conn.textContent = state === "open" ? "" : t(`conn.${state}`);
  }

  update(ctx: Ctx): void {
    const v = ctx.model.view;
    this.lobbyBtn.title = t("nav.lobby");
    this.lobbyBtn.lastElementChild!.textContent = t("app.name");
    this.helpBtn.title = t("help.title");
    this.helpBtn.setAttribute("aria-label", t("help.title"));
    (this.lang as HTMLElement & { redraw?: () => void }).redraw?.();
    fill(this.info, h("span", { class: "belt-name" }, has(`belt.${this.title}`) ? t(`belt.${this.title}`) : this.title),
      h("span", { class: "muted" }, `\u00a0· ${t(`rules.${this.mode}`)}`),
      ctx.spectator ? h("span", { class: "badge watch" }, icon(ICONS.eye), t("watch.badge")) : null);
    fill(this.round, h("span", { class: "muted" }, t("round.label")), h("strong", {}, String(v.round)));
    // a phone shows the number alone: the box keeps its words for screen readers and a tooltip
    this.round.setAttribute("aria-label", `${t("round.label")} ${v.round}`);
    this.round.title = `${t("round.label")} ${v.round}`;
    const items = v.settlers.map((s) => {
      const seat = ctx.seatOf(s.id);
      const now = v.turn === s.id && v.status === "running";
      const mine = ctx.mySettlers.has(s.id);
      return h("li", {
        class: `${now ? "now" : ""} ${s.alive ? "" : "dead"} ${mine ? "mine" : ""}`,
        title: `${settlerName(s.id)} · ${seatName(seat + 1)}${s.alive ? "" : ` · ${t("settler.dead")}`}`,
      }, token(s.id, seat, s.alive));
    });
    fill(this.order, ...items);
    this.order.setAttribute("aria-label", t("turn.order"));
    const cur = ctx.current;
    if (cur) {
      const seat = ctx.seatOf(cur.id) + 1;
      this.order.setAttribute("aria-description", t("turn.of", { settler: settlerName(cur.id), seat: seatName(seat) }));
    }
    this.tick();
  }

  private tick(): void {
    // A game with a turn timer keeps the timer's place in the bar even while no turn runs (the game is over, the
    // robots move): its coming and going would move what follows it.
    if (!this.turnSeconds) {
      this.timer.hidden = true;
      return;
    }
    this.timer.hidden = false;
    if (this.deadline === null) {
      this.timer.classList.remove("low");
      fill(this.timer, icon(ICONS.clock), h("span", { class: "t" }, "–:––"),
        h("span", { class: "bar" }, h("span", { style: { width: "0%" } })));
      this.timer.removeAttribute("aria-label");
      return;
    }
    const left = Math.max(0, this.deadline - Date.now() / 1000);
    const frac = Math.min(1, left / this.turnSeconds);
    this.timer.hidden = false;
    this.timer.classList.toggle("low", left < 10);
    const m = Math.floor(left / 60);
    const s = Math.floor(left % 60);
    fill(this.timer, icon(ICONS.clock), h("span", { class: "t" }, `${m}:${String(s).padStart(2, "0")}`),
      h("span", { class: "bar" }, h("span", { style: { width: `${(frac * 100).toFixed(1)}%` } })));
    this.timer.setAttribute("aria-label", t("timer.left", { s: Math.ceil(left) }));
  }
}
