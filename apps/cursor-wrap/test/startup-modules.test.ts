// What `--version` and `--help` load: every command's static module graph, so it must hold the
// CLI's parser and flag table only, never the session log (pino), the schemas (zod) or the
// process code. And what `-p` loads for a prompt: the turn's own code, not what only options
// ask for (a turn input's schemas, the report, notifications, the trace). A preloaded script
// lists every CommonJS file Node loaded (the CLI's chunks are CommonJS) when the process exits;
// each chunk's source map names the files it was built from (`../../../packages/logger/src/…`).

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fakeMcpServerBin, writeQuickAgent } from "@cursor-wrap/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { CLI } from "./harness.js";

const work = mkdtempSync(join(tmpdir(), "cursor-wrap-startup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A script to preload that writes the path of every module Node loaded to `list` at exit. */
function preloadRecordingTo(list: string): string {
  const preload = join(work, `preload-${basename(list)}.cjs`);
  writeFileSync(
    preload,
    `process.on("exit", () => {
  require("node:fs").writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n"));
});
`,
  );
  return preload;
}

/** The files a command line loads, and the source files bundled into them. */
function loaded(
  args: string[],
  input = "",
): { files: string[]; sources: string[]; stdout: string } {
  const list = join(work, `loaded-${args.filter((arg) => !arg.includes("/")).join("_")}.txt`);
  const result = spawnSync(
    process.execPath,
    ["--require", preloadRecordingTo(list), CLI, ...args],
    { encoding: "utf8", input },
  );
  expect(result.status, result.stderr).toBe(0);
  const files = readFileSync(list, "utf8").split("\n");
  const sources = files
    .filter((file) => existsSync(`${file}.map`))
    .flatMap(
      (file) => (JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] }).sources,
    );
  return { files, sources, stdout: result.stdout };
}

describe.each([["--version"], ["--help"]])("cursor-wrap %s", (flag) => {
  it("loads the CLI's parser and flag table, not the libraries behind the commands", () => {
    const { files, sources, stdout } = loaded([flag]);
    expect(stdout).toMatch(flag === "--version" ? /^cursor-wrap\/\S+ / : /--idle-timeout/);
    // The hook saw the bundle (else this test would prove nothing).
    expect(files.some((file) => file.endsWith("/dist/cli.cjs"))).toBe(true);
    expect(sources).toContain("../src/options/flags.ts");
    const forbidden = sources.filter(
      (source) =>
        /node_modules\/\.pnpm\/(?:pino|pino-std-serializers|sonic-boom|thread-stream|zod)@/.test(
          source,
        ) ||
        // The packages' defaults and terminalSafe only: `--help` prints the defaults.
        (/\/packages\/[a-z]+\/src\//.test(source) &&
          !/\/src\/(?:defaults|terminal-safe|cursor-wrap-error|backoff|thresholds|levels)\.ts$/.test(
            source,
          ) &&
          // The exit codes --help lists; what reading --on-verdict and --on-verdict-events
          // needs (nothing that sends).
          !/\/packages\/(?:run\/src\/ending|notify\/src\/(?:options|command-words|notify-events|errors))\.ts$/.test(
            source,
          )),
    );
    expect(forbidden).toEqual([]);
  });
});

/** What only an option asks for: a turn input's schemas, the report, notifications, a trace. */
const ONLY_WHEN_ASKED =
  /node_modules\/\.pnpm\/(?:zod|ajv|fast-uri|@opentelemetry\+[a-z-]+)@|\/packages\/(?:report\/src\/|notify\/src\/(?:deliver|notification|notifier)\.ts|otel\/src\/run-trace\.ts|run\/src\/turn-input\.ts|events\/src\/(?:contract-)?schemas\.ts|acp\/|mcp\/)/;

describe("cursor-wrap -p", () => {
  const common = () => [
    "--agent-bin",
    writeQuickAgent(join(work, "agent.sh")),
    "--log-dir",
    join(work, "logs"),
  ];

  it("loads what a prompt turn needs, not what only an option asks for", () => {
    const { sources, stdout } = loaded(["-p", "hi", ...common()]);
    expect(stdout).toContain('"type":"result"');
    // The hook saw the turn's code (else this test would prove nothing).
    expect(sources).toContain("../../../packages/run/src/run-agent.ts");
    expect(sources.filter((source) => ONLY_WHEN_ASKED.test(source))).toEqual([]);
    // A conversation's prompt reader (readline) neither.
    expect(sources).not.toContain("../src/prompt-reader.ts");
  });

  it("loads the turn input's schemas when the turn comes as a turn object", () => {
    const turn = { type: "turn", turnId: "t-1", messages: [{ role: "user", content: "hi" }] };
    const { sources, stdout } = loaded(
      ["-p", "--input-format", "turn", "--output-format", "events", ...common()],
      JSON.stringify(turn),
    );
    expect(stdout).toContain('"turnId":"t-1"');
    expect(sources).toContain("../../../packages/run/src/turn-input.ts");
    expect(sources.some((source) => /node_modules\/\.pnpm\/ajv@/.test(source))).toBe(true);
  });
});

describe("cursor-wrap mcp proxy", () => {
  it("loads the proxy, not the config rewriting, the MCP sessions or the run", () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    };
    const { sources, stdout } = loaded(
      ["mcp", "proxy", "--log-dir", join(work, "logs"), "--", process.execPath, fakeMcpServerBin],
      `${JSON.stringify(initialize)}\n`,
    );
    expect(stdout).toContain('"serverInfo"');
    // The loader saw the proxy (else this test would prove nothing).
    expect(sources).toContain("../../../packages/mcp/src/proxy.ts");
    expect(
      sources.filter(
        (source) =>
          /node_modules\/\.pnpm\/(?:jsonc-parser|diff)@/.test(source) ||
          /\/packages\/mcp\/src\/(?:config|config-file|mcp-session|safe-file|client-configs)\.ts$/.test(
            source,
          ) ||
          // (The run's exit codes and the recovery's defaults are the flag table's, as for --help.)
          /\/packages\/(?:run\/src\/(?!ending)|recovery\/src\/(?!backoff|defaults)|format\/)/.test(
            source,
          ),
      ),
    ).toEqual([]);
  });
});

// The build defines each chunk's exports with their own getters (tsup.config.ts,
// `directExports`): a newer esbuild whose helper reads otherwise leaves the keyed getter, and
// each call across chunks costs again what BENCHMARKS.md's fourteenth round measured.
describe("the built chunks' exports", () => {
  it("are the exports' own getters: live, read-only, one per name", () => {
    const dist = join(CLI, "..", "..", "dist");
    const chunks = readdirSync(dist).filter((name) => name.endsWith(".cjs"));
    const helpers = chunks.flatMap((name) =>
      readFileSync(join(dist, name), "utf8")
        .split("\n")
        .filter((line) => line.startsWith("var __toCommonJS = ")),
    );
    expect(helpers.length).toBeGreaterThan(10);
    expect(new Set(helpers)).toEqual(
      new Set([
        'var __toCommonJS = (mod) => Object.defineProperties(__defProp({}, "__esModule", { value: true }), Object.getOwnPropertyDescriptors(mod));',
      ]),
    );
    const events = chunks.find((name) =>
      readFileSync(join(dist, name), "utf8").includes("createLineFramer: () => createLineFramer"),
    );
    expect(events).toBeDefined();
    const exports = createRequire(import.meta.url)(join(dist, events ?? "")) as Record<
      string,
      unknown
    >;
    const own = Object.getOwnPropertyDescriptor(exports, "createLineFramer");
    expect(typeof own?.get).toBe("function");
    expect(own).toMatchObject({ enumerable: true, configurable: false, set: undefined });
    expect(String(own?.get)).toBe("() => createLineFramer");
    expect(exports.__esModule).toBe(true);
  });
});
