// A tiny DOM builder: h("button", { class: "x", onclick }, "text", child).

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]):
  HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value as EventListener);
    } else if (key === "class") {
      el.className = String(value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(el.style, value);
    } else if (key === "dataset" && typeof value === "object") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else if (key in el && key !== "list" && key !== "form") {
      (el as unknown as Record<string, unknown>)[key] = value;
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** Replaces the children of `el`. */
export function fill(el: Element, ...children: Child[]): void {
  clear(el);
  append(el, ...children);
}

/** An inline SVG icon from a path (24×24 box). */
export function icon(path: string, cls = "icon"): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", cls);
  svg.setAttribute("aria-hidden", "true");
  const p = document.createElementNS(ns, "path");
  p.setAttribute("d", path);
  svg.appendChild(p);
  return svg;
}

/** The shape of a core kind as a small inline SVG (the same shapes as on the map). */
const coreIcons = new Map<string, SVGSVGElement>();

/** The glyph of a core (the same shapes as on the map); each is parsed once and cloned after that, since the
 * panels draw dozens of them with every update. */
export function coreIcon(core: string, cls = "core-icon"): SVGSVGElement {
  const key = `${core} ${cls}`;
  let made = coreIcons.get(key);
  if (!made) {
    made = makeCoreIcon(core, cls);
    coreIcons.set(key, made);
  }
  return made.cloneNode(true) as SVGSVGElement;
}

function makeCoreIcon(core: string, cls: string): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 20 20");
  svg.setAttribute("class", `${cls} core-${core}`);
  svg.setAttribute("aria-hidden", "true");
  const shapes: Record<string, string> = {
    ice: '<polygon points="10,1.5 17.4,5.75 17.4,14.25 10,18.5 2.6,14.25 2.6,5.75"/>' +
      '<path d="M6,10H14M8,6.5L12,13.5M12,6.5L8,13.5" class="mark"/>',
    iron: '<rect x="3" y="3" width="14" height="14"/>',
    carbon: '<polygon points="10,1.5 17,10 10,18.5 3,10"/>',
    uranium: '<polygon points="10,2 18.5,17 1.5,17"/><circle cx="10" cy="12" r="2" class="dot"/>',
    hollow: '<circle cx="10" cy="10" r="6.5" class="ring"/>',
    unknown: '<circle cx="10" cy="10" r="7.5"/><text x="10" y="14.5" text-anchor="middle">?</text>',
  };
  svg.innerHTML = shapes[core] ?? shapes.unknown!;
  return svg;
}

export const ICONS = {
  drill: "M14 2l-4 4 1.5 1.5L4 15v5h5l7.5-7.5L18 14l4-4zM6 18v-2l6.5-6.5 2 2L8 18z",
  mine: "M12 3L3 9l9 12 9-12-9-6zm0 3.2L17 9l-5 6.6L7 9z",
  deposit: "M11 3h2v9l3.5-3.5L18 10l-6 6-6-6 1.5-1.5L11 12zM4 18h16v3H4z",
  robot: "M12 2a2 2 0 0 1 1 3.7V7h4a3 3 0 0 1 3 3v8a3 3 0 0 1-3 3H7a3 3 0 0 1-3-3v-8a3 3 0 0 1 3-3h4V5.7A2 2 0 0 1 12 2zM9 11.5A1.5 1.5 0 1 0 9 14.5 1.5 1.5 0 0 0 9 11.5zm6 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zM8 17v1.5h8V17z",
  gates: "M12 2C8 2 5 6.5 5 12s3 10 7 10 7-4.5 7-10S16 2 12 2zm0 3c2.2 0 4 3.1 4 7s-1.8 7-4 7-4-3.1-4-7 1.8-7 4-7z",
  place: "M12 2a6 6 0 0 1 6 6c0 4.5-6 12-6 12S6 12.5 6 8a6 6 0 0 1 6-6zm0 3.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z",
  wait: "M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16zm-1 3h2v5.4l3.6 2.1-1 1.7L11 13.6z",
  move: "M12 2l7 7h-4.5v6h-5V9H5zM6 19h12v3H6z",
  storm: "M13 2L4 14h6l-2 8 10-13h-6z",
  sun: "M12 7a5 5 0 1 1 0 10 5 5 0 0 1 0-10zM11 0h2v4h-2zM11 20h2v4h-2zM0 11h4v2H0zM20 11h4v2h-4zM3.5 4.9l1.4-1.4 2.8 2.8-1.4 1.4zM16.3 17.7l1.4-1.4 2.8 2.8-1.4 1.4zM3.5 19.1l2.8-2.8 1.4 1.4-2.8 2.8zM16.3 6.3l2.8-2.8 1.4 1.4-2.8 2.8z",
  shelter: "M12 3l9 7v11h-6v-6H9v6H3V10z",
  warning: "M12 2L1 21h22zm-1 7h2v6h-2zm0 8h2v2h-2z",
  clock: "M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20zm0 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16zm-1 3h2v5.4l3.6 2.1-1 1.7L11 13.6z",
  copy: "M8 3h11a2 2 0 0 1 2 2v11h-2V5H8zM5 7h10a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V9a2 2 0 0 1 2-2zm0 2v11h10V9z",
  help: "M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20zm-1 15v2h2v-2zm1-11a4 4 0 0 0-4 4h2a2 2 0 1 1 2 2 1 1 0 0 0-1 1v2h2v-1.2A4 4 0 0 0 12 6z",
  zoomIn: "M10 2a8 8 0 0 1 6.3 12.9l5.4 5.4-1.4 1.4-5.4-5.4A8 8 0 1 1 10 2zm0 2a6 6 0 1 0 0 12 6 6 0 0 0 0-12zM9 6h2v3h3v2h-3v3H9v-3H6V9h3z",
  zoomOut: "M10 2a8 8 0 0 1 6.3 12.9l5.4 5.4-1.4 1.4-5.4-5.4A8 8 0 1 1 10 2zm0 2a6 6 0 1 0 0 12 6 6 0 0 0 0-12zM6 9h8v2H6z",
  target: "M11 1h2v3.1A8 8 0 0 1 19.9 11H23v2h-3.1A8 8 0 0 1 13 19.9V23h-2v-3.1A8 8 0 0 1 4.1 13H1v-2h3.1A8 8 0 0 1 11 4.1zm1 5a6 6 0 1 0 0 12 6 6 0 0 0 0-12zm0 3a3 3 0 1 1 0 6 3 3 0 0 1 0-6z",
  globe: "M12 2a10 10 0 1 1 0 20 10 10 0 0 1 0-20zm6.9 6a8 8 0 0 0-3.4-3.3c.6 1 1.1 2.1 1.4 3.3zM12 4c-.8 1.1-1.5 2.5-1.9 4h3.8c-.4-1.5-1.1-2.9-1.9-4zM4.3 14h3.4a16 16 0 0 1 0-4H4.3a8 8 0 0 0 0 4zm.8 2a8 8 0 0 0 3.4 3.3c-.6-1-1.1-2.1-1.4-3.3zm3.4-11.3A8 8 0 0 0 5.1 8h2c.3-1.2.8-2.3 1.4-3.3zM12 20c.8-1.1 1.5-2.5 1.9-4h-3.8c.4 1.5 1.1 2.9 1.9 4zm-2.3-6h4.6a14 14 0 0 0 0-4H9.7a14 14 0 0 0 0 4zm5.8 5.3a8 8 0 0 0 3.4-3.3h-2c-.3 1.2-.8 2.3-1.4 3.3zM16.3 14h3.4a8 8 0 0 0 0-4h-3.4a16 16 0 0 1 0 4z",
  play: "M7 4l13 8-13 8z",
  back: "M20 11H7.8l5.6-5.6L12 4l-8 8 8 8 1.4-1.4L7.8 13H20z",
  eye: "M12 5c5 0 9 4.5 10 7-1 2.5-5 7-10 7S3 14.5 2 12c1-2.5 5-7 10-7zm0 3a4 4 0 1 0 0 8 4 4 0 0 0 0-8zm0 2a2 2 0 1 1 0 4 2 2 0 0 1 0-4z",
  replay: "M12 4a8 8 0 1 1-8 8h2a6 6 0 1 0 1.8-4.3L10 10H4V4l2.3 2.3A8 8 0 0 1 12 4z",
  prev: "M6 5h2v14H6zm3.5 7L18 5v14z",
  next: "M16 5h2v14h-2zM6 5l8.5 7L6 19z",
  pause: "M6 5h4v14H6zm8 0h4v14h-4z",
};
