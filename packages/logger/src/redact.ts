// Secrets that must not reach the file log (R-LOG6). Every pattern matches only characters
// that need no escaping inside a JSON string (or, for PEM blocks, whole escape sequences), so
// replacing a match inside serialized JSON always leaves valid JSON.

const REPLACEMENT = "[REDACTED]";
// A secret starts at a word boundary, or right after a JSON escape such as `\n`.
const START = String.raw`(?:(?<=\\[nrtbf])|(?<![A-Za-z0-9_]))`;

const PATTERNS: Array<[RegExp, string]> = [
  [
    /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[^"\\]|\\.)*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g,
    REPLACEMENT,
  ],
  [new RegExp(`${START}(CURSOR_API_KEY\\s*[=:]\\s*)[^\\s"'\\\\]+`, "g"), `$1${REPLACEMENT}`],
  [new RegExp(`${START}(Bearer\\s+)[A-Za-z0-9._~+/=-]{8,}`, "g"), `$1${REPLACEMENT}`],
  [new RegExp(`${START}sk-[A-Za-z0-9_-]{16,}`, "g"), REPLACEMENT],
  [new RegExp(`${START}gh[pousr]_[A-Za-z0-9]{20,}`, "g"), REPLACEMENT],
  [new RegExp(`${START}github_pat_[A-Za-z0-9_]{20,}`, "g"), REPLACEMENT],
  [new RegExp(`${START}AKIA[0-9A-Z]{16}(?![0-9A-Z])`, "g"), REPLACEMENT],
  [new RegExp(`${START}xox[abposr]-[A-Za-z0-9-]{10,}`, "g"), REPLACEMENT],
];

// Literal fragments every secret contains. One regex over the bytes read as latin1 (a plain
// copy, ASCII needles match byte for byte) is about twice as fast as a search per fragment.
const FRAGMENTS = /sk-|gh[pousr]_|github_pat_|AKIA|xox[abposr]-|Bearer|PRIVATE KEY|CURSOR_API_KEY/;

/** Whether `input` may contain a secret (cheap pre-check before {@link redact}). */
export function mayContainSecret(input: Buffer | string): boolean {
  return FRAGMENTS.test(typeof input === "string" ? input : input.toString("latin1"));
}

/**
 * Replace API keys, tokens and private keys in `text` with `[REDACTED]`. Text without any
 * secret-like fragment (nearly all of it) costs one search and comes back as it was.
 */
export function redact(text: string): string {
  if (!FRAGMENTS.test(text)) return text;
  let result = text;
  for (const [pattern, replacement] of PATTERNS) result = result.replace(pattern, replacement);
  return result;
}
