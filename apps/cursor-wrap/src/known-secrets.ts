// The credentials a cursor-wrap process holds, told to the log's redaction by value: they have
// no shape of their own to be found by (a Cursor API key), and an agent, a tool or an MCP
// server may repeat them anywhere.

import { isSecretName, redactKnownSecrets } from "@cursor-wrap/logger";
import { agentFlagSecrets } from "./options/agent-flags.js";

/**
 * Redact, wherever they appear, the values of the environment's secrets (every variable whose
 * name says it is one: `CURSOR_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`; and every auth
 * profile's key, `CURSOR_WRAP_AUTH_<NAME>`), the secret flags given for the agent (`--api-key`,
 * `--auth-token`, credential headers), and `more` (keys read from files).
 */
export function redactHeldSecrets(
  env: NodeJS.ProcessEnv,
  agentFlags: readonly string[] = [],
  more: Iterable<string | undefined> = [],
): void {
  redactKnownSecrets([
    ...Object.entries(env)
      .filter(
        ([name]) =>
          isSecretName(name) || (name.startsWith("CURSOR_WRAP_AUTH_") && !name.endsWith("_FILE")),
      )
      .map(([, value]) => value),
    ...agentFlagSecrets(agentFlags),
    ...more,
  ]);
}
