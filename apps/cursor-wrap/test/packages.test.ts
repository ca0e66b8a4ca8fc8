// The published libraries as a consumer gets them: packed, installed side by side, and loaded
// with require() (CommonJS on Node 20.19+) and import().

import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  it("pack with a licence and load with require() and import() from a consumer's node_modules", {
    timeout: 120_000,
  }, () => {
    const names: string[] = [];
    const modules = join(work, "node_modules");
    for (const name of readdirSync(packagesDir)) {
      const dir = join(packagesDir, name);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
      if (manifest.private) continue;
      names.push(manifest.name);
      const packed = join(work, "packed", name);
      mkdirSync(packed, { recursive: true });
      pnpm(["pack", "--pack-destination", packed], dir);
      const [tarball] = readdirSync(packed);
      const listing = execFileSync("tar", ["-tzf", join(packed, tarball!)], { encoding: "utf8" });
      expect(listing, manifest.name).toContain("package/LICENSE");
      const target = join(modules, manifest.name);
      mkdirSync(target, { recursive: true });
      execFileSync("tar", ["-xzf", join(packed, tarball!), "-C", target, "--strip-components=1"]);
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
    const output = execFileSync(process.execPath, ["-e", script], { cwd: work, encoding: "utf8" });
    expect(output.trim()).toBe(`loaded ${names.length}`);
  });
});
