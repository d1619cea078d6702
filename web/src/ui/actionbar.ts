// The action bar: one button per action with its shortcut; refused actions stay focusable and say why
// (on hover, on focus, and when pressed). A drill that would expose ice or uranium near the Sun asks twice.

import { t } from "../i18n";
import type { Choice } from "../choices";
import { KINDS, type Kind } from "../types";
import { kindName, refusalText } from "../words";
import type { Controller, Ctx } from "./context";
import { ICONS, coreIcon, fill, h, icon } from "./dom";

interface Slot {
  name: string;
  key: string;
  iconPath: string;
  button: HTMLButtonElement;
  label: HTMLElement;
  sub: HTMLElement;
}

const SLOTS: [string, string, string][] = [
  ["drill", "D", ICONS.drill],
  ["mine", "M", ICONS.mine],
  ["deposit", "E", ICONS.deposit],
  ["build_robot", "B", ICONS.robot],
  ["build_gates", "G", ICONS.gates],
  ["place", "P", ICONS.place],
  ["wait", "W", ICONS.wait],
];

export class ActionBar {
  readonly el: HTMLElement;
  private readonly slots = new Map<string, Slot>();
  private readonly reason: HTMLElement;
  private readonly menu: HTMLElement;
  private ctx: Ctx | null = null;
  private armedDrill = 0;
  private shown: string | null = null;

  constructor(private readonly ctl: Controller) {
    this.reason = h("div", { class: "reason", role: "status", "aria-live": "polite", id: "action-reason" });
    this.menu = h("div", { class: "deposit-menu", role: "menu", hidden: true });
    const row = h("div", { class: "actions", role: "toolbar", "aria-label": "actions" });
    for (const [name, key, path] of SLOTS) {
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
      }, icon(path), h("span", { class: "text" }, label, sub), h("kbd", {}, key));
      row.appendChild(button);
      this.slots.set(name, { name, key, iconPath: path, button, label, sub });
    }
    this.el = h("footer", { class: "actionbar" }, row, this.menu, this.reason);
  }

  private choice(name: string, kind?: Kind): Choice | undefined {
    const all = this.ctx?.choices ?? [];
    if (name === "deposit") {
      const deps = all.filter((c) => c.action === "deposit");
      return kind ? deps.find((c) => c.kind === kind) : deps.find((c) => !c.refusal) ?? deps[0];
    }
    if (name === "place") return all.find((c) => c.action === "place" && !c.refusal) ?? all.find((c) => c.action === "place");
    return all.find((c) => c.action === name);
  }

  update(ctx: Ctx): void {
    this.ctx = ctx;
    this.el.classList.toggle("inactive", !ctx.canAct);
    for (const slot of this.slots.values()) {
      const c = this.choice(slot.name);
      const ok = ctx.canAct && c !== undefined && !c.refusal;
      slot.button.setAttribute("aria-disabled", ok ? "false" : "true");
      slot.button.classList.toggle("refused", !ok);
      slot.button.classList.toggle("danger", ok && Boolean(c?.danger));
      slot.button.classList.toggle("armed", slot.name === "drill" && this.armedDrill > Date.now());
      slot.label.textContent = t(`action.${slot.name}`);
      slot.sub.textContent = this.subtitle(slot.name, ctx);
      slot.button.title = `${t(`action.${slot.name}`)} (${slot.key})`;
    }
    if (!this.menu.hidden) this.openDeposit();
    this.explain(this.shown);
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

  /** Why an action is refused (or a warning about it) in the reason line; null shows the general state. */
  explain(name: string | null): void {
    this.shown = name;
    const ctx = this.ctx;
    if (!ctx) return;
    if (!ctx.canAct) {
      this.say(ctx.waitingReason ?? "", "info");
      return;
    }
    if (!name) {
      this.say(t("hint.choose"), "info");
      return;
    }
    const c = this.choice(name);
    if (!c) {
      // The engine lists one place per carried gate: none listed, none carried.
      if (name === "place") this.say(`${t("action.place")}: ${t("place.none")}`, "refused");
      return;
    }
    if (c.refusal) this.say(`${t(`action.${name}`)}: ${refusalText(c.refusal)}`, "refused");
    else if (c.danger) this.say(this.dangerText(c), "danger");
    else this.say(t(`help.${name}`), "info");
  }

  private dangerText(c: Choice): string {
    const d = c.danger!;
    const key = `warn.${d.core}_${d.in_rounds === 0 ? "now" : "soon"}`;
    return t(key, { n: d.in_rounds });
  }

  private say(text: string, kind: "info" | "refused" | "danger" | "error"): void {
    this.reason.textContent = text;
    this.reason.className = `reason ${kind}`;
  }

  /** Shows an error from the server (or a refusal) prominently. */
  error(text: string): void {
    this.say(text, "error");
  }

  press(name: string, kind?: Kind): void {
    const ctx = this.ctx;
    if (!ctx) return;
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
      this.say(ctx.waitingReason ?? "", "refused");
      return;
    }
    if (!c) {
      this.explain(name);
      return;
    }
    if (c.refusal) {
      this.say(`${t(`action.${name}`)}: ${refusalText(c.refusal)}`, "refused");
      this.slots.get(name)?.button.classList.add("shake");
      window.setTimeout(() => this.slots.get(name)?.button.classList.remove("shake"), 400);
      return;
    }
    if (c.danger && this.armedDrill < Date.now()) {
      this.armedDrill = Date.now() + 5000;
      this.slots.get("drill")?.button.classList.add("armed");
      this.say(`${this.dangerText(c)} ${t("warn.confirm")}`, "danger");
      return;
    }
    this.armedDrill = 0;
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
