// "What would a good player do?": a map button that asks the server's planner bot for the best action of the
// settler whose step it is (POST /api/games/{id}/hint, with the seat's token), then shows it — the map framed on
// the settler and its destination, the destination ringed or the action's button pulsing — with a one-line
// reason in the player's language. The hint is for the step it was asked at: the next view clears it.

import { onLangChange, t } from "../i18n";
import type { Hint } from "../protocol";
import { kindName } from "../words";
import { h, icon } from "./dom";

/** What the hint needs of the game screen. */
export interface HintHost {
  /** The settler whose step it is, if this browser plays it. */
  mine(): string | null;
  /** The token of the seat that plays `settler`. */
  token(settler: string): string | undefined;
  /** The asteroid `settler` stands on. */
  at(settler: string): string | null;
  /** Frame these asteroids on the map (and show the map on a phone). */
  show(ids: string[]): void;
  /** Point at what to press (`move:ID`, `drill`…), as a lesson's step does; null: nothing. */
  pointAt(press: string | null): void;
}

const BULB = "M12 2a7 7 0 0 1 4 12.7V17a1 1 0 0 1-1 1H9a1 1 0 0 1-1-1v-2.3A7 7 0 0 1 12 2zm0 2a5 5 0 0 0-2.9 9.1l.9.6V16h4v-2.3l.9-.6A5 5 0 0 0 12 4zM9 19h6v2a1 1 0 0 1-1 1h-4a1 1 0 0 1-1-1z";

export class HintButton {
  readonly button: HTMLButtonElement;
  /** The reason, over the map's foot; hidden without a hint. */
  readonly card = h("div", { class: "hint-card", role: "status", hidden: true });
  private hint: Hint | null = null;
  private asking = 0;
  private readonly unsub: () => void;

  constructor(private readonly host: HintHost, private readonly gameId: string) {
    this.button = h("button", { type: "button", class: "icon-btn", dataset: { tool: "hint" }, onclick: () => void this.ask() },
      icon(BULB)) as HTMLButtonElement;
    this.label();
    this.unsub = onLangChange(() => {
      this.label();
      this.draw();
    });
  }

  destroy(): void {
    this.unsub();
  }

  /** A new view: a hint given for the step before no longer holds. */
  viewChanged(): void {
    this.asking++;
    if (!this.hint && this.card.hidden) return;
    this.hint = null;
    this.card.hidden = true;
    this.card.textContent = "";
  }

  private label(): void {
    const name = t("hint.button");
    this.button.setAttribute("aria-label", name);
    this.button.title = name;
  }

  private async ask(): Promise<void> {
    const settler = this.host.mine();
    if (!settler) {
      this.say(t("hint.not_yours"), "failed");
      return;
    }
    const token = this.host.token(settler);
    if (!token) {
      this.say(t("hint.not_yours"), "failed");
      return;
    }
    const asked = ++this.asking;
    this.say(t("hint.asking"), "asking");
    let answer: Hint | null = null;
    let problem = "";
    try {
      const res = await fetch(`/api/games/${encodeURIComponent(this.gameId)}/hint`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }),
      });
      if (res.ok) answer = (await res.json()) as Hint;
      else problem = res.status === 429 ? t("hint.slow_down") : t("hint.failed");
    } catch {
      problem = t("error.connection");
    }
    if (asked !== this.asking) return; // the game moved on meanwhile: that hint is for a step gone by
    if (!answer) {
      this.say(problem, "failed");
      return;
    }
    this.hint = answer;
    this.draw();
    const action = answer.action;
    const here = this.host.at(answer.settler);
    const target = action.type === "move" ? action.target : null;
    this.host.show([here, target].filter((x): x is string => Boolean(x)));
    this.host.pointAt(target ? `move:${target}` : action.type);
  }

  private say(text: string, state: string): void {
    this.card.hidden = false;
    this.card.dataset.state = state;
    this.card.replaceChildren(icon(BULB), h("span", {}, text));
  }

  private draw(): void {
    const hint = this.hint;
    if (!hint) return;
    const p: Record<string, string | number> = { ...hint.params };
    if (typeof p.kind === "string") p.kind = kindName(p.kind);
    const a = hint.action;
    const what = a.type === "move" ? t("hint.do.move", { target: a.target }) : t(`action.${a.type}`);
    this.card.hidden = false;
    this.card.dataset.state = "shown";
    this.card.replaceChildren(icon(BULB),
      h("span", {}, h("strong", { class: "hint-what" }, what), " — ", h("span", { class: "hint-why" }, t(`hint.reason.${hint.reason}`, p))),
      h("button", { type: "button", class: "hint-close", "aria-label": t("hint.close"), onclick: () => this.viewChanged() }, "✕"));
  }
}
