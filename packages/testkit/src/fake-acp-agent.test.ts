import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type FakeAcpAgentOptions,
  fakeAcpAgentBin,
  fakeAcpAgentEnv,
  isAlive,
  readAcpRecord,
  readPids,
} from "./fake-agent.js";

let dir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fake-acp-test-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const pid of readPids(join(dir, "pids"))) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: messages are read field by field.
type Json = any;

/** A fake ACP agent process, and a minimal client for it. */
function agent(options: FakeAcpAgentOptions = {}) {
  const child = spawn(process.execPath, [fakeAcpAgentBin], {
    env: {
      ...process.env,
      ...fakeAcpAgentEnv({
        stateDir: join(dir, "state"),
        record: join(dir, "record.jsonl"),
        pidFile: join(dir, "pids"),
        ...options,
      }),
    },
  });
  children.push(child);
  const received: Json[] = [];
  const waiters: { test: (message: Json) => boolean; resolve: (message: Json) => void }[] = [];
  let pending = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      const message = JSON.parse(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      received.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.test(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  let nextId = 100;
  const waitFor = (test: (message: Json) => boolean): Promise<Json> => {
    const found = received.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => waiters.push({ test, resolve }));
  };
  const send = (message: object): void => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };
  const request = (method: string, params: object): Promise<Json> => {
    nextId += 1;
    const id = nextId;
    send({ id, method, params });
    return waitFor((message) => message.id === id && message.method === undefined);
  };
  return { child, received, waitFor, send, request, exited, stderr: () => stderr };
}

const prompt = (sessionId: string, text: string) => ({
  sessionId,
  prompt: [{ type: "text", text }],
});

describe("fake-acp-agent", () => {
  it("plays a normal v1 turn, and a restarted process loads the session replaying its history", async () => {
    const first = agent();
    const init = await first.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(init.result).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: { loadSession: true },
    });
    const session = await first.request("session/new", { cwd: dir, mcpServers: [] });
    expect(session.result.sessionId).toBe("fake-session-1");
    const done = await first.request("session/prompt", prompt("fake-session-1", "hello"));
    expect(done.result).toEqual({ stopReason: "end_turn" });
    expect(
      first.received.map((message) => message.params?.update?.sessionUpdate).filter(Boolean),
    ).toEqual([
      "agent_thought_chunk",
      "plan",
      "tool_call",
      "tool_call_update",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    first.child.stdin.end();
    expect(await first.exited).toBe(0);

    const second = agent();
    await second.request("initialize", { protocolVersion: 1 });
    const loaded = await second.request("session/load", {
      sessionId: "fake-session-1",
      cwd: dir,
      mcpServers: [],
    });
    expect(loaded.result).toEqual({});
    expect(
      second.received.slice(1, 3).map((message) => message.params.update.sessionUpdate),
    ).toEqual(["user_message_chunk", "agent_message_chunk"]);
    // A new session in the restarted process does not reuse the kept one's id.
    expect(
      (await second.request("session/new", { cwd: dir, mcpServers: [] })).result.sessionId,
    ).toBe("fake-session-2");
    expect(
      readAcpRecord(join(dir, "record.jsonl"))
        .map((entry) => entry.message.method)
        .filter(Boolean),
    ).toContain("session/load");
  });

  it("speaks v2 when asked: the prompt acknowledged, an idle state at the end", async () => {
    const fake = agent({ protocol: 2 });
    const init = await fake.request("initialize", {
      protocolVersion: 2,
      info: { name: "t", version: "1" },
    });
    expect(init.result.protocolVersion).toBe(2);
    const { result } = await fake.request("session/new", { cwd: dir });
    const ack = await fake.request("session/prompt", prompt(result.sessionId, "hi"));
    expect(ack.result).toEqual({ messageId: "user-1" });
    const idle = await fake.waitFor((message) => message.params?.update?.state === "idle");
    expect(idle.params.update.stopReason).toBe("end_turn");
    expect(
      fake.received.some((message) => message.params?.update?.sessionUpdate === "tool_call"),
    ).toBe(false);
  });

  it("hangs in a tool call until cancelled, and parks for good when told to", async () => {
    const fake = agent();
    await fake.request("initialize", { protocolVersion: 1 });
    const { result } = await fake.request("session/new", { cwd: dir });
    const answer = fake.request(
      "session/prompt",
      prompt(result.sessionId, "scenario:tool-hang search"),
    );
    await fake.waitFor((message) => message.params?.update?.toolCallId === "search-1");
    fake.send({ method: "session/cancel", params: { sessionId: result.sessionId } });
    expect((await answer).result).toEqual({ stopReason: "cancelled" });

    void fake.request("session/prompt", prompt(result.sessionId, "scenario:parked search"));
    await fake.waitFor((message) => message.params?.update?.toolCallId === "search-2");
    const [child] = readPids(join(dir, "pids"));
    expect(child !== undefined && isAlive(child)).toBe(true);
  });

  it("crashes mid-turn with code 3 and a line on stderr", async () => {
    const fake = agent({ scenario: "crash" });
    await fake.request("initialize", { protocolVersion: 1 });
    const { result } = await fake.request("session/new", { cwd: dir });
    fake.send({ id: 7, method: "session/prompt", params: prompt(result.sessionId, "go") });
    expect(await fake.exited).toBe(3);
    expect(fake.stderr()).toContain("lost the connection");
  });

  it("asks for permission and for an answer to a cursor/* question, and waits", async () => {
    const fake = agent();
    await fake.request("initialize", { protocolVersion: 1 });
    const { result } = await fake.request("session/new", { cwd: dir });
    const permitted = fake.request(
      "session/prompt",
      prompt(result.sessionId, "scenario:permission test"),
    );
    const asked = await fake.waitFor((message) => message.method === "session/request_permission");
    fake.send({
      id: asked.id,
      result: { outcome: { outcome: "selected", optionId: "allow-once" } },
    });
    await permitted;
    expect(fake.received.at(-2).params.update.content.text).toBe("Turn 1: permission allow-once.");

    const questioned = fake.request(
      "session/prompt",
      prompt(result.sessionId, "scenario:cursor-question pick"),
    );
    const question = await fake.waitFor((message) => message.method === "cursor/ask_question");
    fake.send({
      id: question.id,
      result: {
        outcome: {
          outcome: "answered",
          answers: [{ questionId: "q1", selectedOptionIds: ["plan"] }],
        },
      },
    });
    await questioned;
    expect(fake.received.some((message) => message.method === "cursor/update_todos")).toBe(true);
  });
});
