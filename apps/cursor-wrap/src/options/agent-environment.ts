// The environment every agent cursor-wrap starts (a run's, an ACP proxy's) begins from.

/** Variables only cursor-wrap reads, whose values may be secrets. */
const WRAPPER_SECRETS = new Set(["CURSOR_WRAP_NOTIFY", "CURSOR_WRAP_ON_VERDICT"]);

/**
 * The environment the agent starts from: the caller's, without what only cursor-wrap reads and
 * the agent (an LLM with a shell) must not: every auth profile's key (`CURSOR_WRAP_AUTH_*`, and
 * the files they name; the profile in use reaches it as `CURSOR_API_KEY`), the webhook of
 * `--notify` (`CURSOR_WRAP_NOTIFY`, whose URL may carry a token) and the command of
 * `--on-verdict` (`CURSOR_WRAP_ON_VERDICT`, whose arguments may).
 */
export function agentBaseEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith("CURSOR_WRAP_AUTH_") || WRAPPER_SECRETS.has(name)) continue;
    base[name] = value;
  }
  return base;
}
