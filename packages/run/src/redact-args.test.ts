import { describe, expect, it } from "vitest";
import { redactSecretArgs } from "./redact-args.js";

describe("redactSecretArgs", () => {
  it("hides the values of secret flags, in both forms, and nothing else", () => {
    expect(
      redactSecretArgs([
        "--print",
        "--api-key",
        "key_123",
        "--auth-token=tok",
        "--model",
        "gpt-5",
        "prompt with --api-key in it",
      ]),
    ).toEqual([
      "--print",
      "--api-key",
      "[redacted]",
      "--auth-token=[redacted]",
      "--model",
      "gpt-5",
      "prompt with --api-key in it",
    ]);
  });
});
