import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, relative } from "node:path";
import { shellWord } from "@cursor-wrap/events";

/** Whether `candidate` runs `script`: a link to it, or a shim (npm, pnpm) that names it. */
function runs(candidate: string, script: string): boolean {
  try {
    if (realpathSync(candidate) === script) return true;
    // A shim is a small script that starts the real one by its path, often a relative one.
    const buffer = Buffer.alloc(4096);
    const fd = openSync(candidate, "r");
    let length: number;
    try {
      length = readSync(fd, buffer, 0, buffer.length, 0);
    } finally {
      closeSync(fd);
    }
    const text = buffer.toString("utf8", 0, length);
    return text.includes(script) || text.includes(relative(dirname(candidate), script));
  } catch {
    return false;
  }
}

/**
 * The command line that runs this cursor-wrap from `cwd`, for hints people copy: `cursor-wrap`
 * when that name on `PATH` is this very program, else `node <its script>` (relative to `cwd`
 * when it lies below it), since a clone puts no `cursor-wrap` on `PATH`.
 */
export function selfCommand(
  script: string | undefined = process.argv[1],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): string {
  if (!script) return "cursor-wrap";
  let real: string;
  try {
    real = realpathSync(script);
  } catch {
    return "cursor-wrap";
  }
  for (const directory of (env.PATH ?? "").split(delimiter)) {
    if (directory && runs(join(directory, "cursor-wrap"), real)) return "cursor-wrap";
  }
  const below = relative(cwd, real);
  const path = below && !below.startsWith("..") && !isAbsolute(below) ? below : real;
  return `node ${shellWord(path)}`;
}
