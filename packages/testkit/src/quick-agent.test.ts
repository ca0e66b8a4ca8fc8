import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeQuickAgent } from "./quick-agent.js";

const work = mkdtempSync(join(tmpdir(), "cursor-wrap-quick-agent-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("writeQuickAgent", () => {
  it("writes a script that prints a whole turn and exits", () => {
    const agent = writeQuickAgent(join(work, "agent.sh"), "it's $HOME `x`");
    const lines = execFileSync(agent, ["-p", "anything"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => `${line.type}/${line.subtype ?? ""}`)).toEqual([
      "system/init",
      "assistant/",
      "result/success",
    ]);
    // The shell expanded nothing: the answer is as given.
    expect(lines[2]?.result).toBe("it's $HOME `x`");
    expect(new Set(lines.map((line) => line.session_id)).size).toBe(1);
  });
});
