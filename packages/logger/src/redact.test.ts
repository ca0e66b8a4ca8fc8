import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { createLineFramer, parseLine } from "@cursor-wrap/events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createRawRecordEncoder,
  createStderrRecordEncoder,
  decodeLogRecord,
} from "./raw-record.js";
import {
  createLineRedactor,
  jsonValueMayContainSecret,
  MAX_JSON_DEPTH,
  mayContainSecret,
  redact,
  redactCut,
  redactJsonText,
  redactJsonValue,
  TOO_DEEP,
} from "./redact.js";

/**
 * The forms added for the MCP logs and every other (README "Secrets in logs"): name, text,
 * the text redacted, and the part of it that must never be in a log.
 */
const FORMS: Array<[string, string, string, string]> = [
  [
    "URL credentials",
    "postgres://admin:s3cretPass0123456789@db.example.com:5432/app",
    "postgres://admin:[REDACTED]@db.example.com:5432/app",
    "s3cretPass",
  ],
  ["password=", "DB_PASSWORD=hunter2-0123456789", "DB_PASSWORD=[REDACTED]", "hunter2"],
  [
    "password in a query string",
    "https://x.example/login?user=a&password=hunter2-0123456789&next=1",
    "https://x.example/login?user=a&password=[REDACTED]&next=1",
    "hunter2",
  ],
  [
    "--password value",
    "mysql --password hunter2-0123456789 -u root",
    "mysql --password [REDACTED] -u root",
    "hunter2",
  ],
  ["--token=", "tool --token=tok0123456789abcdef", "tool --token=[REDACTED]", "tok0123456789"],
  ["password: in YAML", "password: hunter2-0123456789", "password: [REDACTED]", "hunter2"],
  [
    "JWT",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "[REDACTED]",
    "SflKxwRJSMeKKF2QT4fw",
  ],
  [
    "AWS secret access key",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY0123456789",
    "aws_secret_access_key = [REDACTED]",
    "wJalrXUtnFEMI",
  ],
  ["AWS temporary access key id", "ASIAIOSFODNN7EXAMPLE", "[REDACTED]", "IOSFODNN7EXAMPLE"],
  ["Google API key", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "[REDACTED]", "SyA-1234567890"],
  ["GitLab token", "glpat-AbCdEf0123456789xYzW", "[REDACTED]", "AbCdEf0123456789"],
  ["npm token", "npm_AbCdEf0123456789AbCdEf0123456789AbCd", "[REDACTED]", "AbCdEf0123456789"],
  ["Slack app token", "xapp-1-A0123456789-0123456789012-abcdef", "[REDACTED]", "A0123456789"],
  [
    "Slack webhook",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXX0123456789",
    "https://hooks.slack.com/services/[REDACTED]",
    "T00000000",
  ],
  ["Stripe secret key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc0123456789", "[REDACTED]", "4eC39HqLyjWD"],
  [
    "Stripe restricted key",
    "rk_test_4eC39HqLyjWDarjtT1zdp7dc0123456789",
    "[REDACTED]",
    "4eC39HqLyjWD",
  ],
  [
    "Stripe webhook secret",
    "whsec_AbCdEf0123456789AbCdEf0123456789",
    "[REDACTED]",
    "AbCdEf0123456789",
  ],
  [
    "Azure storage connection string",
    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;EndpointSuffix=core.windows.net",
    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[REDACTED];EndpointSuffix=core.windows.net",
    "Eby8vdM02xNOcqFlqUwJ",
  ],
  [
    "Azure Service Bus key",
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=AbCdEf0123456789AbCdEf0123456789AbCdEf01234=",
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=[REDACTED]",
    "AbCdEf0123456789",
  ],
  [
    "Azure SAS signature",
    "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sr=b&sp=r&sig=AbCdEf0123456789%2BXyZ%3D",
    "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sr=b&sp=r&sig=[REDACTED]",
    "AbCdEf0123456789",
  ],
  [
    "Azure AD client secret",
    "abc8Q~AbCdEfGhIjKlMnOpQrStUvWxYz0123456",
    "[REDACTED]",
    "AbCdEfGhIjKlMnOp",
  ],
  [
    "Google OAuth client secret",
    "GOCSPX-AbCdEf0123456789AbCdEf01234",
    "[REDACTED]",
    "AbCdEf0123456789",
  ],
  [
    "Google OAuth access token",
    "ya29.a0AfH6SMBxAbCdEf0123456789",
    "[REDACTED]",
    "AbCdEf0123456789",
  ],
  [
    "GCP service account key",
    '"private_key_id": "deadbeef", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN0123456789\n-----END PRIVATE KEY-----\n"',
    '"private_key_id": "deadbeef", "private_key": "[REDACTED]"',
    "MIIEvQIBADAN",
  ],
];

const SECRETS: Array<[string, string, string]> = [
  ["OpenAI key", "sk-proj-AbCdEf0123456789AbCdEf0123", "[REDACTED]"],
  ["Anthropic key", "sk-ant-api03-AbCdEf0123456789_xyz", "[REDACTED]"],
  ["GitHub token", "ghp_AbCdEf0123456789AbCdEf0123456789abcd", "[REDACTED]"],
  ["GitHub OAuth token", "gho_AbCdEf0123456789AbCdEf0123456789abcd", "[REDACTED]"],
  ["GitHub fine-grained token", "github_pat_11AAAAAAA0123456789_abcdefABCDEF", "[REDACTED]"],
  ["AWS access key", "AKIAIOSFODNN7EXAMPLE", "[REDACTED]"],
  ["Slack token", "xoxb-123456789012-abcdefghijkl", "[REDACTED]"],
  ["Bearer header", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", "Bearer [REDACTED]"],
  [
    "bearer header",
    "authorization: bearer eyJhbGciOiJIUzI1NiJ9.e30.abc",
    "authorization: bearer [REDACTED]",
  ],
  ["CURSOR_API_KEY", "CURSOR_API_KEY=key_abcdef0123456789", "CURSOR_API_KEY=[REDACTED]"],
  [
    "CURSOR_API_KEY in double quotes",
    'CURSOR_API_KEY="key_abcdef0123456789"',
    'CURSOR_API_KEY="[REDACTED]"',
  ],
  [
    "CURSOR_API_KEY in single quotes",
    "CURSOR_API_KEY='key_abcdef0123456789'",
    "CURSOR_API_KEY='[REDACTED]'",
  ],
  [
    "CURSOR_API_KEY as JSON",
    '{"CURSOR_API_KEY": "key_abcdef0123456789"}',
    '{"CURSOR_API_KEY": "[REDACTED]"}',
  ],
  [
    "--api-key=",
    "cursor-agent --api-key=key_abcdef0123456789 -p",
    "cursor-agent --api-key=[REDACTED] -p",
  ],
  ["--auth-token", "--auth-token tok_abcdef0123456789", "--auth-token [REDACTED]"],
  [
    // A text with a secret is logged without its colours (none can hide a secret then).
    "colour-wrapped key",
    "\u001b[31msk-proj-AbCdEf0123456789AbCdEf\u001b[0m",
    "[REDACTED]",
  ],
  [
    "PEM private key",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1\nabc=\n-----END RSA PRIVATE KEY-----",
    "[REDACTED]",
  ],
  ...FORMS.map(([name, text, redacted]): [string, string, string] => [name, text, redacted]),
];

describe("redact", () => {
  for (const [name, secret, replacement] of SECRETS) {
    it(`removes a ${name} from serialized JSON and keeps the JSON valid`, () => {
      const record = JSON.stringify({ stdout: `export X\n${secret}\nnext line`, nested: [secret] });
      expect(mayContainSecret(record)).toBe(true);
      const redacted = redact(record);
      const parsed = JSON.parse(redacted) as { stdout: string; nested: string[] };
      expect(parsed.stdout).toBe(`export X\n${replacement}\nnext line`);
      expect(parsed.nested).toEqual([replacement]);
      expect(redacted).not.toContain("0123456789");
    });
  }

  it("leaves ordinary text alone, with no work but one search", () => {
    const text = JSON.stringify({
      text: "task-list, mask-image, sk-short, ghost_town, Bearer of news, AKIA-not, .task-item { }",
    });
    expect(redact(text)).toBe(text);
  });

  it("keeps any JSON valid with secrets anywhere in it (property)", () => {
    const secret = fc.constantFrom(...SECRETS.map(([, value]) => value));
    const text = fc
      .tuple(fc.string(), secret, fc.string())
      .map(([before, value, after]) => `${before}${value}${after}`);
    fc.assert(
      fc.property(fc.jsonValue(), text, (value, withSecret) => {
        const record = JSON.stringify({ value, text: withSecret });
        expect(() => JSON.parse(redact(record))).not.toThrow();
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });

  it("redacts a key cut off at the end of a head", () => {
    expect(redactCut("… export OPENAI=sk-proj-AbCd")).toBe("… export OPENAI=sk-[REDACTED]");
    expect(redactCut("header: Bearer eyJhb")).toBe("header: Bearer [REDACTED]");
    expect(redactCut("… a task-li")).toBe("… a task-li");
  });

  it("redacts a private key printed a line at a time, from BEGIN to END", () => {
    const redactor = createLineRedactor();
    const lines = [
      "here is the key:",
      "-----BEGIN OPENSSH PRIVATE KEY-----",
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
      "QyNTUxOQAAACB7sNnH",
      "-----END OPENSSH PRIVATE KEY----- done",
      "after",
    ].map((line) => redactor.line(line));
    expect(lines).toEqual([
      "here is the key:",
      "[REDACTED]",
      "[REDACTED]",
      "[REDACTED]",
      "[REDACTED] done",
      "after",
    ]);
  });
});

describe("redactJsonValue", () => {
  it("redacts decoded strings and the values of keys that name secrets", () => {
    const value = { env: { CURSOR_API_KEY: "key-1", apiKey: "k2", user: "me" }, args: ["x"] };
    expect(redactJsonValue(value)).toEqual({
      value: {
        env: { CURSOR_API_KEY: "[REDACTED]", apiKey: "[REDACTED]", user: "me" },
        args: ["x"],
      },
      changed: true,
    });
    const clean = { a: [1, "two"] };
    const kept = redactJsonValue(clean);
    expect(kept.changed).toBe(false);
    expect(kept.value).toBe(clean);
  });
});

describe("the raw records, redacted as a reader would see them", () => {
  const encoder = () => createRawRecordEncoder({ now: () => 1, redact: true });
  const decoded = (parts: Buffer[]) => JSON.parse(Buffer.concat(parts).toString("utf8"));

  it.each([
    ["\\u0073k-proj-AbCdEf0123456789AbCdEf0123"],
    ["sk\\u002dproj-AbCdEf0123456789AbCdEf0123"],
    ["\\u001b[1msk-proj-AbCdEf0123456789AbCdEf0123\\u001b[0m"],
  ])("finds a key written as %s inside a JSON string", (escaped) => {
    const line = parseLine(`{"type":"tool_call","output":"key: ${escaped}"}\n`);
    const record = decoded(encoder().encode(line));
    expect(JSON.stringify(record)).not.toContain("0123456789");
    expect(record.raw.output).toContain("[REDACTED]");
  });

  it("redacts a line nested too deep to walk by its text, and keeps a clean one as it came", () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 20_000, 200_000]) {
      const nest = (inner: string) =>
        `{"type":"tool_call","a":${"[".repeat(depth)}${inner}${"]".repeat(depth)}}`;
      for (const [inner, leak] of [
        ['"sk-proj-AbCdEf0123456789AbCdEf0123"', "AbCdEf0123456789"],
        ['"\\u0073k-proj-AbCdEf0123456789AbCdEf0123"', "AbCdEf0123456789"],
        ['{"password":"hunter2-0123456789"}', "hunter2"],
        ['"--token","tok0123456789abcdef"', "tok0123456789"],
        ['"postgres:\\/\\/admin:s3cretPass0123@db"', "s3cretPass"],
      ] as const) {
        const line = nest(inner);
        const event = parseLine(`${line}\n`);
        expect(event.kind).toBe("json");
        expect(jsonValueMayContainSecret(event.kind === "json" ? event.data : 0)).toBe(TOO_DEEP);
        const record = Buffer.concat(encoder().encode(event)).toString("utf8");
        expect(record).not.toContain(leak);
        expect(record).toContain("[REDACTED]");
        // Still one record holding the line's JSON text (the head is the usual one).
        expect(record.indexOf("\n")).toBe(record.length - 1);
        expect(record.startsWith('{"level":20,"time":1,"msg":"raw_event","recv_ts":')).toBe(true);
      }
      const clean = parseLine(`${nest('"task-list"')}\n`);
      const parts = encoder().encode(clean);
      expect(Buffer.concat(parts).toString("utf8")).toContain(nest('"task-list"'));
    }
  });

  it("redactJsonValue replaces a part nested too deep whole, and only if it may hold a secret", () => {
    const nest = (inner: unknown, depth: number): unknown => {
      let value = inner;
      for (let level = 0; level < depth; level += 1) value = [value];
      return value;
    };
    const secret = redactJsonValue({ a: nest("sk-proj-AbCdEf0123456789AbCdEf0123", 20_000) });
    expect(secret.changed).toBe(true);
    const text = JSON.stringify(secret.value);
    expect(text).not.toContain("AbCdEf0123456789");
    expect(text).toContain('"[REDACTED]"');
    const clean = { a: nest("task-list", 20_000) };
    const kept = redactJsonValue(clean);
    expect(kept.changed).toBe(false);
    expect(kept.value).toBe(clean);
  });

  it("writes plainly only the escapes that cannot change a JSON value's meaning", () => {
    expect(redactJsonText('{"k":"\\u0073k-proj-AbCdEf0123456789AbCdEf0123"}')).toBe(
      '{"k":"[REDACTED]"}',
    );
    // An escaped backslash before `u0073` is text, not an escape: left as it was.
    const text = '{"k":"\\\\u0073k-proj-AbCdEf0123456789AbCdEf0123 and \\\\\\/ \\" \\u0022"}';
    expect(redactJsonText(text)).toBe(text);
    const value = JSON.parse(redactJsonText('{"k":"a \\\\\\u0073 \\/ \\u005c \\u0022 \\u007f"}'));
    expect(value).toEqual(JSON.parse('{"k":"a \\\\\\u0073 \\/ \\u005c \\u0022 \\u007f"}'));
  });

  it("keeps a clean JSON line byte for byte: a short one copied into the chunk's buffer, a long one as it came", () => {
    const short = parseLine('{"type":"assistant","text":"\\u001b[1mbold\\u001b[0m task-list"}\n');
    const accented = parseLine('{"type":"assistant","text":"café … ✓"}\r\n');
    const long = parseLine(`{"type":"assistant","text":"${"task-list ".repeat(2_000)}"}\n`);
    const parts = encoder().encodeAll([short, accented, short, long, short]);
    // Each run of short records (ASCII or not) is one buffer; a long line's record is its
    // head, the very buffer the line came in, and its end.
    expect(parts).toHaveLength(5);
    // The long line is not copied: its record holds a view of the bytes it came in.
    expect(parts[2]?.buffer).toBe(long.raw.buffer);
    expect(parts[2]?.byteOffset).toBe(long.raw.byteOffset);
    expect(parts[2]?.length).toBe(long.raw.length - 1);
    const raws = Buffer.concat(parts)
      .toString("utf8")
      .trimEnd()
      .split("\n")
      .map((record) => {
        const bytes = Buffer.from(record, "utf8");
        return decodeLogRecord(bytes, JSON.parse(record) as Record<string, unknown>);
      });
    expect(raws.map((entry) => (entry.kind === "raw" ? entry.raw : undefined))).toEqual(
      [short, accented, short, long, short].map((event) =>
        event.kind === "json" ? event.line : undefined,
      ),
    );
    expect(raws.map((entry) => (entry.kind === "raw" ? entry.eol : undefined))).toEqual([
      "\n",
      "\r\n",
      "\n",
      "\n",
      "\n",
    ]);
  });

  it("redacts the base64 copy of a line that is not UTF-8, as its text copy", () => {
    const bytes = Buffer.concat([
      Buffer.from("T: ", "latin1"),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(" token "),
      Buffer.from("ghp_AbCdEf0123456789AbCdEf0123456789abcd\n"),
    ]);
    const record = decoded(encoder().encode(parseLine(bytes)));
    expect(record.raw_text).not.toContain("0123456789");
    expect(Buffer.from(record.raw_base64, "base64").toString("latin1")).not.toContain("0123456789");
    expect(Buffer.from(record.raw_base64, "base64").toString("latin1")).toContain("[REDACTED]");
  });

  it("keeps the exact bytes of a bare text line that is not UTF-8", () => {
    const bytes = Buffer.from([0x54, 0x3a, 0x20, 0xc3, 0x28, 0x0a]);
    const record = decoded(
      createRawRecordEncoder({ now: () => 1, redact: false }).encode(parseLine(bytes)),
    );
    expect(Buffer.from(record.raw_base64, "base64")).toEqual(bytes.subarray(0, 5));
  });

  it("redacts stderr lines, a private key across them, and keeps their bytes", () => {
    const stderr = createStderrRecordEncoder({ now: () => 1, redact: true });
    const records = [
      "-----BEGIN PRIVATE KEY-----",
      "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ",
      "-----END PRIVATE KEY-----",
    ].map((text) => decoded([Buffer.from(stderr.encode(parseLine(`${text}\n`)))]));
    expect(records.map((record) => record.raw_text)).toEqual([
      "[REDACTED]",
      "[REDACTED]",
      "[REDACTED]",
    ]);
    expect(records[0]).toMatchObject({ msg: "agent_stderr", stream: "stderr", level: 40 });
  });
});

describe("a stderr line longer than a piece (property)", () => {
  const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
  // Secrets of several forms, each with a part that must never be logged.
  const SECRETS: Array<[text: string, body: string]> = [
    ["sk-proj-SPLITKEYabcdefghijklmnopqrstuvwxyz0123", "SPLITKEYabcdefghijklmnop"],
    ["password: hunter2-correct-horse-battery", "hunter2-correct-horse"],
    ["Authorization: Bearer tok0123456789abcdefghij", "tok0123456789abcdef"],
    ["--api-key key0123456789abcdefghijklmn", "key0123456789abcdefghij"],
    [`${"x".repeat(5000)}&password=s3cret0123456789abcdefgh`, "s3cret0123456789abcd"],
    // A name and its value as words apart, in the forms logs and configs write them.
    ["DB_PASSWORD: dbvalue0123456789abcdef", "dbvalue0123456789"],
    ["client_secret: csvalue0123456789abcdef", "csvalue0123456789"],
    ['"apiKey": "akvalue0123456789abcdef"', "akvalue0123456789"],
    ["PASSWORD = pwvalue0123456789abcdef", "pwvalue0123456789"],
    ['["--token", "tkvalue0123456789abcdef"]', "tkvalue0123456789"],
    ["credentials: crvalue0123456789abcdef", "crvalue0123456789"],
    ['"password": "jsvalue0123456789abcdef"', "jsvalue0123456789"],
  ];

  const decoded = (parts: Buffer[]) => JSON.parse(Buffer.concat(parts).toString("utf8"));

  it("keeps a secret's name and its value in one record when a piece ends between them", () => {
    for (const [name, value] of [
      ["DB_PASSWORD: ", "dbvalue0123456789abcdef"],
      ['"apiKey": ', '"akvalue0123456789abcdef"'],
      ["Authorization: Bearer ", "tok0123456789abcdefghij"],
    ] as const) {
      const framer = createLineFramer({ parseCap: 64 * 1024 });
      const stderr = createStderrRecordEncoder({ now: () => 1, redact: true });
      // The first chunk (past the cap) ends right after the name; the value starts the next.
      const events = [
        ...framer.push(Buffer.from(`${"lorem ipsum ".repeat(6_000)}${name}`)),
        ...framer.push(Buffer.from(`${value} and more\n`)),
        ...framer.end(),
      ];
      const logged = events
        .map((event) => stderr.encode(event))
        .filter(Boolean)
        .map((text) => (decoded([Buffer.from(text)]) as { raw_text: string }).raw_text)
        .join("");
      expect(logged, name).not.toContain(value.replaceAll('"', "").slice(0, 12));
      expect(logged.endsWith(" and more")).toBe(true);
    }
  });

  it("logs no secret that a piece's end cut in two, and keeps every other byte", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(SECRETS.length - 1), fc.nat(3000)), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 40 }),
        (placed, cuts) => {
          let line = "";
          for (const [which, gap] of placed) {
            line += `${"lorem é ipsum ".repeat(1 + gap)}${SECRETS[which]![0]} `;
          }
          const bytes = Buffer.from(`${line}\n`);
          const framer = createLineFramer({ parseCap: 64 * 1024 });
          const stderr = createStderrRecordEncoder({ now: () => 1, redact: true });
          const plainStderr = createStderrRecordEncoder({ now: () => 1, redact: false });
          let redacted = "";
          let kept = "";
          let at = 0;
          for (let index = 0; at < bytes.length; index += 1) {
            const size = cuts[index % cuts.length]!;
            for (const event of framer.push(bytes.subarray(at, at + size))) {
              const text = stderr.encode(event);
              if (text) redacted += (decoded([Buffer.from(text)]) as { raw_text: string }).raw_text;
              const all = decoded([Buffer.from(plainStderr.encode(event))]) as {
                raw_text: string;
                raw_base64?: string;
              };
              kept += all.raw_base64
                ? Buffer.from(all.raw_base64, "base64").toString("latin1")
                : Buffer.from(all.raw_text).toString("latin1");
            }
            at += size;
          }
          for (const event of framer.end()) {
            const text = stderr.encode(event);
            if (text) redacted += (decoded([Buffer.from(text)]) as { raw_text: string }).raw_text;
          }
          for (const [, body] of SECRETS) expect(redacted).not.toContain(body);
          // Not redacting, the records are the line's bytes.
          expect(Buffer.from(kept, "latin1").toString()).toBe(line);
          // Redacting, only secrets changed: the text around them is all there, none twice.
          const count = (text: string) => text.split("lorem é ipsum").length - 1;
          expect(count(redacted)).toBe(count(line));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("every secret form, however it is written (property)", () => {
  const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
  const form = fc.constantFrom(...FORMS);
  // Text around a secret that is not a word character (or it would be part of a word).
  const around = fc.string({ maxLength: 20 }).map((text) => ` ${text.replace(/[\\\n]/g, " ")} `);
  const rawRecord = (line: string) => {
    const encoder = createRawRecordEncoder({ now: () => 1, redact: true });
    return Buffer.concat(encoder.encode(parseLine(`${line}\n`))).toString("utf8");
  };
  /** JSON text of a string whose first character of the secret is written as a \u escape. */
  const escapedString = (before: string, secret: string, after: string): string => {
    const code = secret.charCodeAt(0).toString(16).padStart(4, "0");
    return `${JSON.stringify(before).slice(0, -1)}\\u${code}${JSON.stringify(secret.slice(1)).slice(1, -1)}${JSON.stringify(after).slice(1)}`;
  };

  it("finds each form escaped inside a JSON string of an agent line", () => {
    fc.assert(
      fc.property(form, around, around, ([, secret, , leak], before, after) => {
        const line = `{"type":"tool_call","output":${escapedString(before, secret, after)}}`;
        expect(() => JSON.parse(line)).not.toThrow();
        const record = rawRecord(line);
        expect(() => JSON.parse(record)).not.toThrow();
        expect(record).not.toContain(leak);
      }),
      { numRuns: RUNS },
    );
  });

  // Given after its name by a tab, which JSON writes `\t`: the raw line holds no tab.
  const TABBED: Array<[secret: string, leak: string]> = [
    ["DB_PASSWORD\t=hunter2-0123456789", "hunter2"],
    ["export TOKEN\t= tok0123456789abcdef", "tok0123456789"],
    ["password\t:\thunter2-0123456789", "hunter2"],
    ["mysql --password\thunter2-0123456789", "hunter2"],
  ];

  it("finds each form in an agent line however its JSON is written: a tab as \\t, a slash as \\/", () => {
    const secrets = fc.oneof(
      fc.constantFrom(...TABBED),
      form.map(([, secret, , leak]): [string, string] => [secret, leak]),
    );
    fc.assert(
      fc.property(secrets, around, fc.boolean(), ([secret, leak], before, nested) => {
        const text = `${before}${secret}`;
        const event = nested
          ? { type: "tool_call", tool_call: { args: { command: text } } }
          : { type: "assistant", text };
        // Some producers escape every `/` (`https:\/\/`); JSON.parse reads both the same.
        for (const line of [JSON.stringify(event), JSON.stringify(event).replaceAll("/", "\\/")]) {
          expect(JSON.parse(line)).toEqual(event);
          expect(jsonValueMayContainSecret(JSON.parse(line))).not.toBe(0);
          const record = rawRecord(line);
          expect(() => JSON.parse(record)).not.toThrow();
          expect(record).not.toContain(leak);
        }
        // A record serialized with the text in a field: the tab is `\t` there too.
        const serialized = redact(
          JSON.stringify({ level: 30, msg: "tool_call_opened", label: text }),
        );
        expect(() => JSON.parse(serialized)).not.toThrow();
        expect(serialized).not.toContain(leak);
      }),
      { numRuns: RUNS },
    );
  });

  it("finds each form coloured, in a log record and in an agent line", () => {
    fc.assert(
      fc.property(
        form,
        fc.constantFrom("\u001b[31m", "\u001b[1;33m", "\u001b[0m"),
        ([, secret, , leak], colour) => {
          const coloured = `${colour}${secret}\u001b[0m`;
          const record = redact(
            JSON.stringify({ level: 30, msg: "mcp_invalid_line", head: coloured }),
          );
          expect(() => JSON.parse(record)).not.toThrow();
          expect(record).not.toContain(leak);
          expect(redact(coloured)).not.toContain(leak);
          expect(rawRecord(JSON.stringify({ type: "assistant", text: coloured }))).not.toContain(
            leak,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("finds each form as an object's key (a map keyed by tokens), and loses no value", () => {
    fc.assert(
      fc.property(form, ([, secret, , leak]) => {
        const line = JSON.stringify({
          type: "tool_call",
          result: { [secret]: 1, [`${secret} `]: 2, other: 3 },
        });
        expect(jsonValueMayContainSecret(JSON.parse(line))).not.toBe(0);
        const record = rawRecord(line);
        expect(record).not.toContain(leak);
        const logged = JSON.parse(record) as { raw: { result: Record<string, number> } };
        expect(Object.values(logged.raw.result).sort()).toEqual([1, 2, 3]);
      }),
      { numRuns: RUNS },
    );
  });

  it("finds each form with colours inside it, as grep --color highlights a match", () => {
    const HIGHLIGHT = "\u001b[01;31m\u001b[K";
    const END = "\u001b[m\u001b[K";
    const plain = (text: string) => text.replace(/(?:\u001b|\\u001b)\[[0-9;]*[A-Za-z]/g, "");
    fc.assert(
      fc.property(form, fc.nat(), fc.nat(), ([, secret, , leak], from, length) => {
        const start = from % secret.length;
        const end = Math.min(secret.length, start + 1 + (length % 8));
        const coloured = `${secret.slice(0, start)}${HIGHLIGHT}${secret.slice(start, end)}${END}${secret.slice(end)}`;
        expect(plain(redact(coloured))).not.toContain(leak);
        expect(plain(createLineRedactor().line(`grep: ${coloured}`))).not.toContain(leak);
        const record = rawRecord(JSON.stringify({ type: "tool_call", stdout: coloured }));
        expect(() => JSON.parse(record)).not.toThrow();
        expect(plain(record)).not.toContain(leak);
      }),
      { numRuns: RUNS },
    );
    // The highlighted part of a key found by grep, and a value under a secret's name.
    const grep = `.env:OPENAI_API_KEY=sk-${HIGHLIGHT}proj${END}-AAAAbbbbCCCCddddEEEEffff0000111122223333`;
    expect(redact(grep)).toBe(".env:OPENAI_API_KEY=[REDACTED]");
    // In JSON text, an escaped ESC that begins no colour code is no control sequence: nothing
    // of the JSON around it is taken for one.
    const json = JSON.stringify({
      a: "cut at \u001b[",
      b: "key sk-proj-AbCdEf0123456789AbCdEf0123",
    });
    expect(JSON.parse(redact(json))).toEqual({ a: "cut at \u001b[", b: "key [REDACTED]" });
    // Syntax colouring puts codes between a secret's name and its value (pygments, httpie).
    for (const [coloured, leak] of [
      [
        '\u001b[94m"password"\u001b[39;49;00m:\u001b[37m \u001b[39;49;00m\u001b[33m"hunter2-0123456789"\u001b[39;49;00m',
        "hunter2",
      ],
      ['"\u001b[1mpassword\u001b[0m": "hunter2-0123456789"', "hunter2"],
      ["\u001b[1m--token\u001b[0m tkvalue0123456789abcdef", "tkvalue"],
      ["\u001b[36mDB_PASSWORD\u001b[39m = pwvalue0123456789abcdef", "pwvalue"],
    ]) {
      expect(redact(coloured!), coloured).not.toContain(leak);
      expect(JSON.stringify(redactJsonValue({ stdout: coloured }).value)).not.toContain(leak);
    }
    // A coloured text without a secret keeps its colours.
    expect(redact("\u001b[31mtask-list ready\u001b[0m")).toBe("\u001b[31mtask-list ready\u001b[0m");
  });

  // A secret given under a name can come split over JSON strings: the name in one, the value
  // in the next (an args array, an object).
  const SPLIT: Array<[name: string, value: string]> = [
    ["--password", "hunter2-0123456789"],
    ["--token", "tok0123456789abcdef"],
    ["--api-key", "key0123456789abcdef"],
    ["--client-secret", "sec0123456789abcdef"],
  ];
  const KEYS = ["password", "apiKey", "DB_PASSWORD", "client_secret", "AccountKey", "auth-token"];

  it("finds a secret split over JSON strings: a flag and its value, a key and its value", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SPLIT),
        fc.constantFrom(...KEYS),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
        ([flag, value], key, others) => {
          const args = [...others, flag, value, ...others];
          const record = redact(JSON.stringify({ level: 30, msg: "mcp_proxy_start", args }));
          expect(() => JSON.parse(record)).not.toThrow();
          expect(record).not.toContain(value);
          // Nested in a string (a log line's head holding JSON): escaped quotes around both.
          const nested = redact(JSON.stringify({ head: JSON.stringify({ args, [key]: value }) }));
          expect(() => JSON.parse(nested)).not.toThrow();
          expect(nested).not.toContain(value);
          // An agent line, redacted on its decoded value.
          const raw = rawRecord(JSON.stringify({ type: "tool_call", args, env: { [key]: value } }));
          expect(raw).not.toContain(value);
          expect(JSON.parse(raw).raw.env[key]).toBe("[REDACTED]");
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("looks closer at every event whose strings, keys or flags hold a secret, flat or nested", () => {
    const key = fc.oneof(
      fc.constantFrom("type", "subtype", "text", "session_id", "timestamp_ms", "call_id"),
      fc.constantFrom("password", "apiKey", "token", "auth-token", "__proto__"),
      fc.string({ maxLength: 8 }),
    );
    const withForm = fc
      .tuple(around, form, around)
      .map(([before, [, secret], after]) => `${before}${secret}${after}`);
    const scalar = fc.oneof(
      withForm,
      fc.constantFrom("thinking", "delta", "00000000-0000-4000-8000-000000000001"),
      fc.constantFrom("--token", "--api-key", "--password=x", "--verbose", "", "[REDACTED]"),
      fc.string({ maxLength: 16 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.oneof(
      scalar,
      fc.jsonValue({ maxDepth: 2 }),
      // Tool calls nest: arguments in objects, flags and their values in arrays.
      fc.dictionary(key, fc.oneof(scalar, fc.array(scalar, { maxLength: 4 })), { maxKeys: 3 }),
      fc.array(scalar, { maxLength: 5 }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(key, value, { maxKeys: 6 }), { maxLength: 4 }),
        (events) => {
          // Several in a row, as on a stream: a string found clean once is not searched again.
          for (const event of events) {
            const line = JSON.stringify(event);
            if (redactJsonValue(JSON.parse(line)).changed) {
              expect(jsonValueMayContainSecret(JSON.parse(line))).not.toBe(0);
            }
            const record = rawRecord(line);
            for (const [, , , leak] of FORMS) {
              if (!line.includes(leak)) continue;
              expect(record).not.toContain(leak);
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("asks a short text (one search) the same as a long one (four searches)", () => {
    // No candidate holds a newline: in front of a text, newlines change no answer, only
    // whether the text is short.
    const long = (text: string) => `${"\n".repeat(64)}${text}`;
    const piece = fc.constantFrom(
      ...SECRETS.map(([, secret]) => secret.slice(0, 24)),
      "token ",
      "\\u0073k-",
      "sig=",
      "://",
      "eyJ",
      "task-list",
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(piece, fc.string({ maxLength: 8 })), { maxLength: 4 }),
        (parts) => {
          const text = parts.join("");
          expect(mayContainSecret(text)).toBe(mayContainSecret(long(text)));
        },
      ),
      { numRuns: RUNS },
    );
    for (const [, secret] of SECRETS) {
      expect(mayContainSecret(secret.slice(0, 40))).toBe(
        mayContainSecret(long(secret.slice(0, 40))),
      );
      expect(mayContainSecret(secret)).toBe(true);
    }
    expect(mayContainSecret("a few words")).toBe(false);
    expect(mayContainSecret(long("a few words"))).toBe(false);
  });

  it("lets go of a large text it searched: V8 keeps a match's subject until the next match", () => {
    setFlagsFromString("--expose-gc");
    const collect = runInNewContext("gc") as () => void;
    collect();
    const before = process.memoryUsage().heapUsed;
    (() => {
      // 40 MB of two-byte text holding one key, searched by every step: the pre-check, the
      // redaction, the pre-check of a parsed value, the redaction of a JSON text.
      const text = `${"x".repeat(20_000_000)}\u0100 sk-${"a".repeat(30)}`;
      expect(mayContainSecret(text)).toBe(true);
      expect(redact(text).endsWith(" [REDACTED]")).toBe(true);
      expect(jsonValueMayContainSecret({ text })).toBe(1);
      expect(redactJsonText(JSON.stringify({ text }))).toContain("[REDACTED]");
    })();
    // Clean text after it matches nothing: nothing else would take its place.
    expect(mayContainSecret("a few more words of a clean stream, long enough to be searched")).toBe(
      false,
    );
    collect();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(10_000_000);
  });

  it("leaves a value redacted already as it is", () => {
    for (const text of ["--api-key=[REDACTED]", '{"password":"[REDACTED]"}', "token: [REDACTED]"]) {
      expect(redact(text)).toBe(text);
    }
  });

  it("leaves names that only look like secrets alone", () => {
    const text = JSON.stringify({
      usage: { inputTokens: 1200, max_tokens: 4096, token_count: 7 },
      text: "the tokens were counted; bypass=true; PWD=/home/me; progress: 3",
      token: null,
      secret: 12,
      agent_token: "0b6e8c1e-2a4f-4c7e-9d1a-5f3b2c1d0e9f",
      params: { _meta: { progressToken: "p7" }, nextPageToken: "page-2" },
    });
    expect(redact(text)).toBe(text);
  });
});
