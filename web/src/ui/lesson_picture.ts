// The picture a lesson opens with: a small drawing of the action it teaches (fly along a link, drill the
// mantle, mine the core, deposit into a shelter, the Sun's heat, a storm over a shelter, a robot at work, a gate
// pair, the base), drawn inline so that it needs no file and scales with the text.

const NS = "http://www.w3.org/2000/svg";

type Shape = [tag: string, attrs: Record<string, string | number>];

function svgOf(shapes: Shape[], label: string): SVGSVGElement {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 200 80");
  svg.setAttribute("class", "lesson-picture");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  for (const [tag, attrs] of shapes) {
    const el = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.appendChild(el);
  }
  return svg;
}

const rock = (cx: number, cy: number, r: number, extra: Record<string, string | number> = {}): Shape =>
  ["circle", { cx, cy, r, class: "lp-rock", ...extra }];
const core = (cx: number, cy: number, r: number, kind: string): Shape => ["circle", { cx, cy, r, class: `lp-core lp-${kind}` }];
const link = (x1: number, y1: number, x2: number, y2: number): Shape => ["line", { x1, y1, x2, y2, class: "lp-link" }];
const arrow = (d: string): Shape => ["path", { d, class: "lp-arrow", "marker-end": "url(#lp-head)" }];
const settler = (cx: number, cy: number): Shape => ["circle", { cx, cy, r: 5, class: "lp-settler" }];
const label = (x: number, y: number, text: string): Shape => ["text", { x, y, class: "lp-label", "text-anchor": "middle", "data-text": text }];

/** The shapes of each picture; `kind` is a lesson's id or, for others, the press of its first step. */
const PICTURES: Record<string, Shape[]> = {
  move: [link(40, 45, 160, 45), rock(40, 45, 18), rock(160, 45, 18), settler(40, 26), arrow("M52 22 Q100 0 148 22")],
  drill: [rock(100, 42, 30), ["circle", { cx: 100, cy: 42, r: 22, class: "lp-mantle" }], core(100, 42, 12, "iron"),
    ["path", { d: "M150 8 L118 30 L112 26 Z", class: "lp-tool" }], settler(138, 62)],
  mine: [rock(70, 45, 26), core(70, 45, 14, "carbon"), arrow("M92 40 Q120 20 146 34"),
    ["rect", { x: 148, y: 30, width: 28, height: 22, rx: 4, class: "lp-crate" }], core(162, 41, 6, "carbon")],
  deposit: [["rect", { x: 28, y: 16, width: 28, height: 22, rx: 4, class: "lp-crate" }], core(42, 27, 6, "ice"),
    arrow("M60 24 Q100 6 124 34"), rock(140, 48, 26), ["circle", { cx: 140, cy: 48, r: 13, class: "lp-hollow" }]],
  sun: [["circle", { cx: 30, cy: 40, r: 22, class: "lp-sun" }], ["ellipse", { cx: 110, cy: 40, rx: 78, ry: 26, class: "lp-orbit" }],
    rock(60, 62, 12), core(60, 62, 6, "ice"), rock(170, 30, 12), core(170, 30, 6, "ice"), settler(170, 14)],
  storm: [["path", { d: "M70 2 L40 40 H62 L50 78 L98 30 H74 L90 2 Z", class: "lp-bolt" }], rock(150, 50, 24),
    ["path", { d: "M138 52 L150 40 L162 52 V62 H138 Z", class: "lp-house" }], settler(150, 20), arrow("M150 27 V36")],
  robot: [rock(50, 48, 20), ["rect", { x: 38, y: 14, width: 24, height: 18, rx: 5, class: "lp-robot" }],
    link(70, 48, 150, 48), rock(150, 48, 20, { class: "lp-rock lp-target" }), arrow("M66 20 Q108 0 140 26")],
  gates: [rock(30, 50, 16), ["ellipse", { cx: 30, cy: 50, rx: 24, ry: 9, class: "lp-gate" }], rock(170, 50, 16),
    ["ellipse", { cx: 170, cy: 50, rx: 24, ry: 9, class: "lp-gate" }], link(46, 50, 80, 50), link(120, 50, 154, 50),
    settler(30, 28), arrow("M40 22 Q100 -8 160 24")],
  base: [rock(100, 44, 28), core(70, 14, 7, "ice"), core(130, 14, 7, "iron"), core(70, 74, 7, "carbon"), core(130, 74, 7, "uranium"),
    settler(92, 44), settler(108, 44), label(100, 79, "3 × 4")],
};

const BY_LESSON: Record<string, string> = {
  fly: "move", drill: "drill", mine: "mine", deposit: "deposit", sun: "sun", storms: "storm", robots: "robot",
  gates: "gates", "first-game": "base", "puzzle-gates": "gates", "puzzle-storm": "storm",
};

const BY_PRESS: Record<string, string> = {
  move: "move", drill: "drill", mine: "mine", deposit: "deposit", build_robot: "robot", build_gates: "gates",
  place: "gates", wait: "storm",
};

/** The picture of what a lesson teaches, with `label` read out in its place. */
export function lessonPicture(lessonId: string, firstPress: string | null, text: string): SVGSVGElement {
  const kind = BY_LESSON[lessonId] ?? BY_PRESS[(firstPress ?? "").split(":")[0] ?? ""] ?? "base";
  const defs: Shape = ["defs", {}];
  const svg = svgOf([defs, ...(PICTURES[kind] ?? PICTURES.base!)], text);
  // the arrowhead, and texts set as text content (attributes cannot hold them)
  svg.querySelector("defs")!.innerHTML =
    '<marker id="lp-head" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">' +
    '<path d="M0 0 L10 5 L0 10 z" class="lp-head"/></marker>';
  for (const el of svg.querySelectorAll("text[data-text]")) el.textContent = el.getAttribute("data-text");
  svg.dataset.picture = kind;
  return svg;
}
