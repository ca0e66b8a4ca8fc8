// Secrets that must not reach the file log (R-LOG6). One pass of ONE regex over the text finds
// candidates (a literal every secret, or the name it is given under, contains); only at a
// candidate is the secret's own rule tried, anchored there. Ordinary text (`mask-`, `task-`,
// CSS) costs a pre-check that asks the same question of the same alternatives, in four regexes.
//
// Every rule replaces only characters that need no escaping inside a JSON string, or whole
// escape sequences (a quoted value, a PEM key block), so redacting serialized JSON keeps it
// valid. Raw agent lines are redacted on their decoded strings (see `redactJsonValue`), so an
// escaped form (`\u0073k-…`) is seen as a reader of the log would see it.
//
// The forms, and where each is documented, are listed in the README ("Secrets in logs").

const REPLACEMENT = "[REDACTED]";

// The candidates, written for speed: one regex, case-sensitive (every token below has one case;
// the words are given in the three cases they are written in), grouped so that clean text is
// turned down at a glance. A secret's name counts only with what gives it a value after it: `=`,
// `:` (a quoted name too), or for a flag a space or the next string of a JSON array. A tab may
// be written as the JSON escape `\t` (serialized records, raw agent lines), a quote with any
// number of backslashes before it (JSON nested in a string).
const BLANK = `(?:[ \\t]|\\\\t)`;
const SEPARATOR = `\\\\*["']?${BLANK}*[=:]|${BLANK}|\\\\*"${BLANK}*,`;
const NAMES = [
  "[Pp]assw(?:or)?d|PASSW(?:OR)?D",
  "[Pp]assphrase|PASSPHRASE",
  "[Ss]ecret|SECRET",
  "[Tt]oken|TOKEN",
  "[Cc]redentials?|CREDENTIALS?",
  "[Aa]pi[_-]?[Kk]ey|API[_-]?KEY|apikey",
  "[Aa]ccess[_-]?[Kk]ey|ACCESS[_-]?KEY",
  "[Pp]rivate[_-]?[Kk]ey|PRIVATE[_-]?KEY",
  "[Aa]ccount[Kk]ey|ACCOUNTKEY",
  "sig",
].join("|");

// Literal prefixes of secrets with a shape of their own, and `://` for credentials in URLs;
// each with its group in the pre-check (see PRECHECKS).
const PREFIX_FORMS: ReadonlyArray<readonly [source: string, precheckGroup: 1 | 2]> = [
  ["sk-", 1],
  ["[sr]k_(?:live|test)_", 1],
  ["whsec_", 2],
  ["gh[pousr]_", 2],
  ["github_pat_", 2],
  ["A(?:KIA|SIA|Iza)", 1],
  ["xox[abposr]-", 2],
  ["xapp-", 2],
  ["hooks\\.slack\\.com/services/", 2],
  ["[Bb]earer|BEARER", 2],
  ["-----BEGIN", 1],
  ["eyJ", 1],
  ["gl(?:pat|dt|rt|ptt|cbt|soat)-", 2],
  ["npm_", 2],
  ["GOCSPX-", 1],
  ["ya29\\.", 1],
  ["1//0", 1],
  ["[0-9]Q~", 1],
  ["://", 1],
];
const PREFIXES = PREFIX_FORMS.map(([source]) => source).join("|");

/** The one candidate regex: the scan (global) that finds every candidate in turn. */
const CANDIDATE = new RegExp(`(?:${PREFIXES})|(?:(?:${NAMES})(?:${SEPARATOR}))`, "g");

// The pre-check asks only whether there is any candidate, or a `\u` escape (which can spell
// any of them, `\u0073k-`: a raw JSON line holding one must be looked at decoded). It is the
// same alternatives as CANDIDATE's split over four regexes: `\u`; the names with their
// separators; the prefixes whose third character is rare in text (`sk-`, `eyJ`, `://`, …); the
// other prefixes. V8 skips fast over text that cannot match a small group, and gives that up
// for one regex holding them all: the four searches of clean text cost about half of one
// (bench/redaction.mjs; the split was chosen by measuring on the real-shaped stream; `\u`
// alone is a plain search, and beside the names it made their search twice as slow).
const PRECHECKS = [
  /\\u/,
  new RegExp(`(?:${NAMES})(?:${SEPARATOR})`),
  ...([1, 2] as const).map(
    (group) =>
      new RegExp(
        PREFIX_FORMS.filter(([, g]) => g === group)
          .map(([source]) => source)
          .join("|"),
      ),
  ),
];
// A short text (a thinking delta's few words: five lines in six of the real captures) costs
// what a search costs to start, not to scan: one search for everything costs less than four.
const SHORT_TEXT = 64;
const SHORT_PRECHECK = new RegExp(`\\\\u|(?:${NAMES})(?:${SEPARATOR})|${PREFIXES}`);
// A control sequence can hide any of them (see CONTROL_SEQUENCE): a text with one that no
// search finds a candidate in is searched again without them.
const ESCAPE = /\u001b/;
// A secret's name, then a colour code before its separator (`ESC[94m"password"ESC[39m: …`,
// `ESC[1m--tokenESC[0m …`): syntax colouring of a config or of JSON.
const NAME_THEN_CONTROL = new RegExp(`(?:${NAMES})["']?\\u001b\\[`);
const NAME_WORD = /^(?:passw|passphrase|secret|token|credential|api|access|private|account|sig)/i;

/** A secret found at a candidate: the span replaced, and the text that replaces it. */
interface Found {
  from: number;
  to: number;
  replacement: string;
}

/** How a secret with a shape of its own continues from its prefix (sticky, at the prefix). */
const SHAPED: Array<[test: RegExp, pattern: RegExp, replacement?: string]> = [
  // OpenAI, Anthropic and other `sk-` keys.
  [/^sk-$/, /sk-[A-Za-z0-9_-]{16,}/y],
  // Stripe secret and restricted keys, and webhook signing secrets.
  [/^[sr]k_(?:live|test)_$/, /[sr]k_(?:live|test)_[0-9A-Za-z]{10,}/y],
  [/^whsec_$/, /whsec_[A-Za-z0-9+/=]{20,}/y],
  // GitHub tokens (classic, OAuth, user-to-server, server-to-server, refresh) and fine-grained.
  [/^gh[pousr]_$/, /gh[pousr]_[A-Za-z0-9]{20,}/y],
  [/^github_pat_$/, /github_pat_[A-Za-z0-9_]{20,}/y],
  // AWS access key ids (long-term and temporary).
  [/^(?:AKIA|ASIA)$/, /(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/y],
  // Slack bot, user, app-level tokens and incoming-webhook URLs.
  [/^xox[abposr]-$/, /xox[abposr]-[A-Za-z0-9-]{10,}/y],
  [/^xapp-$/, /xapp-[A-Za-z0-9-]{10,}/y],
  [/^hooks\.slack\.com\/services\/$/i, /(hooks\.slack\.com\/services\/)[A-Za-z0-9/_-]{8,}/iy, "$1"],
  // `Authorization: Bearer …` (any case).
  [/^bearer$/i, /(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/iy, "$1"],
  // JSON Web Tokens: a header that decodes to `{"`, a payload, a signature (maybe empty).
  [/^eyJ$/, /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/y],
  // Google API keys.
  [/^AIza$/, /AIza[0-9A-Za-z_-]{35}/y],
  // GitLab personal, deploy, runner, trigger, CI-job and service-account tokens.
  [/^gl(?:pat|dt|rt|ptt|cbt|soat)-$/, /gl(?:pat|dt|rt|ptt|cbt|soat)-[0-9A-Za-z_-]{20,}/y],
  // npm access tokens.
  [/^npm_$/, /npm_[A-Za-z0-9]{36}/y],
  // Google OAuth client secrets, access tokens and refresh tokens.
  [/^GOCSPX-$/, /GOCSPX-[A-Za-z0-9_-]{20,}/y],
  [/^ya29\.$/, /ya29\.[0-9A-Za-z_-]{20,}/y],
  [/^1\/\/0$/, /1\/\/0[0-9A-Za-z_-]{30,}/y],
];

/**
 * The name words that end a secret's name: the last part of `DB_PASSWORD`, `apiKey`,
 * `client-secret`, `AWS_SECRET_ACCESS_KEY`, `AccountKey`, `--auth-token`.
 */
const SECRET_NAME =
  /(?:password|passwd|passphrase|secret|token|credentials?|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|account[_-]?key)$/i;

/**
 * Names that end like a secret's but hold none: cursor-wrap's own run token (which ties logs
 * together), MCP progress tokens, pagination and cancellation tokens.
 */
const NOT_SECRET_NAME =
  /(?:^|_)agent_token$|^(?:progress|(?:next)?page|continuation|cancellation)[_-]?token$/i;

/** Whether a name (an object key, an env variable, a flag) says its value is a secret. */
export function isSecretName(name: string): boolean {
  const bare = name.replace(/^-{1,2}/, "");
  if (/^sig$/i.test(bare)) return true;
  if (NOT_SECRET_NAME.test(bare)) return false;
  const match = SECRET_NAME.exec(bare);
  if (!match) return false;
  if (match.index === 0) return true;
  // The word must be a part of the name of its own: `DB_PASSWORD`, `apiToken`, not `bypassword`.
  const before = bare[match.index - 1]!;
  const first = bare[match.index]!;
  if (!/[A-Za-z]/.test(before)) return true;
  return /[a-z]/.test(before) && /[A-Z]/.test(first);
}

const NAME_CHARACTER = /[A-Za-z0-9_.-]/;
// A colour code right before a name (`ESC[1mpassword=`): it is not part of the name.
const COLOUR_BEFORE = /(?:\u001b|\\u001b|\\x1b)\[[0-9;]*m(?=[A-Za-z0-9_.-]*$)/i;

// After a secret's name: how its value follows. `\\?["']` is a quote, maybe JSON-escaped; a
// tab may be written `\t` (a serialized record).
const AFTER_NAME_EQUALS = /(\\?["'])?(?:[ \t]|\\t)*=(?:[ \t]|\\t)*/y;
const AFTER_NAME_COLON = /(\\?["'])?(?:[ \t]|\\t)*:(?:[ \t]|\\t)*/y;
// A flag's value: after spaces, or in the next string of a JSON array (`"--token","v"`).
const AFTER_FLAG = /(?:(?:[ \t]|\\t)+|\\?"[ \t]*,[ \t]*(?=\\?"))/y;
// Values: quoted (the whole quoted text, escapes and all) or bare (up to a delimiter).
const QUOTED_DOUBLE = /"((?:[^"\\]|\\.)*)"/y;
const QUOTED_ESCAPED = /\\"((?:[^"\\]|\\\\|\\[^"\\])*)\\"/y;
const QUOTED_SINGLE = /'([^'\\\n]*)'/y;
const BARE = /[^\s"'\\,;&)}\]<>|\u001b]+/y;
// A bare value after a colon that is a JSON literal, a number, or code (a type annotation such
// as `password: string;`, an object or a call) is not a secret's text.
const NOT_A_VALUE =
  /^(?:true|false|null|-?\d|[{[(]|(?:string|number|boolean|any|unknown|never|object|void|undefined|bigint|symbol)\b)/;
const CODE_AFTER = /^[ \t]*[;)|<>=?[]/;
const TYPE_NAME = /^[A-Z][a-z][A-Za-z0-9]*$/;

/** The value of a secret that starts at `at`: its span (quotes kept) or undefined. */
function valueAt(text: string, at: number, afterColon: boolean): Found | undefined {
  for (const quoted of [QUOTED_ESCAPED, QUOTED_DOUBLE, QUOTED_SINGLE]) {
    quoted.lastIndex = at;
    const match = quoted.exec(text);
    if (!match) continue;
    if (match[1] === "" || match[1] === REPLACEMENT) return undefined;
    const open = match[0].startsWith("\\") ? 2 : 1;
    return { from: at + open, to: at + match[0].length - open, replacement: REPLACEMENT };
  }
  // Redacted already (the CLI masks the values of secret flags itself).
  if (text.startsWith(REPLACEMENT, at)) return undefined;
  BARE.lastIndex = at;
  const bare = BARE.exec(text);
  if (!bare || bare[0] === REPLACEMENT) return undefined;
  if (afterColon) {
    // A type annotation (`credentials: RequestCredentials;`) is code, not a secret's text.
    const after = text.slice(at + bare[0].length, at + bare[0].length + 8);
    if (NOT_A_VALUE.test(bare[0]) || (TYPE_NAME.test(bare[0]) && CODE_AFTER.test(after))) {
      return undefined;
    }
  }
  return { from: at, to: at + bare[0].length, replacement: REPLACEMENT };
}

/** A secret given under a name (`PASSWORD=…`, `"token": "…"`, `--api-key …`) at a name word. */
function namedSecret(text: string, index: number): Found | undefined {
  let start = index;
  while (start > 0 && index - start < 64 && NAME_CHARACTER.test(text[start - 1]!)) start -= 1;
  // A JSON escape right before the name (`\n--token`) is not part of it.
  if (start > 0 && text[start - 1] === "\\" && /[nrtbf]/.test(text[start]!)) start += 1;
  const windowStart = Math.max(0, start - 12);
  const colour = COLOUR_BEFORE.exec(text.slice(windowStart, index));
  if (colour) start = Math.max(start, windowStart + colour.index + colour[0].length);
  let end = index;
  while (end < text.length && end - index < 48 && /[A-Za-z0-9_-]/.test(text[end]!)) end += 1;
  const name = text.slice(start, end);
  if (!isSecretName(name)) return undefined;
  AFTER_NAME_EQUALS.lastIndex = end;
  let separator = AFTER_NAME_EQUALS.exec(text);
  let afterColon = false;
  if (!separator && !name.startsWith("-")) {
    AFTER_NAME_COLON.lastIndex = end;
    separator = AFTER_NAME_COLON.exec(text);
    afterColon = separator !== null;
  }
  if (!separator && name.startsWith("--")) {
    AFTER_FLAG.lastIndex = end;
    separator = AFTER_FLAG.exec(text);
  }
  if (!separator) return undefined;
  // The closing quote of a quoted name is part of the separator, not of the value.
  return valueAt(text, end + separator[0].length, afterColon);
}

/** `scheme://user:password@host`: the password. */
function urlCredentials(text: string, index: number): Found | undefined {
  const credentials = /([^\s/@:"'\\]*):([^\s/@"'\\]+)@/y;
  credentials.lastIndex = index + 3;
  const match = credentials.exec(text);
  if (!match || match[2] === REPLACEMENT) return undefined;
  const from = index + 3 + match[1]!.length + 1;
  return { from, to: from + match[2]!.length, replacement: REPLACEMENT };
}

/** Azure AD (Entra ID) client secrets: three characters, a digit, `Q~`, then 31 to 34 more. */
function azureClientSecret(text: string, index: number): Found | undefined {
  // The candidate is the digit: the secret begins three characters before it.
  const start = index - 3;
  if (start < 0) return undefined;
  const secret = /[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/y;
  secret.lastIndex = start;
  const match = secret.exec(text);
  if (!match || !atBoundary(text, start)) return undefined;
  return { from: start, to: start + match[0].length, replacement: REPLACEMENT };
}

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

/** The secret at a candidate, if there is one. */
function secretAt(text: string, index: number, candidate: string): Found | undefined {
  if (candidate === "://") return urlCredentials(text, index);
  if (candidate.endsWith("Q~")) return azureClientSecret(text, index);
  if (NAME_WORD.test(candidate)) return namedSecret(text, index);
  if (!atBoundary(text, index)) return undefined;
  for (const [test, pattern, replacement] of SHAPED) {
    if (!test.test(candidate)) continue;
    pattern.lastIndex = index;
    const match = pattern.exec(text);
    if (!match) return undefined;
    const kept = replacement === undefined ? "" : (match[1] ?? "");
    return { from: index + kept.length, to: index + match[0].length, replacement: REPLACEMENT };
  }
  return undefined;
}

// V8 keeps the subject of the last successful match alive (for `RegExp.lastMatch` and the
// like) until another match succeeds, and on the clean text that most of a stream is none
// does: a 5 MB tool result searched here would stay in memory long after its event is gone.
// After a large text, a match of nothing on nothing takes its place.
const FORGET = /(?:)/;
const LARGE_SUBJECT = 65_536;

/** Let go of `text` as the last match's subject, if it is large (see FORGET). */
function forgetSubject(text: string): void {
  if (text.length >= LARGE_SUBJECT) FORGET.exec("");
}

// Terminal control sequences (CSI: colours, erasing the line) that a tool's coloured output
// puts inside a secret: `grep --color=always` highlights the match it found in a key
// (`sk-ESC[01;31mESC[KprojESC[mESC[K-…`), also written as JSON escapes (`\u001b[…`) in the
// text of a JSON line. A text with one is also searched without them.
// (Written as a JSON escape, only a colour or erase code: its parameters and a letter, so that
// it can never reach over a quote or a comma of the JSON around it.)
const CONTROL_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]|\\u001b\[[0-9;:<=>?]*[A-Za-z]/g;

/** `text` without its control sequences, or undefined when it has none. */
function withoutControls(text: string): string | undefined {
  if (text.indexOf("\u001b") === -1 && text.indexOf("\\u001b") === -1) return undefined;
  const plain = text.replace(CONTROL_SEQUENCE, "");
  return plain === text ? undefined : plain;
}

// Secrets known by their value, whatever their shape (an API key given on the command line or
// in the environment): searched for as they are, once any is known.
let knownSecrets: RegExp | undefined;
const knownValues = new Set<string>();
/** The length of the shortest known secret. */
let knownShortest = Number.POSITIVE_INFINITY;
/** Shorter values are not taken: they would blot out ordinary words. */
const KNOWN_SECRET_MIN = 8;

/**
 * Redact these values wherever they appear, from now on, as well as every secret found by its
 * shape or its name (a Cursor API key has no shape of its own). For values a process holds:
 * `CURSOR_API_KEY`, `--api-key`, an auth profile's key. Values shorter than 8 characters, or
 * blank, are left out. Registered before anything is logged: a clean text seen before is
 * remembered as clean.
 */
export function redactKnownSecrets(values: Iterable<string | undefined>): void {
  for (const value of values) {
    const secret = value?.trim();
    if (secret !== undefined && secret.length >= KNOWN_SECRET_MIN) knownValues.add(secret);
  }
  if (knownValues.size === 0) return;
  // Longest first: one that holds another is replaced whole.
  const known = [...knownValues].sort((a, b) => b.length - a.length);
  knownShortest = known.at(-1)!.length;
  const sources = known.map((value) => value.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  knownSecrets = new RegExp(sources.join("|"), "g");
}

/** `text` with every known secret replaced (see {@link redactKnownSecrets}). */
function maskKnown(text: string): string {
  // One pass: `replace` gives the text back as it was when none is in it.
  if (knownSecrets === undefined || text.length < knownShortest) return text;
  knownSecrets.lastIndex = 0;
  return text.replace(knownSecrets, REPLACEMENT);
}

/**
 * Whether `text` holds a known secret: one search of them all, and none in a text too short to
 * hold the shortest (nearly every string of a stream is a few words).
 */
function holdsKnown(text: string): boolean {
  if (knownSecrets === undefined || text.length < knownShortest) return false;
  knownSecrets.lastIndex = 0;
  const found = knownSecrets.test(text);
  knownSecrets.lastIndex = 0;
  return found;
}

/**
 * Whether `text` may contain a secret (a candidate, a `\\u` escape or a control sequence; most
 * text has none).
 */
export function mayContainSecret(text: string): boolean {
  if (plainMayContainSecret(text)) return true;
  if (holdsKnown(text)) return true;
  if (!ESCAPE.test(text)) return false;
  if (!controlInsideWord(text) && !NAME_THEN_CONTROL.test(text)) return false;
  const plain = withoutControls(text);
  return plain !== undefined && plainMayContainSecret(plain);
}

// A character of a key, a name or a value (ASCII letters and digits, `_.:=+/~-`), on either
// side of a control sequence that cuts it; by code, for the loop below.
const WORD_CODES = new Uint8Array(128);
for (const character of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:=+/~-")
  WORD_CODES[character.charCodeAt(0)] = 1;
const isWordCode = (code: number): boolean => code < 128 && WORD_CODES[code] === 1;
const CONTROL_AT = /\u001b\[[0-?]*[ -/]*[@-~]/y;

/**
 * Whether control sequences sit inside a word (`sk-ESC[31mproj`), where they could hide a
 * secret from the searches: colours around whole words (a test runner's ✓, a path, a
 * duration) cannot, and most coloured output has only those.
 */
function controlInsideWord(text: string): boolean {
  for (let at = text.indexOf("\u001b"); at !== -1; at = text.indexOf("\u001b", at + 1)) {
    if (at === 0 || !isWordCode(text.charCodeAt(at - 1))) continue;
    let end = at;
    for (;;) {
      CONTROL_AT.lastIndex = end;
      const sequence = CONTROL_AT.exec(text);
      if (sequence === null) break;
      end += sequence[0].length;
    }
    if (end > at && end < text.length && isWordCode(text.charCodeAt(end))) return true;
  }
  return false;
}

function plainMayContainSecret(text: string): boolean {
  if (text.length < SHORT_TEXT) return SHORT_PRECHECK.test(text);
  // Indexed: where V8's optimizing compiler is off (the MCP proxy) a for…of allocates an
  // iterator result per step, and this runs for every record.
  for (let index = 0; index < PRECHECKS.length; index += 1) {
    if (PRECHECKS[index]!.test(text)) {
      forgetSubject(text);
      return true;
    }
  }
  return false;
}

/** What redacting one piece of text found. */
interface Redacted {
  text: string;
  /** A private key block began and did not end in this text: it goes on in the next. */
  openKey: boolean;
}

/**
 * Redact `text`. A text with control sequences is searched without them: when it holds a
 * secret, it is logged without them, redacted (its colours are lost: no secret hides between
 * them, nor around them). One without a secret keeps them.
 */
function redactWithState(text: string, inKey: boolean): Redacted {
  const plain = withoutControls(text);
  if (plain !== undefined) {
    const redacted = redactPlain(plain, inKey);
    if (redacted.text !== plain || redacted.openKey) return redacted;
  }
  return redactPlain(text, inKey);
}

function redactPlain(input: string, inKey: boolean): Redacted {
  // Known values first: a rule of shape or name could stop inside one and leave its rest.
  const text = maskKnown(input);
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
    const found = secretAt(text, index, candidate);
    if (!found || found.from < last) continue;
    out += text.slice(last, found.from) + found.replacement;
    last = found.to;
    CANDIDATE.lastIndex = Math.max(last, index + candidate.length);
  }
  forgetSubject(text);
  return { text: last === 0 ? text : out + text.slice(last), openKey };
}

/**
 * Replace secrets in `text` with `[REDACTED]` (every form in the README's list: API keys and
 * tokens by their shape, JWTs, PEM private keys, credentials in URLs, and values given under
 * a secret's name such as `PASSWORD=…`, `"apiKey": "…"` or `--token …`). Text without a
 * candidate comes back as it was.
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
const CUT_SECRET = new RegExp(
  `(${PREFIXES.replace("|://", "").replace("|[0-9]Q~", "")}|bearer\\s+|(?:password|passwd|secret|token|key)\\S{0,4}[=:]\\s*\\\\?["']?|--(?:[a-z-]*)(?:password|token|secret|key)[= ])[A-Za-z0-9._~+/=-]*$`,
  "i",
);

/** Redact a text that was cut off: also a secret that runs past its end. */
export function redactCut(text: string): string {
  const redacted = redact(text);
  return maskCutSecret(redacted) ?? redacted;
}

/**
 * `redacted` (a text cut off, already redacted) with the secret that runs past its end
 * replaced, or undefined when none does; only the last `window` characters are looked at.
 */
export function maskCutSecret(redacted: string, window = redacted.length): string | undefined {
  const from = Math.max(0, redacted.length - window);
  const known = knownCutAt(redacted);
  const cut = CUT_SECRET.exec(from === 0 ? redacted : redacted.slice(from));
  const shaped = cut && atBoundary(redacted, from + cut.index) ? from + cut.index : undefined;
  if (known !== undefined && (shaped === undefined || known <= shaped)) {
    return `${redacted.slice(0, known)}${REPLACEMENT}`;
  }
  if (shaped === undefined || !cut) return undefined;
  return `${redacted.slice(0, shaped)}${cut[1]}${REPLACEMENT}`;
}

/** A cut-off known secret's beginning, this long at least, ends a text: it is masked. */
const KNOWN_CUT_MIN = 4;

/**
 * Where the beginning of a known secret (see {@link redactKnownSecrets}) that runs past the end
 * of `text` starts, if one does: the earliest, when several do.
 */
function knownCutAt(text: string): number | undefined {
  const length = longestKnownPiece(text, (value, size) => text.endsWith(value.slice(0, size)));
  return length === 0 ? undefined : text.length - length;
}

/**
 * The longest piece of a known secret, from `KNOWN_CUT_MIN` characters to one short of the
 * whole, that `fits` (`fits(value, size)`: the piece of `value` of that size is where it must
 * be in `text`), or 0.
 */
function longestKnownPiece(text: string, fits: (value: string, size: number) => boolean): number {
  let longest = 0;
  for (const value of knownValues) {
    const shortest = Math.max(longest + 1, KNOWN_CUT_MIN);
    for (let size = Math.min(value.length - 1, text.length); size >= shortest; size -= 1) {
      if (!fits(value, size)) continue;
      longest = size;
      break;
    }
  }
  return longest;
}

// The rest of a secret at the start of a text whose beginning was cut off with the text before.
const LEADING_SECRET = /^(\\?["']?)[A-Za-z0-9._~+/=-]+/;

/** `text` with the rest of a secret cut off before it replaced (see {@link maskCutSecret}). */
export function maskLeadingSecret(text: string): string {
  return text.replace(LEADING_SECRET, (_, quote: string) => `${quote}${REPLACEMENT}`);
}

/**
 * `text`, which goes on from a text cut off before it, with the end of a known secret (see
 * {@link redactKnownSecrets}) it begins with masked: the cut may have left too little of its
 * beginning before it to be known by.
 */
export function maskKnownLead(text: string): string {
  const length = longestKnownPiece(text, (value, size) =>
    text.startsWith(value.slice(value.length - size)),
  );
  return length === 0 ? text : `${REPLACEMENT}${text.slice(length)}`;
}

// Values are searched decoded, as a reader of the log sees them (and as `redactJsonValue`
// redacts them), so an escape in the raw line (`\u0073k-`, `\t`, `\/`) hides nothing; the
// line's structure (keys, punctuation, numbers: a third of a tool call's bytes) is not searched.
// Per key, the last string found to hold no candidate (the same session id, type, subtype and
// paths come on every line): one comparison instead of a search. Keys are the agent's: the
// caches are emptied when they grow past a bound.
const keys = new Map<string, KeyState>();
const CACHED_KEYS = 1024;

/**
 * What is known of an object key: whether it names a secret, whether it may hold one itself (a
 * map keyed by tokens), its last clean string value.
 */
interface KeyState {
  namesSecret: boolean;
  holdsSecret: boolean;
  clean: string | undefined;
}

function keyState(key: string): KeyState {
  let state = keys.get(key);
  if (state === undefined) {
    state = {
      namesSecret: isSecretName(key),
      holdsSecret: mayContainSecret(key),
      clean: undefined,
    };
    if (keys.size >= CACHED_KEYS) keys.clear();
    keys.set(key, state);
  }
  return state;
}

/** Nesting past which a value is not walked (nor redacted value by value): see {@link TOO_DEEP}. */
export const MAX_JSON_DEPTH = 128;

/** What {@link jsonValueMayContainSecret} answers for a value nested past {@link MAX_JSON_DEPTH}. */
export const TOO_DEEP = 2;

/**
 * Whether {@link redactJsonValue} could change a parsed JSON value: 0 no, 1 maybe (a string
 * holds a candidate, a key or a flag names a secret), {@link TOO_DEEP} when it nests deeper
 * than {@link MAX_JSON_DEPTH} (walking it, or redacting it value by value, could exhaust the
 * stack: the caller redacts its text instead). Array items count under their array's key.
 */
export function jsonValueMayContainSecret(value: unknown): 0 | 1 | 2 {
  return valueMayContainSecret(value, ROOT_KEY, 0);
}

const ROOT_KEY: KeyState = { namesSecret: false, holdsSecret: false, clean: undefined };

// Longer clean values are not remembered: they seldom come again, and a tool's output (up to
// the parse cap) would be kept alive until the next value under its key.
const REMEMBERED_LENGTH = 1024;

function stringMayContainSecret(value: string, key: KeyState): boolean {
  if (key.clean === value) return false;
  if (mayContainSecret(value)) return true;
  if (value.length <= REMEMBERED_LENGTH) key.clean = value;
  return false;
}

function valueMayContainSecret(value: unknown, key: KeyState, depth: number): 0 | 1 | 2 {
  if (typeof value === "string") return stringMayContainSecret(value, key) ? 1 : 0;
  if (typeof value !== "object" || value === null) return 0;
  if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      if (typeof item === "string" && index > 0 && flagNamesSecret(value[index - 1], item))
        return 1;
      const found = valueMayContainSecret(item, key, depth + 1);
      if (found !== 0) return found;
    }
    return 0;
  }
  const object = value as Record<string, unknown>;
  for (const name in object) {
    const item = object[name];
    const state = keyState(name);
    if (state.holdsSecret) return 1;
    if (typeof item === "string") {
      if (state.namesSecret && isHiddenValue(item)) return 1;
      if (stringMayContainSecret(item, state)) return 1;
    } else if (typeof item === "object" && item !== null) {
      const found = valueMayContainSecret(item, state, depth + 1);
      if (found !== 0) return found;
    }
  }
  return 0;
}

/**
 * Whether {@link redactJsonValue} would change a value, at any depth: each string redacted, each
 * key and flag looked at, walking with a stack of its own instead of recursion (slower: for the
 * rare value nested past {@link MAX_JSON_DEPTH}).
 */
function deepValueHasSecret(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") {
      if (redact(value) !== value) return true;
    } else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        if (typeof item === "string" && index > 0 && flagNamesSecret(value[index - 1], item))
          return true;
        pending.push(item);
      }
    } else if (typeof value === "object" && value !== null) {
      const object = value as Record<string, unknown>;
      for (const name in object) {
        const item = object[name];
        if (isHiddenValue(item) && isSecretName(name)) return true;
        if (redact(name) !== name) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/**
 * Whether a value given under a secret's name (a key, a flag before it) is replaced: a string
 * with something in it, not replaced already. One rule for the pre-check and the redaction.
 */
/**
 * A string field of a record of one's own, redacted: all of it under a key that names a secret
 * (`namesSecret`, from {@link isSecretName}), else the secrets in it.
 */
export function redactField(namesSecret: boolean, value: string): string {
  return namesSecret && isHiddenValue(value) ? REPLACEMENT : redact(value);
}

function isHiddenValue(item: unknown): item is string {
  return typeof item === "string" && item !== "" && item !== REPLACEMENT;
}

/** Whether `item`, in an array after `previous`, is the value of a flag naming a secret. */
function flagNamesSecret(previous: unknown, item: string): boolean {
  return (
    typeof previous === "string" &&
    previous.startsWith("--") &&
    !previous.includes("=") &&
    isHiddenValue(item) &&
    isSecretName(previous)
  );
}

// A `\u` escape of a printable ASCII character other than `"` and `\`, or an escaped `/`, after
// an even run of backslashes (an odd one is an escaped backslash before plain text).
const PLAIN_ESCAPE = /(?<!\\)((?:\\\\)*)\\(?:u00([2-7][0-9A-Fa-f])|\/)/g;

/**
 * Redact the text of a JSON value as it is, without parsing it (a value nested too deep to be
 * redacted value by value): the escapes that can spell a secret's text (`\u0073k-`, `:\/\/`)
 * are written plainly first, which leaves the same JSON value, then {@link redact}, whose rules
 * keep JSON text valid.
 */
export function redactJsonText(json: string): string {
  const plain = json.includes("\\")
    ? json.replace(PLAIN_ESCAPE, (sequence, backslashes: string, hex: string | undefined) => {
        if (hex === undefined) return `${backslashes}/`;
        const code = Number.parseInt(hex, 16);
        return code === 0x22 || code === 0x5c || code === 0x7f
          ? sequence
          : `${backslashes}${String.fromCharCode(code)}`;
      })
    : json;
  const redacted = redact(plain);
  forgetSubject(json);
  return redacted === plain ? json : redacted;
}

/**
 * Redact a parsed JSON value as a reader of the log would see it: every string (decoded, so
 * escaped forms are caught), the values of keys that name secrets (`CURSOR_API_KEY`, `apiKey`,
 * `password`, …), and in arrays the string after a flag that names one (`["--token", "…"]`).
 * Returns the same value when nothing changed. Below {@link MAX_JSON_DEPTH} levels a value that
 * holds a secret is replaced whole by `[REDACTED]`: going on value by value could exhaust the
 * stack (a session log redacts such a line by its text).
 */
export function redactJsonValue(value: unknown, depth = 0): { value: unknown; changed: boolean } {
  if (depth >= MAX_JSON_DEPTH && typeof value === "object" && value !== null) {
    return deepValueHasSecret(value)
      ? { value: REPLACEMENT, changed: true }
      : { value, changed: false };
  }
  if (typeof value === "string") {
    const text = redact(value);
    return { value: text, changed: text !== value };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item, index) => {
      if (typeof item === "string" && index > 0 && flagNamesSecret(value[index - 1], item)) {
        changed = true;
        return REPLACEMENT;
      }
      const redacted = redactJsonValue(item, depth + 1);
      changed ||= redacted.changed;
      return redacted.value;
    });
    return changed ? { value: items, changed } : { value, changed };
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const keys = new Set<string>();
    const entries = Object.entries(value).map(([name, item]) => {
      // A key that is a secret itself (a map keyed by tokens) is redacted too, and numbered if
      // that makes it another key's twin, so that no value is lost.
      let key = redact(name);
      if (key !== name) {
        changed = true;
        for (let twin = 2; keys.has(key) || Object.hasOwn(value, key); twin += 1)
          key = `${redact(name)} (${twin})`;
      }
      keys.add(key);
      if (isHiddenValue(item) && isSecretName(name)) {
        changed = true;
        return [key, REPLACEMENT] as const;
      }
      const redacted = redactJsonValue(item, depth + 1);
      changed ||= redacted.changed;
      return [key, redacted.value] as const;
    });
    return changed ? { value: Object.fromEntries(entries), changed } : { value, changed };
  }
  return { value, changed: false };
}
