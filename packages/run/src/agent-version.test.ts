import { describe, expect, it } from "vitest";
import { isNewerAgentVersion, NEWEST_TESTED_AGENT_VERSION } from "./agent-version.js";

describe("isNewerAgentVersion", () => {
  it.each([
    ["2026.09.11-abc1234", true],
    ["2026.10.01-0000000", true],
    ["2027.01.05", true],
    [NEWEST_TESTED_AGENT_VERSION, false],
    ["2026.09.10-fd3934a", false],
    ["2026.01.28-fd13201", false],
    ["2025.11.25-d5b3271", false],
    ["latest", false],
    ["", false],
  ])("%s is newer than the newest tested: %s", (version, newer) => {
    expect(isNewerAgentVersion(version)).toBe(newer);
  });
});
