// The trivial agent of start-up measurements and tests: a shell script that prints a whole
// turn at once and exits, so the time measured is cursor-wrap's, not an agent's Node start.

import { chmodSync, writeFileSync } from "node:fs";
import { agentEvents } from "./agent-events.js";

/**
 * Write an executable `sh` script to `file` that prints a turn (init, one answer, the result,
 * as stream-json lines shaped like the real captures) and exits 0. Returns `file`.
 */
export function writeQuickAgent(file: string, answer = "hi"): string {
  const context = { sessionId: "00000000-0000-4000-8000-000000000001" };
  const lines = [
    agentEvents.init(context),
    agentEvents.assistant(context, answer),
    agentEvents.result(context, answer),
  ].map((event) => JSON.stringify(event));
  // A quoted here-document: the shell expands nothing in it.
  writeFileSync(file, `#!/bin/sh\ncat <<'EOF'\n${lines.join("\n")}\nEOF\n`);
  chmodSync(file, 0o755);
  return file;
}
