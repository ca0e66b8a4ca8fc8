// The package's other entry points: one without Node built-ins (bundled for a browser here), and
// the JSON Schema files, which must compile under Ajv's strict mode.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";
import { Ajv2020 } from "ajv/dist/2020.js";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const here = fileURLToPath(new URL(".", import.meta.url));

describe("@cursor-wrap/events/browser", () => {
  it("bundles for a browser with no Node built-in, and reads events there", async () => {
    const result = await build({
      entryPoints: [join(here, "browser.ts")],
      bundle: true,
      platform: "browser",
      format: "iife",
      globalName: "events",
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/\bnode:|require\(/);
    // Run it where there is no Buffer, no process and no require.
    const sandbox: Record<string, unknown> = {};
    runInNewContext(
      `${code};
      const line = ${JSON.stringify(
        JSON.stringify({
          type: "tool_call",
          subtype: "started",
          call_id: "c1",
          tool_call: { shellToolCall: { args: { command: "npm test", timeout: 30000 } } },
        }),
      )};
      const event = events.eventOf(JSON.parse(line));
      globalThis.result = { info: events.toolCallInfo(event), signal: events.toMonitorSignal(event), safe: events.terminalSafe("a\\u001bb") };`,
      sandbox,
    );
    expect(sandbox.result).toMatchObject({
      info: { kind: "shell", label: "npm test", timeoutMs: 30_000, callId: "c1" },
      signal: { type: "toolStart", id: "c1", timeoutMs: 30_000 },
      safe: "a\\x1bb",
    });
  });
});

describe("the JSON Schema files", () => {
  it("compile under Ajv's strict mode, without allowUnionTypes", () => {
    const dir = join(here, "..", "dist", "json-schema");
    const files = readdirSync(dir).filter((file) => file.endsWith(".schema.json"));
    expect(files.length).toBeGreaterThan(30);
    const ajv = new Ajv2020({ strict: true });
    for (const file of files) {
      const schema = JSON.parse(readFileSync(join(dir, file), "utf8")) as object;
      expect(() => ajv.compile(schema), file).not.toThrow();
    }
  });
});
