import { readFileSync } from "node:fs";
import { defineConfig, type Options } from "tsup";

const { version } = JSON.parse(
  readFileSync(new URL("./package.json", import.meta.url), "utf8"),
) as { version: string };

// Bundled CommonJS code (pino) calls require() through esbuild's shim, which looks for a
// `require` in its own module's scope: the banner gives the ESM bundle one.
const REQUIRE_BANNER =
  'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);';

/**
 * Keeps the banner only in the chunk that holds the shim (`typeof require !== "undefined"`):
 * `createRequire` in each of the 25 chunks a run loads cost several milliseconds of start-up
 * (P6, BENCHMARKS.md). The line is emptied, not removed, so the source maps stay right.
 */
const requireOnlyWhereUsed: NonNullable<Options["plugins"]>[number] = {
  name: "require-only-where-used",
  renderChunk(code) {
    if (!code.startsWith(REQUIRE_BANNER) || code.includes('typeof require !== "undefined"')) return;
    return { code: code.slice(REQUIRE_BANNER.length) };
  },
};

// One bundle (plus lazily loaded chunks per command) so start-up reads a handful of files
// instead of resolving every package: measured in BENCHMARKS.md (P6).
export default defineConfig({
  // The demo's fake agent and MCP server are built in too (executables the demo runs), so the
  // published CLI needs no test kit.
  entry: {
    cli: "src/cli.ts",
    "demo-agent": "src/demo/demo-agent.ts",
    "demo-mcp-server": "src/demo/demo-mcp-server.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  sourcemap: true,
  clean: true,
  dts: false,
  // Everything is bundled except the optional native pty packages (loaded lazily when --pty is
  // used).
  noExternal: [/^(?!@lydell\/node-pty$|node-pty$).*/],
  external: ["@lydell/node-pty", "node-pty"],
  banner: { js: REQUIRE_BANNER },
  plugins: [requireOnlyWhereUsed],
  define: { CURSOR_WRAP_VERSION: JSON.stringify(version) },
});
