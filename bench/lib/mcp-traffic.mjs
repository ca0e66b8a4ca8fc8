// @ts-check
// The MCP traffic P7 measures under: a tools/call as an editor sends it.

/**
 * A `tools/call` as an editor sends it: a name, a few hundred bytes of arguments (one of them
 * not ASCII, as paths and prose often are) and a progress token.
 */
export function mcpToolCall(index) {
  return {
    method: "tools/call",
    params: {
      name: "echo",
      arguments: {
        text: `Read src/session/session.ts lines ${index}–${index + 40} and report every call of runTurn whose signal is not forwarded; include the file path, the line and the enclosing function name.`,
        path: "/home/dev/project/src/session/session.ts",
        options: { caseSensitive: true, maxResults: 20 },
      },
      _meta: { progressToken: index },
    },
  };
}
