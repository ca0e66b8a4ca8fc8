// Secrets known by value (`redactKnownSecrets`): a file of its own, since they are registered
// for the whole process.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLineFramer } from "@cursor-wrap/events";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createLineRedactor,
  openSessionLog,
  redact,
  redactJsonValue,
  redactKnownSecrets,
} from "./index.js";
import { jsonValueMayContainSecret, maskKnownLead, redactCut } from "./redact.js";

describe("redactKnownSecrets", () => {
  const key = `key_${"0123456789abcdef".repeat(4)}`;

  it("redacts a value with no shape of its own once it is known, wherever it appears", () => {
    const line = `Error: invalid API key ${key}`;
    expect(redact(line)).toBe(line);
    redactKnownSecrets([key, undefined, "  ", "short", "a.b*c+d?(x)", `${key}-longer`]);
    expect(redact(line)).toBe("Error: invalid API key [REDACTED]");
    // Longest first: the one that holds another goes whole.
    expect(redact(`${key}-longer`)).toBe("[REDACTED]");
    // Taken as text, not as a pattern.
    expect(redact("see a.b*c+d?(x) here")).toBe("see [REDACTED] here");
    expect(redact("abbbcccd")).toBe("abbbcccd");
    // Shorter than 8 characters: ordinary words are not blotted out.
    expect(redact("a short word")).toBe("a short word");
    const value = { message: { content: [{ text: `using ${key}` }] }, [key]: 1 };
    expect(jsonValueMayContainSecret(value)).toBe(1);
    expect(JSON.stringify(redactJsonValue(value).value)).not.toContain(key);
    expect(createLineRedactor().line(`two: ${key} ${key}`)).toBe("two: [REDACTED] [REDACTED]");
  });
});

describe("a known secret cut in two", () => {
  const key = `key_${"0123456789abcdef".repeat(4)}`;
  beforeAll(() => redactKnownSecrets([key, "pa)ssw0rd-long", "abc;defghijk"]));

  it("is masked on both sides of the cut, wherever the cut falls in it", () => {
    // A stderr line with no space, longer than a piece: its records end 4 KiB before each
    // piece's end (a word is held back), so the first cut falls at byte 4096.
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-known-cut-"));
    try {
      for (let before = 1; before < key.length; before += 1) {
        const log = openSessionLog({ dir, name: `cut-${before}`, retentionMs: 0 });
        const framer = createLineFramer({ parseCap: 8_192 });
        const line = Buffer.from(`${"A".repeat(4_096 - before)}${key}${"B".repeat(20_000)}\n`);
        for (let at = 0; at < line.length; at += 8_192) {
          log.stderrAll(framer.push(line.subarray(at, at + 8_192)));
        }
        log.stderrAll(framer.end());
        log.close({ outcome: "completed", flagged: false, exit_code: 0 });
        const text = readFileSync(log.path, "utf8");
        for (let from = 0; from + 8 <= key.length; from += 1) {
          expect(text, `cut after ${before}`).not.toContain(key.slice(from, from + 8));
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("in the head of a line too long to parse", () => {
    expect(redactCut(`${"C".repeat(30)}${key.slice(0, 40)}`)).toBe(`${"C".repeat(30)}[REDACTED]`);
    expect(maskKnownLead(`${key.slice(20)} and on`)).toBe("[REDACTED] and on");
    expect(maskKnownLead("nothing known")).toBe("nothing known");
  });

  it("is masked before the rules of shape and name, which could stop inside it", () => {
    expect(redact("password=pa)ssw0rd-long")).toBe("password=[REDACTED]");
    expect(redact("token=abc;defghijk")).toBe("token=[REDACTED]");
  });
});
