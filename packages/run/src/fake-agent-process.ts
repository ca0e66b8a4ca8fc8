// An in-process stand-in for a started agent: stdout and stderr are PassThrough streams the
// test writes to, and the test decides when (and how) the process exits.

import { PassThrough } from "node:stream";
import type {
  AgentProcess,
  ExitInfo,
  KillReport,
  StartOptions,
  TreeSample,
} from "@cursor-wrap/supervisor";

/** A fake agent and the handles a test drives it with. */
export interface FakeAgent {
  process: AgentProcess;
  /** The options it was started with. */
  started: StartOptions | undefined;
  /** Resolves once it has been started. */
  whenStarted: Promise<void>;
  /** Write stdout bytes (a line needs its own `\n`). */
  stdout(text: string | Buffer): void;
  stderr(text: string | Buffer): void;
  /** End the output and exit. */
  exit(info?: ExitInfo): void;
  /** Reasons `kill()` was called with. */
  kills: string[];
  /** `kill()` makes the agent exit at once (like a tree that goes on SIGTERM); false leaves it running. */
  diesOnKill: boolean;
  /** What the next `sampleTree()` calls report, in order (the last one repeats); none: unavailable. */
  samples: TreeSample[];
}

/** Create a fake agent; `start` is what `TurnContext.start` takes. */
export function fakeAgentProcess(): FakeAgent & {
  start(options: StartOptions): Promise<AgentProcess>;
} {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let exitInfo: ExitInfo | undefined;
  let resolveExit: (info: ExitInfo) => void = () => {};
  const exited = new Promise<ExitInfo>((resolve) => {
    resolveExit = resolve;
  });
  const ended = (stream: PassThrough): Promise<void> =>
    stream.readableEnded
      ? Promise.resolve()
      : new Promise((resolve) => stream.once("end", () => resolve()));
  const closed = exited.then(async (info) => {
    await Promise.all([ended(stdout), ended(stderr)]);
    return info;
  });
  let killRequested = false;
  let resolveStarted: () => void = () => {};
  const whenStarted = new Promise<void>((resolve) => {
    resolveStarted = resolve;
  });
  const fake: FakeAgent & { start(options: StartOptions): Promise<AgentProcess> } = {
    started: undefined,
    whenStarted,
    kills: [],
    diesOnKill: true,
    samples: [],
    stdout: (text) => stdout.write(text),
    stderr: (text) => stderr.write(text),
    exit(info = { code: 0, signal: null }) {
      if (exitInfo) return;
      exitInfo = info;
      stdout.end();
      stderr.end();
      resolveExit(info);
    },
    process: {
      sampleTree() {
        return fake.samples.length > 1 ? fake.samples.shift() : fake.samples[0];
      },
      pid: 4242,
      token: "fake-token",
      stdout,
      stderr,
      exited,
      closed,
      get exitInfo() {
        return exitInfo;
      },
      get killRequested() {
        return killRequested;
      },
      kill(reason = "killed"): Promise<KillReport> {
        killRequested = true;
        fake.kills.push(reason);
        const alreadyExited = exitInfo !== undefined;
        if (fake.diesOnKill) fake.exit({ code: null, signal: "SIGTERM" });
        return exited.then((info) => ({
          ...info,
          reason,
          alreadyExited,
          steps: alreadyExited ? [] : [{ signal: "SIGTERM", atMs: 0, pids: [4242] }],
          survivors: [],
          durationMs: 0,
        }));
      },
      killSync() {
        fake.exit({ code: null, signal: "SIGKILL" });
      },
      resize() {},
    },
    async start(options) {
      fake.started = options;
      resolveStarted();
      return fake.process;
    },
  };
  return fake;
}
