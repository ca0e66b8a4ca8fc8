import { isSecretName } from "@cursor-wrap/logger";

/** What a secret value is replaced with in the log. */
const HIDDEN = "[redacted]";

/**
 * The agent's arguments with the values of flags whose names say they are secret (`--api-key`,
 * `--auth-token`, `--password=…`) hidden, for the log. The CLI uses cursor-agent's flag table
 * instead, which also knows the short forms; this is the default for other callers.
 */
export function redactSecretArgs(args: readonly string[]): string[] {
  const redacted: string[] = [];
  let secretNext = false;
  for (const arg of args) {
    if (secretNext) {
      redacted.push(HIDDEN);
      secretNext = false;
      continue;
    }
    const long = /^(--?[^=\s]+)(=.*)?$/s.exec(arg);
    if (!long || !isSecretName(long[1]!)) {
      redacted.push(arg);
      continue;
    }
    if (long[2] !== undefined) redacted.push(`${long[1]}=${HIDDEN}`);
    else {
      redacted.push(arg);
      secretNext = true;
    }
  }
  return redacted;
}
