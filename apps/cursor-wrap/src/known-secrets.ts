// The credentials a cursor-wrap process holds, told to the log's redaction by value: they have
// no shape of their own to be found by (a Cursor API key), and an agent, a tool or an MCP
// server may repeat them anywhere.

import { isSecretName, redactKnownSecrets } from "@cursor-wrap/logger";
import { agentFlagSecrets } from "./options/agent-flags.js";

/** The credentials cursor-wrap itself uses: taken whatever they look like. */
const OWN_CREDENTIALS = new Set(["CURSOR_API_KEY", "CURSOR_AUTH_TOKEN"]);

/**
 * Whether the value of another secret-named variable looks like a credential: long, of letters
 * and digits, no space, not a path. `POSTGRES_PASSWORD=postgres`, `JWT_SECRET=development` or
 * `GOOGLE_APPLICATION_CREDENTIALS=/path/key.json` are defaults and paths, and redacting them
 * would blot out ordinary words of every log.
 */
function looksLikeCredential(value: string): boolean {
  return (
    value.length >= 16 &&
    !/\s/.test(value) &&
    !/^[/~.]/.test(value) &&
    /[0-9]/.test(value) &&
    /[A-Za-z]/.test(value)
  );
}

/**
 * Redact, wherever they appear, the credentials this process holds: `CURSOR_API_KEY`,
 * `CURSOR_AUTH_TOKEN`, every auth profile's key (`CURSOR_WRAP_AUTH_<NAME>`), the secret flags
 * given for the agent (`--api-key`, `--auth-token`, credential headers), `more` (keys read
 * from files), and the value of any other variable whose name says it is a secret
 * (`GITHUB_TOKEN`, `NPM_TOKEN`) when it looks like a credential (see `looksLikeCredential`).
 */
export function redactHeldSecrets(
  env: NodeJS.ProcessEnv,
  agentFlags: readonly string[] = [],
  more: Iterable<string | undefined> = [],
): void {
  const fromEnv: Array<string | undefined> = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (OWN_CREDENTIALS.has(name)) fromEnv.push(value);
    else if (name.startsWith("CURSOR_WRAP_AUTH_")) {
      if (!name.endsWith("_FILE")) fromEnv.push(value);
    } else if (isSecretName(name) && looksLikeCredential(value.trim())) fromEnv.push(value);
  }
  redactKnownSecrets([...fromEnv, ...agentFlagSecrets(agentFlags), ...more]);
}
