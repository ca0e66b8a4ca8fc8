/** When a limit resets, as an agent said it. */
export interface ResetTime {
  /** Epoch ms. */
  resetAt: number;
  /** The words it came from: `11/17/2025`, `in 2h39m52s`. */
  resetText: string;
}

// "… will reset when your monthly cycle ends on 11/17/2025" (Cursor, month/day/year).
const RESET_DATE = /\bresets?\b[\s\S]{0,120}?\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/i;

const UNIT = "(?:days?|d|hours?|hrs?|h|minutes?|mins?|m(?!s)|seconds?|secs?|s|milliseconds?|ms)";
const AMOUNT = `\\d+(?:\\.\\d+)?\\s*${UNIT}`;
// "Resets in 2h39m52s", "try again in 4 days 20 hours 9 minutes", "retry after 30s".
const RESET_IN = new RegExp(
  `\\b(?:resets?|try again|retry)\\s+(in|after)\\s+((?:${AMOUNT}(?![a-z])[\\s,]*(?:and\\s+)?)+)`,
  "i",
);
const RETRY_AFTER_HEADER = /\bRetry-After:\s*(\d+)\b/i;

const UNIT_MS: Array<[RegExp, number]> = [
  [/^ms|^milli/i, 1],
  [/^d/i, 86_400_000],
  [/^h/i, 3_600_000],
  [/^m/i, 60_000],
  [/^s/i, 1_000],
];

/** `2h39m52s`, `4 days 20 hours 9 minutes` → ms. */
function durationOf(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const perUnit = UNIT_MS.find(([pattern]) => pattern.test(unit!))?.[1] ?? 0;
    total += Number(amount) * perUnit;
  }
  return Math.round(total);
}

/**
 * The reset time in an agent's message, if it gives one: a date (`… ends on 11/17/2025`,
 * month/day/year as Cursor writes it: the end of that day, local time, since the day named is
 * the last of the cycle), a span (`resets in 2h39m52s`, `try again in 30 seconds`, `retry after
 * 30s`) or a `Retry-After:` header in seconds, counted from `now` (epoch ms).
 */
export function parseResetTime(text: string, now: number): ResetTime | undefined {
  const date = RESET_DATE.exec(text);
  if (date) {
    const [whole, month, day, year] = date;
    const monthIndex = Number(month) - 1;
    if (monthIndex >= 0 && monthIndex < 12 && Number(day) >= 1 && Number(day) <= 31) {
      return {
        resetAt: new Date(Number(year), monthIndex, Number(day) + 1).getTime(),
        resetText: whole.slice(whole.lastIndexOf(" ") + 1),
      };
    }
  }
  const span = RESET_IN.exec(text);
  if (span) {
    const ms = durationOf(span[2]!);
    if (ms > 0) return { resetAt: now + ms, resetText: `${span[1]} ${span[2]!.trim()}` };
  }
  const header = RETRY_AFTER_HEADER.exec(text);
  if (header) {
    return { resetAt: now + Number(header[1]) * 1_000, resetText: `in ${header[1]}s` };
  }
  return undefined;
}
