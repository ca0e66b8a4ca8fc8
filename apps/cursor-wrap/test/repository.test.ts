// Checks of the repository's own set-up that no other test would notice going wrong.

import { readdirSync, readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** Every `*.ts` file under the workspace's packages and apps, outside dependencies and builds. */
function sourceFiles(directory = root): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) {
      continue;
    }
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts")) files.push(path);
  }
  return files;
}

describe("the test set-up", () => {
  it("passes every variable the tests read from the caller through turbo", () => {
    const turbo = JSON.parse(readFileSync(join(root, "turbo.json"), "utf8")) as {
      globalPassThroughEnv?: string[];
    };
    // Variables tests read to be steered from outside (`SOAK_TURNS=5000 pnpm test`): turbo's
    // strict environment mode drops any that is not listed.
    const read = new Set<string>();
    for (const file of sourceFiles(join(root, "packages")).concat(
      sourceFiles(join(root, "apps")),
    )) {
      const testCode = /\.test\.ts$|__fixtures__|captures\.ts$/.test(file);
      if (!testCode) continue;
      for (const match of readFileSync(file, "utf8").matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) {
        read.add(match[1]!);
      }
    }
    // Variables the tests set for themselves or that every shell has.
    for (const own of ["NO_COLOR", "TMPDIR", "CURSOR_WRAP_TEST_HOME"]) read.delete(own);
    expect([...read].sort()).toEqual([...(turbo.globalPassThroughEnv ?? [])].sort());
  });

  it("runs with a home directory of its own, never the real ~/.cursor-wrap", () => {
    expect(process.env.CURSOR_WRAP_TEST_HOME).toBeDefined();
    expect(homedir()).toBe(process.env.CURSOR_WRAP_TEST_HOME);
    expect(homedir().startsWith(tmpdir())).toBe(true);
  });
});
