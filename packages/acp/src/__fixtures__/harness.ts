// An editor and agents in memory around one proxy, for tests of its logic under fake timers:
// the editor and each agent process are a pair of streams, the agents' tree samples are set
// by the test, and every record the proxy writes is kept.

import { PassThrough } from "node:stream";
import type { TreeSample } from "@cursor-wrap/supervisor";
import type { AcpAgentHandle, AgentExit } from "../agent-process.js";
import { type AcpProxy, type AcpProxyOptions, startAcpProxy } from "../proxy.js";
import type { AcpRecordName } from "../records.js";

/** A parsed line, with its bytes. */
export interface Line {
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test messages are read field by field.
  message: any;
}

/** One side of a connection as a test drives it: lines in, lines out. */
export interface Peer {
  /** Every line received so far. */
  readonly lines: Line[];
  /** Send a message (as one line). */
  send(message: object): void;
  /** Send bytes as they are. */
  sendRaw(text: string | Buffer): void;
  /** Messages received so far that match. */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  find(predicate: (message: any) => boolean): any[];
  /** Stop reading what it is sent (a slow reader: its pipe fills), and read again. */
  hold(): void;
  release(): void;
}

function peer(incoming: PassThrough, outgoing: PassThrough): Peer {
  const lines: Line[] = [];
  let pending = "";
  incoming.setEncoding("utf8");
  incoming.on("data", (chunk: string) => {
    pending += chunk;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      const text = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        message = undefined;
      }
      lines.push({ text, message });
    }
  });
  return {
    lines,
    send: (message) => outgoing.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`),
    sendRaw: (text) => outgoing.write(text),
    find: (predicate) =>
      lines
        .map((line) => line.message)
        .filter((message) => message !== undefined && predicate(message)),
    hold: () => incoming.pause(),
    release: () => incoming.resume(),
  };
}

/** One agent process in memory. */
export interface FakeAgent extends Peer {
  readonly handle: AcpAgentHandle;
  /** Reasons it was killed for. */
  readonly kills: string[];
  /** What the next tree samples say (the last one repeats); none: the tree cannot be seen. */
  samples: TreeSample[];
  /** End the process. */
  exit(exit?: AgentExit): void;
  readonly exited: boolean;
  /** Write on its stderr. */
  stderr(text: string): void;
}

function fakeAgent(pid: number): FakeAgent {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const base = peer(stdin, stdout);
  let resolveExit: (exit: AgentExit) => void = () => {};
  const exited = new Promise<AgentExit>((resolve) => {
    resolveExit = resolve;
  });
  let hasExited = false;
  const agent: FakeAgent = {
    ...base,
    kills: [],
    samples: [{ cpuMs: 0, ioBytes: 0, pids: [pid], costMs: 0 }],
    exit(exit = { code: 0, signal: null }) {
      if (hasExited) return;
      hasExited = true;
      stdout.end();
      stderr.end();
      resolveExit(exit);
    },
    get exited() {
      return hasExited;
    },
    stderr: (text) => stderr.write(text),
    handle: {
      pid,
      stdin,
      stdout,
      stderr,
      exited,
      async kill(reason) {
        agent.kills.push(reason);
        agent.exit({ code: null, signal: "SIGTERM" });
        return { steps: [{ signal: "SIGTERM", atMs: 0, pids: [pid] }], survivors: [] };
      },
      sampleTree() {
        return agent.samples.length > 1 ? agent.samples.shift() : agent.samples[0];
      },
    },
  };
  return agent;
}

/** A proxy between an in-memory editor and in-memory agents. */
export interface Harness {
  proxy: AcpProxy;
  editor: Peer;
  /** Every agent process started, in order. */
  agents: FakeAgent[];
  /** The current (last started) agent. */
  readonly agent: FakeAgent;
  records: { name: AcpRecordName; fields: Record<string, unknown> }[];
  /** The records of one name. */
  recorded(name: AcpRecordName): Record<string, unknown>[];
  /** Let streams and promises run (no time passes). */
  settle(): Promise<void>;
  /** Close the editor's end. */
  closeEditor(): void;
}

/** Start a proxy between an in-memory editor and agents; `failStart` makes starting fail. */
export function harness(options: Partial<AcpProxyOptions> & { failStart?: Error } = {}): Harness {
  const editorToProxy = new PassThrough();
  const proxyToEditor = new PassThrough();
  const editor = peer(proxyToEditor, editorToProxy);
  const agents: FakeAgent[] = [];
  const records: Harness["records"] = [];
  const { failStart, ...proxyOptions } = options;
  const proxy = startAcpProxy({
    input: editorToProxy,
    output: proxyToEditor,
    startAgent: async () => {
      if (failStart) throw failStart;
      const agent = fakeAgent(1000 + agents.length);
      agents.push(agent);
      return agent.handle;
    },
    log: { record: (name, fields) => records.push({ name, fields }) },
    now: () => Date.now(),
    ...proxyOptions,
  });
  const settle = async (): Promise<void> => {
    for (let round = 0; round < 5; round += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return {
    proxy,
    editor,
    agents,
    get agent() {
      const last = agents.at(-1);
      if (!last) throw new Error("no agent started");
      return last;
    },
    records,
    recorded: (name) => records.filter((entry) => entry.name === name).map((entry) => entry.fields),
    settle,
    closeEditor: () => editorToProxy.end(),
  };
}
