// `cursor-wrap acp` end to end: the built executable between an editor and an ACP agent, with
// ACP software nobody here wrote. The editor is the official library's client
// (@agentclientprotocol/sdk) or the `acpx` client CLI; the agent is the test kit's fake
// `agent acp` or an agent built on the official library's agent side. Results are compared
// direct and proxied; the hangs are recovered.

import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import * as acpV2 from "@agentclientprotocol/sdk/experimental/v2";
import {
  type FakeAcpAgentOptions,
  fakeAcpAgentBin,
  fakeAcpAgentEnv,
  isAlive,
  readAcpRecord,
  readPids,
} from "@cursor-wrap/testkit";
import * as acpV1Library from "acp-sdk-1";
import { afterAll, describe, expect, it } from "vitest";
import { CLI } from "./harness.js";

/** Thresholds short enough that a hang shows within a couple of seconds. */
/** Where no hang is expected: thresholds a loaded machine cannot reach by accident. */
const CALM = ["--idle-timeout", "60s", "--kill-grace", "500ms"];
const FAST = [
  "--idle-timeout",
  "1s",
  "--tool-grace",
  "500ms",
  "--exit-grace",
  "1s",
  "--kill-grace",
  "500ms",
];
const SDK_AGENT = fileURLToPath(new URL("./fixtures/sdk-agent.mjs", import.meta.url));
const ACPX = fileURLToPath(new URL("../node_modules/.bin/acpx", import.meta.url));

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  // No process a test started outlives it: the agents' children included.
  const left = dirs.flatMap((dir) => readPids(join(dir, "pids"))).filter(isAlive);
  expect(left).toEqual([]);
});

function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-acp-e2e-"));
  dirs.push(dir);
  return dir;
}

/** The agent's environment: the fake agent's state, record and children in `dir`. */
const agentEnv = (dir: string, options: FakeAcpAgentOptions = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  ...fakeAcpAgentEnv({
    stateDir: join(dir, "state"),
    record: join(dir, "record.jsonl"),
    pidFile: join(dir, "pids"),
    ...options,
  }),
});

/** An agent process for the editor: the fake one direct, or `cursor-wrap acp` in front of it. */
function launch(
  dir: string,
  how: { proxied: boolean; agent?: string[]; flags?: string[]; options?: FakeAcpAgentOptions },
): ChildProcessWithoutNullStreams {
  const agent = how.agent ?? [process.execPath, fakeAcpAgentBin];
  const command = how.proxied
    ? [CLI, "acp", "--log-dir", join(dir, "logs"), ...(how.flags ?? FAST), "--", ...agent]
    : agent.slice(1);
  const child = spawn(how.proxied ? process.execPath : agent[0]!, command, {
    cwd: dir,
    env: agentEnv(dir, how.options),
  });
  child.stderr.resume();
  children.push(child);
  return child;
}

/** What the editor saw of its conversation. */
interface Seen {
  updates: acp.SessionUpdate[];
  requests: { method: string; params: unknown }[];
}

/** The official library's client as the editor, on a child's stdio. */
async function asEditor<T>(
  child: ChildProcessWithoutNullStreams,
  script: (context: acp.ClientContext, seen: Seen) => Promise<T>,
  answers: { permissionAfterMs?: number } = {},
): Promise<{ result: T; seen: Seen }> {
  const seen: Seen = { updates: [], requests: [] };
  const editor = acp
    .client({ name: "e2e-editor" })
    .onNotification("session/update", ({ params }) => {
      seen.updates.push(params.update);
    })
    .onRequest("session/request_permission", async ({ params }) => {
      seen.requests.push({ method: "session/request_permission", params });
      // A person who answers late.
      await new Promise((resolve) => setTimeout(resolve, answers.permissionAfterMs ?? 0));
      return { outcome: { outcome: "selected", optionId: "allow-once" } };
    })
    .onRequest("*", ({ method, params }) => {
      seen.requests.push({ method, params });
      return {
        outcome: {
          outcome: "answered",
          answers: [{ questionId: "q1", selectedOptionIds: ["plan"] }],
        },
      };
    })
    .onNotification("*", () => {});
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin),
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const result = await editor.connectWith(stream, (context) => script(context, seen));
  child.stdin.end();
  return { result, seen };
}

const text = (value: string): acp.ContentBlock[] => [{ type: "text", text: value }];

/** initialize, authenticate and a session, as Zed does. */
async function setUp(context: acp.ClientContext, dir: string) {
  await context.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "e2e-editor", version: "1" },
  });
  await context.request("authenticate", { methodId: "cursor_login" });
  return (await context.request("session/new", { cwd: dir, mcpServers: [] })).sessionId;
}

/** The ACP proxy's log of a run, as records. */
function acpRecords(dir: string): Record<string, unknown>[] {
  const logs = join(dir, "logs");
  const file = readdirSync(logs).find((name) => name.startsWith("cursor-wrap-acp-"));
  if (!file) throw new Error(`no ACP log in ${logs}`);
  return readFileSync(join(logs, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
const names = (records: Record<string, unknown>[]) => records.map((record) => record.msg);

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once("exit", (code) => resolve(code)));

describe("cursor-wrap acp with the official library as the editor", () => {
  it("gives the same two turns direct and through the proxy, byte for byte in what the editor parses", async () => {
    const conversation = async (proxied: boolean) => {
      const dir = workDir();
      const child = launch(dir, { proxied, flags: CALM });
      const { result, seen } = await asEditor(child, async (context) => {
        const sessionId = await setUp(context, dir.replace(/[^/]+$/, "same"));
        const first = await context.request("session/prompt", {
          sessionId,
          prompt: text("read the readme"),
        });
        const second = await context.request("session/prompt", {
          sessionId,
          prompt: text("again"),
        });
        return { sessionId, first, second };
      });
      expect(await exited(child)).toBe(0);
      return { result, seen, dir };
    };
    const direct = await conversation(false);
    const proxied = await conversation(true);
    expect(proxied.result).toEqual(direct.result);
    expect(proxied.seen).toEqual(direct.seen);
    expect(proxied.result.second).toEqual({ stopReason: "end_turn" });
    const records = acpRecords(proxied.dir);
    expect(
      records.filter((record) => record.msg === "acp_turn_end").map((record) => record.outcome),
    ).toEqual(["completed", "completed"]);
    expect(names(records)).not.toContain("acp_hang_detected");
  });

  it("marks a web search that never returns failed and cancels it; the agent ends the turn itself", async () => {
    const dir = workDir();
    const child = launch(dir, { proxied: true });
    const { result, seen } = await asEditor(child, async (context) => {
      const sessionId = await setUp(context, dir);
      return context.request("session/prompt", {
        sessionId,
        prompt: text("scenario:tool-hang latest cargo release notes"),
      });
    });
    expect(result).toEqual({ stopReason: "cancelled" });
    const failed = seen.updates.find(
      (update) => update.sessionUpdate === "tool_call_update" && update.status === "failed",
    );
    expect(failed).toMatchObject({
      toolCallId: "search-1",
      content: [
        {
          type: "content",
          content: {
            type: "text",
            // 1 s allowance + 0.5 s grace, and whatever a loaded machine adds.
            text: expect.stringMatching(
              /^cursor-wrap: web_search gave no result for \d+\.\ds; cancelled$/,
            ),
          },
        },
      ],
    });
    await exited(child);
    const records = acpRecords(dir);
    expect(names(records)).toContain("acp_cancel_honoured");
    expect(names(records)).not.toContain("acp_agent_restarted");
    // The tree was looked at before the verdict.
    expect(names(records)).toContain("acp_liveness_sample");
  });

  it("recovers a parked agent: answers the prompt, kills its tree, restarts it, reloads the session; the next prompt works", async () => {
    const dir = workDir();
    const child = launch(dir, { proxied: true });
    const { result, seen } = await asEditor(child, async (context, seen) => {
      const sessionId = await setUp(context, dir);
      // A first turn, so the session has history the new process will replay.
      await context.request("session/prompt", { sessionId, prompt: text("hello") });
      const stuck = await context.request("session/prompt", {
        sessionId,
        prompt: text("scenario:parked search the web"),
      });
      const updatesBefore = seen.updates.length;
      const next = await context.request("session/prompt", {
        sessionId,
        prompt: text("try again"),
      });
      return { stuck, next, updatesBefore, sessionId };
    });
    expect(result.stuck).toEqual({ stopReason: "cancelled" });
    expect(result.next).toEqual({ stopReason: "end_turn" });
    // The history the new process replayed while loading the session never reached the editor.
    const after = seen.updates.slice(result.updatesBefore);
    expect(after.filter((update) => update.sessionUpdate === "user_message_chunk")).toEqual([]);
    expect(after.find((update) => update.sessionUpdate === "agent_message_chunk")).toMatchObject({
      content: { text: "Turn 3: hello from the fake agent." },
    });
    await exited(child);
    // The parked process and its child are gone; a second process loaded the session.
    const [parkedChild] = readPids(join(dir, "pids"));
    expect(parkedChild !== undefined && isAlive(parkedChild)).toBe(false);
    const record = readAcpRecord(join(dir, "record.jsonl"));
    const pids = [...new Set(record.map((entry) => entry.pid))];
    expect(pids).toHaveLength(2);
    expect(
      record.filter((entry) => entry.pid === pids[1]).map((entry) => entry.message.method),
    ).toEqual(["initialize", "authenticate", "session/load", "session/prompt"]);
    expect(names(acpRecords(dir))).toEqual(
      expect.arrayContaining([
        "acp_prompt_answered",
        "acp_agent_killed",
        "acp_agent_restarted",
        "acp_session_reloaded",
        "acp_replay_dropped",
      ]),
    );
  });

  it("says what happened when the agent crashes mid-turn, and the next prompt works", async () => {
    const dir = workDir();
    const child = launch(dir, { proxied: true });
    const { result, seen } = await asEditor(child, async (context) => {
      const sessionId = await setUp(context, dir);
      const crashed = await context.request("session/prompt", {
        sessionId,
        prompt: text("scenario:crash search"),
      });
      const next = await context.request("session/prompt", { sessionId, prompt: text("hello") });
      return { crashed, next };
    });
    expect(result).toEqual({
      crashed: { stopReason: "cancelled" },
      next: { stopReason: "end_turn" },
    });
    const failed = seen.updates.find(
      (update) => update.sessionUpdate === "tool_call_update" && update.status === "failed",
    );
    expect(JSON.stringify(failed)).toContain(
      "cursor-wrap: web_search was cut short: the agent exited with code 3 (it said: fake-acp-agent: lost the connection to the search backend); cursor-wrap restarts it",
    );
    await exited(child);
    // Its words are in the log, a record per line, and `logs show` shows them.
    const shown = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [CLI, "logs", "show", "fake-session-1", "--log-dir", join(dir, "logs")],
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    expect(shown).toContain(
      "agent stderr │ fake-acp-agent: lost the connection to the search backend",
    );
  });

  it("waits for a permission the person answers late, and for a cursor/* question, without calling either a hang", async () => {
    const dir = workDir();
    const child = launch(dir, { proxied: true });
    const { result, seen } = await asEditor(
      child,
      async (context) => {
        const sessionId = await setUp(context, dir);
        const permitted = await context.request("session/prompt", {
          sessionId,
          prompt: text("scenario:permission run the tests"),
        });
        const answered = await context.request("session/prompt", {
          sessionId,
          prompt: text("scenario:cursor-question which mode"),
        });
        return { permitted, answered };
      },
      // Three times the idle timeout.
      { permissionAfterMs: 3_000 },
    );
    expect(result).toEqual({
      permitted: { stopReason: "end_turn" },
      answered: { stopReason: "end_turn" },
    });
    expect(seen.requests.map((request) => request.method)).toEqual([
      "session/request_permission",
      "cursor/ask_question",
    ]);
    expect(JSON.stringify(seen.updates)).toContain("Turn 1: permission allow-once.");
    expect(JSON.stringify(seen.updates)).toContain('you chose {\\"outcome\\":\\"answered\\"');
    await exited(child);
    const records = acpRecords(dir);
    expect(names(records)).not.toContain("acp_hang_detected");
    const waiting = records.find((record) => record.msg === "acp_waiting_for_you");
    expect(waiting?.summary).toMatch(
      /^waiting for you: Cursor|^waiting for you: the agent asked for permission for "Run npm test"/,
    );
    expect(records.find((record) => record.msg === "acp_waited")?.waited_ms).toBeGreaterThanOrEqual(
      2_900,
    );
  });

  it("on SIGTERM answers the turn cancelled, takes the agent's tree down and exits 143", async () => {
    const dir = workDir();
    // No verdict of the monitor's own during the test: only the signal ends the turn.
    const child = launch(dir, { proxied: true, flags: [...FAST, "--idle-timeout", "10m"] });
    const { result } = await asEditor(child, async (context, seen) => {
      const sessionId = await setUp(context, dir);
      const turn = context.request("session/prompt", {
        sessionId,
        prompt: text("scenario:parked search the web"),
      });
      // The agent took the prompt (it said something) and parks: then the signal.
      await expect.poll(() => seen.updates.length, { timeout: 20_000 }).toBeGreaterThan(0);
      child.kill("SIGTERM");
      return turn;
    });
    expect(result).toEqual({ stopReason: "cancelled" });
    expect(await exited(child)).toBe(143);
    const records = acpRecords(dir);
    expect(records.at(-1)).toMatchObject({ msg: "session_end", exit_code: 143 });
    expect(names(records)).toContain("acp_agent_killed");
  });

  it("passes cursor-agent's flags given with acp to the agent, before its acp", async () => {
    const dir = workDir();
    // The Cursor CLI as a script that notes its arguments, then runs the fake ACP agent.
    const bin = join(dir, "agent");
    writeFileSync(
      bin,
      `#!/bin/sh\nprintf '%s\\n' "$@" > "${join(dir, "argv")}"\nexec "${process.execPath}" "${fakeAcpAgentBin}"\n`,
      { mode: 0o755 },
    );
    const child = spawn(
      process.execPath,
      [
        CLI,
        "--api-key",
        "KEY",
        "acp",
        "-H",
        "X-Team: t",
        "--log-dir",
        join(dir, "logs"),
        "--agent-bin",
        bin,
      ],
      { cwd: dir, env: agentEnv(dir) },
    );
    children.push(child);
    child.stderr.resume();
    const stream = acp.ndJsonStream(
      Writable.toWeb(child.stdin),
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const answer = await acp.client({ name: "e2e-editor" }).connectWith(stream, (context) =>
      context.request("initialize", {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      }),
    );
    child.stdin.end();
    expect(answer).toMatchObject({ protocolVersion: acp.PROTOCOL_VERSION });
    expect(readFileSync(join(dir, "argv"), "utf8").trimEnd().split("\n")).toEqual([
      "--api-key",
      "KEY",
      "-H",
      "X-Team: t",
      "acp",
    ]);
    expect(await exited(child)).toBe(0);
  });

  it("answers the editor at once with why when the agent is not installed", async () => {
    const dir = workDir();
    const child = spawn(
      process.execPath,
      [CLI, "acp", "--log-dir", join(dir, "logs"), "--agent-bin", join(dir, "no-such-agent")],
      {
        cwd: dir,
        env: agentEnv(dir),
      },
    );
    children.push(child);
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const stream = acp.ndJsonStream(
      Writable.toWeb(child.stdin),
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const failure = await acp.client({ name: "e2e-editor" }).connectWith(stream, (context) =>
      context
        .request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} })
        .then(
          () => undefined,
          (error: unknown) => error,
        ),
    );
    child.stdin.end();
    expect(String((failure as Error).message)).toContain(
      "cursor-wrap: cannot start Cursor: cannot start",
    );
    expect(String((failure as Error).message)).toContain("no-such-agent");
    expect(await exited(child)).toBe(1);
    expect(stderr).toContain("acp: cannot start Cursor");
  });
});

describe("cursor-wrap acp with the library's ClientSideConnection as the editor", () => {
  // ClientSideConnection is the editor side of @agentclientprotocol/sdk 1.x (deprecated in
  // 1.9, gone in 2.x, still what acpx and many clients are built on): 1.9.0 here.
  async function connectionEditor(
    child: ChildProcessWithoutNullStreams,
    dir: string,
    prompts: string[],
  ) {
    const updates: unknown[] = [];
    const stream = acpV1Library.ndJsonStream(
      Writable.toWeb(child.stdin),
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const connection = new acpV1Library.ClientSideConnection(
      () => ({
        sessionUpdate: async (params) => {
          updates.push(params.update);
        },
        requestPermission: async () => ({
          outcome: { outcome: "selected", optionId: "allow-once" },
        }),
      }),
      stream,
    );
    await connection.initialize({
      protocolVersion: acpV1Library.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await connection.newSession({ cwd: dir, mcpServers: [] });
    const responses: unknown[] = [];
    for (const prompt of prompts) {
      responses.push(
        await connection.prompt({ sessionId, prompt: [{ type: "text", text: prompt }] }),
      );
    }
    child.stdin.end();
    await exited(child);
    return { responses, updates };
  }

  it("gives the same turn direct and through the proxy, and gets a parked agent's turn back", async () => {
    const run = async (proxied: boolean, prompts: string[]) => {
      const dir = workDir();
      return connectionEditor(
        launch(dir, { proxied, flags: prompts.length === 1 ? CALM : FAST }),
        dir.replace(/[^/]+$/, "same"),
        prompts,
      );
    };
    const direct = await run(false, ["hello"]);
    const proxied = await run(true, ["hello"]);
    expect(proxied).toEqual(direct);
    const recovered = await run(true, ["scenario:parked search", "again"]);
    expect(recovered.responses).toEqual([{ stopReason: "cancelled" }, { stopReason: "end_turn" }]);
    expect(JSON.stringify(recovered.updates)).toMatch(
      /cursor-wrap: web_search gave no result for \d+\.\ds; cancelled/,
    );
  });
});

describe("cursor-wrap acp over ACP v2", () => {
  /** The v2 client of the official library as the editor. */
  async function v2Editor(child: ChildProcessWithoutNullStreams, dir: string, prompts: string[]) {
    const updates: acpV2.SessionUpdate[] = [];
    let idle: () => void = () => {};
    const editor = acpV2
      .client({ name: "e2e-editor-v2" })
      .onNotification("session/update", ({ params }) => {
        updates.push(params.update);
        if (params.update.sessionUpdate === "state_update" && params.update.state === "idle")
          idle();
      });
    const stream = acpV2.ndJsonStream(
      Writable.toWeb(child.stdin),
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const acks = await editor.connectWith(stream, async (context) => {
      const initialized = await context.request("initialize", {
        protocolVersion: acpV2.PROTOCOL_VERSION,
        info: { name: "e2e-editor-v2", version: "1" },
      });
      expect(initialized.protocolVersion).toBe(2);
      const { sessionId } = await context.request("session/new", { cwd: dir });
      const results: unknown[] = [];
      for (const prompt of prompts) {
        const done = new Promise<void>((resolve) => {
          idle = resolve;
        });
        results.push(
          await context
            .request("session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] })
            .catch((error: Error) => error.message),
        );
        await done;
      }
      return results;
    });
    child.stdin.end();
    return { acks, updates };
  }

  it("gives the same v2 turn direct and through the proxy", async () => {
    const run = async (proxied: boolean) => {
      const dir = workDir();
      const child = launch(dir, { proxied, flags: CALM, options: { protocol: 2 } });
      const seen = await v2Editor(child, dir.replace(/[^/]+$/, "same"), ["read the readme"]);
      await exited(child);
      return seen;
    };
    const direct = await run(false);
    const proxied = await run(true);
    expect(proxied).toEqual(direct);
    expect(direct.updates.at(-1)).toEqual({
      sessionUpdate: "state_update",
      state: "idle",
      stopReason: "end_turn",
    });
  });

  it("recovers a parked v2 agent with an idle cancelled state, resumes the session, and the next prompt works", async () => {
    const dir = workDir();
    const child = launch(dir, { proxied: true, options: { protocol: 2 } });
    const { acks, updates } = await v2Editor(child, dir, ["scenario:parked search", "again"]);
    expect(acks).toEqual([{ messageId: "user-1" }, { messageId: "user-2" }]);
    const idles = updates.filter(
      (update) => update.sessionUpdate === "state_update" && update.state === "idle",
    );
    expect(idles).toEqual([
      { sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" },
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
    ]);
    await exited(child);
    const record = readAcpRecord(join(dir, "record.jsonl"));
    expect(record.map((entry) => entry.message.method)).toContain("session/resume");
  });
});

describe("cursor-wrap acp with an agent built on the official library", () => {
  it("gives the same turn direct and through the proxy, and recovers its hang", async () => {
    const run = async (proxied: boolean, prompt: string) => {
      const dir = workDir();
      const child = launch(dir, {
        proxied,
        flags: prompt.includes("hang") ? FAST : CALM,
        agent: [process.execPath, SDK_AGENT],
      });
      const seen = await asEditor(child, async (context) => {
        await context.request("initialize", {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {},
        });
        const { sessionId } = await context.request("session/new", {
          cwd: "/work",
          mcpServers: [],
        });
        return context.request("session/prompt", { sessionId, prompt: text(prompt) });
      });
      await exited(child);
      return seen;
    };
    const direct = await run(false, "hello");
    const proxied = await run(true, "hello");
    expect(proxied).toEqual(direct);
    expect(direct.result).toEqual({ stopReason: "end_turn" });
    const hung = await run(true, "please hang");
    expect(hung.result).toEqual({ stopReason: "cancelled" });
    expect(JSON.stringify(hung.seen.updates)).toMatch(
      /cursor-wrap: Searching the web gave no result for \d+\.\ds; cancelled/,
    );
  });
});

describe("cursor-wrap acp with the acpx client", () => {
  /** `acpx exec` against an agent command: its JSON transcript (runs on this Node 20 despite declaring 22.13). */
  function acpx(dir: string, agent: string, prompt: string): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        ACPX,
        ["--agent", agent, "--format", "json", "--approve-all", "exec", prompt],
        { cwd: dir, env: agentEnv(dir), timeout: 120_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
  }
  const shellQuote = (words: string[]) =>
    words.map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(" ");

  it("prints the same transcript direct and through the proxy, and sees a parked agent's turn come back cancelled", {
    timeout: 240_000,
  }, async () => {
    const directDir = workDir();
    const proxiedDir = workDir();
    const fake = [process.execPath, fakeAcpAgentBin];
    const proxy = (dir: string, flags: string[]) =>
      shellQuote([
        process.execPath,
        CLI,
        "acp",
        "--log-dir",
        join(dir, "logs"),
        ...flags,
        "--",
        ...fake,
      ]);
    const sameCwd = (transcript: string, dir: string) => transcript.replaceAll(dir, "<cwd>");
    const hungDir = workDir();
    // Three separate clients in separate directories: side by side, as most of their time is
    // acpx starting up and the parked turn's thresholds running out.
    const [direct, proxied, hung] = await Promise.all([
      acpx(directDir, shellQuote(fake), "hello"),
      acpx(proxiedDir, proxy(proxiedDir, CALM), "hello"),
      acpx(hungDir, proxy(hungDir, FAST), "scenario:parked search the web"),
    ]);
    expect(sameCwd(proxied, proxiedDir)).toBe(sameCwd(direct, directDir));
    expect(direct).toContain('"stopReason":"end_turn"');

    expect(hung).toMatch(/cursor-wrap: web_search gave no result for \d+\.\ds; cancelled/);
    expect(hung.trim().split("\n").at(-1)).toMatch(/"result":\{"stopReason":"cancelled"\}/);
  });
});

describe("cursor-wrap logs show of an ACP proxy's log", () => {
  it("renders the traffic, the turn and the recovery like an MCP proxy's", async () => {
    const dir = workDir();
    const child = launch(dir, { proxied: true });
    await asEditor(child, async (context) => {
      const sessionId = await setUp(context, dir);
      await context.request("session/prompt", {
        sessionId,
        prompt: text("scenario:parked search"),
      });
      return context.request("session/prompt", { sessionId, prompt: text("again") });
    });
    await exited(child);
    const shown = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [CLI, "logs", "show", "fake-session-1", "--log-dir", join(dir, "logs")],
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    expect(shown).toContain("⇄ editor ▸ session/prompt (id 3)");
    expect(shown).toContain("⇄ agent ◂ tool_call search-1 in_progress");
    expect(shown).toMatch(/⚠ cursor-wrap: web_search gave no result for \d+\.\ds; cancelled/);
    expect(shown).toContain("⚠ the agent did not end the cancelled turn within 1.0s");
    expect(shown).toContain("· session fake-session-1 loaded again (session/load)");
    const listed = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [CLI, "logs", "--log-dir", join(dir, "logs")], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(listed).toMatch(
      /fake-session-1 \(acp\)\s+shut down: the editor closed its end \(flagged\)\s+2\s/,
    );
  });
});
