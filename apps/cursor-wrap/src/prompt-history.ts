import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { ensurePrivateDirectory } from "@cursor-wrap/logger";

/** How many prompts the history keeps. */
export const HISTORY_SIZE = 500;

/** The prompt history of interactive sessions (R-CLI5b). */
export interface PromptHistory {
  /** The prompts so far, newest first (readline's order). */
  load(): string[];
  /** Record a prompt (across sessions), unless it starts with a space. */
  add(prompt: string): void;
}

/** `~/.cursor-wrap/history`. */
export function defaultHistoryFile(home: string = homedir()): string {
  return join(home, ".cursor-wrap", "history");
}

function read(file: string): string[] {
  try {
    const entries: string[] = [];
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line) continue;
      try {
        const entry: unknown = JSON.parse(line);
        if (typeof entry === "string") entries.push(entry);
      } catch {
        // a line cut short by a crash: the rest is still good
      }
    }
    return entries;
  } catch {
    return [];
  }
}

/**
 * The prompt history in `file`: one JSON string per line, oldest first (so a prompt may hold
 * newlines), at most {@link HISTORY_SIZE} entries, created with mode 0600 in a 0700 directory.
 * Every addition re-reads the file first, so two sessions add to it rather than overwrite each
 * other. A prompt that starts with a space is not recorded (the shell's convention). Failures
 * to read or write only lose history, never the session.
 */
export function openPromptHistory(file: string = defaultHistoryFile()): PromptHistory {
  return {
    load: () => read(file).reverse(),
    add(prompt) {
      if (!prompt.trim() || prompt.startsWith(" ")) return;
      const entries = read(file).filter((entry) => entry !== prompt);
      entries.push(prompt);
      const kept = entries.slice(-HISTORY_SIZE);
      try {
        ensurePrivateDirectory(dirname(file));
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, `${kept.map((entry) => JSON.stringify(entry)).join("\n")}\n`, {
          mode: 0o600,
        });
        chmodSync(temporary, 0o600);
        renameSync(temporary, file);
      } catch {
        // no history this time
      }
    },
  };
}
