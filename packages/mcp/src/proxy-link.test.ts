// The watchdog's request tracking on in-memory streams with a fake clock, as the MCP SDK tests
// its Protocol over an in-memory transport: every defect of the adversarial audit, replayed.

import { PassThrough, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REQUEST_TIMEOUT_CODE, SERVER_GONE_CODE } from "./mcp-messages.js";
import { linkMcpPeers, type McpLinkOptions } from "./proxy-link.js";
import type { McpRecordName } from "./records.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

type Json = Record<string, unknown>;

/** A pipe whose reader reads nothing until `release()`. */
function stuckReader() {
  const chunks: Buffer[] = [];
  let held: (() => void) | undefined;
  let released = false;
  const stream = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      if (released) callback();
      else held = callback;
    },
  });
  return {
    stream,
    text: () => Buffer.concat(chunks).toString(),
    release() {
      released = true;
      held?.();
    },
  };
}

function setUp(
  overrides: Partial<McpLinkOptions> & { serverReads?: boolean; clientReads?: boolean } = {},
) {
  const clientInput = new PassThrough();
  const clientOutput = overrides.clientReads === false ? stuckReader() : undefined;
  const clientSink = new PassThrough();
  const serverOutput = overrides.serverReads === false ? stuckReader() : undefined;
  const serverSink = new PassThrough();
  const serverInput = new PassThrough();
  const records: Array<{ name: McpRecordName; fields: Json }> = [];
  const events: string[] = [];
  const link = linkMcpPeers({
    serverId: "s",
    client: { input: clientInput, output: clientOutput?.stream ?? clientSink },
    server: { input: serverInput, output: serverOutput?.stream ?? serverSink },
    policy: {
      requestTimeoutMs: 3_000,
      initTimeoutMs: 2_000,
      maxRequestTimeMs: 10_000,
      toolTimeouts: new Map(),
    },
    maxLineBytes: 1_024,
    maxQueuedBytes: 1_024,
    maxServerRequests: 10,
    log: { record: (name, fields) => records.push({ name, fields }) },
    now: () => Date.now(),
    onInitializeTimeout: () => events.push("initialize-timeout"),
    onClientEnd: () => events.push("client-end"),
    onClientGone: () => events.push("client-gone"),
    ...overrides,
  });
  const clientRead = (): string =>
    clientOutput ? clientOutput.text() : ((clientSink.read() as Buffer | null)?.toString() ?? "");
  let clientText = "";
  const toClient = (): Json[] => {
    clientText += clientRead();
    return clientText
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Json);
  };
  let serverText = "";
  const toServer = (): string => {
    serverText += serverOutput ? "" : ((serverSink.read() as Buffer | null)?.toString() ?? "");
    return serverOutput ? serverOutput.text() : serverText;
  };
  const send = (value: Json | string): void => {
    clientInput.write(
      typeof value === "string" ? value : `${JSON.stringify({ jsonrpc: "2.0", ...value })}\n`,
    );
  };
  const reply = (value: Json | string): void => {
    serverInput.write(
      typeof value === "string" ? value : `${JSON.stringify({ jsonrpc: "2.0", ...value })}\n`,
    );
  };
  const answersFor = (id: unknown) => toClient().filter((message) => message.id === id);
  return {
    link,
    records,
    events,
    clientInput,
    serverInput,
    clientOutput,
    serverOutput,
    send,
    reply,
    toClient,
    rawToClient: (): string => {
      toClient();
      return clientText;
    },
    toServer,
    answersFor,
    names: () => records.map((record) => record.name),
  };
}

const call = (id: unknown, name = "t", extra: Json = {}) => ({
  id,
  method: "tools/call",
  params: { name, arguments: {}, ...extra },
});

/** Let stream events run (they are not timers). */
const settle = async (): Promise<void> => {
  for (let index = 0; index < 5; index += 1) await Promise.resolve();
  await vi.advanceTimersByTimeAsync(0);
};

describe("linkMcpPeers: odd lines cost only themselves (item 3)", () => {
  it.each([
    [
      "a complete JSON line that is not JSON-RPC",
      '{"level":"info","msg":"jsonrpc server ready"}\n',
    ],
    ["a structured log line naming jsonrpc", '{"jsonrpc":"1.0","log":"starting"}\n'],
    // (Answering nothing pending: a broken answer to a pending request fails it, see below.)
    ["a line with a raw NUL", '{"jsonrpc":"2.0","id":9,"result":"a\u0000b"}\n'],
    ["a banner", "Server listening on stdio\n"],
  ])("passes the next message after %s", async (_, odd) => {
    const t = setUp();
    t.send(call(1));
    await settle();
    t.reply(odd);
    t.reply({ id: 1, result: { ok: true } });
    await settle();
    expect(t.answersFor(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: { ok: true } }]);
    expect(t.names()).toContain("mcp_invalid_line");
    expect(t.names()).not.toContain("mcp_smuggled_line");
  });

  it("drops a message that follows a line cut short inside an object, and answers its request once, at once", async () => {
    const t = setUp();
    t.send(call(1));
    t.send(call(2));
    await settle();
    t.reply(
      '{"jsonrpc":"2.0","id":1,"result":{"text":"a\n{"jsonrpc":"2.0","id":1,"result":{"smuggled":true}}\n',
    );
    await settle();
    // Forged or not, the answer is not passed on: the request fails now, not after its timeout.
    expect(t.answersFor(1)).toMatchObject([
      { error: { code: SERVER_GONE_CODE, message: expect.stringContaining("line cut short") } },
    ]);
    expect(t.names()).toContain("mcp_smuggled_line");
    // The doubt ends with the burst: an answer the server writes after a pause passes.
    await vi.advanceTimersByTimeAsync(200);
    t.reply({ id: 2, result: { ok: true } });
    await settle();
    expect(t.answersFor(2)).toEqual([{ jsonrpc: "2.0", id: 2, result: { ok: true } }]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(t.answersFor(1)).toHaveLength(1);
  });
});

describe("linkMcpPeers: lines cut short", () => {
  it("fails the request a cut answer was for, and lets no forged line after it fail another", async () => {
    const t = setUp();
    t.send(call(1));
    t.send(call(2));
    await settle();
    // The answer to 1, cut by a raw newline; inside it, a line naming request 2.
    t.reply(
      '{"jsonrpc":"2.0","id":1,"result":{"text":"a\n{"jsonrpc":"2.0","id":2,"result":{"forged":true}}\n',
    );
    await settle();
    expect(t.answersFor(1)).toMatchObject([
      { error: { code: SERVER_GONE_CODE, message: expect.stringContaining("a line cut short") } },
    ]);
    expect(t.answersFor(2)).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    t.reply({ id: 2, result: { ok: true } });
    await settle();
    expect(t.answersFor(2)).toEqual([{ jsonrpc: "2.0", id: 2, result: { ok: true } }]);
  });

  it("takes a cut request of the server's for no answer: its id is the server's own", async () => {
    const t = setUp();
    t.send(call(1));
    await settle();
    t.reply('{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"text":"a\n');
    await settle();
    expect(t.answersFor(1)).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    t.reply({ id: 1, result: { ok: true } });
    await settle();
    expect(t.answersFor(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: { ok: true } }]);
  });

  it("fails at once an answer dropped after a log line that only began like an object", async () => {
    const t = setUp();
    t.send(call(3));
    await settle();
    t.reply(`{"note": "loading\n${JSON.stringify({ jsonrpc: "2.0", id: 3, result: {} })}\n`);
    await settle();
    expect(t.answersFor(3)).toMatchObject([
      { error: { code: SERVER_GONE_CODE, message: expect.stringContaining("smuggled") } },
    ]);
  });
});

describe("linkMcpPeers: a server that stops reading (item 4)", () => {
  it("does not call a server that reads a large message slowly one that does not read", async () => {
    const t = setUp({ serverReads: false, maxLineBytes: 64 * 1024 });
    t.send(call(1, "echo", { arguments: { text: "x".repeat(20_000) } }));
    await settle();
    await vi.advanceTimersByTimeAsync(500);
    t.serverOutput!.release();
    await settle();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.names()).not.toContain("mcp_server_not_reading");
  });

  it("keeps reading and answering the client: each request gets exactly one answer", async () => {
    const t = setUp({ serverReads: false, maxLineBytes: 64 * 1024 });
    for (let id = 1; id <= 3; id += 1) t.send(call(id));
    await settle();
    expect(t.clientInput.isPaused()).toBe(false);
    // Said once it lasts, not at the first full pipe.
    expect(t.names()).not.toContain("mcp_server_not_reading");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(t.names()).toContain("mcp_server_not_reading");
    await vi.advanceTimersByTimeAsync(2_000);
    for (let id = 1; id <= 3; id += 1) {
      expect(t.answersFor(id)).toEqual([
        expect.objectContaining({ error: expect.objectContaining({ code: REQUEST_TIMEOUT_CODE }) }),
      ]);
    }
    // The first was handed to the pipe (and is cancelled there); the others were withdrawn.
    expect(t.records.filter((record) => record.name === "mcp_request_not_delivered")).toHaveLength(
      2,
    );
    // A request that does not fit in the bounded queue is answered at once.
    t.send(call(4, "big", { text: "x".repeat(700) }));
    t.send(call(5, "big", { text: "x".repeat(700) }));
    await settle();
    expect(t.answersFor(5)).toMatchObject([
      { error: { code: REQUEST_TIMEOUT_CODE, data: { delivered: false } } },
    ]);
    await vi.advanceTimersByTimeAsync(10_000);
    for (let id = 1; id <= 5; id += 1) expect(t.answersFor(id)).toHaveLength(1);
    // Once it reads again, what waited is delivered, and a late answer is dropped.
    t.serverOutput!.release();
    t.reply({ id: 4, result: {} });
    await settle();
    expect(t.answersFor(4)).toHaveLength(1);
  });

  it("withdraws a queued request the client cancels, and forwards nothing of it", async () => {
    const t = setUp({ serverReads: false });
    t.send(call(1, "first", { pad: "y".repeat(100) }));
    t.send(call(2));
    t.send({ method: "notifications/cancelled", params: { requestId: 2, reason: "user" } });
    await settle();
    t.serverOutput!.release();
    await settle();
    expect(t.toServer()).not.toContain('"id":2');
    expect(t.toServer()).not.toContain("notifications/cancelled");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.answersFor(2)).toEqual([]);
  });
});

describe("linkMcpPeers: one answer per request, also for lines above the cap (item 6)", () => {
  it("takes the top-level id of an oversize answer, never a nested one", async () => {
    const t = setUp();
    t.send(call(7));
    t.send(call(8));
    await settle();
    const big = `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"${"z".repeat(3_000)}"}],"meta":{"id":7}}}\n`;
    t.reply(big.slice(0, 1_500));
    t.reply(big.slice(1_500));
    await settle();
    expect(t.answersFor(8)).toHaveLength(1);
    expect(t.answersFor(7)).toEqual([]);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(t.answersFor(7)).toMatchObject([{ error: { code: REQUEST_TIMEOUT_CODE } }]);
    expect(t.answersFor(8)).toHaveLength(1);
  });

  it("drops an oversize answer whose id is not in its head, and answers its request once, at once", async () => {
    const t = setUp();
    t.send(call(9));
    await settle();
    const big = `{"jsonrpc":"2.0","result":{"text":"${"z".repeat(3_000)}"},"id":9}\n`;
    t.reply(big.slice(0, 1_500));
    await settle();
    t.reply(big.slice(1_500));
    await settle();
    expect(t.answersFor(9)).toMatchObject([{ error: { code: SERVER_GONE_CODE } }]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.answersFor(9)).toHaveLength(1);
  });

  it("never forwards an oversize line that is not JSON", async () => {
    const t = setUp();
    t.reply(`Loading${".".repeat(3_000)}\n`);
    t.reply({ method: "notifications/message", params: {} });
    await settle();
    expect(t.toClient()).toEqual([{ jsonrpc: "2.0", method: "notifications/message", params: {} }]);
  });

  it("drops an oversize answer to a request already answered (late), sending nothing twice", async () => {
    const t = setUp();
    t.send(call(3));
    await settle();
    await vi.advanceTimersByTimeAsync(3_000);
    t.reply(`{"jsonrpc":"2.0","id":3,"result":{"text":"${"z".repeat(3_000)}"}}\n`);
    await settle();
    expect(t.answersFor(3)).toHaveLength(1);
  });

  it("drops a second answer to one request, and a third", async () => {
    const t = setUp();
    t.send(call(4));
    await settle();
    t.reply({ id: 4, result: { n: 1 } });
    t.reply({ id: 4, result: { n: 2 } });
    t.reply({ id: 4, result: { n: 3 } });
    await settle();
    expect(t.answersFor(4)).toEqual([{ jsonrpc: "2.0", id: 4, result: { n: 1 } }]);
    expect(t.names().filter((name) => name === "mcp_duplicate_response")).toHaveLength(2);
  });

  it("drops every answer after a timeout's error, not only the first", async () => {
    const t = setUp();
    t.send(call(5));
    await settle();
    await vi.advanceTimersByTimeAsync(3_000);
    for (const n of [1, 2, 3]) t.reply({ id: 5, result: { n } });
    await settle();
    expect(t.answersFor(5)).toHaveLength(1);
    expect(t.answersFor(5)[0]).toMatchObject({ error: { code: -32001 } });
    expect(t.names()).not.toContain("mcp_unknown_response");
  });

  it("answers a request at once when the server's answer is not UTF-8, instead of timing out", async () => {
    const t = setUp();
    t.send(call(7));
    await settle();
    // A Latin-1 é in the result: the line cannot be passed on as JSON text.
    t.serverInput.write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":7,"result":{"text":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}}\n'),
      ]),
    );
    await settle();
    const [answer] = t.answersFor(7);
    expect(answer).toMatchObject({
      id: 7,
      error: { message: expect.stringContaining("not valid UTF-8") },
    });
    expect(t.names()).toContain("mcp_invalid_line");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.answersFor(7)).toHaveLength(1);
  });

  it("answers a request at once when the server's answer is not JSON as it is written", async () => {
    const t = setUp();
    t.send(call(4));
    t.send(call(5));
    await settle();
    // A raw NUL from a tool's output inside a string; a notification and an answer joined by a
    // bare carriage return instead of a newline.
    t.serverInput.write(
      '{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"a\u0000b"}]}}\n',
    );
    t.serverInput.write(
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\r{"jsonrpc":"2.0","id":5,"result":{}}\n',
    );
    await settle();
    for (const id of [4, 5]) {
      expect(t.answersFor(id)).toEqual([
        expect.objectContaining({
          id,
          error: expect.objectContaining({ message: expect.stringContaining("not valid JSON") }),
        }),
      ]);
    }
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.answersFor(4)).toHaveLength(1);
    expect(t.answersFor(5)).toHaveLength(1);
  });

  it("passes the answer to a request that reuses an answered id", async () => {
    const t = setUp();
    t.send(call(6));
    await settle();
    t.reply({ id: 6, result: { n: 1 } });
    await settle();
    t.send(call(6));
    await settle();
    t.reply({ id: 6, result: { n: 2 } });
    await settle();
    expect(t.answersFor(6).map((answer) => answer.result)).toEqual([{ n: 1 }, { n: 2 }]);
  });
});

describe("linkMcpPeers: the smaller defects (item 7)", () => {
  it("rejects a client batch with one error per request id, and passes none of it on", async () => {
    const t = setUp();
    t.send(
      `[${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })},${JSON.stringify({ jsonrpc: "2.0", method: "notifications/x" })},${JSON.stringify({ jsonrpc: "2.0", id: "b", method: "tools/list" })}]\n`,
    );
    await settle();
    expect(t.toClient()).toEqual([
      expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: "b", error: expect.objectContaining({ code: -32600 }) }),
    ]);
    expect(t.toServer()).toBe("");
    expect(t.names()).toContain("mcp_batch_rejected");
  });

  it.each([
    ["empty", "[]", 1],
    ["of no request", "[1,2]", 1],
    ["of notifications only", '[{"jsonrpc":"2.0","method":"notifications/x"}]', 0],
  ])(
    "answers a client batch %s as JSON-RPC does: one Invalid Request with a null id, or nothing",
    async (_name, batch, errors) => {
      const t = setUp();
      t.send(`${batch}\n`);
      await settle();
      expect(t.toClient()).toEqual(
        Array.from({ length: errors }, () =>
          expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
        ),
      );
      expect(t.toServer()).toBe("");
    },
  );

  it("passes on a last message without a newline, then answers what is still open", async () => {
    const t = setUp();
    t.send(call(1));
    t.send(call(2));
    await settle();
    t.reply(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }));
    t.serverInput.end();
    await settle();
    t.link.serverOutputEnded();
    t.link.serverGone("exited with code 0");
    await settle();
    expect(t.answersFor(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    expect(t.answersFor(2)).toMatchObject([{ error: { code: SERVER_GONE_CODE } }]);
  });

  it("lets progress extend a request, but not past the cap on any request's time", async () => {
    const t = setUp();
    t.send(call(1, "slow", { _meta: { progressToken: "p" } }));
    await settle();
    for (let second = 1; second <= 12; second += 1) {
      await vi.advanceTimersByTimeAsync(1_000);
      t.reply({
        method: "notifications/progress",
        params: { progressToken: "p", progress: second },
      });
      await settle();
    }
    expect(t.answersFor(1)).toMatchObject([
      { error: { code: REQUEST_TIMEOUT_CODE, data: { cap: true, timeoutMs: 10_000 } } },
    ]);
    expect(t.toServer()).toContain('"requestId":1');
    // The limit travels as data; the CLI names the flag that raises it.
    expect((t.answersFor(1)[0] as { error: { message: string } }).error.message).not.toContain(
      "--",
    );
  });

  it("drops progress for a request it answered with a timeout: the client has forgotten the token", async () => {
    const t = setUp();
    t.send(call(1, "slow", { _meta: { progressToken: "p" } }));
    t.send(call(2, "slow", { _meta: { progressToken: "q" } }));
    await settle();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(t.answersFor(1)).toMatchObject([{ error: { code: REQUEST_TIMEOUT_CODE } }]);
    t.reply({ method: "notifications/progress", params: { progressToken: "p", progress: 4 } });
    // Progress of a token the proxy never saw is the client's business: it passes.
    t.reply({ method: "notifications/progress", params: { progressToken: "z", progress: 1 } });
    await settle();
    const progress = t.toClient().filter((message) => message.method === "notifications/progress");
    expect(progress.map((message) => (message.params as Json).progressToken)).toEqual(["z"]);
    expect(t.names()).toContain("mcp_late_progress");
  });

  it("never cancels initialize: answers it and says the proxy must stop", async () => {
    const t = setUp();
    t.send({ id: 0, method: "initialize", params: {} });
    await settle();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(t.answersFor(0)).toMatchObject([{ error: { code: REQUEST_TIMEOUT_CODE } }]);
    // The client is told what happens: the server is stopped, not served on.
    const [answer] = t.answersFor(0) as Array<{ error: { message: string } }>;
    expect(answer!.error.message).toMatch(
      /did not answer initialize within .*; cursor-wrap's MCP watchdog stops the server$/,
    );
    expect(t.toServer()).not.toContain("notifications/cancelled");
    expect(t.events).toContain("initialize-timeout");
  });

  it("keeps the requests of a server the client never answers bounded", async () => {
    const t = setUp();
    for (let id = 0; id < 25; id += 1) t.reply({ id: `q${id}`, method: "roots/list" });
    await settle();
    const forgotten = t.records.filter((record) => record.name === "mcp_server_requests_forgotten");
    expect(forgotten[0]?.fields).toMatchObject({ count: 1, limit: 10 });
    expect(t.toClient()).toHaveLength(25);
  });

  it("does not blame the server for a client that stops reading", async () => {
    const t = setUp({ clientReads: false });
    t.send(call(1));
    await settle();
    // The client's pipe fills with the server's chatter: the clocks stop.
    t.reply({ method: "notifications/message", params: { data: "x".repeat(200) } });
    await settle();
    expect(t.names()).toContain("mcp_client_not_reading");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.records.some((record) => record.name === "mcp_request_timed_out")).toBe(false);
    t.clientOutput!.release();
    await settle();
    await vi.advanceTimersByTimeAsync(2_999);
    expect(t.records.some((record) => record.name === "mcp_request_timed_out")).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.records.some((record) => record.name === "mcp_request_timed_out")).toBe(true);
  });

  it("keeps the exact digits of ids above 2^53, in answers and in matching", async () => {
    const t = setUp();
    t.send('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"t"}}\n');
    await settle();
    // An answer to …992 (which JSON.parse confuses with …993) settles nothing.
    t.reply('{"jsonrpc":"2.0","id":9007199254740992,"result":{}}\n');
    await settle();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(t.rawToClient()).toContain('"id":9007199254740993,"error":{"code":-32001');
    expect(t.rawToClient()).toContain('"id":9007199254740992,"result"');
    expect(t.records.find((record) => record.name === "mcp_request_timed_out")?.fields.id).toBe(
      "9007199254740993",
    );
    expect(t.toServer()).toContain('"requestId":9007199254740993');
  });
});

describe("linkMcpPeers: message records", () => {
  it("gives a log with messageRecord the same fields, as JSON members", async () => {
    const traffic = async (t: ReturnType<typeof setUp>): Promise<void> => {
      t.send(call(1, 'weird "tool"\n'));
      t.send({ method: "notifications/initialized" });
      await settle();
      t.reply({ id: 1, error: { code: -32000, message: "no" } });
      t.reply({ id: 99, method: "roots/list" });
      await settle();
      t.send({ id: 99, result: { roots: [] } });
      t.send('[{"jsonrpc":"2.0","id":7,"method":"ping"}]\n');
      await settle();
    };
    const byObject = setUp();
    await traffic(byObject);
    const members: string[] = [];
    const byText = setUp({
      log: {
        record: () => undefined,
        messageRecord: (text) => members.push(text),
      },
    });
    await traffic(byText);
    const expected = byObject.records
      .filter((record) => record.name === "mcp_message")
      .map((record) => ({ ...record.fields, latency_ms: "?" }));
    const parsed = members.map(
      (text): Record<string, unknown> => ({
        ...(JSON.parse(`{${text}}`) as Record<string, unknown>),
        latency_ms: "?",
      }),
    );
    // Every kind of message, both ways; latencies differ by run, the rest is the same.
    expect(new Set(parsed.map((fields) => `${fields.dir} ${fields.kind}`)).size).toBe(6);
    expect(parsed).toEqual(expected);
  });

  it("writes ids and latencies as JSON.stringify writes the fields, byte for byte", async () => {
    // A clock that moves by uneven steps at every reading: latencies whole, with one, two and
    // three decimals (trailing zeros to drop); the same readings in both runs.
    const clock = () => {
      const steps = [0.25, 1, 0.0625, 0.1374, 0.5];
      let now = 1_000;
      let reading = 0;
      return () => {
        now += steps[reading++ % steps.length]!;
        return now;
      };
    };
    const traffic = async (t: ReturnType<typeof setUp>): Promise<void> => {
      t.send('{"jsonrpc":"2.0","id":"a \\"b\\"","method":"ping"}\n');
      t.send('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n');
      t.send('{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n');
      t.send('{"jsonrpc":"2.0","id":-12,"method":"ping"}\n');
      t.send('{"jsonrpc":"2.0","id":2147483648,"method":"ping"}\n');
      await settle();
      t.reply('{"jsonrpc":"2.0","id":"a \\"b\\"","result":{}}\n');
      t.reply('{"jsonrpc":"2.0","id":9007199254740993,"result":{}}\n');
      t.reply('{"jsonrpc":"2.0","id":1.5,"result":{}}\n');
      t.reply('{"jsonrpc":"2.0","id":-12,"result":{}}\n');
      t.reply('{"jsonrpc":"2.0","id":2147483648,"result":{}}\n');
      await settle();
    };
    const byObject = setUp({ now: clock() });
    await traffic(byObject);
    const members: string[] = [];
    const byText = setUp({
      now: clock(),
      log: { record: () => undefined, messageRecord: (text) => members.push(text) },
    });
    await traffic(byText);
    const expected = byObject.records
      .filter((record) => record.name === "mcp_message")
      .map((record) => JSON.stringify(record.fields).slice(1, -1));
    expect(members.filter((text) => text.includes('"latency_ms":')).length).toBe(5);
    expect(members).toEqual(expected);
  });
});
