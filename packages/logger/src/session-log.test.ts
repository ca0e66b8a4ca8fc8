import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { createLineFramer, parseLine } from "@cursor-wrap/events";
import { realCaptures } from "@cursor-wrap/fixtures";
import fc from "fast-check";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LogDirError } from "./errors.js";
import { parseLogFileName } from "./file-names.js";
import { listMcpLogs, listSessions, readSessionLog } from "./read-logs.js";
import { openSessionLog, plainRecordLine, type SessionLogOptions } from "./session-log.js";

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  return {
    ...actual,
    writeSync: vi.fn(actual.writeSync),
    writevSync: vi.fn(actual.writevSync),
    fsyncSync: vi.fn(actual.fsyncSync),
    fsync: vi.fn(actual.fsync),
    closeSync: vi.fn(actual.closeSync),
  };
});

let dir: string;
const T0 = Date.UTC(2026, 10, 22, 12, 5, 1, 123);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "logger-test-"));
  vi.clearAllMocks();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function open(options: Partial<SessionLogOptions> = {}) {
  let now = T0;
  const log = openSessionLog({ dir, retentionMs: 0, now: () => now++, ...options });
  return log;
}

function fileLines(path: string): Buffer[] {
  const bytes = readFileSync(path);
  const lines: Buffer[] = [];
  let start = 0;
  for (let index = bytes.indexOf(10); index !== -1; index = bytes.indexOf(10, start)) {
    lines.push(bytes.subarray(start, index));
    start = index + 1;
  }
  expect(start).toBe(bytes.length); // every record ends with a newline
  return lines;
}

const records = (path: string) =>
  fileLines(path).map((line) => JSON.parse(line.toString("utf8")) as Record<string, unknown>);

/** A console sink that keeps what is printed on it. */
function capturedConsole(): { printed: string; write(text: string): boolean } {
  const sink = {
    printed: "",
    write(text: string) {
      sink.printed += text;
      return true;
    },
  };
  return sink;
}

describe("openSessionLog", () => {
  it("keeps a secret the agent gave as its session id out of the file's name", () => {
    const log = open();
    log.setSessionId("sk-proj-ACPKEYabcdefghijklmnopqrstuvwx0123");
    expect(log.path).toBe(join(dir, "cursor-wrap-2026-11-22T12-05-01-123Z-unknown.jsonl"));
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(readdirSync(dir).join()).not.toContain("ACPKEY");
  });

  it("names the file by start time, then renames it once the session id is known", () => {
    const log = open();
    expect(log.path).toBe(join(dir, "cursor-wrap-2026-11-22T12-05-01-123Z-unknown.jsonl"));
    log.setSessionId("d43015b9-0707-43f4-b2df-0bcea7891654");
    expect(log.path).toBe(
      join(dir, "cursor-wrap-2026-11-22T12-05-01-123Z-d43015b9-0707-43f4-b2df-0bcea7891654.jsonl"),
    );
    log.setSessionId("another");
    expect(log.path).toContain("d43015b9");
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(readdirSync(dir)).toEqual([
      "cursor-wrap-2026-11-22T12-05-01-123Z-d43015b9-0707-43f4-b2df-0bcea7891654.jsonl",
    ]);
    expect(parseLogFileName(log.path)).toEqual({
      kind: "session",
      startedAt: T0,
      sessionId: "d43015b9-0707-43f4-b2df-0bcea7891654",
      tags: [],
    });
  });

  it("flags the name at a verdict, so the path handed on then is the one the log keeps", () => {
    const renamed: unknown[] = [];
    const log = open({
      onRecord: (message, record) => {
        if (message === "log_renamed") renamed.push(record.path);
      },
    });
    log.flag();
    const flaggedAtVerdict = log.path;
    expect(flaggedAtVerdict).toBe(
      join(dir, "cursor-wrap-2026-11-22T12-05-01-123Z-unknown.flagged.jsonl"),
    );
    // Then the session id: the flag stays in the name.
    log.setSessionId("s-1");
    log.flag();
    expect(log.path).toBe(join(dir, "cursor-wrap-2026-11-22T12-05-01-123Z-s-1.flagged.jsonl"));
    const atVerdict = log.path;
    // A later end that would not flag it (recovered) leaves the name as it was handed on.
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(log.path).toBe(atVerdict);
    expect(readdirSync(dir)).toEqual(["cursor-wrap-2026-11-22T12-05-01-123Z-s-1.flagged.jsonl"]);
    expect(renamed).toEqual([flaggedAtVerdict, atVerdict]);
    expect(records(atVerdict).at(-1)).toMatchObject({ msg: "session_end", log_path: atVerdict });
  });

  it("prints a record of a limited kind a few times on the console, and every one in the file", () => {
    const out = new PassThrough();
    let printed = "";
    out.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const log = open({
      console: { stream: out, level: "warn", color: false, limits: { mcp_invalid_line: 2 } },
    });
    for (let index = 0; index < 5; index += 1) {
      log.warn({ summary: `junk line ${index}` }, "mcp_invalid_line");
    }
    log.warn({ summary: "something else" }, "mcp_request_timed_out");
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const lines = printed.trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain("junk line 0");
    expect(lines[1]).toContain("junk line 1");
    expect(lines[2]).toContain(`more mcp_invalid_line records: in the log file only (${log.path})`);
    expect(lines[3]).toContain("something else");
    expect(records(log.path).filter((record) => record.msg === "mcp_invalid_line")).toHaveLength(5);
  });

  it("keeps an MCP proxy's log apart: its own name, left out of the sessions, found with its run", () => {
    const log = open({ kind: "mcp", name: "git hub" });
    log.decision("mcp_proxy_start", { agent_token: "tok-1", server_id: "git hub" }, "info");
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(log.path).toBe(join(dir, "cursor-wrap-mcp-2026-11-22T12-05-01-123Z-git_hub.jsonl"));
    expect(listSessions(dir)).toEqual([]);
    expect(listMcpLogs(dir)).toEqual([
      { path: log.path, startedAt: T0, serverId: "git_hub", agentToken: "tok-1" },
    ]);
    expect(parseLogFileName(log.path)?.kind).toBe("mcp");
  });

  it("keeps a long-running log bounded: past its size it rotates, the earlier part kept once", () => {
    const log = open({
      kind: "mcp",
      name: "chatty",
      rotateBytes: 4_096,
      carry: { agent_token: "tok-2", server_id: "chatty" },
    });
    log.decision("mcp_proxy_start", { agent_token: "tok-2", server_id: "chatty" }, "info");
    for (let index = 0; index < 400; index += 1) {
      log.debug({ dir: "server→client", kind: "notification", index }, "mcp_message");
    }
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const names = readdirSync(dir).sort();
    expect(names).toEqual([
      "cursor-wrap-mcp-2026-11-22T12-05-01-123Z-chatty.jsonl",
      "cursor-wrap-mcp-2026-11-22T12-05-01-123Z-chatty.rotated.jsonl",
    ]);
    for (const name of names) {
      expect(fs.statSync(join(dir, name)).size).toBeLessThan(4_096 + 512);
    }
    const current = records(join(dir, names[0]!));
    expect(current.map((record) => record.msg).slice(0, 2)).toEqual([
      "session_start",
      "log_rotated",
    ]);
    expect(current[1]).toMatchObject({ agent_token: "tok-2", server_id: "chatty" });
    expect(current.at(-1)).toMatchObject({ msg: "session_end" });
    // Both parts belong to the run, and the newest records are in the current file.
    expect(listMcpLogs(dir).map((entry) => [entry.serverId, entry.agentToken])).toEqual([
      ["chatty", "tok-2"],
      ["chatty", "tok-2"],
    ]);
    expect(current.at(-2)).toMatchObject({ index: 399 });
  });

  it("names an ACP proxy's log apart and lists it with the sessions, marked as one", () => {
    const log = open({ kind: "acp", name: "acp" });
    log.setSessionId("sess-1");
    log.close({ outcome: "completed", flagged: false, exit_code: 0, session_id: "sess-1" });
    expect(log.path).toBe(join(dir, "cursor-wrap-acp-2026-11-22T12-05-01-123Z-sess-1.jsonl"));
    expect(parseLogFileName(log.path)?.kind).toBe("acp");
    expect(listSessions(dir)).toMatchObject([
      { path: log.path, sessionId: "sess-1", outcome: "completed", kind: "acp" },
    ]);
    expect(listMcpLogs(dir)).toEqual([]);
  });

  it("never lets two instances of one session started in the same millisecond share a file", () => {
    const first = open();
    const second = open();
    first.setSessionId("s");
    second.setSessionId("s");
    first.decision("from_first");
    second.decision("from_second");
    first.close({ outcome: "hang", flagged: true, exit_code: 2 });
    second.close({ outcome: "hang", flagged: true, exit_code: 2 });
    expect(first.path).not.toBe(second.path);
    expect(readdirSync(dir)).toHaveLength(2);
    expect(records(first.path).map((record) => record.msg)).toContain("from_first");
    expect(records(second.path).map((record) => record.msg)).toContain("from_second");
  });

  it("never deletes the log of another instance that is still running, whatever the retention", () => {
    const running = open();
    running.decision("still_here");
    const ended = open({ now: () => T0 + 1 });
    ended.close({ outcome: "completed", flagged: false, exit_code: 0 });
    // Both last written "long ago" as far as the next instance's clock is concerned.
    const later = openSessionLog({ dir, retentionMs: 1, now: () => Date.now() + 86_400_000 });
    expect(fs.existsSync(running.path)).toBe(true);
    expect(fs.existsSync(ended.path)).toBe(false);
    later.close({ outcome: "completed", flagged: false, exit_code: 0 });
    running.close({ outcome: "completed", flagged: false, exit_code: 0 });
  });

  it("embeds every line of every real capture byte for byte", async () => {
    const log = open();
    const originals: Buffer[] = [];
    for (const capture of realCaptures()) {
      const framer = createLineFramer();
      for (const event of [...framer.push(capture.bytes), ...framer.end()]) {
        log.raw(event);
        originals.push(Buffer.from(event.line));
      }
    }
    log.raw(parseLine('{"type":"user","crlf":true}\r\n'));
    originals.push(Buffer.from('{"type":"user","crlf":true}'));
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const lines = fileLines(log.path).filter((line) => line.includes('"msg":"raw_event"'));
    expect(lines).toHaveLength(originals.length);
    for (const [index, line] of lines.entries()) {
      const prefix = line.subarray(0, line.indexOf(',"raw":') + 7);
      expect(prefix.toString()).toMatch(
        /^\{"level":20,"time":\d+,"msg":"raw_event","recv_ts":\d+(,"eol":"\\r\\n")?,"raw":$/,
      );
      expect(line.subarray(prefix.length, line.length - 1).equals(originals[index]!)).toBe(true);
      expect(() => JSON.parse(line.toString())).not.toThrow();
    }
    // Read back through the reader, the bytes are the same.
    const entries = [];
    for await (const entry of readSessionLog(log.path))
      if (entry.kind === "raw") entries.push(entry);
    expect(entries.map((entry) => entry.raw.toString())).toEqual(
      originals.map((line) => line.toString()),
    );
    expect(entries.at(-1)?.eol).toBe("\r\n");
  });

  it("keeps lines that are not JSON objects in raw_text, invalid UTF-8 also as base64", async () => {
    const log = open();
    log.raw(parseLine("T: Named models unavailable"));
    log.raw(parseLine("[1,2,3]"));
    const invalid = Buffer.from([0x61, 0xff, 0x62]);
    log.raw(parseLine(invalid));
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const raw = records(log.path).filter((record) => record.msg === "raw_event");
    expect(raw).toMatchObject([
      { level: 40, reason: "not-json", raw_text: "T: Named models unavailable" },
      { level: 40, reason: "not-object", raw_text: "[1,2,3]" },
      { level: 40, reason: "not-json", raw_text: "a\ufffdb" },
    ]);
    // `a\xffb` starts with a letter, so it is bare text; invalid UTF-8 inside JSON keeps its bytes:
    const log2 = open();
    log2.raw(parseLine(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])));
    log2.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const entries = [];
    for await (const entry of readSessionLog(log2.path))
      if (entry.kind === "text") entries.push(entry);
    expect(entries[0]?.bytes?.equals(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]))).toBe(true);
  });

  it("logs a line above the parse cap as its head and its length", () => {
    const log = open();
    const framer = createLineFramer({ parseCap: 16 });
    for (const event of framer.push(Buffer.from(`{"type":"x","data":"${"y".repeat(10_000)}"}\n`)))
      log.raw(event);
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const oversize = records(log.path).filter((record) => record.oversize === true);
    expect(oversize).toEqual([
      expect.objectContaining({
        msg: "raw_event",
        truncated: true,
        raw_head: expect.stringMatching(/^\{"type":"x"/),
      }),
      expect.objectContaining({ msg: "raw_event_end", bytes: 10_022 }),
    ]);
    expect((oversize[0]!.raw_head as string).length).toBe(4_096);
  });

  it("writes decision records with ts, one write(2) each, fsynced", () => {
    const log = open();
    vi.clearAllMocks();
    log.decision("tool_call_opened", { call_id: "a\nb", timeout_ms: 10_000 });
    log.decision(
      "hang_detected",
      { reason: { kind: "idle", message: "no output for 1m" } },
      "error",
    );
    log.info({ detail: "not a decision" }, "note");
    log.raw(parseLine('{"type":"assistant"}'));
    const writes =
      vi.mocked(fs.writeSync).mock.calls.length + vi.mocked(fs.writevSync).mock.calls.length;
    expect(writes).toBe(4);
    expect(vi.mocked(fs.fsyncSync)).toHaveBeenCalledTimes(2);
    log.close({ outcome: "hang", flagged: true, exit_code: 0 });
    expect(vi.mocked(fs.fsyncSync)).toHaveBeenCalledTimes(3); // and once at the end
    const all = records(log.path);
    expect(all.find((record) => record.msg === "tool_call_opened")).toMatchObject({
      level: 30,
      call_id: "a\nb",
      timeout_ms: 10_000,
      ts: expect.any(Number),
      time: expect.any(Number),
    });
    expect(all.find((record) => record.msg === "hang_detected")).toMatchObject({
      level: 50,
      reason: { kind: "idle" },
    });
    expect(all[0]).toMatchObject({ msg: "session_start", pid: process.pid });
    expect(all.at(-1)).toMatchObject({
      msg: "session_end",
      outcome: "hang",
      flagged: true,
      incomplete: false,
    });
  });

  it("writes a chunk of raw lines with one writev, every record whole", () => {
    const log = open();
    vi.clearAllMocks();
    const events = createLineFramer().push(
      Buffer.from('{"type":"a"}\n{"type":"b"}\nT: text\n{"type":"c"}\n'),
    );
    log.rawAll(events);
    expect(vi.mocked(fs.writevSync)).toHaveBeenCalledTimes(1);
    expect(vi.mocked(fs.writeSync)).not.toHaveBeenCalled();
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const raw = records(log.path).filter((record) => record.msg === "raw_event");
    expect(
      raw.map((record) => (record.raw as { type?: string } | undefined)?.type ?? record.raw_text),
    ).toEqual(["a", "b", "T: text", "c"]);
  });

  it("writes a chunk's raw records and its routine records with one writev, in call order", () => {
    vi.useFakeTimers();
    try {
      const log = open();
      vi.clearAllMocks();
      const events = createLineFramer().push(
        Buffer.from('{"type":"tool_call","subtype":"started"}\n{"type":"b"}\n'),
      );
      log.beginChunk(events);
      log.decision("tool_call_opened", { call_id: "1" }, "debug", { sync: "soon" });
      log.decision("monitor_warning", { code: "x" }, "warn", { sync: "soon" });
      log.debug({ detail: "a plain record" }, "note");
      // Nothing is in the file until the chunk ends: the caller forwards it only after that.
      expect(vi.mocked(fs.writevSync)).not.toHaveBeenCalled();
      expect(vi.mocked(fs.writeSync)).not.toHaveBeenCalled();
      expect(records(log.path).map((record) => record.msg)).toEqual(["session_start"]);
      log.endChunk();
      expect(vi.mocked(fs.writevSync)).toHaveBeenCalledTimes(1);
      expect(vi.mocked(fs.writeSync)).not.toHaveBeenCalled();
      vi.advanceTimersByTime(50);
      expect(vi.mocked(fs.fsync)).toHaveBeenCalledTimes(1); // the held decisions: fsynced soon
      // An urgent decision writes what is held first.
      log.beginChunk(createLineFramer().push(Buffer.from('{"type":"c"}\n')));
      log.decision("tool_call_closed", { call_id: "1" }, "debug", { sync: "soon" });
      log.decision("hang_detected", {}, "error");
      expect(vi.mocked(fs.fsyncSync)).toHaveBeenCalledTimes(1);
      log.decision("tool_call_opened", { call_id: "2" }, "debug", { sync: "soon" });
      log.endChunk();
      log.close({ outcome: "hang", flagged: true, exit_code: 0 });
      expect(
        records(log.path).map((record) =>
          record.msg === "raw_event" ? (record.raw as { type: string }).type : record.msg,
        ),
      ).toEqual([
        "session_start",
        "tool_call",
        "b",
        "tool_call_opened",
        "monitor_warning",
        "note",
        "c",
        "tool_call_closed",
        "hang_detected",
        "tool_call_opened",
        "session_end",
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("fsyncs routine decisions together within 50 ms off the event loop, and urgent ones at once", () => {
    vi.useFakeTimers();
    try {
      const log = open();
      vi.clearAllMocks();
      log.decision("tool_call_opened", { call_id: "1" }, "debug", { sync: "soon" });
      log.decision("tool_call_closed", { call_id: "1" }, "debug", { sync: "soon" });
      expect(vi.mocked(fs.fsync)).not.toHaveBeenCalled();
      vi.advanceTimersByTime(50);
      expect(vi.mocked(fs.fsync)).toHaveBeenCalledTimes(1); // one, in the thread pool
      expect(vi.mocked(fs.fsyncSync)).not.toHaveBeenCalled();
      log.decision("hang_detected", {}, "error");
      expect(vi.mocked(fs.fsyncSync)).toHaveBeenCalledTimes(1); // urgent: at once, blocking
      log.close({ outcome: "hang", flagged: true, exit_code: 0 });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("fsyncs its first record soon, not at once: nothing has happened yet", () => {
    vi.useFakeTimers();
    vi.clearAllMocks();
    try {
      const log = open();
      expect(vi.mocked(fs.fsyncSync)).not.toHaveBeenCalled();
      expect(vi.mocked(fs.fsync)).not.toHaveBeenCalled();
      vi.advanceTimersByTime(100);
      expect(vi.mocked(fs.fsync)).toHaveBeenCalledTimes(1); // in the thread pool
      expect(records(log.path)[0]).toMatchObject({ msg: "session_start" });
      log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("flushes every 8 MiB of raw output in the background", () => {
    vi.useFakeTimers();
    try {
      // The first record's fsync, soon after the start: done at once here, so that it is over
      // before the output starts.
      vi.mocked(fs.fsync).mockImplementationOnce((_fd, callback) => callback(null));
      const log = open();
      vi.advanceTimersByTime(100);
      vi.clearAllMocks();
      const line = parseLine(`{"type":"tool_call","pad":"${"z".repeat(1024 * 1024)}"}`);
      for (let count = 0; count < 7; count += 1) log.raw(line);
      vi.advanceTimersByTime(100);
      expect(vi.mocked(fs.fsync)).not.toHaveBeenCalled(); // 7 MiB so far
      log.raw(line);
      vi.advanceTimersByTime(100);
      expect(vi.mocked(fs.fsync)).toHaveBeenCalledTimes(1);
      expect(vi.mocked(fs.fsyncSync)).not.toHaveBeenCalled();
      log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("closes the file only once a background fsync in flight has finished", async () => {
    vi.useFakeTimers();
    try {
      const log = open();
      log.decision("tool_call_opened", { call_id: "1" }, "debug", { sync: "soon" });
      vi.advanceTimersByTime(50);
      expect(vi.mocked(fs.fsync)).toHaveBeenCalledTimes(1);
      const fd = vi.mocked(fs.fsync).mock.calls[0]![0];
      log.close({ outcome: "completed", flagged: false, exit_code: 0 });
      expect(vi.mocked(fs.closeSync)).not.toHaveBeenCalledWith(fd);
      await vi.waitFor(() => expect(vi.mocked(fs.closeSync)).toHaveBeenCalledWith(fd), {
        timeout: 30_000,
      });
      expect(records(log.path).at(-1)?.msg).toBe("session_end");
    } finally {
      vi.useRealTimers();
    }
  });

  it("flags the file of a session that ended in a hang", () => {
    const log = open();
    log.setSessionId("s1");
    log.close({ outcome: "hang", flagged: true, exit_code: 0 });
    expect(log.path).toBe(join(dir, "cursor-wrap-2026-11-22T12-05-01-123Z-s1.flagged.jsonl"));
    expect(readdirSync(dir)).toEqual(["cursor-wrap-2026-11-22T12-05-01-123Z-s1.flagged.jsonl"]);
    // Its last record names the file as it ends up.
    expect(records(log.path).at(-1)).toMatchObject({ msg: "session_end", log_path: log.path });
  });

  it("logs stderr: JSON lines at debug, anything else at warn", () => {
    const log = open();
    log.stderr(Buffer.from('{"type":"assistant"}'));
    log.stderr(Buffer.from("Authentication required"));
    log.close({ outcome: "error", flagged: true, exit_code: 0 });
    expect(records(log.path).filter((record) => record.stream === "stderr")).toMatchObject([
      { level: 20, msg: "stderr_event", raw_text: '{"type":"assistant"}' },
      { level: 40, msg: "agent_stderr", raw_text: "Authentication required" },
    ]);
  });

  it("hands its tap every record but the agent's raw lines, as the file holds it (redacted)", () => {
    const tapped: Array<[string, Record<string, unknown>]> = [];
    const log = open({ onRecord: (message, record) => tapped.push([message, { ...record }]) });
    log.decision("tool_call_opened", { call_id: "c1", label: "curl -H 'Bearer abcdefghijklmnop'" });
    log.rawAll([parseLine('{"type":"assistant","text":"sk-abcdefghijklmnopqrstuv"}')]);
    log.stderrAll([
      parseLine('{"type":"assistant"}\n'),
      parseLine("Error: key sk-abcdefghijklmnopqrstuv refused\n"),
    ]);
    log.warn({ summary: "odd" }, "note");
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(tapped.map(([message]) => message)).toEqual([
      "session_start",
      "tool_call_opened",
      "agent_stderr",
      "note",
      "session_end",
    ]);
    const byName = new Map(tapped);
    expect(byName.get("tool_call_opened")).toMatchObject({
      call_id: "c1",
      label: "curl -H 'Bearer [REDACTED]'",
      ts: expect.any(Number),
      level: 30,
    });
    expect(byName.get("agent_stderr")).toMatchObject({
      raw_text: "Error: key [REDACTED] refused",
      stream: "stderr",
    });
    expect(byName.get("session_end")).toMatchObject({ outcome: "completed", exit_code: 0 });
    // What the tap saw is what the file holds.
    const inFile = records(log.path).filter((record) => record.msg !== "raw_event");
    expect(tapped.map(([, record]) => record)).toEqual(
      inFile.filter((record) => record.msg !== "stderr_event"),
    );
  });

  it("writes a record of plain fields as pino writes it, and leaves any other to pino", () => {
    // The same pino set-up as the log's: the line pino writes for the same fields and clock.
    let written = "";
    let clock = 0;
    const now = () => {
      clock += 1;
      return T0 + clock;
    };
    const reference = pino(
      {
        level: "debug",
        base: undefined,
        timestamp: () => `,"time":${now()}`,
        mixin: () => ({ ts: now() }),
      },
      {
        write: (line: string) => {
          written = line;
        },
      },
    );
    const key = fc.oneof(
      fc.constantFrom("call_id", "kind", "label", "timeout_ms", "background", "summary", "nth"),
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.constantFrom("0", "ts", "__proto__"),
    );
    // Lone surrogates aside: pino writes one as U+FFFD, the template keeps it escaped.
    const text = fc
      .string({ unit: "binary", maxLength: 120 })
      .filter((value) => !/[\uD800-\uDFFF]/u.test(value));
    const plain = fc.oneof(
      text,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(
        fc.dictionary(key, plain, { maxKeys: 8 }),
        fc.constantFrom(20, 30, 40, 50),
        (fields, level) => {
          const start = clock;
          const line = plainRecordLine(level, "tool_call_opened", fields, now);
          const label = { 20: "debug", 30: "info", 40: "warn", 50: "error" }[level] as "debug";
          const pinoKeys = ["level", "time", "ts", "msg", "err", "__proto__"];
          if (
            Object.keys(fields).some(
              (name) => pinoKeys.includes(name) || /^(?:0|[1-9]\d*)$/.test(name),
            )
          ) {
            expect(line).toBeUndefined();
            return;
          }
          clock = start;
          reference[label](fields, "tool_call_opened");
          expect(line).toBe(written);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 200) },
    );
    expect(plainRecordLine(20, "run_failed", { err: new Error("x") }, now)).toBeUndefined();
    expect(plainRecordLine(20, "turn_end", { resources: { cpu_ms: 1 } }, now)).toBeUndefined();
    expect(plainRecordLine(20, "options", { tools: ["a"] }, now)).toBeUndefined();
  });

  it("redacts each string of a plain record, and all of one under a key naming a secret; pino's records as a whole line", () => {
    const log = open();
    log.decision(
      "tool_call_opened",
      {
        call_id: "c1",
        kind: "shell",
        label: "export API_KEY=abcdefghijklmnop && curl -H 'Bearer abcdefghijklmnop'",
        // A value with quotes and a backslash: redacted as the text it is, then escaped.
        note: 'echo "password=abcdefghijklmnop" \\',
        api_key: "abcdefghijklmnop-plain",
      },
      "debug",
      { sync: "soon" },
    );
    log.decision("turn_end", {
      resources: { note: "token=abcdefghijklmnop" },
      summary: "sk-abcdefghijklmnopqrstuv",
    });
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    const text = readFileSync(log.path, "utf8");
    expect(text).not.toMatch(/abcdefghijklmnop/);
    expect(records(log.path).find((record) => record.msg === "tool_call_opened")).toMatchObject({
      label: "export API_KEY=[REDACTED] && curl -H 'Bearer [REDACTED]'",
      note: 'echo "password=[REDACTED]" \\',
      api_key: "[REDACTED]",
    });
  });

  it("redacts a value as often as it comes, under any key; a clean one it has seen is kept as it is", () => {
    const log = open();
    for (let round = 0; round < 3; round += 1) {
      log.decision(
        "tool_call_opened",
        // The same values each time: the clean `kind` is remembered, the secrets never are.
        { kind: "shell", label: "token=abcdefghijklmnop", password: "hunter2-hunter2", id: 'x"y' },
        "debug",
        { sync: "soon" },
      );
    }
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(readFileSync(log.path, "utf8")).not.toMatch(/abcdefghijklmnop|hunter2/);
    const opened = records(log.path).filter((record) => record.msg === "tool_call_opened");
    expect(opened).toHaveLength(3);
    for (const record of opened) {
      expect(record).toMatchObject({
        kind: "shell",
        label: "token=[REDACTED]",
        password: "[REDACTED]",
        id: 'x"y',
      });
    }
  });

  it("goes on logging whatever its tap throws", () => {
    const log = open({
      onRecord: () => {
        throw new Error("tap broke");
      },
    });
    log.decision("hang_detected", { verdict: "hang" }, "error");
    log.stderr(Buffer.from("a line"));
    log.close({ outcome: "hang", flagged: true, exit_code: 2 });
    expect(records(log.path).map((record) => record.msg)).toEqual([
      "session_start",
      "hang_detected",
      "agent_stderr",
      "session_end",
    ]);
  });

  it("prints to the console sink at its level only, without colour off a terminal", () => {
    const console = capturedConsole();
    const log = open({ console: { stream: console, level: "warn", skip: ["shown_elsewhere"] } });
    log.decision("shown_elsewhere", {}, "error");
    log.decision("tool_call_opened", { call_id: "x" });
    log.decision(
      "hang_detected",
      { reason: { message: "no output for 1m with no tool running" } },
      "error",
    );
    log.warn({ summary: "Authentication required" }, "agent_stderr");
    log.raw(parseLine("T: raw lines never reach the console"));
    log.close({ outcome: "hang", flagged: true, exit_code: 0 });
    expect(console.printed).toBe(
      "cursor-wrap error: hang detected: no output for 1m with no tool running\n" +
        "cursor-wrap warn: agent stderr: Authentication required\n",
    );
  });

  it("names its file by an absolute path, from a relative directory too", () => {
    const cwd = process.cwd();
    const base = mkdtempSync(join(tmpdir(), "cursor-wrap-relative-"));
    try {
      process.chdir(base);
      const log = openSessionLog({ dir: "logs", retentionMs: 0 });
      log.close({ outcome: "completed", flagged: false, exit_code: 0 });
      expect(isAbsolute(log.path)).toBe(true);
      expect(dirname(log.path)).toBe(join(process.cwd(), "logs"));
    } finally {
      process.chdir(cwd);
      rmSync(base, { recursive: true, force: true });
    }
  });

  it("writes nothing, to the file or the console, once closed", () => {
    const console = capturedConsole();
    const log = open({ console: { stream: console, level: "info" } });
    log.close({ outcome: "cancelled", flagged: true, exit_code: 130 });
    const written = readFileSync(log.path, "utf8");
    console.printed = "";
    // What a process exit hook may still report (a last SIGKILL of what the agent left).
    log.info({ signal: "SIGKILL", pids: [1234], reason: "at once" }, "kill_step");
    log.warn({ survivors: [1234] }, "kill_survivors");
    log.decision("agent_killed", { reason: "late" }, "error");
    expect(console.printed).toBe("");
    expect(readFileSync(log.path, "utf8")).toBe(written);
  });

  it("colours the console sink when asked", () => {
    const console = capturedConsole();
    const log = open({ console: { stream: console, level: "info", color: true } });
    log.decision("spawned", { pid: 42 });
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(console.printed).toContain("\u001b[");
    expect(console.printed.replace(/\u001b\[\d+m/g, "")).toContain(
      "cursor-wrap info: spawned: pid=42",
    );
  });

  it("throws a typed error before anything when the directory cannot be written", () => {
    const file = join(dir, "not-a-directory");
    writeFileSync(file, "");
    const error = (() => {
      try {
        openSessionLog({ dir: join(file, "logs") });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(LogDirError);
    expect(error).toMatchObject({
      code: "LOG_DIR_UNWRITABLE",
      dir: join(file, "logs"),
      reason: "ENOTDIR",
    });
    expect((error as Error).message).toBe(`cannot write logs to ${join(file, "logs")}: ENOTDIR`);
  });

  it("warns when others can write to the directory, with the advice the caller gives", () => {
    const shared = join(dir, "shared");
    mkdirSync(shared, { mode: 0o700 });
    chmodSync(shared, 0o777);
    const printed: string[] = [];
    const console = {
      stream: { write: (text: string) => printed.push(text) },
      level: "warn" as const,
      color: false,
    };
    for (const advice of [undefined, "chmod o-w, or --log-dir"]) {
      const log = openSessionLog({
        dir: shared,
        console,
        ...(advice ? { sharedDirectoryAdvice: advice } : {}),
      });
      log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    }
    const summary = `other users can write to the log directory ${shared}; logs hold prompts, code and tool output`;
    expect(printed).toEqual([
      `cursor-wrap warn: log dir shared: ${summary} (chmod o-w)\n`,
      `cursor-wrap warn: log dir shared: ${summary} (chmod o-w, or --log-dir)\n`,
    ]);
  });

  it("keeps going when writes fail: one warning, whole records only, the file marked incomplete", () => {
    const console = capturedConsole();
    const log = open({ console: { stream: console, level: "warn" } });
    log.raw(parseLine('{"type":"user","n":1}'));
    const full = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    // A short line's record is one buffer: one write(2).
    vi.mocked(fs.writeSync).mockImplementationOnce(() => {
      throw full;
    });
    log.raw(parseLine('{"type":"user","n":2}'));
    vi.mocked(fs.writeSync).mockImplementationOnce(() => {
      throw full;
    });
    log.decision("tool_call_opened", {});
    log.raw(parseLine('{"type":"user","n":3}'));
    expect(log.incomplete).toBe(true);
    log.close({ outcome: "completed", flagged: false, exit_code: 0 });
    expect(console.printed.match(/log write failed/g)).toHaveLength(1);
    expect(console.printed).toContain("ENOSPC: the session log");
    expect(log.path).toMatch(/-unknown\.incomplete\.jsonl$/);
    const all = records(log.path);
    expect(
      all
        .filter((record) => record.msg === "raw_event")
        .map((record) => (record.raw as { n: number }).n),
    ).toEqual([1, 3]);
    expect(all.at(-1)).toMatchObject({ msg: "session_end", incomplete: true, failed_writes: 2 });
  });

  it("loses no record written before the process was killed", () => {
    const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
    const script = `
      const { openSessionLog } = await import(${JSON.stringify(dist)});
      const { parseLine } = await import("@cursor-wrap/events");
      const log = openSessionLog({ dir: ${JSON.stringify(dir)}, retentionMs: 0 });
      for (let n = 0; n < 500; n++) {
        log.raw(parseLine(JSON.stringify({ type: "thinking", subtype: "delta", n })));
        if (n % 50 === 0) log.decision("checkpoint", { n });
      }
      process.kill(process.pid, "SIGKILL");
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
    });
    expect(child.signal).toBe("SIGKILL");
    const [file] = readdirSync(dir);
    const all = records(join(dir, file!));
    expect(all.filter((record) => record.msg === "raw_event")).toHaveLength(500);
    expect(all.filter((record) => record.msg === "checkpoint")).toHaveLength(10);
    expect(all.at(-1)).toMatchObject({ msg: "raw_event", raw: { n: 499 } });
  });
});
