// What `--version` and `--help` load: every command's static module graph, so it must hold the
// CLI's parser and flag table only, never the session log (pino), the schemas (zod) or the
// process code. A loader hook records every module Node loads; the bundle's chunks still name
// the files they were built from (`// ../../packages/logger/dist/session-log.js`).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CLI } from "./harness.js";

const work = mkdtempSync(join(tmpdir(), "cursor-wrap-startup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A loader hook that appends the URL of every module Node loads to `list`. */
function hookRecordingTo(list: string): string {
  const hooks = join(work, `hooks-${basename(list)}.mjs`);
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, nextLoad) {
  appendFileSync(${JSON.stringify(list)}, url + "\\n");
  return nextLoad(url, context);
}
`,
  );
  const register = join(work, `register-${basename(list)}.mjs`);
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  return register;
}

/** The files a command line loads, and the source files bundled into them. */
function loaded(args: string[]): { files: string[]; sources: string[]; stdout: string } {
  const list = join(work, `loaded-${args.join("_")}.txt`);
  const result = spawnSync(process.execPath, ["--import", hookRecordingTo(list), CLI, ...args], {
    encoding: "utf8",
  });
  expect(result.status).toBe(0);
  const files = readFileSync(list, "utf8")
    .split("\n")
    .filter((url) => url.startsWith("file:"))
    .map((url) => fileURLToPath(url));
  const sources = files.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/^\/\/ (\S+\.[cm]?[jt]s)$/gm)].map(
      (match) => match[1]!,
    ),
  );
  return { files, sources, stdout: result.stdout };
}

describe.each([["--version"], ["--help"]])("cursor-wrap %s", (flag) => {
  it("loads the CLI's parser and flag table, not the libraries behind the commands", () => {
    const { files, sources, stdout } = loaded([flag]);
    expect(stdout).toMatch(flag === "--version" ? /^cursor-wrap\/\S+ / : /--idle-timeout/);
    // The hook saw the bundle (else this test would prove nothing).
    expect(files.some((file) => file.endsWith("/dist/cli.js"))).toBe(true);
    expect(sources).toContain("src/options/flags.ts");
    const forbidden = sources.filter(
      (source) =>
        /node_modules\/\.pnpm\/(?:pino|pino-std-serializers|sonic-boom|thread-stream|zod)@/.test(
          source,
        ) ||
        // The packages' defaults and terminalSafe only: `--help` prints the defaults.
        (/\/packages\/[a-z]+\/dist\//.test(source) &&
          !/\/dist\/(?:defaults|terminal-safe|cursor-wrap-error|backoff|thresholds|levels)\.js$/.test(
            source,
          ) &&
          // The exit codes --help lists; what reading --on-verdict and --on-verdict-events
          // needs (nothing that sends).
          !/\/packages\/(?:run\/dist\/ending|notify\/dist\/(?:options|command-words|notify-events|errors))\.js$/.test(
            source,
          )),
    );
    expect(forbidden).toEqual([]);
  });
});
