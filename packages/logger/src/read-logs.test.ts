import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLine } from "@cursor-wrap/events";
import { realCaptures } from "@cursor-wrap/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeLogRecord, logEntryEvent } from "./raw-record.js";
import { listMcpLogs, listSessions, readSessionLog } from "./read-logs.js";
import { openSessionLog } from "./session-log.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "read-logs-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("listSessions", () => {
  it("summarises each log from its name and final record, newest first", () => {
    let now = Date.UTC(2026, 10, 22, 10);
    const first = openSessionLog({ dir, now: () => now, retentionMs: 0 });
    first.setSessionId("s-first");
    first.close({
      outcome: "completed",
      flagged: false,
      turns: 2,
      duration_ms: 1500,
      exit_code: 0,
    });
    now += 60_000;
    const second = openSessionLog({ dir, now: () => now, retentionMs: 0 });
    second.setSessionId("s-second");
    second.close({ outcome: "hang", flagged: true, turns: 1, duration_ms: 61_000, exit_code: 2 });
    now += 60_000;
    openSessionLog({ dir, now: () => now, retentionMs: 0 }); // still running (or crashed)
    expect(listSessions(dir)).toMatchObject([
      { sessionId: "unknown", outcome: "unfinished", flagged: false },
      {
        sessionId: "s-second",
        outcome: "hang",
        flagged: true,
        turns: 1,
        durationMs: 61_000,
        exitCode: 2,
      },
      { sessionId: "s-first", outcome: "completed", flagged: false, turns: 2, exitCode: 0 },
    ]);
  });
});

describe("listSessions with an id prefix", () => {
  it("leaves out the logs named with another session's id, and reads those named with none", () => {
    let now = Date.UTC(2026, 10, 22, 10);
    const open = () => openSessionLog({ dir, now: () => (now += 1000), retentionMs: 0 });
    for (const id of ["a1-first", "b2-other", "a1-again"]) {
      const log = open();
      log.setSessionId(id);
      log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    }
    // Never renamed (its id came too late, say): only its last record gives the id.
    const late = open();
    late.close({ outcome: "hang", flagged: true, exit_code: 2, session_id: "a1-late" });
    const unnamed = open(); // still running
    expect(listSessions(dir, { idPrefix: "a1" }).map((session) => session.sessionId)).toEqual([
      "a1-late",
      "a1-again",
      "a1-first",
    ]);
    expect(listSessions(dir, { idPrefix: "b2" }).map((session) => session.sessionId)).toEqual([
      "b2-other",
    ]);
    expect(listSessions(dir, { idPrefix: "unknown" }).map((session) => session.sessionId)).toEqual([
      "unknown",
    ]);
    expect(listSessions(dir)).toHaveLength(5);
    unnamed.close({ outcome: "completed", flagged: false, exit_code: 0 });
  });
});

describe("listSessions and listMcpLogs with things named like logs", () => {
  it("skip a FIFO instead of blocking on it", () => {
    const log = openSessionLog({ dir, retentionMs: 0 });
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    for (const name of [
      "cursor-wrap-2026-11-24T23-42-03-819Z-33333333-3333-4333-8333-333333333333.jsonl",
      "cursor-wrap-mcp-2026-11-24T23-42-03-819Z-github.jsonl",
    ]) {
      expect(spawnSync("mkfifo", [join(dir, name)]).status).toBe(0);
    }
    // Would never return if either opened the FIFO for reading.
    expect(listSessions(dir).map((session) => session.path)).toEqual([log.path]);
    expect(listMcpLogs(dir)).toEqual([]);
  });
});

describe("readSessionLog", () => {
  it("gives raw lines, text lines and records back in order", async () => {
    const log = openSessionLog({ dir, retentionMs: 0 });
    log.raw(parseLine('{"type":"system","subtype":"init","session_id":"s"}'));
    log.raw(parseLine("T: oops"));
    log.decision("hang_detected", { verdict: "hang" });
    log.close({ outcome: "hang", flagged: true, exit_code: 0 });
    const kinds: string[] = [];
    for await (const entry of readSessionLog(log.path)) {
      kinds.push(entry.kind === "record" ? String(entry.record.msg) : entry.kind);
    }
    expect(kinds).toEqual(["session_start", "raw", "text", "hang_detected", "session_end"]);
  });

  it("reads a capture of agent output back as its lines, each as the agent wrote it", async () => {
    for (const capture of realCaptures()) {
      const path = join(dir, `${capture.name}.jsonl`);
      writeFileSync(path, capture.bytes);
      const lines: Buffer[] = [];
      for await (const entry of readSessionLog(path)) {
        expect(entry.kind, capture.name).toBe("raw");
        if (entry.kind === "raw") lines.push(Buffer.concat([entry.raw, Buffer.from(entry.eol)]));
      }
      expect(Buffer.concat(lines).equals(capture.bytes), capture.name).toBe(true);
    }
  });

  it("gives a record too long to read back as damaged: its head and size, read in pieces", async () => {
    const log = openSessionLog({ dir, retentionMs: 0 });
    log.raw(parseLine(`{"type":"assistant","text":"${"x".repeat(10_000)}"}`));
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const entries = [];
    for await (const entry of readSessionLog(log.path, { maxRecordBytes: 4_096 })) {
      entries.push(entry);
    }
    expect(entries.map((entry) => entry.kind)).toEqual(["record", "damaged", "record"]);
    const damaged = entries[1]!;
    expect(damaged.kind === "damaged" ? damaged.line : "").toMatch(
      /^\{"level":20,.*… \(\d{5} bytes: too long to read back\)$/,
    );
  });

  it("reads a raw record laid out by another tool by its value", () => {
    const record = { level: 20, time: 1, msg: "raw_event", recv_ts: 1, raw: { type: "x" } };
    const rewritten = Buffer.from(JSON.stringify(record, null, 1).replace(/\n/g, " "));
    expect(decodeLogRecord(rewritten, record)).toMatchObject({ kind: "raw" });
    const entry = decodeLogRecord(rewritten, record);
    expect(entry.kind === "raw" ? entry.raw.toString() : "").toBe('{"type":"x"}');
  });
});

describe("logEntryEvent", () => {
  it("gives back the logged lines as the events they were, bytes and receive times included", async () => {
    const lines = [
      Buffer.from('{"type":"system","subtype":"init","session_id":"s"}\n'),
      Buffer.from('{"type":"assistant"}\r\n'),
      Buffer.from("T: oops\n"),
      Buffer.from([0x7b, 0xff, 0x0a]), // invalid UTF-8
      Buffer.from('{"type":"result"}'), // the last line, without a newline
    ];
    const log = openSessionLog({ dir, retentionMs: 0, redact: false });
    const logged = lines.map((line, index) =>
      parseLine(line, { mono: 1_000 + index, epoch: 1_770_000_000_000 + index }),
    );
    log.rawAll(logged);
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const events = [];
    for await (const entry of readSessionLog(log.path)) {
      const event = logEntryEvent(entry);
      if (event) events.push(event);
      else expect(entry.kind).toBe("record");
    }
    expect(events.map((event) => event.raw)).toEqual(lines);
    expect(events.map((event) => [event.kind, event.eol, event.recvAt.epoch])).toEqual(
      logged.map((event) => [event.kind, event.eol, event.recvAt.epoch]),
    );
  });
});
