import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(
  readFileSync(new URL("./package.json", import.meta.url), "utf8"),
) as { version: string };

// One bundle (plus lazily loaded chunks per command) so start-up reads a handful of files
// instead of resolving every package: measured in BENCHMARKS.md (P6).
export default defineConfig({
  entry: { cli: "src/cli.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  sourcemap: true,
  clean: true,
  dts: false,
  // Everything is bundled except the optional native pty packages (loaded lazily when --pty is
  // used) and the test kit, whose fake agent executable must stay a file of its own.
  noExternal: [/^(?!@lydell\/node-pty$|node-pty$|@cursor-wrap\/testkit$).*/],
  external: ["@lydell/node-pty", "node-pty", "@cursor-wrap/testkit"],
  // Bundled CommonJS code (pino) calls require(): give the ESM bundle one.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
  },
  define: { CURSOR_WRAP_VERSION: JSON.stringify(version) },
});
