// The MCP watchdog for every client, and for one session at a time, run as users run it: the
// built CLI, configs shaped like each client's (packages/mcp/src/__fixtures__/clients), and a
// fake client that reads its config as the client does and talks to the servers through the
// official SDK's stdio transport.

import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeMcpClientBin, fakeMcpServerBin, isAlive } from "@cursor-wrap/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, run, wrap } from "./harness.js";
import { runInProcess } from "./in-process.js";

const FIXTURES = fileURLToPath(
  new URL("../../../packages/mcp/src/__fixtures__/clients/", import.meta.url),
);

/** A home directory and a project of their own for one test. */
function place() {
  const root = mkdtempSync(join(tmpdir(), "mcp-clients-e2e-"));
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
  const put = (path: string, text: string): string => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  return { root, home, project, env, put };
}

/** Every client's config in a home and a project (what `mcp status` finds). */
function allClients(where: ReturnType<typeof place>) {
  const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
  const { home, project, put } = where;
  return {
    cursor: put(join(home, ".cursor", "mcp.json"), fixture("cursor-mcp.json")),
    claudeUser: put(
      join(home, ".claude.json"),
      fixture("claude-code-user.json").replace("/home/user/project", project),
    ),
    claudeProject: put(join(project, ".mcp.json"), fixture("claude-code-project.mcp.json")),
    desktop: put(
      join(home, ".config", "Claude", "claude_desktop_config.json"),
      fixture("claude-desktop-config.json"),
    ),
    vscode: put(join(project, ".vscode", "mcp.json"), fixture("vscode-mcp.json")),
    windsurf: put(
      join(home, ".codeium", "windsurf", "mcp_config.json"),
      fixture("windsurf-mcp_config.json"),
    ),
    zed: put(join(home, ".config", "zed", "settings.json"), fixture("zed-settings.json")),
  };
}

/** A reference in Claude Code's syntax: `${FAKE_NODE:-node}` (the variable is not set: node). */
const CLAUDE_VARIABLE = `$${"{"}FAKE_NODE:-node}`;

/** A Claude Code config whose servers are the test kit's fake MCP server. */
function claudeWithFakeServers(where: ReturnType<typeof place>) {
  const server = (extra: Record<string, unknown> = {}) => ({
    type: "stdio",
    command: process.execPath,
    args: [fakeMcpServerBin],
    env: {},
    ...extra,
  });
  const text = `${JSON.stringify(
    {
      numStartups: 7,
      mcpServers: { tracker: server() },
      projects: {
        [where.project]: {
          allowedTools: [],
          mcpServers: {
            // Moved into args as written; the client expands it there as in `command`.
            "project-tracker": server({ command: CLAUDE_VARIABLE }),
            docs: { type: "http", url: "https://mcp.example.com/mcp" },
          },
        },
      },
    },
    null,
    2,
  )}\n`;
  return where.put(join(where.home, ".claude.json"), text);
}

/** `claude` on a PATH of the test's own: the fake client, which cursor-wrap takes for Claude Code. */
function fakeClaude(where: ReturnType<typeof place>): string {
  const bin = join(where.root, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(fakeMcpClientBin, join(bin, "claude"));
  return join(bin, "claude");
}

interface Report {
  pid: number;
  servers: Array<{
    name: string;
    args: string[];
    call?: { error?: { code: number; message: string } };
    next?: { result?: { content: Array<{ text: string }> } };
  }>;
}

const reportOf = (path: string): Report => JSON.parse(readFileSync(path, "utf8")) as Report;

/** The arguments of `mcp run` of a client that calls `echo`, writes its report and stays. */
const stayingArgs = (client: string, report: string): string[] => [
  "mcp",
  "run",
  "--",
  client,
  "--client",
  "claude-code",
  "--report",
  report,
  "--stay",
  "--call",
  "echo",
];

/** `mcp run` of a client that calls `echo`, writes its report and stays until a signal ends it. */
function mcpRunStaying(where: ReturnType<typeof place>, client: string, report: string) {
  return wrap(stayingArgs(client, report), {
    defaults: false,
    env: where.env,
    cwd: where.project,
    input: null,
  });
}

const orphans: number[] = [];
afterAll(() => {
  for (const pid of orphans) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});

describe("cursor-wrap mcp status, wrap and unwrap for every client", () => {
  it("lists every config it finds: wrapped, not wrapped, not stdio, and VS Code's inputs", async () => {
    const where = place();
    allClients(where);
    const status = await run(["mcp", "status"], {
      defaults: false,
      env: where.env,
      cwd: where.project,
    });
    expect(status.code).toBe(0);
    const out = status.stdout.toString();
    for (const header of [
      /Cursor ~\/\.cursor\/mcp\.json: 3 servers/,
      /Claude Code ~\/\.claude\.json: 3 servers/,
      /Claude Code .*\/project\/\.mcp\.json: 2 servers/,
      /Claude Desktop ~\/\.config\/Claude\/claude_desktop_config\.json: 2 servers/,
      /VS Code .*\/project\/\.vscode\/mcp\.json: 4 servers/,
      /Windsurf ~\/\.codeium\/windsurf\/mcp_config\.json: 2 servers/,
      /Zed ~\/\.config\/zed\/settings\.json: 5 servers/,
    ]) {
      expect(out).toMatch(header);
    }
    expect(out).toMatch(/postgres \(project .*\/project\) +stdio +not wrapped npx/);
    expect(out).toMatch(/sentry \(project .*\) +remote +not wrapped/);
    expect(out).toMatch(
      /figma +remote +not wrapped \(a URL: nothing to proxy\) https:\/\/example\.com\/mcp/,
    );
    expect(out).toMatch(/github +\? +not wrapped \(provided by a Zed extension, which starts it\)/);
    expect(out).toMatch(/note: its \$\{input:…\} values are VS Code's to ask for; left as written/);
    // Without --client, a config that is not Cursor's is left out of nothing: every client shows.
    expect(out).not.toContain("no MCP config found");
  });

  it("lists the others when one config cannot be read, and exits 1", async () => {
    const where = place();
    const files = allClients(where);
    writeFileSync(files.cursor, "");
    const status = await run(["mcp", "status"], {
      defaults: false,
      env: where.env,
      cwd: where.project,
    });
    expect(status.code).toBe(1);
    const out = status.stdout.toString();
    expect(out).toMatch(/Cursor ~\/\.cursor\/mcp\.json: cannot be read/);
    expect(out).toMatch(/Zed ~\/\.config\/zed\/settings\.json: 5 servers/);
    expect(status.stderr).toContain("not valid JSON");
  });

  it("wraps Zed's settings keeping its comments, shows the diff first, and unwraps byte for byte", async () => {
    const where = place();
    const { zed } = allClients(where);
    const original = readFileSync(zed, "utf8");
    const options = { defaults: false, env: where.env, cwd: where.project };
    const dry = await run(["mcp", "wrap", "--client", "zed", "--dry-run"], options);
    expect(dry.code).toBe(0);
    expect(dry.stdout.toString()).toContain(`+      "command": "${process.execPath}`);
    expect(readFileSync(zed, "utf8")).toBe(original);

    const wrapped = await run(["mcp", "wrap", "--client", "zed"], options);
    expect(wrapped.code).toBe(0);
    expect(wrapped.stdout.toString()).toContain("wrapped your-mcp-server, notion, bare");
    expect(wrapped.stdout.toString()).toContain("left alone: github: provided by a Zed extension");
    expect(wrapped.stdout.toString()).toContain("Restart Zed");
    const text = readFileSync(zed, "utf8");
    for (const comment of [
      "// Zed settings",
      "// a little smaller than the UI",
      "/* MCP servers",
    ]) {
      expect(text).toContain(comment);
    }
    expect(text).toContain('"theme": "One Dark"');
    const status = await run(["mcp", "status", "--client", "zed"], options);
    expect(status.stdout.toString()).toMatch(/notion +stdio +wrapped +npx -y @notionhq/);

    const unwrapped = await run(["mcp", "unwrap", "--client", "zed"], options);
    expect(unwrapped.code).toBe(0);
    expect(readFileSync(zed, "utf8")).toBe(original);
  });

  it("prints a hostile server name escaped, for every client it wraps", async () => {
    const where = place();
    const { claudeProject } = allClients(where);
    const hostile = "evil\u001b]0;owned\u0007";
    const config = JSON.parse(readFileSync(claudeProject, "utf8"));
    config.mcpServers[hostile] = { command: "x" };
    writeFileSync(claudeProject, JSON.stringify(config, null, 2));
    const options = { defaults: false, env: where.env, cwd: where.project };
    for (const args of [
      ["mcp", "wrap", "--client", "claude-code", "--project", where.project],
      ["mcp", "status", "--client", "claude-code"],
    ]) {
      const result = await run(args, options);
      expect(result.code).toBe(0);
      expect(result.stdout.toString()).not.toContain("\u001b");
      expect(result.stdout.toString()).toContain('"evil\\u001b]0;owned\\u0007"');
    }
  });
});

describe("cursor-wrap mcp run", () => {
  it("wraps the client's configs, runs it, and gives them back byte for byte with its exit code", async () => {
    const where = place();
    const config = claudeWithFakeServers(where);
    const original = readFileSync(config, "utf8");
    const report = join(where.root, "report.json");
    const result = await run(
      [
        "mcp",
        "run",
        "--tool-timeout",
        "hang=500ms",
        "--",
        fakeClaude(where),
        "--client",
        "claude-code",
        "--report",
        report,
        "--exit",
        "3",
      ],
      { defaults: false, env: where.env, cwd: where.project },
    );
    expect(result.stderr).toMatch(/MCP watchdog on: 2 servers \(tracker, project-tracker/);
    expect(result.code).toBe(3);
    const servers = reportOf(report).servers;
    expect(servers.map((server) => server.name)).toEqual(["tracker", "project-tracker"]);
    for (const server of servers) {
      // The client started the proxy, got the watchdog's error for the hung call, and went on.
      expect(server.args.slice(1, 3)).toEqual(["mcp", "proxy"]);
      expect(server.call?.error?.code).toBe(-32001);
      expect(server.call?.error?.message).toContain(
        `did not answer tools/call "hang" within 500ms`,
      );
      expect(server.next?.result?.content[0]?.text).toBe("still here");
    }
    expect(readFileSync(config, "utf8")).toBe(original);
    expect(result.stderr).toContain("gave ~/.claude.json back byte for byte");
    expect(readdirSync(join(where.home, ".cursor-wrap", "mcp-sessions"))).toEqual([]);
  });

  it("gives the configs back after a SIGTERM, which it passes on to the client", async () => {
    const where = place();
    const config = claudeWithFakeServers(where);
    const original = readFileSync(config, "utf8");
    const report = join(where.root, "report.json");
    const running = wrap(
      [
        "mcp",
        "run",
        "--tool-timeout",
        "hang=500ms",
        "--",
        fakeClaude(where),
        "--client",
        "claude-code",
        "--report",
        report,
        "--stay",
      ],
      { defaults: false, env: where.env, cwd: where.project, input: null },
    );
    await running.stdoutHas("fake-mcp-client: done");
    expect(readFileSync(config, "utf8")).not.toBe(original);
    // While it runs, status shows whose the wrapped entries are, and unwrap leaves them to it.
    const options = { defaults: false, env: where.env, cwd: where.project };
    const status = await run(["mcp", "status", "--client", "claude-code"], options);
    expect(status.stdout.toString()).toMatch(
      /tracker +stdio +wrapped +.* \[for the MCP session of pid \d+, ".*claude --client claude-code.*", until it ends\]/,
    );
    const unwrap = await run(["mcp", "unwrap", "--client", "claude-code"], options);
    expect(unwrap.stdout.toString()).toContain("holds tracker, project-tracker");
    const client = reportOf(report).pid;
    running.child.kill("SIGTERM");
    const result = await running.done;
    expect(result.code).toBe(143);
    expect(isAlive(client)).toBe(false);
    expect(readFileSync(config, "utf8")).toBe(original);
  });

  it("after a SIGTERM, ends what a launcher script left running when it exited", async () => {
    const where = place();
    claudeWithFakeServers(where);
    const report = join(where.root, "report.json");
    // `claude` as a launcher script: the client is its child, and a SIGTERM sent to the script
    // alone ends the script and leaves the client running.
    const bin = join(where.root, "bin");
    mkdirSync(bin, { recursive: true });
    const launcher = join(bin, "claude");
    writeFileSync(
      launcher,
      `#!/bin/sh\n"${process.execPath}" "${fakeMcpClientBin}" "$@" &\nwait\n`,
      { mode: 0o755 },
    );
    const running = mcpRunStaying(where, launcher, report);
    await running.stdoutHas("fake-mcp-client: done");
    const client = reportOf(report).pid;
    orphans.push(client);
    running.child.kill("SIGTERM");
    const result = await running.done;
    expect(result.code).toBe(143);
    expect(isAlive(client)).toBe(false);
  });

  it("passes a SIGINT on when it has no terminal, and gives the configs back", async () => {
    const where = place();
    const config = claudeWithFakeServers(where);
    const original = readFileSync(config, "utf8");
    const report = join(where.root, "report.json");
    // A session of its own: no terminal could have sent the agent a Ctrl+C itself.
    const child = spawn(process.execPath, [CLI, ...stayingArgs(fakeClaude(where), report)], {
      cwd: where.project,
      detached: true,
      env: { ...process.env, ...where.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    await new Promise<void>((resolve) =>
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("fake-mcp-client: done")) resolve();
      }),
    );
    const client = reportOf(report).pid;
    child.kill("SIGINT");
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(130);
    expect(isAlive(client)).toBe(false);
    expect(readFileSync(config, "utf8")).toBe(original);
  });

  it("gives the configs back when the agent cannot be started", async () => {
    const where = place();
    const config = claudeWithFakeServers(where);
    const original = readFileSync(config, "utf8");
    const result = await run(["mcp", "run", "--", join(where.root, "no-such", "claude")], {
      defaults: false,
      env: where.env,
      cwd: where.project,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ENOENT/);
    expect(result.stderr).toContain("gave ~/.claude.json back byte for byte");
    expect(readFileSync(config, "utf8")).toBe(original);
  });

  /** A session whose cursor-wrap was SIGKILLed: the client lives on, the config stays wrapped. */
  async function killedSession(where: ReturnType<typeof place>, config: string) {
    const report = join(where.root, "report.json");
    const running = mcpRunStaying(where, fakeClaude(where), report);
    await running.stdoutHas("fake-mcp-client: done");
    const wrappedText = readFileSync(config, "utf8");
    running.child.kill("SIGKILL");
    // Its stdout stays open in the client, which lives on: wait for the process, not the pipe.
    await new Promise((resolve) => running.child.once("exit", resolve));
    const client = reportOf(report).pid;
    orphans.push(client);
    expect(isAlive(client)).toBe(true);
    expect(readFileSync(config, "utf8")).toBe(wrappedText);
    return client;
  }

  it("after a SIGKILL, the next `mcp` command gives the configs back, and says so", async () => {
    const where = place();
    const config = claudeWithFakeServers(where);
    const original = readFileSync(config, "utf8");
    const client = await killedSession(where, config);
    expect(readFileSync(config, "utf8")).not.toBe(original);
    const status = await run(["mcp", "status"], {
      defaults: false,
      env: where.env,
      cwd: where.project,
    });
    const out = status.stdout.toString();
    expect(out).toMatch(/an MCP session \(pid \d+, ".*claude --client claude-code.*"/);
    expect(out).toContain("gave ~/.claude.json back byte for byte");
    expect(out).toMatch(/tracker +stdio +not wrapped/);
    expect(readFileSync(config, "utf8")).toBe(original);
    process.kill(client, "SIGKILL");
  });

  it("after a SIGKILL, the next cursor-wrap run gives the configs back too", async () => {
    const where = place();
    const config = claudeWithFakeServers(where);
    const original = readFileSync(config, "utf8");
    const client = await killedSession(where, config);
    const next = await run(["-p", "hello"], {
      env: where.env,
      cwd: where.project,
      scenario: "quick",
    });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain("gave ~/.claude.json back byte for byte");
    expect(readFileSync(config, "utf8")).toBe(original);
    process.kill(client, "SIGKILL");
  });

  it("refuses a command it cannot tell, naming the clients", async () => {
    const where = place();
    const result = await run(["mcp", "run", "--", "my-agent"], {
      defaults: false,
      env: where.env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'cannot tell which MCP client "my-agent" is; name it with --client (cursor, claude-code, claude-desktop, vscode, windsurf, zed)',
    );
  });
});

describe("cursor-wrap --mcp-watchdog", () => {
  it("puts Cursor's MCP servers behind the watchdog for the run, and gives the file back", async () => {
    const where = place();
    const cursorConfig = where.put(
      join(where.home, ".cursor", "mcp.json"),
      `${JSON.stringify(
        { mcpServers: { tracker: { command: process.execPath, args: [fakeMcpServerBin] } } },
        null,
        2,
      )}\n`,
    );
    const original = readFileSync(cursorConfig, "utf8");
    const result = await run(
      ["-p", "--mcp-watchdog", "--tool-timeout", "mcp=2s", "--tool-grace", "60s", "look it up"],
      {
        scenario: "mcp-call",
        env: { ...where.env, FAKE_AGENT_MCP_CONFIG_SERVER: "tracker" },
        cwd: where.project,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("MCP watchdog on: 1 server (tracker) in ~/.cursor/mcp.json");
    const out = result.stdout.toString();
    expect(out).toContain("did not answer tools/call");
    expect(out).toContain("The issue tracker gave no answer");
    expect(readFileSync(cursorConfig, "utf8")).toBe(original);
    // The proxy logs beside the run, with its token: the run's timeline shows its traffic.
    const sessionLog = readdirSync(result.logDir).find((name) => !name.includes("-mcp-"))!;
    const shown = await runInProcess(["logs", "show", join(result.logDir, sessionLog)], {
      env: where.env,
    });
    expect(shown.stdout.toString()).toContain("· mcp tracker: proxy started");
    expect(shown.stdout.toString()).toMatch(/mcp tracker .*tools\/call "hang"/);
  });
});
