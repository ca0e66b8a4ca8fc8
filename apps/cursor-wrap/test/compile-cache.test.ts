// The compile cache (src/compile-cache.ts), as the launcher uses it: built, in fresh Node
// processes (it takes over Node's CommonJS compile for the files under its root), on small
// CommonJS "chunks" that require one another, then on the CLI itself.

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { STALE_CACHE_MS } from "../src/compile-cache.js";
import { CLI } from "./harness.js";

const COMPILE_CACHE = fileURLToPath(new URL("../dist/compile-cache.cjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "cursor-wrap-compile-cache-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let count = 0;

/** A root with two chunks: `main.cjs` requires `helper.cjs`; each says which code ran. */
function chunks(helperBody = `exports.answer = () => "helper v1";`): {
  root: string;
  cache: string;
} {
  count += 1;
  const root = join(work, `app-${count}`);
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "main.cjs"),
    `"use strict";\nconst helper = require("./helper.cjs");\nexports.run = () => helper.answer();\nexports.fail = () => {\n  throw new Error("from main");\n};\n`,
  );
  writeFileSync(join(root, "helper.cjs"), `"use strict";\n${helperBody}\n`);
  return { root, cache: join(work, `cache-${count}`, "v") };
}

interface Outcome {
  state: { kind: string; directory?: string; reason?: string };
  answer: string;
  stack: string;
}

/** Loads `main.cjs` under the cache in a fresh Node, then prints what ran; `before` runs first. */
function load(
  root: string,
  cache: string,
  { env = {}, before = "" }: { env?: Record<string, string>; before?: string } = {},
): Outcome {
  const script = `
${before}
const state = require(${JSON.stringify(COMPILE_CACHE)}).enableCompileCache({
  root: ${JSON.stringify(root)},
  directory: ${JSON.stringify(cache)},
  nodeCompileCache: undefined,
});
const main = require(${JSON.stringify(join(root, "main.cjs"))});
let stack = "";
try { main.fail(); } catch (error) { stack = error.stack; }
process.stdout.write(JSON.stringify({ state: { ...state, flush: undefined }, answer: main.run(), stack }));
`;
  const result = spawnSync(process.execPath, ["-e", script], {
    encoding: "utf8",
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", ...env },
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Outcome;
}

const cacheFiles = (cache: string): string[] => readdirSync(cache).sort();

describe("the compile cache", () => {
  it("caches each chunk under its root at exit, and reuses the caches on the next run", () => {
    const { root, cache } = chunks();
    const first = load(root, cache);
    expect(first.state).toEqual({ kind: "enabled", directory: cache });
    expect(first.answer).toBe("helper v1");
    const files = cacheFiles(cache);
    expect(files).toHaveLength(2);
    expect(files.filter((file) => file.includes("-main.cjs-"))).toHaveLength(1);
    expect(files.filter((file) => file.includes("-helper.cjs-"))).toHaveLength(1);
    const written = files.map((file) => statSync(join(cache, file)).mtimeMs);

    const second = load(root, cache);
    expect(second.answer).toBe("helper v1");
    // Accepted, so not written again.
    expect(cacheFiles(cache)).toEqual(files);
    expect(files.map((file) => statSync(join(cache, file)).mtimeMs)).toEqual(written);
  });

  it("runs a rewritten chunk's new code, even at the same length, and drops the old cache", () => {
    const { root, cache } = chunks();
    load(root, cache);
    const before = cacheFiles(cache);
    // Same length as "helper v1": V8 alone would take the old cache for it.
    writeFileSync(join(root, "helper.cjs"), `"use strict";\nexports.answer = () => "helper v2";\n`);
    expect(load(root, cache).answer).toBe("helper v2");
    const after = cacheFiles(cache);
    expect(after).toHaveLength(2);
    expect(after.find((file) => file.includes("-main.cjs-"))).toBe(
      before.find((file) => file.includes("-main.cjs-")),
    );
    expect(after.find((file) => file.includes("-helper.cjs-"))).not.toBe(
      before.find((file) => file.includes("-helper.cjs-")),
    );
    expect(load(root, cache).answer).toBe("helper v2");
  });

  it("drops the caches of chunks that are gone (an earlier build), not of another directory's", () => {
    const { root, cache } = chunks();
    const other = chunks();
    load(root, cache);
    load(other.root, cache);
    expect(cacheFiles(cache)).toHaveLength(4);
    // The next build: the helper chunk has another name, and main requires that one.
    rmSync(join(root, "helper.cjs"));
    writeFileSync(
      join(root, "helper-2.cjs"),
      `"use strict";\nexports.answer = () => "helper v3";\n`,
    );
    writeFileSync(
      join(root, "main.cjs"),
      `"use strict";\nconst helper = require("./helper-2.cjs");\nexports.run = () => helper.answer();\nexports.fail = () => {\n  throw new Error("from main");\n};\n`,
    );
    expect(load(root, cache).answer).toBe("helper v3");
    const files = cacheFiles(cache);
    expect(files).toHaveLength(4);
    expect(files.filter((file) => file.includes("-helper.cjs-"))).toHaveLength(1); // the other's
    expect(files.filter((file) => file.includes("-helper-2.cjs-"))).toHaveLength(1);
    expect(files.filter((file) => file.includes("-main.cjs-"))).toHaveLength(2);
  });

  it("drops another directory's caches and a crash's leftovers once no run has written them for 30 days", () => {
    const { root, cache } = chunks();
    const other = chunks();
    load(root, cache);
    // A cache's name begins with a hash of its chunk's directory.
    const ours = `${cacheFiles(cache)[0]!.split("-")[0]}-`;
    load(other.root, cache);
    const theirs = cacheFiles(cache).filter((file) => !file.startsWith(ours));
    expect(theirs).toHaveLength(2);
    // As if written a month ago, by a build or an install gone since; and a crash's leftover.
    const old = (Date.now() - STALE_CACHE_MS - 60_000) / 1000;
    for (const file of theirs) utimesSync(join(cache, file), old, old);
    const leftover = `${theirs[0]}.4242.tmp`;
    writeFileSync(join(cache, leftover), "left by a crash");
    utimesSync(join(cache, leftover), old, old);
    const current = "x-helper.cjs-1-2-3.cache.4343.tmp";
    writeFileSync(join(cache, current), "another run writing now");
    // A run that writes a cache (its helper changed) prunes.
    writeFileSync(join(root, "helper.cjs"), `"use strict";\nexports.answer = () => "helper v4";\n`);
    expect(load(root, cache).answer).toBe("helper v4");
    const after = cacheFiles(cache);
    expect(after.filter((file) => !file.startsWith(ours))).toEqual([current]);
    expect(after.filter((file) => file.startsWith(ours))).toHaveLength(2);
    // The other directory, there after all, caches its chunks again on its next run.
    expect(load(other.root, cache).answer).toBe("helper v1");
    expect(cacheFiles(cache).filter((file) => file.endsWith(".cache"))).toHaveLength(4);
  });

  it("keeps the chunk's own lines and columns in stack traces", () => {
    const { root, cache } = chunks();
    for (const run of [load(root, cache), load(root, cache)]) {
      expect(run.stack).toContain(`${join(root, "main.cjs")}:5:9`);
    }
  });

  it("writes no cache after V8's flags changed (the next run would turn it down)", () => {
    const { root, cache } = chunks();
    load(root, cache, {
      // Changed after the chunks were compiled, as the run's young-generation cap does.
      before: `queueMicrotask(() => require("node:v8").setFlagsFromString("--semi-space-growth-factor=1"));`,
    });
    expect(cacheFiles(cache)).toEqual([]);
  });

  it("does nothing when NODE_DISABLE_COMPILE_CACHE is set, as Node's own cache", () => {
    const { root, cache } = chunks();
    const run = load(root, cache, { env: { NODE_DISABLE_COMPILE_CACHE: "1" } });
    expect(run.state).toEqual({ kind: "disabled", reason: "NODE_DISABLE_COMPILE_CACHE" });
    expect(run.answer).toBe("helper v1");
    expect(() => readdirSync(cache)).toThrow();
  });

  it("leaves compiling to Node under --enable-source-maps, which maps only what Node compiles", () => {
    const { root, cache } = chunks();
    const run = load(root, cache, { env: { NODE_OPTIONS: "--enable-source-maps" } });
    expect(run.state).toEqual({ kind: "disabled", reason: "--enable-source-maps" });
    expect(run.answer).toBe("helper v1");
  });

  it("uses no directory another user could write to, and the chunks load as without it", () => {
    const { root, cache } = chunks();
    mkdirSync(cache, { recursive: true });
    chmodSync(cache, 0o777);
    const run = load(root, cache);
    expect(run.state.kind).toBe(process.platform === "win32" ? "enabled" : "unavailable");
    expect(run.answer).toBe("helper v1");
    if (process.platform !== "win32") expect(cacheFiles(cache)).toEqual([]);
  });

  it("runs without a cache where none can be made", () => {
    const { root } = chunks();
    const blocker = join(work, `blocker-${count}`);
    writeFileSync(blocker, "a file where the cache's directory would go");
    const run = load(root, join(blocker, "cache"));
    expect(run.state.kind).toBe("unavailable");
    expect(run.state.reason).toMatch(/ENOTDIR|EEXIST/);
    expect(run.answer).toBe("helper v1");
  });

  it("leaves files outside its root to Node", () => {
    const { root, cache } = chunks();
    const other = chunks();
    const script = `
require(${JSON.stringify(COMPILE_CACHE)}).enableCompileCache({ root: ${JSON.stringify(root)}, directory: ${JSON.stringify(cache)}, nodeCompileCache: undefined });
process.stdout.write(require(${JSON.stringify(join(other.root, "main.cjs"))}).run());
`;
    const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(result.stdout).toBe("helper v1");
    expect(cacheFiles(cache)).toEqual([]);
  });

  it("turns on Node's own compile cache where Node has one", () => {
    const script = `
let called = 0;
const state = require(${JSON.stringify(COMPILE_CACHE)}).enableCompileCache({ root: "/", nodeCompileCache: () => { called += 1; } });
process.stdout.write(JSON.stringify({ kind: state.kind, called }));
`;
    const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(JSON.parse(result.stdout)).toEqual({ kind: "node", called: 1 });
  });

  it("caches the CLI's chunks where NODE_COMPILE_CACHE says, and a cached run works the same", () => {
    const dir = join(work, "node-compile-cache");
    const env = { ...process.env, NODE_COMPILE_CACHE: dir, NODE_DISABLE_COMPILE_CACHE: "" };
    const runs = [1, 2].map(() =>
      spawnSync(process.execPath, [CLI, "--version"], { encoding: "utf8", env }),
    );
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    expect(runs[1]?.stdout).toBe(runs[0]?.stdout);
    expect(runs[0]?.stdout).toMatch(/^cursor-wrap\/\S+ /);
    // Node 22.1+ keeps its own files there; before, this cache keeps one per chunk loaded.
    const hasNodeCache =
      typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";
    const ours = join(dir, "cursor-wrap", `${process.version}-${process.arch}`);
    const files = readdirSync(hasNodeCache ? dir : ours);
    expect(files.length).toBeGreaterThan(0);
    if (!hasNodeCache) expect(files.some((file) => file.includes("-cli.cjs-"))).toBe(true);
  });
});
