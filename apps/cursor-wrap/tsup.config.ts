import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(
  readFileSync(new URL("./package.json", import.meta.url), "utf8"),
) as { version: string };

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
  // Bundled CommonJS code (pino) calls require(): give the ESM bundle one.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
  define: { CURSOR_WRAP_VERSION: JSON.stringify(version) },
});
