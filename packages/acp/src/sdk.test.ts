// The proxy between the official ACP library's two ends, in one process: its client app as
// the editor and its agent app as the agent. A turn gives the editor the same result direct
// and through the proxy; a tool call that never completes comes back cancelled, with the
// failed call the SDK's client parses like any other update.

import { PassThrough, Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import type { AcpAgentHandle } from "./agent-process.js";
import { startAcpProxy } from "./proxy.js";

/** An SDK agent: one tool call, then an answer; with `hang`, the tool never completes. */
function sdkAgent(behaviour: "normal" | "hang") {
  let cancelled: () => void = () => {};
  return acp
    .agent({ name: "sdk-test-agent" })
    .onRequest("initialize", () => ({
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: false },
    }))
    .onRequest("session/new", () => ({ sessionId: "sdk-session" }))
    .onNotification("session/cancel", () => cancelled())
    .onRequest("session/prompt", async ({ params, client }) => {
      const update = (body: acp.SessionUpdate) =>
        client.notify("session/update", { sessionId: params.sessionId, update: body });
      await update({
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: "thinking" },
      });
      await update({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Searching the web",
        kind: "fetch",
        status: "in_progress",
      });
      if (behaviour === "hang") {
        // The search never returns; the agent still honours session/cancel.
        await new Promise<void>((resolve) => {
          cancelled = resolve;
        });
        return { stopReason: "cancelled" as const };
      }
      await update({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
      await update({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "found it" },
      });
      return { stopReason: "end_turn" as const };
    });
}

/** The editor: initialize, a session, one prompt; what it saw. */
async function runEditor(stream: acp.Stream | ReturnType<typeof sdkAgent>) {
  const updates: acp.SessionUpdate[] = [];
  const editor = acp
    .client({ name: "sdk-test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    });
  const result = await editor.connectWith(stream, async (context) => {
    const initialized = await context.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const session = await context.request("session/new", { cwd: "/work", mcpServers: [] });
    const response = await context.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "search the web" }],
    });
    return { initialized, session, response };
  });
  return { ...result, updates };
}

/** The proxy in between, the SDK agent as its agent process. */
function throughProxy(agentApp: ReturnType<typeof sdkAgent>) {
  const editorToProxy = new PassThrough();
  const proxyToEditor = new PassThrough();
  const proxy = startAcpProxy({
    input: editorToProxy,
    output: proxyToEditor,
    monitor: { idleTimeoutMs: 2_000, toolGraceMs: 1_000, firstOutputMs: 10_000 },
    cancelGraceMs: 2_000,
    startAgent: async (): Promise<AcpAgentHandle> => {
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const connection = agentApp.connect(
        acp.ndJsonStream(Writable.toWeb(stdout), Readable.toWeb(stdin)),
      );
      return {
        pid: undefined,
        stdin,
        stdout,
        stderr: undefined,
        exited: connection.closed.then(() => ({ code: 0, signal: null })),
        async kill() {
          connection.close();
          return { steps: [], survivors: [] };
        },
        sampleTree: () => undefined,
      };
    },
  });
  const stream = acp.ndJsonStream(Writable.toWeb(editorToProxy), Readable.toWeb(proxyToEditor));
  return { proxy, stream, close: () => editorToProxy.end() };
}

describe("startAcpProxy with the official ACP library at both ends", () => {
  it("gives the editor the same turn direct and through the proxy", async () => {
    const direct = await runEditor(sdkAgent("normal"));
    const proxied = throughProxy(sdkAgent("normal"));
    const through = await runEditor(proxied.stream);
    proxied.close();
    expect(through).toEqual(direct);
    expect(through.response).toEqual({ stopReason: "end_turn" });
    expect(await proxied.proxy.done).toMatchObject({ exitCode: 0 });
  });

  it("brings a hung tool call back: failed with a message, and the turn cancelled", async () => {
    const proxied = throughProxy(sdkAgent("hang"));
    const through = await runEditor(proxied.stream);
    proxied.close();
    expect(through.response).toEqual({ stopReason: "cancelled" });
    const failed = through.updates.find(
      (update) => update.sessionUpdate === "tool_call_update" && update.status === "failed",
    );
    expect(failed).toMatchObject({
      toolCallId: "t1",
      content: [
        {
          type: "content",
          content: {
            type: "text",
            text: expect.stringMatching(/^cursor-wrap: Searching the web gave no result for /),
          },
        },
      ],
    });
  });
});
