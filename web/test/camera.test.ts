import "./env";
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Container } from "pixi.js";
import { Camera } from "../src/render/camera";

/** The world container the camera moves: only its scale and position are touched. */
function world(): { scale: number; x: number; y: number; container: Container } {
  const w = { scale: 1, x: 0, y: 0, container: null as unknown as Container };
  w.container = {
    scale: { set: (s: number) => { w.scale = s; } },
    position: { set: (x: number, y: number) => { w.x = x; w.y = y; } },
  } as unknown as Container;
  return w;
}

const near = (a: number, b: number, eps = 1e-9): boolean => Math.abs(a - b) <= eps;

test("screen and world points map both ways, and the world container follows", () => {
  const w = world();
  const cam = new Camera(w.container);
  cam.resize(800, 600);
  cam.lookAt(100, -50, 2);
  assert.deepEqual(cam.toScreen(100, -50), { x: 400, y: 300 }); // the centre of the view
  assert.deepEqual(cam.toWorld(400, 300), { x: 100, y: -50 });
  for (const [sx, sy] of [[0, 0], [800, 600], [123.5, 77]] as const) {
    const p = cam.toWorld(sx, sy);
    const back = cam.toScreen(p.x, p.y);
    assert.ok(near(back.x, sx) && near(back.y, sy), `${sx},${sy}`);
  }
  // the container draws world point (x, y) where toScreen says
  assert.equal(w.scale, 2);
  assert.deepEqual([w.x + 100 * w.scale, w.y + -50 * w.scale], [400, 300]);
  assert.deepEqual(cam.visible(), { x0: -100, y0: -200, x1: 300, y1: 100 });
  assert.deepEqual(cam.visible(10), { x0: -110, y0: -210, x1: 310, y1: 110 });
});

test("zooming keeps the point under the pointer in place, within the zoom limits", () => {
  const cam = new Camera(world().container);
  cam.resize(800, 600);
  const under = cam.toWorld(650, 120);
  cam.zoomAt(1.5, 650, 120);
  const after = cam.toScreen(under.x, under.y);
  assert.ok(near(after.x, 650) && near(after.y, 120));
  assert.equal(cam.zoom, 1.5);
  cam.zoomAt(1000);
  assert.equal(cam.zoom, cam.maxZoom);
  cam.zoomAt(1e-9);
  assert.equal(cam.zoom, cam.minZoom);
});

test("a drag pans by screen pixels whatever the zoom", () => {
  const cam = new Camera(world().container);
  cam.resize(800, 600);
  cam.lookAt(0, 0, 4);
  cam.panBy(40, -20);
  assert.deepEqual([cam.x, cam.y], [-10, 5]);
});

test("fit shows the whole rectangle, centred, inside the padding", () => {
  const cam = new Camera(world().container);
  cam.resize(800, 600);
  cam.fit({ x0: 0, y0: 0, x1: 1000, y1: 200 }, 40);
  assert.deepEqual([cam.x, cam.y], [500, 100]);
  const a = cam.toScreen(0, 0);
  const b = cam.toScreen(1000, 200);
  assert.ok(a.x >= 40 - 1e-9 && b.x <= 760 + 1e-9 && a.y >= 40 - 1e-9 && b.y <= 560 + 1e-9);
  assert.ok(near(a.x, 40) || near(a.y, 40), "as large as it fits");
});

test("a glide moves a little each frame and ends exactly at its target", () => {
  const cam = new Camera(world().container);
  cam.resize(800, 600);
  let glides = 0;
  cam.onGlide = () => glides++;
  cam.lookAt(300, 200, 2, true);
  assert.equal(glides, 1);
  assert.ok(cam.gliding);
  assert.deepEqual([cam.x, cam.y, cam.zoom], [0, 0, 1], "nothing moves before a frame");
  let last = Infinity;
  let frames = 0;
  while (cam.tick(16) && frames < 1000) {
    const left = Math.hypot(300 - cam.x, 200 - cam.y);
    assert.ok(left < last, "closer every frame");
    last = left;
    frames++;
  }
  assert.ok(frames > 3 && frames < 1000, String(frames));
  assert.deepEqual([cam.x, cam.y, cam.zoom], [300, 200, 2]);
  assert.equal(cam.gliding, false);
  assert.equal(cam.tick(16), false);
  cam.lookAt(0, 0, 1, true);
  cam.panBy(1, 1); // a drag ends a glide
  assert.equal(cam.gliding, false);
});
