import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mayContainSecret, redact } from "./redact.js";

const SECRETS: Array<[string, string, string]> = [
  ["OpenAI key", "sk-proj-AbCdEf0123456789AbCdEf0123", "[REDACTED]"],
  ["Anthropic key", "sk-ant-api03-AbCdEf0123456789_xyz", "[REDACTED]"],
  ["GitHub token", "ghp_AbCdEf0123456789AbCdEf0123456789abcd", "[REDACTED]"],
  ["GitHub OAuth token", "gho_AbCdEf0123456789AbCdEf0123456789abcd", "[REDACTED]"],
  ["GitHub fine-grained token", "github_pat_11AAAAAAA0123456789_abcdefABCDEF", "[REDACTED]"],
  ["AWS access key", "AKIAIOSFODNN7EXAMPLE", "[REDACTED]"],
  ["Slack token", "xoxb-123456789012-abcdefghijkl", "[REDACTED]"],
  ["Bearer header", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", "Bearer [REDACTED]"],
  ["CURSOR_API_KEY", "CURSOR_API_KEY=key_abcdef0123456789", "CURSOR_API_KEY=[REDACTED]"],
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
      expect(mayContainSecret(Buffer.from(record))).toBe(true);
      const redacted = redact(record);
      const parsed = JSON.parse(redacted) as { stdout: string; nested: string[] };
      expect(parsed.stdout).toBe(`export X\n${replacement}\nnext line`);
      expect(parsed.nested).toEqual([replacement]);
      expect(redacted).not.toContain(secret.split("\n")[0]!.slice(-12));
    });
  }

  it("leaves ordinary text alone", () => {
    const text = JSON.stringify({
      text: "task-list, sk-short, ghost_town, Bearer of news, AKIA-not",
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

  it("skips lines without any secret fragment", () => {
    expect(mayContainSecret(Buffer.from('{"type":"thinking","text":"nothing secret here"}'))).toBe(
      false,
    );
  });
});
