// What the layers of the belt's scene share: the layout (where each asteroid is drawn), the camera, the texture
// atlas, the current model and highlights, each asteroid's sprites (their radius), and the texts the scene
// shows in the player's language.

import { Sprite, type Texture } from "pixi.js";
import type { Model } from "../model";
import type { Atlas } from "./atlas";
import type { Camera } from "./camera";
import type { Layout } from "./layout";
import type { Tweens } from "./tween";

export interface Highlights {
  /** The asteroid of the settler whose step it is. */
  here: string | null;
  /** The settler whose step it is. */
  current: string | null;
  /** Move targets from `here` (asteroids), true when the move is legal now. */
  targets: Map<string, boolean>;
  /** The destination chosen with the keyboard. */
  focus: string | null;
  /** The asteroid under the pointer. */
  hover: string | null;
}

export interface SceneText {
  storm(rounds: number): string;
  settlerLabel(id: string): string;
  /** "explodes in 3", "sublimates now": the countdown of an asteroid's exposed reactive core, or null. */
  reaction(id: string): string | null;
}

export interface AsteroidSprites {
  dot: Sprite;
  halo: Sprite;
  body: Sprite;
  core: Sprite;
  shelter: Sprite;
  storm: Sprite;
  hub: Sprite | null;
  cell: string;
  variant: number;
  radius: number;
}

/** The side of a spatial chunk (world units): what is off screen is hidden a chunk at a time. */
export const CHUNK = 640;
export const LABEL_FONT = "Inter Variable, DejaVu Sans, sans-serif";

export class SceneCore {
  layout: Layout | null = null;
  model: Model | null = null;
  highlights: Highlights = { here: null, current: null, targets: new Map(), focus: null, hover: null };
  readonly sprites = new Map<string, AsteroidSprites>();
  seatOf: (settler: string) => number = () => 0;
  /** Changes with every new view or highlight that changes what labels say, so that they are written again. */
  stamp = 0;
  /** The labels must be laid out again (the view moved, the highlights changed). */
  labelsDirty = true;

  constructor(readonly atlas: Atlas, readonly camera: Camera, readonly tweens: Tweens, readonly text: SceneText) {}

  get radius(): number {
    return this.layout?.radius ?? 15;
  }

  sprite(name: string, tint = 0xffffff): Sprite {
    const s = new Sprite(this.atlas.get(name));
    s.anchor.set(0.5);
    s.tint = tint;
    return s;
  }

  tex(name: string): Texture {
    return this.atlas.get(name);
  }
}
