// Bundles the client into the server's static folder: app.js (esbuild), index.html, CSS, i18n JSON,
// the favicon and the Inter font files (served by the game itself: no CDN at run time).
//
//   node build.mjs            one production build (minified, with a source map)
//   node build.mjs --watch    rebuild on change, for development
import { build, context } from "esbuild";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "src", "asteroid_mining", "server", "static");
const watch = process.argv.includes("--watch");

function copyAssets() {
  mkdirSync(out, { recursive: true });
  cpSync(join(here, "static"), out, { recursive: true });
  // Only the Latin subsets of Inter (English and Hungarian need latin + latin-ext).
  const fonts = join(here, "node_modules", "@fontsource-variable", "inter", "files");
  mkdirSync(join(out, "fonts"), { recursive: true });
  for (const name of readdirSync(fonts)) {
    if (/^inter-latin(-ext)?-wght-normal\.woff2$/.test(name)) cpSync(join(fonts, name), join(out, "fonts", name));
  }
  writeFileSync(join(out, "BUILD"), "built by web/build.mjs; do not edit: edit web/ and run `npm run build`\n");
}

const options = {
  entryPoints: [join(here, "src", "main.ts")],
  bundle: true,
  format: "esm",
  target: ["es2022"],
  outfile: join(out, "app.js"),
  sourcemap: true,
  minify: !watch,
  legalComments: "linked",
  logLevel: "warning",
  define: { "process.env.NODE_ENV": watch ? '"development"' : '"production"' },
};

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

checkTranslations();
rmSync(out, { recursive: true, force: true });
copyAssets();
if (watch) {
  const ctx = await context(options);
  await ctx.watch();
  console.log(`watching; output in ${out}`);
} else {
  const result = await build({ ...options, metafile: true });
  const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
  console.log(`built ${out} (${(bytes / 1024).toFixed(0)} KiB of JavaScript and maps)`);
}
