import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { resultInfo, sessionIdOf, toMonitorSignal } from "./extract.js";
import { parseLine } from "./parse-line.js";
import { isPlausibleSessionId, shellWord } from "./session-id.js";

const event = (sessionId: string) =>
  parseLine(`${JSON.stringify({ type: "system", subtype: "init", session_id: sessionId })}\n`);

describe("session ids from the stream", () => {
  it.each(["d43015b9-0707-43f4-b2df-0bcea7891654", "s-1", "chat.2026:11"])("takes %s", (id) => {
    expect(isPlausibleSessionId(id)).toBe(true);
    expect(sessionIdOf(event(id))).toBe(id);
    expect(toMonitorSignal(event(id))).toMatchObject({ type: "session", sessionId: id });
  });

  it.each([
    "x; rm -rf ~",
    "$(touch /tmp/pwned)",
    "`id`",
    "--worktree",
    "-p",
    "a b",
    "a\nb",
    "\u001b]0;title\u0007",
    "",
    "x".repeat(129),
  ])("ignores %j: it could be pasted into a shell or read as a flag", (id) => {
    expect(isPlausibleSessionId(id)).toBe(false);
    expect(sessionIdOf(event(id))).toBeUndefined();
    expect(toMonitorSignal(event(id)).type).toBe("activity");
    const result = parseLine(
      `${JSON.stringify({ type: "result", subtype: "success", session_id: id })}\n`,
    );
    if (result.kind === "json") expect(resultInfo(result)?.sessionId).toBeUndefined();
  });
});

describe("shellWord", () => {
  it.each(["plain-id", "it's", "$(id) `id` ; & | > <", "new\nline", "", "'"])(
    "reads back as %j in a POSIX shell",
    (word) => {
      const echoed = execFileSync("sh", ["-c", `printf %s ${shellWord(word)}`], {
        encoding: "utf8",
      });
      expect(echoed).toBe(word);
    },
  );
});
