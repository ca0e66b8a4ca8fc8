// @ts-check
// Builds realistic cursor-agent streams for the benchmarks, from the shapes of the real
// captures in fixtures/real: thinking-delta floods, assistant messages, shell calls
// with their completions, and large readToolCall results.

import { closeSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { realCapture } from "@cursor-wrap/fixtures";

/** A small deterministic PRNG (mulberry32), so every run benchmarks the same bytes. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Event templates taken from a real capture. */
function templates() {
  const lines = realCapture("reifying-cursor-hack--direct-sleep")
    .bytes.toString("utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const find = (predicate) => structuredClone(lines.find(predicate));
  return {
    init: find((event) => event.type === "system"),
    user: find((event) => event.type === "user"),
    delta: find((event) => event.type === "thinking" && event.subtype === "delta"),
    thinkingDone: find((event) => event.type === "thinking" && event.subtype === "completed"),
    message: find((event) => event.type === "assistant" && event.model_call_id),
    started: find((event) => event.type === "tool_call" && event.subtype === "started"),
    completed: find((event) => event.type === "tool_call" && event.subtype === "completed"),
    final: find((event) => event.type === "assistant" && !event.model_call_id),
    result: find((event) => event.type === "result"),
  };
}

const SOURCE_LINE =
  "  const result = await runTurn(context, { prompt, resume: sessionId, signal: controller.signal });\n";

/**
 * Real files, as an agent reads them: TypeScript's DOM declarations (CSS properties such as
 * `mask-image`, `mask-border`) and turbo's documentation (`task-graph`, `task-level`), from
 * the repository's own dev dependencies. Everyday text like this contains `sk-` without
 * being a secret, which is what makes it worth benchmarking.
 */
let corpus;
export function realSourceCorpus() {
  if (corpus) return corpus;
  const require = createRequire(resolve(import.meta.dirname, "..", "..", "package.json"));
  const dom = readFileSync(require.resolve("typescript/lib/lib.dom.d.ts"), "utf8");
  const docs = join(dirname(require.resolve("turbo/package.json")), "docs");
  const pages = readdirSync(docs, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".mdx"))
    .sort()
    .map((name) => readFileSync(join(docs, name), "utf8"));
  corpus = [dom, ...pages].join("\n");
  return corpus;
}

/** `size` characters of file content: a repeated source line, or real files from `offset` on. */
function fileContent(size, real, offset) {
  if (!real) return SOURCE_LINE.repeat(Math.ceil(size / SOURCE_LINE.length)).slice(0, size);
  const text = realSourceCorpus();
  let content = "";
  for (let at = offset % text.length; content.length < size; at = 0)
    content += text.slice(at, at + size - content.length);
  return content;
}

/** A readToolCall completion whose file content is about `size` bytes, as cursor-agent prints it. */
function readResult(template, callId, size, real = false, offset = 0) {
  const content = fileContent(size, real, offset);
  return {
    type: "tool_call",
    subtype: "completed",
    call_id: callId,
    tool_call: {
      readToolCall: {
        args: { path: "src/session.ts" },
        result: {
          success: {
            content,
            isEmpty: false,
            exceededLimit: false,
            totalLines: content.split("\n").length,
            fileSize: size,
            path: "src/session.ts",
          },
        },
      },
    },
    model_call_id: template.model_call_id,
    session_id: template.session_id,
    timestamp_ms: template.timestamp_ms,
  };
}

/**
 * Write a realistic stream to `path`: `smallEvents` small events (thinking-delta floods,
 * messages, shell calls) with `largeResults` read results of 100 KB–5 MB spread among them
 * (sizes log-uniform), plus an optional single line of `hugeLine` bytes. With `realSources`
 * the results hold real files (see {@link realSourceCorpus}) instead of a repeated line.
 * @returns {{ bytes: number, events: number, largeBytes: number }}
 */
export function writeRealisticStream(
  path,
  {
    smallEvents = 200_000,
    largeResults = 60,
    minLarge = 100 * 1024,
    maxLarge = 5 * 1024 * 1024,
    hugeLine = 0,
    realSources = false,
    seed = 7,
  } = {},
) {
  const t = templates();
  const next = random(seed);
  const fd = openSync(path, "w");
  let bytes = 0;
  let events = 0;
  let largeBytes = 0;
  let pending = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    writeSync(fd, pending.join(""));
    pending = [];
    pendingBytes = 0;
  };
  const emit = (event) => {
    const line = `${typeof event === "string" ? event : JSON.stringify(event)}\n`;
    bytes += Buffer.byteLength(line);
    events += 1;
    pending.push(line);
    pendingBytes += line.length;
    if (pendingBytes > 1 << 20) flush();
    return line.length;
  };
  emit(t.init);
  emit(t.user);
  const largeEvery =
    largeResults > 0 ? Math.floor(smallEvents / largeResults) : Number.POSITIVE_INFINITY;
  let small = 0;
  let call = 0;
  let hugeWritten = hugeLine === 0;
  while (small < smallEvents) {
    // A thinking flood, a message, then a tool call: the rhythm of the real sessions.
    const flood = 20 + Math.floor(next() * 60);
    for (let index = 0; index < flood && small < smallEvents; index += 1, small += 1) {
      t.delta.text = next() < 0.3 ? "" : " token";
      emit(t.delta);
      if (small % largeEvery === largeEvery - 1 && largeBytes < largeResults * maxLarge) {
        const size = Math.round(minLarge * (maxLarge / minLarge) ** next());
        largeBytes += size;
        call += 1;
        const read = readResult(
          t.completed,
          `tool_read_${call}`,
          size,
          realSources,
          Math.floor(next() * 1e9),
        );
        emit({
          ...read,
          subtype: "started",
          tool_call: { readToolCall: { args: { path: "src/session.ts" } } },
        });
        emit(read);
      }
    }
    emit(t.thinkingDone);
    emit(t.message);
    call += 1;
    const callId = `call_${call}\nfc_${call.toString(16).padStart(40, "0")}`;
    t.started.call_id = callId;
    t.completed.call_id = callId;
    emit(t.started);
    emit(t.completed);
    small += 4;
    if (!hugeWritten && small > smallEvents / 2) {
      flush();
      // One line of `hugeLine` bytes, written in pieces: the generator never holds it whole.
      const head =
        '{"type":"tool_call","subtype":"completed","call_id":"huge","tool_call":{"readToolCall":{"args":{"path":"dump.log"},"result":{"success":{"content":"';
      const tail = '"}}}},"session_id":"bench"}\n';
      writeSync(fd, head);
      const piece = Buffer.alloc(1 << 20, "x");
      for (let written = 0; written < hugeLine; written += piece.length)
        writeSync(fd, piece.subarray(0, Math.min(piece.length, hugeLine - written)));
      writeSync(fd, tail);
      bytes += head.length + hugeLine + tail.length;
      events += 1;
      hugeWritten = true;
    }
  }
  emit(t.final);
  emit(t.result);
  flush();
  closeSync(fd);
  return { bytes, events, largeBytes };
}
