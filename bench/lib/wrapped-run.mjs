// @ts-check
// How the benchmarks run cursor-wrap on a stream: an agent that `exec`s `cat` of a file, and
// the command line of a quiet `cursor-wrap -p` logging to a directory of its own.

import { chmodSync, writeFileSync } from "node:fs";

/**
 * Write a `sh` agent at `path` that prints `file` and exits (through `exec`, so the wrapper's
 * child is `cat` itself); returns `path`.
 * @param {string} path
 * @param {string} file
 */
export function writeCatAgent(path, file) {
  writeFileSync(path, `#!/bin/sh\nexec cat "${file}"\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * Node arguments running `cursor-wrap -p x` (the CLI at `cli`) on `agent`, logging to `logDir`,
 * quiet on stderr, with `extra` flags after.
 * @param {string} cli
 * @param {string} agent
 * @param {string} logDir
 * @param {string[]} extra
 */
export function quietRunArgs(cli, agent, logDir, ...extra) {
  return [
    cli,
    "-p",
    "x",
    "--agent-bin",
    agent,
    "--log-dir",
    logDir,
    "--log-level",
    "silent",
    ...extra,
  ];
}
