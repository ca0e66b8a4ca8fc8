// The session id comes from the agent's output, which is untrusted: it ends up in argv
// (`--resume <id>`), in a file name and in a command people paste into a shell.

const PLAUSIBLE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Whether a session id is one the agent could mean: letters, digits, `.`, `_`, `:` and `-`,
 * at most 128 characters, not starting with a `-` (so it can never read as a flag).
 * cursor-agent's ids are UUIDs.
 */
export function isPlausibleSessionId(id: string): boolean {
  return PLAUSIBLE.test(id);
}

/** A word a POSIX shell reads back as `word`: as it is when that is safe, else single-quoted. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9._:@%+=,/-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
