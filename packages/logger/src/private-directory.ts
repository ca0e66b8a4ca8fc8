import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Create `dir` and any missing parent as private directories (mode 0700: logs and history
 * hold prompts, code and tool output), one level at a time from the deepest one that exists.
 * (Node's own `mkdirSync(…, { recursive: true })` spins forever on some paths, `/proc/nope`
 * among them.) Throws the system error (`ENOENT`, `EACCES`, `ENOTDIR`, …) when it cannot.
 * Returns whether others may write to it, which they should not.
 */
export function ensurePrivateDirectory(dir: string): { writableByOthers: boolean } {
  const missing: string[] = [];
  for (let current = resolve(dir); !existsSync(current); current = dirname(current)) {
    missing.push(current);
    if (dirname(current) === current) break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const stats = statSync(dir);
  if (!stats.isDirectory()) {
    throw Object.assign(new Error(`${dir} is not a directory`), { code: "ENOTDIR" });
  }
  return { writableByOthers: (stats.mode & 0o002) !== 0 };
}
