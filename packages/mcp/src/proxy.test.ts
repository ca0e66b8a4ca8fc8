import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fakeMcpServerBin, isAlive, readPids } from "@cursor-wrap/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { REQUEST_TIMEOUT_CODE, SERVER_GONE_CODE } from "./mcp-messages.js";
import { type McpProxyOptions, startMcpProxy } from "./proxy.js";
import type { McpRecordName } from "./records.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mcp-proxy-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Json = Record<string, unknown>;

/** A proxy over the fake MCP server, driven like a client would. */
function setUp(serverArgs: string[] = [], options: Partial<McpProxyOptions> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const records: Array<{ name: McpRecordName; fields: Json }> = [];
  const serverRecord = join(dir, "server.jsonl");
  const proxy = startMcpProxy({
    command: process.execPath,
    args: [fakeMcpServerBin, "--record", serverRecord, ...serverArgs],
    serverId: "fake",
    input,
    output,
    serverStderr: new PassThrough(),
    log: { record: (name, fields) => records.push({ name, fields }) },
    ...options,
  });
  const received: Json[] = [];
  const raw: Buffer[] = [];
  let pendingText = "";
  const waiters: Array<{ test: (message: Json) => boolean; resolve: (message: Json) => void }> = [];
  output.on("data", (chunk: Buffer) => {
    raw.push(chunk);
    pendingText += chunk.toString("utf8");
    for (
      let newline = pendingText.indexOf("\n");
      newline !== -1;
      newline = pendingText.indexOf("\n")
    ) {
      const message = JSON.parse(pendingText.slice(0, newline)) as Json;
      pendingText = pendingText.slice(newline + 1);
      received.push(message);
      for (const waiter of waiters.splice(0)) {
        if (waiter.test(message)) waiter.resolve(message);
        else waiters.push(waiter);
      }
    }
  });
  const send = (message: Json): void => {
    input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };
  const waitFor = (test: (message: Json) => boolean): Promise<Json> => {
    const found = received.find(test);
    return found
      ? Promise.resolve(found)
      : new Promise((resolve) => waiters.push({ test, resolve }));
  };
  const call = (id: number | string, name: string, args: Json = {}, meta?: Json) => {
    send({
      id,
      method: "tools/call",
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    });
    return waitFor((message) => message.id === id);
  };
  const initialize = async () => {
    send({
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    await waitFor((message) => message.id === 0);
    send({ method: "notifications/initialized" });
  };
  const serverMessages = (): Json[] => {
    try {
      return readFileSync(serverRecord, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Json);
    } catch {
      return [];
    }
  };
  return {
    proxy,
    input,
    output,
    records,
    received,
    raw: () => Buffer.concat(raw),
    send,
    waitFor,
    call,
    initialize,
    serverMessages,
  };
}

describe("startMcpProxy", () => {
  it("passes messages through byte for byte, both ways", async () => {
    const t = setUp();
    await t.initialize();
    const answer = await t.call(1, "echo", { text: "héllo \u2028 \\n" });
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "héllo \u2028 \\n" }] },
    });
    t.input.end();
    const end = await t.proxy.done;
    expect(end.exitCode).toBe(0);
    // What the client read is exactly what the server wrote (the fake writes JSON.stringify lines).
    expect(t.raw().toString("utf8")).toBe(
      t.received.map((message) => `${JSON.stringify(message)}\n`).join(""),
    );
    expect(t.serverMessages().map((message) => message.method)).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/call",
    ]);
  });

  it("answers a hung tool call with a timeout error, cancels it at the server, and keeps serving", async () => {
    const t = setUp([], { toolTimeouts: { hang: 300 } });
    await t.initialize();
    const started = performance.now();
    const timedOut = await t.call("h-1", "hang");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(timedOut).toMatchObject({
      id: "h-1",
      error: {
        code: REQUEST_TIMEOUT_CODE,
        message: expect.stringContaining(
          'MCP server "fake" did not answer tools/call "hang" within 300ms',
        ),
        data: { server: "fake", method: "tools/call", tool: "hang", timeoutMs: 300 },
      },
    });
    expect(await t.call(2, "echo", { text: "still here" })).toMatchObject({
      result: { content: [{ text: "still here" }] },
    });
    expect(t.serverMessages()).toContainEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "h-1", reason: "no response within 300ms" },
    });
    expect(t.records.map((record) => record.name)).toContain("mcp_request_timed_out");
    t.input.end();
    await t.proxy.done;
  });

  it("drops a response that comes after its request timed out", async () => {
    const t = setUp([], { toolTimeouts: { late: 200 } });
    await t.initialize();
    expect(await t.call(5, "late", { ms: 600 })).toMatchObject({
      error: { code: REQUEST_TIMEOUT_CODE },
    });
    // The late answer arrives at 600 ms: the proxy logs it, and the client never sees it.
    await expect
      .poll(() => t.records.some((record) => record.name === "mcp_late_response"), {
        timeout: 20_000,
      })
      .toBe(true);
    await t.call(6, "echo", { text: "after" });
    expect(t.received.filter((message) => message.id === 5)).toHaveLength(1);
    t.input.end();
    await t.proxy.done;
  });

  it("restarts a request's clock on each progress notification", async () => {
    const t = setUp([], { toolTimeouts: { slow: 400 } });
    await t.initialize();
    const answer = await t.call(7, "slow", { ms: 1_200 }, { progressToken: "p7" });
    expect(answer).toMatchObject({ result: { content: [{ text: "slow done after 1200 ms" }] } });
    expect(
      t.received.filter((message) => message.method === "notifications/progress").length,
    ).toBeGreaterThan(3);
    t.input.end();
    await t.proxy.done;
  });

  it("answers every pending request at once when the server crashes, and ends non-zero", async () => {
    const t = setUp();
    await t.initialize();
    t.send({ id: 8, method: "tools/call", params: { name: "hang" } });
    t.send({ id: 9, method: "tools/call", params: { name: "crash" } });
    const [eight, nine] = await Promise.all([
      t.waitFor((m) => m.id === 8),
      t.waitFor((m) => m.id === 9),
    ]);
    for (const answer of [eight, nine]) {
      expect(answer).toMatchObject({
        error: { code: SERVER_GONE_CODE, message: expect.stringContaining("exited with code 3") },
      });
    }
    const end = await t.proxy.done;
    expect(end).toMatchObject({ exitCode: 3, serverExit: { code: 3 } });
    expect(t.records.some((record) => record.name === "mcp_pending_failed")).toBe(true);
  });

  it("never forwards a banner or log line from the server, nor a smuggled message", async () => {
    const t = setUp(["--banner"]);
    await t.initialize();
    const answer = await t.call(10, "smuggle");
    // Its answer cannot be given: an error at once, not after the tool's timeout.
    expect(answer).toMatchObject({ error: { code: SERVER_GONE_CODE } });
    expect(t.received.some((message) => (message.result as Json | undefined)?.smuggled)).toBe(
      false,
    );
    const names = t.records.map((record) => record.name);
    expect(names.filter((name) => name === "mcp_invalid_line")).toHaveLength(2); // the banner, the line cut short
    expect(names).toContain("mcp_smuggled_line");
    t.input.end();
    await t.proxy.done;
  });

  it("passes a line above the cap through in pieces and still settles its request", async () => {
    const t = setUp([], { maxLineBytes: 64 * 1024 });
    await t.initialize();
    const answer = await t.call(11, "big", { bytes: 500_000 });
    expect(((answer.result as Json).content as Json[])[0]!.text).toHaveLength(500_000);
    expect(t.records.find((record) => record.name === "mcp_oversize_line")?.fields).toMatchObject({
      dir: "server→client",
      passed: true,
      max_line_bytes: 64 * 1024,
    });
    // The library says which limit, as data; naming the CLI's flag is the CLI's part.
    for (const record of t.records) expect(String(record.fields.summary)).not.toContain("--");
    t.input.end();
    await t.proxy.done;
  });

  it("shuts a server that ignores its stdin's end and SIGTERM down in stages, leaving nothing", async () => {
    const t = setUp(["--keep-running", "--ignore-sigterm"], {
      stdinCloseGraceMs: 200,
      killGraceMs: 200,
    });
    await t.initialize();
    const pid = t.proxy.pid!;
    t.input.end();
    const end = await t.proxy.done;
    expect(end.exitCode).toBe(0);
    expect(end.serverExit?.signal).toBe("SIGKILL");
    expect(isAlive(pid)).toBe(false);
    const steps = t.records
      .filter((record) => record.name === "mcp_shutdown")
      .map((record) => record.fields.step ?? "begin");
    expect(steps).toEqual(["begin", "SIGTERM", "SIGKILL", "killed"]);
  });

  it("cuts the stdin grace short when asked to shut down again (the SDK's SIGTERM after its close)", async () => {
    // A grace no test waits out: the server goes because the second request hurried it.
    const t = setUp(["--keep-running"], { stdinCloseGraceMs: 600_000, killGraceMs: 60_000 });
    await t.initialize();
    const pid = t.proxy.pid!;
    t.input.end();
    await expect.poll(() => t.records.some((record) => record.name === "mcp_shutdown")).toBe(true);
    expect(isAlive(pid)).toBe(true);
    t.proxy.shutdown("received SIGTERM");
    const end = await t.proxy.done;
    // SIGTERM to its group, which it obeys: nothing waited for the grace.
    expect(end.serverExit?.signal).toBe("SIGTERM");
    expect(isAlive(pid)).toBe(false);
    expect(
      t.records.filter((record) => record.name === "mcp_shutdown").map((r) => r.fields.summary),
    ).toContain("received SIGTERM during the shutdown: the server's stdin grace is cut short");
  });

  it("answers a timed-out initialize, never cancels it, and ends non-zero with its server stopped", async () => {
    const t = setUp(["--silent-initialize", "--keep-running"], {
      initTimeoutMs: 300,
      stdinCloseGraceMs: 200,
      killGraceMs: 200,
    });
    t.send({ id: 0, method: "initialize", params: { protocolVersion: "2025-06-18" } });
    expect(await t.waitFor((message) => message.id === 0)).toMatchObject({
      error: { code: REQUEST_TIMEOUT_CODE, data: { method: "initialize", timeoutMs: 300 } },
    });
    const end = await t.proxy.done;
    expect(end.exitCode).toBe(1);
    expect(end.reason).toContain("initialize got no answer in time");
    expect(isAlive(t.proxy.pid!)).toBe(false);
    expect(t.serverMessages().map((message) => message.method)).toEqual(["initialize"]);
  });

  it.runIf(process.platform === "linux")(
    "leaves no helper of a server that exits on its stdin's end: not in its group, not after setsid",
    async () => {
      const pidFile = join(dir, "helpers");
      const t = setUp(["--helpers", pidFile], { killGraceMs: 500 });
      await t.initialize();
      // Two helpers, then the server itself.
      await expect.poll(() => readPids(pidFile).length, { timeout: 20_000 }).toBe(3);
      const pids = readPids(pidFile);
      expect(pids.every(isAlive)).toBe(true);
      t.input.end();
      const end = await t.proxy.done;
      // The server went at once on EOF; its helpers were then ended with it.
      expect(end).toMatchObject({ exitCode: 0, serverExit: { code: 0 } });
      await expect.poll(() => pids.filter(isAlive), { timeout: 20_000 }).toEqual([]);
      const shutdown = t.records.filter((record) => record.name === "mcp_shutdown");
      expect(shutdown.map((record) => record.fields.step ?? "begin")).toContain("SIGTERM");
    },
  );

  it("answers requests with an error and ends when the server cannot be started", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const proxy = startMcpProxy({
      command: join(dir, "no-such-server"),
      input,
      output,
      serverStderr: new PassThrough(),
    });
    const end = await proxy.done;
    expect(end.exitCode).toBe(1);
    expect(end.reason).toContain("could not be started (ENOENT)");
  });
});
