// The published libraries as a consumer gets them: packed, installed side by side, and loaded
// with require() (CommonJS on Node 20.19+) and import().

import { execFileSync, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const packagesDir = join(root, "packages");
const work = mkdtempSync(join(tmpdir(), "cursor-wrap-packed-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** pnpm, as the test run was started with it (`npm_execpath`), else from PATH. */
function pnpm(args: string[], cwd: string): string {
  const execPath = process.env.npm_execpath;
  return execPath && /pnpm/.test(execPath)
    ? execFileSync(process.execPath, [execPath, ...args], { cwd, encoding: "utf8" })
    : execFileSync("pnpm", args, { cwd, encoding: "utf8" });
}

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
}

describe("the published libraries", () => {
  it("pack with a licence and load with require() (Node 20.19+) and import() from a consumer's node_modules", {
    // Packs every package: past two minutes with the load average at 30.
    timeout: 300_000,
  }, () => {
    const names: string[] = [];
    const modules = join(work, "node_modules");
    const published: Array<{ dir: string; manifest: Manifest & { version: string } }> = [];
    for (const name of readdirSync(packagesDir)) {
      const dir = join(packagesDir, name);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest & {
        version: string;
      };
      if (!manifest.private) published.push({ dir, manifest });
    }
    // One pnpm for every package: a start of pnpm costs more than packing one of them.
    const packed = join(work, "packed");
    pnpm(
      [
        "--recursive",
        ...published.flatMap(({ manifest }) => ["--filter", manifest.name]),
        "pack",
        "--pack-destination",
        packed,
      ],
      root,
    );
    expect(readdirSync(packed)).toHaveLength(published.length);
    for (const { dir, manifest } of published) {
      names.push(manifest.name);
      // pnpm's name for it: the scope without its @, joined by a dash.
      const tarball = join(
        packed,
        `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`,
      );
      const listing = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" });
      expect(listing, manifest.name).toContain("package/LICENSE");
      const target = join(modules, manifest.name);
      mkdirSync(target, { recursive: true });
      execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"]);
      // Registry dependencies come from this workspace's install, by their real path.
      for (const dependency of Object.keys(manifest.dependencies ?? {})) {
        if (dependency.startsWith("@cursor-wrap/")) continue;
        const link = join(modules, dependency);
        mkdirSync(join(link, ".."), { recursive: true });
        try {
          symlinkSync(realpathSync(join(dir, "node_modules", dependency)), link);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
      }
    }
    expect(names.length).toBeGreaterThanOrEqual(7);
    const script = `
      const names = ${JSON.stringify(names)};
      for (const name of names) {
        const required = require(name);
        if (Object.keys(required).length === 0) throw new Error(name + " exports nothing to require()");
      }
      Promise.all(names.map((name) => import(name))).then((loaded) => {
        for (const [index, module] of loaded.entries())
          if (Object.keys(module).length === 0) throw new Error(names[index] + " exports nothing to import()");
        console.log("loaded " + names.length);
      });
    `;
    // The README promises require() from Node 20.19 on: this run proves it on this Node, which
    // must be one the promise covers (package.json's engines say the same).
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    expect(major > 20 || (major === 20 && minor >= 19), process.version).toBe(true);
    const output = execFileSync(process.execPath, ["-e", script], { cwd: work, encoding: "utf8" });
    expect(output.trim()).toBe(`loaded ${names.length}`);
  });
});

describe("the CLI, packed with what it needs", () => {
  it("installs from its tarballs alone (npm, offline, empty cache) and runs the demo", {
    timeout: 180_000,
  }, () => {
    const packed = join(work, "cli-packed");
    const said = execFileSync(
      process.execPath,
      [join(root, "scripts", "pack-cli.mjs"), "--out", packed],
      { cwd: work, encoding: "utf8" },
    );
    // The command it prints installs every tarball at once.
    const install = said.trim().split("\n").at(-1)!.trim().split(" ");
    expect(install.slice(0, 3)).toEqual(["npm", "install", "--global"]);
    const tarballs = install.slice(3);
    expect(tarballs.map((path) => basename(path)).sort()).toEqual(
      readdirSync(packed)
        .filter((file) => file.endsWith(".tgz"))
        .sort(),
    );
    expect(tarballs).toContain(`./${relative(work, join(packed, "cursor-wrap-0.0.0.tgz"))}`);

    // An empty project and an empty npm cache, offline: nothing may come from a registry but
    // the optional pty package, which npm then leaves out.
    // With a manifest of its own, or npm would install into the first directory above it that
    // has one or a node_modules.
    const project = join(work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{ "name": "project", "private": true }\n');
    // As a user's shell would run it: without the npm_* settings of the package manager that
    // runs these tests (npm_config_local_prefix would install into this repository).
    const npmEnv: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)),
    );
    npmEnv.npm_config_cache = join(work, "npm-cache");
    execFileSync(
      "npm",
      [
        "install",
        "--offline",
        "--no-audit",
        "--no-fund",
        ...tarballs.map((path) => join(work, path)),
      ],
      { cwd: project, env: npmEnv, encoding: "utf8", stdio: "pipe" },
    );
    const bin = join(project, "node_modules", ".bin", "cursor-wrap");
    expect(execFileSync(bin, ["--version"], { encoding: "utf8" })).toMatch(
      /^cursor-wrap\/0\.0\.0 /,
    );
    // The demo runs from the CLI's own files alone: its fake agent and MCP server are built in.
    const demo = spawnSync(bin, ["demo"], { encoding: "utf8", timeout: 150_000 });
    expect(demo.status).toBe(0);
    expect(demo.stdout).toContain("Hang detected");
  });
});
