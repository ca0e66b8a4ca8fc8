import { readFileSync } from "node:fs";
import { UsageError } from "../usage-error.js";

/** The variable that holds a profile's API key: `CURSOR_WRAP_AUTH_<NAME>` (`-` becomes `_`). */
export function authProfileVariable(name: string): string {
  return `CURSOR_WRAP_AUTH_${name.toUpperCase().replace(/-/g, "_")}`;
}

/** The environment an auth profile gives the agent. */
export type ProfileEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * Read every auth profile's credentials once, at start (`--auth-profile`): the API key in
 * `CURSOR_WRAP_AUTH_<NAME>`, or in the file `CURSOR_WRAP_AUTH_<NAME>_FILE` names. A profile
 * with neither, or with an empty key, is a usage error that names the variables and never the
 * values. The key reaches the agent as `CURSOR_API_KEY` in its environment (never on its command
 * line, which the log records and `ps` shows), with `CURSOR_AUTH_TOKEN` left out so the key
 * is the credential it uses.
 */
export function loadAuthProfiles(
  names: readonly string[],
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): Map<string, ProfileEnvironment> {
  const profiles = new Map<string, ProfileEnvironment>();
  for (const name of names) {
    const variable = authProfileVariable(name);
    let key = env[variable];
    const file = env[`${variable}_FILE`];
    if (key === undefined && file !== undefined) {
      try {
        key = readFile(file);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
        throw new UsageError(
          `auth profile ${JSON.stringify(name)}: cannot read the file ${variable}_FILE names (${code})`,
        );
      }
    }
    key = key?.trim();
    if (!key) {
      throw new UsageError(
        `auth profile ${JSON.stringify(name)} has no credentials: set ${variable} to an API key, or ${variable}_FILE to a file holding one`,
      );
    }
    profiles.set(name, { CURSOR_API_KEY: key, CURSOR_AUTH_TOKEN: undefined });
  }
  return profiles;
}
