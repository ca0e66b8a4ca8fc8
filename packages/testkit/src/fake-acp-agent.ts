#!/usr/bin/env node
// A stand-in for Cursor's `agent acp`: an Agent Client Protocol agent on stdio (newline-
// delimited JSON-RPC 2.0) that plays a scenario per prompt, on purpose badly when asked. It
// speaks ACP v1 (the prompt's response ends the turn) or the v2 draft (the response only
// acknowledges; an idle state update ends the work), keeps its sessions in a directory so a
// restarted process can load them (replaying their history, as Cursor does), and records every
// message it reads. Options are environment variables (see `fakeAcpAgentEnv`); a prompt that
// starts with `scenario:<name>` picks the scenario for that prompt.

import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

type Id = number | string;
interface Message {
  jsonrpc: "2.0";
  id?: Id;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string };
}

const env = process.env;
const maxVersion = Number(env.FAKE_ACP_PROTOCOL ?? 1) >= 2 ? 2 : 1;
const defaultScenario = env.FAKE_ACP_SCENARIO ?? "normal";
const record = env.FAKE_ACP_RECORD;
const stateDir = env.FAKE_ACP_STATE_DIR;
const pidFile = env.FAKE_ACP_PID_FILE;
const toolMs = Number(env.FAKE_ACP_TOOL_MS ?? 50);
let version: 1 | 2 = 1;

const send = (message: Omit<Message, "jsonrpc">): void => {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
};
const result = (id: Id, value: unknown): void => send({ id, result: value });
const error = (id: Id, code: number, message: string): void =>
  send({ id, error: { code, message } });
const update = (sessionId: string, body: Record<string, unknown>): void =>
  send({ method: "session/update", params: { sessionId, update: body } });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ─── sessions, kept on disk so a restarted process knows them ──────────────────────────────
interface SessionState {
  cwd: string;
  /** Prompts it has had, answered or not. */
  prompts: number;
  history: { user: string; agent: string }[];
}
const sessions = new Map<string, SessionState>();
let sessionCount = 0;

function sessionFile(sessionId: string): string | undefined {
  return stateDir === undefined ? undefined : join(stateDir, `${sessionId}.json`);
}
function saveSession(sessionId: string): void {
  const file = sessionFile(sessionId);
  if (!file) return;
  mkdirSync(stateDir!, { recursive: true });
  writeFileSync(file, JSON.stringify(sessions.get(sessionId)));
}
function loadSession(sessionId: string): SessionState | undefined {
  const known = sessions.get(sessionId);
  if (known) return known;
  const file = sessionFile(sessionId);
  if (!file || !existsSync(file)) return undefined;
  const state = JSON.parse(readFileSync(file, "utf8")) as SessionState;
  sessions.set(sessionId, state);
  return state;
}

// ─── requests the agent sends the client, awaiting their answers ──────────────────────────
let outgoing = 0;
const answers = new Map<string, (message: Message) => void>();
function ask(method: string, params: Record<string, unknown>): Promise<Message> {
  outgoing += 1;
  const id = outgoing;
  return new Promise((resolve) => {
    answers.set(`n:${id}`, resolve);
    send({ id, method, params });
  });
}

// ─── prompt turns ──────────────────────────────────────────────────────────────────────────
/** The turn running in each session, to cancel it. */
const cancels = new Map<string, () => void>();
/** Sessions whose agent is parked: nothing it receives for them is ever answered. */
const parked = new Set<string>();

function promptText(params: Record<string, unknown> | undefined): string {
  const blocks = Array.isArray(params?.prompt)
    ? (params.prompt as { type?: string; text?: string }[])
    : [];
  return blocks
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join(" ");
}

function toolCall(sessionId: string, fields: Record<string, unknown>): void {
  update(sessionId, { sessionUpdate: version === 2 ? "tool_call_update" : "tool_call", ...fields });
}

function message(sessionId: string, text: string, id: string): void {
  update(sessionId, {
    sessionUpdate: "agent_message_chunk",
    messageId: id,
    content: { type: "text", text },
  });
}

/** End a turn, the way the negotiated version does. */
function endTurn(id: Id, sessionId: string, stopReason: string): void {
  cancels.delete(sessionId);
  if (version === 1) result(id, { stopReason });
  else update(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason });
}

async function runPrompt(id: Id, params: Record<string, unknown>): Promise<void> {
  const sessionId = String(params.sessionId ?? "");
  const session = loadSession(sessionId);
  if (!session) {
    error(id, -32002, `session ${sessionId} not found`);
    return;
  }
  const text = promptText(params);
  const scenario = /^scenario:(\S+)/.exec(text)?.[1] ?? defaultScenario;
  session.prompts += 1;
  saveSession(sessionId);
  const turn = session.prompts;
  const answer = (reply: string): void => {
    session.history.push({ user: text, agent: reply });
    saveSession(sessionId);
  };
  let cancelled = false;
  const wasCancelled = new Promise<void>((resolve) => {
    cancels.set(sessionId, () => {
      cancelled = true;
      resolve();
    });
  });
  if (version === 2) {
    result(id, { messageId: `user-${turn}` });
    update(sessionId, {
      sessionUpdate: "user_message",
      messageId: `user-${turn}`,
      content: [{ type: "text", text }],
    });
    update(sessionId, { sessionUpdate: "state_update", state: "running" });
  }
  update(sessionId, {
    sessionUpdate: "agent_thought_chunk",
    messageId: `thought-${turn}`,
    content: { type: "text", text: "Thinking about it." },
  });
  switch (scenario) {
    case "normal": {
      update(sessionId, {
        sessionUpdate: "plan",
        entries: [{ content: "Read the file", priority: "high", status: "in_progress" }],
      });
      toolCall(sessionId, {
        toolCallId: `read-${turn}`,
        name: "read_file",
        title: "Reading README.md",
        kind: "read",
        status: "pending",
      });
      update(sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: `read-${turn}`,
        status: "in_progress",
      });
      await sleep(toolMs);
      update(sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: `read-${turn}`,
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "# README" } }],
      });
      const reply = `Turn ${turn}: hello from the fake agent.`;
      message(sessionId, reply, `agent-${turn}`);
      answer(reply);
      endTurn(id, sessionId, "end_turn");
      return;
    }
    case "tool-hang":
    case "parked":
    case "crash": {
      if (scenario === "parked") {
        // Parked for good: a child that sleeps (written down before the call is announced),
        // and nothing more for this session.
        parked.add(sessionId);
        const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], {
          stdio: "ignore",
        });
        if (pidFile && child.pid !== undefined) appendFileSync(pidFile, `${child.pid}\n`);
      }
      toolCall(sessionId, {
        toolCallId: `search-${turn}`,
        name: "web_search",
        title: "Searching the web",
        kind: "fetch",
        status: "in_progress",
        rawInput: { query: text },
      });
      if (scenario === "crash") {
        await sleep(toolMs);
        process.stderr.write("fake-acp-agent: lost the connection to the search backend\n");
        process.exit(3);
      }
      if (scenario === "parked") return;
      await wasCancelled;
      endTurn(id, sessionId, "cancelled");
      return;
    }
    case "idle-hang":
      await wasCancelled;
      endTurn(id, sessionId, "cancelled");
      return;
    case "permission": {
      toolCall(sessionId, {
        toolCallId: `run-${turn}`,
        name: "run_terminal_cmd",
        title: "Run npm test",
        kind: "execute",
        status: "pending",
      });
      const decision = await ask("session/request_permission", {
        sessionId,
        toolCall: { toolCallId: `run-${turn}`, title: "Run npm test" },
        options: [
          { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
          { optionId: "allow-always", name: "Allow always", kind: "allow_always" },
          { optionId: "reject-once", name: "Reject", kind: "reject_once" },
        ],
      });
      if (cancelled) return;
      const outcome = (decision.result as { outcome?: { outcome?: string; optionId?: string } })
        ?.outcome;
      const allowed = outcome?.outcome === "selected" && outcome.optionId?.startsWith("allow");
      update(sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: `run-${turn}`,
        status: allowed ? "completed" : "failed",
      });
      const reply = `Turn ${turn}: permission ${outcome?.optionId ?? outcome?.outcome ?? "unanswered"}.`;
      message(sessionId, reply, `agent-${turn}`);
      answer(reply);
      endTurn(id, sessionId, "end_turn");
      return;
    }
    case "cursor-question": {
      const reply = await ask("cursor/ask_question", {
        toolCallId: `ask-${turn}`,
        title: "Need input",
        questions: [
          {
            id: "q1",
            prompt: "Which mode should I use?",
            options: [
              { id: "agent", label: "Agent" },
              { id: "plan", label: "Plan" },
            ],
          },
        ],
      });
      if (cancelled) return;
      send({
        method: "cursor/update_todos",
        params: {
          toolCallId: `todo-${turn}`,
          todos: [{ id: "1", content: "Answer", status: "completed" }],
          merge: false,
        },
      });
      const chosen = JSON.stringify((reply.result as { outcome?: unknown })?.outcome ?? null);
      const text = `Turn ${turn}: you chose ${chosen}.`;
      message(sessionId, text, `agent-${turn}`);
      answer(text);
      endTurn(id, sessionId, "end_turn");
      return;
    }
    default:
      error(id, -32602, `unknown scenario ${scenario}`);
  }
}

// ─── dispatch ──────────────────────────────────────────────────────────────────────────────
function handle(request: Message): void {
  if (record) appendFileSync(record, `${JSON.stringify({ pid: process.pid, message: request })}\n`);
  if (request.method === undefined) {
    // An answer to a request of ours.
    const key = typeof request.id === "number" ? `n:${request.id}` : `s:${request.id}`;
    answers.get(key)?.(request);
    answers.delete(key);
    return;
  }
  const params = request.params ?? {};
  const sessionId = typeof params.sessionId === "string" ? params.sessionId : undefined;
  if (sessionId !== undefined && parked.has(sessionId)) return;
  if (request.id === undefined) {
    if (request.method === "session/cancel" && sessionId !== undefined) cancels.get(sessionId)?.();
    return;
  }
  const id = request.id;
  switch (request.method) {
    case "initialize": {
      const asked = Number(params.protocolVersion ?? 1);
      version = asked >= 2 && maxVersion >= 2 ? 2 : 1;
      result(
        id,
        version === 2
          ? {
              protocolVersion: 2,
              info: { name: "fake-acp-agent", version: "1.0.0" },
              capabilities: {},
              authMethods: [],
            }
          : {
              protocolVersion: 1,
              agentCapabilities: {
                loadSession: true,
                promptCapabilities: { embeddedContext: true },
              },
              agentInfo: { name: "fake-acp-agent", version: "1.0.0" },
              authMethods: [{ id: "cursor_login", name: "Cursor Login" }],
            },
      );
      return;
    }
    case "authenticate":
    case "auth/login":
      result(id, {});
      return;
    case "session/new": {
      // Numbered after the sessions already kept, so a restarted process never reuses an id.
      do sessionCount += 1;
      while (loadSession(`fake-session-${sessionCount}`) !== undefined);
      const newId = `fake-session-${sessionCount}`;
      sessions.set(newId, { cwd: String(params.cwd ?? ""), prompts: 0, history: [] });
      saveSession(newId);
      result(id, {
        sessionId: newId,
        modes: {
          currentModeId: "agent",
          availableModes: [
            { id: "agent", name: "Agent" },
            { id: "plan", name: "Plan" },
            { id: "ask", name: "Ask" },
          ],
        },
      });
      return;
    }
    case "session/load":
    case "session/resume": {
      const session = sessionId === undefined ? undefined : loadSession(sessionId);
      if (!session || sessionId === undefined) {
        error(id, -32002, `session ${sessionId} not found`);
        return;
      }
      if (request.method === "session/load") {
        // Cursor replays a loaded session's history as updates before answering.
        session.history.forEach((entry, index) => {
          update(sessionId, {
            sessionUpdate: "user_message_chunk",
            content: { type: "text", text: entry.user },
          });
          message(sessionId, entry.agent, `agent-${index + 1}`);
        });
      } else {
        update(sessionId, { sessionUpdate: "state_update", state: "idle" });
      }
      result(id, {});
      return;
    }
    case "session/set_mode":
      result(id, {});
      return;
    case "session/prompt":
      void runPrompt(id, params);
      return;
    default:
      error(id, -32601, `method not found: ${request.method}`);
  }
}

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  pending += chunk;
  for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (!line.trim()) continue;
    try {
      handle(JSON.parse(line) as Message);
    } catch {
      send({ id: null as unknown as Id, error: { code: -32700, message: "parse error" } });
    }
  }
});
// The client closed its end: done, whatever is parked.
process.stdin.on("end", () => process.exit(0));
