import { homedir } from "node:os";
import { join } from "node:path";
import type { McpSession } from "@cursor-wrap/mcp";
import { describe, expect, it } from "vitest";
import { sessionStartLine } from "./mcp-sessions.js";

const ref = (name: string) => ({ map: ["mcpServers"], name });

function session(wrapped: string[], shared: string[]): McpSession {
  return {
    id: "s-1",
    configs: [
      {
        path: join(homedir(), ".cursor", "mcp.json"),
        wrapped: wrapped.map(ref),
        shared: shared.map(ref),
        skipped: [],
      },
    ],
    end: () => [],
  };
}

describe("sessionStartLine", () => {
  it("says what the session wrapped, and which entries run with another session's settings", () => {
    expect(sessionStartLine(session(["tracker"], []), "claude exits")).toBe(
      "MCP watchdog on: 1 server (tracker) in ~/.cursor/mcp.json, until claude exits",
    );
    // A second session at once: the first one's proxies (and their flags) serve it too.
    expect(sessionStartLine(session(["docs"], ["tracker"]), "claude exits")).toBe(
      "MCP watchdog on: 2 servers (docs, tracker) in ~/.cursor/mcp.json, until claude exits (1 already wrapped by another MCP session, whose proxy settings apply to it)",
    );
    expect(sessionStartLine(session([], ["tracker", "docs"]), "the run ends")).toContain(
      "(all already wrapped by another MCP session, whose proxy settings apply to them)",
    );
    expect(sessionStartLine(session([], []), "the run ends")).toBe(
      "MCP watchdog: no stdio MCP server to wrap",
    );
  });
});
