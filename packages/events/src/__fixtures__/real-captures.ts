import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Real cursor-agent captures shared by the whole project (`../shared/fixtures/real`). */
export const REAL_CAPTURES_DIR =
  process.env.CURSOR_WRAP_REAL_FIXTURES ??
  join(import.meta.dirname, "..", "..", "..", "..", "..", "shared", "fixtures", "real");

export interface RealCapture {
  name: string;
  bytes: Buffer;
}

export function realCaptures(): RealCapture[] {
  return readdirSync(REAL_CAPTURES_DIR)
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .map((file) => ({
      name: file.replace(/\.jsonl$/, ""),
      bytes: readFileSync(join(REAL_CAPTURES_DIR, file)),
    }));
}

export function realCapture(name: string): RealCapture {
  const capture = realCaptures().find((candidate) => candidate.name === name);
  if (!capture) throw new Error(`no real capture named ${name} in ${REAL_CAPTURES_DIR}`);
  return capture;
}
