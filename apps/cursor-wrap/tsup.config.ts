import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { transform } from "esbuild";
import { defineConfig, type Options } from "tsup";

const { version } = JSON.parse(
  readFileSync(new URL("./package.json", import.meta.url), "utf8"),
) as { version: string };

// What a chunk that reads `import.meta.url` gets instead once it is CommonJS.
const IMPORT_META_URL = "__cursorWrapImportMetaUrl";

/**
 * Turns every chunk esbuild split out into CommonJS (`.cjs`), keeping the split: a command still loads only its own chunks. Why CommonJS: Node 20 can reuse V8's
 * compiled code between runs only for scripts it compiles itself (`vm.Script` with cached data,
 * see src/compile-cache.ts), never for ES modules; Node 22 caches both
 * (`module.enableCompileCache`). The code keeps its syntax (esbuild, not tsup's experimental
 * CommonJS splitting, whose sucrase pass rewrites every `?.` and `??` into helper calls on the
 * per-event path). Start-up measured in BENCHMARKS.md (P6).
 */
const commonJsChunks: NonNullable<Options["plugins"]>[number] = {
  name: "commonjs-chunks",
  async renderChunk(code, info) {
    const usesImportMetaUrl = code.includes("import.meta.url");
    const result = await transform(code, {
      format: "cjs",
      platform: "node",
      target: "node20",
      // `import()` of a chunk becomes `require()`: what the compile cache compiles is all
      // CommonJS.
      supported: { "dynamic-import": false },
      sourcemap: "external",
      sourcefile: info.path,
      define: usesImportMetaUrl ? { "import.meta.url": IMPORT_META_URL } : {},
      banner: usesImportMetaUrl
        ? `const ${IMPORT_META_URL} = require("node:url").pathToFileURL(__filename).href;`
        : "",
      logLevel: "error",
    });
    return { code: directExports(result.code), map: result.map };
  },
};

/**
 * esbuild's `__toCommonJS` gives a chunk's `module.exports` a getter per export that reads the
 * export by name (`() => from[key]`): one function shared by every name, so each call from
 * another chunk (a few per agent line: the parse, the redaction and the monitor live in
 * different chunks) goes through a keyed load V8 cannot cache. Defining each export with its
 * own getter instead (`() => createLineFramer`, one per name, as `__export` made it) keeps the same
 * live, read-only, enumerable export: 1.4% fewer instructions for the stream part of a run
 * (BENCHMARKS.md, fourteenth round). Only `__toCommonJS` changes (`__toESM` of a bundled
 * CommonJS package still reads it live), on a line of its own, so the source map holds. A
 * build whose helper reads otherwise is left as it is; test/startup-modules.test.ts notices.
 */
const KEYED_EXPORTS =
  'var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);';
const OWN_GETTER_EXPORTS =
  'var __toCommonJS = (mod) => Object.defineProperties(__defProp({}, "__esModule", { value: true }), Object.getOwnPropertyDescriptors(mod));';

function directExports(code: string): string {
  return code.replace(KEYED_EXPORTS, OWN_GETTER_EXPORTS);
}

/**
 * The lines the CommonJS pass adds map to the chunk itself, named by its absolute path in the
 * merged source map: named by its file name instead, so the published maps hold no build path.
 * (Runs after `commonJsChunks`, whose map tsup has merged by then.)
 */
const relativeMapSources: NonNullable<Options["plugins"]>[number] = {
  name: "relative-map-sources",
  renderChunk(_code, info) {
    const map = typeof info.map === "string" ? JSON.parse(info.map) : info.map;
    if (map === undefined || map === null || !Array.isArray(map.sources)) return;
    map.sources = map.sources.map((source: string) =>
      source === info.path ? basename(source) : source,
    );
    info.map = map;
  },
};

// One bundle (plus lazily loaded chunks per command) so start-up reads a handful of files
// instead of resolving every package: measured in BENCHMARKS.md (P6).
export default defineConfig({
  // The demo's fake agent and MCP server are built in too (executables the demo runs), so the
  // published CLI needs no test kit. The compile cache is its own file: the launcher loads it
  // before anything it caches.
  entry: {
    cli: "src/cli.ts",
    "compile-cache": "src/compile-cache.ts",
    "demo-agent": "src/demo/demo-agent.ts",
    "demo-mcp-server": "src/demo/demo-mcp-server.ts",
  },
  outExtension: () => ({ js: ".cjs" }),
  // Split as ES modules, then each chunk turned into CommonJS (above).
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
  plugins: [commonJsChunks, relativeMapSources],
  define: { CURSOR_WRAP_VERSION: JSON.stringify(version) },
});
