// Writes the client's generated files from the server's protocol, as its JSON Schema document:
//   src/protocol.ts                    the TypeScript types of every message, event and record, and the rules'
//                                      constants (`x-constants`)
//   src/generated/actions.ts           the settler actions as the client offers them: the action bar's slots and
//                                      keys, the lessons' presses, each action's fields (`x-actions`)
//   src/generated/protocol.schema.json the JSON Schema itself (draft-07), for any other client or tool
//
//   python -m asteroid_mining.server.protocol | node protocol.mjs          write them
//   python -m asteroid_mining.server.protocol | node protocol.mjs --check  exit 1 when one of them is stale
//
// The schema comes from the server's pydantic models (src/asteroid_mining/server/protocol.py); the types are
// made by json-schema-to-typescript. `make protocol` (or `npm run protocol` with the virtual environment's python
// on PATH) runs the pipe.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, "src", "protocol.ts");
const generated = join(here, "src", "generated");

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
    if (key === "reactions") {
      lines.push("/** What each reactive material's exposed core does when the Sun reaches it (R6). */");
      lines.push(`export const REACTIONS = ${text} as Readonly<Partial<Record<Kind, "explodes" | "sublimates">>>;`);
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

const ACTIONS_HEADER = `// The settler actions as the client offers them: the action bar's slots and their keys, what a lesson may ask
// to press, and each action's fields. GENERATED from the engine's action specs (rules.ACTION_SPECS: each
// action's rule says its fields and its button's key) by \`make protocol\`; do not edit. A test fails when this
// file is stale.
`;

function actionsModule(actions) {
  const slots = actions.slots.filter((s) => s.key !== null).map((s) => ({ name: s.name, key: s.key }));
  const fields = Object.fromEntries(actions.slots.map((s) => [s.name, s.fields]));
  const names = actions.slots.map((s) => s.name);
  const lines = [
    ACTIONS_HEADER,
    "/** The action bar's buttons, in order: each settler action that has one, and its key (a move is played on the",
    " * map, or with 1-9). */",
    `export const ACTION_SLOTS = ${JSON.stringify(slots)} as const;`,
    "/** An action with a button on the bar. */",
    "export type SlotName = (typeof ACTION_SLOTS)[number][\"name\"];",
    "/** Every settler action: what a lesson's step may ask to press (`move:ID`, `drill`, `deposit:ice`, ...). */",
    `export const PRESSES = ${JSON.stringify(names)} as const;`,
    "/** Each settler action's own fields (besides `settler`), as its `act` carries them. */",
    `export const ACTION_FIELDS = ${JSON.stringify(fields)} as const;`,
    "/** A field any settler action takes. */",
    "export type ActionField = (typeof ACTION_FIELDS)[keyof typeof ACTION_FIELDS][number];",
    "/** The fields of a choice that are hints for the player, not the action: the client sends the rest back. */",
    `export const CHOICE_HINTS = ${JSON.stringify(actions.hints)} as const;`,
    "",
  ];
  return lines.join("\n");
}

async function generate(schema) {
  const values = schema["x-constants"];
  delete schema["x-constants"];
  delete schema["x-actions"];
  const types = await compile(schema, "Protocol", {
    bannerComment: "",
    unreachableDefinitions: true,
    additionalProperties: false,
    format: true,
    style: { printWidth: 120, singleQuote: false, trailingComma: "all" },
  });
  return HEADER + "\n" + tidy(types) + constants(values);
}

const input = readFileSync(0, "utf8");
const schema = JSON.parse(input);
const files = new Map([
  [join(generated, "protocol.schema.json"), JSON.stringify(schema, null, 1) + "\n"],
  [join(generated, "actions.ts"), actionsModule(schema["x-actions"])],
]);
files.set(target, await generate(schema));
if (process.argv.includes("--check")) {
  let stale = false;
  for (const [path, text] of files) {
    let old = "";
    try {
      old = readFileSync(path, "utf8");
    } catch {
      // a missing file is stale
    }
    if (old !== text) {
      console.error(`web/${path.slice(here.length + 1)} is stale: run \`make protocol\` and commit it`);
      stale = true;
    }
  }
  if (stale) process.exit(1);
} else {
  mkdirSync(generated, { recursive: true });
  for (const [path, text] of files) writeFileSync(path, text);
}
