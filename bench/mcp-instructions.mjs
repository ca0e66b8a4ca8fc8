#!/usr/bin/env node
// @ts-check
// Instructions per message through `cursor-wrap mcp proxy`, for P7's throughput: the proxy
// run under valgrind (callgrind's instruction count, user space, `node --predictable`, no
// compile cache) between the bench's driver and the fake MCP server, which run natively;
// tools/call round trips with 64 in flight (as bench/mcp.mjs sends them), every message logged.
// Two counts of requests, and the difference per message: start-up and warm-up cancel out.
// The proxy's CPU time per message moves by a fifth on a shared machine; this count by about
// half a percent (how many messages share a read of its input depends on timing).
//
//   node bench/mcp-instructions.mjs
//   BENCH_CLI_B=../other/apps/cursor-wrap/bin/cursor-wrap.js node bench/mcp-instructions.mjs
//
// Needs valgrind; not part of `pnpm bench`. About three minutes (two runs at a time).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  callgrindNode,
  instructionsIn,
  NO_COMPILE_CACHE,
  requireValgrind,
} from "./lib/callgrind.mjs";
import { openServer } from "./lib/mcp-driver.mjs";
import { mcpToolCall } from "./lib/mcp-traffic.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const FEWER = 2_000;
const MORE = Number(process.env.BENCH_MCP_REQUESTS ?? 10_000);

/** Instructions valgrind counted for the proxy (not its server) over `requests` round trips. */
async function proxyInstructions(cli, server, requests, work, name) {
  const log = join(work, `${name}.valgrind`);
  const [valgrind, prefix] = callgrindNode([`--log-file=${log}`]);
  const session = await openServer(
    valgrind,
    [
      ...prefix,
      cli,
      "mcp",
      "proxy",
      "--server-id",
      "bench",
      "--log-dir",
      join(work, `${name}-logs`),
      "--",
      ...server,
    ],
    { env: NO_COMPILE_CACHE },
  );
  await session.roundTrips(50, mcpToolCall(0));
  await session.concurrent(requests, 64, mcpToolCall(1));
  await session.close();
  return instructionsIn(readFileSync(log, "utf8"), log);
}

requireValgrind();
const { fakeMcpServerBin } = await import("@cursor-wrap/testkit");
const server = [process.execPath, fakeMcpServerBin];
const clis = {
  A: resolve(process.env.BENCH_CLI ?? join(ROOT, "apps", "cursor-wrap", "bin", "cursor-wrap.js")),
};
if (process.env.BENCH_CLI_B) clis.B = resolve(process.env.BENCH_CLI_B);
const work = mkdtempSync(join(tmpdir(), "cursor-wrap-mcp-instructions-"));
try {
  for (const [name, cli] of Object.entries(clis)) {
    const [fewer, more] = await Promise.all([
      proxyInstructions(cli, server, FEWER, work, `${name}-fewer`),
      proxyInstructions(cli, server, MORE, work, `${name}-more`),
    ]);
    const messages = (MORE - FEWER) * 2;
    const perMessage = (more - fewer) / messages;
    process.stdout.write(
      `${name}: ${(perMessage / 1000).toFixed(1)}k instructions per message (${((more - fewer) / 1e6).toFixed(0)}M for ${messages} more; ${(fewer / 1e6).toFixed(0)}M with ${FEWER} round trips, ${(more / 1e6).toFixed(0)}M with ${MORE}) ${cli}\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
