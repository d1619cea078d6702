// Writes src/protocol.ts, the TypeScript types of the server's protocol, from its JSON Schema.
//
//   python -m asteroid_mining.server.protocol | node protocol.mjs          write src/protocol.ts
//   python -m asteroid_mining.server.protocol | node protocol.mjs --check  exit 1 when src/protocol.ts is stale
//
// The schema comes from the server's pydantic models (src/asteroid_mining/server/protocol.py); the types are
// made by json-schema-to-typescript, and the rules' constants (`x-constants`) are written after them. `make
// protocol` (or `npm run protocol` with the virtual environment's python on PATH) runs the pipe.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, "src", "protocol.ts");

const HEADER = `// The server's protocol: every message, answer and record it sends or takes, as TypeScript types.
// GENERATED from the server's pydantic models (src/asteroid_mining/server/protocol.py) by \`make protocol\`;
// do not edit: change the models and run it again. A test fails when this file is stale.
/* eslint-disable */
`;

function constantName(key) {
  return key.toUpperCase();
}

function constants(values) {
  const lines = ["", "/** The rules' numbers a client shows (rules/materials.py). */"];
  for (const [key, value] of Object.entries(values)) {
    let text = JSON.stringify(value);
    if (key === "kinds") {
      lines.push(`export const KINDS = ${text} as const;`);
      lines.push("/** A material. */");
      lines.push("export type Kind = (typeof KINDS)[number];");
      continue;
    }
    if (key === "reactive") {
      lines.push(`/** Materials that react when exposed near the Sun (R6). */`);
      lines.push(`export const REACTIVE: ReadonlySet<string> = new Set(${text});`);
      continue;
    }
    if (typeof value === "object") {
      text = `${text} as Readonly<Partial<Record<Kind, number>>>`;
    }
    lines.push(`export const ${constantName(key)} = ${text};`);
  }
  return lines.join("\n") + "\n";
}

// The generator notes where each declaration came from; in one generated file that says nothing.
function tidy(types) {
  const origin = String.raw`This interface was referenced by \x60[^\x60]+\x60's JSON-Schema(?: definition)?\n\s*\* via the \x60(?:definition|patternProperty)\x60 "[^"]+"\.`;
  return types
    .replace(new RegExp(String.raw`\s*/\*\*\n\s*\* ` + origin + String.raw`\n\s*\*/`, "g"), "")
    .replace(new RegExp(String.raw`\n\s*\*\n\s*\* ` + origin, "g"), "");
}

async function generate(schema) {
  const values = schema["x-constants"];
  delete schema["x-constants"];
  const types = await compile(schema, "Protocol", {
    bannerComment: "",
    unreachableDefinitions: true,
    additionalProperties: false,
    format: true,
    style: { printWidth: 120, singleQuote: false, trailingComma: "all" },
  });
  return HEADER + "\n" + tidy(types) + constants(values);
}

const schema = JSON.parse(readFileSync(0, "utf8"));
const text = await generate(schema);
if (process.argv.includes("--check")) {
  let old = "";
  try {
    old = readFileSync(target, "utf8");
  } catch {
    // a missing file is stale
  }
  if (old !== text) {
    console.error("web/src/protocol.ts is stale: run `make protocol` and commit it");
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
