import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CursorWrapError } from "@cursor-wrap/errors";
import {
  type FakeAgentOptions,
  fakeAgentBin,
  fakeAgentEnv,
  isAlive,
  readInvocations,
  readPids,
  type Step,
} from "@cursor-wrap/testkit";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentSpawnError } from "./errors.js";
import { loadPty } from "./load-pty.js";
import { type AgentProcess, type StartOptions, start } from "./start.js";

let dir: string;
let record: string;
let pidFile: string;
const allPidFiles: string[] = [];
const started: AgentProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "supervisor-test-"));
  record = join(dir, "invocations.jsonl");
  pidFile = join(dir, "pids");
  allPidFiles.push(pidFile);
});

afterEach(async () => {
  // Whatever a test left running is killed here, so a failure cannot leak processes.
  await Promise.all(started.splice(0).map((agent) => agent.kill("test cleanup")));
  for (const pid of readPids(pidFile)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

afterAll(() => {
  const survivors = allPidFiles.flatMap(readPids).filter(isAlive);
  expect(survivors).toEqual([]);
});

async function run(
  scenario: FakeAgentOptions["scenario"],
  options: Partial<StartOptions> = {},
): Promise<AgentProcess> {
  const agent = await start({
    bin: fakeAgentBin,
    args: ["--print", "--output-format", "stream-json", "--force"],
    prompt: "do the thing",
    env: {
      ...process.env,
      ...fakeAgentEnv({ scenario, record, pidFile, descendantTtlMs: 60_000 }),
    },
    killGraceMs: 500,
    drainGraceMs: 300,
    ...options,
  });
  started.push(agent);
  return agent;
}

/** Collect a stream's bytes until it ends or is destroyed. */
function collect(stream: NodeJS.ReadableStream | undefined): Promise<Buffer> {
  return new Promise((resolve) => {
    if (!stream) return resolve(Buffer.alloc(0));
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("close", () => resolve(Buffer.concat(chunks)));
  });
}

/** Resolves once `count` pids are in the pid file (descendants announce themselves). */
async function pidsWritten(count: number): Promise<number[]> {
  for (;;) {
    const pids = readPids(pidFile);
    if (pids.length >= count) return pids;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function linesUntil(agent: AgentProcess, text: string): Promise<void> {
  let seen = "";
  await new Promise<void>((resolve) => {
    agent.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
    });
  });
}

describe("start", () => {
  it("writes the prompt to stdin and closes it, and reports the exit code", async () => {
    const agent = await run("quick");
    const output = collect(agent.stdout);
    expect(await agent.closed).toEqual({ code: 0, signal: null });
    expect((await output).toString()).toContain('"type":"result"');
    const [invocation] = readInvocations(record);
    expect(invocation).toMatchObject({
      stdin: "do the thing",
      prompt: "do the thing",
      stdinIsTTY: false,
      argv: ["--print", "--output-format", "stream-json", "--force"],
    });
    // Its own process group, and the run's token in its environment.
    expect(invocation?.pgid).toBe(agent.pid);
    expect(invocation?.token).toMatch(/^[0-9a-z]+(?:-[0-9a-z]+){3}$/);
  });

  it("reports an abnormal exit code", async () => {
    const agent = await run("abnormal:3");
    collect(agent.stdout);
    const stderr = collect(agent.stderr);
    expect(await agent.exited).toEqual({ code: 3, signal: null });
    expect((await stderr).toString()).toBe("Error: stream closed unexpectedly\n");
  });

  it("rejects a missing binary with a typed error naming it, and no flag of a CLI", async () => {
    const error = await start({ bin: "cursor-agent-that-does-not-exist", prompt: "x" }).catch(
      (caught) => caught,
    );
    expect(error).toBeInstanceOf(AgentSpawnError);
    expect(CursorWrapError.hasCode(error, "AGENT_SPAWN_FAILED")).toBe(true);
    expect(error).toMatchObject({ bin: "cursor-agent-that-does-not-exist", reason: "ENOENT" });
    expect(error.message).toBe(
      'cannot start "cursor-agent-that-does-not-exist": not found on PATH',
    );
    const missingPath = await start({ bin: join(dir, "nope"), prompt: "x" }).catch(
      (caught) => caught,
    );
    expect(missingPath).toMatchObject({ bin: join(dir, "nope"), reason: "ENOENT" });
    expect(missingPath.message).toBe(
      `cannot start ${JSON.stringify(join(dir, "nope"))}: no such file`,
    );
  });

  it("rejects a binary that is not executable", async () => {
    const file = join(dir, "agent");
    writeFileSync(file, "#!/bin/sh\necho hi\n");
    chmodSync(file, 0o644);
    const error = await start({ bin: file, prompt: "x" }).catch((caught) => caught);
    expect(error).toMatchObject({ code: "AGENT_SPAWN_FAILED", reason: "EACCES" });
    expect(error.message).toBe(`cannot start ${JSON.stringify(file)}: ${file} is not executable`);
  });

  it("says a missing working directory is one, and a directory given as the binary is one", async () => {
    const file = join(dir, "agent-ok");
    writeFileSync(file, "#!/bin/sh\necho hi\n");
    chmodSync(file, 0o755);
    const noCwd = await start({ bin: file, prompt: "x", cwd: join(dir, "no-such-dir") }).catch(
      (caught) => caught,
    );
    expect(noCwd).toMatchObject({ code: "AGENT_SPAWN_FAILED", reason: "ENOENT" });
    expect(noCwd.message).toBe(
      `cannot start ${JSON.stringify(file)}: its working directory ${join(dir, "no-such-dir")} does not exist`,
    );
    const underFile = await start({ bin: file, prompt: "x", cwd: join(file, "x") }).catch(
      (caught) => caught,
    );
    expect(underFile.message).toBe(
      `cannot start ${JSON.stringify(file)}: its working directory ${join(file, "x")} does not exist (a part of its path is a file)`,
    );
    const fileCwd = await start({ bin: file, prompt: "x", cwd: file }).catch((caught) => caught);
    expect(fileCwd.message).toBe(
      `cannot start ${JSON.stringify(file)}: its working directory ${file} is not a directory`,
    );
    const directory = await start({ bin: dir, prompt: "x" }).catch((caught) => caught);
    expect(directory).toMatchObject({ reason: "EISDIR" });
    expect(directory.message).toBe(
      `cannot start ${JSON.stringify(dir)}: is a directory, not a program`,
    );
  });

  it("drains 10 MB of stderr written before any stdout without stalling the agent", async () => {
    const agent = await run("stderr-flood:10485760");
    const stdout = collect(agent.stdout);
    // Nobody reads stderr here: the supervisor still drains the pipe, so the agent finishes.
    expect(await agent.closed).toEqual({ code: 0, signal: null });
    expect((await stdout).toString()).toContain('"type":"result"');
    const stderr = await collect(agent.stderr);
    expect(stderr.length).toBeGreaterThanOrEqual(10 * 1024 * 1024);
  });

  it("ends the turn drainGrace after the exit when a descendant holds stdout open", async () => {
    const agent = await run("background-hold", { drainGraceMs: 300 });
    const stdout = collect(agent.stdout);
    await agent.exited;
    const exitedAt = performance.now();
    expect(await agent.closed).toEqual({ code: 0, signal: null });
    expect(performance.now() - exitedAt).toBeGreaterThanOrEqual(290);
    expect((await stdout).toString()).toContain('"type":"result"');
    // The descendant is the user's business after a normal exit: still alive.
    const [holder] = readPids(pidFile);
    expect(isAlive(holder!)).toBe(true);
  });

  it("leaves background descendants alone after a normal exit", async () => {
    const steps: Step[] = [
      { type: "spawn", mode: "group" },
      { type: "line", value: { type: "result" } },
    ];
    const agent = await run(steps);
    collect(agent.stdout);
    await agent.closed;
    const [background] = readPids(pidFile);
    const report = await agent.kill("after exit");
    expect(report).toMatchObject({ alreadyExited: true, steps: [], code: 0 });
    expect(isAlive(background!)).toBe(true);
  });
});

describe("kill", () => {
  it("kills every descendant: in the group, after setsid, daemonized, and one ignoring SIGTERM", async () => {
    const agent = await run("descendants");
    collect(agent.stdout);
    const pids = await pidsWritten(3);
    expect(pids.every(isAlive)).toBe(true);
    const report = await agent.kill("hang");
    expect(report.reason).toBe("hang");
    expect(report.signal).toBe("SIGTERM"); // the agent itself went at once
    expect(report.steps.map((step) => step.signal)).toEqual(["SIGTERM", "SIGKILL"]);
    expect(report.steps[0]!.pids).toEqual(expect.arrayContaining([agent.pid, ...pids]));
    expect(report.steps[1]!.atMs).toBeGreaterThanOrEqual(500);
    expect(report.survivors).toEqual([]);
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it("finds descendants hidden from the token and the group, and those spawned while dying", async () => {
    const agent = await run("hard-descendants");
    collect(agent.stdout);
    const pids = await pidsWritten(2);
    expect(pids.every(isAlive)).toBe(true);
    const report = await agent.kill("hang");
    // The SIGTERM handler of one started another: three of them in all, none left.
    const all = readPids(pidFile);
    expect(all.length).toBeGreaterThanOrEqual(3);
    await expect.poll(() => all.filter(isAlive), { timeout: 10_000 }).toEqual([]);
    expect(report.survivors).toEqual([]);
  });

  it("SIGKILLs an agent that ignores SIGTERM after killGraceMs", async () => {
    const agent = await run("ignore-sigterm", { killGraceMs: 400 });
    await linesUntil(agent, "thinking");
    const report = await agent.kill("idle hang");
    expect(report).toMatchObject({
      code: null,
      signal: "SIGKILL",
      alreadyExited: false,
      survivors: [],
    });
    expect(report.steps.map((step) => step.signal)).toEqual(["SIGTERM", "SIGKILL"]);
    expect(report.steps[1]!.atMs).toBeGreaterThanOrEqual(400);
    expect(report.durationMs).toBeGreaterThanOrEqual(400);
  });

  it("stops at SIGTERM when everything exits in time, and is idempotent", async () => {
    // A grace no loaded machine runs out of: the kill ends as soon as the tree is gone.
    const agent = await run("idle-hang", { killGraceMs: 30_000 });
    await linesUntil(agent, "thinking");
    const first = agent.kill("hang");
    const second = agent.kill("again");
    expect(second).toBe(first);
    const report = await first;
    expect(report).toMatchObject({ signal: "SIGTERM", reason: "hang" });
    expect(report.steps.map((step) => step.signal)).toEqual(["SIGTERM"]);
    expect(await agent.closed).toEqual({ code: null, signal: "SIGTERM" });
  });

  it("reports each step to the logger as it happens", async () => {
    const logged: Array<[string, Record<string, unknown>]> = [];
    const logger = {
      info: (fields: Record<string, unknown>, message: string) => logged.push([message, fields]),
      warn: (fields: Record<string, unknown>, message: string) => logged.push([message, fields]),
    };
    const agent = await run("idle-hang", { logger, killGraceMs: 30_000 });
    await linesUntil(agent, "thinking");
    await agent.kill("hang");
    expect(logged).toEqual([
      ["kill_step", expect.objectContaining({ signal: "SIGTERM", reason: "hang" })],
    ]);
  });

  it("kills the tree synchronously with killSync", async () => {
    const agent = await run("descendants");
    collect(agent.stdout);
    const pids = await pidsWritten(3);
    agent.killSync();
    expect(await agent.exited).toEqual({ code: null, signal: "SIGKILL" });
    await expect.poll(() => pids.filter(isAlive), { timeout: 20_000 }).toEqual([]);
  });

  it("kills with killSync what the agent left when it has exited already", async () => {
    // The staged kill's SIGTERM ends the agent; the child that ignores it would live out the
    // grace (a minute here). A second Ctrl+C (killSync) must not wait for it.
    const logged: Array<[string, Record<string, unknown>]> = [];
    const logger = {
      info: (fields: Record<string, unknown>, message: string) => logged.push([message, fields]),
      warn: (fields: Record<string, unknown>, message: string) => logged.push([message, fields]),
    };
    const agent = await run("descendants", { killGraceMs: 60_000, logger });
    collect(agent.stdout);
    const pids = await pidsWritten(3);
    const staged = agent.kill("cancelled");
    expect(await agent.exited).toEqual({ code: null, signal: "SIGTERM" });
    expect(pids.filter(isAlive)).not.toEqual([]);
    agent.killSync();
    await expect.poll(() => pids.filter(isAlive), { timeout: 20_000 }).toEqual([]);
    const report = await staged;
    expect(report.survivors).toEqual([]);
    // The SIGKILL is a stage of the kill like the SIGTERM: logged, and in its report.
    expect(report.steps.map((step) => step.signal)).toEqual(["SIGTERM", "SIGKILL"]);
    expect(logged.map(([message, fields]) => [message, fields.signal])).toEqual([
      ["kill_step", "SIGTERM"],
      ["kill_step", "SIGKILL"],
    ]);
  });

  it("leaves with killSync what the agent started when it exited by itself", async () => {
    const agent = await run("background-hold", { drainGraceMs: 100 });
    collect(agent.stdout);
    const [held] = await pidsWritten(1);
    expect(await agent.exited).toEqual({ code: 0, signal: null });
    // A kill asked for after the exit (a Ctrl+C while its output drains) does nothing, and
    // neither does a second Ctrl+C after it.
    expect(await agent.kill("cancelled")).toMatchObject({ alreadyExited: true });
    agent.killSync();
    try {
      expect(isAlive(held!)).toBe(true);
    } finally {
      process.kill(held!, "SIGKILL");
    }
  });
});

const pty = await loadPty();
if (!pty) {
  console.warn(
    "supervisor pty tests skipped: neither @lydell/node-pty nor node-pty could be loaded here",
  );
}

describe.runIf(pty !== null)("pty mode", () => {
  it("runs the agent on a terminal, with the prompt as its last argument and EOF on stdin", async () => {
    const agent = await run("quick", { pty: { cols: 120, rows: 40 } });
    const output = collect(agent.stdout);
    expect(agent.stderr).toBeUndefined();
    expect(await agent.closed).toEqual({ code: 0, signal: null });
    const text = (await output).toString();
    expect(text).toContain('"type":"result"');
    expect(text).toContain("\r\n"); // the terminal's line endings, left for the framer
    expect(text).not.toContain("\u001b");
    expect(readInvocations(record)[0]).toMatchObject({
      stdinIsTTY: true,
      prompt: "do the thing",
      argv: ["--print", "--output-format", "stream-json", "--force", "do the thing"],
    });
  });

  it("reads everything an agent wrote before it exited, up to the last byte", async () => {
    // 50 KB written at once and an exit: the terminal hangs up with much of it unread, which
    // node-pty's stream took for its end (lines lost in most runs). Several runs: it is a race.
    const script = join(dir, "burst.sh");
    const line = `{"type":"assistant","text":"${"é".repeat(100)}${"x".repeat(140)}"}`;
    writeFileSync(join(dir, "burst.jsonl"), `${`${line}\n`.repeat(199)}{"type":"result"}\n`);
    writeFileSync(script, `#!/bin/sh\ncat "${join(dir, "burst.jsonl")}"\n`);
    chmodSync(script, 0o755);
    for (let round = 0; round < 5; round += 1) {
      const agent = await start({
        bin: script,
        prompt: "x",
        env: process.env,
        killGraceMs: 500,
        pty: true,
      });
      started.push(agent);
      const output = collect(agent.stdout);
      expect(await agent.closed).toEqual({ code: 0, signal: null });
      const lines = (await output).toString().split("\r\n");
      expect(lines.filter((text) => text === line)).toHaveLength(199);
      expect(lines.at(-2)).toBe('{"type":"result"}');
    }
  });

  it("kills the tree of an agent on a terminal", async () => {
    const agent = await run("descendants", { pty: true });
    collect(agent.stdout);
    const pids = await pidsWritten(3);
    const report = await agent.kill("hang");
    expect(report.survivors).toEqual([]);
    expect(pids.filter(isAlive)).toEqual([]);
  });
});
