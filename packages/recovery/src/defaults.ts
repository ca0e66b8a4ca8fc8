// The package's defaults alone, importable as `@cursor-wrap/recovery/defaults` without the rest of the
// package: the CLI's flag table prints them in `--help`, which must not load the recovery policy.

import { DEFAULT_BACKOFF } from "./backoff.js";
import type { RecoveryPolicy } from "./policy.js";

export { DEFAULT_BACKOFF };

/** The prompt a resumed session gets after a failure cut its work short. */
export const DEFAULT_CONTINUE_PROMPT =
  "Continue where you left off. Do not repeat steps that already finished.";

/** Defaults: 3 retries with backoff; no model switch, no wait, no auth profile, no hang retry. */
export const DEFAULT_POLICY: Readonly<RecoveryPolicy> = {
  maxRetries: 3,
  backoff: DEFAULT_BACKOFF,
  fallbackModels: [],
  waitForReset: false,
  maxWaitMs: 6 * 3_600_000,
  authProfiles: [],
  hang: { prompt: undefined, maxRetries: 3 },
  continuePrompt: DEFAULT_CONTINUE_PROMPT,
};
