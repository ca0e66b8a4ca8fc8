// Writes one JSON Schema file per event type, tool kind and adapter-contract shape (the
// normalised events and the turn input) into dist/json-schema/, for
// consumers that do not use TypeScript or zod. Runs after tsup, from the built package.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { contractSchemas, schemas, toolSchemas } from "../dist/schemas.js";

/**
 * `type: ["number", "string"]` as `anyOf` of single types: the same schema, and one that Ajv's
 * strict mode takes without `allowUnionTypes`.
 */
function withoutUnionTypes(node) {
  if (Array.isArray(node)) return node.map(withoutUnionTypes);
  if (node === null || typeof node !== "object") return node;
  const copy = {};
  for (const [key, value] of Object.entries(node)) copy[key] = withoutUnionTypes(value);
  if (Array.isArray(copy.type)) {
    const types = copy.type;
    delete copy.type;
    const variants = types.map((type) => ({ type }));
    if (copy.anyOf) copy.allOf = [...(copy.allOf ?? []), { anyOf: variants }];
    else copy.anyOf = variants;
  }
  return copy;
}

const out = join(import.meta.dirname, "..", "dist", "json-schema");
mkdirSync(out, { recursive: true });
const written = [];
for (const [name, schema] of [
  ...Object.entries(schemas),
  ...Object.entries(toolSchemas),
  ...Object.entries(contractSchemas),
]) {
  const file = `${name}.schema.json`;
  const jsonSchema = withoutUnionTypes(
    z.toJSONSchema(schema, { unrepresentable: "any", reused: "ref" }),
  );
  jsonSchema.$id = `https://cursor-wrap.dev/schemas/${file}`;
  jsonSchema.title = name;
  writeFileSync(join(out, file), `${JSON.stringify(jsonSchema, null, 2)}\n`);
  written.push(file);
}
writeFileSync(join(out, "index.json"), `${JSON.stringify(written, null, 2)}\n`);
console.log(`json-schema: wrote ${written.length} schemas to dist/json-schema/`);
