import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A real cursor-agent capture. */
export interface Capture {
  /** File name without `.jsonl`. */
  name: string;
  path: string;
  bytes: Buffer;
}

function findRealCapturesDir(): string {
  if (process.env.CURSOR_WRAP_REAL_FIXTURES) return process.env.CURSOR_WRAP_REAL_FIXTURES;
  // The shared fixtures sit beside the repository: walk up to the workspace root, then across.
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth += 1) {
    if (existsSync(join(directory, "pnpm-workspace.yaml"))) {
      return join(directory, "..", "shared", "fixtures", "real");
    }
    directory = dirname(directory);
  }
  return join(process.cwd(), "..", "shared", "fixtures", "real");
}

/**
 * Directory of the real captures: `CURSOR_WRAP_REAL_FIXTURES`, else `../shared/fixtures/real`
 * beside the repository this package lives in.
 */
export const realCapturesDir: string = findRealCapturesDir();

/** Every real capture, sorted by name. */
export function realCaptures(): Capture[] {
  return readdirSync(realCapturesDir)
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .map((file) => {
      const path = join(realCapturesDir, file);
      return { name: file.slice(0, -".jsonl".length), path, bytes: readFileSync(path) };
    });
}

/** One real capture by name (file name without `.jsonl`). */
export function realCapture(name: string): Capture {
  const capture = realCaptures().find((candidate) => candidate.name === name);
  if (!capture)
    throw new Error(`no real capture named ${JSON.stringify(name)} in ${realCapturesDir}`);
  return capture;
}
