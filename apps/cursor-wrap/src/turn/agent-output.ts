import type { Readable } from "node:stream";
import { type AgentEvent, createLineFramer, instant, terminalSafe } from "@cursor-wrap/events";
import type { SessionLog } from "@cursor-wrap/logger";
import type { StderrMode } from "../options/run-options.js";
import { createBufferFreer } from "./free-forwarded-buffers.js";

/** Frees forwarded output buffers as the bytes go by (one per process, across turns). */
const freeForwardedBuffers = createBufferFreer();

/** The wrapper's stdout, as far as backpressure is concerned. */
export interface DrainableOutput {
  writableNeedDrain?: boolean;
  once(event: "drain", listener: () => void): unknown;
}

/** Options for {@link pumpStdout}. */
export interface StdoutPumpOptions {
  /** The agent's stdout. */
  source: Readable;
  /** The wrapper's stdout: while its reader is slow, the agent's stdout is paused. */
  sink: DrainableOutput;
  parseCap: number;
  /** The events of one chunk, in order (log, forward, observe them). */
  onEvents(events: AgentEvent[]): void;
  /** The agent's output is held up by a slow reader of ours, which is not the agent's silence. */
  onPause(): void;
  /** The reader caught up. */
  onResume(): void;
}

/** A running pump; `end()` delivers a last line without a terminator and detaches. */
export interface Pump {
  end(): void;
}

/**
 * Frame the agent's stdout into events, a chunk at a time. A slow reader of the wrapper's
 * stdout blocks the agent, as it would without the wrapper: the agent's stdout is paused
 * until ours drains.
 */
export function pumpStdout(options: StdoutPumpOptions): Pump {
  const { source, sink } = options;
  const framer = createLineFramer({ parseCap: options.parseCap });
  let paused = false;
  const onData = (chunk: Buffer): void => {
    options.onEvents(framer.push(chunk, instant()));
    freeForwardedBuffers(chunk.length);
    if (sink.writableNeedDrain && !paused) {
      paused = true;
      options.onPause();
      source.pause();
      sink.once("drain", () => {
        paused = false;
        source.resume();
        options.onResume();
      });
    }
  };
  source.on("data", onData);
  return {
    end() {
      options.onEvents(framer.end());
      source.off("data", onData);
    },
  };
}

/** Options for {@link relayStderr}. */
export interface StderrRelayOptions {
  /** The agent's stderr (none with a pty). */
  source: Readable | undefined;
  log: Pick<SessionLog, "stderr">;
  /** The wrapper's stderr. */
  show: { write(text: string): unknown };
  mode: StderrMode;
  /** A line arrived: JSON events count as activity only; other text may explain a failure. */
  onLine(line: { json: boolean; text: string }): void;
  /** A chunk was handled. */
  onChunk(): void;
}

/**
 * Read the agent's stderr line by line (R-SUP4): every line is logged; JSON lines (cursor-agent
 * mirrors its events there) are shown only with `--stderr all`, other lines unless `none`.
 */
export function relayStderr(options: StderrRelayOptions): Pump {
  const framer = createLineFramer({ parseCap: 64 * 1024 });
  const onLine = (event: AgentEvent): void => {
    options.log.stderr(event.line);
    const text = event.kind === "oversize" ? event.line.toString("utf8") : event.text;
    if (event.kind === "json") {
      options.onLine({ json: true, text });
      if (options.mode === "all") options.show.write(`${terminalSafe(text)}\n`);
      return;
    }
    options.onLine({ json: false, text });
    // Shown to people: the agent's bytes must not drive their terminal (R-FMT5).
    if (options.mode !== "none") options.show.write(`${terminalSafe(text)}\n`);
  };
  const onData = (chunk: Buffer): void => {
    for (const event of framer.push(chunk)) onLine(event);
    options.onChunk();
  };
  options.source?.on("data", onData);
  return {
    end() {
      for (const event of framer.end()) onLine(event);
      options.source?.off("data", onData);
    },
  };
}
