// How the belt is drawn on this device: with how many canvas pixels per CSS pixel, and whether the highlights
// may pulse. It starts at the screen's pixel ratio (at most 2) with the pulse on, and steps down — a pixel ratio
// of 1.5, then 1, then no pulse — while handing a drawn frame over to the screen keeps costing the page more than
// a budget. Where WebGL is drawn in software (no GPU, or a blocked driver) the browser copies every pixel of each
// frame back on the page's own thread before showing it: at a pixel ratio of 2 a phone-sized map costs four
// times what it costs at 1, and a tap's answer waits behind that copy; a pulse that draws a frame on every
// display refresh would keep the page busy with such copies all the time. With a GPU the hand-over costs a
// millisecond or two and nothing steps down.

/** A way of drawing: the resolution, and whether decorative motion (the highlights' pulse) runs. */
export interface Quality {
  resolution: number;
  pulse: boolean;
}

/** The resolutions it may take, from the sharpest down. */
const RESOLUTIONS = [2, 1.5, 1];
/** What handing one frame over may cost the page (ms, the median of a window of frames) before it steps down. */
export const HANDOVER_BUDGET_MS = 12;
/** Frames measured before each decision; the first frames of a screen (which also upload textures) and the
 * first at a new size (which allocates its buffers) do not count. */
export const WINDOW = 8;
const SKIP_FIRST = 4;

export class QualityGovernor {
  private readonly levels: Quality[];
  private level = 0;
  private readonly samples: number[] = [];
  private skip = SKIP_FIRST;

  constructor(devicePixelRatio: number) {
    const ratio = devicePixelRatio > 0 ? devicePixelRatio : 1;
    const start = Math.min(RESOLUTIONS[0]!, ratio);
    this.levels = [start, ...RESOLUTIONS.filter((r) => r < start)].map((resolution) => ({ resolution, pulse: true }));
    this.levels.push({ resolution: this.levels[this.levels.length - 1]!.resolution, pulse: false });
  }

  /** How to draw now. */
  get quality(): Quality {
    return this.levels[this.level]!;
  }

  /** Whether it can step down no further (measuring then stops). */
  get settled(): boolean {
    return this.level === this.levels.length - 1;
  }

  /** Records what handing a frame over cost (ms); returns how to draw from now on when that changes, else null. */
  record(ms: number): Quality | null {
    if (this.settled) return null;
    if (this.skip > 0) {
      this.skip--;
      return null;
    }
    this.samples.push(ms);
    if (this.samples.length < WINDOW) return null;
    const sorted = [...this.samples].sort((a, b) => a - b);
    this.samples.length = 0;
    const median = (sorted[WINDOW / 2 - 1]! + sorted[WINDOW / 2]!) / 2;
    if (median <= HANDOVER_BUDGET_MS) return null;
    this.level++;
    this.skip = 1;
    return this.quality;
  }
}
