// Short animations for what just happened: drilling dust, a mined unit rising, ice boiling off, an
// explosion's flash and debris, a storm's strike, a robot built, a gate placed. Particles come from a pool.

import { Container, Sprite } from "pixi.js";
import type { Model } from "../model";
import type { EventField, GameEvent } from "../types";
import type { Atlas } from "./atlas";
import { CORE_COLOUR, GATE, OKABE_ITO, ROCK_LIGHT, SHELTER, STORM } from "./palette";
import { type Tweens, easeOut, linear } from "./tween";

interface Particle {
  sprite: Sprite;
  vx: number;
  vy: number;
  life: number;
  age: number;
  spin: number;
  grow: number;
  fade: number;
}

type Where = (id: string) => { x: number; y: number } | undefined;

/** The colour of the mark an action done leaves (the green of "done" in the action bar). */
const DONE = OKABE_ITO.bluishGreen;
/** How long that mark shows (ms). */
const ACK_MS = 1100;

export class Effects {
  private readonly live: Particle[] = [];
  private readonly pool: Sprite[] = [];

  constructor(
    private readonly layer: Container,
    private readonly atlas: Atlas,
    private readonly tweens: Tweens,
  ) {}

  /** Animates a batch of events, one after another. */
  play(events: GameEvent[], where: Where, R: number, model: Model): void {
    if (this.tweens.reducedMotion) return;
    let delay = 0;
    for (const e of events) {
      const at = (key: EventField): { x: number; y: number } | undefined => {
        const id = e[key as keyof typeof e];
        return typeof id === "string" ? where(id) : undefined;
      };
      switch (e.type) {
        case "moved":
        case "landed":
          delay += 140;
          break;
        case "drilled": {
          const p = at("asteroid");
          if (p) this.later(delay, () => this.burst(p.x, p.y, R, "debris", ROCK_LIGHT, 10, R * 2.2, 700));
          if (p) this.later(delay, () => this.flash(p.x, p.y, R * 2.4, 0xffffff, 320, "ring-thin"));
          delay += 120;
          break;
        }
        case "mined": {
          const p = at("asteroid");
          const kind = String(e.kind);
          if (p) this.later(delay, () => this.rise(p.x, p.y, R, `core-${kind}`));
          if (p) this.later(delay, () => this.burst(p.x, p.y, R * 0.5, "dot", CORE_COLOUR[kind] ?? 0xffffff, 12, R * 2, 600));
          delay += 120;
          break;
        }
        case "deposited": {
          const p = at("asteroid");
          if (p) this.later(delay, () => this.flash(p.x, p.y, R * 2.6, CORE_COLOUR[String(e.kind)] ?? 0xffffff, 500, "ring"));
          break;
        }
        case "sublimated": {
          const p = at("asteroid");
          if (p) this.later(delay, () => this.burst(p.x, p.y, R * 0.6, "dot", OKABE_ITO.skyBlue, 24, R * 2.6, 1100, -R * 1.2));
          delay += 160;
          break;
        }
        case "exploded": {
          const p = at("asteroid");
          if (p) {
            this.later(delay, () => {
              this.flash(p.x, p.y, R * 9, 0xfff1c2, 650, "dot");
              this.flash(p.x, p.y, R * 7, OKABE_ITO.orange, 800, "ring");
              this.burst(p.x, p.y, R * 0.8, "debris", ROCK_LIGHT, 22, R * 6, 1300);
              this.burst(p.x, p.y, R * 0.5, "spark", 0xffffff, 30, R * 7, 900);
            });
          }
          delay += 250;
          break;
        }
        case "storm": {
          const ids = Array.isArray(e.asteroids) ? (e.asteroids as string[]) : [];
          this.later(delay, () => {
            for (const id of ids.slice(0, 400)) {
              const p = where(id);
              if (!p) continue;
              const shelter = model.asteroids.get(id)?.shelter === true;
              this.flash(p.x, p.y, R * 3.4, shelter ? SHELTER : STORM, 900, "ring");
              this.burst(p.x, p.y, R * 0.5, "spark", shelter ? SHELTER : STORM, 6, R * 3, 800);
            }
          });
          delay += 300;
          break;
        }
        case "robot_built": {
          const p = at("asteroid");
          if (p) this.later(delay, () => this.flash(p.x, p.y, R * 3, 0xd9dee8, 600, "ring"));
          break;
        }
        case "gate_placed": {
          const p = at("asteroid");
          if (p) this.later(delay, () => this.flash(p.x, p.y, R * 3.4, GATE, 700, "ring"));
          break;
        }
        case "died":
        case "destroyed": {
          const p = at("asteroid");
          if (p) this.later(delay, () => this.burst(p.x, p.y, R * 0.6, "spark", STORM, 10, R * 2, 700));
          break;
        }
        default:
          break;
      }
    }
  }

  /** Marks the asteroid a player's own action concerned: a green ring, shown for a moment. It stands still (with
   * or without reduced motion): an animation would draw frames for its whole length, and where frames are costly
   * (a phone drawing in software) they would hold up the player's next tap; this costs two frames. `redraw` asks
   * for a frame (the scene draws only when something changes). */
  acknowledge(x: number, y: number, R: number, redraw: () => void): void {
    const s = this.take("ring", DONE);
    s.position.set(x, y);
    s.width = s.height = R * 3.2;
    s.alpha = 0.9;
    redraw();
    window.setTimeout(() => {
      if (s.destroyed) return; // the scene is gone (the player left the game)
      this.give(s);
      redraw();
    }, ACK_MS);
  }

  private later(delay: number, fn: () => void): void {
    if (delay <= 0) fn();
    else this.tweens.add(delay, () => {}, { ease: linear, done: fn });
  }

  private take(name: string, tint: number): Sprite {
    const s = this.pool.pop() ?? new Sprite();
    s.texture = this.atlas.get(name);
    s.anchor.set(0.5);
    s.tint = tint;
    s.alpha = 1;
    s.rotation = 0;
    s.visible = true;
    this.layer.addChild(s);
    return s;
  }

  private give(s: Sprite): void {
    s.visible = false;
    this.layer.removeChild(s);
    this.pool.push(s);
  }

  /** A ring or glow that grows and fades. */
  private flash(x: number, y: number, size: number, tint: number, ms: number, name: string): void {
    const s = this.take(name, tint);
    s.position.set(x, y);
    this.tweens.add(ms, (p) => {
      const d = size * (0.3 + 0.7 * p);
      s.width = s.height = d;
      s.alpha = 1 - p;
    }, { ease: easeOut, done: () => this.give(s) });
  }

  /** A core glyph that floats up and fades (a unit mined). */
  private rise(x: number, y: number, R: number, name: string): void {
    const s = this.take(name, 0xffffff);
    this.tweens.add(900, (p) => {
      s.position.set(x, y - p * R * 2.2);
      s.width = s.height = R * (1.1 - 0.4 * p);
      s.alpha = 1 - p * p;
    }, { ease: easeOut, done: () => this.give(s) });
  }

  private burst(x: number, y: number, spread: number, name: string, tint: number, n: number, reach: number, ms: number,
    drift = 0): void {
    for (let i = 0; i < n; i++) {
      const a = Math.random() * Math.PI * 2;
      const speed = (reach / ms) * (0.4 + Math.random() * 0.8);
      const s = this.take(name, tint);
      s.position.set(x + Math.cos(a) * spread * Math.random(), y + Math.sin(a) * spread * Math.random());
      const size = name === "debris" ? spread * (0.25 + Math.random() * 0.35) : spread * (0.35 + Math.random() * 0.5);
      s.width = s.height = Math.max(2, size);
      this.live.push({
        sprite: s,
        vx: Math.cos(a) * speed,
        vy: Math.sin(a) * speed + drift / ms,
        life: ms * (0.7 + Math.random() * 0.3),
        age: 0,
        spin: (Math.random() - 0.5) * 0.01,
        grow: 1,
        fade: 1,
      });
    }
  }

  /** Particles are still flying. */
  get busy(): boolean {
    return this.live.length > 0;
  }

  tick(dt: number): void {
    for (let i = this.live.length - 1; i >= 0; i--) {
      const p = this.live[i]!;
      p.age += dt;
      const t = p.age / p.life;
      if (t >= 1) {
        this.live.splice(i, 1);
        this.give(p.sprite);
        continue;
      }
      p.sprite.x += p.vx * dt;
      p.sprite.y += p.vy * dt;
      p.vx *= 0.985;
      p.vy *= 0.985;
      p.sprite.rotation += p.spin * dt;
      p.sprite.alpha = 1 - t * t;
    }
  }
}
