// One canvas atlas for every sprite of the belt (asteroid bodies, core glyphs, halos, tokens), drawn with the
// 2D canvas once at start-up, so that the thousands of sprites of a large belt batch into a few draw calls.

import { Rectangle, Texture, TextureSource } from "pixi.js";
import { CORE_COLOUR, HIGHLIGHT, OKABE_ITO, ROCK, ROCK_LIGHT, SEAT_COLOUR, SHELTER, SUN_HALO, css } from "./palette";

/** Side of one atlas cell in texture pixels. */
export const CELL = 128;
const COLS = 16;
const ROWS = 8;
/** Mantles drawn with distinct rings; thicker mantles share the last picture (and show a number). */
export const MAX_RINGS = 6;
export const BODY_VARIANTS = 4;

type Painter = (g: CanvasRenderingContext2D, size: number) => void;

export class Atlas {
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly source: TextureSource;
  private readonly textures = new Map<string, Texture>();
  private next = 0;

  constructor() {
    this.canvas = document.createElement("canvas");
    this.canvas.width = CELL * COLS;
    this.canvas.height = CELL * ROWS;
    const ctx = this.canvas.getContext("2d");
    if (!ctx) throw new Error("no 2D canvas");
    this.ctx = ctx;
    this.paintAll();
    this.source = TextureSource.from(this.canvas);
    this.source.scaleMode = "linear";
    this.source.autoGenerateMipmaps = true;
  }

  /** The texture called `name` (see `paintAll`); throws for an unknown name. */
  get(name: string): Texture {
    const cached = this.textures.get(name);
    if (cached) return cached;
    const slot = this.slots.get(name);
    if (slot === undefined) throw new Error(`no sprite ${name}`);
    const x = (slot % COLS) * CELL;
    const y = Math.floor(slot / COLS) * CELL;
    const tex = new Texture({ source: this.source, frame: new Rectangle(x + 1, y + 1, CELL - 2, CELL - 2) });
    this.textures.set(name, tex);
    return tex;
  }

  private readonly slots = new Map<string, number>();

  private paint(name: string, painter: Painter): void {
    const slot = this.next++;
    if (slot >= COLS * ROWS) throw new Error("sprite atlas full");
    this.slots.set(name, slot);
    const g = this.ctx;
    g.save();
    g.translate((slot % COLS) * CELL, Math.floor(slot / COLS) * CELL);
    g.beginPath();
    g.rect(1, 1, CELL - 2, CELL - 2);
    g.clip();
    painter(g, CELL);
    g.restore();
  }

  private paintAll(): void {
    for (let v = 0; v < BODY_VARIANTS; v++) {
      for (let m = 0; m <= MAX_RINGS; m++) this.paint(`body-${v}-${m}`, (g, s) => paintBody(g, s, v, m));
    }
    for (const core of ["ice", "iron", "carbon", "uranium", "hollow", "unknown"]) {
      this.paint(`core-${core}`, (g, s) => paintCore(g, s, core));
    }
    this.paint("halo", (g, s) => paintGlow(g, s, SUN_HALO, 0.55));
    this.paint("sun", paintSun);
    this.paint("dot", (g, s) => paintGlow(g, s, 0xffffff, 1));
    this.paint("spark", (g, s) => paintGlow(g, s, 0xffe2a8, 1));
    this.paint("ring", (g, s) => ring(g, s, 0.44, 0.05, HIGHLIGHT, 1));
    this.paint("ring-thin", (g, s) => ring(g, s, 0.45, 0.025, HIGHLIGHT, 1));
    this.paint("ring-dashed", paintDashedRing);
    this.paint("shelter", paintShelter);
    this.paint("storm-mark", paintStormMark);
    this.paint("sun-near", (g, s) => paintSunIcon(g, s, true));
    this.paint("sun-far", (g, s) => paintSunIcon(g, s, false));
    this.paint("layers", paintLayersIcon);
    this.paint("robot", paintRobot);
    this.paint("ufo", paintUfo);
    this.paint("gate", paintGate);
    this.paint("gate-off", paintGateOff);
    this.paint("hub", paintHub);
    this.paint("debris", paintDebris);
    for (let i = 0; i < SEAT_COLOUR.length; i++) this.paint(`ship-${i}`, (g, s) => paintShip(g, s, SEAT_COLOUR[i]!));
  }
}

function rng(seed: number): () => number {
  let x = seed * 2654435761 + 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) % 10000) / 10000;
  };
}

function lumpyPath(g: CanvasRenderingContext2D, c: number, r: number, seed: number, roughness: number): void {
  const rand = rng(seed + 11);
  const n = 18;
  const pts: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const a = (i / n) * Math.PI * 2;
    const rr = r * (1 - roughness + rand() * roughness);
    pts.push([c + Math.cos(a) * rr, c + Math.sin(a) * rr]);
  }
  g.beginPath();
  for (let i = 0; i < n; i++) {
    const p = pts[i]!;
    const q = pts[(i + 1) % n]!;
    const mx = (p[0] + q[0]) / 2;
    const my = (p[1] + q[1]) / 2;
    if (i === 0) g.moveTo(mx, my);
    else g.quadraticCurveTo(p[0], p[1], mx, my);
  }
  const p0 = pts[0]!;
  const q0 = pts[1]!;
  g.quadraticCurveTo(p0[0], p0[1], (p0[0] + q0[0]) / 2, (p0[1] + q0[1]) / 2);
  g.closePath();
}

/** A rocky body; its mantle drawn as `m` strata around an inner pit where the core sits. */
function paintBody(g: CanvasRenderingContext2D, s: number, variant: number, m: number): void {
  const c = s / 2;
  const r = s * 0.46;
  const grad = g.createRadialGradient(c - r * 0.35, c - r * 0.35, r * 0.1, c, c, r);
  grad.addColorStop(0, css(ROCK_LIGHT));
  grad.addColorStop(1, css(ROCK));
  lumpyPath(g, c, r, variant, 0.16);
  g.fillStyle = grad;
  g.fill();
  g.lineWidth = s * 0.02;
  g.strokeStyle = "rgba(0,0,0,0.55)";
  g.stroke();
  // Craters for texture.
  const rand = rng(variant * 31 + 7);
  for (let i = 0; i < 5; i++) {
    const a = rand() * Math.PI * 2;
    const d = r * (0.55 + rand() * 0.3);
    g.beginPath();
    g.arc(c + Math.cos(a) * d, c + Math.sin(a) * d, r * (0.05 + rand() * 0.06), 0, Math.PI * 2);
    g.fillStyle = "rgba(0,0,0,0.22)";
    g.fill();
  }
  // The pit where the core sits widens as the mantle thins; each remaining layer is a band around it.
  const outer = r * 0.84;
  const pit = r * (m === 0 ? 0.6 : Math.max(0.3, 0.5 - 0.04 * (m - 1)));
  const band = (outer - pit) / Math.max(1, m);
  for (let i = m; i >= 1; i--) {
    g.beginPath();
    g.arc(c, c, pit + band * i, 0, Math.PI * 2);
    g.fillStyle = i % 2 ? "#6c7285" : "#454a5a";
    g.fill();
    g.lineWidth = s * 0.012;
    g.strokeStyle = "rgba(0,0,0,0.45)";
    g.stroke();
  }
  g.beginPath();
  g.arc(c, c, pit, 0, Math.PI * 2);
  g.fillStyle = m === 0 ? "rgba(3,5,10,0.98)" : "rgba(16,19,28,0.95)";
  g.fill();
  if (m === 0) {
    g.lineWidth = s * 0.04;
    g.strokeStyle = "rgba(255,255,255,0.95)";
    g.stroke();
  }
}

/** A core glyph: each kind has its own shape as well as its colour. */
function paintCore(g: CanvasRenderingContext2D, s: number, core: string): void {
  const c = s / 2;
  const r = s * 0.36;
  const colour = css(CORE_COLOUR[core] ?? 0xffffff);
  g.lineJoin = "round";
  g.beginPath();
  switch (core) {
    case "ice": // hexagon
      for (let i = 0; i < 6; i++) {
        const a = Math.PI / 6 + (i * Math.PI) / 3;
        g.lineTo(c + Math.cos(a) * r, c + Math.sin(a) * r);
      }
      break;
    case "iron": // square
      g.rect(c - r * 0.78, c - r * 0.78, r * 1.56, r * 1.56);
      break;
    case "carbon": // diamond
      g.moveTo(c, c - r);
      g.lineTo(c + r * 0.8, c);
      g.lineTo(c, c + r);
      g.lineTo(c - r * 0.8, c);
      break;
    case "uranium": // triangle
      g.moveTo(c, c - r);
      g.lineTo(c + r * 0.95, c + r * 0.7);
      g.lineTo(c - r * 0.95, c + r * 0.7);
      break;
    case "hollow": // empty ring
      g.arc(c, c, r * 0.8, 0, Math.PI * 2);
      g.lineWidth = s * 0.09;
      g.strokeStyle = colour;
      g.stroke();
      return;
    default: // unknown
      g.arc(c, c, r * 0.85, 0, Math.PI * 2);
      g.fillStyle = "rgba(60,68,84,0.9)";
      g.fill();
      g.fillStyle = colour === "#6b7689" ? "#c9d1de" : colour;
      g.font = `bold ${Math.round(s * 0.5)}px sans-serif`;
      g.textAlign = "center";
      g.textBaseline = "middle";
      g.fillText("?", c, c + s * 0.03);
      return;
  }
  g.closePath();
  g.fillStyle = colour;
  g.fill();
  g.lineWidth = s * 0.05;
  g.strokeStyle = "rgba(0,0,0,0.75)";
  g.stroke();
  if (core === "uranium") {
    // A small radiation dot: uranium is also told apart by the mark inside.
    g.beginPath();
    g.arc(c, c + r * 0.18, r * 0.16, 0, Math.PI * 2);
    g.fillStyle = "#000";
    g.fill();
  }
  if (core === "ice") {
    g.beginPath();
    for (let i = 0; i < 3; i++) {
      const a = (i * Math.PI) / 3;
      g.moveTo(c + Math.cos(a) * r * 0.5, c + Math.sin(a) * r * 0.5);
      g.lineTo(c - Math.cos(a) * r * 0.5, c - Math.sin(a) * r * 0.5);
    }
    g.lineWidth = s * 0.04;
    g.strokeStyle = "rgba(0,0,0,0.55)";
    g.stroke();
  }
}

function paintGlow(g: CanvasRenderingContext2D, s: number, colour: number, alpha: number): void {
  const c = s / 2;
  const grad = g.createRadialGradient(c, c, 0, c, c, c - 1);
  const rgb = `${(colour >> 16) & 255},${(colour >> 8) & 255},${colour & 255}`;
  grad.addColorStop(0, `rgba(${rgb},${alpha})`);
  grad.addColorStop(0.45, `rgba(${rgb},${alpha * 0.45})`);
  grad.addColorStop(1, `rgba(${rgb},0)`);
  g.fillStyle = grad;
  g.fillRect(0, 0, s, s);
}

function paintSun(g: CanvasRenderingContext2D, s: number): void {
  const c = s / 2;
  const grad = g.createRadialGradient(c, c, 0, c, c, c - 1);
  grad.addColorStop(0, "rgba(255,255,240,1)");
  grad.addColorStop(0.18, "rgba(255,236,160,1)");
  grad.addColorStop(0.3, "rgba(255,190,60,0.85)");
  grad.addColorStop(0.55, "rgba(230,120,0,0.25)");
  grad.addColorStop(1, "rgba(230,100,0,0)");
  g.fillStyle = grad;
  g.fillRect(0, 0, s, s);
}

function ring(g: CanvasRenderingContext2D, s: number, radius: number, width: number, colour: number, alpha: number): void {
  g.beginPath();
  g.arc(s / 2, s / 2, s * radius, 0, Math.PI * 2);
  g.lineWidth = s * width;
  g.globalAlpha = alpha;
  g.strokeStyle = css(colour);
  g.stroke();
  g.globalAlpha = 1;
}

function paintDashedRing(g: CanvasRenderingContext2D, s: number): void {
  g.setLineDash([s * 0.09, s * 0.06]);
  ring(g, s, 0.44, 0.045, HIGHLIGHT, 1);
  g.setLineDash([]);
}

/** A shelter: a green dome over the pit, with an opening; read as a shape, not only a colour. */
function paintShelter(g: CanvasRenderingContext2D, s: number): void {
  const c = s / 2;
  g.beginPath();
  g.arc(c, c, s * 0.43, Math.PI * 1.1, Math.PI * 1.9);
  g.lineWidth = s * 0.07;
  g.lineCap = "round";
  g.strokeStyle = css(SHELTER);
  g.stroke();
  g.beginPath();
  g.arc(c, c, s * 0.43, Math.PI * 0.1, Math.PI * 0.9);
  g.stroke();
}

function paintStormMark(g: CanvasRenderingContext2D, s: number): void {
  // A lightning bolt in a vermillion disc.
  const c = s / 2;
  g.beginPath();
  g.arc(c, c, s * 0.42, 0, Math.PI * 2);
  g.fillStyle = css(OKABE_ITO.vermillion);
  g.fill();
  g.lineWidth = s * 0.05;
  g.strokeStyle = "#000";
  g.stroke();
  g.beginPath();
  g.moveTo(c + s * 0.06, c - s * 0.3);
  g.lineTo(c - s * 0.14, c + s * 0.04);
  g.lineTo(c + s * 0.0, c + s * 0.04);
  g.lineTo(c - s * 0.07, c + s * 0.3);
  g.lineTo(c + s * 0.16, c - s * 0.06);
  g.lineTo(c + s * 0.01, c - s * 0.06);
  g.closePath();
  g.fillStyle = "#fff";
  g.fill();
}

function paintSunIcon(g: CanvasRenderingContext2D, s: number, near: boolean): void {
  const c = s / 2;
  const colour = near ? css(SUN_HALO) : "#8e99ad";
  g.strokeStyle = colour;
  g.fillStyle = colour;
  g.lineWidth = s * 0.07;
  g.lineCap = "round";
  g.beginPath();
  g.arc(c, c, s * 0.2, 0, Math.PI * 2);
  if (near) g.fill();
  else g.stroke();
  if (near) {
    for (let i = 0; i < 8; i++) {
      const a = (i * Math.PI) / 4;
      g.beginPath();
      g.moveTo(c + Math.cos(a) * s * 0.3, c + Math.sin(a) * s * 0.3);
      g.lineTo(c + Math.cos(a) * s * 0.42, c + Math.sin(a) * s * 0.42);
      g.stroke();
    }
  }
}

/** A mantle's layers on a label: three bars (drawn 10 px square: bars 9 wide, 2 high, 2 apart). A sprite batches
 * with the others; a shape of its own for each of the hundred labels on screen made the map's frames dearer. */
function paintLayersIcon(g: CanvasRenderingContext2D, s: number): void {
  const u = s / 10;
  g.fillStyle = "#ffffff";
  for (const y of [0, 4, 8]) g.fillRect(0.5 * u, y * u, 9 * u, 2 * u);
}

function paintShip(g: CanvasRenderingContext2D, s: number, colour: number): void {
  // A round token: the settler's number is drawn on it as text by the scene.
  const c = s / 2;
  g.beginPath();
  g.arc(c, c, s * 0.4, 0, Math.PI * 2);
  g.fillStyle = css(colour);
  g.fill();
  g.lineWidth = s * 0.08;
  g.strokeStyle = "#05070d";
  g.stroke();
  g.beginPath();
  g.arc(c - s * 0.1, c - s * 0.12, s * 0.12, 0, Math.PI * 2);
  g.fillStyle = "rgba(255,255,255,0.3)";
  g.fill();
}

function paintRobot(g: CanvasRenderingContext2D, s: number): void {
  const c = s / 2;
  const r = s * 0.36;
  g.beginPath();
  g.roundRect(c - r, c - r, r * 2, r * 2, s * 0.08);
  g.fillStyle = "#d9dee8";
  g.fill();
  g.lineWidth = s * 0.07;
  g.strokeStyle = "#05070d";
  g.stroke();
  g.fillStyle = "#05070d";
  g.font = `bold ${Math.round(s * 0.5)}px sans-serif`;
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.fillText("R", c, c + s * 0.03);
}

function paintUfo(g: CanvasRenderingContext2D, s: number): void {
  const c = s / 2;
  g.beginPath();
  g.ellipse(c, c - s * 0.06, s * 0.16, s * 0.16, 0, Math.PI, 0);
  g.fillStyle = "#b8f0dd";
  g.fill();
  g.beginPath();
  g.ellipse(c, c + s * 0.04, s * 0.42, s * 0.15, 0, 0, Math.PI * 2);
  g.fillStyle = css(OKABE_ITO.bluishGreen);
  g.fill();
  g.lineWidth = s * 0.06;
  g.strokeStyle = "#05070d";
  g.stroke();
  for (const dx of [-0.22, 0, 0.22]) {
    g.beginPath();
    g.arc(c + dx * s, c + s * 0.05, s * 0.035, 0, Math.PI * 2);
    g.fillStyle = css(OKABE_ITO.yellow);
    g.fill();
  }
}

function paintGate(g: CanvasRenderingContext2D, s: number): void {
  const c = s / 2;
  g.beginPath();
  g.ellipse(c, c, s * 0.3, s * 0.4, 0, 0, Math.PI * 2);
  g.lineWidth = s * 0.12;
  g.strokeStyle = "#05070d";
  g.stroke();
  g.lineWidth = s * 0.08;
  g.strokeStyle = css(OKABE_ITO.reddishPurple);
  g.stroke();
  const grad = g.createRadialGradient(c, c, 0, c, c, s * 0.3);
  grad.addColorStop(0, "rgba(255,220,255,0.95)");
  grad.addColorStop(1, "rgba(204,121,167,0.1)");
  g.fillStyle = grad;
  g.fill();
}

function paintGateOff(g: CanvasRenderingContext2D, s: number): void {
  const c = s / 2;
  g.setLineDash([s * 0.08, s * 0.06]);
  g.beginPath();
  g.ellipse(c, c, s * 0.3, s * 0.4, 0, 0, Math.PI * 2);
  g.lineWidth = s * 0.08;
  g.strokeStyle = css(OKABE_ITO.reddishPurple);
  g.stroke();
  g.setLineDash([]);
}

function paintHub(g: CanvasRenderingContext2D, s: number): void {
  const c = s / 2;
  g.strokeStyle = "rgba(200,210,230,0.8)";
  g.lineWidth = s * 0.025;
  for (let i = 0; i < 12; i++) {
    const a = (i * Math.PI) / 6;
    g.beginPath();
    g.moveTo(c + Math.cos(a) * s * 0.38, c + Math.sin(a) * s * 0.38);
    g.lineTo(c + Math.cos(a) * s * 0.48, c + Math.sin(a) * s * 0.48);
    g.stroke();
  }
}

function paintDebris(g: CanvasRenderingContext2D, s: number): void {
  lumpyPath(g, s / 2, s * 0.3, 99, 0.4);
  g.fillStyle = css(ROCK_LIGHT);
  g.fill();
}
