import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type FakeAgent, type Harness, harness } from "./__fixtures__/harness.js";
import type { AcpProxyOptions } from "./proxy.js";

const MONITOR: AcpProxyOptions["monitor"] = {
  idleTimeoutMs: 60_000,
  toolGraceMs: 30_000,
  firstOutputMs: 60_000,
  liveness: { maxQuietMs: 1_800_000, maxDrainMs: 300_000 },
};

beforeEach(() => {
  // Streams and promises run on real ticks; only the proxy's clock and timers are fake.
  vi.useFakeTimers({
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
});

afterEach(() => {
  vi.useRealTimers();
});

const start = (options: Partial<AcpProxyOptions> & { failStart?: Error } = {}): Harness =>
  harness({ monitor: MONITOR, cancelGraceMs: 10_000, ...options });

/** Answer the last request of `method` the agent received. */
function answer(agent: FakeAgent, method: string, result: object): void {
  const request = agent
    .find((message) => message.method === method && message.id !== undefined)
    .at(-1);
  if (!request) throw new Error(`the agent got no ${method}`);
  agent.send({ id: request.id, result });
}

/** Advance the clock, letting streams run between timers. */
const advance = (ms: number): Promise<void> =>
  vi.advanceTimersByTimeAsync(ms).then(() => undefined);

/** initialize, authenticate and session/new, as an editor does, answered by the agent. */
async function setUp(
  h: Harness,
  version: 1 | 2 = 1,
  sessionId = "sess-1",
  clientCapabilities: object = { fs: { readTextFile: true }, session: { notices: {} } },
): Promise<void> {
  await h.settle();
  h.editor.send({
    id: 0,
    method: "initialize",
    params:
      version === 1
        ? { protocolVersion: 1, clientCapabilities, clientInfo: { name: "editor", version: "1" } }
        : { protocolVersion: 2, info: { name: "editor", version: "1" }, capabilities: {} },
  });
  await h.settle();
  h.agent.send({
    id: 0,
    result:
      version === 1
        ? {
            protocolVersion: 1,
            agentCapabilities: { loadSession: true },
            authMethods: [{ id: "cursor_login", name: "Cursor Login" }],
          }
        : { protocolVersion: 2, info: { name: "agent", version: "1" }, capabilities: {} },
  });
  await h.settle();
  if (version === 1) {
    h.editor.send({ id: 1, method: "authenticate", params: { methodId: "cursor_login" } });
    await h.settle();
    h.agent.send({ id: 1, result: {} });
  }
  h.editor.send({ id: 2, method: "session/new", params: { cwd: "/work", mcpServers: [] } });
  await h.settle();
  h.agent.send({ id: 2, result: { sessionId } });
  await h.settle();
}

/** A proxy with a session set up and the editor's prompt 3 sent to the agent. */
async function promptedTurn() {
  const h = start();
  await setUp(h);
  h.editor.send(prompt(3));
  await h.settle();
  return h;
}

const update = (sessionId: string, body: object) => ({
  method: "session/update",
  params: { sessionId, update: body },
});

const prompt = (id: number, sessionId = "sess-1", text = "search the web") => ({
  id,
  method: "session/prompt",
  params: { sessionId, prompt: [{ type: "text", text }] },
});

/** The agent asks the person whether the web search may run (the editor must answer). */
const searchPermission = (id: number) => ({
  id,
  method: "session/request_permission",
  params: {
    sessionId: "sess-1",
    toolCall: { toolCallId: "call-1", title: "Searching the web" },
    options: [{ optionId: "allow-once", name: "Allow once", kind: "allow_once" }],
  },
});

/** More message text than an editor's pipe holds (64 KB): a reader that stops holds it up. */
function sendMoreThanAPipe(agent: FakeAgent): void {
  for (let index = 0; index < 8; index += 1) {
    agent.send(
      update("sess-1", {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "x".repeat(8_000) },
      }),
    );
  }
}

const webSearch = (status: string) =>
  update("sess-1", {
    sessionUpdate: "tool_call",
    toolCallId: "call-1",
    title: "Searching the web",
    name: "web_search",
    kind: "fetch",
    status,
    rawInput: { query: "cargo release notes" },
  });

describe("startAcpProxy: a transparent proxy", () => {
  it("passes every message byte for byte both ways, unknown methods and _meta included", async () => {
    const h = start();
    await h.settle();
    const fromEditor = [
      '{"jsonrpc":"2.0", "id":0,"method":"initialize","params":{"protocolVersion":1,"_meta":{"zed.dev/x":[1,2]}}}\n',
      '{"jsonrpc":"2.0","method":"_zed/unknown_notification","params":{"é":"ü"}}\r\n',
      '{"jsonrpc":"2.0","id":"req-7","method":"_custom/request","params":{}}\n',
    ];
    for (const line of fromEditor) h.editor.sendRaw(line);
    await h.settle();
    expect(h.agent.lines.map((line) => `${line.text}\n`)).toEqual(fromEditor);

    const fromAgent = [
      '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true},"_meta":{"cursor":true}}}\n',
      '{"jsonrpc":"2.0","id":"req-7","result":{"anything":[null]}}\n',
      '{"jsonrpc":"2.0","method":"cursor/update_todos","params":{"toolCallId":"t","todos":[]}}\n',
      '{"jsonrpc":"2.0","id":99,"method":"cursor/ask_question","params":{"questions":[]}}\n',
    ];
    for (const line of fromAgent) h.agent.sendRaw(line);
    await h.settle();
    expect(h.editor.lines.map((line) => `${line.text}\n`)).toEqual(fromAgent);
    h.editor.sendRaw('{"jsonrpc":"2.0","id":99,"result":{"outcome":{"outcome":"skipped"}}}\n');
    await h.settle();
    expect(h.agent.lines.at(-1)?.text).toBe(
      '{"jsonrpc":"2.0","id":99,"result":{"outcome":{"outcome":"skipped"}}}',
    );
    expect(h.recorded("acp_negotiated")).toMatchObject([{ version: 1, load_session: true }]);
  });

  it("renames an id the agent reuses while the first is open: only the id, every other byte kept", async () => {
    const h = start();
    await h.settle();
    // A number no double holds, and an escape: a parse and a serialization would change both.
    const ask =
      '"method":"cursor/ask_question","params":{"n":12345678901234567890,"q":"\\u00e9"}}\n';
    h.agent.sendRaw(`{"jsonrpc":"2.0","id":7,${ask}`);
    // A byte order mark before it (the reader drops it; the line keeps it).
    h.agent.sendRaw(`\ufeff{"jsonrpc":"2.0","id":7,${ask}`);
    await h.settle();
    expect(h.editor.lines.map((line) => `${line.text}\n`)).toEqual([
      `{"jsonrpc":"2.0","id":7,${ask}`,
      `\ufeff{"jsonrpc":"2.0","id":"cursor-wrap:1:7",${ask}`,
    ]);
    // The editor answers the renamed one (with a byte order mark), then the first.
    const answer = (id: string) =>
      `{"jsonrpc":"2.0","id":${id},"result":{"big":98765432109876543210}}\n`;
    h.editor.sendRaw(`\ufeff${answer('"cursor-wrap:1:7"')}`);
    h.editor.sendRaw(answer("7"));
    await h.settle();
    expect(h.agent.lines.map((line) => `${line.text}\n`)).toEqual([
      `\ufeff${answer("7")}`,
      answer("7"),
    ]);
    expect(h.agents).toHaveLength(1);
  });

  it("never renames an id to one a request open at the editor already has", async () => {
    const h = start();
    await h.settle();
    const ask = (id: unknown) =>
      `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"cursor/ask_question","params":{"questions":[]}}\n`;
    for (const id of ["cursor-wrap:1:5", 5, 5]) h.agent.sendRaw(ask(id));
    await h.settle();
    const ids = h.editor
      .find((message) => message.method === "cursor/ask_question")
      .map((message) => message.id);
    expect(ids).toEqual(["cursor-wrap:1:5", 5, "cursor-wrap:1:5:2"]);
    for (const [id, n] of [
      ["cursor-wrap:1:5", 1],
      [5, 2],
      ["cursor-wrap:1:5:2", 3],
    ] as const) {
      h.editor.send({ id, result: { n } });
    }
    await h.settle();
    const answers = h.agent.find((message) => "result" in message);
    expect(answers.map((message) => [message.id, message.result.n])).toEqual([
      ["cursor-wrap:1:5", 1],
      [5, 2],
      [5, 3],
    ]);
  });

  it("answers an editor's batch instead of passing it on: ACP has none", async () => {
    const h = start();
    await h.settle();
    h.editor.sendRaw(
      '[{"jsonrpc":"2.0","id":5,"method":"session/new","params":{}},{"jsonrpc":"2.0","method":"n"}]\n',
    );
    h.editor.sendRaw("[]\n");
    h.editor.sendRaw('[{"jsonrpc":"2.0","method":"n"}]\n');
    await h.settle();
    expect(h.agent.lines).toEqual([]);
    expect(h.editor.lines.map((line) => line.message)).toEqual([
      expect.objectContaining({ id: 5, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    ]);
    expect(h.recorded("acp_batch_rejected")).toMatchObject([
      { requests: 1, ids: [5], summary: expect.stringContaining("its 1 request(s) answered") },
      { requests: 0, summary: expect.stringContaining("one error with a null id answered it") },
      { requests: 0, summary: expect.stringContaining("a batch of notifications") },
    ]);
  });

  it("keeps lines from the agent that are not JSON-RPC away from the editor", async () => {
    const h = start();
    await h.settle();
    h.agent.sendRaw("Cursor Agent v2026 starting…\n");
    h.agent.sendRaw(
      '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{}}}\n',
    );
    await h.settle();
    expect(h.editor.lines.map((line) => line.message?.method)).toEqual(["session/update"]);
    expect(h.recorded("acp_invalid_line")).toMatchObject([{ reason: "not-json" }]);
  });

  it("passes on a prompt's answer that is not valid UTF-8 repaired, so the turn ends", async () => {
    const h = await promptedTurn();
    // A chunk of text cut inside a character, and the answer with a stray byte.
    h.agent.sendRaw(
      Buffer.concat([
        Buffer.from(
          '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"caf',
        ),
        Buffer.from([0xc3]),
        Buffer.from('"}}}}\n'),
      ]),
    );
    h.agent.sendRaw(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","_meta":{"t":"'),
        Buffer.from([0xff]),
        Buffer.from('"}}}\n'),
      ]),
    );
    await h.settle();
    const [chunk, answer] = h.editor.lines.slice(-2);
    expect(chunk?.message).toMatchObject({
      params: { update: { content: { text: "caf\ufffd" } } },
    });
    expect(answer?.message).toMatchObject({ id: 3, result: { stopReason: "end_turn" } });
    expect(h.recorded("acp_line_repaired")).toHaveLength(2);
    expect(h.recorded("acp_invalid_line")).toEqual([]);
    // The turn ended with the agent's answer: nothing is left for a watchdog to answer.
    await advance(10 * 60_000);
    expect(h.editor.lines.filter((line) => line.message?.id === 3)).toHaveLength(1);
  });
});

describe("startAcpProxy: watching a prompt turn (v1)", () => {
  it("lets a normal turn through untouched and records it", async () => {
    const h = await promptedTurn();
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: "…" },
      }),
    );
    h.agent.send(update("sess-1", { sessionUpdate: "plan", entries: [] }));
    h.agent.send(webSearch("pending"));
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        status: "in_progress",
      }),
    );
    await advance(20_000);
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        status: "completed",
      }),
    );
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "done" },
      }),
    );
    h.agent.send({ id: 3, result: { stopReason: "end_turn" } });
    await h.settle();
    await advance(600_000);
    const lines = h.editor.lines.map((line) => line.message);
    expect(lines.at(-1)).toEqual({ jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } });
    // Nothing of the proxy's own reached the editor, nor the agent.
    expect(h.editor.find((message) => message.params?.update?.sessionUpdate === "notice")).toEqual(
      [],
    );
    expect(h.agent.find((message) => message.method === "session/cancel")).toEqual([]);
    expect(h.recorded("acp_turn_end")).toMatchObject([
      {
        session_id: "sess-1",
        outcome: "completed",
        stop_reason: "end_turn",
        tool_calls: 1,
        open_calls: 0,
      },
    ]);
    expect(h.recorded("acp_tool_call").map((fields) => fields.event)).toEqual(["opened", "closed"]);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
  });

  it("never restarts a call's clock when Cursor sends tool_call again for the same id", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    await advance(80_000);
    h.agent.send(webSearch("in_progress"));
    // The repeat is a sign of life (30 s of grace after it), not a new call: had it restarted
    // the call's clock, the verdict would come at 170 s.
    await advance(29_000);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    await advance(1_000);
    expect(h.recorded("acp_hang_detected")).toHaveLength(1);
    expect(h.recorded("acp_tool_call").map((fields) => fields.event)).toEqual(["opened"]);
  });

  it("marks a tool call that never completes failed, cancels, and takes the agent's own end of the turn", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    await advance(89_000);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    await advance(1_000);
    const failed = h.editor.find((message) => message.params?.update?.status === "failed");
    expect(failed).toEqual([
      {
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "sess-1",
          update: {
            sessionUpdate: "tool_call_update",
            toolCallId: "call-1",
            status: "failed",
            content: [
              {
                type: "content",
                content: {
                  type: "text",
                  text: "cursor-wrap: web_search gave no result for 1m 30s; cancelled",
                },
              },
            ],
          },
        },
      },
    ]);
    expect(h.agent.find((message) => message.method === "session/cancel")).toEqual([
      { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "sess-1" } },
    ]);
    // The process tree was looked at before the verdict: parked.
    expect(h.recorded("acp_liveness_sample").length).toBeGreaterThanOrEqual(2);
    h.agent.send({ id: 3, result: { stopReason: "cancelled" } });
    await h.settle();
    await advance(60_000);
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "cancelled" } },
    ]);
    expect(h.recorded("acp_cancel_honoured")).toHaveLength(1);
    expect(h.agents).toHaveLength(1);
    expect(h.agent.kills).toEqual([]);
  });

  it("does not call a quiet agent hung while its processes work", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    h.agent.samples = [{ cpuMs: 20_000, ioBytes: 10_000_000, pids: [1000], costMs: 0 }];
    await advance(600_000);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    expect(h.recorded("acp_quiet_but_working").length).toBeGreaterThan(0);
  });
});

describe("startAcpProxy: recovering a parked agent", () => {
  it("answers the prompt cancelled, kills and restarts the agent, reloads the session, and the next prompt works", async () => {
    const h = start();
    await setUp(h);
    h.editor.send({
      id: 5,
      method: "session/set_mode",
      params: { sessionId: "sess-1", modeId: "ask" },
    });
    await h.settle();
    h.agent.send({ id: 5, result: {} });
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send(webSearch("in_progress"));
    await advance(90_000);
    expect(h.recorded("acp_cancel_sent")).toHaveLength(1);
    await advance(10_000);
    // The agent never answered: the proxy did, once.
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "cancelled" } },
    ]);
    const first = h.agents[0]!;
    expect(first.kills).toHaveLength(1);
    await h.settle();
    expect(h.agents).toHaveLength(2);
    const second = h.agents[1]!;
    // The new process is set up as the editor set up the first one.
    expect(second.lines[0]?.message).toMatchObject({
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true } },
        clientInfo: { name: "editor" },
      },
    });
    answer(second, "initialize", { protocolVersion: 1, agentCapabilities: { loadSession: true } });
    await h.settle();
    expect(second.lines[1]?.message).toMatchObject({
      method: "authenticate",
      params: { methodId: "cursor_login" },
    });
    answer(second, "authenticate", {});
    await h.settle();
    expect(second.lines[2]?.message).toMatchObject({
      method: "session/load",
      params: { sessionId: "sess-1", cwd: "/work", mcpServers: [] },
    });
    // Meanwhile the editor sends its next prompt: it waits for the session to be back.
    h.editor.send(prompt(4, "sess-1", "try again"));
    await h.settle();
    expect(second.find((message) => message.method === "session/prompt")).toEqual([]);
    // Cursor replays the history while loading: the editor has it already.
    second.send(
      update("sess-1", {
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: "old" },
      }),
    );
    second.send(
      update("sess-1", {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "old" },
      }),
    );
    const editorLinesBefore = h.editor.lines.length;
    answer(second, "session/load", {});
    await h.settle();
    expect(second.lines[3]?.message).toMatchObject({
      method: "session/set_mode",
      params: { modeId: "ask" },
    });
    answer(second, "session/set_mode", {});
    await h.settle();
    expect(h.editor.lines.length).toBe(editorLinesBefore);
    expect(h.recorded("acp_replay_dropped")).toMatchObject([{ count: 2 }]);
    expect(second.find((message) => message.method === "session/prompt")).toMatchObject([
      { id: 4, params: { sessionId: "sess-1", prompt: [{ text: "try again" }] } },
    ]);
    second.send(
      update("sess-1", {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "found it" },
      }),
    );
    second.send({ id: 4, result: { stopReason: "end_turn" } });
    await h.settle();
    expect(h.editor.lines.at(-1)?.message).toEqual({
      jsonrpc: "2.0",
      id: 4,
      result: { stopReason: "end_turn" },
    });
    expect(h.recorded("acp_agent_restarted")).toMatchObject([
      { generation: 2, sessions: ["sess-1"] },
    ]);
    expect(h.recorded("acp_turn_end").map((fields) => fields.outcome)).toEqual([
      "recovered",
      "completed",
    ]);
  });

  it("does not call a restart done that finished after the editor left", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    await advance(100_000);
    expect(h.agents).toHaveLength(2);
    const second = h.agents[1]!;
    answer(second, "initialize", { protocolVersion: 1, agentCapabilities: { loadSession: true } });
    await h.settle();
    answer(second, "authenticate", {});
    await h.settle();
    // The editor goes while the session is being loaded again; the load then completes.
    h.closeEditor();
    await h.settle();
    answer(second, "session/load", {});
    await h.settle();
    expect(h.recorded("acp_agent_restarted")).toEqual([]);
  });

  it("drops a late answer of the killed agent: every request gets exactly one response", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    // Keep the killed process's stdout open: its late answer still arrives.
    const first = h.agent;
    first.handle.kill = async (reason) => {
      first.kills.push(reason);
      return { steps: [], survivors: [] };
    };
    await advance(100_000);
    first.send({ id: 3, result: { stopReason: "end_turn" } });
    await h.settle();
    expect(h.editor.find((message) => message.id === 3)).toHaveLength(1);
    expect(h.editor.find((message) => message.id === 3)[0].result.stopReason).toBe("cancelled");
  });

  it("ends only once the kill of a replaced agent's tree is over: no orphans", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    const first = h.agent;
    let finishKill: () => void = () => {};
    first.handle.kill = (reason) => {
      first.kills.push(reason);
      return new Promise((resolve) => {
        finishKill = () => {
          first.exit({ code: null, signal: "SIGKILL" });
          resolve({ steps: [], survivors: [] });
        };
      });
    };
    await advance(100_000);
    await h.settle();
    expect(first.kills).toHaveLength(1);
    h.closeEditor();
    await h.settle();
    h.agents[1]!.exit();
    let ended = false;
    void h.proxy.done.then(() => {
      ended = true;
    });
    await advance(10_000);
    expect(ended).toBe(false);
    finishKill();
    await h.settle();
    expect(ended).toBe(true);
    expect(h.recorded("acp_agent_killed")).toHaveLength(1);
  });

  it("stops restarting after too many restarts in a row, and says so to every request", async () => {
    const h = start({ maxRestarts: 1 });
    await setUp(h);
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send(webSearch("in_progress"));
    await advance(100_000);
    await h.settle();
    const second = h.agents[1]!;
    answer(second, "initialize", { protocolVersion: 1, agentCapabilities: { loadSession: true } });
    await h.settle();
    answer(second, "authenticate", {});
    await h.settle();
    answer(second, "session/load", {});
    await h.settle();
    h.editor.send(prompt(4));
    await h.settle();
    second.send(webSearch("in_progress"));
    await advance(100_000);
    await h.settle();
    expect(h.agents).toHaveLength(2);
    expect(h.recorded("acp_restart_gave_up")).toHaveLength(1);
    h.editor.send({ id: 9, method: "session/new", params: { cwd: "/work", mcpServers: [] } });
    await h.settle();
    const answerToNew = h.editor.find((message) => message.id === 9)[0];
    expect(answerToNew.error.message).toMatch(
      /^cursor-wrap: the agent was restarted 1 times in a row without completing a turn/,
    );
  });
});

describe("startAcpProxy: the agent's stderr", () => {
  it("is logged a line at a time: blank lines left out, a long line in pieces, the last one at the exit", async () => {
    const logged: string[] = [];
    const h = start({
      log: { record: () => {}, stderr: (line) => logged.push(line.toString("utf8")) },
    });
    await h.settle();
    h.agent.stderr("first line\n  \nsecond ");
    h.agent.stderr("half\n");
    h.agent.stderr("x".repeat(100 * 1024));
    h.agent.stderr("no end");
    await h.settle();
    expect(logged.slice(0, 2)).toEqual(["first line", "second half"]);
    // Never more than a piece held: the long line went out before its end came.
    expect(logged.slice(2).map((line) => line.length)).toEqual([100 * 1024]);
    h.agent.exit({ code: 0, signal: null });
    await advance(5_000);
    expect(logged.slice(3)).toEqual(["no end"]);
  });
});

describe("startAcpProxy: what the agent said before it died", () => {
  it("is quoted from its last words, never from a piece of one cut off (a key)", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    await h.settle();
    h.agent.stderr(`key=${"S".repeat(30)}tail ${"y".repeat(490)}\n`);
    await h.settle();
    h.agent.exit({ code: 3, signal: null });
    await h.settle();
    const failed = h.editor.find((message) => message.params?.update?.status === "failed")[0];
    const text = String(failed.params.update.content[0].content.text);
    expect(text).toContain(`(it said: …${"y".repeat(490)})`);
    expect(text).not.toMatch(/S+tail/);
  });
});

describe("startAcpProxy: a crash mid-turn", () => {
  it("says what happened in the thread, answers the prompt, restarts and reloads", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    await h.settle();
    h.agent.stderr("panic: connection reset\n");
    await h.settle();
    h.agent.exit({ code: 3, signal: null });
    await h.settle();
    const failed = h.editor.find((message) => message.params?.update?.status === "failed")[0];
    expect(failed.params.update.content[0].content.text).toBe(
      "cursor-wrap: web_search was cut short: the agent exited with code 3 (it said: panic: connection reset); cursor-wrap restarts it",
    );
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "cancelled" } },
    ]);
    await h.settle();
    expect(h.agents).toHaveLength(2);
    answer(h.agents[1]!, "initialize", {
      protocolVersion: 1,
      agentCapabilities: { loadSession: true },
    });
    await h.settle();
    answer(h.agents[1]!, "authenticate", {});
    await h.settle();
    expect(h.agents[1]!.find((message) => message.method === "session/load")).toHaveLength(1);
  });

  it("answers pending requests of the dead agent with an error, and withdraws its own requests", async () => {
    const h = start();
    await setUp(h);
    h.agent.send({
      id: 40,
      method: "session/request_permission",
      params: { sessionId: "sess-1", toolCall: { toolCallId: "c", title: "Run ls" }, options: [] },
    });
    h.editor.send({
      id: 7,
      method: "session/set_mode",
      params: { sessionId: "sess-1", modeId: "plan" },
    });
    await h.settle();
    h.agent.exit({ code: 1, signal: null });
    await h.settle();
    const setMode = h.editor.find((message) => message.id === 7)[0];
    expect(setMode.error).toMatchObject({ code: -32603 });
    expect(setMode.error.message).toContain("session/set_mode was not answered");
    expect(h.editor.find((message) => message.method === "$/cancel_request")).toEqual([
      { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 40 } },
    ]);
    // The editor's late answer reaches no one.
    h.editor.send({ id: 40, result: { outcome: { outcome: "selected", optionId: "allow-once" } } });
    await h.settle();
    expect(h.agents[1]!.find((message) => message.id === 40)).toEqual([]);
    expect(h.recorded("acp_answer_dropped")).toHaveLength(1);
  });
});

describe("startAcpProxy: an editor that does not read", () => {
  it("never calls an agent held up by the editor's full pipe hung", async () => {
    const h = await promptedTurn();
    h.editor.hold();
    // More than the editor's pipe holds: the proxy stops reading the agent, which then can
    // write no more. That silence is the editor's.
    sendMoreThanAPipe(h.agent);
    await advance(10 * 60_000);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    h.editor.release();
    await h.settle();
    h.agent.send({ id: 3, result: { stopReason: "end_turn" } });
    await h.settle();
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } },
    ]);
    expect(h.recorded("acp_turn_end")).toMatchObject([{ outcome: "completed" }]);
    // Once the editor reads again, silence counts again.
    h.editor.send(prompt(4));
    await h.settle();
    await advance(5 * 60_000);
    expect(h.recorded("acp_hang_detected")).toHaveLength(1);
  });

  it("waits for what an exited agent wrote while the editor was not reading", async () => {
    const h = await promptedTurn();
    h.editor.hold();
    sendMoreThanAPipe(h.agent);
    // Its answer and its exit: both wait behind the editor's full pipe.
    h.agent.send({ id: 3, result: { stopReason: "end_turn" } });
    h.agent.exit();
    await advance(5_000);
    h.editor.release();
    await h.settle();
    await advance(2_000);
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } },
    ]);
    expect(h.recorded("acp_turn_end")).toMatchObject([{ outcome: "completed" }]);
  });

  it("ends a line the agent left unfinished when it is replaced, so the editor gets its answer", async () => {
    const h = start({ maxLineBytes: 1_024 });
    await setUp(h);
    h.editor.send(prompt(3));
    await h.settle();
    // A long line begins (above the cap: it passes in pieces), then the agent hangs mid-line.
    h.agent.sendRaw(
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"${"y".repeat(4_000)}`,
    );
    await advance(90_000);
    expect(h.recorded("acp_hang_detected")).toHaveLength(1);
    expect(h.agents).toHaveLength(2);
    // The cut line ends where it stopped; the watchdog's own messages follow it, whole.
    expect(h.recorded("acp_line_ended")).toMatchObject([{ generation: 1 }]);
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "cancelled" } },
    ]);
    const broken = h.editor.lines.filter((line) => line.message === undefined);
    expect(broken).toHaveLength(1);
    expect(broken[0]!.text.length).toBeGreaterThan(4_000);
  });
});

describe("startAcpProxy: lines above the line cap", () => {
  it("keeps a long line that is not JSON from the editor, as a short one, and passes JSON on", async () => {
    const h = start({ maxLineBytes: 1_024 });
    await setUp(h);
    const before = h.editor.lines.length;
    h.agent.sendRaw(`${"Z".repeat(10_000)}\n`);
    h.agent.sendRaw(
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"${"y".repeat(4_000)}"}}}}\n`,
    );
    await h.settle();
    const lines = h.editor.lines.slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message?.method).toBe("session/update");
    expect(h.recorded("acp_invalid_line")).toMatchObject([{ reason: "not-json", bytes: 10_001 }]);
    expect(h.recorded("acp_oversize_line")).toMatchObject([{ dir: "agent→editor" }]);
  });
});

describe("startAcpProxy: answers above the line cap", () => {
  it("settles what the agent waits for when the editor's answer is too long to parse", async () => {
    const h = start({ maxLineBytes: 4_096 });
    await setUp(h);
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send({
      id: 42,
      method: "fs/read_text_file",
      params: { sessionId: "sess-1", path: "/work/big.txt" },
    });
    await h.settle();
    // The file is larger than the cap: the answer passes in pieces, unparsed.
    h.editor.send({ id: 42, result: { content: "x".repeat(20_000) } });
    await h.settle();
    expect(h.agent.lines.at(-1)?.text.length).toBeGreaterThan(20_000);
    expect(h.recorded("acp_oversize_line")).toMatchObject([{ dir: "editor→agent" }]);
    // Nothing is awaited of the editor any more: silence now is the agent's, and a hang.
    await advance(60_000);
    expect(h.recorded("acp_waiting_for_you")).toEqual([]);
    expect(h.recorded("acp_hang_detected")).toHaveLength(1);
  });

  it("takes an agent's answer too long to parse as the answer: the prompt is never answered twice", async () => {
    const h = start({ maxLineBytes: 4_096 });
    await setUp(h);
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send({
      id: 3,
      result: { stopReason: "end_turn", _meta: { note: "y".repeat(20_000) } },
    });
    await h.settle();
    await advance(10 * 60_000);
    const answers = h.editor.lines.filter((line) => /"id":3\b/.test(line.text.slice(0, 40)));
    expect(answers).toHaveLength(1);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    expect(h.recorded("acp_turn_end")).toMatchObject([{ outcome: "completed" }]);
    expect(h.recorded("acp_oversize_line")).toMatchObject([
      { dir: "agent→editor", bytes: expect.any(Number) },
    ]);
  });
});

describe("startAcpProxy: the editor's own cancel", () => {
  it("takes the agent's cancelled end of the turn within the grace, as it comes", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("in_progress"));
    await advance(1_000);
    h.editor.send({ method: "session/cancel", params: { sessionId: "sess-1" } });
    await h.settle();
    expect(h.agent.find((message) => message.method === "session/cancel")).toHaveLength(1);
    expect(h.recorded("acp_editor_cancel")).toMatchObject([{ session_id: "sess-1" }]);
    h.agent.send({ id: 3, result: { stopReason: "cancelled" } });
    await h.settle();
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "cancelled" } },
    ]);
    expect(h.recorded("acp_turn_end")).toMatchObject([{ outcome: "cancelled" }]);
    await advance(20_000);
    expect(h.agents).toHaveLength(1);
    expect(h.agents[0]!.kills).toEqual([]);
  });

  it("answers the prompt cancelled after the grace when the agent ignores the cancel, withdrawing what it waits on", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("pending"));
    h.agent.send(searchPermission(41));
    await advance(1_000);
    // The editor cancels and never answers the permission request (it should have, cancelled).
    h.editor.send({ method: "session/cancel", params: { sessionId: "sess-1" } });
    await advance(9_000);
    expect(h.editor.find((message) => message.id === 3)).toEqual([]);
    // The grace (10 s here), not the tool's deadline nor the permission's wait, bounds the Stop.
    await advance(1_000);
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, result: { stopReason: "cancelled" } },
    ]);
    // The agent that waited on it hears it withdrawn (and, parked, is then replaced).
    const first = h.agents[0]!;
    expect(first.find((message) => message.id === 41 && message.result !== undefined)).toEqual([
      { jsonrpc: "2.0", id: 41, result: { outcome: { outcome: "cancelled" } } },
    ]);
    expect(h.recorded("acp_turn_end")).toMatchObject([{ outcome: "recovered" }]);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
  });
});

describe("startAcpProxy: waiting for you", () => {
  it("never calls a permission answered late a hang, and says how long it waited", async () => {
    const h = await promptedTurn();
    h.agent.send(webSearch("pending"));
    h.agent.send(searchPermission(41));
    await advance(10 * 60_000);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    const waiting = h.recorded("acp_waiting_for_you");
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    expect(waiting[0]).toMatchObject({
      session_id: "sess-1",
      waited_ms: 60_000,
      summary:
        'waiting for you: the agent asked for permission for "Searching the web" 1m ago and waits for your answer',
    });
    const notices = h.editor.find((message) => message.params?.update?.sessionUpdate === "notice");
    expect(notices[0].params.update).toMatchObject({
      severity: "warning",
      title: "Waiting for you (1m)",
    });
    h.editor.send({ id: 41, result: { outcome: { outcome: "selected", optionId: "allow-once" } } });
    await h.settle();
    expect(h.agent.find((message) => message.id === 41)).toHaveLength(1);
    expect(h.recorded("acp_waited")).toMatchObject([{ waited_ms: 600_000 }]);
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        status: "completed",
      }),
    );
    h.agent.send({ id: 3, result: { stopReason: "end_turn" } });
    await h.settle();
    expect(h.recorded("acp_turn_end")).toMatchObject([{ outcome: "completed" }]);
  });

  it("waits on a cursor/* question the same way", async () => {
    const h = start();
    await setUp(h, 1, "sess-1", {});
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send({
      id: 42,
      method: "cursor/ask_question",
      params: { toolCallId: "q", title: "Which one?", questions: [] },
    });
    await advance(5 * 60_000);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    // This editor did not say it takes notices: the log says it, the thread does not.
    expect(h.editor.find((message) => message.params?.update?.sessionUpdate === "notice")).toEqual(
      [],
    );
    expect(h.recorded("acp_waiting_for_you")[0]?.summary).toBe(
      "waiting for you: the agent asked for an answer to its question 1m ago and waits for your answer",
    );
    h.editor.send({ id: 42, result: { outcome: { outcome: "answered", answers: [] } } });
    await h.settle();
    // Silence counts again from the answer.
    await advance(59_000);
    expect(h.recorded("acp_hang_detected")).toEqual([]);
    await advance(2_000);
    expect(h.recorded("acp_hang_detected")).toHaveLength(1);
  });

  it("finds the turn a cursor/* question holds up by its tool call, and holds every turn when it cannot tell", async () => {
    const h = start();
    await setUp(h);
    h.editor.send({ id: 20, method: "session/new", params: { cwd: "/work", mcpServers: [] } });
    await h.settle();
    h.agent.send({ id: 20, result: { sessionId: "sess-2" } });
    h.editor.send(prompt(3, "sess-1"));
    h.editor.send(prompt(4, "sess-2"));
    await h.settle();
    h.agent.send(
      update("sess-2", {
        sessionUpdate: "tool_call",
        toolCallId: "plan-7",
        title: "Plan",
        kind: "think",
        status: "in_progress",
      }),
    );
    // Cursor's questions name no session: this one belongs to sess-2's call.
    h.agent.send({
      id: 50,
      method: "cursor/create_plan",
      params: { toolCallId: "plan-7", plan: "1. …", todos: [] },
    });
    await advance(5 * 60_000);
    expect(h.recorded("acp_hang_detected").map((fields) => fields.session_id)).toEqual(["sess-1"]);
    expect(h.recorded("acp_waiting_for_you")[0]).toMatchObject({ session_id: "sess-2" });

    const other = start();
    await setUp(other);
    other.editor.send({ id: 20, method: "session/new", params: { cwd: "/work", mcpServers: [] } });
    await other.settle();
    other.agent.send({ id: 20, result: { sessionId: "sess-2" } });
    other.editor.send(prompt(3, "sess-1"));
    other.editor.send(prompt(4, "sess-2"));
    await other.settle();
    other.agent.send({
      id: 51,
      method: "cursor/ask_question",
      params: { toolCallId: "unknown", questions: [] },
    });
    await advance(5 * 60_000);
    expect(other.recorded("acp_hang_detected")).toEqual([]);
  });

  it("withdraws what waits on the editor when the turn's budget runs out", async () => {
    const h = start({ monitor: { ...MONITOR, maxTurnMs: 120_000 } });
    await setUp(h);
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send({
      id: 43,
      method: "session/request_permission",
      params: { sessionId: "sess-1", toolCall: { toolCallId: "c" }, options: [] },
    });
    await advance(120_000);
    expect(h.recorded("acp_hang_detected")).toMatchObject([{ verdict: "budget" }]);
    expect(h.agent.find((message) => message.id === 43)).toEqual([
      { jsonrpc: "2.0", id: 43, result: { outcome: { outcome: "cancelled" } } },
    ]);
    // session/cancel reaches the agent before the cancelled answer (ACP's order), so it ends
    // the turn cancelled instead of going on with the answer.
    const received = h.agent.lines.map((line) => line.message);
    const cancelAt = received.findIndex((message) => message?.method === "session/cancel");
    const answerAt = received.findIndex((message) => message?.id === 43);
    expect(cancelAt).toBeGreaterThanOrEqual(0);
    expect(cancelAt).toBeLessThan(answerAt);
    expect(h.editor.find((message) => message.method === "$/cancel_request")).toEqual([
      { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 43 } },
    ]);
    const chunk = h.editor.find(
      (message) => message.params?.update?.sessionUpdate === "agent_message_chunk",
    )[0];
    expect(chunk.params.update.content.text).toContain(
      "cursor-wrap: the turn ran past its budget of 2m; cancelled",
    );
  });
});

describe("startAcpProxy: ACP v2", () => {
  it("takes the prompt's answer as an acknowledgement and the idle state as the end", async () => {
    const h = start();
    await setUp(h, 2);
    expect(h.recorded("acp_negotiated")).toMatchObject([{ version: 2, resume_session: true }]);
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send({ id: 3, result: { messageId: "msg-user-1" } });
    h.agent.send(update("sess-1", { sessionUpdate: "state_update", state: "running" }));
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        kind: "read",
        status: "in_progress",
      }),
    );
    await advance(30_000);
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        status: "completed",
      }),
    );
    expect(h.recorded("acp_turn_end")).toEqual([]);
    h.agent.send(
      update("sess-1", { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" }),
    );
    await h.settle();
    expect(h.recorded("acp_turn_end")).toMatchObject([
      { outcome: "completed", stop_reason: "end_turn", tool_calls: 1 },
    ]);
  });

  it("recovers a hung v2 turn with an idle cancelled state, and resumes the session in a new agent", async () => {
    const h = start();
    await setUp(h, 2);
    h.editor.send(prompt(3));
    await h.settle();
    h.agent.send({ id: 3, result: { messageId: "msg-user-1" } });
    h.agent.send(update("sess-1", { sessionUpdate: "state_update", state: "running" }));
    h.agent.send(
      update("sess-1", {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        name: "web_search",
        kind: "fetch",
        status: "in_progress",
      }),
    );
    await advance(100_000);
    const states = h.editor.find(
      (message) => message.params?.update?.sessionUpdate === "state_update",
    );
    expect(states.at(-1).params.update).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "cancelled",
    });
    // The acknowledged prompt is not answered twice.
    expect(h.editor.find((message) => message.id === 3)).toHaveLength(1);
    await h.settle();
    const second = h.agents[1]!;
    answer(second, "initialize", {
      protocolVersion: 2,
      info: { name: "agent", version: "1" },
      capabilities: {},
    });
    await h.settle();
    expect(second.find((message) => message.method === "session/resume")).toMatchObject([
      { params: { sessionId: "sess-1", cwd: "/work", mcpServers: [] } },
    ]);
  });

  it("answers a v2 prompt never acknowledged with -32800 when its work is cancelled", async () => {
    const h = start();
    await setUp(h, 2);
    h.editor.send(prompt(3));
    await advance(70_000);
    expect(h.recorded("acp_hang_detected")).toHaveLength(1);
    await advance(10_000);
    expect(h.editor.find((message) => message.id === 3)).toEqual([
      { jsonrpc: "2.0", id: 3, error: { code: -32800, message: "cancelled by cursor-wrap" } },
    ]);
  });
});

describe("startAcpProxy: an agent that cannot run", () => {
  it("answers every request with why, and ends with exit code 1", async () => {
    const error = Object.assign(new Error('cannot start "agent": not found on PATH'), {
      code: "AGENT_SPAWN_FAILED",
    });
    const h = start({ failStart: error });
    h.editor.send({ id: 0, method: "initialize", params: { protocolVersion: 1 } });
    await h.settle();
    expect(h.editor.lines[0]?.message).toEqual({
      jsonrpc: "2.0",
      id: 0,
      error: {
        code: -32603,
        message: 'cursor-wrap: cannot start the agent: cannot start "agent": not found on PATH',
        data: { method: "initialize" },
      },
    });
    h.closeEditor();
    expect(await h.proxy.done).toMatchObject({ exitCode: 1 });
  });

  it("answers a request the agent leaves unanswered within its time, once", async () => {
    const h = start({ requestTimeoutMs: 30_000 });
    await h.settle();
    h.editor.send({ id: 0, method: "initialize", params: { protocolVersion: 1 } });
    await advance(30_000);
    expect(h.editor.lines[0]?.message.error.message).toBe(
      "cursor-wrap: the agent did not answer initialize within 30.0s",
    );
    h.agent.send({ id: 0, result: { protocolVersion: 1 } });
    await h.settle();
    expect(h.editor.lines).toHaveLength(1);
    expect(h.recorded("acp_late_response")).toHaveLength(1);
  });

  it("shuts the agent down when the editor closes its end", async () => {
    const h = start();
    await setUp(h);
    h.closeEditor();
    await h.settle();
    h.agent.exit();
    expect(await h.proxy.done).toEqual({
      exitCode: 0,
      reason: "shut down: the editor closed its end",
    });
  });
});
