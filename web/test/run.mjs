// `npm test`: the client's unit tests. Each test/*.test.ts is bundled by esbuild (already a dependency: no test
// framework to install) into a temporary folder and run by Node's own test runner.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const tests = readdirSync(here).filter((f) => f.endsWith(".test.ts")).map((f) => join(here, f));
const out = mkdtempSync(join(tmpdir(), "am-web-tests-"));
try {
  await build({
    entryPoints: tests,
    bundle: true,
    platform: "node",
    format: "esm",
    target: ["node20"],
    outdir: out,
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
    external: ["node:*"],
  });
  const files = readdirSync(out).filter((f) => f.endsWith(".mjs")).map((f) => join(out, f));
  const run = spawnSync(process.execPath, ["--test", ...files], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
