// Bundles the client into the server's static folder, for a first load on a phone network that is small,
// cached for good and installable:
//
//   assets/            every built file under a content-hashed name (JS chunks, CSS, fonts, icons, the favicon):
//                      the server sends them `Cache-Control: immutable`, so a second visit asks for none of them
//   index.html         the page, naming this build's hashed files (revalidated at every open)
//   sw.js              the service worker: keeps this build's app shell for offline opens (revalidated)
//   manifest*.webmanifest   the web app manifests (English and Hungarian; revalidated)
//   build.json         this build's version and files (the service worker's cache is named by the version)
//
// The JavaScript is split (esbuild `splitting`): the lobby and the Learn page load without the renderer
// (PixiJS), which comes with the game screen's chunk when a game is opened. Every text file is compressed once
// here, brotli and gzip beside it (`x.js.br`, `x.js.gz`); the server picks one by the request's Accept-Encoding.
// The translations are bundled into the entry chunk (both languages: a language switch needs no request).
//
//   node build.mjs            one production build (minified, with source maps), then a table of the chunks
//   node build.mjs --watch    rebuild on change, for development (no compression, no service worker)
//   node build.mjs --out DIR  the production build into DIR instead (e.g. to compare two builds' first loads)
import { build, context } from "esbuild";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const outArg = process.argv.indexOf("--out");
const out = outArg > 0 && process.argv[outArg + 1]
  ? resolve(process.argv[outArg + 1]) : join(here, "..", "src", "asteroid_mining", "server", "static");
const assets = join(out, "assets");
const watch = process.argv.includes("--watch");

/** The first 10 hex digits of a file's SHA-256, for its name. */
function hashOf(data) {
  return createHash("sha256").update(data).digest("hex").slice(0, 10);
}

/** Write `data` as assets/<stem>-<hash><ext>; the name relative to the static folder. */
function hashed(stem, ext, data) {
  const name = `${stem}-${hashOf(data)}${ext}`;
  writeFileSync(join(assets, name), data);
  return `assets/${name}`;
}

/** Every text must exist in both languages (plural variants `_one`/`_other` count as their key). */
function checkTranslations() {
  const keys = (lang) => {
    const dict = JSON.parse(readFileSync(join(here, "static", "i18n", `${lang}.json`), "utf8"));
    return new Set(Object.keys(dict).map((k) => k.replace(/_(one|other)$/, "")));
  };
  const en = keys("en");
  const hu = keys("hu");
  const missing = [...en].filter((k) => !hu.has(k)).map((k) => `hu lacks ${k}`)
    .concat([...hu].filter((k) => !en.has(k)).map((k) => `en lacks ${k}`));
  if (missing.length) {
    console.error(`translations differ:\n  ${missing.join("\n  ")}`);
    process.exit(1);
  }
}

/** The fonts (only Inter's Latin subsets: English and Hungarian need latin + latin-ext), the stylesheet naming
 * them, the favicon and the app icons, each under its hashed name. */
async function copyAssets() {
  const names = {};
  const fonts = join(here, "node_modules", "@fontsource-variable", "inter", "files");
  let css = readFileSync(join(here, "static", "style.css"), "utf8");
  for (const name of readdirSync(fonts)) {
    if (!/^inter-latin(-ext)?-wght-normal\.woff2$/.test(name)) continue;
    const path = hashed(basename(name, ".woff2"), ".woff2", readFileSync(join(fonts, name)));
    names[`fonts/${name}`] = path;
    // the stylesheet sits in assets/ beside the fonts
    css = css.replaceAll(`url(fonts/${name})`, `url(${basename(path)})`);
  }
  if (/url\(fonts\//.test(css)) throw new Error("style.css names a font the build does not copy");
  // Not minified: esbuild's CSS minifier changed the phone layout (a top bar's text cut, tests/browser/
  // test_layout.py), and brotli takes most of what it would save.
  names["style.css"] = hashed("style", ".css", css);
  const favicon = readFileSync(join(here, "static", "favicon.svg"));
  names["favicon.svg"] = hashed("favicon", ".svg", favicon);
  writeFileSync(join(out, "favicon.svg"), favicon); // the old address, for bookmarks and browsers that ask for it
  for (const name of readdirSync(join(here, "static", "icons"))) {
    names[`icons/${name}`] = hashed(basename(name, ".png"), ".png", readFileSync(join(here, "static", "icons", name)));
  }
  return names;
}

/** The web app manifests: English at manifest.webmanifest, Hungarian at manifest-hu.webmanifest (the page
 * points its link at the one of the chosen language). */
function writeManifests(names) {
  const icons = [
    { src: names["icons/icon-192.png"], sizes: "192x192", type: "image/png", purpose: "any" },
    { src: names["icons/icon-512.png"], sizes: "512x512", type: "image/png", purpose: "any" },
    { src: names["icons/icon-maskable-512.png"], sizes: "512x512", type: "image/png", purpose: "maskable" },
    { src: names["favicon.svg"], sizes: "any", type: "image/svg+xml", purpose: "any" },
  ];
  const texts = {
    en: { name: "Asteroid Mining", short_name: "Asteroids", description: "A cooperative strategy game: mine a belt of asteroids together before the storms do." },
    hu: { name: "Aszteroidabányászat", short_name: "Aszteroidák", description: "Kooperatív stratégiai játék: bányásszátok ki együtt az aszteroidaövet, mielőtt a viharok teszik." },
  };
  for (const [lang, text] of Object.entries(texts)) {
    const manifest = {
      id: "/", lang, dir: "ltr", ...text, start_url: "/", scope: "/", display: "standalone",
      orientation: "any", background_color: "#070b16", theme_color: "#070b16", categories: ["games"], icons,
    };
    const file = lang === "en" ? "manifest.webmanifest" : `manifest-${lang}.webmanifest`;
    writeFileSync(join(out, file), `${JSON.stringify(manifest, null, 2)}\n`);
  }
}

/** `pixi.js` is bundled from src/render/pixi.mjs: only the parts of PixiJS the map uses (see there). */
const pixiParts = {
  name: "pixi-parts",
  setup(b) {
    b.onResolve({ filter: /^pixi\.js$/ }, () => ({ path: join(here, "src", "render", "pixi.mjs") }));
  },
};

const jsOptions = {
  entryPoints: [join(here, "src", "main.ts")],
  plugins: [pixiParts],
  bundle: true,
  format: "esm",
  splitting: true,
  target: ["es2022"],
  outdir: assets,
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  sourcemap: true,
  minify: !watch,
  legalComments: "linked",
  logLevel: "warning",
  metafile: true,
  define: { "process.env.NODE_ENV": watch ? '"development"' : '"production"' },
};

/** The JS files the entry loads before it runs (its static imports, followed), relative to the static folder. */
function staticClosure(metafile, entry) {
  const seen = new Set();
  const visit = (path) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const imp of metafile.outputs[path]?.imports ?? []) if (imp.kind === "import-statement") visit(imp.path);
  };
  visit(entry);
  return seen;
}

/** Brotli (best) and gzip (best) beside every text file but source maps; files that compression does not shrink
 * are left as they are. */
function compressAll(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) { compressAll(path); continue; }
    // woff2 and png are compressed already; source maps are read by developer tools alone
    if (!/\.(js|css|html|svg|json|webmanifest|txt)$/.test(name)) continue;
    const data = readFileSync(path);
    const br = brotliCompressSync(data, { params: {
      [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
    const gz = gzipSync(data, { level: 9 });
    if (br.length < data.length) writeFileSync(`${path}.br`, br);
    if (gz.length < data.length) writeFileSync(`${path}.gz`, gz);
  }
}

function kib(n) {
  return `${(n / 1024).toFixed(1)} KiB`;
}

checkTranslations();
rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });
const names = await copyAssets();
writeManifests(names);

/** src/early.ts as one small script, to run inline in the page. */
async function earlyScript() {
  const result = await build({
    entryPoints: [join(here, "src", "early.ts")],
    bundle: true,
    format: "iife",
    target: ["es2022"],
    minify: true,
    write: false,
    logLevel: "warning",
  });
  return result.outputFiles[0].text.trim();
}

/** index.html, naming this build's files; `lazy`: the files of each screen loaded later (by its module's name),
 * which the entry asks for at once when the screen is opened (rather than one import after another), or the
 * page itself (`early`, inline) when it is opened on that screen's address.
 *
 * The order of the head is the order of the requests, which matters on a phone's six connections: the font,
 * the entry's files, then (early.ts, on a game's address) the new quick game and the game screen's files; the
 * stylesheet after the inline script, since a script waits for the stylesheets before it (the stylesheet is
 * asked for first anyway once a connection is free: it blocks rendering). */
function writePage(entry, preloads, lazy = {}, early = "") {
  let page = readFileSync(join(here, "static", "index.html"), "utf8");
  const replace = (from, to) => {
    if (!page.includes(from)) throw new Error(`index.html lacks ${from}`);
    page = page.replaceAll(from, to);
  };
  replace('href="style.css"', `href="${names["style.css"]}"`);
  replace('href="fonts/inter-latin-wght-normal.woff2"', `href="${names["fonts/inter-latin-wght-normal.woff2"]}"`);
  replace('href="favicon.svg"', `href="${names["favicon.svg"]}"`);
  replace('href="icons/icon-192.png"', `href="${names["icons/icon-192.png"]}"`);
  // the entry's own chunks are asked for at once, not after the entry has been read
  const modulepreload = preloads.map((p) => `<link rel="modulepreload" href="${p}">\n`).join("");
  const data = Object.entries(lazy).map(([name, files]) => ` data-${name}="${files.join(" ")}"`).join("");
  const inline = early ? `\n<script>${early}</script>` : "";
  replace('<script type="module" src="app.js"></script>', `${modulepreload}<script type="module" src="${entry}"${data}></script>${inline}`);
  writeFileSync(join(out, "index.html"), page);
}

if (watch) {
  const ctx = await context({ ...jsOptions, metafile: false, entryNames: "main", chunkNames: "[name]-[hash]" });
  writePage("assets/main.js", [], {}, await earlyScript());
  await ctx.watch();
  console.log(`watching; output in ${out}`);
} else {
  const result = await build(jsOptions);
  const outputs = result.metafile.outputs;
  const rel = (p) => relative(out, join(here, p)).split("\\").join("/");
  const entryKey = Object.keys(outputs).find((k) => outputs[k].entryPoint?.endsWith("src/main.ts"));
  const closure = staticClosure(result.metafile, entryKey);
  const lazy = {};
  // PixiJS imports the renderer it picks when the map is first drawn: WebGL's comes with each screen's files
  const webgl = Object.keys(outputs).find((k) => outputs[k].entryPoint?.endsWith("renderers/gl/WebGLRenderer.mjs"));
  if (!webgl) throw new Error("no chunk of PixiJS's WebGL renderer");
  for (const screen of ["game", "replay"]) {
    const key = Object.keys(outputs).find((k) => outputs[k].entryPoint?.endsWith(`src/ui/${screen}.ts`));
    if (!key) throw new Error(`no chunk of src/ui/${screen}.ts: is it still imported by main.ts?`);
    const files = new Set([...staticClosure(result.metafile, key), ...staticClosure(result.metafile, webgl)]);
    lazy[screen] = [...files].filter((k) => !closure.has(k)).map(rel);
  }
  writePage(rel(entryKey), [...closure].filter((k) => k !== entryKey).map(rel), lazy, await earlyScript());

  // The version: a hash of every hashed file's name (their names are hashes of their contents) and of the page.
  const files = readdirSync(assets).filter((n) => !n.endsWith(".map") && !n.endsWith(".LEGAL.txt")).map((n) => `assets/${n}`).sort();
  const version = hashOf(files.join("\n") + readFileSync(join(out, "index.html")));
  // The app shell, kept by the service worker when it installs: what the lobby needs to open (the page, the
  // entry and its chunks, the stylesheet), all in the HTTP cache already but the page, so that installing costs
  // one revalidation, not a download. The rest (the fonts the page uses, the game screen's and the renderer's
  // chunks) is kept as it is asked for through the worker (from the HTTP cache when a first visit loaded it).
  const shell = ["./", ...[...closure].map(rel), names["style.css"]];
  await build({
    entryPoints: [join(here, "src", "sw.ts")],
    bundle: true,
    format: "iife",
    target: ["es2022"],
    outfile: join(out, "sw.js"),
    minify: true,
    logLevel: "warning",
    define: { SW_VERSION: JSON.stringify(version), SW_SHELL: JSON.stringify(shell) },
  });
  writeFileSync(join(out, "build.json"), `${JSON.stringify({ version, entry: rel(entryKey), shell, files }, null, 2)}\n`);
  writeFileSync(join(out, "BUILD"), "built by web/build.mjs; do not edit: edit web/ and run `npm run build`\n");
  compressAll(out);

  // The table of the chunks (the README's performance section shows it).
  const rows = Object.keys(outputs).filter((k) => k.endsWith(".js")).map((k) => {
    const path = join(here, k);
    const size = (suffix) => statSync(`${path}${suffix}`).size;
    const what = k === entryKey ? "entry (lobby, Learn)" : closure.has(k) ? "loaded with the entry"
      : lazy.game.includes(rel(k)) ? "loaded by the game screen" : lazy.replay.includes(rel(k)) ? "loaded by the replay"
      : "loaded on demand (PixiJS's renderers without WebGL)";
    return { name: basename(k), raw: size(""), gz: size(".gz"), br: size(".br"), what };
  }).sort((a, b) => b.raw - a.raw);
  console.log(`built ${out}, version ${version}`);
  console.log("| chunk | raw | gzip | brotli | loaded |\n|---|---:|---:|---:|---|");
  for (const r of rows) console.log(`| ${r.name.replace(/-[A-Z0-9]{8}\.js$/, ".js")} | ${kib(r.raw)} | ${kib(r.gz)} | ${kib(r.br)} | ${r.what} |`);
}
