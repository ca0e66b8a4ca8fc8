// @ts-check
// The real-shaped stream: every real capture in fixtures/real, line for line, repeated until the
// stream reaches the size asked for, each repetition with fresh call ids (so every tool call is
// a new one, as in a long session). Result lines are left out of the repetitions and one result
// ends the stream, so the whole stream is one turn.

import { closeSync, openSync, writeSync } from "node:fs";
import { realCaptures } from "@cursor-wrap/fixtures";

/**
 * Write the real-shaped stream to `file`; returns its size, events and tool calls.
 * @param {string} file
 * @param {{ bytes?: number }} [options]
 */
export function writeRealShapedStream(file, { bytes = 100_000_000 } = {}) {
  const lines = [];
  let result;
  for (const capture of realCaptures()) {
    for (const line of capture.bytes.toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      const event = JSON.parse(line);
      if (event.type === "result") result ??= line;
      else lines.push(line);
    }
  }
  if (!result) throw new Error("no result line in the real captures");
  const fd = openSync(file, "w");
  let written = 0;
  let events = 0;
  let toolCalls = 0;
  for (let round = 0; written < bytes; round += 1) {
    const chunk = [];
    for (const line of lines) {
      // Fresh ids per repetition: call ids (and the toolCallId some tools carry) get a suffix.
      const fresh = line.replace(
        /"(call_id|toolCallId)":"([^"]*)"/g,
        (_match, key, id) => `"${key}":"${id}-r${round}"`,
      );
      if (fresh.includes('"subtype":"started"') && fresh.includes('"type":"tool_call"'))
        toolCalls += 1;
      chunk.push(fresh);
      events += 1;
    }
    const text = `${chunk.join("\n")}\n`;
    written += writeSync(fd, text);
  }
  written += writeSync(fd, `${result}\n`);
  events += 1;
  closeSync(fd);
  return { bytes: written, events, toolCalls };
}
