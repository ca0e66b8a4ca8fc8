import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import type { AgentEvent } from "@cursor-wrap/events";
import { describe, expect, it } from "vitest";
import { pumpStdout, relayStderr } from "./agent-output.js";

/** A stdout whose reader is behind until `drain()`, and which can fail. */
function slowSink() {
  const sink = Object.assign(new EventEmitter(), { writableNeedDrain: true });
  return sink;
}

function pump(sink: ReturnType<typeof slowSink>) {
  const source = new PassThrough();
  const forwarded: boolean[] = [];
  const seen: string[] = [];
  let pauses = 0;
  let resumes = 0;
  const running = pumpStdout({
    source,
    sink,
    parseCap: 1024,
    onEvents(events: AgentEvent[], forward: boolean) {
      for (const event of events) {
        seen.push(event.line.toString());
        forwarded.push(forward);
      }
    },
    onPause: () => (pauses += 1),
    onResume: () => (resumes += 1),
  });
  return { source, running, forwarded, seen, counts: () => ({ pauses, resumes }) };
}

describe("pumpStdout", () => {
  it("holds the agent back while the reader is behind, and lets it go on drain", () => {
    const sink = slowSink();
    const { source, counts } = pump(sink);
    source.write("a\n");
    expect(source.isPaused()).toBe(true);
    expect(counts()).toEqual({ pauses: 1, resumes: 0 });
    sink.writableNeedDrain = false;
    sink.emit("drain");
    expect(source.isPaused()).toBe(false);
    expect(counts()).toEqual({ pauses: 1, resumes: 1 });
  });

  it.each(["error", "close"])("stops waiting for a drain once stdout emits %s", (event) => {
    const sink = slowSink();
    const { source, counts } = pump(sink);
    source.write("a\n");
    sink.emit(event, new Error("write ENOSPC"));
    expect(source.isPaused()).toBe(false);
    expect(counts().resumes).toBe(1);
    // A failed stdout never drains: the agent is not held back again.
    source.write("b\n");
    expect(source.isPaused()).toBe(false);
  });

  it("released for a kill, reads on and forwards only what the reader has room for", () => {
    const sink = slowSink();
    const { source, running, forwarded, seen } = pump(sink);
    source.write("first\n");
    running.release();
    expect(source.isPaused()).toBe(false);
    source.write("second\n");
    sink.writableNeedDrain = false;
    source.write("third\n");
    running.end();
    expect(seen).toEqual(["first", "second", "third"]);
    // From the first chunk with no room on, nothing more is forwarded: no gaps mid-stream.
    expect(forwarded).toEqual([true, false, false]);
    expect(running.droppedBytes).toBe("second\nthird\n".length);
  });
});

describe("relayStderr", () => {
  it("logs every line, shows a chunk with one write, counts lines while stderr is behind", () => {
    const source = new PassThrough();
    const logged: string[] = [];
    const shown: string[] = [];
    const show = {
      writableNeedDrain: false,
      write(text: string) {
        shown.push(text);
      },
    };
    const relay = relayStderr({
      source,
      log: { stderrAll: (events) => logged.push(...events.map((event) => event.line.toString())) },
      show,
      mode: "errors",
      onLine() {},
      onChunk() {},
    });
    source.write("one\n");
    show.writableNeedDrain = true;
    source.write("two\nthree\n");
    show.writableNeedDrain = false;
    source.write("four\n");
    relay.end();
    expect(logged).toEqual(["one", "two", "three", "four"]);
    expect(shown).toEqual([
      "one\n",
      "cursor-wrap: 2 lines of agent stderr not shown (stderr was behind); all are in the log\nfour\n",
    ]);
    expect(relay.notShownLines).toBe(2);
  });

  it("shows JSON lines only with --stderr all, and nothing with none", () => {
    for (const [mode, expected] of [
      ["all", ['{"type":"x"}\ntext\n']],
      ["errors", ["text\n"]],
      ["none", []],
    ] as const) {
      const source = new PassThrough();
      const shown: string[] = [];
      const relay = relayStderr({
        source,
        log: { stderrAll() {} },
        show: { write: (text: string) => shown.push(text) },
        mode,
        onLine() {},
        onChunk() {},
      });
      source.write('{"type":"x"}\ntext\n');
      relay.end();
      expect(shown).toEqual(expected);
    }
  });
});
