import { parseLine } from "@cursor-wrap/events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRawRecordEncoder, createStderrRecordEncoder } from "./raw-record.js";
import {
  createLineRedactor,
  mayContainSecret,
  redact,
  redactCut,
  redactJsonValue,
} from "./redact.js";

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
    "colour-wrapped key",
    "\u001b[31msk-proj-AbCdEf0123456789AbCdEf\u001b[0m",
    "\u001b[31m[REDACTED]\u001b[0m",
  ],
  [
    "PEM private key",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1\nabc=\n-----END RSA PRIVATE KEY-----",
    "[REDACTED]",
  ],
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
    expect(redactJsonValue(clean)).toEqual({ value: clean, changed: false });
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

  it("keeps a clean JSON line byte for byte", () => {
    const line = parseLine('{"type":"assistant","text":"\\u001b[1mbold\\u001b[0m task-list"}\n');
    const parts = encoder().encode(line);
    expect(parts[1]!.equals(line.kind === "json" ? line.line : Buffer.alloc(0))).toBe(true);
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
