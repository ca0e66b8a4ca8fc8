import { spawnSync } from "node:child_process";
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
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

  it("keeps a log that began within the retention without looking at the file", () => {
    // Its name says it began a day ago: it was last written since, whatever its mtime says.
    const recent = file(logFileName({ startedAt: NOW - DAY, sessionId: "recent", tags: [] }), 30);
    const old = file(logFileName({ startedAt: NOW - 20 * DAY, sessionId: "old", tags: [] }), 30);
    expect(pruneLogs(dir, { retentionMs: 7 * DAY, now: NOW })).toEqual([join(dir, old)]);
    expect(readdirSync(dir)).toEqual([recent]);
  });

  it("reads the start of an MCP or ACP proxy's log from its name as well", () => {
    const name = (kind: "mcp" | "acp", startedAt: number) =>
      logFileName({ kind, startedAt, sessionId: "s", tags: [] });
    const recent = [file(name("mcp", NOW - DAY), 30), file(name("acp", NOW - DAY), 30)];
    const old = [file(name("mcp", NOW - 20 * DAY), 30), file(name("acp", NOW - 20 * DAY), 30)];
    expect(pruneLogs(dir, { retentionMs: 7 * DAY, now: NOW }).sort()).toEqual(
      old.map((entry) => join(dir, entry)).sort(),
    );
    expect(readdirSync(dir).sort()).toEqual(recent.sort());
  });

  it("does nothing for a directory that does not exist", () => {
    expect(pruneLogs(join(dir, "missing"), { retentionMs: DAY })).toEqual([]);
  });
});

describe("pruneLogs and links", () => {
  it("never follows a symlink named like a log, nor deletes what it points to", () => {
    const dir = mkdtempSync(join(tmpdir(), "retention-link-"));
    const outside = join(mkdtempSync(join(tmpdir(), "retention-outside-")), "precious.txt");
    writeFileSync(outside, "keep me");
    const link = join(dir, "cursor-wrap-2020-01-01T00-00-00-000Z-unknown.jsonl");
    symlinkSync(outside, link);
    utimesSync(outside, new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect(pruneLogs(dir, { retentionMs: 1 })).toEqual([]);
    expect(readFileSync(outside, "utf8")).toBe("keep me");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe("pruneLogs and live writers", () => {
  const start = (pid: number): string =>
    `${JSON.stringify({ level: 20, time: NOW, msg: "session_start", pid })}\n`;

  it("keeps an old log whose writer is alive and has not ended it, deletes it once ended", () => {
    const name = logFileName({ startedAt: NOW - 20 * DAY, sessionId: "live", tags: [] });
    const path = join(dir, name);
    writeFileSync(path, start(process.pid));
    utimesSync(path, (NOW - 9 * DAY) / 1000, (NOW - 9 * DAY) / 1000);
    expect(pruneLogs(dir, { retentionMs: DAY, now: NOW })).toEqual([]);
    writeFileSync(path, `${start(process.pid)}{"msg":"session_end"}\n`);
    utimesSync(path, (NOW - 9 * DAY) / 1000, (NOW - 9 * DAY) / 1000);
    expect(pruneLogs(dir, { retentionMs: DAY, now: NOW })).toEqual([path]);
  });

  it("deletes an old log whose writer is gone without ending it (a crash)", () => {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    const name = logFileName({ startedAt: NOW - 20 * DAY, sessionId: "crashed", tags: [] });
    const path = join(dir, name);
    writeFileSync(path, start(gone));
    utimesSync(path, (NOW - 9 * DAY) / 1000, (NOW - 9 * DAY) / 1000);
    expect(pruneLogs(dir, { retentionMs: DAY, now: NOW })).toEqual([path]);
  });
});
