#!/usr/bin/env node
// @ts-check
// `pnpm check`'s unused-export check. knip (knip.json) reads the whole workspace (the libraries,
// the CLI, the benchmarks, every test) and reports each exported value nothing imports. For a
// library under packages/, what counts as its public promise is its documented entry: an export
// of an entry file (src/index.ts, and the other files its package.json `exports` names) that its
// README names in code (`name`). Such an export may go unused inside the repository; any other
// unused export fails the check: prune it, or document it as public in the README.
//
// Checked: exported values (functions, constants, classes, namespaces) of every file under
// packages/*/src. Not checked: exported types (a type a public signature uses is part of that
// signature already), and the CLI, the benchmarks and the fixtures, which publish no library
// (knip still reads them: what they import counts as used).

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// The workspace's own knip (a root devDependency), as `pnpm exec knip` would run it.
const knip = join(root, "node_modules", ".bin", "knip");

// knip follows an import of `@cursor-wrap/x` into x's sources by mapping its package.json
// `exports` (dist/…) back to src/ with the package's tsconfig `outDir`. Without it the imports
// of the package would go unseen and every export would look unused: say so plainly instead.
const unmapped = readdirSync(join(root, "packages")).filter((name) => {
  const path = join(root, "packages", name, "tsconfig.json");
  if (!existsSync(path)) return false;
  const config = JSON.parse(readFileSync(path, "utf8").replace(/^\s*\/\/.*$/gm, ""));
  return config.compilerOptions?.outDir !== "dist";
});
if (unmapped.length > 0) {
  process.stderr.write(
    `packages/{${unmapped.join(",")}}/tsconfig.json: set "compilerOptions": { "outDir": "dist" } (as every package has), so the export check can follow imports of the package into its sources\n`,
  );
  process.exit(1);
}

const run = spawnSync(
  knip,
  ["--include", "exports,nsExports,duplicates", "--reporter", "json", "--no-exit-code"],
  { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
);
if (run.status !== 0) {
  process.stderr.write(run.stderr);
  process.stderr.write(`knip exited with ${run.status}\n`);
  process.exit(1);
}

/** @type {{ issues: Array<{ file: string } & Record<string, unknown>> }} */
const report = JSON.parse(run.stdout);

/** The source files a package's `exports` name (`./dist/x.js` → `src/x.ts`). */
function entryFiles(packageDir) {
  const manifest = JSON.parse(readFileSync(join(root, packageDir, "package.json"), "utf8"));
  const targets = [];
  const collect = (value) => {
    if (typeof value === "string") targets.push(value);
    else if (value && typeof value === "object")
      for (const inner of Object.values(value)) collect(inner);
  };
  collect(manifest.exports ?? {});
  const files = new Set([`${packageDir}/src/index.ts`]);
  for (const target of targets) {
    const match = /^\.\/dist\/(.+)\.(?:d\.ts|js)$/.exec(target);
    if (match && existsSync(join(root, packageDir, "src", `${match[1]}.ts`))) {
      files.add(`${packageDir}/src/${match[1]}.ts`);
    }
  }
  return files;
}

/**
 * Whether the package's README names an export in code: at the start of inline code
 * (`` `name` ``, `` `name(options)` ``) or anywhere in a fenced code block.
 */
function documentedIn(packageDir) {
  const path = join(root, packageDir, "README.md");
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const blocks = [...text.matchAll(/```[\s\S]*?```/g)].map((match) => match[0]).join("\n");
  return (name) =>
    new RegExp(`\`${name}\\b`).test(text) || new RegExp(`\\b${name}\\b`).test(blocks);
}

/** @type {Map<string, { entries: Set<string>, documented: (name: string) => boolean }>} */
const packages = new Map();
function packageOf(file) {
  const match = /^(packages\/[^/]+)\/src\//.exec(file);
  if (!match) return undefined;
  const dir = match[1];
  if (!packages.has(dir)) {
    packages.set(dir, { entries: entryFiles(dir), documented: documentedIn(dir) });
  }
  return { dir, ...packages.get(dir) };
}

const failures = [];
const forgiven = new Set();
for (const issue of report.issues) {
  const owner = packageOf(issue.file);
  if (!owner) continue;
  for (const type of ["exports", "nsExports", "duplicates"]) {
    for (const entry of /** @type {Array<{ name: string, line?: number }>} */ (issue[type] ?? [])) {
      const names = entry.name.split("|");
      // A documented export of the package's entry: public, whether or not the repository uses
      // it. The module it comes from is reported too, and is forgiven for the same reason.
      const reexported = (name) =>
        [...owner.entries].some((file) =>
          new RegExp(`\\b${name}\\b`).test(readFileSync(join(root, file), "utf8")),
        );
      if (
        type !== "duplicates" &&
        names.every((name) => owner.documented(name) && reexported(name))
      ) {
        forgiven.add(`${owner.dir} ${entry.name}`);
        continue;
      }
      failures.push(`${issue.file}:${entry.line ?? "?"} ${entry.name} (${type})`);
    }
  }
}

if (failures.length > 0) {
  process.stderr.write(
    `Exported but never imported, and not documented as public in its package's README:\n${failures
      .map((line) => `  ${line}`)
      .join("\n")}\nPrune the export (or stop exporting it), or name it in the README's API.\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `exports: every exported value of packages/*/src is imported, or documented as public (${forgiven.size} documented exports are not used inside the repository)\n`,
);
