// Secrets that must not reach the file log (R-LOG6). One pass over the text finds candidates
// (a literal prefix every secret starts with); only at a candidate is the secret's own pattern
// tried, anchored there. Ordinary text (`mask-`, `task-`, CSS) costs that one pass.
//
// Every pattern matches only characters that need no escaping inside a JSON string (a PEM key
// block spans whole escape sequences), so redacting serialized JSON keeps it valid. Raw agent
// lines are redacted on their decoded strings (see `redactJsonValue`), so an escaped form
// (`\u0073k-…`) is seen as a reader of the log would see it.

const REPLACEMENT = "[REDACTED]";

// Prefixes of secrets, and of the keys and flags whose values are secrets.
const CANDIDATE =
  /sk-|gh[pousr]_|github_pat_|AKIA|xox[abposr]-|bearer|-----BEGIN|CURSOR_API_KEY|--api-key|--auth-token/gi;
const ANY_CANDIDATE = new RegExp(CANDIDATE.source, "i");

// Keys whose (string) values are secrets, in JSON objects the agent prints.
const SECRET_KEY =
  /^(?:CURSOR_API_KEY|api[_-]?key|apikey|auth[_-]?token|authtoken|access[_-]?token|password|passwd|secret|client[_-]?secret)$/i;
const ANY_SECRET_KEY = /api[_-]?key|apikey|auth[_-]?token|authtoken|access[_-]?token|passw|secret/i;

/** How a secret continues from its prefix: a sticky pattern, and what replaces a match. */
interface Rule {
  pattern: RegExp;
  /** The replacement; `$1` keeps a label such as `Bearer `. */
  replacement: string;
  /** Case-sensitive prefix check (the candidate scan ignores case). */
  prefix?: RegExp;
}

const RULES: Array<[test: (candidate: string) => boolean, rule: Rule]> = [
  [(c) => c === "sk-", { pattern: /sk-[A-Za-z0-9_-]{16,}/y, replacement: REPLACEMENT }],
  [
    (c) => /^gh[pousr]_$/.test(c),
    { pattern: /gh[pousr]_[A-Za-z0-9]{20,}/y, replacement: REPLACEMENT },
  ],
  [
    (c) => c === "github_pat_",
    { pattern: /github_pat_[A-Za-z0-9_]{20,}/y, replacement: REPLACEMENT },
  ],
  [(c) => c === "AKIA", { pattern: /AKIA[0-9A-Z]{16}(?![0-9A-Z])/y, replacement: REPLACEMENT }],
  [
    (c) => /^xox[abposr]-$/.test(c),
    { pattern: /xox[abposr]-[A-Za-z0-9-]{10,}/y, replacement: REPLACEMENT },
  ],
  [
    (c) => c.toLowerCase() === "bearer",
    { pattern: /(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/iy, replacement: `$1${REPLACEMENT}` },
  ],
  [
    (c) => c === "CURSOR_API_KEY",
    {
      // `CURSOR_API_KEY=v`, `="v"`, `='v'`, `"CURSOR_API_KEY": "v"`, also JSON-escaped (`\"`).
      pattern: /(CURSOR_API_KEY(?:\\?["'])?\s*[=:]\s*(?:\\?["'])?)[^\s"'\\,;}]+/y,
      replacement: `$1${REPLACEMENT}`,
    },
  ],
  [
    (c) => c === "--api-key" || c === "--auth-token",
    {
      pattern: /(--(?:api-key|auth-token)(?:=|\s+)(?:\\?["'])?)[^\s"'\\]+/y,
      replacement: `$1${REPLACEMENT}`,
    },
  ],
];

const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/y;
const PEM_END = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----/g;

/**
 * Whether a secret may start at `index`: not inside a word. A JSON escape (`\n`) or a colour
 * code (`ESC[31m`, also escaped as `\u001b[31m`) right before it counts as a boundary.
 */
function atBoundary(text: string, index: number): boolean {
  if (index === 0) return true;
  const before = text.charCodeAt(index - 1);
  const wordCharacter =
    (before >= 48 && before <= 57) ||
    (before >= 65 && before <= 90) ||
    (before >= 97 && before <= 122) ||
    before === 95;
  if (!wordCharacter) return true;
  if (index >= 2 && text[index - 2] === "\\" && /[nrtbf]/.test(text[index - 1]!)) return true;
  return /(?:\u001b|\\u001b|\\x1b)\[[0-9;]*m$/i.test(text.slice(Math.max(0, index - 20), index));
}

/** Whether `text` may contain a secret (one search; most text has no candidate at all). */
export function mayContainSecret(text: string): boolean {
  return ANY_CANDIDATE.test(text);
}

/** What redacting one piece of text found. */
interface Redacted {
  text: string;
  /** A private key block began and did not end in this text: it goes on in the next. */
  openKey: boolean;
}

function redactWithState(text: string, inKey: boolean): Redacted {
  let out = "";
  let last = 0;
  if (inKey) {
    // The body of a private key printed line by line: everything up to its end marker.
    PEM_END.lastIndex = 0;
    const end = PEM_END.exec(text);
    if (!end) return { text: REPLACEMENT, openKey: true };
    out = REPLACEMENT;
    last = end.index + end[0].length;
  }
  let openKey = false;
  CANDIDATE.lastIndex = last;
  for (let match = CANDIDATE.exec(text); match !== null; match = CANDIDATE.exec(text)) {
    const index = match.index;
    const candidate = match[0];
    if (candidate.startsWith("-----")) {
      PEM_BEGIN.lastIndex = index;
      if (!PEM_BEGIN.test(text)) continue;
      PEM_END.lastIndex = index;
      const end = PEM_END.exec(text);
      out += text.slice(last, index) + REPLACEMENT;
      if (!end) {
        // The key runs past the end of this text (a truncated head, or a key printed a line
        // at a time): redact to the end, and say so.
        last = text.length;
        openKey = true;
        break;
      }
      last = end.index + end[0].length;
      CANDIDATE.lastIndex = last;
      continue;
    }
    if (!atBoundary(text, index)) continue;
    const rule = RULES.find(([test]) => test(candidate))?.[1];
    if (!rule) continue;
    rule.pattern.lastIndex = index;
    const secret = rule.pattern.exec(text);
    if (!secret) continue;
    out += text.slice(last, index) + rule.replacement.replace("$1", secret[1] ?? "");
    last = index + secret[0].length;
    CANDIDATE.lastIndex = last;
  }
  return { text: last === 0 ? text : out + text.slice(last), openKey };
}

/**
 * Replace API keys, tokens and private keys in `text` with `[REDACTED]`: `sk-…`, GitHub and
 * Slack tokens, AWS keys, `Bearer …` (any case), PEM private keys, `CURSOR_API_KEY=…` (quoted
 * or not), `--api-key`/`--auth-token` values. Text without a candidate comes back as it was.
 */
export function redact(text: string): string {
  if (!mayContainSecret(text)) return text;
  return redactWithState(text, false).text;
}

/**
 * A redactor for a stream of lines (stdout text lines, stderr): a private key printed a line
 * at a time is redacted from its BEGIN line to its END line.
 */
export interface LineRedactor {
  line(text: string): string;
}

/** Create a {@link LineRedactor}. */
export function createLineRedactor(): LineRedactor {
  let inKey = false;
  return {
    line(text) {
      if (!inKey && !mayContainSecret(text)) return text;
      const redacted = redactWithState(text, inKey);
      inKey = redacted.openKey;
      return redacted.text;
    },
  };
}

// A secret cut off at the end of a text (the 4 KiB head of an oversize line): its prefix is
// there, the rest is not, so the rules above cannot recognise it.
const CUT_SECRET =
  /(sk-|gh[pousr]_|github_pat_|AKIA|xox[abposr]-|bearer\s+|CURSOR_API_KEY\S{0,4}|--(?:api-key|auth-token)[= ])[A-Za-z0-9._~+/=-]*$/i;

/** Redact a text that was cut off: also a secret that runs past its end. */
export function redactCut(text: string): string {
  const redacted = redact(text);
  const cut = CUT_SECRET.exec(redacted);
  if (!cut || !atBoundary(redacted, cut.index)) return redacted;
  return `${redacted.slice(0, cut.index)}${cut[1]}${REPLACEMENT}`;
}

/** Whether a decoded JSON value needs a closer look (a secret-like prefix or key in its text). */
export function jsonMayContainSecret(rawText: string): boolean {
  // `\u` escapes can spell a prefix (`\u0073k-`): then the decoded strings must be looked at.
  return mayContainSecret(rawText) || ANY_SECRET_KEY.test(rawText) || rawText.includes("\\u");
}

/**
 * Redact a parsed JSON value as a reader of the log would see it: every string (decoded, so
 * escaped forms are caught), and the values of keys that name secrets (`CURSOR_API_KEY`,
 * `apiKey`, `password`, …). Returns the same value when nothing changed.
 */
export function redactJsonValue(value: unknown): { value: unknown; changed: boolean } {
  if (typeof value === "string") {
    const text = redact(value);
    return { value: text, changed: text !== value };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const redacted = redactJsonValue(item);
      changed ||= redacted.changed;
      return redacted.value;
    });
    return changed ? { value: items, changed } : { value, changed };
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      if (SECRET_KEY.test(key) && typeof item === "string" && item !== "") {
        changed = true;
        return [key, REPLACEMENT] as const;
      }
      const redacted = redactJsonValue(item);
      changed ||= redacted.changed;
      return [key, redacted.value] as const;
    });
    return changed ? { value: Object.fromEntries(entries), changed } : { value, changed };
  }
  return { value, changed: false };
}
