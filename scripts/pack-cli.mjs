// @ts-check
// Packs the cursor-wrap CLI and every workspace package it needs at run time (its
// `dependencies`, followed through the workspace) into ./packed, and prints the npm command
// that installs them. Until the packages are published, this is how to install a clone's build
// anywhere: `npm install --global packed/*.tgz`, or into a project without --global.

import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// `--out <dir>`: somewhere else than ./packed (the tests pack into a temporary directory).
const outFlag = process.argv.indexOf("--out");
const out = outFlag === -1 ? join(root, "packed") : resolve(process.argv[outFlag + 1] ?? "");

/** Every workspace package by name, with its directory and manifest. */
const workspace = new Map();
for (const parent of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, parent))) {
    const dir = join(root, parent, name);
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      workspace.set(manifest.name, { dir, manifest });
    } catch {
      // not a package
    }
  }
}

/** cursor-wrap and the workspace packages its run-time dependencies reach. */
const needed = [];
const queue = ["cursor-wrap"];
while (queue.length > 0) {
  const name = queue.shift();
  if (needed.includes(name)) continue;
  const found = workspace.get(name);
  if (!found) throw new Error(`${name} is not a package of this workspace`);
  needed.push(name);
  for (const dependency of Object.keys(found.manifest.dependencies ?? {})) {
    if (workspace.has(dependency)) queue.push(dependency);
  }
}

/** pnpm, as this script was started (`pnpm pack-cli` sets npm_execpath), else the one `packageManager` names, through npx. */
function pnpm(args, cwd) {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: pnpm runs this script, not turbo
  const execPath = process.env.npm_execpath;
  const options = { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] };
  if (execPath && /pnpm/.test(execPath)) {
    return execFileSync(process.execPath, [execPath, ...args], options);
  }
  const { packageManager } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return execFileSync("npx", ["--yes", packageManager, ...args], options);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const name of needed) {
  // pnpm pack turns workspace: ranges into the versions the tarballs carry.
  pnpm(["pack", "--pack-destination", out], workspace.get(name).dir);
}
// `./` first: npm reads `packed/x.tgz` as a GitHub repository (`owner/name`).
const tarballs = readdirSync(out)
  .filter((file) => file.endsWith(".tgz"))
  .map((file) => relative(process.cwd(), join(out, file)))
  .map((path) => (path.startsWith(".") || isAbsolute(path) ? path : `./${path}`));
console.log(`packed ${needed.join(", ")} into ${relative(process.cwd(), out) || "."}/`);
console.log("install them all at once (npm then takes each from its tarball, not the registry):");
console.log(`  npm install --global ${tarballs.join(" ")}`);
