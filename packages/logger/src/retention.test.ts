import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { logFileName } from "./file-names.js";
import { pruneLogs } from "./retention.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22);
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "retention-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, ageDays: number): string {
  const path = join(dir, name);
  writeFileSync(path, "{}\n");
  const when = (NOW - ageDays * DAY) / 1000;
  utimesSync(path, when, when);
  return name;
}

describe("pruneLogs", () => {
  it("deletes logs past the retention and keeps flagged ones twice as long", () => {
    const name = (sessionId: string, flagged = false) =>
      logFileName({ startedAt: NOW - 20 * DAY, sessionId, tags: flagged ? ["flagged"] : [] });
    const fresh = file(name("fresh"), 1);
    const old = file(name("old"), 8);
    const oldFlagged = file(name("old-flagged", true), 8);
    const ancientFlagged = file(name("ancient-flagged", true), 15);
    const unrelated = file("notes.txt", 100);
    const deleted = pruneLogs(dir, { retentionMs: 7 * DAY, now: NOW });
    expect(deleted.sort()).toEqual([join(dir, ancientFlagged), join(dir, old)].sort());
    expect(readdirSync(dir).sort()).toEqual([fresh, oldFlagged, unrelated].sort());
  });

  it("does nothing for a directory that does not exist", () => {
    expect(pruneLogs(join(dir, "missing"), { retentionMs: DAY })).toEqual([]);
  });
});
