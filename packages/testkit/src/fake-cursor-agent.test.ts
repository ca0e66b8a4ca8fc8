import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLineFramer, type JsonEvent, recordedTimeline } from "@cursor-wrap/events";
import { schemaNameFor, schemas } from "@cursor-wrap/events/schemas";
import { realCapture } from "@cursor-wrap/fixtures";
import { it as base, describe, expect } from "vitest";
import {
  type FakeAgentOptions,
  fakeAgentBin,
  fakeAgentEnv,
  fakeMcpServerBin,
  isAlive,
  readInvocations,
  readPids,
} from "./fake-agent.js";
import { scenarioNames } from "./scenarios.js";

/** A directory of one test's own: the agent's invocation record and its descendants' pids. */
interface Kit {
  dir: string;
  record: string;
  pidFile: string;
  /** Run the fake agent to its end, as cursor-wrap would start it. */
  run(options: FakeAgentOptions, how?: RunHow): Promise<AgentRun>;
}

interface RunHow {
  args?: string[];
  input?: string;
  env?: Record<string, string | undefined>;
}

interface AgentRun {
  status: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

function runAgent(
  kit: Pick<Kit, "record" | "pidFile">,
  options: FakeAgentOptions,
  {
    args = ["--print", "--output-format", "stream-json", "--force"],
    input = "do it",
    env = {},
  }: RunHow = {},
): Promise<AgentRun> {
  const child = spawn(fakeAgentBin, args, {
    env: {
      ...process.env,
      CURSOR_API_KEY: undefined,
      ...fakeAgentEnv({
        record: kit.record,
        pidFile: kit.pidFile,
        descendantTtlMs: 20_000,
        ...options,
      }),
      ...env,
    },
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on("error", () => {});
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) =>
      resolve({ status, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) }),
    );
  });
}

// Each test plays its own agents in its own directory, so the tests run at the same time: most
// of their time is the agents' start-up and their scenarios' pauses, not this process's CPU.
const it = base.extend<{ kit: Kit }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from it.
  kit: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), "testkit-test-"));
    const kit: Kit = {
      dir,
      record: join(dir, "calls.jsonl"),
      pidFile: join(dir, "pids"),
      run: (options, how) => runAgent(kit, options, how),
    };
    await use(kit);
    for (const pid of readPids(kit.pidFile)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    rmSync(dir, { recursive: true, force: true });
  },
});

function events(stdout: Buffer): JsonEvent[] {
  const framer = createLineFramer();
  return [...framer.push(stdout), ...framer.end()].filter(
    (event): event is JsonEvent => event.kind === "json",
  );
}

describe("the package's commands", () => {
  const manifest = JSON.parse(
    readFileSync(new URL("../package.json", import.meta.url), "utf8"),
  ) as { bin: Record<string, string> };
  const command = (name: string): string =>
    fileURLToPath(new URL(`../${manifest.bin[name]}`, import.meta.url));

  it("are files of the package, not of its build, so installing never finds them missing", () => {
    for (const [name, path] of Object.entries(manifest.bin)) {
      expect(path, name).toMatch(/^\.\/bin\//);
      expect(statSync(command(name)).mode & 0o111, name).not.toBe(0);
    }
    // The paths the kit hands out are those commands: executable wherever it is installed.
    expect(fakeAgentBin).toBe(command("fake-cursor-agent"));
    expect(fakeMcpServerBin).toBe(command("fake-mcp-server"));
  });

  it("run the built fake agent and fake MCP server", async ({ kit }) => {
    const agent = spawnSync(command("fake-cursor-agent"), ["-p"], {
      input: "hello",
      env: { ...process.env, ...fakeAgentEnv({ scenario: "quick", record: kit.record }) },
      timeout: 30_000,
    });
    expect(agent.status).toBe(0);
    expect(events(agent.stdout).at(-1)).toMatchObject({ type: "result" });
    const server = spawnSync(command("fake-mcp-server"), [], {
      input: `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} })}\n`,
      timeout: 30_000,
    });
    expect(JSON.parse(server.stdout.toString().split("\n")[0]!)).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: expect.objectContaining({ serverInfo: expect.anything() }),
    });
  });
});

// Side by side, a test that plays five agents one after another waits for the others' agents
// too: on a machine loaded to a load average of 30 that took over a minute.
describe.concurrent("fake-cursor-agent", { timeout: 240_000 }, () => {
  it("reads its prompt from stdin, records the invocation and plays a valid normal turn", async ({
    kit,
  }) => {
    const result = await kit.run(
      { scenario: "normal:10", sessionId: "s-fixed" },
      { args: ["-p", "--model", "gpt-5", "--force"] },
    );
    expect(result.status).toBe(0);
    const stream = events(result.stdout);
    expect(stream.map((event) => `${event.type}/${event.subtype ?? ""}`)).toEqual([
      "system/init",
      "user/",
      "thinking/delta",
      "thinking/delta",
      "thinking/delta",
      "thinking/completed",
      "assistant/",
      "tool_call/started",
      "tool_call/completed",
      "assistant/",
      "result/success",
    ]);
    for (const event of stream) {
      const name = schemaNameFor(event.type, event.subtype)!;
      expect(schemas[name].safeParse(event.data).success).toBe(true);
    }
    expect(stream[1]?.data).toMatchObject({
      message: { content: [{ text: "do it" }] },
      session_id: "s-fixed",
    });
    expect(readInvocations(kit.record)).toEqual([
      expect.objectContaining({
        argv: ["-p", "--model", "gpt-5", "--force"],
        prompt: "do it",
        stdin: "do it",
        scenario: "normal:10",
        sessionId: "s-fixed",
        stdinIsTTY: false,
      }),
    ]);
  });

  it("resumes the session it is asked to resume", async ({ kit }) => {
    const result = await kit.run({ scenario: "quick" }, { args: ["-p", "--resume", "abc-123"] });
    expect(events(result.stdout).every((event) => event.data.session_id === "abc-123")).toBe(true);
    expect(readInvocations(kit.record)[0]?.sessionId).toBe("abc-123");
  });

  it("plays one scenario per invocation from a list, the last one repeating", async ({ kit }) => {
    for (let run = 0; run < 3; run += 1) await kit.run({ scenario: ["quick", "abnormal:4"] });
    expect(readInvocations(kit.record).map((invocation) => invocation.scenario)).toEqual([
      "quick",
      "abnormal:4",
      "abnormal:4",
    ]);
  });

  it("calls an MCP tool over stdio and reports the server's answer, or its error, as the result", async ({
    kit,
  }) => {
    const answered = events((await kit.run({ scenario: "mcp-call:echo" })).stdout);
    const completed = answered.find((event) => event.subtype === "completed");
    expect(completed?.data).toMatchObject({
      tool_call: {
        mcpToolCall: {
          args: { providerIdentifier: "tracker", toolName: "echo" },
          result: {
            success: { content: [{ text: { text: "flaky login test" } }], isError: false },
          },
        },
      },
    });
    const refused = events((await kit.run({ scenario: "mcp-call:no-such-tool" })).stdout);
    expect(refused.find((event) => event.subtype === "completed")?.data).toMatchObject({
      tool_call: { mcpToolCall: { result: { error: { error: "unknown tool no-such-tool" } } } },
    });
    for (const event of [...answered, ...refused]) {
      const name = schemaNameFor(event.type, event.subtype)!;
      expect(schemas[name].safeParse(event.data).success).toBe(true);
    }
    expect(answered.at(-1)?.type).toBe("result");
  });

  it("takes the scenario from a prompt that starts with scenario:<name>", async ({ kit }) => {
    const result = await kit.run({ scenario: "normal" }, { input: "scenario:abnormal:7 please" });
    expect(result.status).toBe(7);
    expect(readInvocations(kit.record)[0]).toMatchObject({ scenario: "abnormal:7" });
    expect(events(result.stdout)[1]?.data).toMatchObject({
      message: { content: [{ text: "please" }] },
    });
  });

  it("waits for a file before playing the scenario after it (after-file:<path>|<scenario>)", async ({
    kit,
  }) => {
    const release = join(kit.dir, "release");
    writeFileSync(release, "");
    const result = await kit.run({ scenario: `after-file:${release}|abnormal:4` });
    expect(result.status).toBe(4);
    expect(readInvocations(kit.record)[0]).toMatchObject({
      scenario: `after-file:${release}|abnormal:4`,
    });
    expect(events(result.stdout).map((event) => event.type)).toContain("system");
  });

  it.for(["busy-silent", "reading-silent"])(
    "stays silent past its time until a file exists (%s:<ms>|<path>)",
    async (name, { kit }) => {
      const release = join(kit.dir, `release-${name}`);
      // Written a while after the agent starts (its own time is 0 ms): it must not end before.
      let released = false;
      const timer = setTimeout(() => {
        writeFileSync(release, "");
        released = true;
      }, 400);
      const result = await kit.run({ scenario: `${name}:0|${release}` });
      clearTimeout(timer);
      expect(released).toBe(true);
      expect(result.status).toBe(0);
      expect(events(result.stdout).at(-1)?.type).toBe("result");
    },
  );

  it("plays explicit steps", async ({ kit }) => {
    const result = await kit.run({
      scenario: [
        { type: "line", value: "T: plain text" },
        { type: "stderr", text: "warning" },
        { type: "exit", code: 5 },
      ],
    });
    expect(result.status).toBe(5);
    expect(result.stdout.toString()).toBe("T: plain text\n");
    expect(result.stderr.toString()).toBe("warning\n");
  });

  it("reports failures the way cursor-agent does", async ({ kit }) => {
    expect(await kit.run({ scenario: "auth-error" })).toMatchObject({ status: 1 });
    expect((await kit.run({ scenario: "auth-error" })).stderr.toString()).toContain(
      "Authentication required",
    );
    const plan = await kit.run({ scenario: "plan-error" });
    expect(plan.status).toBe(1);
    expect(plan.stderr.toString()).toMatch(/^ActionRequiredError: Named models unavailable/);
    expect(events(plan.stdout).map((event) => event.type)).toEqual(["system", "user"]);
    expect((await kit.run({ scenario: "plan-error-text" })).stdout.toString()).toContain(
      "\nT: Named models unavailable",
    );
    expect((await kit.run({ scenario: "usage-limit" })).stderr.toString()).toContain(
      "You've hit your usage limit",
    );
    expect((await kit.run({ scenario: "unauthenticated" })).stdout.toString()).toContain(
      "[unauthenticated]",
    );
    expect(
      (
        await kit.run({ scenario: "unknown-session" }, { args: ["-p", "--resume", "gone"] })
      ).stderr.toString(),
    ).toBe("Error: Chat not found: gone\n");
  });

  it("honours --model: a usage limit or a plan refusal spares Auto and the model it suggests", async ({
    kit,
  }) => {
    const limited = await kit.run(
      { scenario: "usage-limit:gpt-5-mini" },
      { args: ["-p", "--model", "gpt-5"] },
    );
    expect(limited.status).toBe(1);
    const lines = limited.stderr.toString().split("\n");
    expect(lines[0]).toBe("Error: You've hit your usage limit");
    expect(lines).toContain("  fallbackModel: gpt-5-mini");
    expect(limited.stderr.toString()).toMatch(
      /Your usage limits will reset when your monthly cycle ends on \d{1,2}\/\d{1,2}\/\d{4}\.\*/,
    );
    for (const model of ["auto", "gpt-5-mini"]) {
      const fine = await kit.run(
        { scenario: "usage-limit:gpt-5-mini" },
        { args: ["-p", "-m", model] },
      );
      expect(fine.status).toBe(0);
      expect(events(fine.stdout)[0]?.data.model).toBe(model === "auto" ? "Auto" : model);
    }
    expect(
      (await kit.run({ scenario: "plan-error" }, { args: ["-p", "--model", "auto"] })).status,
    ).toBe(0);
    const unknown = await kit.run({ scenario: "unknown-model" }, { args: ["-p", "-m", "gpt-9"] });
    expect(unknown.status).toBe(1);
    expect(unknown.stdout.length).toBe(0);
    expect(unknown.stderr.toString()).toMatch(
      /^Cannot use this model: gpt-9\. Available models: auto/,
    );
    expect(readInvocations(kit.record).map((call) => call.model)).toEqual([
      "gpt-5",
      "auto",
      "gpt-5-mini",
      "auto",
      "gpt-9",
    ]);
  });

  it("fails the first N times across processes, counting in FAKE_AGENT_STATE", async ({ kit }) => {
    const state = join(kit.dir, "state.json");
    // One after another: the count in the state file is what is tested.
    const overloaded: AgentRun[] = [];
    for (let run = 0; run < 3; run += 1) {
      overloaded.push(await kit.run({ scenario: "overloaded:2", state }));
    }
    expect(overloaded.map((result) => result.status)).toEqual([1, 1, 0]);
    expect(overloaded[0]!.stderr.toString()).toContain(
      "Provider Error: We're having trouble connecting to the model provider.",
    );
    expect(events(overloaded[2]!.stdout).at(-1)?.type).toBe("result");
    const limited: Array<number | null> = [];
    for (let run = 0; run < 2; run += 1) {
      limited.push((await kit.run({ scenario: "rate-limited:1", state })).status);
    }
    expect(limited).toEqual([1, 0]);
    const lost = await kit.run({ scenario: "connection-lost:1", state });
    expect(lost.status).toBe(1);
    expect(events(lost.stdout).map((event) => event.type)).toEqual(
      expect.arrayContaining(["connection", "retry"]),
    );
    expect(lost.stderr.toString()).toContain("Connection failed.");
    const missing = await kit.run({ scenario: "overloaded" });
    expect(missing.status).toBe(2);
    expect(missing.stderr.toString()).toContain("needs FAKE_AGENT_STATE");
  });

  it("finishes a session that crashed after a tool call, when resumed, without calling it again", async ({
    kit,
  }) => {
    const crashed = await kit.run({ scenario: "crash-after-tools" });
    expect(crashed.status).toBe(1);
    const stream = events(crashed.stdout);
    expect(stream.filter((event) => event.type === "tool_call")).toHaveLength(2);
    expect(stream.some((event) => event.type === "result")).toBe(false);
    const sessionId = String(stream[0]?.data.session_id);
    const resumed = await kit.run(
      { scenario: "crash-after-tools" },
      { args: ["-p", "--resume", sessionId], input: "go on" },
    );
    expect(resumed.status).toBe(0);
    const after = events(resumed.stdout);
    expect(after.filter((event) => event.type === "tool_call")).toEqual([]);
    expect(after.at(-1)).toMatchObject({ type: "result", data: { session_id: sessionId } });
  });

  it("checks the API key in its environment", async ({ kit }) => {
    const none = await kit.run({ scenario: "needs-key:good" });
    expect(none.status).toBe(1);
    expect(none.stderr.toString()).toContain("Authentication required");
    const wrong = await kit.run({ scenario: "needs-key:good" }, { env: { CURSOR_API_KEY: "bad" } });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr.toString()).toContain("The provided API key is invalid.");
    expect(
      (await kit.run({ scenario: "needs-key:good" }, { env: { CURSOR_API_KEY: "good" } })).status,
    ).toBe(0);
    expect(readInvocations(kit.record).map((call) => call.apiKey)).toEqual([
      undefined,
      "bad",
      "good",
    ]);
  });

  it("announces a protocol version first, 1.0 on Auto", async ({ kit }) => {
    expect(events((await kit.run({ scenario: "protocol:3.1" })).stdout)[0]).toMatchObject({
      type: "protocol",
      data: { data: { version: "3.1" } },
    });
    expect(
      events(
        (await kit.run({ scenario: "protocol:3.1" }, { args: ["-p", "-m", "auto"] })).stdout,
      )[0]?.data,
    ).toEqual({ type: "protocol", data: { version: "1.0" } });
  });

  it("prints garbage: bare text, invalid UTF-8, CRLF and a last line without a newline", async ({
    kit,
  }) => {
    const stdout = (await kit.run({ scenario: "garbage" })).stdout;
    expect(stdout.includes(Buffer.from([0xff, 0xfe]))).toBe(true);
    expect(stdout.toString("latin1")).toContain("\r\n");
    expect(stdout.toString()).toContain("\nT: this is not JSON\n");
    expect(stdout.at(-1)).toBe("}".charCodeAt(0));
  });

  it("writes a huge line and floods stderr on request", async ({ kit }) => {
    const huge = await kit.run({ scenario: "huge-line:3000000" });
    const longest = Math.max(
      ...huge.stdout
        .toString()
        .split("\n")
        .map((text) => text.length),
    );
    expect(longest).toBeGreaterThan(3_000_000);
    const flood = await kit.run({ scenario: "stderr-flood:2000000" });
    expect(flood.stderr.length).toBeGreaterThanOrEqual(2_000_000);
    expect(flood.status).toBe(0);
  });

  it("answers in the requested output format", async ({ kit }) => {
    const json = (
      await kit.run({ scenario: "quick" }, { args: ["-p", "--output-format", "json"] })
    ).stdout.toString();
    expect(json.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(json)).toMatchObject({ type: "result", subtype: "success" });
    const text = (
      await kit.run({ scenario: "quick" }, { args: ["-p", "--output-format", "text"] })
    ).stdout.toString();
    expect(text).toBe("Done: do it\n");
  });

  it("replays a real capture byte for byte, faster by the speed factor", async ({ kit }) => {
    const capture = realCapture("reifying-cursor-hack--parallel-sleep");
    const started = performance.now();
    const result = await kit.run({ scenario: `replay:${capture.path}`, speed: 50 });
    const elapsed = performance.now() - started;
    expect(result.stdout.equals(capture.bytes)).toBe(true);
    const framer = createLineFramer();
    const times = recordedTimeline(framer.push(capture.bytes));
    const recorded = times.at(-1)! - times[0]!;
    expect(elapsed).toBeGreaterThanOrEqual(recorded / 50);
  });

  it("starts descendants that announce their pids", async ({ kit }) => {
    const steps = [
      { type: "spawn", mode: "group" },
      { type: "spawn", mode: "session" },
      { type: "spawn", mode: "daemon" },
    ] as const;
    const result = await kit.run({ scenario: [...steps] });
    expect(result.status).toBe(0);
    const pids = readPids(kit.pidFile);
    expect(pids).toHaveLength(3);
    expect(pids.every(isAlive)).toBe(true);
  });

  it("has every scenario listed in its README", () => {
    expect(scenarioNames).toEqual(
      expect.arrayContaining([
        "normal",
        "quick",
        "idle-hang",
        "tool-hang",
        "linger",
        "abnormal",
        "garbage",
        "huge-line",
        "stderr-flood",
        "descendants",
        "ignore-sigterm",
        "background-hold",
        "partial-output",
        "replay",
      ]),
    );
  });
});
