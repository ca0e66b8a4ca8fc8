import parse from "shell-quote/parse.js";
import { NotifyOptionError } from "./errors.js";

/** What `parse` inserts for a variable reference (`$HOME`): only a shell expands it. */
interface Variable {
  variable: string;
}

const isVariable = (entry: unknown): entry is Variable =>
  typeof entry === "object" && entry !== null && "variable" in entry;

/**
 * A command line as the words of a command run without a shell: quotes and backslashes are
 * read as a shell reads them (`notify.sh "a b"` → `["notify.sh", "a b"]`), and a `*` stays a
 * `*`. What only a shell does (pipes, redirections, `;`, `&&`, `$VAR`, `$(…)`, comments) is
 * refused with a {@link NotifyOptionError} saying to write `sh -c '…'`, so that nothing runs
 * otherwise than it reads.
 */
export function commandWords(text: string, source = "--on-verdict"): string[] {
  const entries = parse(text, (name) => ({ variable: name }) satisfies Variable);
  const words: string[] = [];
  for (const entry of entries) {
    if (typeof entry === "string") {
      words.push(entry);
      continue;
    }
    if ("op" in entry && entry.op === "glob") {
      words.push(entry.pattern);
      continue;
    }
    const what = isVariable(entry)
      ? `$${entry.variable}`
      : "comment" in entry
        ? "a comment (#)"
        : `\`${"op" in entry ? entry.op : "?"}\``;
    throw new NotifyOptionError(
      `${source} runs its command without a shell, so ${what} would not do what it says; for a shell, write sh -c '…'`,
    );
  }
  if (words.length === 0) throw new NotifyOptionError(`${source} needs a command`);
  return words;
}
