// @ts-check
// Counting instructions with valgrind's callgrind (bench/instructions.mjs,
// bench/mcp-instructions.mjs): how a run is started under it, and where its count is read.

import { spawnSync } from "node:child_process";

/**
 * The command line before a Node script's own arguments: callgrind, user space, no output file,
 * V8 made deterministic (`--predictable`). Run it without the compile cache
 * ({@link NO_COMPILE_CACHE}): whether a run finds one would move its start-up by a fifth.
 * @param {string[]} [valgrindArgs] more of valgrind's own options (`--log-file=…`)
 */
export function callgrindNode(valgrindArgs = []) {
  return [
    "valgrind",
    [
      "--tool=callgrind",
      "--callgrind-out-file=/dev/null",
      ...valgrindArgs,
      process.execPath,
      "--predictable",
    ],
  ];
}

/** The environment a counted run gets on top of its own. */
export const NO_COMPILE_CACHE = { NODE_DISABLE_COMPILE_CACHE: "1" };

/**
 * The instruction count in valgrind's report.
 * @param {string} report
 * @param {string} where what the report came from, for the error
 */
export function instructionsIn(report, where) {
  const match = /I\s+refs:\s+([\d,]+)/.exec(report);
  if (!match) throw new Error(`no instruction count in ${where}`);
  return Number(match[1].replaceAll(",", ""));
}

/** Exit with a message when valgrind is not installed. */
export function requireValgrind() {
  if (spawnSync("valgrind", ["--version"]).status === 0) return;
  process.stderr.write("valgrind is not installed: nothing measured\n");
  process.exit(1);
}
