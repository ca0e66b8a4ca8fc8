// The message shapes the watchdog relies on, captured from the ACP specification and Cursor's
// `agent acp` documentation (src/__fixtures__/messages, with their sources): each is checked
// against the official JSON schema of @agentclientprotocol/sdk, and read by the proxy's own
// readers. The lines the proxy writes itself are checked against the same schema.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  agentFeatures,
  cancelRequestLine,
  editorTakesNotices,
  failedToolCall,
  idleState,
  messageChunk,
  notice,
  notificationMessage,
  resultMessage,
  sessionUpdate,
  updateMeaning,
  withdrawnAnswer,
} from "./protocol.js";
import { parseLine, rpcId } from "./transport.js";

interface Fixture {
  version: 1 | 2;
  messages: {
    from: "client" | "agent";
    source: string;
    schema?: string;
    answers?: string;
    // biome-ignore lint/suspicious/noExplicitAny: fixture messages are read field by field.
    message: any;
  }[];
}

const fixture = (name: string): Fixture =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/messages/${name}`, import.meta.url), "utf8"));

const require = createRequire(import.meta.url);
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
for (const version of [1, 2]) {
  ajv.addSchema({
    ...require(`@agentclientprotocol/sdk/schema/v${version}/schema.json`),
    $id: `acp-v${version}`,
  });
}

/** Errors of `value` against a type of the official schema (none: valid). */
function schemaErrors(version: 1 | 2, type: string, value: unknown): string[] {
  const validate = ajv.getSchema(`acp-v${version}#/$defs/${type}`);
  if (!validate) throw new Error(`no ${type} in the v${version} schema`);
  return validate(value)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const line = (message: unknown) => {
  const text = JSON.stringify(message);
  return parseLine(Buffer.from(text), Buffer.from(`${text}\n`), false);
};

describe.each(["spec-v1.json", "spec-v2.json", "cursor.json"])("fixture %s", (name) => {
  const { version, messages } = fixture(name);

  it("names a source for every message", () => {
    for (const entry of messages) expect(entry.source).toMatch(/https:\/\/|schema\/v\d/);
  });

  it.each(messages.filter((entry) => entry.schema).map((entry) => [entry.schema!, entry] as const))(
    "%s is valid under the official schema",
    (type, entry) => {
      const { message } = entry;
      const value = Object.hasOwn(message, "result") ? message.result : message.params;
      expect(schemaErrors(version, type, value)).toEqual([]);
    },
  );

  it("reads every message as the kind it is, with its exact id", () => {
    for (const { message } of messages) {
      const parsed = line(message);
      const kind =
        message.method === undefined
          ? "response"
          : message.id === undefined
            ? "notification"
            : "request";
      expect(parsed.kind).toBe(kind);
      if (parsed.kind === "request" || parsed.kind === "response")
        expect(parsed.id).toEqual(rpcId(message.id));
      if (parsed.kind === "request" || parsed.kind === "notification") {
        expect(parsed.method).toBe(message.method);
      }
    }
  });
});

describe("what the watchdog reads in the fixtures", () => {
  it("negotiates v1 and v2 from the initialize responses", () => {
    const v1 = fixture("spec-v1.json").messages.find((entry) => entry.answers === "initialize")!;
    expect(agentFeatures(v1.message.result)).toMatchObject({
      version: 1,
      loadSession: true,
      resumeSession: false,
    });
    const v2 = fixture("spec-v2.json").messages.find((entry) => entry.answers === "initialize")!;
    expect(agentFeatures(v2.message.result)).toMatchObject({
      version: 2,
      loadSession: false,
      resumeSession: true,
    });
  });

  it("sees tool calls open and close by toolCallId, and v2's states", () => {
    const updates = [...fixture("spec-v1.json").messages, ...fixture("spec-v2.json").messages]
      .filter((entry) => entry.message.method === "session/update")
      .map((entry) => updateMeaning(entry.message.params.update));
    expect(updates.filter((meaning) => meaning.kind === "tool-call")).toEqual([
      {
        kind: "tool-call",
        tag: "tool_call",
        toolCallId: "call_001",
        title: "Analyzing Python code",
        toolKind: "other",
        status: "pending",
      },
      {
        kind: "tool-call",
        tag: "tool_call",
        toolCallId: "call_002",
        title: "Reading configuration file",
        name: "read_file",
        toolKind: "read",
        status: "pending",
      },
      { kind: "tool-call", tag: "tool_call_update", toolCallId: "call_001", status: "in_progress" },
      { kind: "tool-call", tag: "tool_call_update", toolCallId: "call_001", status: "completed" },
      {
        kind: "tool-call",
        tag: "tool_call_update",
        toolCallId: "call_001",
        title: "Analyzing Python code",
        toolKind: "other",
        status: "pending",
      },
      { kind: "tool-call", tag: "tool_call_update", toolCallId: "call_001", status: "in_progress" },
      { kind: "tool-call", tag: "tool_call_update", toolCallId: "call_001", status: "completed" },
    ]);
    expect(
      updates
        .filter((meaning) => meaning.kind === "state")
        .map((meaning) => meaning.kind === "state" && meaning.state),
    ).toEqual(["running", "requires_action", "idle", "idle"]);
    expect(updates.find((meaning) => meaning.tag === "agent_thought")).toMatchObject({
      phase: "thinking",
    });
  });

  it("knows whether the editor takes notices", () => {
    expect(editorTakesNotices(fixture("spec-v1.json").messages[0]!.message.params, 1)).toBe(false);
    expect(editorTakesNotices({ clientCapabilities: { session: { notices: {} } } }, 1)).toBe(true);
    expect(editorTakesNotices(undefined, 2)).toBe(true);
  });
});

describe("the lines the watchdog writes", () => {
  const v1 = (type: string, value: unknown) => expect(schemaErrors(1, type, value)).toEqual([]);
  const v2 = (type: string, value: unknown) => expect(schemaErrors(2, type, value)).toEqual([]);

  it("are valid v1 messages", () => {
    v1(
      "SessionNotification",
      sessionUpdate(
        "s",
        failedToolCall("call-1", "cursor-wrap: web_search gave no result for 5m; cancelled"),
      ).params,
    );
    v1(
      "SessionNotification",
      sessionUpdate("s", messageChunk("m-1", "cursor-wrap: cancelled")).params,
    );
    v1(
      "SessionNotification",
      sessionUpdate("s", notice("warning", "Waiting for you (1m)", "…")).params,
    );
    v1("PromptResponse", resultMessage(rpcId(3), { stopReason: "cancelled" }).result);
    v1("RequestPermissionResponse", withdrawnAnswer(rpcId(5), "session/request_permission").result);
    v1("CancelRequestNotification", JSON.parse(cancelRequestLine(rpcId(5))).params);
    v1("CancelNotification", notificationMessage("session/cancel", { sessionId: "s" }).params);
    v1("LoadSessionRequest", { sessionId: "s", cwd: "/work", mcpServers: [] });
  });

  it("are valid v2 messages", () => {
    v2(
      "UpdateSessionNotification",
      sessionUpdate("s", failedToolCall("call-1", "cursor-wrap: cancelled")).params,
    );
    v2(
      "UpdateSessionNotification",
      sessionUpdate("s", messageChunk("m-1", "cursor-wrap: cancelled")).params,
    );
    v2("UpdateSessionNotification", sessionUpdate("s", idleState("cancelled")).params);
    v2(
      "UpdateSessionNotification",
      sessionUpdate("s", notice("warning", "Waiting for you (1m)")).params,
    );
    v2("ResumeSessionRequest", { sessionId: "s", cwd: "/work", mcpServers: [] });
  });
});
