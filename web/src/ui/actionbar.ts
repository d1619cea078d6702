// The action bar: one button per action with its shortcut, and under them the message line. Refused actions stay
// focusable and say why (on hover, on focus, and when pressed). A drill that would expose ice or uranium near the
// Sun just before it reacts asks twice; one that reacts later only says when.
//
// The message line has a fixed height (the layout sets how many lines it holds): whatever it says, no control
// moves under a finger. It tells, in this order: what the player's own last action did (green ✓, with what
// followed from it), why a pressed action is refused (red ✗: red is for refusals only), a pending confirmation,
// a warning about the bare core under the settler, or a hint. Hovering or focusing a button explains it there
// for as long as the pointer or focus stays.
//
// A pending confirmation does not expire: on a phone the player may take a while to read the warning, and a
// confirmation that ran out (silently, or against a countdown) turns the second tap into nothing, or into a
// surprise. It stays visible instead (the Drill button is marked, the line says so and offers Cancel) and ends
// with the second press, Cancel, Escape, any other action or tap on the map, or any change of the game.

import { t } from "../i18n";
import { type Choice, choiceFor } from "../choices";
import { ACTION_SLOTS } from "../generated/actions";
import { type Part, dangerText, needsConfirm } from "../outcome";
import { KINDS, type Kind } from "../types";
import { kindName, refusalText } from "../words";
import type { Controller, Ctx } from "./context";
import { initialOf, letteredIcon, pictureOf, setLetter } from "./action_icons";
import { coreIcon, fill, h, icon } from "./dom";

interface Slot {
  name: string;
  key: string;
  /** The lettered picture of an action with no drawn one (its letter follows the language), else null. */
  lettered: SVGSVGElement | null;
  button: HTMLButtonElement;
  label: HTMLElement;
  sub: HTMLElement;
}

/** The bar's buttons: the generated action table's slots and keys (from the engine's action specs), each with its
 * drawn picture, or null for one without (it shows its initial: `action_icons`). */
const SLOTS: [string, string, string | null][] =
  ACTION_SLOTS.map(({ name, key }) => [name, key.toUpperCase(), pictureOf(name)]);

/** The cross of Cancel. */
const CANCEL = "M6.4 5L12 10.6 17.6 5 19 6.4 13.4 12 19 17.6 17.6 19 12 13.4 6.4 19 5 17.6 10.6 12 5 6.4z";

/** A touch screen: the words say "tap" rather than "press". */
const touch = (): boolean => window.matchMedia("(pointer: coarse)").matches;

export class ActionBar {
  readonly el: HTMLElement;
  private readonly slots = new Map<string, Slot>();
  private readonly reason: HTMLElement;
  /** Cancel for a pending confirmation: at the end of the message line on wide screens, in the empty cell after
   * Wait on small ones (where the line's width is for the words); the layout shows one of them. */
  private readonly cancels: HTMLButtonElement[];
  private readonly menu: HTMLElement;
  private ctx: Ctx | null = null;
  /** A drill waits for its second press (see the file's comment: it does not expire). */
  private armed = false;
  /** The button hovered or focused, whose explanation the line shows; null: the line's own message. */
  private shown: string | null = null;
  /** What the last press led to: the action's outcome, or why it was refused; kept until the next press. */
  private outcome: Part[] = [];
  /** The warning about the bare core under the current settler (set by the screen with each view). */
  private warning: string | null = null;
  /** A press that came before the current settler's choices did (in hot-seat the next seat's choices arrive on
   * its own connection, a moment after the update that made it current): pressed again when they come, so that
   * a quick key or tap is never lost; dropped if another settler's turn comes first. */
  private queued: { name: string; kind?: Kind; settler: string } | null = null;

  constructor(private readonly ctl: Controller) {
    this.reason = h("div", { class: "reason", role: "status", "aria-live": "polite", id: "action-reason" });
    this.cancels = [
      h("button", { type: "button", class: "cancel reason-cancel", hidden: true, onclick: () => this.disarm() }),
      h("button", { type: "button", class: "cancel cancel-cell", hidden: true, onclick: () => this.disarm() }),
    ];
    this.menu = h("div", { class: "deposit-menu", role: "menu", hidden: true });
    const row = h("div", { class: "actions", role: "toolbar", "aria-label": "actions" });
    // wide screens give every button one column of a single row, however many actions the engine offers
    row.style.setProperty("--slots", String(SLOTS.length));
    for (const [name, key, path] of SLOTS) {
      const picture = path === null ? letteredIcon(initialOf(t(`action.${name}`))) : icon(path);
      const label = h("span", { class: "label" });
      const sub = h("span", { class: "sub" });
      const button = h("button", {
        class: `action action-${name}`,
        type: "button",
        dataset: { action: name },
        "aria-describedby": "action-reason",
        onclick: () => this.press(name),
        onmouseenter: () => this.explain(name),
        onfocus: () => this.explain(name),
        onmouseleave: () => this.explain(null),
        onblur: () => this.explain(null),
      }, picture, h("span", { class: "text" }, label, sub), h("kbd", {}, key));
      row.appendChild(button);
      this.slots.set(name, { name, key, lettered: path === null ? picture : null, button, label, sub });
    }
    row.appendChild(this.cancels[1]!);
    const line = h("div", { class: "reason-line" }, this.reason, this.cancels[0]);
    this.el = h("footer", { class: "actionbar" }, row, this.menu, line);
  }

  private choice(name: string, kind?: Kind): Choice | undefined {
    return choiceFor(this.ctx?.choices ?? [], name, kind);
  }

  update(ctx: Ctx): void {
    this.ctx = ctx;
    this.el.classList.toggle("inactive", !ctx.canAct);
    for (const slot of this.slots.values()) {
      const c = this.choice(slot.name);
      const ok = ctx.canAct && c !== undefined && !c.refusal;
      const confirm = ok && c?.danger !== undefined && needsConfirm(c.danger);
      slot.button.setAttribute("aria-disabled", ok ? "false" : "true");
      slot.button.classList.toggle("refused", !ok);
      slot.button.classList.toggle("danger", confirm);
      slot.button.classList.toggle("caution", ok && c?.danger !== undefined && !confirm);
      slot.button.classList.toggle("armed", slot.name === "drill" && this.armed);
      // The warning about the bare core here says to mine it now: Mine is marked too.
      slot.button.classList.toggle("suggested", slot.name === "mine" && ok && this.warning !== null);
      slot.label.textContent = t(`action.${slot.name}`);
      if (slot.lettered) setLetter(slot.lettered, initialOf(slot.label.textContent));
      slot.sub.textContent = this.subtitle(slot.name, ctx);
      slot.button.title = `${t(`action.${slot.name}`)} (${slot.key})`;
    }
    fill(this.cancels[0]!, t("warn.cancel"));
    fill(this.cancels[1]!, icon(CANCEL), h("span", { class: "label" }, t("warn.cancel")));
    if (!this.menu.hidden) this.openDeposit();
    this.explain(this.shown);
    const queued = this.queued;
    if (queued && (ctx.current?.id !== queued.settler || !ctx.canAct)) this.queued = null;
    else if (queued && ctx.all !== null) {
      this.queued = null;
      this.press(queued.name, queued.kind);
    }
  }

  private subtitle(name: string, ctx: Ctx): string {
    switch (name) {
      case "build_robot":
        return t("cost.robot");
      case "build_gates":
        return t("cost.gates");
      case "place": {
        const s = ctx.current;
        return s && s.gates.length ? s.gates.join(" · ") : t("action.place_none");
      }
      case "drill": {
        const c = this.choice("drill");
        if (c?.danger) return t(c.danger.core === "uranium" ? "warn.short_uranium" : "warn.short_ice");
        const here = ctx.current?.at ? ctx.model.asteroids.get(ctx.current.at) : undefined;
        if (!here) return "";
        return here.mantle ? t("action.drill_sub", { n: here.mantle }) : t("mantle.none");
      }
      case "mine": {
        const here = ctx.current?.at ? ctx.model.asteroids.get(ctx.current.at) : undefined;
        return here && here.core && here.core !== "unknown" ? kindName(here.core === "hollow" ? "hollow" : here.core) : "";
      }
      case "wait":
        return t("action.wait_sub");
      default:
        return "";
    }
  }

  /** Shows a button's explanation in the message line (hovered or focused), or with null the line's own message
   * (the last outcome, a pending confirmation, the warning, the waiting reason or a hint). */
  explain(name: string | null): void {
    this.shown = name;
    const ctx = this.ctx;
    if (!ctx) return;
    for (const b of this.cancels) b.hidden = !this.armed;
    if (!ctx.canAct) {
      // A press refused for the same reason says it once (in red).
      const told = this.outcome.some((p) => p.text === ctx.waitingReason);
      this.say([...this.outcome, ...(told ? [] : [{ text: ctx.waitingReason ?? "", tone: "info" as const }])]);
      return;
    }
    if (this.armed && (name === null || name === "drill")) {
      this.say([{ text: this.confirmText(), tone: "danger" }]);
      return;
    }
    if (!name) {
      const warning: Part[] = this.warning ? [{ text: this.warning, tone: "danger" }] : [];
      const parts = [...this.outcome, ...warning];
      this.say(parts.length ? parts : [{ text: t("hint.choose"), tone: "info" }]);
      return;
    }
    const c = this.choice(name);
    if (!c) {
      // The engine lists one place per carried gate: none listed, none carried.
      if (name === "place") this.say([{ text: `${t("action.place")}: ${t("place.none")}`, tone: "unavailable" }]);
      return;
    }
    if (c.refusal) this.say([{ text: `${t(`action.${name}`)}: ${refusalText(c.refusal)}`, tone: "unavailable" }]);
    else if (c.danger) this.say([{ text: this.dangerOf(c), tone: needsConfirm(c.danger) ? "danger" : "note" }]);
    else this.say([{ text: t(`help.${name}`), tone: "info" }]);
  }

  private dangerOf(c: Choice): string {
    return dangerText(c.danger!, this.ctx?.current?.at ?? "");
  }

  private confirmText(): string {
    const c = this.choice("drill");
    const warn = c?.danger ? `${this.dangerOf(c)} ` : "";
    return `${warn}${t(touch() ? "warn.confirm_touch" : "warn.confirm")}`;
  }

  /** Writes the message line: each part in its tone (the line's class is the first part's). */
  private say(parts: Part[]): void {
    const shown = parts.filter((p) => p.text);
    fill(this.reason, ...shown.flatMap((p, i) => [i ? " " : null, h("span", { class: `msg msg-${p.tone}` }, p.text)]));
    this.reason.className = `reason ${shown[0]?.tone ?? "info"}`;
  }

  /** Shows an error from the server, or a refusal, until the next press: a real refusal (red). */
  error(text: string): void {
    this.armed = false;
    this.outcome = [{ text, tone: "refused" }];
    this.shown = null;
    this.refreshArmed();
    this.explain(null);
  }

  /** The player's own action was done: what it did (and what followed), until the next press. */
  done(parts: Part[]): void {
    this.outcome = parts;
    this.shown = null;
    this.explain(null);
  }

  /** The warning about the bare core under the current settler (null: none); shown when nothing else is. */
  setWarning(text: string | null): void {
    this.warning = text;
  }

  /** An action was sent (by the bar, the map or the list): the last outcome and any confirmation are over. */
  sent(): void {
    this.outcome = [];
    this.shown = null;
    this.disarm();
  }

  /** Ends a pending confirmation (Cancel, Escape, another action, a change of the game). */
  disarm(): void {
    if (!this.armed) return;
    this.armed = false;
    this.refreshArmed();
    this.explain(null);
  }

  /** Whether a drill waits for its second press. */
  get pending(): boolean {
    return this.armed;
  }

  private refreshArmed(): void {
    this.slots.get("drill")?.button.classList.toggle("armed", this.armed);
    for (const b of this.cancels) b.hidden = !this.armed;
  }

  press(name: string, kind?: Kind): void {
    const ctx = this.ctx;
    if (!ctx) return;
    const wasArmed = this.armed;
    // Any press but the confirming one ends a pending confirmation.
    if (name !== "drill") this.disarm();
    if (name === "deposit" && !kind) {
      const c = this.choice("deposit");
      if (ctx.canAct && c && !c.refusal) {
        if (this.menu.hidden) this.openDeposit();
        else this.closeDeposit();
        return;
      }
    }
    const c = this.choice(name, kind);
    if (!ctx.canAct) {
      this.error(ctx.waitingReason ?? "");
      return;
    }
    if (!c && ctx.all === null && ctx.current) {
      this.queued = { name, kind, settler: ctx.current.id };
      return;
    }
    if (!c) {
      if (name === "place") this.error(`${t("action.place")}: ${t("place.none")}`);
      return;
    }
    if (c.refusal) {
      this.error(`${t(`action.${name}`)}: ${refusalText(c.refusal)}`);
      this.slots.get(name)?.button.classList.add("shake");
      window.setTimeout(() => this.slots.get(name)?.button.classList.remove("shake"), 400);
      return;
    }
    if (c.danger && needsConfirm(c.danger) && !wasArmed) {
      this.armed = true;
      this.outcome = [];
      this.shown = null;
      this.refreshArmed();
      this.explain(null);
      return;
    }
    this.closeDeposit();
    this.ctl.act(c);
  }

  private openDeposit(): void {
    const items = KINDS.map((kind, i) => {
      const c = this.choice("deposit", kind);
      const ok = Boolean(c && !c.refusal);
      const n = this.ctx?.current?.cargo[kind] ?? 0;
      return h("button", {
        type: "button",
        role: "menuitem",
        class: `deposit-kind ${ok ? "" : "refused"}`,
        "aria-disabled": ok ? "false" : "true",
        dataset: { kind },
        onclick: () => this.press("deposit", kind),
      }, coreIcon(kind), h("span", {}, `${kindName(kind)} ×${n}`), h("kbd", {}, String(i + 1)));
    });
    fill(this.menu, h("span", { class: "menu-title" }, t("action.deposit_which")), ...items);
    this.menu.hidden = false;
    this.ctl.menuOpened();
    const first = this.menu.querySelector<HTMLButtonElement>(".deposit-kind:not(.refused)");
    first?.focus();
  }

  closeDeposit(): void {
    this.menu.hidden = true;
  }

  get depositOpen(): boolean {
    return !this.menu.hidden;
  }

  focusFirst(): void {
    this.slots.get("drill")?.button.focus();
  }
}
