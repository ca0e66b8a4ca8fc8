// A run report as GitHub Actions shows it: a job summary in Markdown (appended to
// `$GITHUB_STEP_SUMMARY`) and annotations (workflow commands on the step's output). Everything
// the agent said is escaped: it reads as text and cannot start a workflow command.

import { formatDuration } from "@cursor-wrap/wording";
import { codeBlock, markdownText, table } from "./markdown.js";
import type { AttemptReport, RunReport, TokenUsage } from "./run-report.js";
import { workflowCommand } from "./workflow-commands.js";

/** GitHub shows at most this many annotations of each level per step; the rest are counted. */
export const ANNOTATIONS_PER_LEVEL = 10;

const tokens = (value: number): string => value.toLocaleString("en-US");

function usageCells(usage: TokenUsage | null): string[] {
  if (!usage) return ["–", "–", "–", "–"];
  return [
    tokens(usage.input_tokens),
    tokens(usage.output_tokens),
    tokens(usage.cache_read_tokens),
    tokens(usage.cache_write_tokens),
  ];
}

const durationText = (ms: number | null): string => (ms === null ? "–" : formatDuration(ms));

function headline(report: RunReport): string {
  if (!report.finished) return "⏳ cursor-wrap: running";
  const mark = report.exit_code === 0 ? (report.flagged ? "⚠️" : "✅") : "❌";
  return `${mark} cursor-wrap: ${markdownText(report.outcome)} (exit ${report.exit_code ?? "?"})`;
}

function attemptThen(attempt: AttemptReport): string {
  if (attempt.retry) {
    const wait = attempt.retry.wait_ms ? ` after ${formatDuration(attempt.retry.wait_ms)}` : "";
    return `${markdownText(attempt.retry.action ?? "retry")}${wait}`;
  }
  return attempt.failure?.gave_up ? "gave up" : "–";
}

/**
 * The job summary of a run, in Markdown: the outcome, the attempts, the verdicts, the tool
 * calls and the usage, how to resume, and the last lines of the agent's stderr.
 */
export function githubSummary(report: RunReport): string {
  const parts: string[] = [`### ${headline(report)}`, ""];
  const facts: Array<[string, string]> = [
    ["outcome", markdownText(report.outcome)],
    ["exit code", report.exit_code === null ? "–" : String(report.exit_code)],
    ["duration", durationText(report.duration_ms)],
    [
      "agent",
      markdownText(
        `${report.agent.bin ?? "cursor-agent"}${report.agent.version ? ` ${report.agent.version}` : ""}`,
      ),
    ],
    ["models", report.models.map(markdownText).join(", ") || "–"],
    ["turns", String(report.turns)],
    ["session", report.session_id ? markdownText(report.session_id) : "–"],
    ["log", report.log_path ? markdownText(report.log_path) : "–"],
  ];
  if (report.failure) {
    facts.splice(2, 0, [
      "failure",
      markdownText(`${report.failure.kind}: ${report.failure.summary}`),
    ]);
  }
  parts.push(table(["", ""], facts), "");

  if (report.verdicts.length > 0) {
    parts.push("#### Verdicts", "");
    for (const verdict of report.verdicts) {
      parts.push(
        `- **${verdict.verdict}** (turn ${verdict.turn}): ${markdownText(verdict.summary)}`,
      );
    }
    parts.push("");
  }

  if (report.attempts.length > 0) {
    parts.push("#### Attempts", "");
    parts.push(
      table(
        [
          "turn",
          "attempt",
          "model",
          "outcome",
          "failure",
          "duration",
          "tool calls",
          "input",
          "output",
          "cache read",
          "cache write",
          "then",
        ],
        report.attempts.map((attempt) => [
          String(attempt.turn),
          String(attempt.attempt),
          markdownText(attempt.model ?? "default"),
          markdownText(attempt.outcome),
          attempt.failure ? markdownText(attempt.failure.kind) : "–",
          durationText(attempt.duration_ms),
          String(attempt.tool_calls),
          ...usageCells(attempt.usage),
          attemptThen(attempt),
        ]),
      ),
      "",
    );
  }

  const calls = report.tool_calls;
  if (calls.total > 0) {
    parts.push(
      "#### Tool calls",
      "",
      table(
        ["kind", "calls", "failed", "refused", "unfinished", "time", "longest"],
        calls.by_kind.map((kind) => [
          markdownText(kind.kind),
          String(kind.count),
          String(kind.failed),
          String(kind.denied),
          String(kind.unfinished),
          formatDuration(kind.total_ms),
          formatDuration(kind.max_ms),
        ]),
      ),
      "",
      "Slowest:",
      "",
    );
    for (const call of calls.slowest.slice(0, 5)) {
      const state = call.finished ? markdownText(call.outcome ?? "done") : "**unfinished**";
      parts.push(
        `- ${formatDuration(call.duration_ms)} ${markdownText(call.kind)}${call.label ? ` ${markdownText(call.label)}` : ""} (turn ${call.turn}, ${state})`,
      );
    }
    if (calls.denied > 0) {
      parts.push("", `Refused (${calls.denied}):`, "");
      for (const call of calls.denied_calls.slice(0, 10)) {
        parts.push(
          `- ${markdownText(call.kind)}${call.label ? ` ${markdownText(call.label)}` : ""}: ${markdownText(call.outcome ?? "refused")}`,
        );
      }
    }
    parts.push("");
  }

  parts.push(
    "#### Usage",
    "",
    table(
      ["", "input", "output", "cache read", "cache write"],
      [["total", ...usageCells(report.usage)]],
    ),
    "",
  );

  if (report.resume_command && report.exit_code !== 0) {
    parts.push("#### Resume", "", codeBlock([report.resume_command], "sh"), "");
  }
  if (report.stderr_tail.length > 0) {
    parts.push("#### Agent stderr (last lines)", "", codeBlock(report.stderr_tail), "");
  }
  return `${parts.join("\n")}\n`;
}

/** An annotation: its level and text (escaped when written). */
interface Annotation {
  level: "error" | "warning";
  title: string;
  message: string;
}

function annotationsOf(report: RunReport): Annotation[] {
  const found: Annotation[] = [];
  for (const verdict of report.verdicts) {
    const message = `turn ${verdict.turn}: ${verdict.summary}`;
    switch (verdict.verdict) {
      case "hang":
        found.push({ level: "error", title: "cursor-wrap: hang detected", message });
        break;
      case "budget":
        found.push({ level: "error", title: "cursor-wrap: turn budget exceeded", message });
        break;
      case "linger":
        found.push({
          level: "warning",
          title: "cursor-wrap: agent lingered after its result",
          message,
        });
        break;
      default: {
        const unreachable: never = verdict.verdict;
        throw new Error(`unknown verdict ${String(unreachable)}`);
      }
    }
  }
  for (const attempt of report.attempts) {
    if (!attempt.retry) continue;
    found.push({
      level: "warning",
      title: `cursor-wrap: retry after turn ${attempt.turn}`,
      message: `${attempt.retry.kind ?? attempt.outcome}: ${attempt.retry.summary}`,
    });
  }
  if (report.finished && report.exit_code !== 0 && report.exit_code !== null) {
    const failure = report.failure;
    const resume = report.resume_command ? ` Resume with: ${report.resume_command}` : "";
    found.push({
      level: "error",
      title: `cursor-wrap: ${failure ? failure.kind : report.outcome} (exit ${report.exit_code})`,
      message: `${failure ? failure.summary : `the run ended: ${report.outcome}`}${failure?.gave_up ? ` (gave up: ${failure.gave_up})` : ""}.${resume}`,
    });
  }
  return found;
}

/**
 * The annotations of a run as workflow command lines (`::error title=…::…`, `::warning …`),
 * each escaped as GitHub's toolkit escapes them: an error for a hang, a budget overrun or a
 * run that failed, a warning for a linger or a retry. At most {@link ANNOTATIONS_PER_LEVEL} of
 * each level (GitHub shows no more); past that, one line says how many more there were.
 */
export function githubAnnotations(report: RunReport): string[] {
  const lines: string[] = [];
  for (const level of ["error", "warning"] as const) {
    const all = annotationsOf(report).filter((annotation) => annotation.level === level);
    const shown =
      all.length > ANNOTATIONS_PER_LEVEL ? all.slice(0, ANNOTATIONS_PER_LEVEL - 1) : all;
    for (const annotation of shown) {
      lines.push(workflowCommand(level, { title: annotation.title }, annotation.message));
    }
    if (shown.length < all.length) {
      lines.push(
        workflowCommand(
          level,
          { title: `cursor-wrap: ${all.length - shown.length} more` },
          `see the job summary and the run report for all ${all.length}`,
        ),
      );
    }
  }
  return lines;
}
