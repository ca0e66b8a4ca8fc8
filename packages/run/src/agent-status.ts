import { execFile } from "node:child_process";

/** Fields of `agent status --format json` worth quoting to explain a sign-in failure. */
const TELLING = /auth|logged|signed|email|user|account|endpoint|team|org/i;

/** The telling fields of a status object, in one line. */
function summarise(stdout: string): string | undefined {
  try {
    const status: unknown = JSON.parse(stdout);
    if (status === null || typeof status !== "object" || Array.isArray(status)) return undefined;
    const parts = Object.entries(status as Record<string, unknown>)
      .filter(([key, value]) => TELLING.test(key) && (typeof value !== "object" || value === null))
      .map(([key, value]) => `${key}=${String(value)}`);
    return parts.length > 0 ? parts.join(", ").slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What `<bin> [args…] status --format json` says, in one line, to explain an authentication
 * failure after it happened (never as a preflight). `args` and `env` are the failed turn's
 * sign-in (its `--api-key`, `-e`, an auth profile's key), so the answer is about the account
 * the turn used. Undefined when it fails, is slow (3 s) or says nothing useful.
 */
export function agentStatusSummary(
  bin: string,
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; args?: readonly string[] } = {},
): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      execFile(
        bin,
        [...(options.args ?? []), "status", "--format", "json"],
        {
          timeout: options.timeoutMs ?? 3_000,
          maxBuffer: 64 * 1024,
          ...(options.env ? { env: options.env } : {}),
        },
        (error, stdout) => resolve(error ? undefined : summarise(stdout)),
      );
    } catch {
      resolve(undefined);
    }
  });
}
