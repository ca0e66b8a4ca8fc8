import { CursorWrapError } from "@cursor-wrap/errors";
import { LogDirError } from "@cursor-wrap/logger";
import { AgentSpawnError, PtyUnavailableError } from "@cursor-wrap/supervisor";
import { describe, expect, it } from "vitest";
import { agentStartMessage, mcpLimitHint, messageWithHint } from "./error-hints.js";

describe("messageWithHint", () => {
  it("names --log-dir for a log directory that cannot be written", () => {
    const error = new LogDirError("/nope/logs", Object.assign(new Error("x"), { code: "EACCES" }));
    expect(error.message).not.toContain("--");
    expect(messageWithHint(error)).toBe(
      "cannot write logs to /nope/logs: EACCES (set --log-dir to a writable directory)",
    );
  });

  it("names --pty when no pty package loads", () => {
    const error = new PtyUnavailableError();
    expect(error.message).not.toContain("--");
    expect(messageWithHint(error)).toBe(
      "--pty needs a pseudo-terminal package: npm install @lydell/node-pty (prebuilt) or node-pty",
    );
  });

  it("leaves any other error's message as it is", () => {
    const error = new CursorWrapError("SOMETHING", "something went wrong");
    expect(messageWithHint(error)).toBe("something went wrong");
  });
});

describe("agentStartMessage", () => {
  it.each([
    {
      error: new AgentSpawnError("cursor-agent", "ENOENT", "not found on PATH"),
      shown:
        'cannot start "cursor-agent": not found on PATH (install the Cursor CLI or set --agent-bin)',
    },
    {
      error: new AgentSpawnError("/opt/agent", "ENOENT", "no such file"),
      shown: 'cannot start "/opt/agent": no such file (set --agent-bin to the cursor-agent binary)',
    },
    {
      error: new AgentSpawnError("/opt/agent", "EACCES", "/opt/agent is not executable"),
      shown:
        'cannot start "/opt/agent": /opt/agent is not executable (set --agent-bin to a working binary)',
    },
    {
      error: new AgentSpawnError("/opt/agent", "E2BIG", "the prompt is too long"),
      shown: 'cannot start "/opt/agent": the prompt is too long',
    },
  ])("$shown", ({ error, shown }) => {
    expect(agentStartMessage(error)).toBe(shown);
  });
});

describe("mcpLimitHint", () => {
  it("names the flag of the limit an MCP proxy's record says was reached", () => {
    expect(mcpLimitHint({ msg: "mcp_oversize_line", max_line_bytes: 1024 })).toBe(
      "--max-line raises the line cap",
    );
    expect(mcpLimitHint({ msg: "mcp_request_timed_out", cause: "cap" })).toBe(
      "--max-request-time raises the cap",
    );
    expect(mcpLimitHint({ msg: "mcp_request_timed_out", cause: "timeout" })).toBeUndefined();
    expect(mcpLimitHint({ msg: "mcp_message" })).toBeUndefined();
  });
});
