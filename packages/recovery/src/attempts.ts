import type { PastAttempt } from "./policy.js";

/** Token counts and the like, by name (`inputTokens`, `outputTokens`, …), as an agent reports them. */
export type UsageCounts = Readonly<Record<string, number>>;

/** One attempt of a prompt, for the account of what it cost. */
export interface AttemptReport extends PastAttempt {
  /** How the attempt ended (`completed`, `abnormal`, `hang`, …). */
  outcome: string;
  durationMs: number;
  toolCalls: number;
  usage: UsageCounts | undefined;
  /** Waited after it, before the next attempt (backoff or a reset), ms. */
  waitedMs: number;
}

/** What a prompt's attempts cost together. */
export interface AttemptsSummary {
  attempts: number;
  /** Usage summed over the attempts that reported some; undefined when none did. */
  usage: Record<string, number> | undefined;
  /** The models used, in order, each once (`default`: the agent's default). */
  models: string[];
  /** Time spent waiting between attempts, ms. */
  waitedMs: number;
  /** Time the attempts ran, ms (waits not included). */
  durationMs: number;
  toolCalls: number;
}

/** The model name a summary shows for an attempt. */
export const modelLabel = (model: string | undefined): string => model ?? "default";

/** Sum usage counts field by field; undefined when no attempt reported any. */
export function sumUsage(
  usages: ReadonlyArray<UsageCounts | undefined>,
): Record<string, number> | undefined {
  let total: Record<string, number> | undefined;
  for (const usage of usages) {
    if (!usage) continue;
    total ??= {};
    for (const [name, count] of Object.entries(usage)) {
      if (typeof count === "number" && Number.isFinite(count))
        total[name] = (total[name] ?? 0) + count;
    }
  }
  return total;
}

/** Add up a prompt's attempts: usage, models, waits, time and tool calls. */
export function summarizeAttempts(attempts: readonly AttemptReport[]): AttemptsSummary {
  const models: string[] = [];
  for (const attempt of attempts) {
    const label = modelLabel(attempt.model);
    if (!models.includes(label)) models.push(label);
  }
  return {
    attempts: attempts.length,
    usage: sumUsage(attempts.map((attempt) => attempt.usage)),
    models,
    waitedMs: attempts.reduce((total, attempt) => total + attempt.waitedMs, 0),
    durationMs: attempts.reduce((total, attempt) => total + attempt.durationMs, 0),
    toolCalls: attempts.reduce((total, attempt) => total + attempt.toolCalls, 0),
  };
}
