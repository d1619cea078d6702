// Runs the client's TypeScript unit tests with node's own test runner (`node --test`).
//
//   node test.mjs        (npm test)
//
// Every `*.test.ts` under test/ and src/ is bundled by esbuild (already the client's bundler) into a temporary
// directory as an ES module for node, then all of them run in one `node --test`. No test files: it says so and
// succeeds, so that CI can run this before the first test exists.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name === "node_modules") continue;
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (name.endsWith(".test.ts")) found.push(path);
  }
  return found;
}

const files = [...testFiles(join(here, "test")), ...testFiles(join(here, "src"))];
if (files.length === 0) {
  console.log("no TypeScript unit tests (*.test.ts under web/test or web/src)");
  process.exit(0);
}
const out = mkdtempSync(join(tmpdir(), "web-tests-"));
try {
  const outputs = [];
  for (const file of files) {
    const name = relative(here, file).replaceAll("/", "__").replace(/\.ts$/, ".mjs");
    const target = join(out, name);
    await build({
      entryPoints: [file],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: target,
      sourcemap: "inline",
      logLevel: "error",
      // the tests' fixtures are read relative to the source tree, not to the bundle
      define: { "import.meta.dirname": JSON.stringify(dirname(file)) },
      external: ["node:*"],
    });
    outputs.push(target);
  }
  console.log(`running ${outputs.length} test file(s): ${files.map((f) => basename(f)).join(", ")}`);
  const run = spawnSync(process.execPath, ["--test", ...outputs], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
