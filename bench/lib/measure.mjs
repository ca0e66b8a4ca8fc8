// @ts-check
// Small measuring helpers: percentiles, process sampling through /proc, timed runs.

import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** The p-th percentile (0..100) of numbers, nearest rank. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Median and spread (min–max) of a sample. */
export function summary(values) {
  return {
    median: percentile(values, 50),
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

/** Run a command to the end, stdout to `stdout` (fd or "pipe"); returns wall time in ms. */
export function timed(command, args, { env = {}, stdout = "ignore", input } = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, {
    stdio: [input === undefined ? "ignore" : "pipe", stdout, "pipe"],
    env: { ...process.env, ...env },
    input,
    maxBuffer: 1 << 30,
  });
  const elapsed = performance.now() - started;
  if (result.status === null || result.error) {
    throw new Error(
      `${command} ${args.join(" ")} failed: ${result.error?.message ?? result.signal} ${result.stderr}`,
    );
  }
  return {
    elapsed,
    status: result.status,
    stdout: result.stdout,
    stderr: String(result.stderr ?? ""),
  };
}

/** Clock ticks per second for /proc times. */
export const CLOCK_TICKS =
  Number(spawnSync("getconf", ["CLK_TCK"]).stdout?.toString().trim()) || 100;

/** CPU time (ms) used so far by a process, from /proc/<pid>/stat. */
export function cpuTimeMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Context switches (wake-ups) of all threads of a process so far. */
export function contextSwitches(pid) {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${task}/status`, "latin1");
    for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm))
      total += Number(match[1]);
  }
  return total;
}

/** Peak resident set size (VmHWM, bytes) of a process so far. */
export function peakRss(pid) {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Start a process and sample its peak RSS until it exits; resolves with the highest value seen. */
export function runSamplingPeakRss(
  command,
  args,
  { env = {}, stdout = "ignore", everyMs = 10 } = {},
) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", stdout, "pipe"],
      env: { ...process.env, ...env },
    });
    let peak = 0;
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setInterval(() => {
      try {
        peak = Math.max(peak, peakRss(child.pid));
      } catch {
        // exited between two samples
      }
    }, everyMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearInterval(timer);
      if (code !== 0) reject(new Error(`${command} exited ${code}: ${stderr}`));
      else resolve(peak);
    });
  });
}
