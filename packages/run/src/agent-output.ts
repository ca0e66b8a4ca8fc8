import type { Readable } from "node:stream";
import { type AgentEvent, createLineFramer, instant, terminalSafe } from "@cursor-wrap/events";
import type { SessionLog } from "@cursor-wrap/logger";
import { LARGE_LINE_BYTES } from "./free-forwarded-buffers.js";

/** How much of the agent's stderr is shown: all of it, non-JSON lines only, or nothing. */
export type StderrMode = "all" | "errors" | "none";

/** The wrapper's stdout, as far as backpressure is concerned. */
export interface DrainableOutput {
  writableNeedDrain?: boolean;
  on(event: "drain" | "error" | "close", listener: () => void): unknown;
  off(event: "drain" | "error" | "close", listener: () => void): unknown;
}

/** Options for {@link pumpStdout}. */
export interface StdoutPumpOptions {
  /** The agent's stdout. */
  source: Readable;
  /** The wrapper's stdout: while its reader is slow, the agent's stdout is paused. */
  sink: DrainableOutput;
  parseCap: number;
  /**
   * The events of one chunk, in order: log and observe them, and forward them unless
   * `forward` is false (a released pump whose reader is still behind drops the rest).
   */
  onEvents(events: AgentEvent[], forward: boolean): void;
  /** The agent's output is held up by a slow reader of ours, which is not the agent's silence. */
  onPause(): void;
  /** The reader caught up (or will never: see {@link Pump.release}). */
  onResume(): void;
  /**
   * Told the bytes of each chunk once it is forwarded, and those of its large lines: frees
   * their buffers as they go (see `createBufferFreer`). None: V8 frees them when it sees fit.
   */
  freeBuffers?: (bytes: number, largeBytes: number) => void;
}

/** A running pump. */
export interface Pump {
  /** Bytes read but not forwarded, because the pump was released while its reader was behind. */
  readonly droppedBytes: number;
  /**
   * Stop holding the agent's output back for our reader, for good: the agent is being killed
   * and its last output must be read for it to be reaped. Also done when our stdout fails.
   */
  release(): void;
  /** Deliver a last line without a terminator, and detach. */
  end(): void;
}

/**
 * Frame the agent's stdout into events, a chunk at a time. A slow reader of the wrapper's
 * stdout blocks the agent, as it would without the wrapper: the agent's stdout is paused
 * until ours drains, fails or closes, or the pump is released. Released (the agent is being
 * killed), it reads on so that the agent can be reaped and the log gets every byte; what
 * the reader has no room for from then on is not forwarded, so memory stays bounded.
 */
export function pumpStdout(options: StdoutPumpOptions): Pump {
  const { source, sink, freeBuffers } = options;
  const framer = createLineFramer({ parseCap: options.parseCap });
  let paused = false;
  let released = false;
  let dropping = false;
  let droppedBytes = 0;
  const flow = (): void => {
    sink.off("drain", flow);
    sink.off("error", release);
    sink.off("close", release);
    if (!paused) return;
    paused = false;
    source.resume();
    options.onResume();
  };
  const release = (): void => {
    released = true;
    flow();
  };
  /** Frame a chunk and hand its events on; the bytes of its large lines. */
  const handOn = (chunk: Buffer): number => {
    const events = framer.push(chunk, instant());
    options.onEvents(events, !dropping);
    let largeBytes = 0;
    if (freeBuffers === undefined) return largeBytes;
    for (const event of events) {
      if (event.kind === "json" && event.raw.length >= LARGE_LINE_BYTES)
        largeBytes += event.raw.length;
    }
    return largeBytes;
  };
  const onData = (chunk: Buffer): void => {
    if (released && sink.writableNeedDrain) dropping = true;
    if (dropping) droppedBytes += chunk.length;
    // The chunk's events are out of reach once `handOn` returns, so a collection `freeBuffers`
    // makes frees this chunk's large line too, not only the ones before it.
    const largeBytes = handOn(chunk);
    freeBuffers?.(chunk.length, largeBytes);
    if (sink.writableNeedDrain && !paused && !released) {
      paused = true;
      options.onPause();
      source.pause();
      sink.on("drain", flow);
      sink.on("error", release);
      sink.on("close", release);
    }
  };
  source.on("data", onData);
  return {
    get droppedBytes() {
      return droppedBytes;
    },
    release,
    end() {
      release();
      options.onEvents(framer.end(), !dropping);
      source.off("data", onData);
    },
  };
}

/** Bytes of a stderr line framed at once: a longer line is logged (and shown) in pieces. */
const STDERR_PIECE_BYTES = 64 * 1024;

/** Where agent stderr is shown: the wrapper's stderr, whose reader may be slow. */
export interface StderrShow {
  write(text: string): unknown;
  /** True while the stream's buffer is full: lines are then counted, not queued. */
  readonly writableNeedDrain?: boolean;
}

/** Options for {@link relayStderr}. */
export interface StderrRelayOptions {
  /** The agent's stderr (none with a pty). */
  source: Readable | undefined;
  log: Pick<SessionLog, "stderrAll">;
  /** The wrapper's stderr. */
  show: StderrShow;
  mode: StderrMode;
  /**
   * A line arrived: JSON events (the agent's mirror of its stream) count as activity, and an
   * error event among them may name a failure; other text may explain one.
   */
  onLine(line: { json: boolean; text: string; event: AgentEvent }): void;
  /** A chunk was handled. */
  onChunk(): void;
}

/**
 * Read the agent's stderr a chunk at a time (R-SUP4): every line is logged, byte for byte, with
 * one write per chunk; JSON lines (cursor-agent mirrors its events there) are shown only with
 * `--stderr all`, other lines unless `none`. The agent is never held up by the wrapper's
 * stderr: while its reader is behind, lines are counted instead of queued (so memory stays
 * bounded by the stream's buffer), and a line says how many were not shown.
 */
export function relayStderr(
  options: StderrRelayOptions,
): Pump & { readonly notShownLines: number } {
  const framer = createLineFramer({ parseCap: STDERR_PIECE_BYTES });
  const { show, mode } = options;
  let notShown = 0;
  let notShownLines = 0;
  const notShownLine = (): string => {
    const line = `cursor-wrap: ${notShown} line${notShown === 1 ? "" : "s"} of agent stderr not shown (stderr was behind); all are in the log\n`;
    notShown = 0;
    return line;
  };
  /** Show a chunk's lines with one write, or count them while the reader is behind. */
  const display = (lines: string[]): void => {
    if (lines.length === 0) return;
    if (show.writableNeedDrain) {
      notShown += lines.length;
      notShownLines += lines.length;
      return;
    }
    // Shown to people: the agent's bytes must not drive their terminal (R-FMT5).
    let text = notShown > 0 ? notShownLine() : "";
    for (const line of lines) text += `${terminalSafe(line)}\n`;
    show.write(text);
  };
  const handle = (events: AgentEvent[]): void => {
    if (events.length === 0) return;
    options.log.stderrAll(events);
    const shown: string[] = [];
    for (const event of events) {
      const json = event.kind === "json";
      const text = event.kind === "oversize" ? event.line.toString("utf8") : event.text;
      options.onLine({ json, text, event });
      if (mode === "all" || (mode === "errors" && !json)) shown.push(text);
    }
    display(shown);
  };
  const onData = (chunk: Buffer): void => {
    handle(framer.push(chunk));
    options.onChunk();
  };
  options.source?.on("data", onData);
  return {
    droppedBytes: 0,
    get notShownLines() {
      return notShownLines;
    },
    release() {},
    end() {
      handle(framer.end());
      options.source?.off("data", onData);
      if (notShown > 0) show.write(notShownLine());
    },
  };
}
