// Secrets known by value (`redactKnownSecrets`): a file of its own, since they are registered
// for the whole process.

import { describe, expect, it } from "vitest";
import { createLineRedactor, redact, redactJsonValue, redactKnownSecrets } from "./index.js";
import { jsonValueMayContainSecret } from "./redact.js";

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
