// Writes one JSON Schema file per event type and tool kind into dist/json-schema/, for
// consumers that do not use TypeScript or zod. Runs after tsup, from the built package.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { schemas, toolSchemas } from "../dist/index.js";

const out = join(import.meta.dirname, "..", "dist", "json-schema");
mkdirSync(out, { recursive: true });
const written = [];
for (const [name, schema] of [...Object.entries(schemas), ...Object.entries(toolSchemas)]) {
  const file = `${name}.schema.json`;
  const jsonSchema = z.toJSONSchema(schema, { unrepresentable: "any", reused: "ref" });
  jsonSchema.$id = `https://cursor-wrap.dev/schemas/${file}`;
  jsonSchema.title = name;
  writeFileSync(join(out, file), `${JSON.stringify(jsonSchema, null, 2)}\n`);
  written.push(file);
}
writeFileSync(join(out, "index.json"), `${JSON.stringify(written, null, 2)}\n`);
console.log(`json-schema: wrote ${written.length} schemas to dist/json-schema/`);
