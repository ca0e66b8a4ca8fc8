import {
  type AgentEvent,
  assistantMessage,
  createAssistantText,
  eventTypeOf,
  type JsonEvent,
  resultInfo,
  terminalSafe as safe,
  shellWord,
  type ToolCallInfo,
  type ToolResult,
  toolCallInfo,
  toolResult,
  type Usage,
} from "@cursor-wrap/events";
import { formatDuration } from "@cursor-wrap/wording";
import { createColors } from "picocolors";
import { lifecycleLine } from "./lifecycle-events.js";
import { createStatusLine } from "./status-line.js";
import type { Formatter, FormatterOptions, Output, TurnSummary, WrapperDecision } from "./types.js";
import { offersResume } from "./wrapper-line.js";

type Block = "text" | "tool" | "meta";

const LABEL_MAX = 120;
const IGNORED_FIELDS = new Set(["type", "subtype", "session_id", "timestamp_ms"]);

/** Colour by default: FORCE_COLOR (set, not 0), else not with NO_COLOR, else a terminal with colours. */
function defaultColor(out: Output): boolean {
  const force = process.env.FORCE_COLOR;
  if (force !== undefined && force !== "" && force !== "0") return true;
  if (process.env.NO_COLOR) return false;
  const terminal = out as { isTTY?: boolean; hasColors?: () => boolean };
  return (
    terminal.isTTY === true && typeof terminal.hasColors === "function" && terminal.hasColors()
  );
}

function compact(data: Record<string, unknown>): string {
  // fromEntries defines each key as the object's own: a `__proto__` field is shown, not made
  // the copy's prototype (and so hidden).
  const rest = Object.fromEntries(Object.entries(data).filter(([key]) => !IGNORED_FIELDS.has(key)));
  if (Object.keys(rest).length === 0) return "";
  let text: string;
  try {
    text = JSON.stringify(rest);
  } catch {
    text = "";
  }
  return text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1)}…` : text;
}

function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

function tokens(usage: Usage | undefined): string {
  if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) return "";
  const number = (value: number | undefined) => (value ?? 0).toLocaleString("en-US");
  const cached = usage.cacheReadTokens ? `, ${number(usage.cacheReadTokens)} cached` : "";
  return `${number(usage.inputTokens)} in / ${number(usage.outputTokens)} out tokens${cached}`;
}

/**
 * text (R-FMT3): what a person wants to see. Assistant text as it comes (never twice), one line
 * per tool call with its summary and outcome, wrapper decisions. On a terminal: colour, a live
 * status line with the running tool's elapsed time, and a one-line summary per turn. Elsewhere:
 * plain text, no control sequences. Never throws: unexpected shapes become a generic line.
 */
export function createTextFormatter(out: Output, options: FormatterOptions = {}): Formatter {
  const tty = options.tty ?? out.isTTY === true;
  const paint = createColors(options.color ?? defaultColor(out));
  const now = options.now ?? (() => performance.now());
  const refreshMs = options.refreshMs ?? 1_000;
  const assistant = createAssistantText();
  let usage: Usage | undefined;
  let atLineStart = true;
  let lastBlock: Block | undefined;
  const status = createStatusLine({
    out,
    tty,
    paint,
    now,
    refreshMs,
    atLineStart: () => atLineStart,
  });

  const emit = (text: string): void => {
    if (!text) return;
    out.write(text);
    atLineStart = text.endsWith("\n");
  };

  const print = (text: string): void => {
    status.clear();
    emit(text);
    status.draw();
  };

  /** A whole line in a block; a blank line separates text from tool activity. */
  const line = (text: string, block: Block): void => {
    status.clear();
    if (!atLineStart) emit("\n");
    if (
      lastBlock !== undefined &&
      lastBlock !== block &&
      (block === "text" || lastBlock === "text")
    )
      emit("\n");
    lastBlock = block;
    emit(`${text}\n`);
    status.draw();
  };

  const describeCall = (info: ToolCallInfo | undefined, result?: ToolResult): string => {
    const label = safe(info?.label || result?.command || "");
    const kind = safe(info?.kind ?? result?.kind ?? "tool");
    if (kind === "shell") return `\`${label}\``;
    return label ? `${kind} ${label}` : kind;
  };

  const renderAssistant = (event: JsonEvent): void => {
    const message = assistantMessage(event);
    if (!message) return;
    const added = assistant.add(message);
    const show = safe(added.show);
    const { complete } = added;
    if (message.form === "delta") {
      if (!show) return;
      if (atLineStart && lastBlock !== undefined && lastBlock !== "text") {
        status.clear();
        emit("\n");
      }
      lastBlock = "text";
      print(show);
      return;
    }
    if (!atLineStart && lastBlock === "text") {
      // The end of a message whose deltas were just shown: add what they missed, end the line.
      if (complete) print(`${show.replace(/\n+$/, "")}\n`);
      return;
    }
    const text = show.replace(/^\n+|\n+$/g, "");
    if (text) line(text, "text");
  };

  const renderToolStart = (event: JsonEvent): void => {
    const info = toolCallInfo(event);
    if (!info) return;
    assistant.breakSegment();
    const what = `${describeCall(info)}${info.background ? paint.dim(" (background)") : ""}`;
    status.toolStarted(info.callId, what, event.recvAt.mono);
    if (!tty) line(`⏳ ${what}`, "tool");
    else if (!atLineStart) print("\n");
    status.refresh();
  };

  const renderToolEnd = (event: JsonEvent): void => {
    const info = toolCallInfo(event);
    const result = toolResult(event);
    if (!info || !result) return;
    assistant.breakSegment();
    const startedAt = status.toolEnded(info.callId);
    const elapsed =
      result.executionTimeMs ??
      (startedAt === undefined ? undefined : Math.max(0, event.recvAt.mono - startedAt));
    const parts = [
      elapsed === undefined ? "" : formatDuration(elapsed),
      safe(result.summary),
    ].filter(Boolean);
    const mark = result.pending ? paint.yellow("…") : result.ok ? paint.green("✓") : paint.red("✗");
    line(
      `${mark} ${describeCall(info, result)}${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`,
      "tool",
    );
    if (!result.ok && result.stderrTail) {
      for (const stderrLine of result.stderrTail.split("\n"))
        line(paint.dim(`    │ ${safe(stderrLine)}`), "tool");
    }
    status.refresh();
  };

  const renderJson = (event: JsonEvent): void => {
    const lifecycle = lifecycleLine(event);
    if (lifecycle !== undefined) {
      line(paint.dim(safe(lifecycle)), "meta");
      status.refresh();
      return;
    }
    switch (event.type) {
      case "system":
        if (event.subtype === "init") return;
        break;
      case "user":
        return;
      case "thinking":
        status.setPhase("thinking", event.recvAt.mono);
        status.refresh();
        return;
      case "assistant":
        status.setPhase("responding", event.recvAt.mono);
        // A message whose content is no list of parts (a shape not known here): shown as data
        // (R-FMT4), its text then comes with the result.
        if (!Array.isArray((event.data.message as { content?: unknown } | undefined)?.content))
          break;
        renderAssistant(event);
        status.refresh();
        return;
      case "tool_call":
        if (event.subtype === "started") renderToolStart(event);
        else renderToolEnd(event);
        return;
      case "result": {
        const result = resultInfo(event);
        usage = result?.usage;
        status.reset();
        status.refresh();
        if (!atLineStart) print("\n");
        // An error result's words may be all the agent says of what failed: shown, unless they
        // are the text already shown.
        const failed = result?.isError ? result.text.trim() : "";
        if (failed && !assistant.text().includes(failed))
          line(paint.red(`✗ ${safe(failed)}`), "meta");
        // A turn answered in its result alone (no assistant text, or none in a shape known
        // here): the answer is the result's text.
        const answer = result && !result.isError ? result.text.replace(/^\n+|\n+$/g, "") : "";
        if (answer && !assistant.text().trim()) line(safe(answer), "text");
        return;
      }
      case "error": {
        const message = event.data.message ?? event.data.error;
        line(
          paint.red(
            `✗ error: ${safe(typeof message === "string" ? message : compact(event.data))}`,
          ),
          "meta",
        );
        return;
      }
    }
    const data = compact(event.data);
    line(paint.dim(safe(`· ${eventTypeOf(event)}${data ? ` ${data}` : ""}`)), "meta");
  };

  // The hang last shown: a retry of it says it again only if it was not (`logs show` shows the
  // verdict's record, then the retry's; a live run reports a retried hang with the retry alone).
  let hangShown: string | undefined;
  const decisionLines = (decision: WrapperDecision): string[] => {
    const resume = (sessionId: string | undefined): string[] =>
      sessionId
        ? [paint.dim(`  resume with: cursor-wrap --resume ${safe(shellWord(sessionId))}`)]
        : [];
    switch (decision.kind) {
      case "hang":
        hangShown = decision.reason.message;
        return [
          paint.yellow(`⚠ Hang detected — killed cursor-agent (${safe(decision.reason.message)})`),
          ...(decision.terminal ? resume(decision.sessionId) : []),
        ];
      case "budget":
        return [
          paint.yellow(
            `⚠ Turn budget exceeded — killed cursor-agent (${safe(decision.reason.message)})`,
          ),
          ...(decision.terminal ? resume(decision.sessionId) : []),
        ];
      case "linger":
        return [
          paint.yellow(
            `⚠ cursor-agent finished but did not exit (${safe(decision.reason.message)}); killed it`,
          ),
        ];
      case "retry":
        return [
          // A hang that is retried: what hung, then what comes next.
          ...(decision.reason &&
          decision.message === undefined &&
          decision.reason.message !== hangShown
            ? [
                paint.yellow(
                  `⚠ Hang detected — killed cursor-agent (${safe(decision.reason.message)})`,
                ),
              ]
            : []),
          paint.yellow(
            decision.message !== undefined
              ? `↻ ${safe(decision.message)}`
              : `↻ Retrying (${decision.attempt}/${decision.maxAttempts}): resuming the session with ${safe(JSON.stringify(decision.prompt ?? ""))}`,
          ),
        ];
      case "cancelled":
        return [
          paint.yellow(`✗ Cancelled${decision.signal ? ` (${decision.signal})` : ""}`),
          ...resume(decision.sessionId),
        ];
      case "error":
        return [
          paint.red(`✗ ${safe(decision.message)}`),
          ...(offersResume(decision) ? resume(decision.sessionId) : []),
        ];
    }
  };

  return {
    write(event: AgentEvent) {
      try {
        if (status.notice) {
          status.setNotice("");
          status.refresh();
        }
        switch (event.kind) {
          case "json":
            renderJson(event);
            break;
          case "text":
            line(safe(event.text), "meta");
            break;
          case "oversize":
            if (event.final)
              line(paint.dim(`· oversize line (${bytes(event.totalBytes)}) not shown`), "meta");
            break;
        }
      } catch {
        line(paint.dim(`· ${safe(eventTypeOf(event))}`), "meta");
      }
    },

    wrapper(decision) {
      status.reset();
      for (const text of decisionLines(decision)) line(text, "meta");
      status.refresh();
    },

    flush() {},
    startTurn() {
      status.startTurn(now());
      status.refresh();
    },
    interrupt() {
      status.clear();
    },
    notice(message, timing) {
      if (tty) {
        // An empty notice clears the one shown.
        status.setNotice(message ? `… ${safe(message)}` : "", timing);
        status.refresh();
      } else if (message) {
        line(paint.dim(`… ${safe(message)}`), "meta");
      }
    },

    endTurn(summary: TurnSummary) {
      status.reset();
      status.refresh();
      status.clear();
      if (!atLineStart) emit("\n");
      if (tty) {
        const attempts =
          summary.attempts !== undefined && summary.attempts > 1
            ? `${summary.attempts} attempts${summary.models && summary.models.length > 1 ? ` (${summary.models.map(safe).join(" → ")})` : ""}`
            : "";
        const parts = [
          formatDuration(summary.durationMs),
          `${summary.toolCalls} tool call${summary.toolCalls === 1 ? "" : "s"}`,
          tokens(summary.usage ?? usage),
          attempts,
          summary.waitedMs ? `waited ${formatDuration(summary.waitedMs)}` : "",
        ].filter(Boolean);
        emit(`${paint.dim(`— ${parts.join(" · ")}`)}\n`);
      }
      assistant.reset();
      usage = undefined;
      lastBlock = undefined;
    },

    partialResult: () => assistant.text(),

    close() {
      status.close();
    },
  };
}
