import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultText, envName, rowsOf, suggestFlag } from "./flag-table.js";
import { FLAGS } from "./flags.js";
import { resolveRunOptions } from "./resolve.js";

const resolve = (
  given: Record<string, string | boolean>,
  env: NodeJS.ProcessEnv = {},
  words: string[] = [],
) => resolveRunOptions({ given: new Map(Object.entries(given)), env, words });

describe("resolveRunOptions", () => {
  it("applies the defaults of docs/requirements.md", () => {
    const options = resolve({});
    expect(options).toEqual({
      print: false,
      outputFormat: "text",
      inputFormat: "text",
      enforceTools: false,
      resume: undefined,
      idleTimeoutMs: 60_000,
      toolGraceMs: 30_000,
      toolTimeouts: { mcp: 600_000, task: 1_800_000, await: 600_000 },
      exitGraceMs: 10_000,
      maxTurnMs: undefined,
      firstOutputMs: 180_000,
      maxQuietMs: 1_800_000,
      maxDrainMs: 300_000,
      backgroundWaitMs: 600_000,
      killGraceMs: 3_000,
      drainGraceMs: 2_000,
      tickIntervalMs: undefined,
      promptAfterHang: undefined,
      maxHangRetries: 3,
      maxRetries: 3,
      retryBackoffMs: 2_000,
      fallbackModels: [],
      waitForReset: false,
      maxWaitMs: 21_600_000,
      authProfiles: [],
      mcpWatchdog: false,
      agentBin: undefined,
      force: true,
      pty: false,
      stderrMode: "errors",
      logDir: join(homedir(), ".cursor-wrap", "logs"),
      logLevel: "warn",
      logRetentionMs: 604_800_000,
      redact: true,
      parseCap: 16 * 1024 * 1024,
      reportFile: undefined,
      reportFormat: "auto",
      otel: false,
      onVerdict: undefined,
      onVerdictEvents: ["hang", "linger", "budget", "retry", "gave-up", "done"],
      notifyUrl: undefined,
      notifyTimeoutMs: 10_000,
      agentArguments: [],
      agentArgumentsFromEnv: [],
      prompt: undefined,
    });
  });

  it("reads the recovery flags: retries, backoff, fallback models, waits, auth profiles", () => {
    expect(
      resolve({
        "max-retries": "5",
        "retry-backoff": "500ms",
        "fallback-model": " suggested, auto ,gpt-5-mini ",
        "wait-for-reset": true,
        "max-wait": "2h",
        "auth-profile": "work,spare-2",
      }),
    ).toMatchObject({
      maxRetries: 5,
      retryBackoffMs: 500,
      fallbackModels: ["suggested", "auto", "gpt-5-mini"],
      waitForReset: true,
      maxWaitMs: 7_200_000,
      authProfiles: ["work", "spare-2"],
    });
    expect(
      resolve({}, { CURSOR_WRAP_FALLBACK_MODEL: "auto", CURSOR_WRAP_WAIT_FOR_RESET: "1" }),
    ).toMatchObject({ fallbackModels: ["auto"], waitForReset: true });
    expect(() => resolve({ "max-retries": "-1" })).toThrow(
      '--max-retries takes a whole number >= 0, not "-1"',
    );
    expect(() => resolve({ "retry-backoff": "0s" })).toThrow(
      "--retry-backoff must be longer than 0",
    );
    expect(() => resolve({ "auth-profile": "work,a b" })).toThrow(
      '--auth-profile takes profile names (letters, digits, - and _) separated by commas, not "a b"',
    );
    expect(defaultText(rowsOf(FLAGS, ["fallbackModels"])[0]!)).toBe("none");
    expect(defaultText(rowsOf(FLAGS, ["maxWaitMs"])[0]!)).toBe("6h");
    expect(defaultText(rowsOf(FLAGS, ["retryBackoffMs"])[0]!)).toBe("2s");
  });

  it("switches output and console defaults with -p", () => {
    expect(resolve({ print: true })).toMatchObject({
      print: true,
      outputFormat: "stream-json",
      logLevel: "info",
    });
  });

  it("reads every flag given on the command line", () => {
    const options = resolve(
      {
        "idle-timeout": "2m",
        "tool-timeout": "mcp=20m",
        "max-turn-duration": "1h",
        force: false,
        redact: false,
        pty: true,
        "parse-cap": "1MiB",
      },
      {},
      ["fix", "it"],
    );
    expect(options).toMatchObject({
      idleTimeoutMs: 120_000,
      toolTimeouts: { mcp: 1_200_000, task: 1_800_000 },
      maxTurnMs: 3_600_000,
      force: false,
      redact: false,
      pty: true,
      parseCap: 1_048_576,
      prompt: "fix it",
    });
  });

  it("falls back to CURSOR_WRAP_* variables, with flags winning", () => {
    const env = {
      CURSOR_WRAP_IDLE_TIMEOUT: "90s",
      CURSOR_WRAP_TOOL_GRACE: "1m",
      CURSOR_WRAP_PTY: "true",
      CURSOR_WRAP_NO_REDACT: "1",
      CURSOR_WRAP_FORCE: "false",
      CURSOR_WRAP_LOG_DIR: "/var/log/cw",
      CURSOR_WRAP_STDERR: "all",
    };
    const options = resolve({ "tool-grace": "5s" }, env);
    expect(options).toMatchObject({
      idleTimeoutMs: 90_000,
      toolGraceMs: 5_000,
      pty: true,
      redact: false,
      force: false,
      logDir: "/var/log/cw",
      stderrMode: "all",
    });
  });

  it("refuses bad values with a message naming the flag or variable", () => {
    expect(() => resolve({ stderr: "some" })).toThrow(
      '--stderr must be one of all, errors, none, not "some"',
    );
    expect(() => resolve({ "output-format": "yaml" })).toThrow(/--output-format must be one of/);
    expect(() => resolve({}, { CURSOR_WRAP_IDLE_TIMEOUT: "soon" })).toThrow(
      /CURSOR_WRAP_IDLE_TIMEOUT takes a duration/,
    );
    expect(() => resolve({}, { CURSOR_WRAP_PTY: "maybe" })).toThrow(
      'CURSOR_WRAP_PTY must be true or false, not "maybe"',
    );
    expect(() => resolve({ "max-hang-retries": "-1" })).toThrow(
      /--max-hang-retries takes a whole number/,
    );
    expect(() => resolve({ "idle-timeout": "0" })).toThrow(
      /--idle-timeout must be longer than 0 \(or off\)/,
    );
    expect(() => resolve({ resume: true })).toThrow("--resume needs a value");
  });

  it("reads the operations flags: report, trace, notifications", () => {
    expect(
      resolve({
        report: "out/report.json",
        "report-format": "github",
        otel: true,
        "on-verdict": "./page.sh --team 'agents on call'",
        "on-verdict-events": "hang, gave-up",
        notify: "https://hooks.slack.com/services/T0/B0/x",
        "notify-timeout": "3s",
      }),
    ).toMatchObject({
      reportFile: "out/report.json",
      reportFormat: "github",
      otel: true,
      onVerdict: ["./page.sh", "--team", "agents on call"],
      onVerdictEvents: ["hang", "gave-up"],
      notifyUrl: "https://hooks.slack.com/services/T0/B0/x",
      notifyTimeoutMs: 3_000,
    });
    expect(
      resolve({}, { CURSOR_WRAP_NOTIFY: "https://example.com/hook", CURSOR_WRAP_OTEL: "1" }),
    ).toMatchObject({ notifyUrl: "https://example.com/hook", otel: true });
    expect(() => resolve({ "on-verdict": "notify | tee log" })).toThrow(/sh -c/);
    expect(() => resolve({ "on-verdict-events": "hang,stuck" })).toThrow(
      /--on-verdict-events takes events among hang, linger, budget, retry, gave-up, done, not "stuck"/,
    );
    expect(() => resolve({ notify: "hooks.slack.com/x" })).toThrow(
      "--notify takes an http:// or https:// URL",
    );
    // A URL that is refused is never echoed: its path may be the secret.
    expect(() => resolve({ notify: "file:///s3cret" })).toThrow(/^(?!.*s3cret)/);
    expect(() => resolve({ "report-format": "xml" })).toThrow(/--report-format must be one of/);
    expect(() => resolve({ "notify-timeout": "0" })).toThrow(
      /--notify-timeout must be more than 0/,
    );
  });

  it("turns the budget off with 0 or off", () => {
    expect(resolve({ "max-turn-duration": "0" }).maxTurnMs).toBeUndefined();
    expect(resolve({ "max-turn-duration": "off" }).maxTurnMs).toBeUndefined();
  });
});

describe("the flag table", () => {
  it("has every flag of R-CLI1 and the design seed, each with a variable", () => {
    const names = FLAGS.map((flag) => flag.name);
    for (const name of [
      "print",
      "output-format",
      "idle-timeout",
      "tool-grace",
      "tick-interval",
      "log-dir",
      "log-level",
      "agent-bin",
      "force",
      "resume",
      "prompt-after-hang",
      "max-hang-retries",
      "max-retries",
      "retry-backoff",
      "fallback-model",
      "wait-for-reset",
      "max-wait",
      "auth-profile",
      "exit-grace",
      "kill-grace",
      "max-turn-duration",
      "tool-timeout",
      "pty",
      "stderr",
      "redact",
      "log-retention",
      "parse-cap",
      "report",
      "report-format",
      "otel",
      "on-verdict",
      "on-verdict-events",
      "notify",
      "notify-timeout",
    ]) {
      expect(names).toContain(name);
    }
    expect(envName("max-turn-duration")).toBe("CURSOR_WRAP_MAX_TURN_DURATION");
  });

  it("states each option once", () => {
    const keys = FLAGS.map((flag) => flag.key);
    expect(new Set(keys).size).toBe(keys.length);
    const names = FLAGS.map((flag) => flag.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("computes the default shown in help from the default value", () => {
    expect(defaultText(rowsOf(FLAGS, ["idleTimeoutMs"])[0]!)).toBe("60s");
    expect(defaultText(rowsOf(FLAGS, ["killGraceMs"])[0]!)).toBe("3s");
    expect(defaultText(rowsOf(FLAGS, ["logRetentionMs"])[0]!)).toBe("7d");
    expect(defaultText(rowsOf(FLAGS, ["toolTimeouts"])[0]!)).toBe("mcp=10m,task=30m,await=10m");
    expect(defaultText(rowsOf(FLAGS, ["parseCap"])[0]!)).toBe("16MiB");
    expect(defaultText(rowsOf(FLAGS, ["outputFormat"])[0]!)).toBe(
      "stream-json with -p, text without",
    );
    expect(defaultText(rowsOf(FLAGS, ["maxTurnMs"])[0]!)).toBe("off");
  });
});

describe("suggestFlag", () => {
  it("suggests the closest known flag, and nothing for far-off names", () => {
    const known = FLAGS.map((flag) => flag.name);
    expect(suggestFlag("--idel-timeout", known)).toBe("idle-timeout");
    expect(suggestFlag("--agentbin", known)).toBe("agent-bin");
    expect(suggestFlag("--completely-different", known)).toBeUndefined();
  });
});
