import { MCP_DEFAULTS } from "@cursor-wrap/mcp";
import { describe, expect, it } from "vitest";
import { commandFlags, defaultText, resolveOptions } from "../../options/flag-table.js";
import { FLAGS } from "../../options/flags.js";
import { showDuration, showSize } from "../../options/units.js";
import { MCP_FLAGS, proxyFlagsOf } from "./flags.js";

const resolve = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  resolveOptions(MCP_FLAGS, { given: commandFlags(argv, MCP_FLAGS).given, env });

const row = (name: string) => MCP_FLAGS.find((definition) => definition.name === name)!;

describe("mcp's flag table", () => {
  it("leaves the proxy's settings to the proxy's defaults, which help shows", () => {
    expect(resolve(["proxy"])).toMatchObject({
      requestTimeoutMs: undefined,
      initTimeoutMs: undefined,
      maxRequestTimeMs: undefined,
      maxLineBytes: undefined,
      toolTimeouts: {},
    });
    expect(defaultText(row("request-timeout"))).toBe(showDuration(MCP_DEFAULTS.requestTimeoutMs));
    expect(defaultText(row("init-timeout"))).toBe(showDuration(MCP_DEFAULTS.initTimeoutMs));
    expect(defaultText(row("max-request-time"))).toBe(showDuration(MCP_DEFAULTS.maxRequestTimeMs));
    expect(defaultText(row("max-line"))).toBe(showSize(MCP_DEFAULTS.maxLineBytes));
  });

  it("reads --tool-timeout as MCP tool names, where a run reads tool kinds", () => {
    expect(resolve(["proxy", "--tool-timeout", "search=2m,fetch=off"]).toolTimeouts).toEqual({
      search: 120_000,
      fetch: Number.POSITIVE_INFINITY,
    });
    // Given twice, both count (the later wins for a tool named in both).
    expect(
      resolve(["proxy", "--tool-timeout", "a=1s,b=5s", "--tool-timeout=b=2s"]).toolTimeouts,
    ).toEqual({ a: 1_000, b: 2_000 });
    const run = FLAGS.find((definition) => definition.name === "tool-timeout")!;
    expect(run.parse("search=2m", "--tool-timeout")).toMatchObject({
      mcp: 600_000,
      search: 120_000,
    });
  });

  it("refuses a limit of 0, which would fail every request at once (off: none)", () => {
    for (const name of ["request-timeout", "init-timeout", "max-request-time"]) {
      expect(() => resolve(["proxy", `--${name}`, "0"])).toThrow(
        `--${name} must be longer than 0 (or off)`,
      );
      expect(resolve(["proxy", `--${name}`, "off"])).toBeDefined();
    }
    expect(() => resolve(["proxy", "--max-line", "0"])).toThrow(
      "--max-line must be at least 1 byte",
    );
  });

  it("reads no CURSOR_WRAP_* variable but --log-dir's", () => {
    const options = resolve(["proxy"], {
      CURSOR_WRAP_TOOL_TIMEOUT: "mcp=20m",
      CURSOR_WRAP_REQUEST_TIMEOUT: "1s",
      CURSOR_WRAP_LOG_DIR: "/var/log/cw",
    });
    expect(options).toMatchObject({
      toolTimeouts: {},
      requestTimeoutMs: undefined,
      logDir: "/var/log/cw",
    });
  });

  it("checks each value once, naming its flag", () => {
    expect(() => resolve(["wrap", "--request-timeout", "5"])).toThrow(
      /--request-timeout takes a duration/,
    );
    expect(() => resolve(["wrap", "--max-line", "huge"])).toThrow(/--max-line/);
  });

  it("writes the proxy's settings into wrapped entries as they were given", () => {
    const { given } = commandFlags(
      ["wrap", "--global", "--request-timeout", "2m", "--tool-timeout=search=30s", "--dry-run"],
      MCP_FLAGS,
    );
    expect(proxyFlagsOf(given)).toEqual([
      "--request-timeout",
      "2m",
      "--tool-timeout",
      "search=30s",
    ]);
  });
});
