import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LEVELS } from "./levels.js";
import { recordText } from "./record-text.js";
import { openSessionLog, recordStringJson } from "./session-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The records a log wrote, for `write` called on it at a fixed clock. */
function written(write: (log: ReturnType<typeof openSessionLog>) => void): string[] {
  const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-record-text-"));
  dirs.push(dir);
  const log = openSessionLog({ dir, retentionMs: 0, now: () => 1_700_000_000_000 });
  write(log);
  const path = log.path;
  log.close({ outcome: "completed", flagged: false, exit_code: 0 });
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.includes('"msg":"mcp_message"'));
}

const fields = {
  dir: "client→server",
  kind: "request",
  bytes: 151,
  id: 'a"b\\c\u2028',
  method: "tools/call",
  tool: "sk-abcdefghijklmnopqrstuv",
  latency_ms: 0.125,
};
// The members as a caller of debugRecord writes them: strings by recordStringJson.
const members = Object.entries(fields)
  .map(
    ([key, value]) =>
      `${JSON.stringify(key)}:${typeof value === "string" ? recordStringJson(key, value) : JSON.stringify(value)}`,
  )
  .join(",");

describe("recordText and SessionLog.debugRecord", () => {
  it("write the line pino writes for the same fields, redacted the same way", () => {
    const byPino = written((log) => log.debug(fields, "mcp_message"));
    const byText = written((log) => log.debugRecord("mcp_message", members));
    expect(byText).toHaveLength(1);
    expect(byText).toEqual(byPino);
    expect(byText[0]).not.toContain("sk-abcdefghijklmnopqrstuv");
  });

  it("recordStringJson: JSON.stringify's text, secrets redacted, the same for a repeat", () => {
    for (const value of ["tools/call", 'a"b\\c\u2028\ud800', "", "x".repeat(300)]) {
      expect(recordStringJson("method", value)).toBe(JSON.stringify(value));
      expect(recordStringJson("method", value)).toBe(JSON.stringify(value));
    }
    const secret = "sk-abcdefghijklmnopqrstuv";
    for (let round = 0; round < 3; round += 1) {
      expect(recordStringJson("tool", `run ${secret}`)).toBe('"run [REDACTED]"');
      // Under a key that names a secret, all of it; a clean value under another key is kept.
      expect(recordStringJson("token", "plain")).toBe('"[REDACTED]"');
      expect(recordStringJson("tool", "plain")).toBe('"plain"');
      // A key pino writes itself is still redacted.
      expect(recordStringJson("msg", secret)).toBe('"[REDACTED]"');
    }
  });

  it("hold a record with the chunk begun, like any routine record", () => {
    const lines = written((log) => {
      log.beginChunk([]);
      log.debugRecord("mcp_message", members);
      log.debug({ dir: "server→client" }, "mcp_message");
      log.endChunk();
    });
    expect(lines.map((line) => JSON.parse(line).dir)).toEqual(["client→server", "server→client"]);
  });

  it("write a record with no fields", () => {
    expect(recordText(LEVELS.debug, 5, "x", "")).toBe('{"level":20,"time":5,"ts":5,"msg":"x"}\n');
  });
});
