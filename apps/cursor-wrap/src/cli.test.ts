import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "./cli.js";

/** Run a command line in-process; what it printed on stderr, and its exit code. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const stderr = new PassThrough();
  let text = "";
  stderr.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr };
  const code = await runCli(args, io, env);
  return { code, stderr: text };
}

describe("each command's flags, read from its table", () => {
  it("suggests the command's own flag for a misspelt one", async () => {
    expect(await cli(["mcp", "status", "--glbal"])).toEqual({
      code: 1,
      stderr:
        "cursor-wrap: unknown option --glbal (did you mean --global?); see cursor-wrap --help\n",
    });
    expect((await cli(["replay", "x.jsonl", "--idle-timout", "1m"])).stderr).toContain(
      "(did you mean --idle-timeout?)",
    );
  });

  it("checks a value once, by its row, before the command runs", async () => {
    expect(await cli(["mcp", "wrap", "--request-timeout", "5"])).toEqual({
      code: 1,
      stderr:
        'cursor-wrap: --request-timeout takes a duration such as 500ms, 30s, 5m or 1h, not "5"; see cursor-wrap --help\n',
    });
    expect((await cli(["replay", "x.jsonl", "--tail", "soon"])).stderr).toContain(
      '--tail takes a duration such as 500ms, 30s, 5m or 1h, not "soon"',
    );
    expect(
      (await cli(["replay", "x.jsonl"], { CURSOR_WRAP_IDLE_TIMEOUT: "forever" })).stderr,
    ).toContain(
      'CURSOR_WRAP_IDLE_TIMEOUT takes a duration such as 500ms, 30s, 5m or 1h, not "forever"',
    );
  });
});
