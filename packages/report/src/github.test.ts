import { terminalSafe } from "@cursor-wrap/events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  completedRun,
  HOSTILE,
  hangRun,
  hangThenRetryRun,
  hostileRun,
} from "./__fixtures__/runs.js";
import { writeRun } from "./__fixtures__/write-run.js";
import { ANNOTATIONS_PER_LEVEL, githubAnnotations, githubSummary } from "./github.js";
import { codeBlock, markdownText } from "./markdown.js";
import { buildReport } from "./report-builder.js";
import type { RunReport } from "./run-report.js";
import { escapeData, escapeProperty, workflowCommand } from "./workflow-commands.js";

const reportOf = (steps: Parameters<typeof writeRun>[0]): RunReport => buildReport(writeRun(steps));

/**
 * How the Actions runner reads a line of a step's output (actions/runner, `ActionCommand`):
 * a command is a line that starts with `::`; the name and properties run to the next `::`,
 * the message is the rest; each value is unescaped. Undefined for a line that is no command.
 */
function runnerReads(
  line: string,
): { name: string; properties: Record<string, string>; message: string } | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("::")) return undefined;
  const end = trimmed.indexOf("::", 2);
  if (end === -1) return undefined;
  const head = trimmed.slice(2, end);
  const space = head.indexOf(" ");
  const name = space === -1 ? head : head.slice(0, space);
  const properties: Record<string, string> = {};
  if (space !== -1) {
    for (const pair of head.slice(space + 1).split(",")) {
      const equals = pair.indexOf("=");
      properties[pair.slice(0, equals)] = runnerUnescape(pair.slice(equals + 1), true);
    }
  }
  return { name, properties, message: runnerUnescape(trimmed.slice(end + 2), false) };
}

function runnerUnescape(value: string, property: boolean): string {
  let text = value.replace(/%0D/g, "\r").replace(/%0A/g, "\n");
  if (property) text = text.replace(/%3A/g, ":").replace(/%2C/g, ",");
  return text.replace(/%25/g, "%");
}

describe("workflowCommand", () => {
  it("escapes as GitHub's toolkit does", () => {
    expect(escapeData("50% done\r\nnext")).toBe("50%25 done%0D%0Anext");
    expect(escapeProperty("a:b,c%\n")).toBe("a%3Ab%2Cc%25%0A");
    expect(workflowCommand("error", { title: "t: x, y" }, "m")).toBe(
      "::error title=t%3A x%2C y::m",
    );
    expect(workflowCommand("warning", {}, "m")).toBe("::warning::m");
    expect(workflowCommand("warning", {}, "m \t")).toBe("::warning::m");
  });

  it("shows the agent's control characters escaped: the runner's log is read on a screen", () => {
    expect(
      workflowCommand("error", { title: "bad\u001b]0;x\u0007" }, "red \u001b[31mX\u202e end"),
    ).toBe("::error title=bad\\x1b]0;x\\x07::red \\x1b[31mX\\u202e end");
  });

  it("is one line the runner reads back as exactly what was said, whatever the text (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: "binary" }),
        (title, message) => {
          const line = workflowCommand("error", { title }, message);
          expect(line).not.toMatch(/[\r\n]/);
          // Trailing whitespace is no part of what the runner reads (it trims each line).
          // What a terminal would act on is shown escaped instead (see the test below).
          expect(runnerReads(line)).toEqual({
            name: "error",
            properties: { title: terminalSafe(title) },
            message: terminalSafe(message).trimEnd(),
          });
        },
      ),
    );
  });
});

describe("githubAnnotations", () => {
  it("says error for a hang and for a failed run, warning for a retry", () => {
    expect(githubAnnotations(reportOf(hangThenRetryRun)).map((line) => runnerReads(line))).toEqual([
      {
        name: "error",
        properties: { title: "cursor-wrap: hang detected" },
        message: expect.stringContaining("turn 1: 1 tool call past its deadline"),
      },
      {
        name: "warning",
        properties: { title: "cursor-wrap: retry after turn 1" },
        message: expect.stringContaining("hang: "),
      },
    ]);
    const failed = githubAnnotations(reportOf(hangRun)).map((line) => runnerReads(line)!);
    expect(failed.map((command) => [command.name, command.properties.title])).toEqual([
      ["error", "cursor-wrap: hang detected"],
      ["error", "cursor-wrap: hang (exit 2)"],
    ]);
    expect(failed[1]!.message).toContain(
      "Resume with: cursor-wrap --resume 9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2",
    );
    expect(githubAnnotations(reportOf(completedRun))).toEqual([]);
  });

  it("lets nothing the agent printed start a workflow command of its own", () => {
    const report = reportOf(hostileRun);
    const lines = githubAnnotations(report);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    const output = `${lines.join("\n")}\n`;
    // Each annotation is exactly one line, and the only commands in the output are ours.
    const commands = output
      .split("\n")
      .filter(Boolean)
      .map((line) => runnerReads(line));
    expect(commands.map((command) => command?.name)).toEqual(
      lines.map(() => expect.stringMatching(/^(error|warning)$/)),
    );
    expect(output).not.toMatch(/^::(add-mask|set-output|stop-commands)/m);
    // And what the runner shows is the text as the agent printed it (one line of stderr, or the
    // summary of the verdict), nothing lost: terminal-safe (a CRLF read as a line end).
    const hang = commands.find(
      (command) => command?.properties.title === "cursor-wrap: hang detected",
    );
    expect(hang?.message).toBe(terminalSafe(`turn 1: ${HOSTILE}`));
  });

  it("gives at most ten of each level and counts the rest", () => {
    const report = reportOf(hangThenRetryRun);
    const many: RunReport = {
      ...report,
      verdicts: Array.from({ length: 25 }, () => report.verdicts[0]!),
    };
    const errors = githubAnnotations(many).filter((line) => line.startsWith("::error"));
    expect(errors).toHaveLength(ANNOTATIONS_PER_LEVEL);
    expect(runnerReads(errors.at(-1)!)?.properties.title).toBe("cursor-wrap: 16 more");
  });
});

describe("githubSummary", () => {
  it("shows the outcome, attempts, tool calls, usage, refusals and how to resume", () => {
    const summary = githubSummary(reportOf(completedRun));
    expect(summary).toContain("### ✅ cursor-wrap: completed (exit 0)");
    expect(summary).toContain("| read | 2 | 0 | 0 | 0 | 200ms | 100ms |");
    expect(summary).toContain("| total | 4 | 122 | 13,535 | 15,844 |");
    expect(summary).toContain("Refused (1):");
    expect(summary).toContain("- shell python3 hello\\.py: rejected");
    // A run that completed needs no resume.
    expect(summary).not.toContain("#### Resume");

    const hang = githubSummary(reportOf(hangRun));
    expect(hang).toContain("### ❌ cursor-wrap: hang (exit 2)");
    expect(hang).toContain("- **hang** (turn 1):");
    expect(hang).toContain("```sh\ncursor-wrap --resume 9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2\n```");
    expect(hang).toContain("**unfinished**");
    expect(hang).toContain("```text\nfatal: the build server went away\n```");
  });

  it("keeps what the agent printed as text: no HTML, link, table cell or fence of its own", () => {
    const summary = githubSummary(reportOf(hostileRun));
    // Outside code blocks (where text is literal anyway).
    const outsideCode = summary.replace(/^(`{3,})[a-z]*\n[\s\S]*?\n\1$/gm, "");
    expect(outsideCode).toContain("&lt;img src\\=x onerror\\=alert\\(1\\)&gt;");
    expect(outsideCode).not.toMatch(/<img|\]\(https|(^|[^\\])\[link/);
    // The table rows keep their cells: an agent's `|` is escaped.
    for (const row of summary.split("\n").filter((line) => line.startsWith("| 1 |"))) {
      expect(row.split(/(?<!\\)\|/).length).toBe(14);
    }
    // The stderr block is closed by its own fence, longer than the agent's.
    const fence = summary.match(/^(`{4,})text$/m)?.[1];
    expect(fence).toBeDefined();
    expect(summary).toContain(`\n${fence}\n`);
  });

  it("escapes every character Markdown acts on, and code blocks outlast their contents", () => {
    expect(markdownText("a|b *c* [d](e) <f> & `g` \\ h\ni")).toBe(
      "a\\|b \\*c\\* \\[d\\]\\(e\\) &lt;f&gt; &amp; \\`g\\` \\\\ h i",
    );
    expect(markdownText("bidi \u202e and \u001b[31m")).toBe("bidi  and \\[31m");
    expect(markdownText("hid\u200bden\u{e0048}\u{e0069}")).toBe("hidden");
    expect(codeBlock(["```", "````x"])).toBe("`````text\n```\n````x\n`````");
  });
});
