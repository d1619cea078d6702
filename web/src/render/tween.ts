// A tiny animation clock: tweens run a function of progress 0..1 over a duration, optionally after a delay.
// With reduced motion, every tween jumps straight to its end.

export type Ease = (t: number) => number;

export const easeInOut: Ease = (t) => (t < 0.5 ? 2 * t * t : 1 - Math.pow(-2 * t + 2, 2) / 2);
export const easeOut: Ease = (t) => 1 - Math.pow(1 - t, 3);
export const linear: Ease = (t) => t;

interface Tween {
  start: number;
  duration: number;
  ease: Ease;
  step: (p: number) => void;
  done?: () => void;
}

export class Tweens {
  private readonly list: Tween[] = [];

  /** Animations still running (tests wait for none before a screenshot). */
  get running(): number {
    return this.list.length;
  }
  private now = 0;
  reducedMotion = false;
  /** Called when a tween starts, so that the scene draws frames again while it runs. */
  onStart: () => void = () => {};

  /** Runs `step(p)` for p from 0 to 1 over `duration` ms, starting after `delay` ms. */
  add(duration: number, step: (p: number) => void, opts: { delay?: number; ease?: Ease; done?: () => void } = {}): void {
    if (this.reducedMotion || duration <= 0) {
      step(1);
      opts.done?.();
      return;
    }
    const tween: Tween = { start: this.now + (opts.delay ?? 0), duration, ease: opts.ease ?? easeInOut, step };
    if (opts.done) tween.done = opts.done;
    if (!opts.delay) step(0);
    this.list.push(tween);
    this.onStart();
  }

  get busy(): boolean {
    return this.list.length > 0;
  }

  tick(dtMs: number): void {
    this.now += dtMs;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const t = this.list[i]!;
      if (this.now < t.start) continue;
      const p = Math.min(1, (this.now - t.start) / t.duration);
      t.step(t.ease(p));
      if (p >= 1) {
        this.list.splice(i, 1);
        t.done?.();
      }
    }
  }

  /** Ends every running tween at once. */
  finish(): void {
    const all = this.list.splice(0);
    for (const t of all) {
      t.step(1);
      t.done?.();
    }
  }
}
