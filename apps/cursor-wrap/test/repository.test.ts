// Checks of the repository's own set-up that no other test would notice going wrong.

import { readdirSync, readFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * Every `*.ts` and `*.js` file under a directory (with `everyFile`, every file but the captures),
 * outside dependencies and builds.
 */
function sourceFiles(directory: string, everyFile = false): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) {
      continue;
    }
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path, everyFile));
    else if (everyFile ? !entry.name.endsWith(".jsonl") : /\.[jt]s$/.test(entry.name)) {
      files.push(path);
    }
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
    for (const file of ["packages", "apps", "fixtures"].flatMap((directory) =>
      sourceFiles(join(root, directory)),
    )) {
      const testCode =
        /\.test\.ts$|__fixtures__/.test(file) || file.startsWith(join(root, "fixtures", ""));
      if (!testCode) continue;
      for (const match of readFileSync(file, "utf8").matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) {
        read.add(match[1]!);
      }
    }
    // Variables the tests set for themselves or that every shell has.
    for (const own of ["NO_COLOR", "TMPDIR", "CURSOR_WRAP_TEST_HOME"]) read.delete(own);
    expect([...read].sort()).toEqual([...(turbo.globalPassThroughEnv ?? [])].sort());
  });

  it("stands on its own: the real captures are in the repository, and nothing reads beside it", () => {
    const captures = readdirSync(join(root, "fixtures", "real"));
    expect(captures).toEqual(expect.arrayContaining(["PROVENANCE.md", "SCHEMA-NOTES.md"]));
    expect(captures.filter((name) => name.endsWith(".jsonl")).length).toBeGreaterThanOrEqual(10);
    // A directory beside the checkout exists on one machine and not in a fresh clone.
    const besideTheCheckout = new RegExp(["\\.\\./", "shared\\b"].join(""));
    const offenders = ["packages", "apps", "fixtures", "bench", ".ci"]
      .flatMap((directory) => sourceFiles(join(root, directory), true))
      .filter((file) => besideTheCheckout.test(readFileSync(file, "utf8")));
    expect(offenders).toEqual([]);
  });

  it("defines in docs/requirements.md every requirement id and section the repository cites", () => {
    const requirements = readFileSync(join(root, "docs", "requirements.md"), "utf8");
    // An id is defined by a bullet that starts with it in bold; a family (`R-LOG`) and a section
    // (`§7b`) by a heading that names them.
    const defined = [...requirements.matchAll(/^- \*\*([A-Z][A-Z0-9-]*[a-z]?)\*\*/gm)].map(
      (match) => match[1]!,
    );
    expect(defined.length).toBe(new Set(defined).size);
    const headings = requirements.split("\n").filter((line) => line.startsWith("## "));
    const families = new Set(headings.flatMap((line) => line.match(/\bR-[A-Z]+\b/g) ?? []));
    const sections = new Set(
      headings.flatMap((line) => line.match(/^## ([0-9]+[a-z]?)\./)?.[1] ?? []),
    );
    const known = new Set([...defined, ...families]);

    const citing = [
      ...["packages", "apps", "fixtures", "bench", "scripts", ".changeset", "docs"].flatMap(
        (directory) => sourceFiles(join(root, directory), true),
      ),
      ...readdirSync(root)
        .filter((name) => name.endsWith(".md"))
        .map((name) => join(root, name)),
    ].filter(
      (file) =>
        // The captures and third-party text quoted in snapshots are not ours to cite from.
        !file.startsWith(join(root, "fixtures", "real", "")) &&
        !file.includes("__snapshots__") &&
        /\.(ts|js|mjs|md|json)$/.test(file),
    );
    expect(citing.length).toBeGreaterThan(100);
    const undefinedIds: string[] = [];
    const undefinedSections: string[] = [];
    const outsideCitations: string[] = [];
    for (const file of citing) {
      const text = readFileSync(file, "utf8");
      const where = file.slice(root.length);
      for (const [id] of text.matchAll(
        /\b(R-[A-Z]+[0-9]*[a-z]?|P[0-9]+|AC[0-9]+|F-[0-9]{3}[a-z]?)\b/g,
      )) {
        if (!known.has(id)) undefinedIds.push(`${where}: ${id}`);
      }
      for (const [, section] of text.matchAll(/requirements\.md §([0-9]+[a-z]?)/g)) {
        if (!sections.has(section!)) undefinedSections.push(`${where}: §${section}`);
      }
      // The specification these rules come from is not in the repository: cite docs/requirements.md.
      if (/\bSPEC\b/.test(text)) outsideCitations.push(where);
    }
    expect(undefinedIds).toEqual([]);
    expect(undefinedSections).toEqual([]);
    expect(outsideCitations).toEqual([]);
  });

  it("lists every source file of the libraries and the CLI in ARCHITECTURE.md, and no file that is gone", () => {
    const architecture = readFileSync(join(root, "ARCHITECTURE.md"), "utf8");
    /** The code block under a heading. */
    const blockAfter = (heading: string): string[] => {
      const start = architecture.indexOf(heading);
      expect(start).toBeGreaterThan(-1);
      const open = architecture.indexOf("```\n", start) + 4;
      return architecture.slice(open, architecture.indexOf("```", open)).split("\n");
    };
    const listed: string[] = [];
    let library = "";
    for (const line of blockAfter("## The libraries, file by file")) {
      const first = /^(\S+)\/\s+(\S+\.ts)\s/.exec(line);
      if (first) library = first[1]!;
      const file = first?.[2] ?? /^\s+(\S+\.ts)\s/.exec(line)?.[1];
      if (file) listed.push(`packages/${library}/src/${file}`);
    }
    for (const line of blockAfter("## The CLI, file by file")) {
      const file = /^(\S+\.ts)\s/.exec(line)?.[1];
      if (file) listed.push(`apps/cursor-wrap/src/${file}`);
    }
    const sources = [
      ...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name, "src")),
      join(root, "apps", "cursor-wrap", "src"),
    ]
      .flatMap((directory) => sourceFiles(directory))
      .map((file) => file.slice(root.length))
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .filter((file) => !/^packages\/[^/]+\/src\/index\.ts$/.test(file));
    expect(sources.filter((file) => !listed.includes(file))).toEqual([]);
    expect(listed.filter((file) => !sources.includes(file))).toEqual([]);
  });

  it("runs with a home directory of its own, never the real ~/.cursor-wrap", () => {
    expect(process.env.CURSOR_WRAP_TEST_HOME).toBeDefined();
    expect(homedir()).toBe(process.env.CURSOR_WRAP_TEST_HOME);
    expect(homedir().startsWith(tmpdir())).toBe(true);
  });
});
